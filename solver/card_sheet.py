"""The card at the score sheet: the stored cards (``solver/cards.json``)
and the card's decisions for score-sheet lines in points, as the simulator,
the bots and ``farkle advise --card`` ask them.

The rule itself is :mod:`solver.card`'s, in units; these wrappers only
convert: a score ``s`` points is ``s // unit``, the opponent is the leader
among ``opponents``, a line's crosses count as
:func:`solver.states.cross_state` reads them, and the shift is
the card's for all that.
"""

from __future__ import annotations

import json
from pathlib import Path

from .card import CardRules, card_banks, card_situation, card_takes, keep_rank
from .card_record import Card
from .errors import UsageError
from .rules import Rules
from .states import cross_state
from .turn_rules import TurnRules, dice_left

CARDS_FILE = Path(__file__).with_name("cards.json")


def stored_cards() -> dict:
    """The fitted cards (``solver/cards.json``): game -> {"card", "loss"}."""
    if not CARDS_FILE.exists():
        return {}
    return json.loads(CARDS_FILE.read_text())


def card_for(rules: Rules, players: int = 2) -> tuple[Card, dict | None, dict]:
    """The stored card of a game, its measured loss and the simple rules'
    losses, or a UsageError. With more than two ``players``, the card
    fitted for that many where one is stored (:func:`fitted_for_players`;
    no simple rules are measured with them), else the two-player card."""
    cards = stored_cards()
    entry = cards.get(rules.name)
    if entry is None:
        raise UsageError(f"no strategy card for {rules.name} yet "
                         f"(cards exist for: {', '.join(cards) or 'none'})")
    fitted = fitted_for_players(rules, players)
    if fitted:
        return Card.from_dict(fitted["card"]), fitted, {}
    return Card.from_dict(entry["card"]), entry.get("loss"), entry.get("simple", {})


def _with_players(rules: Rules, players: int) -> dict:
    """What ``solver/cards.json`` keeps of a game at a table of ``players``:
    the two-player card's loss there, and ``fitted``, a card of its own."""
    return stored_cards().get(rules.name, {}).get("players", {}).get(str(players), {})


def loss_with_players(rules: Rules, players: int) -> dict | None:
    """The two-player card's loss measured at a table of ``players``
    (playing against the leader; ``scripts/measure_card_players.py``) at
    the game's own target, or None."""
    measured = {k: v for k, v in _with_players(rules, players).items() if k != "fitted"}
    return measured if measured.get("target") == rules.target else None


def fitted_for_players(rules: Rules, players: int) -> dict | None:
    """The card fitted for a table of ``players`` (``scripts/
    measure_card_players.py --fit``) at the game's own target: ``{"card",
    "loss", "seats", ...}``, or None."""
    fitted = _with_players(rules, players).get("fitted", {})
    return fitted if fitted.get("target") == rules.target else None


def crossed(rules: Rules, line) -> int:
    """A score-sheet line's crosses as the card reads them (points, or a
    :class:`solver.states.Line`): :func:`solver.states.cross_state`."""
    score = getattr(line, "score", line)
    return cross_state(rules, score, getattr(line, "crosses", 0), getattr(line, "previous", None))


def _situation(card: CardRules, rules: Rules, me, opponents):
    """:func:`solver.card.card_situation` (units) for score-sheet lines
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
    """The keep the card picks among ``options`` (:class:`solver.dice.Keep`
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
    (points, or :class:`solver.states.Line`)."""
    from .dice import counts_of, keeps
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
