"""The private machinery of the vocabulary layer: checks, docstring fragments, the compiled
kernel, option types, the label rules and frame reader, and the t and normal quantiles."""
