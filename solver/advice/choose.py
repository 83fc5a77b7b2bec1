"""Exact table or model: the one rule that picks how a game of any number
of players is answered.

Two players, a table file given, or an exact N-player table that is here
or in reach and may be made now (``first_use``, :mod:`solver.tables.load`)
are answered exactly (:class:`solver.advice.advisor.Advisor`). Otherwise
(more players than an exact table reaches, or one that may not be made
now, as on the page) the race-of-duels model answers on the two-player
table (:class:`solver.advice.duels.DuelsAdvisor`).
"""

from __future__ import annotations

from solver.advice.advisor import Advisor
from solver.advice.duels import DuelsAdvisor
from solver.engine.solution_n import check_player_count
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.model.rules import Rules
from solver.tables.estimates import in_reach
from solver.tables.load import FirstUse, load_table, table_exists
from solver.text import _


def answers_exactly(rules: Rules, players: int = 2, memory: str | None = None,
                    may_solve: bool = False) -> bool:
    """Whether ``players`` at ``rules`` are answered by their exact table
    (module docstring)."""
    return (players == 2 or table_exists(rules, players, memory)
            or (may_solve and in_reach(rules, players)))


def advisor_for(rules: Rules, players: int = 2, memory: str | None = None, *, path=None,
                first_use: FirstUse | None = None, compiled: bool = False,
                before_solving=None, command=None) -> Advisor:
    """The advisor of ``rules`` at a table of ``players`` (module docstring);
    a missing table is made or refused as :func:`solver.tables.load.load_table`
    says."""
    check_player_count(players)
    load = dict(first_use=first_use, lazy_take=not compiled, before_solving=before_solving,
                command=command)
    if path is not None or answers_exactly(rules, players, memory, first_use is not None):
        return Advisor(load_table(rules, players, memory, path=path, **load), compiled)
    if rules.final_round:
        # The duels are two-player games: each would have its own final round.
        raise UsageError(_("{game} to {target} with {players} players and a final round is out "
                           "of reach exactly; try a smaller --target").format(
            game=rules.name, target=figure(rules.target), players=players))
    return DuelsAdvisor(load_table(rules, 2, memory, **load), players)
