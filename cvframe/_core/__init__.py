"""The private machinery of the vocabulary layer: checks (of arguments, and of the values of
counts), docstring fragments, the compiled kernel, option types, the label rules and frame
reader, and the t and normal quantiles."""
