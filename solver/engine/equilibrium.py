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
   search is taken instead (the pure profiles, polish from other starts,
   then every support of a few decisions), and the block says so
   (``selection``).
"""

from __future__ import annotations

import itertools

import numpy as np

from solver.engine.n_player_blocks import NEWTON_TOL, PURE_PASSES, block_plan, solve_block_n
from solver.engine.turn_kernel_n import NO_FINAL_ROUND, MultiValues, Seats
from solver.model.errors import UsageError
from solver.model.messages import figure
from solver.text import _

RECORD_PASSES = 24
LAM_MAX = 1e12
INDIFFERENT = 1e-12
MAX_PURE_PROFILES = 10
"""Up to 2^10 pure profiles of the flipping decisions are checked for
other equilibria."""
MAX_FALLBACK_PROFILES = 16
"""Where the logit path fails, up to 2^16 pure profiles are checked (in
4-player Pig to 80 a block of 11 flipping decisions has only pure
equilibria)."""
MAX_SUPPORT_DECISIONS = 6
"""Up to 3^6 supports are tried when everything else fails."""
MAX_SUBSETS = 64
"""Sets of decisions tried for indifference, per size, when polishing."""


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

    def set_mix(self, q):
        self.plan.bank_q[:] = -1.0
        self.plan.keep_q[:] = -1.0
        for d, qj in zip(self.decisions, q):
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
        is added to ``F`` (raises :class:`_MoreFlips`)."""
        self.set_mix(q)
        _v, change = self.run(PURE_PASSES)
        if change > NEWTON_TOL:
            more = [f for f in (self.flipping() or []) if f not in self.decisions]
            if more:
                raise _MoreFlips(more)
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
                raise _MoreFlips(more)
        self.pattern = banked, chosen
        return np.array([(self.plan.bank_margin if d[0] == "bank" else self.plan.keep_margin)
                         [d[1:4]] for d in self.decisions])

    def values(self):
        return self.solution.V[self.nodes].copy()


class EquilibriumNotFound(UsageError):
    """The search found no equilibrium at a block: the solve stops with one
    line (a limit of the search, not of the game: one exists)."""


class _MoreFlips(Exception):
    def __init__(self, decisions):
        super().__init__(f"{len(decisions)} more decisions flip")
        self.decisions = decisions


def _sigma(y):
    return 1.0 / (1.0 + np.exp(-np.clip(y, -700, 700)))


def _jacobian(f, x, fx, step):
    J = np.empty((len(fx), len(x)))
    for j in range(len(x)):
        moved = x.copy()
        moved[j] += step
        J[:, j] = (f(moved) - fx) / step
    return J


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
                dm = _jacobian(live_margins, q[live], base, 1e-5)
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


def polish(game: BlockGame, q: np.ndarray, search: bool = True) -> np.ndarray | None:
    """From the end of the path (or any start) to an exact equilibrium:
    decisions near 0 or 1 are made pure; of the others, the largest set
    that can be made indifferent is solved to indifference by Newton's
    method (``_indifferent``), the rest made pure on the side their margin
    takes. A decision may be unable to mix: in a cycle of two movers each
    one's margin is set by the *other's* q, and a third decision whose
    margin follows the first's cannot be zeroed with it. None if no set
    gives an equilibrium. ``search=False`` tries the decisions strictly
    inside (0, 1) alone, as one set (the quick check of other starting
    points)."""
    q = q.copy()
    pure = (q < 1e-9) | (q > 1 - 1e-9)
    q[pure] = np.round(q[pure])
    margins = game.margins(q)
    # In the search, a pure decision whose margin says the other way may
    # have to mix too (the path can end short of its limit with such a
    # decision still pure). The decisions nearest indifference come first:
    # with many of them only the first MAX_SUBSETS sets of a size are tried.
    wrong = pure & (np.where(q == 1, -margins, margins) > 1e-12) & search
    inner = sorted(np.flatnonzero(~pure | wrong), key=lambda j: abs(margins[j]))
    for size in range(len(inner), -1 if search else len(inner) - 1, -1):
        subsets = itertools.combinations(inner, size)
        for subset in itertools.islice(subsets, MAX_SUBSETS):
            trial = q.copy()
            for j in set(inner) - set(subset):
                trial[j] = 1.0 if margins[j] > 0 else 0.0
            trial = _indifferent(game, trial, list(subset))
            if trial is not None and is_equilibrium(game, trial):
                return trial
    return None


def _indifferent(game: BlockGame, q: np.ndarray, inner: list) -> np.ndarray | None:
    """Newton's method on the margins of ``inner`` (the other decisions
    fixed): q with those margins below INDIFFERENT, or None."""
    if not inner:
        return q
    q = q.copy()

    def inner_margins(qi):
        full = q.copy()
        full[inner] = qi
        return game.margins(full)[inner]
    qi = q[inner]
    for _step in range(50):
        m = inner_margins(qi)
        if np.max(np.abs(m)) < INDIFFERENT:
            q[inner] = qi
            return q
        # A wide step: the margins are smooth between their jumps, and a
        # step of 1e-7 in q moves a margin of 1e-7 by no more than rounding.
        J = _jacobian(inner_margins, qi, m, 1e-4)
        qi = np.clip(qi - np.linalg.lstsq(J, m, rcond=None)[0], 0.0, 1.0)
    return None


def is_equilibrium(game: BlockGame, q: np.ndarray) -> bool:
    """Each mixing mover indifferent, each pure decision of ``F`` a best
    response (no pure deviation better for its mover)."""
    if np.any(q < -1e-12) or np.any(q > 1 + 1e-12):
        return False
    m = game.margins(q)
    mixing = (q > 0) & (q < 1)
    return bool(np.all(np.abs(m[mixing]) < 1e-10) and np.all(m[q == 1] >= -1e-12)
                and np.all(m[q == 0] <= 1e-12))


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
            q, selection = polish(game, logit_path(game)), "logit path"
            if q is None:
                # The path lost its way (the margins are only piecewise
                # smooth): take the first equilibrium of a fixed search
                # order instead, and say so.
                q, selection = first_equilibrium(game), "first found"
            break
        except _MoreFlips as more:
            game.decisions = game.decisions + more.decisions
    if q is None:
        raise EquilibriumNotFound(_(
            "{game} to {target} with {players} players: no equilibrium found at a block whose "
            "best responses cycle ({count} flipping decisions); try a smaller --target").format(
            game=solution.rules.name, target=figure(solution.rules.target),
            players=solution.players, count=len(game.decisions)))
    others = other_equilibria(game, q)
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


def candidate_starts(m: int):
    """Where the search for equilibria of ``m`` decisions starts: every pure
    profile (up to MAX_PURE_PROFILES decisions), then all mixed at 0.1, 0.5
    and 0.9."""
    if m <= MAX_PURE_PROFILES:
        yield from (np.array(p, dtype=float) for p in itertools.product((0.0, 1.0), repeat=m))
    yield from (np.full(m, v) for v in (0.1, 0.5, 0.9))


def first_equilibrium(game: BlockGame) -> np.ndarray | None:
    """The first pure profile (up to MAX_FALLBACK_PROFILES decisions) that is
    an equilibrium, each checked with one block solve; else the first
    equilibrium that :func:`polish` reaches from :func:`candidate_starts`;
    else None."""
    m = len(game.decisions)
    if m <= MAX_FALLBACK_PROFILES:
        for profile in itertools.product((0.0, 1.0), repeat=m):
            if is_equilibrium(game, np.array(profile)):
                return np.array(profile)
    for start in candidate_starts(m):
        try:
            q = polish(game, start)
        except np.linalg.LinAlgError:
            continue
        if q is not None:
            return q
    return support_enumeration(game) if m <= MAX_SUPPORT_DECISIONS else None


def support_enumeration(game: BlockGame) -> np.ndarray | None:
    """Every support, smallest first: each set of decisions that mix, with
    every pure profile of the others, solved to indifference; the first
    equilibrium (3^m trials for m decisions), or None."""
    m = len(game.decisions)
    for size in range(1, m + 1):
        for mixing in itertools.combinations(range(m), size):
            rest = [j for j in range(m) if j not in mixing]
            for profile in itertools.product((0.0, 1.0), repeat=len(rest)):
                q = np.full(m, 0.5)
                q[rest] = profile
                try:
                    q = _indifferent(game, q, list(mixing))
                except np.linalg.LinAlgError:
                    continue
                if q is not None and is_equilibrium(game, q):
                    return q
    return None


def other_equilibria(game: BlockGame, selected: np.ndarray) -> list[np.ndarray]:
    """Block values of the equilibria other than ``selected``: the pure
    profiles of ``F`` that are equilibria, and mixed ones found by polishing
    from other starting points."""
    game.margins(selected)
    found, known = [], [game.values()]
    for start in candidate_starts(len(game.decisions)):
        try:
            q = polish(game, start, search=False)
        except (_MoreFlips, np.linalg.LinAlgError):
            continue
        if q is None:
            continue
        game.margins(q)
        values = game.values()
        # Equilibria are told apart by their values (a margin flat in q
        # leaves q itself less sharp than the values).
        if any(np.max(np.abs(values - v)) < 1e-9 for v in known):
            continue
        known.append(values)
        found.append(values)
    return found
