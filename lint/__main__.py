"""`python -m cursedlint` runs the command-line interface."""

from cursedlint.cli import main

raise SystemExit(main())
