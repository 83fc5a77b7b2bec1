"""Where a strategy card comes from: the cards the program ships
(``solver/cards/cards.json``, fitted to its own games) and the cards fitted
on this machine (``farkle card ... --fit``), kept beside the user's table
as ``NAME[-TARGET][-Nplayers].card.json`` with the rules they were fitted
for. :func:`find_card` says which card a table plays.

Reading and keeping cards only: the search that fits one is
:mod:`solver.cards.fit`, which the simulator and the bots never import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from solver.cards.record import Card
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.tables.paths import card_beside, user_table_path
from solver.text import _, number

CARDS_FILE = Path(__file__).with_name("cards.json")


def stored_cards() -> dict:
    """The fitted cards (``solver/cards/cards.json``): game -> {"card", "loss"}."""
    if not CARDS_FILE.exists():
        return {}
    return json.loads(CARDS_FILE.read_text())


@dataclass(frozen=True)
class FoundCard:
    """The card a table of a game plays, and what is known of it."""
    card: Card
    loss: dict | None
    """What it gives up, measured: ``{"loss", "target", "seats", ...}``."""
    simple: dict
    """What the simple rules give up beside it (two players only)."""
    players: int
    """The table it was fitted for: 2, or the table's own number."""
    fitted_here: Path | None = None
    """Where a card fitted on this machine is kept
    (:func:`card_path`); None for a stored card."""
    then_table: dict | None = None
    """What the card gives up when its player asks the table near the end
    (``{"within", "loss", "seats", ...}``:
    ``scripts/measure_card_then_table.py``), where measured."""


def find_card(rules: Rules, players: int = 2) -> FoundCard:
    """The card of ``rules`` at a table of ``players``, the first of: the
    stored card fitted for exactly these rules and players, the card fitted
    here for them (``farkle card ... --fit``), with more than two players
    the same two for two players, and the stored card of the same game at
    another target; else a UsageError."""
    for table in dict.fromkeys((players, 2)):
        stored = stored_card(rules, table)
        if stored is not None:
            return stored
        mine = user_card(rules, table)
        if mine is not None:
            return FoundCard(Card.from_dict(mine["card"]), _measured(mine),
                             mine.get("simple", {}), table, card_path(rules, table))
    entry, game = stored_cards().get(rules.name), _game(rules.name)
    if entry is not None and game is not None and rules.with_target(game.target) == game:
        return FoundCard(Card.from_dict(entry["card"]), entry.get("loss"),
                         entry.get("simple", {}), 2)
    raise UsageError(_("no strategy card for {game} to {target} yet; farkle card with --fit "
                       "fits one to its table (cards are stored for: {games})").format(
        game=rules.name, target=number(rules.target),
        games=", ".join(stored_cards()) or _("none")))


def card_for(rules: Rules, players: int = 2) -> tuple[Card, dict | None, dict]:
    """:func:`find_card`'s card, its measured loss and the simple rules'
    losses."""
    found = find_card(rules, players)
    return found.card, found.loss, found.simple


def _game(name: str) -> Rules | None:
    from solver.model.rules import GAMES
    return GAMES.get(name)


def stored_card(rules: Rules, players: int) -> FoundCard | None:
    """The card ``solver/cards/cards.json`` keeps for exactly ``rules`` (a game of
    the program at its own target) at a table of ``players``."""
    entry = stored_cards().get(rules.name)
    if entry is None or _game(rules.name) != rules:
        return None
    if players == 2:
        return FoundCard(Card.from_dict(entry["card"]), entry.get("loss"),
                         entry.get("simple", {}), 2, then_table=entry.get("card_then_table"))
    fitted = _with_players(rules, players).get("fitted", {})
    if fitted.get("target") != rules.target:
        return None
    return FoundCard(Card.from_dict(fitted["card"]), _measured(fitted), {}, players)


def _measured(entry: dict) -> dict:
    """A fitted card's entry without the card itself: what it gives up."""
    return {k: v for k, v in entry.items() if k not in ("card", "rules", "simple")}


def _with_players(rules: Rules, players: int) -> dict:
    """What ``solver/cards/cards.json`` keeps of a game at a table of ``players``:
    the two-player card's loss there, and ``fitted``, a card of its own."""
    return stored_cards().get(rules.name, {}).get("players", {}).get(str(players), {})


def loss_with_players(rules: Rules, players: int) -> dict | None:
    """The two-player card's loss measured at a table of ``players``
    (playing against the leader; ``scripts/measure_card_players.py``) at
    the game's own target, or None."""
    measured = {k: v for k, v in _with_players(rules, players).items() if k != "fitted"}
    return measured if measured.get("target") == rules.target else None


def card_path(rules: Rules, players: int = 2) -> Path:
    """Where the card fitted here for ``rules`` and ``players`` is kept:
    beside the table the user makes for them."""
    return card_beside(user_table_path(rules, players=players))


def user_card(rules: Rules, players: int = 2, refuse_other_rules: bool = True) -> dict | None:
    """The card fitted here for ``rules`` and ``players`` (``{"card",
    "loss", "target", "seats", "simple", ...}``), or None; where it was
    fitted for other rules (a house file edited since), a UsageError, or
    None without ``refuse_other_rules`` (a search replaces it)."""
    path = card_path(rules, players)
    if not path.exists():
        return None
    try:
        entry = json.loads(path.read_text())
        fitted_for = Rules.from_json(entry["rules"])
        Card.from_dict(entry["card"])
    except (ValueError, KeyError, TypeError) as error:
        if not refuse_other_rules:
            return None
        raise UsageError(_("card {path} is damaged ({error}); fit it again with --fit").format(
            path=path, error=error)) from None
    if fitted_for != rules:
        if not refuse_other_rules:
            return None
        raise UsageError(_("card {path} was fitted for other rules (its {difference}); fit it "
                           "again with --fit").format(
            path=path, difference=fitted_for.first_difference(rules)))
    return entry


def write_user_card(rules: Rules, players: int, entry: dict) -> None:
    """Keep ``entry`` as the card fitted here for ``rules`` and ``players``:
    written to a temporary file and renamed, so a reader never sees half."""
    path = card_path(rules, players)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(entry, indent=1) + "\n")
    tmp.replace(path)
