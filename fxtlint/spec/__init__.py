"""What the spec says, loaded from spec-tables/: the strict table loader, the
roles derived from it, the record model, the encoder, the builders, the limits,
the errors and the tool's version. Imports nothing else of fxtlint.
"""
