"""Grading readers: the canonical decoding, the spec's verdict for each
malformed case, and the runner that plays the suite against a reader.
"""
