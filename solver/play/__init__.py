"""One game at the table: the score sheet and the turn in progress, the
bots, and the terminal of ``farkle play``.

Imports :mod:`solver.sim` and below.
"""
