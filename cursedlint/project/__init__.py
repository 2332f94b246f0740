"""The project around the linted files: which files it holds (`discovery`), which of them
facts come from (`fact_files`), the facts gathered from them and kept across runs (`index`),
the result cache (`cache`), and the files read on the way (`safe_files`, `globs`,
`requires_python`, `changed_lines`)."""
