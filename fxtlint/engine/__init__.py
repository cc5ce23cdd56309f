"""Reading and linting a buffer: framing and the recovering reader, the native walk
(every verb's one pass) and the screen's program, provider state, semantics and pairing,
the walk every verb shares, the lint entry points and their result, the parallel runner,
hex excerpts and JSON text helpers. Reports through the
rules' ``Rule.at``; imports spec and rules only.
"""
