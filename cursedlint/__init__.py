"""cursedlint: finds the rare, nondeterministic systems bugs of ML training stacks.

Importing this package is cheap on purpose: parsers (tree-sitter) and the rule modules are
imported only when a file needs them, so `cursedlint check` on a clean file starts fast.
"""

__version__ = "0.3.1.dev0"
