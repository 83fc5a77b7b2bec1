"""One block whose best responses cycle, as a game in its flipping decisions.

:mod:`solver.engine.equilibrium` settles such a block; this module is the
game it plays on: :class:`BlockGame` mixes a set of bank and keep
decisions ``F`` of the block's nodes (the decision ``j`` taken with
probability ``q_j``, every other decision the best response), solves the
block to its fixed point under them with the compiled kernel
(:func:`solver.engine.n_player_blocks.solve_block_n`) and reads each
mixed decision's *margin*: the mover's chance by banking minus by rolling
(by the alternative keep minus the main one). ``q`` is an equilibrium of
the block when

    0 < q_j < 1  =>  margin_j(q) = 0,    q_j = 1  =>  margin_j >= 0,
    q_j = 0  =>  margin_j <= 0,

and every decision outside ``F`` is a best response (:func:`is_equilibrium`).
"""

from __future__ import annotations

import numpy as np

from solver.engine.n_player_blocks import NEWTON_TOL, PURE_PASSES, block_plan, solve_block_n
from solver.engine.turn_kernel_n import NO_FINAL_ROUND, MultiValues, Seats

RECORD_PASSES = 24
INDIFFERENT = 1e-12


class BlockGame:
    """One block's nodes as a game in the mixed decisions ``F``: a decision
    is ``("bank", i, t, n)`` (node ``i`` of the block banks with
    probability q) or ``("keep", i, t, r, main, alt)`` (node ``i`` keeps
    ``alt`` with probability q and ``main`` otherwise from roll class ``r``
    at turn total ``t``)."""

    def __init__(self, solution, blocks, b, turn, dice, moves, a_rows):
        self.solution, self.blocks, self.b = solution, blocks, b
        self.args = (Seats.of(solution.players, solution.space), turn, dice, moves,
                     MultiValues(solution.V, solution.take_values,
                                 NO_FINAL_ROUND if solution.reach is None else solution.reach))
        self.a_rows = a_rows
        n0, n1 = blocks.block_start[b], blocks.block_start[b + 1]
        self.nodes = blocks.node[n0:n1]
        self.plan = block_plan(len(self.nodes), solution.rules, len(dice.prob))
        self.decisions: list[tuple] = []
        self.pattern = None
        """The best responses outside ``decisions`` at the last margins."""

    def run(self, max_passes):
        blocks, b = self.blocks, self.b
        return solve_block_n(b, blocks, *self.args, False, max_passes, self.a_rows, self.plan)

    def record(self) -> tuple[np.ndarray, np.ndarray]:
        """The decisions the last pass took: banks and keeps, with those of
        ``F`` blanked out."""
        banked, chosen = self.plan.banked.copy(), self.plan.keep_chosen.copy()
        for d in self.decisions:
            (banked if d[0] == "bank" else chosen)[d[1:4]] = 0
        return banked, chosen

    def flipping(self, passes=RECORD_PASSES):
        """Policy iteration, one pass at a time (decisions in ``F`` kept
        mixed): the decisions that flip, or None if the block settles."""
        seen = []
        for _pass in range(passes):
            _v, change = self.run(1)
            if change <= NEWTON_TOL:
                return None
            seen.append(self.record())
        seen = seen[len(seen) // 2:]
        banks = np.array([s[0] for s in seen])
        keeps = np.array([s[1] for s in seen])
        flips = [("bank",) + tuple(int(v) for v in f)
                 for f in np.argwhere((banks != banks[0]).any(axis=0))]
        for f in np.argwhere((keeps != keeps[0]).any(axis=0)):
            taken = keeps[(slice(None),) + tuple(f)]
            main = int(taken[0])
            alt = int(taken[taken != main][0])
            flips.append(("keep",) + tuple(int(v) for v in f) + (main, alt))
        return flips

    def set_mix(self, q, decisions=None):
        """Mix ``decisions`` (those of ``F`` by default) by ``q``; every
        other decision the best response."""
        self.plan.bank_q[:] = -1.0
        self.plan.keep_q[:] = -1.0
        for d, qj in zip(self.decisions if decisions is None else decisions, q):
            if d[0] == "bank":
                self.plan.bank_q[d[1:4]] = qj
            else:
                self.plan.keep_q[d[1:4]] = qj
                self.plan.keep_main[d[1:4]] = d[4]
                self.plan.keep_alt[d[1:4]] = d[5]

    def margins(self, q):
        """The mover's margin (bank minus roll; the alternative keep minus
        the main one) at each decision of ``F`` when the block is at its
        fixed point with ``F`` mixed by ``q``. A further decision that flips
        is added to ``F`` (raises :class:`MoreFlips`)."""
        self.set_mix(q)
        _v, change = self.run(PURE_PASSES)
        if change > NEWTON_TOL:
            more = [f for f in (self.flipping() or []) if f not in self.decisions]
            if more:
                raise MoreFlips(more)
        # A best response that changes with q makes the margins jump: mix
        # it too.
        banked, chosen = self.record()
        if self.pattern is not None:
            old_banked, old_chosen = self.pattern
            more = [("bank",) + tuple(int(v) for v in f)
                    for f in np.argwhere(banked != old_banked)]
            more += [("keep",) + tuple(int(v) for v in f)
                     + (int(old_chosen[tuple(f)]), int(chosen[tuple(f)]))
                     for f in np.argwhere(chosen != old_chosen)]
            if more:
                self.pattern = None
                raise MoreFlips(more)
        self.pattern = banked, chosen
        return self.margins_read(self.decisions)

    def values(self):
        return self.solution.V[self.nodes].copy()

    def settled_margins(self, decisions, q):
        """The margins of ``decisions`` mixed by ``q`` with every other
        decision the best response, at the block's fixed point; raises
        :class:`Unsettled` where those best responses do not settle."""
        self.set_mix(q, decisions)
        _v, change = self.run(PURE_PASSES)
        if change > NEWTON_TOL:
            raise Unsettled
        return self.margins_read(decisions)

    def margins_read(self, decisions):
        """The margins of ``decisions`` (mixed ones) the last pass left."""
        return np.array([(self.plan.bank_margin if d[0] == "bank" else self.plan.keep_margin)
                         [d[1:4]] for d in decisions])

    def taken(self):
        """``q`` of every decision of ``F`` as the last pass took it (1 for
        a bank or the alternative keep, 0 for a roll or the main keep, the
        mixing probability for a mixed one), or None where a keep took a
        third choice."""
        q = []
        for d in self.decisions:
            if d[0] == "bank":
                mix = self.plan.bank_q[d[1:4]]
                q.append(mix if mix >= 0 else float(self.plan.banked[d[1:4]] != 0))
                continue
            mix, chosen = self.plan.keep_q[d[1:4]], self.plan.keep_chosen[d[1:4]]
            if mix >= 0 and self.plan.keep_main[d[1:4]] == d[4]:
                q.append(mix)
            elif chosen in (d[4], d[5]):
                q.append(float(chosen == d[5]))
            else:
                return None
        return np.array(q)


class Unsettled(Exception):
    """The best responses outside the mixed decisions do not settle."""


class MoreFlips(Exception):
    def __init__(self, decisions):
        super().__init__(f"{len(decisions)} more decisions flip")
        self.decisions = decisions


def jacobian(f, x, fx, step):
    J = np.empty((len(fx), len(x)))
    for j in range(len(x)):
        moved = x.copy()
        moved[j] += step
        J[:, j] = (f(moved) - fx) / step
    return J


def newton(margins_of, q: np.ndarray, steps: int, held=None) -> np.ndarray | None:
    """Newton's method on ``margins_of(q)``, ``q`` kept in [0, 1]: the ``q``
    whose margins are all below INDIFFERENT (the block left at it), or None
    after ``steps`` steps. Where a step is held at a bound every later step
    is the same: ``held(q)`` then, if given, else None."""
    for _step in range(steps):
        m = margins_of(q)
        if np.max(np.abs(m)) < INDIFFERENT:
            return q
        # A wide step: the margins are smooth between their jumps, and a
        # step of 1e-7 in q moves a margin of 1e-7 by no more than rounding.
        J = jacobian(margins_of, q, m, 1e-4)
        step = np.clip(q - np.linalg.lstsq(J, m, rcond=None)[0], 0.0, 1.0)
        if np.array_equal(step, q):
            return None if held is None else held(q)
        q = step
    return None


def indifferent(game: BlockGame, q: np.ndarray, inner: list) -> np.ndarray | None:
    """Newton's method on the margins of ``inner`` (the other decisions
    fixed): q with those margins below INDIFFERENT, or None."""
    if not inner:
        return q
    q = q.copy()

    def inner_margins(qi):
        full = q.copy()
        full[inner] = qi
        return game.margins(full)[inner]
    found = newton(inner_margins, q[inner], 50)
    if found is None:
        return None
    q[inner] = found
    return q


def is_equilibrium(game: BlockGame, q: np.ndarray) -> bool:
    """Each mixing mover indifferent, each pure decision of ``F`` a best
    response (no pure deviation better for its mover)."""
    if np.any(q < -1e-12) or np.any(q > 1 + 1e-12):
        return False
    m = game.margins(q)
    mixing = (q > 0) & (q < 1)
    return bool(np.all(np.abs(m[mixing]) < 1e-10) and np.all(m[q == 1] >= -1e-12)
                and np.all(m[q == 0] <= 1e-12))
