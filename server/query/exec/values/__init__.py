"""Runtime value semantics shared by the operators and functions: ``ops`` (equality, comparison, ordering,
grouping keys, type names, number formatting)."""
