"""The games where game-AI people work: OpenSpiel, PettingZoo and
Gymnasium, and an exact referee of any policy against the tables.

Every adapter moves the play engine (:class:`solver.play.game.Game`), so
the rules are the engine's and :mod:`solver.model.turn_rules`' alone;
:mod:`~solver.adapters.engine` runs it without advice and
:mod:`~solver.adapters.encoding` numbers its actions and observations once
for all three libraries. The referee (:mod:`~solver.adapters.referee`,
:mod:`~solver.adapters.exact`, :mod:`~solver.adapters.policies`) plays or
evaluates a policy in every seat against the table's players.

Imports :mod:`solver.play` and below. OpenSpiel (``pyspiel``), PettingZoo
and Gymnasium are imported only by the modules that map onto them, and
only when those are imported: ``import solver`` and the command line never
load them unless asked (``pip install ".[openspiel]"``, ``".[adapters]"``).
"""
