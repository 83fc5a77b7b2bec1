"""The card at the score sheet: the card's decisions for score-sheet lines in
points, as the simulator, the bots and ``farkle advise --card`` ask them.

The rule itself is :mod:`solver.cards.card`'s, in units; these wrappers only
convert: a score ``s`` points is ``s // unit``, the opponent is the leader
among ``opponents``, a line's crosses count as
:func:`solver.model.states.cross_state` reads them, and the shift is
the card's for all that.
"""

from __future__ import annotations

from solver.cards.card import CardRules, card_banks, card_situation, card_takes, keep_rank
from solver.cards.record import Card
from solver.model.rules import Rules
from solver.model.states import cross_state
from solver.model.turn_rules import TurnRules, dice_left


def crossed(rules: Rules, line) -> int:
    """A score-sheet line's crosses as the card reads them (points, or a
    :class:`solver.model.states.Line`): :func:`solver.model.states.cross_state`."""
    previous = getattr(line, "previous", None)
    return cross_state(rules, getattr(line, "score", line) // rules.unit,
                       getattr(line, "crosses", 0), None if previous is None
                       else previous // rules.unit)


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
    opps = opponents if isinstance(opponents, (list, tuple)) else [opponents]
    if rules.final_round and any(int(getattr(o, "score", o)) >= rules.target for o in opps):
        # A final round's last turn: the card plays it by the one-turn odds,
        # the advice's own (its text says so).
        chosen = advice.best
    elif offer is not None:
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
