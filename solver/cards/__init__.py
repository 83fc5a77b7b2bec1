"""Strategy cards: the rule a person carries, its record and text, its
compiled kernel, its decisions at the score sheet, its regret and bounds,
where it loses, and the exact evaluation of a seat that plays it. Fitting
a card is in :mod:`solver.cards.fit`, which nothing below the CLI imports.

Imports :mod:`solver.advice`, :mod:`solver.study` and below.
"""
