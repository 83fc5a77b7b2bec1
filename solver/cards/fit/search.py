"""The search that fits a strategy card to a table, and the simple rules
people use, written as cards.

A card's loss against a table of N players is what the table's player
wins that the card's player does not, averaged over the seats:

    loss(card) = 1/N - (1/N) * sum_s  V_s(card)

where ``V_s(card)`` is the card's exact chance in seat s with every other
seat playing the table (a fixed-policy evaluation,
:func:`solver.cards.seat_value.card_seat_values` for two players,
``card_seat_values_n`` for more; no sampling, so comparisons are free of
noise). :func:`fit` lowers it by a coordinate search over whole multiples
of the unit: each field in turn (:func:`fields_to_fit`) is moved either way
by 1, 2, 4, 8, 16 and 32 units (a worth that ranks keeps also by half a
unit; a count of dice by as many dice, from none to all), keeping the
best, round after round until a round gains less than 1e-7. A row of
thresholds near an end (``chase1``.., ``home1``..) changes nothing until
its condition is set, and a field whose condition every score short of
the target meets, or none, changes nothing either: such moves cost no
evaluation (:meth:`solver.cards.record.Card.in_play`,
:meth:`~solver.cards.record.Card.at_target`).

The simple rules (:func:`simple_rules`) are evaluated the same way, as
cards: ``threshold:300`` (bank at 300 with any dice, keep the most points;
Pig: hold at 20), "bank once entered" (bank as soon as the turn total
meets the entry, in every turn) and "always keep everything" (the fitted
card, but keeping every scoring die).

:mod:`solver.cards.fit.stored` (``scripts/fit_cards.py``) fits the stored
cards with it, and ``farkle card --fit`` a card for a house game or a
table of more players.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from solver.cards.record import SIDE_ROWS, WORTH_ROWS, Card, chooses_keeps


def first_guess(solution) -> Card:
    """Bank thresholds from the table: per dice in hand, the median of the
    smallest total optimal play banks with both players level."""
    from solver.study.analysis import bank_rules, state_at
    rules, space = solution.rules, solution.space
    unit, T = rules.unit, rules.target_units
    smallest = {n: [] for n in range(1, rules.dice + 1)}
    first = max(rules.entry_units, 1)
    for units in np.linspace(first, 0.8 * T, 9).astype(int):
        try:
            m = state_at(space, int(units))
        except KeyError:
            continue
        for n, rule in bank_rules(solution, m, m).items():
            if rule.smallest is not None:
                smallest[n].append(rule.smallest)
    bank = tuple(int(np.median(v)) * unit if v else rules.target // 2 for v in smallest.values())
    past_lead, past_lead_all = past_leads(solution) if rules.final_round else (0, 0)
    return Card(rules.name, bank, gap_step=max(unit, rules.target // 10 // unit * unit),
                open_at=rules.entry, past_lead=past_lead, past_lead_all=past_lead_all,
                # One unit a die: where every searched card ended when a
                # die had one worth (the four cinq-mille games), and best
                # of 0, 1, 2 and 4 units for quinze-mille-free-keep's first
                # guess (BENCHMARKS.md).
                left_worth=tuple(unit * k for k in range(1, rules.dice + 1))
                if chooses_keeps(rules) else (),
                take_at=20 * unit if rules.has_takeover else 0,
                take_die=2 * unit if rules.has_takeover else 0)


def past_leads(solution) -> tuple[int, int]:
    """A final round's ``(past_lead, past_lead_all)`` from the table: with
    both players a unit short of the target, the smallest lead (the turn
    total) from which optimal play banks past it, the median over fewer
    dice than all, and with all."""
    from solver.engine.solution import replay
    from solver.study.analysis import state_at
    rules = solution.rules
    level = state_at(solution.space, rules.target_units - 1)
    _, R, _, B = replay(solution, level, level)
    rows = min(len(R), len(B))
    leads = [next((t for t in range(1, rows) if B[t, n] >= R[t, n]), rows) * rules.unit
             for n in range(1, rules.dice + 1)]
    return int(np.median(leads[:-1])) // rules.unit * rules.unit, leads[-1]


def fields_to_fit(rules) -> list[str]:
    names = [f"bank{n}" for n in range(1, rules.dice + 1)] + [
        "behind", "gap_step", "chase_within", "chase_behind", "race_within", "home_within"] + [
        f"{row}{n}" for row in ("chase", "home") for n in range(1, rules.dice + 1)]
    if rules.entry:
        names.append("open_at")
    if chooses_keeps(rules):
        names += [f"{prefix}{k}" for prefix, row in PER_DICE.items() if row in WORTH_ROWS
                  for k in range(1, rules.dice + 1)] + [
            "late_from", "most_points_from", "chase_most_points_from", "lead_most_points_from",
            "bank_keep_worth"]
        if rules.hot_dice_forced:
            names += ["hot_dice_from", "hot_dice_cost"]
        if rules.entry:
            names += ["entry_die", "entry_reach"]
    if rules.has_takeover:
        names += ["take_at", "take_die", "take_one_at", "take_one_behind",
                  "take_one_behind_by", "take_one_behind_within", "take_one_chasing"]
        names += ["lead_offer_behind", "lead_offer_from", "lead_offer_to", "lead_offer_far"]
        names += [f"safe{n}" for n in range(1, rules.dice + 1)]
        if rules.exact_target:
            names += ["offer_within", "offer_dice", "offer_fewer_within", "offer_fewer_from",
                      "finish_unless_within", "take_finish_within", "take_finish_dice"]
    if rules.crosses:
        names.append("last_cross")
        if rules.has_takeover:
            names.append("last_cross_take_more")
        if rules.has_takeover and rules.exact_target:
            names.append("last_cross_offer_dice")
    if rules.final_round:
        names += ["past_lead", "past_lead_all"]
    if rules.exact_target or rules.score_cap_units is not None:
        # Too little left to go: a lone 5 to make exactly, or past a cap
        # points that the bank would not keep.
        names += ["leave_at_least", "lone_die_leaves", "leave_unless"]
    if rules.exact_target:
        names += ["finish_within", "finish_from", "finish_yields_within", "finish_dice",
                  "five_hundreds_within", "five_hundreds_dice"]
        if rules.crosses:
            # A zero turn costs a cross too: the end comes sooner with one.
            names += ["crossed_finish_dice", "crossed_two_dice_leaves"]
        if chooses_keeps(rules):
            names += ["end_within", "end_die", "odd_fifty", "end_bonus"]
    return names


WORTHS = {"bank_keep_worth", "end_die", "odd_fifty", "end_bonus", "entry_die", "entry_reach"}
"""Fields that rank keeps, besides the worths of dice left (``left1``..):
moved by half units too."""

KEEP_FIELDS = WORTHS | {"late_from", "most_points_from", "chase_most_points_from",
                        "lead_most_points_from", "end_within", "hot_dice_from",
                        "hot_dice_cost"}
"""Every field that ranks keeps alone, besides the rows of worths of dice
left: 0 turns it off."""

PER_DICE = {"bank": "bank", "left": "left_worth", "late": "late_worth",
            "leader": "leader_worth", "chaseworth": "chase_worth", "chase": "chase_bank",
            "home": "home_bank", "safe": "safe_bank"}
"""Fields named by a prefix and a number of dice (``bank3``, ``left2``,
``chase3``): the card's tuple it indexes."""


STANDS_FOR = {**{name: "bank" for name in SIDE_ROWS},
              **{name: "left_worth" for name in WORTH_ROWS if name != "left_worth"}}
"""A row a card may lack, and the row it plays as meanwhile: a card
without a row of its own near an end banks there as elsewhere, and one
without late worths of dice keeps as before."""


def _row(card: Card, tuple_name: str) -> tuple[int, ...]:
    # A search starts a missing row from the one it stands for; a card with
    # no worths of dice left (one of a game that lets no keep be chosen,
    # the start of another's search) plays as worths of 0.
    return getattr(card, tuple_name) or getattr(card, STANDS_FOR.get(tuple_name, tuple_name)) \
        or (0,) * len(card.bank)


def _per_dice(name: str):
    for prefix, tuple_name in PER_DICE.items():
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return tuple_name, int(name[len(prefix):]) - 1
    return None, None


def is_worth(name: str) -> bool:
    """Whether field ``name`` is a worth of dice left (``left2``,
    ``late3``, ``leader1``, ``chaseworth5``)."""
    return _per_dice(name)[0] in WORTH_ROWS


def get(card: Card, name: str) -> int:
    tuple_name, i = _per_dice(name)
    return _row(card, tuple_name)[i] if tuple_name else getattr(card, name)


def holds(card: Card, name: str) -> bool:
    """Whether ``card`` holds field ``name`` itself: not a value of a row
    it lacks, read from the row that stands for it."""
    tuple_name, _ = _per_dice(name)
    return not tuple_name or bool(getattr(card, tuple_name))


def put(card: Card, name: str, value: int) -> Card:
    tuple_name, i = _per_dice(name)
    if tuple_name:
        values = list(_row(card, tuple_name))
        values[i] = value
        return dataclasses.replace(card, **{tuple_name: tuple(values)})
    return dataclasses.replace(card, **{name: value})


def searched_rows(rules) -> set[str]:
    """The card's fields (rows as a whole) that a search for ``rules``
    moves: the rest play no part in their game."""
    return {_per_dice(name)[0] or name for name in fields_to_fit(rules)}


COUNTS = {"finish_dice", "crossed_finish_dice", "offer_dice", "last_cross_offer_dice",
          "take_finish_dice", "five_hundreds_dice"}
"""Fields that count dice, not points: moved by one die at a time, from 0
to every die."""


def bounds(rules, name: str) -> tuple[int, int]:
    """The smallest and largest value a search gives field ``name``."""
    if name in COUNTS:
        return 0, rules.dice
    if name == "open_at":
        return rules.entry, rules.target
    if name == "gap_step":
        return rules.unit, rules.target
    return (-10 * rules.target if name == "behind" else 0), rules.target


MOVES = [sign * k for k in (1, 2, 4, 8, 16, 32) for sign in (1, -1)]
"""A field's moves, in units (dice for a count)."""


def candidates(rules, name: str, value: int) -> list[int]:
    """The values a search tries for field ``name`` from ``value``, in
    order, within its bounds."""
    step = 1 if name in COUNTS else rules.unit
    # A worth also moves by half a unit: a whole unit leaves a 1 and a 1
    # with a 5 ranked alike.
    halves = [0.5, -0.5] if name in WORTHS or is_worth(name) else []
    low, high = bounds(rules, name)
    return [value + int(move * step) for move in halves + MOVES
            if low <= value + int(move * step) <= high]


def count_moves(rules, card: Card, fields: list[str] | None = None) -> int:
    """How many cards a round of the search from ``card`` tries, at most
    (a move of a row the card does not use costs no evaluation)."""
    return sum(len(candidates(rules, name, get(card, name)))
               for name in fields or fields_to_fit(rules))


@dataclass(frozen=True)
class FitStep:
    """Where a search stands after each card it tries (:func:`fit`'s
    ``progress``)."""
    round: int
    """From 1."""
    tried: int
    """Moves tried this round."""
    moves: int
    """Moves this round tries, as counted at its start (a field's moves
    depend on where the fields before it have moved)."""
    card: Card
    """The best card so far, and its loss and seats."""
    loss: float
    seats: np.ndarray
    evaluations: int


def fit(solution, rounds: int, log, tol: float = 1e-12, fields: list[str] | None = None,
        start: Card | None = None, seat_values=None,
        progress=None, measured: dict | None = None) -> tuple[Card, float, int, np.ndarray]:
    """The coordinate search of the module docstring, over ``fields`` (all
    by default), from ``start`` (the first guess by default): ``(card,
    loss, evaluations, the card's seats)``. ``seat_values(solution, card,
    tol)`` gives the card's chance in each seat
    (:func:`solver.cards.seat_value.card_seat_values` by default;
    ``card_seat_values_n`` at a table of more than two); the loss is the
    table's mean chance, one over the number of seats, less the card's.
    ``progress(FitStep)``, if given, is called after each move tried;
    ``measured`` (a card: its seats, evaluated as ``seat_values`` would
    with ``tol``) are not evaluated again, and count among the
    evaluations."""
    from solver.cards.seat_value import card_seat_values
    seat_values = seat_values or card_seat_values
    rules = solution.rules
    fields = fields or fields_to_fit(rules)

    def plays(card):
        # A move of a row the card does not use (home3 while home_within is
        # 0, chase_behind past the target) plays as the card before it:
        # measured once.
        return card.at_target(rules).in_play()
    seats: dict[Card, np.ndarray] = {plays(card): values
                                     for card, values in (measured or {}).items()}
    evaluations = len(seats)

    def loss(card):
        nonlocal evaluations
        card = plays(card)
        if card not in seats:
            evaluations += 1
            seats[card] = seat_values(solution, card, tol=tol)
        return 1 / len(seats[card]) - float(np.mean(seats[card]))
    card = start or first_guess(solution)
    best = loss(card)
    log(f"{'start' if start else 'first guess'} {card}: loss {best:.5f}")
    for round_ in range(1, rounds + 1):
        before = best
        moves = count_moves(rules, card, fields)
        tried = 0
        for name in fields:
            for value in candidates(rules, name, get(card, name)):
                trial = put(card, name, value)
                if loss(trial) < best - 1e-9:
                    card, best = trial, loss(trial)
                tried += 1
                if progress is not None:
                    progress(FitStep(round_, tried, moves, card, best,
                                     seats[plays(card)], evaluations))
        log(f"round {round_}: loss {best:.5f} after {evaluations} evaluations")
        if best > before - 1e-7:
            break
    return card, best, evaluations, seats[plays(card)]


def simple_rules(rules, card: Card) -> dict[str, Card]:
    """The rules people use, as cards (module docstring)."""
    D = rules.dice
    hold = min(300, rules.target // 5)      # Pig: hold at 20 (Neller and Presser)
    out = {f"threshold:{hold}": Card(rules.name, (hold,) * D, open_at=max(rules.entry, hold))}
    if rules.entry:
        out["bank once entered"] = Card(rules.name, (rules.entry,) * D, open_at=rules.entry)
    if chooses_keeps(rules):
        # Every scoring die: the fewer dice left the better, save that a
        # keep of them all (hot dice: all D back in hand) is best; no rule
        # of the card's own ranks keeps otherwise.
        worths = {**dict.fromkeys(WORTH_ROWS, ()),
                  "left_worth": tuple(-rules.target * k for k in range(1, D)) + (rules.target,)}
        out["always keep everything"] = dataclasses.replace(
            card, **worths, **dict.fromkeys(KEEP_FIELDS, 0))
    return out


def measure_simple(solution, card: Card, tol: float, into: dict | None = None,
                   saved=lambda: None, sampled: int = 0) -> dict:
    """The simple rules' losses and seats, ``saved()`` after each; a rule
    already in ``into`` (an interrupted run's, ``--resume``) is kept. With
    ``sampled`` games, each loss is their sampled regret (seed 1) with its
    standard error, and no seats."""
    from solver.cards.regret import card_regret
    from solver.cards.seat_value import card_seat_values
    into = {} if into is None else into
    for label, other in simple_rules(solution.rules, card).items():
        if label in into:
            continue
        if sampled:
            loss, stderr = card_regret(solution, other, sampled, seed=1).loss()
            into[label] = {"loss": loss, "stderr": stderr, "sampled_games": sampled}
        else:
            values = card_seat_values(solution, other, tol=tol)
            into[label] = {"loss": 0.5 - float(np.mean(values)),
                           "seats": [float(v) for v in values]}
        saved()
    return into
