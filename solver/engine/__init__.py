"""The solvers: the turn DP (numpy and compiled), the two-player and
N-player level solvers, equilibria, the crosses memory model, convergence,
and a solved game in memory.

Imports only :mod:`solver.model`.

Two players and N players. Every solved game answers one type,
:class:`solver.engine.solution.SolvedGame` (``players``, ``seat_wins``).
Three pairs stay separate, each for a reason that was measured:

* ``two_player`` / ``n_player`` (with ``turn_kernel`` / ``turn_kernel_n``):
  the N-player solver at two players gives the same values to the last
  printed digit, and is about as fast where no player falls back
  (cinq-mille to 5,000: 0.33 s against the two-player solver's 0.28 s;
  quinze-mille to 8,000: 2.66 s against 2.16 s; Pig: 0.04 s both), but
  where crosses make players fall the two-player solver's Newton steps on
  the zero-turn chains win: dix-mille to 1,500 with the exact memory,
  30.8 s against 210.3 s on idle cores (6.8 times; 7.9 times beside other
  jobs), ``python benchmarks/bench_pairs.py``, docs/benchmarks/solver.md.
  The two-player solver also runs the crosses model (``memory``), which
  has no N-player form.
* ``solution`` / ``solution_n``: the two-player table keeps ``W[m, w]`` and
  the take-over values per bank slot (coded in the file,
  :mod:`solver.tables.take_codes`); the N-player one every seat's chance
  per node. They share :class:`~solver.engine.solution.SolvedGame`.
* the simulator's loops (:mod:`solver.sim`): each reads its own table
  layout, and the two-player loop's dice stream is what every published
  two-player figure of ``farkle simulate`` was drawn from.
"""
