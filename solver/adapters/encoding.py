"""A game at the table as numbers: action ids, the observation tensor and
its string, the same for OpenSpiel, PettingZoo and Gymnasium.

Actions (``num_actions(rules) = 4 + K``):

    0 roll      go on rolling the dice in hand (BANK phase)
    1 bank      bank the turn total (BANK phase)
    2 fresh     refuse the offer, roll every die from 0 (TAKE phase)
    3 take      take over the previous player's offer (TAKE phase)
    4 + j       keep the dice ``keep_dice(D)[j]`` (KEEP phase)

``keep_dice(D)`` lists every multiset of 1 to ``D`` faces (sorted dice),
the fewest dice first, then in :func:`itertools.combinations_with_replacement`
order: the same kept dice are the same action whatever the roll, so a
learner's table carries over (``K`` = 6 for one die, 923 for six). Only
the keeps :func:`solver.model.dice.keeps` lists for the roll are legal.

The observation (float32, flat, read from the observing player ``p``;
"seat order from p" is ``p, p + 1, ...`` mod ``N``). Scores are in units
(``points // unit``) with ``B = target - floor + 1`` bins, bin ``b`` the
score ``floor + b``, the last bin "the target or more"; a one-hot puts a
1 in the bin of its value and 0 elsewhere:

    phase        5        one-hot: take, roll (a chance node), keep, bank, over
    mover        N        one-hot: how many seats after p the mover sits
    scores       N x B    one-hot per player, seat order from p
    crosses      N x C    one-hot crosses 0 .. C - 1 (games with C crosses only)
    previous     N x B    one-hot score before the last bank (games whose
                          fall goes back to it only)
    turn_total   B        one-hot, clipped at the last bin
    dice         D + 1    one-hot, dice in hand
    roll         6        counts of faces 1 .. 6 of the roll to keep from
                          (KEEP phase; zeros elsewhere)
    offer        B + D    one-hot offered total, one-hot offered dice 1 .. D
                          (games with take-over only; zeros without an offer)
    final round  P+1+2N   to pass: one-hot units past the target (P + 1
                          bins, P = past_target_units, the last "or more"),
                          then who holds that score
                          (N flags) and who banked first (N one-hot), seat
                          order from p (games with a final round only; zeros
                          before it)

Pig for two players is 5 + 2 + 2 x 101 + 101 + 2 + 6 = 318 floats
(:func:`observation_layout` gives any game's sections). The game is of
perfect information and this observation is Markov: the future and the
returns depend on the history only through it, so it is also the
information state the adapters give (OpenSpiel's ``information_state_*``,
which tabular algorithms key on). The one thing it leaves out is the
count of decisions toward a horizon, as OpenSpiel's own Pig does.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from solver.adapters.engine import PHASES
from solver.model.dice import FACES, counts_of
from solver.model.last_turn import past_target_units
from solver.play.game import BANK, KEEP, TAKE, Game

ROLL_ON, BANK_ACTION, FRESH, TAKE_OVER = 0, 1, 2, 3
FIRST_KEEP = 4
NAMES = {ROLL_ON: "roll", BANK_ACTION: "bank", FRESH: "fresh", TAKE_OVER: "take"}
ACTION_OF = {name: action for action, name in NAMES.items()}


@cache
def keep_dice(dice: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of 1 to ``dice`` faces (module docstring)."""
    return tuple(kept for size in range(1, dice + 1)
                 for kept in itertools.combinations_with_replacement(FACES, size))


@cache
def _keep_index(dice: int) -> dict:
    return {kept: FIRST_KEEP + j for j, kept in enumerate(keep_dice(dice))}


def num_actions(rules) -> int:
    return FIRST_KEEP + len(keep_dice(rules.dice))


def action_of(rules, answer) -> int:
    """The action id of an engine answer (a name or kept dice)."""
    if isinstance(answer, str):
        return ACTION_OF[answer]
    return _keep_index(rules.dice)[tuple(sorted(int(d) for d in answer))]


def answer_of(rules, action: int):
    """The engine's answer for an action id: a name, or the kept dice."""
    action = int(action)
    if action in NAMES:
        return NAMES[action]
    return keep_dice(rules.dice)[action - FIRST_KEEP]


def action_name(rules, action: int) -> str:
    answer = answer_of(rules, action)
    return answer if isinstance(answer, str) else "keep " + " ".join(map(str, answer))


def legal_actions(game: Game) -> list[int]:
    """The legal actions of the decision now due, ascending (none at a
    chance node or the end)."""
    phase = game.phase
    if phase == TAKE:
        return [FRESH, TAKE_OVER]
    if phase == BANK:
        return [ROLL_ON, BANK_ACTION] if game.bank_refusal() is None else [ROLL_ON]
    if phase == KEEP:
        return sorted(action_of(game.rules, keep.dice) for keep in game.options())
    return []


def action_mask(game: Game) -> np.ndarray:
    mask = np.zeros(num_actions(game.rules), dtype=np.int8)
    mask[legal_actions(game)] = 1
    return mask


# ----------------------------------------------------------- observation

def score_bins(rules) -> int:
    return rules.target_units - rules.floor_units + 1


def observation_layout(rules, players: int) -> list[tuple[str, int]]:
    """The observation's sections and their sizes, in order (module
    docstring)."""
    B, D, N = score_bins(rules), rules.dice, players
    layout = [("phase", len(PHASES)), ("mover", N), ("scores", N * B)]
    if rules.crosses:
        layout.append(("crosses", N * rules.crosses))
    if rules.falls_back:
        layout.append(("previous", N * B))
    layout += [("turn_total", B), ("dice", D + 1), ("roll", len(FACES))]
    if rules.has_takeover:
        layout.append(("offer", B + D))
    if rules.final_round:
        layout.append(("final_round", past_target_units(rules) + 1 + 2 * N))
    return layout


def observation_size(rules, players: int) -> int:
    return sum(size for _, size in observation_layout(rules, players))


def observation(game: Game, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``game`` from ``player`` (module docstring),
    written into ``out`` when given."""
    rules, state, N = game.rules, game.state, game.players
    size = observation_size(rules, N)
    out = np.zeros(size, dtype=np.float32) if out is None else out
    out[:] = 0
    B, D, unit, floor = score_bins(rules), rules.dice, rules.unit, rules.floor_units
    seats = [(player + k) % N for k in range(N)]

    def bin_of(points: int) -> int:
        return min(max(points // unit - floor, 0), B - 1)

    at = 0

    def section(length: int) -> np.ndarray:
        nonlocal at
        view = out[at:at + length]
        at += length
        return view

    section(len(PHASES))[PHASES.index(state.phase)] = 1
    section(N)[(state.mover - player) % N] = 1
    scores = section(N * B).reshape(N, B)
    for row, seat in enumerate(seats):
        scores[row, bin_of(state.lines[seat].score)] = 1
    if rules.crosses:
        crosses = section(N * rules.crosses).reshape(N, rules.crosses)
        for row, seat in enumerate(seats):
            crosses[row, min(state.lines[seat].crosses, rules.crosses - 1)] = 1
    if rules.falls_back:
        previous = section(N * B).reshape(N, B)
        for row, seat in enumerate(seats):
            previous[row, bin_of(state.lines[seat].previous)] = 1
    section(B)[min(state.turn_total // unit, B - 1)] = 1
    section(D + 1)[state.in_hand] = 1
    roll = section(len(FACES))
    if state.phase == KEEP and state.roll:
        roll[:] = counts_of(state.roll)
    if rules.has_takeover:
        offer = section(B + D)
        if state.offer is not None:
            offer[min(state.offer[0] // unit, B - 1)] = 1
            offer[B + state.offer[1] - 1] = 1
    if rules.final_round:
        past = past_target_units(rules)
        final = section(past + 1 + 2 * N)
        if state.to_pass is not None:
            final[min(state.to_pass // unit - rules.target_units, past)] = 1
            for row, seat in enumerate(seats):
                final[past + 1 + row] = seat in state.holders
                final[past + 1 + N + row] = seat == state.banker
    return out


def observation_string(game: Game, player: int) -> str:
    """The observation in words, from ``player`` (scores in seat order from
    them, their own first)."""
    rules, state, N = game.rules, game.state, game.players
    seats = [(player + k) % N for k in range(N)]
    lines = []
    for seat in seats:
        line = state.lines[seat]
        extra = f" ({line.crosses} crosses, previous {line.previous})" if rules.crosses else ""
        lines.append(f"{line.score}{extra}")
    text = [f"phase {state.phase}", f"mover +{(state.mover - player) % N}",
            "scores " + ", ".join(lines), f"turn total {state.turn_total}",
            f"dice {state.in_hand}"]
    if state.roll is not None and state.phase == KEEP:
        text.append("roll " + " ".join(map(str, state.roll)))
    if state.offer is not None:
        text.append(f"offer {state.offer[0]} with {state.offer[1]} dice")
    if state.to_pass is not None:
        holders = ",".join(f"+{(seat - player) % N}" for seat in state.holders)
        text.append(f"to pass {state.to_pass} (held by {holders})")
    return " | ".join(text)
