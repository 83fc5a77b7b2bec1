"""Whole games with real dice: the policies as tables, the compiled game
loops for two and N players, and matches between policies.

Imports :mod:`solver.cards` and below (a card is a policy).
"""
