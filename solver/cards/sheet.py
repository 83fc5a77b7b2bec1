"""The card at the score sheet: which card a table plays (a stored card
of ``solver/cards/cards.json``, or one fitted on this machine:
:func:`find_card`) and the card's decisions for score-sheet lines in
points, as the simulator, the bots and ``farkle advise --card`` ask them.

The rule itself is :mod:`solver.cards.card`'s, in units; these wrappers only
convert: a score ``s`` points is ``s // unit``, the opponent is the leader
among ``opponents``, a line's crosses count as
:func:`solver.model.states.cross_state` reads them, and the shift is
the card's for all that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from solver.cards.card import CardRules, card_banks, card_situation, card_takes, keep_rank
from solver.cards.record import Card
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.model.states import cross_state
from solver.model.turn_rules import TurnRules, dice_left

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
    (:mod:`solver.cards.fit.store`); None for a stored card."""
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
    from solver.cards.fit.store import card_path, user_card
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
    raise UsageError(f"no strategy card for {rules.name} to {rules.target:,} yet; "
                     f"farkle card with --fit fits one to its table (cards are stored for: "
                     f"{', '.join(stored_cards()) or 'none'})")


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


def crossed(rules: Rules, line) -> int:
    """A score-sheet line's crosses as the card reads them (points, or a
    :class:`solver.model.states.Line`): :func:`solver.model.states.cross_state`."""
    score = getattr(line, "score", line)
    return cross_state(rules, score, getattr(line, "crosses", 0), getattr(line, "previous", None))


def _situation(card: CardRules, rules: Rules, me, opponents):
    """:func:`solver.cards.card.card_situation` (units) for score-sheet lines
    (points, or as :func:`crossed` takes them; the leader is the
    opponent)."""
    unit = rules.unit
    score = getattr(me, "score", me) // unit
    leader = max(getattr(o, "score", o) for o in opponents) // unit
    return card_situation(card, score, leader, crossed(rules, me))


def card_bank(card: CardRules, rules: Rules, me, opponents, turn: int, dice: int) -> bool:
    """Whether the card banks ``turn`` points with ``dice`` in hand (points)."""
    return card_banks(card, TurnRules.of(rules), *_situation(card, rules, me, opponents),
                      turn // rules.unit, dice)


def card_take(card: CardRules, rules: Rules, me, opponents, total: int, dice: int) -> bool:
    """Whether the card takes over an offer of ``total`` points with
    ``dice`` (points)."""
    _, crossed_now, score, leader = _situation(card, rules, me, opponents)
    return card_takes(card, TurnRules.of(rules), crossed_now, score, leader,
                      total // rules.unit, dice)


def card_keep(card: CardRules, rules: Rules, me, opponents, turn: int, dice: int, options):
    """The keep the card picks among ``options`` (:class:`solver.model.dice.Keep`
    values) after a roll of ``dice`` dice with ``turn`` points set aside."""
    turn_rules, unit = TurnRules.of(rules), rules.unit
    situation = _situation(card, rules, me, opponents)
    return max(options, key=lambda option: keep_rank(
        card, turn_rules, *situation, turn // unit, option.points // unit,
        dice_left(turn_rules, dice, option.used), option.win))


def card_answer(card: Card, rules: Rules, advice, me, opponents, turn: int, dice: int,
                roll=None, offer=None) -> dict:
    """What the card does at the question ``advice`` answered (``farkle
    advise --card``), and what that costs against the best choice: ``{"action",
    "keep"?, "win", "cost"}``. ``me`` and ``opponents`` are score-sheet lines
    (points, or :class:`solver.model.states.Line`)."""
    from solver.model.dice import counts_of, keeps
    compiled = card.compiled(rules)
    by_action = {c.action: c for c in advice.choices}
    if offer is not None:
        takes = card_take(compiled, rules, me, opponents, offer[0], offer[1])
        chosen = by_action["take" if takes else "fresh"]
    elif roll is None:
        banks = card_bank(compiled, rules, me, opponents, turn, dice)
        chosen = by_action["bank"] if banks and "bank" in by_action else by_action["roll"]
    elif "zero" in by_action:
        chosen = by_action["zero"]
    else:
        best = card_keep(compiled, rules, me, opponents, turn, dice,
                         keeps(rules, counts_of(list(roll))))
        chosen = next(c for c in advice.choices
                      if c.action == "keep" and sorted(c.keep) == sorted(best.dice))
    out = {"action": chosen.action, "win": chosen.win, "cost": advice.best.win - chosen.win}
    if chosen.keep is not None:
        out["keep"] = chosen.keep
    return out
