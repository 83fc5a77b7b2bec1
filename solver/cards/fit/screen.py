"""A card's search over sampled decisions: where an exact evaluation is slow.

The coordinate search of :mod:`solver.cards.fit.search` scores every move by an
exact evaluation: a second or two at cinq-mille, 9 minutes at dix-mille
to 5,000 and 43 at 10,000 (its falls take a dozen sweeps). This search scores a move by
its first-order estimate instead (:mod:`solver.cards.regret`): the card
plays ``games`` games against the table, every decision it met is kept
with the table's value of each choice there, and another card ``c`` is
priced by its regret at those decisions,

    loss(c) ~ (1 / games) * sum over the decisions d met of regret_c(d),

exact for the card that played and near it for a card that changes few of
its decisions (a fraction of a second, not minutes). A field moves
(by :func:`solver.cards.fit.search.candidates`' steps) while the estimate drops by
more than ``MIN_GAIN`` over the games of the first seed and drops over
those of the second too (a move that only fits the first set's dice is not
taken); then the new card plays its own games and the search runs again,
``plays`` times. The last word is an exact evaluation (the caller's).
"""

from __future__ import annotations

from solver.cards.fit.search import KEEP_FIELDS, candidates, get, is_worth, put
from solver.cards.record import Card
from solver.cards.regret import card_regret, decisions, regret_of
from solver.text import _, number

TAKE_FIELDS = {"take_at", "take_die", "take_one_at", "take_one_behind",
               "take_one_behind_by", "take_one_behind_within", "take_finish_within",
               "take_finish_dice", "take_one_chasing", "last_cross_take_more"}
MIN_GAIN = 5e-5
"""0.005 points: a smaller gain of the estimate is within its drift."""


def kinds_moved(card: Card, name: str) -> set[str]:
    """The decisions a field can change: the others keep their regret."""
    if name in TAKE_FIELDS:
        return {"take"}
    if name in KEEP_FIELDS or is_worth(name):
        return {"keep"}
    # A keep after which the card banks is worth more: the banks rank keeps.
    return {"bank", "keep"} if card.bank_keep_worth else {"bank"}


def search(solution, card: Card, names, games: int, sets,
           say=lambda text: None) -> tuple[Card, float]:
    """The coordinate search over the estimate at the decisions of each of
    ``sets`` (one or two lists of visits, over ``games`` games each): a
    move is taken where the first set's estimate drops by more than
    ``MIN_GAIN`` and the second's (if any) drops too; ``say(text)`` hears
    each move taken."""
    rules = solution.rules
    by_kind = [{kind: decisions(solution, [v for v in visits if v.kind == kind])
                for kind in ("bank", "keep", "take")} for visits in sets]
    parts = [{kind: regret_of(solution, card, packed[kind], games) for kind in packed}
             for packed in by_kind]
    best = [sum(part.values()) for part in parts]
    moved = True
    while moved:
        moved = False
        for name in names:
            kinds = kinds_moved(card, name)
            for value in candidates(rules, name, get(card, name)):
                trial = put(card, name, value)
                trial_parts = [dict(part, **{k: regret_of(solution, trial, packed[k], games)
                                             for k in kinds})
                               for part, packed in zip(parts, by_kind)]
                estimate = [sum(part.values()) for part in trial_parts]
                if estimate[0] < best[0] - MIN_GAIN and all(
                        new < old for new, old in zip(estimate[1:], best[1:])):
                    card, parts, best, moved = trial, trial_parts, estimate, True
                    say(_("  {name} = {value}: {losses} estimated").format(
                        name=name, value=value,
                        losses=" / ".join(number(100 * x, 3) for x in best)))
    return card, best[0]


def play(solution, card: Card, games: int, seeds) -> tuple[list, list[tuple[float, float]]]:
    """The card's games with each of ``seeds``' dice: the decisions it met
    (one list of visits per seed) and its sampled loss with its standard
    error over each set."""
    sets, losses = [], []
    for seed in seeds:
        visits = []
        losses.append(card_regret(solution, card, games, seed, visits).loss())
        sets.append(visits)
    return sets, losses


def screen(solution, card: Card, names, games: int, plays: int, seeds=(1, 2),
           say=lambda text: None, played: list | None = None) -> Card:
    """``plays`` times: the card plays its games (:func:`play`) and
    :func:`search` moves its fields over them; the card it ends with.
    ``played``, if given, gets each card that played with its sampled loss
    over the first seed's games, ``(loss, card)``: a search may move a card
    to one that gives up more in its own games (it fits the decisions of
    the games before), so a caller may measure the best of them too."""
    for count in range(1, plays + 1):
        sets, losses = play(solution, card, games, seeds)
        if played is not None:
            played.append((losses[0][0], card))
        say(_("play {play}: the card gives up {losses} points over {games} games").format(
            play=count, games=number(games), losses=" / ".join(
                f"{number(100 * loss, 3)} ± {number(100 * error, 3)}" for loss, error in losses)))
        card, estimate = search(solution, card, names, games, sets, say)
        say(_("play {play}: searched, {loss} points estimated").format(
            play=count, loss=number(100 * estimate, 3)))
    return card
