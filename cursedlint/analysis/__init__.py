"""Analyses shared by the rules: what the code does (which expression a call passes, ...),
computed in one place and consumed by every rule that asks. Answers are values, None where the
code surely has none, or `UNKNOWN`; rules stay silent on UNKNOWN."""
