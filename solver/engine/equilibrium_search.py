"""Where the logit path does not end at an equilibrium: polishing, and the search.

:func:`polish` takes a profile of the flipping decisions (the logit path's
end, or any start) to an exact equilibrium; :func:`first_equilibrium` is
the fixed search taken where that fails (module docstring of
:mod:`solver.engine.equilibrium`, point 4), and :func:`other_equilibria`
looks for the equilibria not selected.

The search, in order: every pure profile of ``F`` (up to
MAX_FALLBACK_PROFILES decisions); the node supports
(:func:`node_supports`); polish from the candidate starts; every support
(up to MAX_SUPPORT_DECISIONS decisions).

The node supports rest on the turn: a node's decisions all answer one
number, ``z``, the mover's chance after a zero turn there (the DP compares
the mover's chances only, and of the block's values only ``z`` enters
them: solver.engine.turn_kernel_n's policy range is a range of ``z``).
A decision is indifferent at some values of ``z`` (a bank decision at
one: its margin falls as ``z`` grows, rolling gaining what a zero turn is
worth), and at an equilibrium ``z`` is one number, so a node mixes two
decisions at once only at a tie, and a support needs at most one mixing
decision a node: ``prod(1 + |F_i|)`` supports, ``F_i`` the node's
flipping decisions, against ``3^|F|``. A mover's own mixing hardly moves
their own margin (in a cycle of movers each one's margin is set by the
others' q), so a support is solved for all its decisions at once.
In 4-player Pig to 100 the logit path ended off an equilibrium at 27 of
the 4,873 blocks that cycle (2 to 25 flipping decisions; the largest
block had 38); the two of more than 16 decisions, 19 and 25 over 4 nodes,
had stopped the solve before, and the node supports settled each in
about a second (the one of 25 only with the others where the path's end
put them: with them best responses, they settle elsewhere).
"""

from __future__ import annotations

import itertools

import numpy as np

from solver.engine.block_game import (
    BlockGame,
    MoreFlips,
    Unsettled,
    indifferent,
    is_equilibrium,
    newton,
)

MAX_PURE_PROFILES = 10
"""Up to 2^10 pure profiles of the flipping decisions are checked for
other equilibria."""
MAX_FALLBACK_PROFILES = 16
"""Where the logit path fails, up to 2^16 pure profiles are checked (in
4-player Pig to 80 a block of 11 flipping decisions has only pure
equilibria)."""
MAX_SUPPORT_DECISIONS = 6
"""Up to 3^6 supports are tried when everything else fails."""
MAX_NODE_SUPPORTS = 4096
"""Node supports tried, the nearest indifference first (4-player Pig to
100's block of 24 decisions, 9, 3, 6 and 6 a node, has 1,960 of them):
bounds the search where it finds nothing (each support a Newton solve of
up to 50 steps)."""
MAX_SUBSETS = 64
"""Sets of decisions tried for indifference, per size, when polishing."""


def polish(game: BlockGame, q: np.ndarray, search: bool = True) -> np.ndarray | None:
    """From the end of the path (or any start) to an exact equilibrium:
    decisions near 0 or 1 are made pure; of the others, the largest set
    that can be made indifferent is solved to indifference by Newton's
    method (``indifferent``), the rest made pure on the side their margin
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
            trial = indifferent(game, trial, list(subset))
            if trial is not None and is_equilibrium(game, trial):
                return trial
    return None


def candidate_starts(m: int):
    """Where the search for equilibria of ``m`` decisions starts: every pure
    profile (up to MAX_PURE_PROFILES decisions), then all mixed at 0.1, 0.5
    and 0.9."""
    if m <= MAX_PURE_PROFILES:
        yield from (np.array(p, dtype=float) for p in itertools.product((0.0, 1.0), repeat=m))
    yield from (np.full(m, v) for v in (0.1, 0.5, 0.9))


def first_equilibrium(game: BlockGame, start: np.ndarray | None = None) -> np.ndarray | None:
    """The first pure profile (up to MAX_FALLBACK_PROFILES decisions) that is
    an equilibrium, each checked with one block solve; else the first
    equilibrium of :func:`node_supports`; else the first that :func:`polish`
    reaches from :func:`candidate_starts`; else (up to
    MAX_SUPPORT_DECISIONS decisions) of :func:`support_enumeration`; else
    None."""
    m = len(game.decisions)
    if m <= MAX_FALLBACK_PROFILES:
        for profile in itertools.product((0.0, 1.0), repeat=m):
            if is_equilibrium(game, np.array(profile)):
                return np.array(profile)
    q = node_supports(game, start)
    if q is not None:
        return q
    for start in candidate_starts(m):
        try:
            q = polish(game, start)
        except np.linalg.LinAlgError:
            continue
        if q is not None:
            return q
    return support_enumeration(game) if m <= MAX_SUPPORT_DECISIONS else None


def node_supports(game: BlockGame, start: np.ndarray | None = None) -> np.ndarray | None:
    """The supports of at most one mixing decision a node (module
    docstring), fewest first and, of a size, those whose decisions are
    nearest indifference at ``start`` (the logit path's end; else every
    decision at 1/2) first. Each is solved to indifference by Newton's
    method twice: first with the other decisions of ``F`` pure on the side
    their margin at ``start`` takes (the logit path's end is often a
    decision or two from an equilibrium whose other decisions it has
    right), then with every other decision the best response (the pure
    cycle's best responses may settle once one decision is held). The
    first that is an equilibrium, or None."""
    m = len(game.decisions)
    start = np.full(m, 0.5) if start is None else start
    game.pattern = None
    try:
        margins = game.margins(start)
    except MoreFlips:
        return None
    side = np.where(margins > 0, 1.0, 0.0)
    by_node: dict[int, list[int]] = {}
    for j in range(m):
        by_node.setdefault(game.decisions[j][1], []).append(j)
    options = [[None] + js for js in by_node.values()]
    supports = [[j for j in s if j is not None] for s in itertools.product(*options)]
    supports.sort(key=lambda s: (len(s), float(np.sum(np.abs(margins[s])))))
    del supports[MAX_NODE_SUPPORTS:]
    for support in supports:
        trial = side.copy()
        inside = (start[support] > 0) & (start[support] < 1)
        trial[support] = np.where(inside, start[support], 0.5)
        game.pattern = None
        try:
            q = indifferent(game, trial, support)
            if q is not None and is_equilibrium(game, q):
                return q
        except (MoreFlips, np.linalg.LinAlgError):
            pass
    for support in supports[1:]:                # the empty one: the pure cycle
        mixing = [game.decisions[j] for j in support]
        try:
            if _settled_indifferent(game, mixing) is None:
                continue
        except (Unsettled, np.linalg.LinAlgError):
            continue
        q = game.taken()
        game.pattern = None
        try:
            if q is not None and is_equilibrium(game, q):
                return q
        except MoreFlips:
            continue
    return None


def _settled_indifferent(game: BlockGame, mixing: list) -> np.ndarray | None:
    """Newton's method on the margins of ``mixing``, every other decision
    the best response: their ``q`` with the margins below INDIFFERENT (the
    block left there), or None. Raises :class:`Unsettled` where the best
    responses cycle on the way."""
    def margins_of(q):
        return game.settled_margins(mixing, q)

    def held(q):
        # Held at a bound: pure there, an equilibrium if its margin agrees
        # (the caller checks); the block left at it.
        margins_of(q)
        return q
    return newton(margins_of, np.full(len(mixing), 0.5), 30, held)


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
                    q = indifferent(game, q, list(mixing))
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
        except (MoreFlips, np.linalg.LinAlgError):
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
