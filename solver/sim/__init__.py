"""Whole games with real dice: the policies as tables, the compiled game
loops for two and N players, and matches between policies.

Imports :mod:`solver.cards` and below (a card is a policy).

The two-player loop (``game_loop``, ``simulate``) reads the two-player
table's ``W`` and coded take-over values; the N-player loop (``game_loop_n``,
``simulate_n``) every seat's chance per node, and throws the two-player
loop's dice (:mod:`solver.sim.dice`) in its keep order
(:mod:`solver.sim.game_loop`). Both loops play a fall that costs points and
a final round (two players: :mod:`solver.sim.score_sheet`,
:mod:`solver.sim.final_round`; N players: :mod:`solver.sim.optimal_n`, its
rows from the floor, and :mod:`solver.sim.last_turns_n`). ``farkle simulate
--players 2`` runs the two-player loop, whose seeded dice every published
two-player figure was drawn from (:mod:`solver.engine` says why the pairs
stay two).
"""
