"""The private machinery of the vocabulary layer: argument checks (:mod:`.checks`), shared
docstring parts (:mod:`.docs`), the compiled kernel (:mod:`.kernel`), option types
(:mod:`.types`), the label rules and frame reader (:mod:`.labels`) and the t and normal
quantiles (:mod:`.quantiles`)."""
