"""Export of a linted trace to other formats (Trace Event Format JSON).
"""
