"""What the paper computes from solved games: reachable turn totals,
decisions as intervals, banking maps, fair starts (and their survey for
the paper), house-rule variants.

Imports :mod:`solver.tables` and below; independent of :mod:`solver.advice`.
"""
