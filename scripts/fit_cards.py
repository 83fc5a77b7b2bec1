"""Fit the strategy cards to the tables and measure what they give up.

    python scripts/fit_cards.py GAME [GAME ...] [--rounds R]

For each game: the card's first guess is read off the table (per dice in
hand, the median smallest total at which optimal play banks with both
players level, over a grid of scores), then a coordinate search over whole
multiples of the unit lowers the card's loss: 1/2 minus the mean of its
chances as the first and as the second player against optimal play, an
exact evaluation (:func:`solver.seat_value.card_seat_values`: the card is a
fixed policy, the table's player plays the table; no sampling, so every
comparison is free of noise). Each parameter in turn is moved either way
by 1, 2, 4, 8, 16 and 32 units (a worth that ranks keeps also by half a
unit; a count of dice by as many dice, from none to all), keeping the
best, round after round until a round gains less than 1e-7. A row of
thresholds near an end (``chase1``.., ``home1``..) changes nothing until
its condition is set (``--set home_within=1000``): until then its moves
cost no evaluation (:meth:`solver.card_record.Card.in_play`). The simple
rules people use are evaluated the same way, as cards:
``threshold:300`` (bank at 300 with any dice, keep the most points; Pig:
hold at 20), "bank once entered" (bank as soon as the turn total meets the
entry, in every turn) and "always keep everything" (the fitted card, but
keeping every scoring die).

Where one evaluation at the game's own target takes minutes (quinze-mille,
dix-mille), ``--fit-target T`` fits the card at a smaller target T (its
table solved first if missing) and measures it, and the simple rules, at
the game's own target: the loss reported is always the game's own;
``--fields NAMES`` searches the named fields alone, and ``--from-stored``
starts from the stored card instead of the first guess, ``--set
NAME=VALUE,...`` from a card with those fields changed; a card fitted at a
smaller target or changed by ``--set`` replaces the stored one only where
it gives up less at the game's own target. ``--tol`` loosens
the evaluations' tolerance (sweeps, where a game has falls);
``--card-only`` and ``--simple-only`` split one game's measurements into
two runs (dix-mille: about half an hour per evaluation). Where a simple
rule's exact evaluation takes hours (dix-mille-free-keep), ``--simple-only
--sampled GAMES`` measures it instead over that many games played by the
rule against the table (:func:`solver.card_regret.card_regret`: the sum of
its regrets, an unbiased estimate of the exact loss, stored with its
standard error).

Writes ``solver/cards.json`` (game -> card, loss, seats, the fields any
search has moved since the first guess, the simple rules' losses) and
prints a markdown table with the machine and the command.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from machine import machine  # noqa: E402

from solver.card_record import SIDE_ROWS, WORTH_ROWS, Card, chooses_keeps  # noqa: E402
from solver.card_sheet import CARDS_FILE, stored_cards  # noqa: E402
from solver.rules import get_rules  # noqa: E402


def load_table(rules):
    """The table of ``rules``, solved first (into the user's tables) when
    missing: a reduced target's table is a few seconds' solve."""
    from solver.solve import solve_and_write
    from solver.tables import default_path, read_table
    if not default_path(rules).exists():
        solve_and_write(rules)
    return read_table(default_path(rules), rules, lazy_take=False)


def first_guess(solution) -> Card:
    """Bank thresholds from the table: per dice in hand, the median of the
    smallest total optimal play banks with both players level."""
    from solver.analysis import bank_rules, state_at
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
    return Card(rules.name, bank, gap_step=max(unit, rules.target // 10 // unit * unit),
                open_at=rules.entry,
                # One unit a die: where every searched card ended when a
                # die had one worth (the four cinq-mille games), and best
                # of 0, 1, 2 and 4 units for quinze-mille-free-keep's first
                # guess (BENCHMARKS.md).
                left_worth=tuple(unit * k for k in range(1, rules.dice + 1))
                if chooses_keeps(rules) else (),
                take_at=20 * unit if rules.has_takeover else 0,
                take_die=2 * unit if rules.has_takeover else 0)


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
    # A search starts a missing row from the one it stands for.
    return getattr(card, tuple_name) or getattr(card, STANDS_FOR.get(tuple_name, tuple_name))


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


def fit(solution, rounds: int, log, tol: float = 1e-12, fields: list[str] | None = None,
        start: Card | None = None, seat_values=None) -> tuple[Card, float, int, np.ndarray]:
    """The coordinate search of the module docstring, over ``fields`` (all
    by default), from ``start`` (the first guess by default): ``(card,
    loss, evaluations, the card's seats)``. ``seat_values(solution, card,
    tol)`` gives the card's chance in each seat
    (:func:`solver.seat_value.card_seat_values` by default;
    ``card_seat_values_n`` at a table of more than two); the loss is the
    table's mean chance, one over the number of seats, less the card's."""
    from solver.seat_value import card_seat_values
    seat_values = seat_values or card_seat_values
    rules = solution.rules
    evaluations = 0
    seats: dict[Card, np.ndarray] = {}

    def loss(card):
        nonlocal evaluations
        # A move of a row the card does not use (home3 while home_within is
        # 0) plays as the card before it: measured once.
        card = card.in_play()
        if card not in seats:
            evaluations += 1
            seats[card] = seat_values(solution, card, tol=tol)
        return 1 / len(seats[card]) - float(np.mean(seats[card]))
    card = start or first_guess(solution)
    best = loss(card)
    log(f"{'start' if start else 'first guess'} {card}: loss {best:.5f}")
    for round_ in range(rounds):
        before = best
        for name in fields or fields_to_fit(rules):
            for value in candidates(rules, name, get(card, name)):
                trial = put(card, name, value)
                if loss(trial) < best - 1e-9:
                    card, best = trial, loss(trial)
        log(f"round {round_ + 1}: loss {best:.5f} after {evaluations} evaluations")
        if best > before - 1e-7:
            break
    return card, best, evaluations, seats[card.in_play()]


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
    from solver.card_regret import card_regret
    from solver.seat_value import card_seat_values
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


def save(name: str, entry: dict) -> None:
    """Write one game's entry into ``solver/cards.json``, read again first:
    two runs for two games may write in turn."""
    cards = stored_cards()
    cards[name] = entry
    tmp = CARDS_FILE.with_suffix(f".{name}.tmp")
    tmp.write_text(json.dumps(cards, indent=1) + "\n")
    tmp.replace(CARDS_FILE)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--tol", type=float, default=1e-12,
                        help="the evaluations' tolerance (default 1e-12); 1e-8 is plenty for "
                        "a loss given to 0.01 point and saves sweeps where a game has falls")
    parser.add_argument("--fields", metavar="NAMES",
                        help="search these fields alone (comma-separated, as in the card: "
                        "bank1.., left1.., take_at, ...), where one evaluation takes minutes")
    parser.add_argument("--from-stored", action="store_true",
                        help="start from the game's card in solver/cards.json, not the first "
                        "guess")
    parser.add_argument("--set", metavar="NAME=VALUE", default="",
                        help="start from a card with these fields changed (comma-separated, "
                        "named as in --fields: finish_within=300,bank3=400)")
    parser.add_argument("--simple-only", action="store_true",
                        help="measure the simple rules alone and store them beside the game's "
                        "card (a second process, where one evaluation takes half an hour)")
    parser.add_argument("--resume", action="store_true",
                        help="with --simple-only: keep the simple rules already stored and "
                        "measure the rest (after an interrupted run)")
    parser.add_argument("--sampled", type=int, default=0, metavar="GAMES",
                        help="with --simple-only: measure each rule over this many sampled "
                        "games (the sum of its regrets, with a standard error) instead of "
                        "exactly, where an exact evaluation takes hours")
    parser.add_argument("--card-only", action="store_true",
                        help="measure the card alone and keep the simple rules as stored, to "
                        "measure later with --simple-only (where each evaluation takes half an "
                        "hour)")
    parser.add_argument("--fit-target", type=int, metavar="POINTS",
                        help="fit at this smaller target (where one evaluation at the game's "
                        "own target takes minutes), then measure at the game's own")
    args = parser.parse_args(argv)
    if args.sampled and not args.simple_only:
        parser.error("--sampled measures the simple rules: use it with --simple-only")
    if args.sampled < 0:
        parser.error(f"--sampled takes a number of games, not {args.sampled}")
    from solver.seat_value import card_seat_values
    cards = stored_cards()
    for name in args.games:
        rules = get_rules(name)
        started = time.perf_counter()
        fit_rules = rules.with_target(args.fit_target) if args.fit_target else rules
        fields = args.fields.split(",") if args.fields else None
        changes = {}
        for pair in filter(None, args.set.split(",")):
            field, _, value = pair.partition("=")
            if not value.lstrip("-").isdigit():
                parser.error(f"--set takes NAME=VALUE with a whole number, not {pair!r}")
            changes[field] = int(value)
        unknown = (set(fields or []) | set(changes)) - set(fields_to_fit(rules))
        if unknown:
            parser.error(f"{name} has no card field {', '.join(sorted(unknown))} to search "
                         f"(it has: {', '.join(fields_to_fit(rules))})")
        if args.from_stored and name not in cards:
            parser.error(f"{name} has no stored card to start from")
        start = Card.from_dict(cards[name]["card"]) if args.from_stored else None
        if changes:
            start = start or first_guess(load_table(fit_rules))
            for field, value in changes.items():
                start = put(start, field, value)
        if args.simple_only:
            solution = load_table(rules)
            stored = Card.from_dict(cards[name]["card"]) if name in cards else None
            entry = cards.setdefault(name, {})
            entry["simple"] = entry.get("simple", {}) if args.resume else {}
            entry["simple_command"] = (f"python scripts/fit_cards.py {name} --simple-only"
                                       + (" --resume" if args.resume else "")
                                       + (f" --sampled {args.sampled}" if args.sampled else "")
                                       + (f" --tol {args.tol:g}" if args.tol != 1e-12 else ""))
            # Saved after each rule, as below: an interrupted run keeps
            # what it measured.
            measure_simple(solution, stored or first_guess(solution), args.tol,
                           entry["simple"], lambda: save(name, entry), args.sampled)
            continue
        solution = load_table(fit_rules)
        card, loss, evaluations, seats = fit(
            solution, args.rounds,
            lambda text: print(f"{name}: {text}", file=sys.stderr, flush=True), args.tol,
            fields, start)
        # Read again: another run may have stored a better card meanwhile.
        stored = stored_cards().get(name, {})
        # Every field a search has moved since the first guess: this run's
        # and, from the stored card, those before it.
        searched = sorted(set(stored.get("loss", {}).get("searched", []) if args.from_stored
                              else []) | set(changes)
                          | set(fields or fields_to_fit(rules) if args.rounds else []))
        if args.rounds and card == start and not changes:
            print(f"{name}: no better card found; solver/cards.json keeps the stored one",
                  file=sys.stderr)
            stored["loss"]["searched"] = searched
            save(name, stored)
            continue
        if fit_rules != rules:
            solution = load_table(rules)
            seats = card_seat_values(solution, card, tol=args.tol)
            loss = 0.5 - float(np.mean(seats))
        was = stored.get("loss", {})
        if start and was.get("target") == rules.target and loss >= was.get("loss", np.inf):
            # Fitted at a smaller target, or changed by --set: a card
            # replaces the stored one only where it gives up less.
            print(f"{name}: this card gives up {100 * loss:.3f} points, the stored one "
                  f"{100 * was['loss']:.3f}; solver/cards.json keeps the stored one",
                  file=sys.stderr)
            continue
        # --card-only keeps the simple rules as stored, measured beside the
        # previous card ("always keep everything" takes its banks) until
        # --simple-only measures them again.
        simple = stored.get("simple", {}) if args.card_only else {}
        # The cards fitted for more players stay; what this card gives up
        # with them is to be measured again.
        kept = {players: {"fitted": measured["fitted"]}
                for players, measured in stored.get("players", {}).items()
                if "fitted" in measured}
        cards[name] = {"card": card.to_dict(),
                       "loss": {"loss": loss, "target": rules.target,
                                "seats": [float(v) for v in seats],
                                "evaluations": evaluations,
                                "searched": searched,
                                "fitted_at": fit_rules.target,
                                "seconds": time.perf_counter() - started,
                                "machine": machine(),
                                "command": f"python scripts/fit_cards.py {name}"
                                           + (f" --fit-target {args.fit_target}"
                                              if args.fit_target else "")
                                           + (f" --rounds {args.rounds}"
                                              if args.rounds != 6 else "")
                                           + (f" --tol {args.tol:g}" if args.tol != 1e-12
                                              else "")
                                           + (f" --fields {args.fields}" if fields else "")
                                           + (" --from-stored" if args.from_stored else "")
                                           + (f" --set {args.set}" if changes else "")
                                           + (" --card-only" if args.card_only else "")},
                       "simple": simple,
                       **({"simple_command": stored["simple_command"]}
                          if args.card_only and "simple_command" in stored else {}),
                       **({"players": kept} if kept else {})}
        # Saved now and after each simple rule: where one evaluation takes
        # half an hour, an interrupted run keeps what it measured.
        save(name, cards[name])
        if args.card_only:
            continue
        measure_simple(solution, card, args.tol, simple, lambda: save(name, cards[name]))
    print(f"Machine: {machine()}. Command: `python scripts/fit_cards.py "
          f"{' '.join(sys.argv[1:] if argv is None else argv)}`.\n")
    print("| game | card loses (pp) | first / second | " + "simple rules (pp) |")
    print("|---|---:|---|---|")
    for name in args.games:
        entry = stored_cards()[name]
        loss = entry.get("loss")
        seats = " / ".join(f"{100 * v:.2f}%" for v in loss["seats"]) if loss else "-"
        simple = "; ".join(f"{k} {100 * v['loss']:.2f}"
                           + (f" +- {100 * v['stderr']:.2f} (sampled)" if "stderr" in v else "")
                           for k, v in entry["simple"].items())
        given_up = f"{100 * loss['loss']:.2f}" if loss else "-"
        print(f"| {name} | {given_up} | {seats} | {simple} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
