"""The Python front end: the syntax tree's context and walk (`context`), imports
(`imports`), constant values (`consteval`), and the parse-free scanner the second looks use
(`scan`)."""
