"""The page for the table: the HTTP server, the JSON questions behind it,
and its static files.

Imports :mod:`solver.play` and below.
"""
