"""Whole games with real dice: the policies as tables, the compiled game
loops for two and N players, and matches between policies.

Imports :mod:`solver.cards` and below (a card is a policy).

The two-player loop (``game_loop``, ``simulate``) reads the two-player
table's ``W`` and coded take-over values; the N-player loop (``game_loop_n``,
``simulate_n``) every seat's chance per node, and calls the two-player
loop's dice and keep order (:mod:`solver.sim.game_loop`). ``farkle simulate
--players 2`` runs the two-player loop, whose seeded dice every published
two-player figure was drawn from (:mod:`solver.engine` says why the pairs
stay two).
"""
