"""Blocks whose best responses go round a cycle: mixing, and the logit path.

With three or more players a block (:mod:`solver.engine.n_player`) can have no
stable pure policy: as player 1's bank decision at some ``(t, n)`` flips,
player 2's best response flips, which flips player 1's back... docs/rules.md's
"Cycles and equilibria" settles such a block as follows.

1. *Find what flips.* Policy iteration is run on, one pass at a time, and
   ``F``, the bank decisions ``(node, t, n)`` taken differently along the
   last passes, is recorded. Only these are mixed: the decision ``j`` banks
   with probability ``q_j``; every other decision stays the best response.

2. *The logit path.* For a precision ``lam``, the logit (quantal-response)
   equilibrium of the decisions in ``F`` solves

       q_j = sigma(lam * margin_j(q)),

   ``margin_j`` the mover's chance by banking minus by rolling at decision
   ``j`` when the block is at its fixed point under ``q``, ``sigma`` the
   logistic function. In ``y_j = logit(q_j)`` this is ``H(y) = margin(sigma(y))
   - y / lam = 0``, solved by Newton's method (numerical Jacobian) from the
   solution at the previous precision, starting at ``q = 1/2`` (``lam = 0``)
   and raising ``lam`` geometrically to ``LAM_MAX``. Its limit is a Nash
   equilibrium, the standard deterministic selection among several.

3. *Polish.* Decisions whose ``q`` has gone to 0 or 1 become pure; for the
   others Newton's method solves ``margin_j(q) = 0`` exactly (each mixing
   player indifferent, to ``INDIFFERENT``).

4. *Other equilibria.* Every pure profile of ``F``, and the mixed solutions
   reached from other starting points, are checked for the equilibrium
   conditions; those that hold are reported with how far they move the
   block's values. Should the logit path end off an equilibrium (its
   margins are only piecewise smooth), the first equilibrium of a fixed
   search is taken instead (the pure profiles, the supports of at most one
   decision a node, polish from other starts, then every support of a few
   decisions: :mod:`solver.engine.equilibrium_search`), and the block says
   so (``selection``).

The game these steps play on, a block with ``F`` mixed, is
:class:`solver.engine.block_game.BlockGame`.
"""

from __future__ import annotations

import numpy as np

from solver.engine import equilibrium_search as search
from solver.engine.block_game import BlockGame, MoreFlips, jacobian
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.text import _

LAM_MAX = 1e12


class EquilibriumNotFound(UsageError):
    """The search found no equilibrium at a block: the solve stops with one
    line (a limit of the search, not of the game: one exists)."""


def _sigma(y):
    return 1.0 / (1.0 + np.exp(-np.clip(y, -700, 700)))


def logit_path(game: BlockGame) -> np.ndarray:
    """Follow the logit equilibrium from ``lam = 0`` to ``LAM_MAX``; returns
    its ``q`` there. At each precision, damped Newton's method on ``G(y) =
    lam margin(sigma(y)) - y`` (the module's ``H`` times ``lam``), with a
    backtracking line search on ``|G|``; between precisions a decision far
    out (``|y| > 10``) is predicted to stay where it is, ``y`` growing with
    ``lam``."""
    y = np.zeros(len(game.decisions))
    previous = None
    for lam in np.geomspace(1.0, LAM_MAX, 49):
        if previous is not None:
            far = np.abs(y) > 10
            y[far] *= lam / previous
        previous = lam

        def G(y):
            return lam * game.margins(_sigma(y)) - y
        g = G(y)
        for _step in range(60):
            if np.max(np.abs(g)) < 1e-6:
                break
            q = _sigma(y)
            slope = q * (1 - q)
            J = -np.eye(len(y))
            live = np.flatnonzero(slope > 1e-12)
            if len(live):
                def live_margins(ql):
                    full = q.copy()
                    full[live] = ql
                    return game.margins(full)
                base = (g + y) / lam
                dm = jacobian(live_margins, q[live], base, 1e-5)
                J[:, live] += lam * dm * slope[live][None, :]
            step = np.linalg.lstsq(J, -g, rcond=None)[0]
            size = 1.0
            while size > 1e-6:
                trial = y + size * step
                g_trial = G(trial)
                if np.max(np.abs(g_trial)) < np.max(np.abs(g)):
                    y, g = trial, g_trial
                    break
                size /= 2
            else:
                break                   # no descent: the next precision goes on
    return _sigma(y)


def settle_block(solution, blocks, b, turn, dice, moves, a_rows) -> None:
    """Solve a block that does not settle under pure best responses (module
    docstring); records the mixed decisions in ``solution.mixed`` and what
    was found in ``solution.equilibria``."""
    game = BlockGame(solution, blocks, b, turn, dice, moves, a_rows)
    flips = game.flipping()
    if flips is None:
        return                                  # slow, not cycling: settled
    game.decisions = flips
    while True:
        try:
            end = logit_path(game)
            q, selection = search.polish(game, end), "logit path"
            if q is None:
                # The path lost its way (the margins are only piecewise
                # smooth): take the first equilibrium of a fixed search
                # order instead, and say so.
                q, selection = search.first_equilibrium(game, end), "first found"
            break
        except MoreFlips as more:
            game.decisions = game.decisions + more.decisions
    if q is None:
        raise EquilibriumNotFound(_(
            "{game} to {target} with {players} players: no equilibrium found at a block whose "
            "best responses cycle ({count} flipping decisions); try a smaller --target").format(
            game=solution.rules.name, target=figure(solution.rules.target),
            players=solution.players, count=len(game.decisions)))
    others = search.other_equilibria(game, q)
    game.margins(q)                             # the selected one, written last
    chosen = game.values()
    mixed = [(int(game.nodes[d[1]]),) + d[:1] + d[2:] + (float(qj),)
             for d, qj in zip(game.decisions, q) if 0 < qj < 1]
    for node, *decision in mixed:
        solution.mixed.setdefault(node, []).append(tuple(decision))
    solution.equilibria.append({
        "nodes": [int(v) for v in game.nodes],
        "decisions": len(game.decisions),
        "mixed": mixed,
        "selection": selection,
        "other_equilibria": len(others),
        "other_move": max((float(np.max(np.abs(v - chosen))) for v in others), default=0.0),
    })
