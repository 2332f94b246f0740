"""The C/C++ front end: the tree-sitter context, queries and name lookups (`context`), and
C++ classes and their members (`classes`)."""
