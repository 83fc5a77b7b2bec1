"""Cards fitted on the user's machine: for a house game (``--rules FILE``),
another ``--target``, or a table of more players (``farkle card ...
--fit``).

The cards of ``solver/cards/cards.json`` are fitted to the program's own games.
Any other game gets its card here, by the search of
:mod:`solver.cards.fit.search` scored against the user's own table of the game:

    loss(card) = 1/N - (1/N) * sum_s  V_s(card)

over the N seats, each ``V_s`` an exact evaluation. The search starts from
the best, by that loss, of the table's first guess and every stored card
of a game with as many dice and the same unit (its entry moved with the
game's, its fields the game has no use for set back to their defaults:
:func:`adopted`); a card fitted here before for the same rules starts it
too, so fitting again only improves it.

Where an exact evaluation takes minutes (the falls of dix-mille), a
round of that search takes days; with ``sampled`` games the starts are
ranked and the moves scored over sampled decisions instead
(:mod:`solver.cards.fit.screen`), and only the card it ends with and its start
are evaluated exactly: the better of them is kept, unless the card
fitted here before gives up less.

The card is written beside the table, as
``NAME[-TARGET][-Nplayers].card.json`` in the user's table directory,
with the rules it was fitted for (a house file edited since is refused, as
its table would be); written to a temporary file and renamed, after every
improvement, so that an interrupted search keeps its best card.
"""

from __future__ import annotations

import dataclasses
import re
import time

import numpy as np

from solver.cards.fit.search import (
    count_moves,
    fields_to_fit,
    first_guess,
    fit,
    measure_simple,
    searched_rows,
)
from solver.cards.record import Card
from solver.cards.store import stored_cards, user_card, write_user_card
from solver.model.errors import UsageError
from solver.model.messages import Message
from solver.model.rules import Rules
from solver.text import N_, _, language, number


def adopted(card: Card, rules: Rules, fitted_for: Rules) -> Card:
    """A card fitted for ``fitted_for`` as a start for ``rules``: named for
    them, its entry moved with theirs (an opening of 500, not 750, says no
    bank below 500 where the card said 750), and every field their search
    does not move set back to its default (a take-over rule in a game
    without take-over)."""
    kept = searched_rows(rules)
    defaults = {field.name: field.default for field in dataclasses.fields(Card)
                if field.name != "game" and field.name not in kept}
    open_at = max(rules.entry, card.open_at - fitted_for.entry + rules.entry)
    return dataclasses.replace(card, game=rules.name, **defaults,
                               **({"open_at": open_at} if "open_at" in kept else {}))


def starts(solution) -> dict[str, Card]:
    """The cards a search for ``solution``'s game may start from: the
    table's first guess (two players), every stored card of a game with as
    many dice and the same unit (for two players, and for the table's
    number where one is stored), and the cards fitted here before for these
    rules (for the table's number of players, and for two)."""
    from solver.model.rules import get_rules
    rules, players = solution.rules, solution_players(solution)
    out = {Message(N_("the first guess")): first_guess(solution)} if players == 2 else {}
    for name, entry in stored_cards().items():
        other = get_rules(name)
        if (other.dice, other.unit) != (rules.dice, rules.unit):
            continue
        out[Message(N_("{game}'s card"), game=name)] = adopted(Card.from_dict(entry["card"]),
                                                              rules, other)
        fitted = entry.get("players", {}).get(str(players), {}).get("fitted")
        if fitted:
            out[Message(N_("{game}'s card for {players}"), game=name, players=players)] = \
                adopted(Card.from_dict(fitted["card"]), rules, other)
    for table in dict.fromkeys((players, 2)):
        before = user_card(rules, table, refuse_other_rules=False)
        if before is not None:
            out[Message(N_("the card fitted here for {players} players"), players=table)] = \
                Card.from_dict(before["card"])
    if not out:
        raise UsageError(_("no card to start from for {game} with {players} players: fit its "
                           "two-player card first (farkle card ... --fit)").format(
            game=rules.name, players=players))
    return out


_STARTS = [(re.compile(r"(?P<game>\S+)'s card for (?P<players>\d+)"),
            N_("{game}'s card for {players}")),
           (re.compile(r"the card fitted here for (?P<players>\d+) players"),
            N_("the card fitted here for {players} players")),
           (re.compile(r"(?P<game>\S+)'s card"), N_("{game}'s card")),
           (re.compile(r"the first guess"), N_("the first guess"))]


def shown_start(label: str) -> str:
    """A start's label as stored with a card fitted here (English: ``"start"``
    of its file), in the reader's language."""
    for pattern, message in _STARTS:
        found = pattern.fullmatch(label)
        if found:
            return _(message).format(**found.groupdict())
    return label


def solution_players(solution) -> int:
    return solution.players


def seat_values_for(solution):
    """The exact evaluation of a card in every seat of ``solution``'s table."""
    from solver.cards.seat_value import card_seat_values, card_seat_values_n
    return card_seat_values if solution_players(solution) == 2 else card_seat_values_n


def fit_card(solution, rounds: int, command: str, log=lambda text: None,
             progress=None, sampled: int | None = None) -> dict:
    """Fit a card to ``solution``'s table and keep it (module docstring):
    its entry, as :func:`user_card` reads it. ``log(text)`` hears each
    start's loss and the end's; ``progress(FitStep)`` each move tried
    (after each improvement the card is written). With ``sampled`` games
    (two players), the starts are ranked and the moves scored over sampled
    decisions (:mod:`solver.cards.fit.screen`, ``rounds`` plays), and the card
    it ends with and its start are then evaluated exactly: the better is
    kept."""
    rules, players = solution.rules, solution_players(solution)
    if sampled is not None and players != 2:
        raise ValueError("a sampled search fits a two-player card")
    started = time.perf_counter()
    cards = starts(solution)
    entry = {"rules": rules.to_json(), "players": players, "target": rules.target,
             "command": command, "searched": fields_to_fit(rules)}
    if sampled:
        entry["start"], start = _best_sampled_start(solution, cards, log, sampled)
        return _fit_sampled(solution, start, rounds, sampled, entry, started, log)
    entry["start"], start, start_seats = _best_exact_start(solution, cards, log)
    seat_values = seat_values_for(solution)

    def keep(card, loss, seats, evaluations):
        entry.update({"card": card.to_dict(), "loss": loss,
                      "seats": [float(v) for v in seats], "evaluations": evaluations,
                      "seconds": time.perf_counter() - started})
        write_user_card(rules, players, entry)

    def step(at):
        if at.loss < entry.get("loss", np.inf) - 1e-12:
            keep(at.card, at.loss, at.seats, at.evaluations)
        if progress is not None:
            progress(at)
    card, loss, evaluations, seats = fit(solution, rounds, lambda text: None, start=start,
                                         seat_values=seat_values, progress=step,
                                         measured={start: start_seats})
    keep(card, loss, seats, evaluations)
    log(_("{count} cards measured; the best gives up {loss} points").format(
        count=evaluations, loss=number(100 * loss, 3)))
    if players == 2:
        # What the rules people use give up beside it, as for the stored cards.
        entry["simple"] = measure_simple(solution, card, 1e-12)
        write_user_card(rules, players, entry)
    return entry


def _best_exact_start(solution, cards: dict, log) -> tuple[str, Card, np.ndarray]:
    """The start that gives up least, by exact evaluations, with its
    seats; the log first says what a round of the search will take."""
    rules, players = solution.rules, solution_players(solution)
    seat_values = seat_values_for(solution)
    best = None
    for index, (label, card) in enumerate(cards.items()):
        before = time.perf_counter()
        seats = seat_values(solution, card)
        loss = 1 / players - float(np.mean(seats))
        if index == min(1, len(cards) - 1):
            # What the search will take, from an evaluation after the first
            # (which loads the compiled kernels).
            each, moves = time.perf_counter() - before, count_moves(rules, card)
            log(_("each card takes about {each} to measure; a round of the search measures "
                  "up to {moves} cards (at most {most})").format(
                each=_duration(each), moves=number(moves), most=_duration(each * moves))
                + (_("; --sampled {games} scores its moves over sampled games, far sooner")
                   .format(games=SAMPLED_GAMES) if players == 2 and each * moves > 3600
                   else ""))
        log(_("start from {start}: gives up {loss} points").format(
            start=label, loss=number(100 * loss, 3)))
        if best is None or loss < best[1] - 1e-9:
            best = (label, loss, card, seats)
    return best[0], best[2], best[3]


SAMPLED_GAMES = 4000
"""The games a sampled search plays, suggested where an exact round takes
over an hour (the stored dix-mille cards' screens played 4,000 to 8,000)."""


def _best_sampled_start(solution, cards: dict, log, sampled: int) -> tuple[str, Card]:
    """The start that gives up least over the same ``sampled`` games (one
    seed: each start meets the same dice)."""
    from solver.cards.regret import card_regret
    best = None
    for label, card in cards.items():
        loss, error = card_regret(solution, card, sampled, 1).loss()
        log(_("start from {start}: gives up {loss} ± {error} points over {games} sampled "
              "games").format(start=label, loss=number(100 * loss, 3),
                              error=number(100 * error, 3), games=number(sampled)))
        if best is None or loss < best[1]:
            best = (label, loss, card)
    return best[0], best[2]


def _fit_sampled(solution, start: Card, plays: int, games: int, entry: dict, started: float,
                 log) -> dict:
    """The sampled search from ``start``, then the exact last word: the
    better of the card it ends with and its start, kept."""
    from solver.cards.fit.screen import screen
    from solver.cards.seat_value import card_seat_values
    rules = solution.rules
    card = screen(solution, start, fields_to_fit(rules), games, plays, say=log)
    log(_("measuring the card exactly and its start") if card != start else
        _("measuring the card exactly"))
    before_exact = time.perf_counter()
    measured = [(card, card_seat_values(solution, card))]
    if card != start:
        measured.append((start, card_seat_values(solution, start)))
    each = (time.perf_counter() - before_exact) / len(measured)
    losses = [0.5 - float(np.mean(values)) for _card, values in measured]
    kept = int(np.argmin(losses))
    (card, seats), loss = measured[kept], losses[kept]
    kept_one = (_("the search"), _("its start"))[kept]
    log((_("the search's card gives up {loss} points, its start {start} (each measured in "
           "{each}); kept: {kept}") if len(losses) > 1 else
         _("the search's card gives up {loss} points (each measured in {each}); kept: {kept}"))
        .format(loss=number(100 * losses[0], 3),
                start=number(100 * losses[1], 3) if len(losses) > 1 else "",
                each=_duration(each), kept=kept_one))
    before = user_card(rules, 2, refuse_other_rules=False)
    if before is not None and before["loss"] <= loss:
        log(_("the card fitted here before gives up less ({loss} points): it is kept").format(
            loss=number(100 * before['loss'], 3)))
        return before
    # The simple rules are not measured here: three more exact evaluations,
    # each as slow as the two above.
    entry.update({"card": card.to_dict(), "loss": loss, "seats": [float(v) for v in seats],
                  "evaluations": len(measured), "sampled": games, "plays": plays,
                  "seconds": time.perf_counter() - started})
    write_user_card(rules, 2, entry)
    return entry


def _duration(seconds: float) -> str:
    if seconds < 90:
        text = f"{seconds:.2g}" if seconds < 10 else f"{seconds:.0f}"
        return _("{seconds} s").format(seconds=_decimal(text))
    if seconds < 90 * 60:
        return _("{minutes} min").format(minutes=f"{seconds / 60:.0f}")
    return _("{hours} hours").format(hours=_decimal(f"{seconds / 3600:.1f}"))


def _decimal(text: str) -> str:
    return text.replace(".", ",") if language() == "fr" else text
