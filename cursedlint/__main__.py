"""`python -m cursedlint` runs the command-line interface."""

from cursedlint.cli import run

run()
