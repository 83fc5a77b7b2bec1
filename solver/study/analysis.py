"""What the paper computes from a solved game: reachable turn totals, the
bank and take-over decisions as intervals, banking maps, the fair head
start, and the house-rule variants of a game.

All scores and turn totals are in units (``points // unit``) unless a name
says points. ``T`` is the target, ``D`` the dice, ``s`` the mover's banked
score.

Reachable turn totals (:func:`reachable`). From ``(t, n) = (0, D)`` a roll
of ``n`` dice leads through each of its keeps to ``(t + points,
dice_left(n, used))`` while :func:`solver.model.turn_rules.keep_result` says the
turn goes on (no win, no overshoot). ``reach[t, n]`` is True for every
``(t, n)`` some play reaches. Since a keep continues exactly while ``s + t'
< T``, the totals reachable from score ``s`` are those reachable from 0 cut
at ``T - s``.

Offers (:func:`offers`). A banker now at ``b`` made the offer ``(t, n)``
when they came from ``b - t`` (0, entered, or ``b - t >= entry``), could
reach ``(t, n)`` from there, could bank it (:func:`solver.model.turn_rules.may_bank`)
and a bank with ``n`` dice unset is an offer (:func:`solver.model.turn_rules.offer`).

Decisions as intervals. With ``R[t, n]`` the value of rolling and ``B[t,
n]`` of banking (:func:`solver.engine.solution.replay`), optimal play banks at a
reachable ``(t, n)`` where the bank is allowed and ``B >= R`` (ties bank,
docs/rules.md). It takes over an offer ``(t, n)`` when ``R_taker(t, n) > W[m,
w]``, the value of a fresh turn (ties roll fresh). :func:`runs` turns such a
yes/no over the reachable totals into maximal intervals ``[lo, hi]`` of
consecutive reachable totals: one interval reaching up to the largest
allowed total is a clean threshold, anything else is not.

Fair head start (:func:`komi`): the smallest reachable score ``h > 0`` with
``W[start, h] <= 1/2``: the first player, to move at 0 against an opponent
at ``h``, wins at most half the time.

House-rule variants (:func:`house_variants`): a game's variants that differ
from it in one rule field (several for "neither"), read from the fields of
:class:`solver.model.rules.Rules`, never from a game's name.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from solver.engine.solution import Solution, replay
from solver.model.dice import keep_table
from solver.model.rules import Rules
from solver.model.turn_rules import CONTINUE, TurnRules, dice_left, keep_result, may_bank, offer

# ------------------------------------------------------------ reachability


@lru_cache(maxsize=None)
def _reachable_from_zero(rules: Rules) -> np.ndarray:
    turn = TurnRules.of(rules)
    table = keep_table(rules)
    D, T = rules.dice, rules.target_units
    reach = np.zeros((T, D + 1), dtype=bool)
    reach[0, D] = True
    for t in range(T):                      # a keep only raises t: one pass upwards
        for n in range(1, D + 1):
            if not reach[t, n]:
                continue
            units, used, win = table.keep_units[n], table.keep_used[n], table.keep_win[n]
            for k in range(len(units)):
                t2 = t + int(units[k])
                # Past the target (a final round's turn goes on) is not asked.
                if t2 >= T or keep_result(turn, 0, t2, bool(win[k])) != CONTINUE:
                    continue
                reach[t2, dice_left(turn, n, int(used[k]))] = True
    reach.setflags(write=False)
    return reach


def reachable(rules: Rules, score: int = 0) -> np.ndarray:
    """``reach[t, n]`` for ``t < T - score``: some play of a turn started
    fresh at ``score`` holds ``t`` with ``n`` dice in hand (hot dice: ``n =
    D``) and may still roll (module docstring)."""
    return _reachable_from_zero(rules)[:rules.target_units - score]


def offers(rules: Rules, banker_score: int) -> np.ndarray:
    """``can[t, n]`` for ``t < T``: a banker now at ``banker_score`` can have
    just banked ``t`` with ``n`` dice unset and so offered ``(t, n)``
    (module docstring)."""
    turn = TurnRules.of(rules)
    T, D = rules.target_units, rules.dice
    can = np.zeros((T, D + 1), dtype=bool)
    reach = _reachable_from_zero(rules)
    for t in range(1, min(banker_score, T - 1) + 1):
        before = banker_score - t
        if 0 < before < rules.entry_units:
            continue                        # no score between 0 and the entry
        for n in range(1, D + 1):
            if reach[t, n] and before + t < T and may_bank(turn, before, t, n) \
                    and offer(turn, n):
                can[t, n] = True
    return can


def runs(yes: np.ndarray, where: np.ndarray) -> list[tuple[int, int]]:
    """Maximal intervals ``(lo, hi)`` of the indices in ``where`` (sorted)
    on which ``yes`` holds without a break at another index of ``where``."""
    out: list[tuple[int, int]] = []
    last = None
    for i in where:
        if yes[i]:
            if last is not None and out and out[-1][1] == last:
                out[-1] = (out[-1][0], int(i))
            else:
                out.append((int(i), int(i)))
        last = int(i)
    return out


# --------------------------------------------------------------- decisions

@dataclasses.dataclass(frozen=True)
class Rule:
    """One decision, per number of dice: the intervals (units) of the
    totals where the answer is yes, among the ``candidates`` where it is
    asked."""
    intervals: tuple[tuple[int, int], ...]
    top: int | None
    """Largest total where the question is asked (None: nowhere)."""

    @property
    def smallest(self) -> int | None:
        return self.intervals[0][0] if self.intervals else None

    @property
    def is_threshold(self) -> bool:
        """Yes from one total up to the largest asked (or never yes)."""
        return len(self.intervals) == 0 or (len(self.intervals) == 1
                                            and self.intervals[0][1] == self.top)


def bank_rules(solution: Solution, m: int, w: int, reach: np.ndarray | None = None,
               compiled: bool = True) -> dict[int, Rule]:
    """Per dice in hand ``n``: where mover ``m`` banks against ``w``, over
    the reachable totals at which the bank is allowed."""
    rules = solution.rules
    score = int(solution.space.score[m])
    reach = reachable(rules, score) if reach is None else reach
    _, R, _, B = replay(solution, m, w, compiled=compiled)
    T = rules.target_units - score
    R, B = np.asarray(R)[:T], np.asarray(B)[:T]
    allowed = np.isfinite(B) & reach[:T]
    banks = allowed & (B >= R)
    out = {}
    for n in range(1, rules.dice + 1):
        where = np.flatnonzero(allowed[:, n])
        out[n] = Rule(tuple(runs(banks[:, n], where)), int(where[-1]) if len(where) else None)
    return out


def take_rules(solution: Solution, m: int, w: int, compiled: bool = True) -> dict[int, Rule]:
    """Per dice offered ``n``: the offers taker ``m`` takes over from a
    banker now at ``w``, over the offers that banker can have made and that
    are short of the taker's target."""
    rules, space = solution.rules, solution.space
    _, R, _, _ = replay(solution, m, w, compiled=compiled)
    rows = rules.target_units - int(space.score[m])
    can = offers(rules, int(space.score[w]))[:rows]
    take = can & (np.asarray(R)[:rows] > float(solution.W[m, w]))
    out = {}
    for n in range(1, rules.dice):
        where = np.flatnonzero(can[:, n])
        out[n] = Rule(tuple(runs(take[:, n], where)), int(where[-1]) if len(where) else None)
    return out


# -------------------------------------------------------------- start values

def state_at(space, units: int) -> int:
    """The player state of a score reached by banks, no crosses."""
    if space.memory == "none":
        return space.index_of_score(units)
    return space.find(units, 0, 0)


def plain_scores(space) -> np.ndarray:
    """The scores (units) a player can hold, sorted, once each."""
    return np.unique(np.asarray(space.score))


def start_values(solution: Solution) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, W)``: the start values between players with no crosses,
    ``W[i, j]`` the mover at ``scores[i]`` against ``scores[j]`` (units)."""
    scores = plain_scores(solution.space)
    states = [state_at(solution.space, int(s)) for s in scores]
    return scores, np.asarray(solution.W)[np.ix_(states, states)]


def komi(solution: Solution) -> dict | None:
    """The fair head start (module docstring), in points: ``h`` and the
    first player's win probability there, and at the next smaller score."""
    scores, W = start_values(solution)
    unit = solution.rules.unit
    for i in range(1, len(scores)):
        if W[0, i] <= 0.5:
            return {"h": int(scores[i]) * unit, "p": float(W[0, i]),
                    "h_before": int(scores[i - 1]) * unit, "p_before": float(W[0, i - 1])}
    return None


def nearest_score(solution: Solution, fraction: float) -> int:
    """The score a player can hold nearest ``fraction`` of the target (units)."""
    scores = plain_scores(solution.space)
    return int(scores[np.argmin(np.abs(scores - fraction * solution.rules.target_units))])


# ------------------------------------------------------------------ maps

def bank_maps(solution: Solution, max_axis: int = 150):
    """Banking against both scores (no crosses), per dice in hand ``n``:
    ``smallest[n][i, j]`` the smallest total banked (units, -1: never) and
    ``threshold[n][i, j]`` whether banking is a clean threshold, mover at
    ``scores[i]``, opponent at ``scores[j]``. With more than ``max_axis``
    scores every k-th is replayed (``scores`` holds those). Returns
    ``(scores, smallest, threshold, step)``."""
    rules, space = solution.rules, solution.space
    everyone = plain_scores(space)
    step = -(-len(everyone) // max_axis)
    scores = everyone[::step]
    states = [state_at(space, int(s)) for s in scores]
    shape = (len(scores), len(scores))
    smallest = {n: np.full(shape, -1, dtype=np.int64) for n in range(1, rules.dice + 1)}
    threshold = {n: np.ones(shape, dtype=bool) for n in range(1, rules.dice + 1)}
    for j, w in enumerate(states):          # waiting player outside: one take-over row
        for i, m in enumerate(states):
            rule = bank_rules(solution, m, w, reachable(rules, int(scores[i])))
            for n, r in rule.items():
                smallest[n][i, j] = -1 if r.smallest is None else r.smallest
                threshold[n][i, j] = r.is_threshold
    return scores, smallest, threshold, step


def unusable_offer(rules: Rules, taker_score: int, total: int) -> bool:
    """An offer of ``total`` that a taker at ``taker_score`` cannot use:
    with an exact target every keep from it overshoots (the smallest keep
    already passes the target), so taking it over can only end in a zero
    turn."""
    smallest_keep = int(min(u.min() for u in keep_table(rules).keep_units[1:] if len(u)))
    return rules.exact_target and taker_score + total + smallest_keep > rules.target_units


def unusable_banks(rules: Rules, scores: np.ndarray, smallest: dict) -> dict:
    """Over a banking map (:func:`bank_maps`), the cells (mover, opponent,
    dice ``1 <= n < D``) with a bank: how many (``cells``), how many whose
    smallest bank is an offer the opponent cannot use (``hits``), how many
    of these have the opponent ahead (``ahead``), and how many are exactly
    the smallest such offer, target minus the opponent's score (``exact``)."""
    out = dict(cells=0, hits=0, ahead=0, exact=0)
    for n, grid in smallest.items():
        if not 1 <= n < rules.dice:
            continue
        for i, j in zip(*np.nonzero(grid >= 0)):
            out["cells"] += 1
            t, me, opp = int(grid[i, j]), int(scores[i]), int(scores[j])
            if unusable_offer(rules, opp, t):
                out["hits"] += 1
                out["ahead"] += opp > me
                out["exact"] += t == rules.target_units - opp
    return out


# ------------------------------------------------------------- the solver

def newton_passes(stats: dict) -> dict:
    """How the solve ran, from its stats: one sweep (Newton to convergence:
    passes per block on average and at most) or several sweeps (with
    crosses: a fixed number of passes per block and sweep, so the passes per
    block in all are ``mean * sweeps``)."""
    sweeps = int(stats["sweeps"])
    mean = float(stats["newton_passes_mean"])
    if sweeps == 1:
        return {"sweeps": 1, "mean": mean, "max": int(stats["newton_passes_max"])}
    return {"sweeps": sweeps, "per_block": round(mean * sweeps),
            "last_sweep": int(stats["newton_passes_max"])}


# ----------------------------------------------------------- house rules

PLAY_FIELDS = ("exact_target", "hot_dice_forced", "takeover_min", "crosses",
               "last_turn_points", "keep_rule")
"""Rule fields a house rule changes (not the dice, scoring or target)."""


def describe_change(base: Rules, variant: Rules) -> str:
    """A reader's name for what ``variant`` changes in ``base``."""
    parts = []
    for name in PLAY_FIELDS:
        old, new = getattr(base, name), getattr(variant, name)
        if old == new:
            continue
        if name == "exact_target":
            parts.append("exactly the target" if new else "the target or more")
        elif name == "hot_dice_forced":
            parts.append("hot dice forced" if new else "hot dice optional")
        elif name == "takeover_min":
            parts.append("no take-over" if new is None else f"take-over from {new:,}")
        elif name == "crosses":
            parts.append("no crosses" if new == 0 else f"{new} crosses")
        elif name == "last_turn_points":
            parts.append(f"the last {new:,} points in one turn" if new else
                         "no last-turn rule")
        elif name == "keep_rule":
            parts.append("keep any scoring dice" if new == "any" else "keep every scoring die")
    return " and ".join(parts)


def house_variants(base: Rules, named: dict[str, Rules]) -> list[tuple[str, Rules]]:
    """``(label, rules)`` of the variants of ``base`` compared in the paper:
    the games of ``named`` that differ from it in play fields only, one
    field each (their own name kept), and each play field of ``base``
    turned the other way where that is a rule of its own (take-over and
    crosses off, alone and together; hot dice and the exact target
    flipped; the keep rule swapped)."""
    def same_game(other):
        return all(getattr(base, f.name) == getattr(other, f.name)
                   for f in dataclasses.fields(Rules)
                   if f.name not in PLAY_FIELDS + ("name", "summary", "target"))
    out: dict[str, Rules] = {}
    for other in named.values():
        if other.name == base.name or not same_game(other):
            continue
        changed = [f for f in PLAY_FIELDS if getattr(base, f) != getattr(other, f)]
        if len(changed) == 1:
            out[describe_change(base, other)] = dataclasses.replace(other, target=base.target)
    flips = [dict(hot_dice_forced=not base.hot_dice_forced),
             dict(exact_target=not base.exact_target),
             dict(keep_rule="any" if base.keep_rule == "all" else "all")]
    if base.takeover_min is not None:
        flips.append(dict(takeover_min=None))
    if base.crosses:
        flips.append(dict(crosses=0))
        if base.takeover_min is not None:
            flips.append(dict(crosses=0, takeover_min=None))
    for change in flips:
        variant = dataclasses.replace(base, **change)
        label = describe_change(base, variant)
        if label not in out:
            out[label] = dataclasses.replace(variant, name=f"{base.name} ({label})",
                                             summary=f"{base.name}, {label}")
    return list(out.items())
