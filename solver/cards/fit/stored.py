"""The cards the program ships: fitted to its own games' tables and
written to ``solver/cards/cards.json`` (``scripts/fit_cards.py`` runs
:func:`fit_stored` for each game it is given).

For a game, the card's first guess is read off the table (per dice in
hand, the median smallest total at which optimal play banks with both
players level, over a grid of scores), then
:func:`solver.cards.fit.search.fit`'s coordinate search lowers the card's
loss, 1/2 minus the mean of its exact chances as the first and as the
second player against optimal play (its docstring has the search). A row
of thresholds near an end changes nothing until its condition is set
(``--set home_within=1000``). The simple rules people use
(:func:`solver.cards.fit.search.simple_rules`) are evaluated the same way,
as cards.

Where one evaluation at the game's own target takes minutes
(quinze-mille, dix-mille), :attr:`FitOptions.fit_target` fits the card at a
smaller target (its table solved first if missing) and measures it, and
the simple rules, at the game's own target: the loss stored is always the
game's own. Where a penalty's floor makes even a small target's
evaluation slow (farkle-facebook, zilch: scores down to -2,500),
:attr:`FitOptions.fit_floor` fits on the same rules with a shallower
floor (its table solved in memory: a file would stand for the game's own
floor) and measures the card on the game's own.
:attr:`FitOptions.fields` searches the named fields alone;
:attr:`FitOptions.from_stored` starts from the stored card instead of the
first guess, :attr:`FitOptions.from_card` from another game's,
:attr:`FitOptions.changes` from a card with those fields
changed; a card fitted at a smaller target or changed so replaces the
stored one only where it gives up less at the game's own target.
:attr:`FitOptions.card_only` and :attr:`FitOptions.simple_only` split one
game's measurements into two runs (dix-mille: about half an hour per
evaluation). Where a simple rule's exact evaluation takes hours
(dix-mille-free-keep), :attr:`FitOptions.sampled` games measure it instead,
played by the rule against the table
(:func:`solver.cards.regret.card_regret`: the sum of its regrets, an
unbiased estimate of the exact loss, stored with its standard error).
Where even the card's one measurement at the game's own rules takes hours
(farkle-facebook and zilch: the floor's 2,500 points below zero and the
penalty's falls), :attr:`FitOptions.sampled` without ``simple_only``
searches by sampled decisions (:func:`solver.cards.fit.screen.screen`,
``rounds`` plays of that many games a set) at the game's own rules, and
measures the card it ends with, and the card that gave up least in the
games it played, over :attr:`FitOptions.measure_games` games of the same
dice: the loss stored is that estimate, with its
standard error and the seats' estimates (the table's chance of each seat
less the card's regret in the games it played from that seat).

Each game's entry (card, loss, seats, the fields any search has moved
since the first guess, the simple rules' losses, the command that made
it) is written into ``solver/cards/cards.json`` read again first, through
a temporary file renamed over it (:func:`save`), after the card and after
each simple rule: an interrupted run keeps what it measured.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field

import numpy as np

from solver.cards.fit.search import (
    fields_to_fit,
    first_guess,
    fit,
    get,
    holds,
    measure_simple,
    put,
)
from solver.cards.record import Card
from solver.cards.store import CARDS_FILE, stored_cards
from solver.model.errors import UsageError
from solver.model.rules import Rules, get_rules
from solver.tables.machine import machine
from solver.text import _

COMMAND = "python scripts/fit_cards.py"
"""The command that fits the stored cards, as recorded with each."""


def load_table(rules: Rules, in_memory: bool = False):
    """The two-player table of ``rules``, solved first (into the user's
    tables) when missing: a reduced target's table is a few seconds'
    solve. ``in_memory``: solved, not read or written (a floor other than
    the game's own: its file would have the name of the game's own)."""
    from solver.tables.load import ALWAYS_SOLVE
    from solver.tables.load import load_table as load
    if in_memory:
        from solver.tables.make import solve_game
        return solve_game(rules)
    return load(rules, lazy_take=False, first_use=ALWAYS_SOLVE)


def save(name: str, entry: dict) -> None:
    """Write one game's entry into ``solver/cards/cards.json``, read again
    first: two runs for two games may write in turn."""
    cards = stored_cards()
    cards[name] = entry
    tmp = CARDS_FILE.with_suffix(f".{name}.tmp")
    tmp.write_text(json.dumps(cards, indent=1) + "\n")
    tmp.replace(CARDS_FILE)


def parse_set(text: str) -> dict[str, int]:
    """``NAME=VALUE,...`` (``--set``) as {field: value}."""
    changes = {}
    for pair in filter(None, text.split(",")):
        name, _equals, value = pair.partition("=")
        if not value.lstrip("-").isdigit():
            raise UsageError(_("--set takes NAME=VALUE with a whole number, not {given}").format(
                given=repr(pair)))
        changes[name] = int(value)
    return changes


def set_string(stored: Card, card: Card, names) -> str:
    """The fields ``card`` moved from ``stored``, as ``--set`` takes them (a
    row the card lacks moves with the row it stands for: not listed)."""
    return ",".join(f"{name}={get(card, name)}" for name in names
                    if get(card, name) != get(stored, name) and holds(card, name))


def unknown_fields(rules: Rules, names) -> None:
    """Refuse names that are not fields of ``rules``' card."""
    unknown = set(names) - set(fields_to_fit(rules))
    if unknown:
        raise UsageError(_("{game} has no card field {fields} to search (it has: {has})").format(
            game=rules.name, fields=", ".join(sorted(unknown)),
            has=", ".join(fields_to_fit(rules))))


@dataclass
class FitOptions:
    """How :func:`fit_stored` fits a game's card (``scripts/fit_cards.py``'s
    options, module docstring)."""
    rounds: int = 6
    tol: float = 1e-12
    """The evaluations' tolerance; 1e-8 is plenty for a loss given to 0.01
    point and saves sweeps where a game has falls."""
    fields: list[str] | None = None
    from_stored: bool = False
    changes: dict[str, int] = field(default_factory=dict)
    simple_only: bool = False
    resume: bool = False
    sampled: int = 0
    card_only: bool = False
    fit_target: int | None = None
    measure_games: int = 100_000
    """With ``sampled`` (the card's search): the games that measure the
    card searched, and the best card played, at the game's own rules."""
    fit_floor: int | None = None
    """Fit on the game's rules with this floor (points, 0 or below; a game
    with a penalty), then measure at the game's own (module docstring)."""
    from_card: str | None = None
    """Start from this other game's stored card (as many dice), not the
    first guess: where an evaluation takes a minute, a search from a
    fitted card of a game alike needs fewer moves."""

    def fit_rules(self, rules: Rules) -> Rules:
        """The rules the card is fitted to: ``rules`` at the fit target and
        floor, where given."""
        fit_rules = rules.with_target(self.fit_target) if self.fit_target else rules
        if self.fit_floor is not None and self.fit_floor != rules.floor:
            if not rules.fall_penalty:
                raise UsageError(_("--fit-floor: {game} has no penalty, so no floor").format(
                    game=rules.name))
            fit_rules = dataclasses.replace(fit_rules, floor=self.fit_floor)
            fit_rules.validate()
        return fit_rules

    def check(self, name: str) -> None:
        """Refuse what cannot be done for game ``name``."""
        if self.sampled < 0 or self.measure_games < 2:
            raise UsageError(_("--sampled and --measure-games take a number of games, not "
                               "{given}").format(given=min(self.sampled, self.measure_games)))
        if self.sampled and not self.simple_only and (self.fit_target or
                                                      self.fit_floor is not None):
            raise UsageError(_("--sampled searches at the game's own rules: not with "
                               "--fit-target or --fit-floor"))
        unknown_fields(get_rules(name), list(self.fields or []) + list(self.changes))
        if self.from_stored and name not in stored_cards():
            raise UsageError(_("{game} has no stored card to start from").format(game=name))
        if self.from_card is not None:
            if self.from_stored:
                raise UsageError(_("--from-card and --from-stored: start from one card"))
            if self.from_card not in stored_cards():
                raise UsageError(_("{game} has no stored card to start from").format(
                    game=self.from_card))
            other = get_rules(self.from_card)
            if other.dice != get_rules(name).dice:
                raise UsageError(_("{game}'s card is for {dice} dice, not {wanted}").format(
                    game=self.from_card, dice=other.dice, wanted=get_rules(name).dice))
        self.fit_rules(get_rules(name))

    def command(self, name: str) -> str:
        """The command that fits ``name``'s card so, as stored with it."""
        return (f"{COMMAND} {name}"
                + (f" --fit-target {self.fit_target}" if self.fit_target else "")
                + (f" --fit-floor {self.fit_floor}" if self.fit_floor is not None else "")
                + (f" --rounds {self.rounds}" if self.rounds != 6 else "")
                + (f" --tol {self.tol:g}" if self.tol != 1e-12 else "")
                + (f" --sampled {self.sampled} --measure-games {self.measure_games}"
                   if self.sampled else "")
                + (f" --fields {','.join(self.fields)}" if self.fields else "")
                + (" --from-stored" if self.from_stored else "")
                + (f" --from-card {self.from_card}" if self.from_card else "")
                + (f" --set {','.join(f'{k}={v}' for k, v in self.changes.items())}"
                   if self.changes else "")
                + (" --card-only" if self.card_only else ""))

    def simple_command(self, name: str) -> str:
        """The command that measures ``name``'s simple rules so."""
        return (f"{COMMAND} {name} --simple-only"
                + (" --resume" if self.resume else "")
                + (f" --sampled {self.sampled}" if self.sampled else "")
                + (f" --tol {self.tol:g}" if self.tol != 1e-12 else ""))


def fit_stored(name: str, options: FitOptions, log=lambda text: None) -> None:
    """Fit game ``name``'s card (or, with ``simple_only``, measure its
    simple rules) as ``options`` say, and store it (module docstring).
    ``log(text)`` hears the search's progress and why a card is not stored."""
    options.check(name)
    cards = stored_cards()
    rules = get_rules(name)
    started = time.perf_counter()
    fit_rules = options.fit_rules(rules)
    other_floor = fit_rules.floor != rules.floor
    fields, changes = options.fields, options.changes
    start = Card.from_dict(cards[name]["card"]) if options.from_stored else \
        dataclasses.replace(Card.from_dict(cards[options.from_card]["card"]), game=name) \
        if options.from_card else None
    if changes:
        start = start or first_guess(load_table(fit_rules, other_floor))
        for field_name, value in changes.items():
            start = put(start, field_name, value)
    if options.simple_only:
        solution = load_table(rules)
        stored = Card.from_dict(cards[name]["card"]) if name in cards else None
        entry = cards.setdefault(name, {})
        entry["simple"] = entry.get("simple", {}) if options.resume else {}
        entry["simple_command"] = options.simple_command(name)
        # Saved after each rule, as below: an interrupted run keeps what it
        # measured.
        measure_simple(solution, stored or first_guess(solution), options.tol,
                       entry["simple"], lambda: save(name, entry), options.sampled)
        return
    card, measured, evaluations = (
        _search_sampled(name, rules, start, options, log) if options.sampled else
        _search_exact(name, rules, fit_rules, start, options, started, log))
    solution, loss, seats = measured.solution, measured.loss, measured.seats
    # Read again: another run may have stored a better card meanwhile.
    stored = stored_cards().get(name, {})
    # Every field a search has moved since the first guess: this run's
    # and, from the stored card, those before it.
    searched = sorted(set(stored.get("loss", {}).get("searched", []) if options.from_stored
                          else []) | set(changes)
                      | set(fields or fields_to_fit(rules) if options.rounds else []))
    if options.rounds and card == start and not changes:
        log(f"{name}: no better card found; solver/cards/cards.json keeps the stored one")
        if stored:
            stored["loss"]["searched"] = searched
            save(name, stored)
        return
    was = stored.get("loss", {})
    if start and was.get("target") == rules.target and loss >= was.get("loss", np.inf):
        # Fitted at a smaller target, or changed by --set: a card replaces
        # the stored one only where it gives up less.
        log(f"{name}: this card gives up {100 * loss:.3f} points, the stored one "
            f"{100 * was['loss']:.3f}; solver/cards/cards.json keeps the stored one")
        return
    # --card-only keeps the simple rules as stored, measured beside the
    # previous card ("always keep everything" takes its banks) until
    # --simple-only measures them again.
    simple = stored.get("simple", {}) if options.card_only else {}
    # The cards fitted for more players stay; what this card gives up with
    # them is to be measured again.
    kept = {players: {"fitted": with_players["fitted"]}
            for players, with_players in stored.get("players", {}).items()
            if "fitted" in with_players}
    cards[name] = {"card": card.to_dict(),
                   "loss": {"loss": loss, "target": rules.target,
                            "seats": [float(v) for v in seats],
                            **measured.sampled,
                            "evaluations": evaluations,
                            "searched": searched,
                            "fitted_at": fit_rules.target,
                            **({"fitted_floor": fit_rules.floor} if other_floor else {}),
                            "seconds": time.perf_counter() - started,
                            "machine": machine(),
                            "command": options.command(name)},
                   "simple": simple,
                   **({"simple_command": stored["simple_command"]}
                      if options.card_only and "simple_command" in stored else {}),
                   **({"players": kept} if kept else {})}
    # Saved now and after each simple rule: where one evaluation takes half
    # an hour, an interrupted run keeps what it measured.
    save(name, cards[name])
    if options.card_only:
        return
    measure_simple(solution, card, options.tol, simple, lambda: save(name, cards[name]),
                   options.measure_games if options.sampled else 0)


@dataclass
class Measured:
    """A card's loss at the game's own rules, and its seats, against
    ``solution`` (the game's table); ``sampled``: how it was sampled
    (stored beside the loss), empty where exact."""
    solution: object
    loss: float
    seats: np.ndarray
    sampled: dict = field(default_factory=dict)


def _search_exact(name, rules, fit_rules, start, options, started, log):
    """The exact search at the fit rules, then the card measured exactly at
    the game's own: (card, :class:`Measured`, evaluations)."""
    from solver.cards.seat_value import card_seat_values
    other_floor = fit_rules.floor != rules.floor
    solution = load_table(fit_rules, other_floor)

    def progress(step):
        # Each move tried, with the best loss so far: a fit of an hour is
        # watched (its log says how far it is).
        log(f"{name}: round {step.round}, move {step.tried} of {step.moves}: loss "
            f"{step.loss:.5f} after {step.evaluations} evaluations, "
            f"{time.perf_counter() - started:.0f} s")
    card, loss, evaluations, seats = fit(solution, options.rounds,
                                         lambda text: log(f"{name}: {text}"), options.tol,
                                         options.fields, start, progress=progress)
    if fit_rules != rules:
        # The card fitted, said before the measurement at the game's own
        # rules (the long part, where a penalty's floor is deep).
        log(f"{name}: fitted to {fit_rules.target:,} (floor {fit_rules.floor:,}): loss "
            f"{100 * loss:.3f} points there, seats {seats[0]:.5f} / {seats[1]:.5f}; measuring it "
            f"at {rules.target:,} (floor {rules.floor:,}): {card.to_dict()}")
        solution = load_table(rules)
        seats = card_seat_values(solution, card, tol=options.tol)
        loss = 0.5 - float(np.mean(seats))
    return card, Measured(solution, loss, seats), evaluations


MEASURE_SEED = 7
"""The dice of a sampled measurement: not the search's (seeds 1 and 2), so
that the card is not measured on the games it was fitted to."""


def _search_sampled(name, rules, start, options, log):
    """The search by sampled decisions at the game's own rules, then the
    card it ends with and the card that gave up least in the games it
    played (its start, where no move paid) measured over the same
    ``measure_games`` games: the better of the two, (card,
    :class:`Measured`, 0 evaluations)."""
    from solver.cards.fit.screen import screen
    from solver.cards.regret import card_regret
    solution = load_table(rules)
    start = start or first_guess(solution)
    played = []
    card = screen(solution, start, options.fields or fields_to_fit(rules), options.sampled,
                  options.rounds, say=lambda text: log(f"{name}: {text}"), played=played)
    # The card the search ends with and the one that gave up least in its
    # own games (the start if no move paid), measured on other dice.
    best_played = min(played, key=lambda entry: entry[0])[1]
    first = solution.first_player_win
    measured = []
    for label, candidate in (("the search's card", card), ("the best card played", best_played)):
        if measured and candidate == card:
            break
        regret = card_regret(solution, candidate, options.measure_games, MEASURE_SEED)
        loss, stderr = regret.loss()
        first_seat, second_seat = regret.seat_losses()
        measured.append(Measured(solution, loss, np.array([first - first_seat,
                                                           1 - first - second_seat]),
                                 {"stderr": stderr, "sampled_games": options.measure_games,
                                  "seed": MEASURE_SEED}))
        log(f"{name}: {label} gives up {100 * loss:.3f} ± {100 * stderr:.3f} points over "
            f"{options.measure_games:,} games")
    kept = min(range(len(measured)), key=lambda i: measured[i].loss)
    return (card, best_played)[kept], measured[kept], 0
