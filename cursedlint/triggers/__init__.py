"""Which files are worth parsing: the rules' trigger words found in the raw bytes
(`prefilter`, over the automata of `byte_search`), and the parse-free second looks that prove
a rule cannot fire (`second_look`)."""
