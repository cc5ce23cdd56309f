"""Consumers that write FXT: ``repair`` (the most of a trace that can be made conforming)
and ``slice`` (pieces of a trace that each open on their own)."""
