"""The pieces a card's sentences are made of (:mod:`solver.cards.text`):
numbers as the reader's language writes them, a row of values by dice,
lists joined as that language joins them.
"""

from __future__ import annotations

from solver.model.rules import Rules
from solver.text import NARROW_NBSP, _, language, ngettext


def number_as_read(value) -> str:
    """A card's number as read: ``2,150`` (``2 150`` in French); a worth
    of half a unit as Python writes it (``12.5`` / ``12,5``)."""
    text = f"{value:,}"
    if language() == "fr":
        text = text.replace(",", NARROW_NBSP).replace(".", ",")
    return text


def semicolon() -> str:
    """Between two rules of a line: ``;``, in French `` ;``."""
    return " ;" if language() == "fr" else ";"


def dice_row(pairs) -> str:
    """``5: 2,150 | 4: 800``: a value for each number of dice, most first."""
    return " | ".join(ngettext("{dice}: {value}", "{dice}: {value}", dice).format(
        dice=dice, value=value) for dice, value in pairs)


def dice_or_more(count: int) -> str:
    return ngettext("{count} dice or more", "{count} dice or more", count).format(count=count)


def dice_or_fewer(count: int, rules: Rules) -> str | None:
    """A rule's dice in hand, "3 dice or fewer"; None for any (0 stands
    for any)."""
    if count in (0, rules.dice):
        return None
    return ngettext("{count} dice or fewer", "{count} dice or fewer", count).format(count=count)


def nor_list(items: list[str]) -> str:
    """``a, nor b, nor c``."""
    text = items[0]
    for item in items[1:]:
        text = _("{first}, nor {then}").format(first=text, then=item)
    return text


def and_list(items: list[str]) -> str:
    """``a, b, and c``; one item alone."""
    if len(items) == 1:
        return items[0]
    return _("{first}, and {last}").format(first=", ".join(items[:-1]), last=items[-1])


def plural_count(points: float) -> int:
    """The whole number that picks a plural for ``points`` (0.96: 0)."""
    return int(abs(points))


def decimal(points: float) -> str:
    """A loss in points of 100, two decimals: ``0.96`` / ``0,96``."""
    text = f"{points:.2f}"
    return text.replace(".", ",") if language() == "fr" else text
