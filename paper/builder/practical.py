"""The paper's Section 8, practical play: for each French game the strategy
card a player can carry, four plain rules read off the table, and what the
card gives up; Pig's card beside Neller and Presser's "keep pace and end
race"; where the cards part from optimal play (a figure).

The plain rules are the table's own answers in the situations of Section 5
(:func:`paper.builder.build.analyse`), put in words: dice before points,
the score gap, offers (or the keep where there is no take-over), and the
end of the game. Every comparison word is chosen from the numbers it
compares.
"""

from __future__ import annotations

from paper.builder.cards import departures
from paper.builder.text import _and, dice_word

MAIN = ("cinq-mille", "quinze-mille", "dix-mille")

KEEP_PACE = {"bank": [21], "behind": 1, "gap_step": 8, "race_within": 29}
"""Neller and Presser's "keep pace and end race" for Pig [4] as a card: hold
at 21 plus one for each 8 points behind (one less for each 8 ahead), and
roll for the goal once either player has 71 or more."""


def practical_text(W, games: dict, cards: dict, sigmas: int) -> str:
    parts = [
        "A *strategy card* is a rule a person applies with mental arithmetic: bank thresholds "
        "by dice in hand, moved by the score gap, and worths of dice left that rank the keeps. "
        "Each card is fitted to its game's table and scored exactly against a perfect "
        "opponent; what it *gives up* is one half minus its mean chance over the two seats. "
        "Appendix D says how the cards are fitted and where each loses."]
    for key in MAIN:
        if key in games and key in cards:
            parts.append(game_card(W, games[key], cards[key]))
    if "pig" in games and "pig" in cards:
        parts.append(pig_card(W.N, games["pig"], cards["pig"]))
    figure = departures(W.figs, cards, games)
    if figure:
        parts.append("The figure shows where each card's bank decisions part from the "
                     "table's: mostly near the end of the game, and where one player is far "
                     "behind.\n\n" + figure)
    return "\n\n".join(parts)


def game_card(W, g, entry: dict) -> str:
    from solver.cards.record import Card
    from solver.cards.text import card_text
    N, key = W.N, f"card/{g.key}"
    loss = entry["loss"]
    first, second = loss["seats"]
    simple = entry.get("simple", {})
    fixed = simple.get("threshold:300")
    text = (f"### Playing {g.key}\n\n"
            f"The card of {g.label} gives up {N(f'{key}/loss', loss['loss'], 'ppabs')} "
            f"percentage points: against a perfect opponent its player wins "
            f"{N(f'{key}/first', first, 'pct')} moving first and "
            f"{N(f'{key}/second', second, 'pct')} moving second.")
    if fixed:
        text += (" Banking at 300 and keeping the most points gives up "
                 f"{N(f'{key}/simple/threshold:300', fixed['loss'], 'ppabs')}.")
    card = card_text(Card.from_dict(entry["card"]), g.rules, loss)
    rules = [r for r in (dice_rule(N, g), gap_rule(N, g), offer_or_keep_rule(N, g, entry),
                         end_rule(N, g)) if r]
    return (text + "\n\n```\n" + card + "\n```\n\nFour things to carry, from the table:\n\n"
            + "\n".join(f"- {r}" for r in rules))


def _situation(g, name):
    return next((b for b in g.results["bank"] if b[0] == name), None)


def _smallest(rule, n):
    r = rule.get(n)
    return None if r is None else r.smallest


def _smallest_by_dice(rule, dice) -> dict:
    """The smallest total of each number of ``dice`` that has one."""
    found = {n: _smallest(rule, n) for n in dice}
    return {n: t for n, t in found.items() if t is not None}


def dice_rule(N, g) -> str:
    """Dice before points: the smallest bank at level scores, few dice
    against many."""
    level = _situation(g, "level")
    if level is None:
        return ""
    name, me, _, rule = level
    banks = _smallest_by_dice(rule, range(1, g.rules.dice + 1))
    if len(banks) < 2:
        return ""
    few, many = min(banks), max(banks)
    k = f"{g.key}/bank/{name}"
    return (f"*Dice before points.* At {N(f'{k}/me', me, 'pts')} each, bank with "
            f"{few} {dice_word(few)} from {N(f'{k}/{few}/0/lo', banks[few] * g.rules.unit, 'pts')}"
            f" but with {many} {dice_word(many)} only from "
            f"{N(f'{k}/{many}/0/lo', banks[many] * g.rules.unit, 'pts')}: a die left buys "
            "more when many remain.")


def gap_rule(N, g) -> str:
    """The score gap: the smallest bank with the most dice behind and
    ahead."""
    behind, ahead = _situation(g, "behind"), _situation(g, "ahead")
    if behind is None or ahead is None:
        return ""
    for n in range(g.rules.dice, 0, -1):
        b, a = _smallest(behind[3], n), _smallest(ahead[3], n)
        if b is not None and a is not None and a != b:
            break
    else:
        return ""
    kb, ka = f"{g.key}/bank/behind", f"{g.key}/bank/ahead"
    way = "sooner" if a < b else "later"
    return (f"*The gap.* With {n} {dice_word(n)} in hand, behind ({N(f'{kb}/me', behind[1], 'pts')} "
            f"against {N(f'{kb}/opp', behind[2], 'pts')}) bank from "
            f"{N(f'{kb}/{n}/0/lo', b * g.rules.unit, 'pts')}; ahead, {way}, from "
            f"{N(f'{ka}/{n}/0/lo', a * g.rules.unit, 'pts')}.")


def offer_or_keep_rule(N, g, entry: dict) -> str:
    """Offers where the next player may take over; else the free keep."""
    take = next((t for t in g.results.get("take", []) if t[0] == "level"), None)
    if take is not None:
        name, me, _, rule = take
        taken = _smallest_by_dice(rule, sorted(rule))
        if len(taken) >= 2:
            one, most = min(taken), max(taken)
            k = f"{g.key}/take/{name}"
            return (f"*Offers.* At {N(f'{k}/me', me, 'pts')} each, the next player takes an "
                    f"offer of {most} {dice_word(most)} from "
                    f"{N(f'{k}/{most}/0/lo', taken[most] * g.rules.unit, 'pts')}, of {one} "
                    f"{dice_word(one)} only from "
                    f"{N(f'{k}/{one}/0/lo', taken[one] * g.rules.unit, 'pts')}: a bank that "
                    "leaves many dice is a gift, and taking one is worth it from much less.")
    everything = entry.get("simple", {}).get("always keep everything")
    if everything and g.rules.keep_rule != "all":
        return ("*Keep fewer dice.* The card that keeps every scoring die gives up "
                f"{N(f'card/{g.key}/simple/always keep everything', everything['loss'], 'ppabs')} "
                "points more than choosing: with many dice left, a lone 1 or 5 kept and the "
                "rest rolled is often worth more than all the points.")
    return ""


def end_rule(N, g) -> str:
    """The end of the game: the banks with both players near it."""
    near = _situation(g, "both near the end")
    if near is None:
        return ""
    name, me, _, rule = near
    k = f"{g.key}/bank/{name}"
    banks = {n: _smallest(rule, n) for n in range(1, g.rules.dice + 1)}
    yes = [n for n, t in banks.items() if t is not None]
    no = [n for n in banks if rule.get(n) is not None and rule[n].top is not None
          and not rule[n].intervals]
    if not yes:
        return (f"*The end.* With both at {N(f'{k}/me', me, 'pts')}, never bank: roll for "
                "the target.")
    text = (f"*The end.* With both at {N(f'{k}/me', me, 'pts')}, bank with "
            + _and([f"{n} {dice_word(n)} from {N(f'{k}/{n}/0/lo', banks[n] * g.rules.unit, 'pts')}"
                    for n in yes]))
    if no:
        text += f"; with {_and([str(n) for n in no])} dice roll on to the target"
    if g.rules.exact_target:
        text += ", and a keep that overshoots the exact target wastes the turn"
    return text + "."


def pig_card(N, pig, entry: dict) -> str:
    """Pig's card beside "keep pace and end race" [4], both scored
    exactly against the table."""
    from solver.cards.record import Card
    from solver.cards.seat_value import card_seat_values
    keep_pace = Card.from_dict({"game": pig.key, **KEEP_PACE})
    seats = card_seat_values(pig.solution, keep_pace)
    loss = 0.5 - float(seats.mean())
    card = Card.from_dict(entry["card"])
    ours = entry["loss"]["loss"]
    fixed = entry.get("simple", {}).get("threshold:20")
    text = ("### Pig\n\n"
            f"Pig's card holds at {N('card/pig/bank', card.bank[0], 'int')}, one more for each "
            f"{N('card/pig/gap_step', card.gap_step, 'int')} points behind (one less for each "
            f"{N('card/pig/gap_step', card.gap_step, 'int')} ahead), and rolls for the goal "
            f"once either player is within {N('card/pig/race_within', card.race_within, 'int')} "
            f"of it. It gives up {N('card/pig/loss', ours, 'ppabs')} percentage points. "
            "Neller and Presser's \"keep pace and end race\" [4], the same rule with a step of "
            f"{N('pig/keep_pace/gap_step', KEEP_PACE['gap_step'], 'int')}, gives up "
            f"{N('pig/keep_pace/loss', loss, 'ppabs')} scored the same way: "
            + ("the card gives up less" if ours < loss else "the card gives up more"
               if ours > loss else "the same") + ".")
    if fixed:
        text += (" Holding at 20 gives up "
                 f"{N('card/pig/simple/threshold:20', fixed['loss'], 'ppabs')}.")
    return text
