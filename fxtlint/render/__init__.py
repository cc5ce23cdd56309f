"""Everything that turns results into text: terminal, JSON, JSON Lines, SARIF,
GitHub and JUnit output, the writer report's Markdown and HTML, the reader
matrix, rule docs.
"""
