"""The HTML report: one self-contained file rendered from a report's data, a front end beside cli and tui.

It imports no textual or rich; it reads the values the reports layer computed and never computes one.
"""
