"""The ``farkle`` command: parses its line, calls the library, prints.

The top layer: may import any other.
"""
