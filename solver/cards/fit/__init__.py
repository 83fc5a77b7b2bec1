"""Fitting a strategy card to a table: the coordinate search, the sampled
screen, the cards the program ships (``cards.json``) and the cards fitted
on the user's machine.

Imports :mod:`solver.cards` and below; only the CLI and scripts import it.
"""
