"""A strategy card as printed: its fields in points, each with the table's
case for it, and their conversion to the units the rules of
:mod:`solver.cards.card` read (:meth:`Card.compiled`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np

from solver.cards.card import CardRules
from solver.model.errors import UsageError
from solver.model.rules import Rules
from solver.text import N_, _

SIDE_ROWS = {"chase_bank": N_("near the other player's end"),
             "home_bank": N_("near the player's own end"),
             "safe_bank": N_("where the other player may not take over")}
"""The bank rows beside ``bank``, each used where its condition holds (the
module docstring): () stands for ``bank`` itself."""

WORTH_ROWS = ("left_worth", "late_worth", "leader_worth", "chase_worth")
"""The rows of worths of dice left, each a worth per number of dice."""


@dataclass(frozen=True)
class Card:
    """A card in points, as printed (module docstring)."""
    game: str
    bank: tuple[int, ...]
    """Bank at this turn total with 1, 2, ... dice in hand."""
    behind: int = 0
    gap_step: int = 1000
    chase_within: int = 0
    chase_bank: tuple[int, ...] = ()
    """Bank at these turn totals, by dice in hand, once the other player is
    within ``chase_within`` of the target or leads by ``chase_behind`` or
    more; () where the card has no such row."""
    chase_behind: int = 0
    home_within: int = 0
    home_bank: tuple[int, ...] = ()
    """Bank at these turn totals, by dice in hand, once the player is within
    ``home_within`` of the target (and the row near the other player's end
    does not apply); () where the card has no such row."""
    safe_bank: tuple[int, ...] = ()
    """Bank at these turn totals, by dice in hand, where the other player
    may not take over (short of the game's minimum for it) and neither row
    near an end applies: an offer is no gift there, and the card banks
    sooner (quinze-mille-free-keep, 1,500 set aside and four dice: at
    3,000 against 4,000 a bank wins 52.88%, a roll 52.12%; at 6,000
    against 7,000, who may take over, a roll 47.76%, a bank 45.82%); ()
    where the card has no such row."""
    open_at: int = 0
    left_worth: tuple[int, ...] = ()
    """What a keep's dice left to roll are worth, for 1, 2, ... dice left
    (all the dice after hot dice); () where the card has no keep rule. A
    die's worth depends on how many there are: one die left is mostly
    banked, the fifth buys a roll of every die."""
    late_from: int = 0
    """From this turn total before the roll the dice left are worth
    ``late_worth`` instead: the more is set aside, the sooner the card
    banks and the less a die left buys (quinze-mille-free-keep at 5,000
    each, 1 5 5 2 3 thrown: with 500 set aside 1 5 5 then a bank wins
    55.63%, the 1 alone 54.52%; with 100 the 1 alone, 51.09% against
    50.74%); 0: ``left_worth`` at any total."""
    late_worth: tuple[int, ...] = ()
    """``left_worth`` from ``late_from``; () where the card has none."""
    most_points_from: int = 0
    """With this turn total or more before the roll, keep the most points
    (the dice left are soon banked); 0: never."""
    chase_most_points_from: int = 0
    """``most_points_from`` near the other player's end (where
    ``chase_bank`` applies): the card banks late there, so the dice left
    are worth keeping longer; 0: the same."""
    lead_most_points_from: int = 0
    """``most_points_from`` for a player who leads (the chase row aside):
    a leader banks sooner, so points count before dice sooner; 0: the
    same."""
    take_at: int = 0
    take_die: int = 0
    take_one_at: int = 0
    """An offer of one die is taken from this total (0: by ``take_at`` and
    ``take_die`` as the others)."""
    take_one_behind: int = 0
    """An offer of one die is taken from this total instead when the other
    player leads by ``take_one_behind_by`` or more: who trails must gamble
    (quinze-mille at 12,000, one die offered with 1,100: against 13,500 the
    take wins, 32.84% against 32.02%; against 12,500 the fresh turn, 46.60%
    against 45.35%); 0: no such rule."""
    take_one_behind_by: int = 0
    take_one_behind_within: int = 0
    """``take_one_behind`` holds only where the leader is within this much of
    the target: far from the end a trailing player has time to catch up
    without the gamble (dix-mille-free-keep, one die offered with 1,100:
    at 3,000 against 4,000 the fresh turn wins, 40.38% against 40.09%; at
    7,000 against 8,000 the take, 31.82% against 30.94%); 0: however
    far."""
    last_cross: int = 0
    last_cross_offer_dice: int = 0
    """On the last cross before a fall the offer rules (``offer_dice``) hold
    from this many dice: a roll risks the fall as well as the points, so
    the finish and the bank come sooner (dix-mille at 9,650 against 9,700,
    150 set aside with 3 dice: on the last cross the bank wins, 49.01%
    against 48.70%; with no cross the roll, 49.33% against 49.01%); 0:
    ``offer_dice`` there too."""
    finish_within: int = 0
    finish_from: int = 0
    """``finish_within`` applies to a bank that leaves this much or more
    to go: what is left must be worth the wait (cinq-mille-exact, 4,600
    against 4,300 with 3 dice: 200 set aside, the bank, leaving 200, wins
    78.31% against 75.73%; 300 set aside, leaving 100, the roll, 82.52%
    against 81.24%); 0: any."""
    finish_yields_within: int = 0
    """``finish_within`` does not apply once the other player is within
    this much of the target: they may finish before what is left is made
    (cinq-mille-exact, 4,600 against 4,750 with 200 set aside and 3 dice:
    the roll wins 43.85% against the bank's 40.02%); 0: however near."""
    finish_dice: int = 0
    """``finish_within`` applies with at most this many dice in hand (with
    more, a roll is worth more than the finish); 0: with any."""
    crossed_finish_dice: int = 0
    """``finish_dice`` for a player with a cross and a fall ahead: a zero
    turn costs a cross too, so the finish comes with more dice (dix-mille
    at 9,500 against 9,000 with 250 set aside and 4 dice: with no cross
    the roll wins, 68.80% against 68.55%; with one cross the bank, 68.55%
    against 66.88%); 0: ``finish_dice`` there too."""
    race_within: int = 0
    leave_at_least: int = 0
    """Never bank leaving less than this to go (a field of the games that
    end exactly on the target or cap a bank short of it)."""
    bank_keep_worth: int = 0
    """What a keep after which the card banks is worth beyond its points
    and dice left (below ``most_points_from``)."""
    end_within: int = 0
    """To an exact target, a keep that leaves this much or less to go is
    ranked by its points, ``end_die`` a die left to roll, and ``odd_fifty``
    less where what it leaves needs a 5 (50, 150, ...); 0: no such rule."""
    end_die: int = 0
    odd_fifty: int = 0
    end_bonus: int = 0
    """What a keep ranked by the end rule counts beyond its points and
    dice: to leave little to go is worth more than the usual worth of its
    dice (``left_worth``); 0: no more."""
    hot_dice_from: int = 0
    """Where hot dice must be rolled, a keep of every die that brings the
    turn total to this or more counts ``hot_dice_cost`` less per 1,000 of
    that total: all of it rides on the forced roll, where a keep of fewer
    dice may bank (dix-mille-free-keep at 5,000 each, 3 3 3 3 1 thrown: 3 3
    3 3 then a bank wins 77.23%, all five then the roll 67.63%); 0: no such
    rule."""
    hot_dice_cost: int = 0
    crossed_two_dice_leaves: int = 0
    """With two dice in hand, a cross and a fall ahead, a bank may leave
    this little to go instead of ``leave_at_least`` (dix-mille at 9,500
    against 9,000 with 350 set aside and 2 dice: with no cross the roll
    wins, 65.52% against 64.83%; with one cross the bank, 64.83% against
    62.80%); 0: ``leave_at_least`` there too."""
    lone_die_leaves: int = 0
    """With one die in hand, a bank may leave this little to go instead
    of ``leave_at_least``: a lone die rarely finishes, so banking near the
    end beats rolling it (dix-mille at 9,500 against 9,000 with 350 set
    aside: with one die the bank wins, 64.83% against 62.34%, with two
    the roll, 65.52% against 64.83%); 0: ``leave_at_least`` with any dice."""
    leave_unless: int = 0
    """``leave_at_least`` holds below this turn total only: from it, a bank
    keeps too much to risk for the last points (quinze-mille, 150 to go
    after the bank: one die banks from about 1,000 to 1,900); 0: at any."""
    offer_within: int = 0
    """Never bank with ``offer_dice`` dice or more in hand where the other
    player may take over and the turn total would bring them within this
    much of an exact target: they take it and often finish (quinze-mille,
    14,000 against 14,700 with 200 and 3 dice: the roll wins 30.07%, the
    bank 23.53%); a finish comes first (``finish_unless_within``); 0: no
    such rule."""
    offer_dice: int = 0
    offer_fewer_within: int = 0
    """The offer rule with fewer than ``offer_dice`` dice but two or more in
    hand: never bank where the other player, taking over, would be within
    this much of the target (quinze-mille at 13,000 against 14,600 with 300
    set aside and 2 dice: they would take over at 14,900, and the roll wins
    22.68%, the bank 20.08%; against 14,000 the bank wins, 33.13% against
    32.62%). One die is left out: its offer is seldom taken. 0: no such
    rule."""
    take_finish_within: int = 0
    """To an exact target, an offer is taken also where it leaves 100 to go
    (a lone 1 finishes it), or up to this much with ``take_finish_dice``
    dice or more offered: the end is near enough to chase with the dice
    in hand (dix-mille at 9,650 against 9,800, two dice offered with 250:
    the take wins 50.08%, a fresh turn 40.04%; against 9,750, three dice
    with 150, leaving 200: the take, 46.92% against 43.59%; two dice with
    150: the fresh turn, 43.59% against 40.97%); 0: no such rule."""
    take_finish_dice: int = 0
    offer_fewer_from: int = 0
    """The window of ``offer_fewer_within`` starts at this much to go: an
    offer that leaves its taker 50 with two dice is worth making, one that
    leaves 100 is not (dix-mille); 0: from nothing left."""
    five_hundreds_within: int = 0
    """To an exact target, the finish (:attr:`finish_within`'s rule) holds
    also for a bank that leaves 500, 1,500, ... up to this much to go, with
    ``five_hundreds_dice`` dice or fewer in hand (0: any): three 5s, or a straight,
    make it (dix-mille against 8,000 with 200 set aside and 3 dice: the bank
    to 9,500 wins 75.24%, the roll 74.29%; to 9,450, from 150 more, the
    roll 73.23%, the bank 72.36%); 0: no such rule."""
    five_hundreds_dice: int = 0
    last_cross_take_more: int = 0
    """On the last cross before a fall every take-over wants this much
    more: a take that fails is a zero turn, and this one the fall (the
    exception of the end, an offer that finishes, stands); 0: no more."""
    take_one_chasing: int = 0
    """A lone die's offer is taken from this turn total where the other
    player, who made it, is within ``chase_within`` of the target: they
    may finish next turn, so a fresh turn is seldom enough (first of the
    lone die's rules); 0: no such rule."""
    lead_offer_behind: int = 0
    """Never bank a total from ``lead_offer_from`` to ``lead_offer_to``
    with ``offer_dice`` dice or more in hand where the other player leads
    by this much or more, may take over, and is more than
    ``lead_offer_far`` from the target: the leader would take the offer
    and run (quinze-mille-free-keep, 5,000 against 7,000 with 1,000 set
    aside and three dice: a roll wins 31.67%, a bank 31.36%; at 5,000
    all, a bank, 56.24% against 55.92%); 0: no such rule."""
    lead_offer_from: int = 0
    lead_offer_to: int = 0
    lead_offer_far: int = 0
    entry_die: int = 0
    """Before the player enters, a keep that leaves the turn total short of
    the entry counts this much more for each die left to roll: the turn
    must roll on anyway (dix-mille-free-keep at 0 all, 100 set aside, 1 5
    2 3 thrown: the 1 alone wins 50.50%, 1 and 5 50.30%); 0: no more."""
    entry_reach: int = 0
    """Before the player enters, a keep that brings the turn total to the
    entry counts this much more: the bank it allows is worth more than the
    dice (quinze-mille-free-keep at 0 all, 1 2 3 4 4 4 thrown: 1 4 4 4,
    then a bank, wins 52.81%, the 1 alone 51.10%); 0: no more."""
    leader_worth: tuple[int, ...] = ()
    """``left_worth`` for a player who leads (below ``late_from``): a
    leader wants the points, one who trails the dice (quinze-mille-free-keep,
    1 3 3 3 2 4 thrown at a turn's start: at 9,000 against 6,000 1 3 3 3,
    then a bank, wins 85.94%, the 1 alone 85.61%; at 3,000 against 6,000
    the 1 alone, 19.07% against 19.05%); () where the card has none."""
    chase_worth: tuple[int, ...] = ()
    """``left_worth`` where ``chase_bank`` applies, whatever is set aside:
    the other player may finish next turn, so a bank must be worth it and
    few dice left buy little (quinze-mille-free-keep at 13,650 against
    14,500, 500 set aside, 1 1 5 5 2 3 thrown: the 1 alone wins 36.36%, 1 1
    5 5 then a bank 29.43%); () where the card has none."""
    finish_unless_within: int = 0
    """The finish yields (no bank) where the other player, taking over
    ``offer_dice`` dice or more, would be within this much of the target:
    the offer is theirs to finish with
    (quinze-mille, 14,600 against 14,700: bank 200 with 3 dice and they
    need a 1 of 3 dice); 0: the finish whatever it offers."""
    past_lead: int = 0
    """With a final round, past the target: bank once the score the bank
    would leave leads the other player's by this much or more (they then
    have one last turn to pass it); 0: bank on reaching the target (farkle
    at 9,500 each, 600 set aside, a lead of 600: with 3 dice the roll wins
    58.06%, the bank 57.26%; with 2 dice the bank, 57.26% against
    54.66%)."""
    past_lead_all: int = 0
    """``past_lead`` with every die in hand (after hot dice): a roll of all
    the dice seldom scores nothing (farkle at 9,500 each, all 6 dice: with
    a lead of 2,500 the roll wins 95.21%, the bank 94.90%; with 2,700 the
    bank, 95.93% against 95.89%); 0: bank on reaching the target."""

    def compiled(self, rules: Rules) -> CardRules:
        u = rules.unit
        units = partial(in_units, rules)
        if len(self.bank) != rules.dice:
            raise UsageError(_("a card for {game} needs {dice} bank thresholds").format(
                game=rules.name, dice=rules.dice))
        for name, where in SIDE_ROWS.items():
            if getattr(self, name) and len(getattr(self, name)) != rules.dice:
                raise UsageError(_("a card for {game} needs {dice} bank thresholds {where}")
                                 .format(game=rules.name, dice=rules.dice, where=_(where)))
        for name in WORTH_ROWS:
            if getattr(self, name) and len(getattr(self, name)) != rules.dice:
                raise UsageError(_("a card for {game} needs {dice} worths of dice left").format(
                    game=rules.name, dice=rules.dice))
        # A worth (of dice left, of a keep that banks) is not rounded to the
        # unit: half a unit tells apart keeps whose points differ by one unit
        # (a 1 alone, or a 1 and a 5).
        left = [w / u for w in self.left_worth or (0,) * rules.dice]
        late = [w / u for w in self.late_worth] if self.late_worth else left
        leader = [w / u for w in self.leader_worth] if self.leader_worth else left
        chase = [w / u for w in self.chase_worth]

        def row(thresholds):     # indexed by dice in hand, 0 unused
            return np.array([0] + [units(b) for b in thresholds], dtype=np.int64)
        bank = row(self.bank)
        # The window's top rounds down, as a threshold rounds up: a total
        # inside it in points is inside it in units.
        lead_offer = ((units(self.lead_offer_behind), units(self.lead_offer_from),
                       self.lead_offer_to // u, units(self.lead_offer_far))
                      if rules.has_takeover and self.lead_offer_behind else (0, 0, 0, 0))
        side = {name: row(getattr(self, name)) if getattr(self, name) else bank
                for name in SIDE_ROWS}
        return CardRules(bank,
                         np.array([0] + left, dtype=np.float64),
                         units(self.behind) if self.behind >= 0 else -units(-self.behind),
                         max(1, self.gap_step // u), units(self.chase_within),
                         side["chase_bank"], units(self.chase_behind),
                         units(self.home_within), side["home_bank"],
                         side["safe_bank"] if rules.has_takeover else bank,
                         max(units(self.open_at), rules.entry_units) if rules.entry else 0,
                         units(self.late_from) if self.late_worth else 0,
                         np.array([0] + late, dtype=np.float64),
                         units(self.most_points_from), units(self.chase_most_points_from),
                         units(self.lead_most_points_from),
                         units(self.take_at), units(self.take_die), units(self.take_one_at),
                         units(self.take_one_behind), units(self.take_one_behind_by),
                         units(self.last_cross), units(self.finish_within),
                         units(self.finish_from), units(self.finish_yields_within),
                         self.finish_dice, self.crossed_finish_dice or self.finish_dice,
                         units(self.race_within), units(self.leave_at_least),
                         self.bank_keep_worth / u,
                         units(self.end_within) if rules.exact_target else 0,
                         self.end_die / u, self.odd_fifty / u, self.end_bonus / u,
                         rules.dice if rules.hot_dice_forced and self.hot_dice_cost else 0,
                         units(self.hot_dice_from), self.hot_dice_cost / 1000,
                         max(1, 100 // u),
                         units(self.leave_unless),
                         units(self.lone_die_leaves or self.leave_at_least),
                         units(self.crossed_two_dice_leaves or self.leave_at_least),
                         units(self.offer_within) if rules.has_takeover else 0,
                         self.offer_dice, self.last_cross_offer_dice or self.offer_dice,
                         units(self.offer_fewer_within) if rules.has_takeover else 0,
                         units(self.finish_unless_within) if rules.has_takeover else 0,
                         units(self.take_finish_within)
                         if rules.has_takeover and rules.exact_target else 0,
                         self.take_finish_dice,
                         units(self.offer_fewer_from) if rules.has_takeover else 0,
                         units(self.five_hundreds_within) if rules.exact_target else 0,
                         self.five_hundreds_dice, units(self.take_one_chasing),
                         units(self.last_cross_take_more) if rules.crosses else 0,
                         *lead_offer, self.entry_die / u if rules.entry else 0,
                         self.entry_reach / u if rules.entry else 0,
                         units(self.take_one_behind_within),
                         np.array([0] + leader, dtype=np.float64),
                         np.array([0] + chase, dtype=np.float64) if self.chase_worth else
                         np.zeros(0),
                         units(self.past_lead) if rules.final_round else 0,
                         units(self.past_lead_all) if rules.final_round else 0).typed()

    def in_play(self) -> "Card":
        """The card without the rows it never uses (a row whose condition
        is never met, or that repeats ``bank``): two cards that play alike
        this way compare equal, and a search evaluates them once."""
        chasing = self.chase_within or self.chase_behind
        chase = self.chase_bank if chasing and self.chase_bank != self.bank else ()
        home = self.home_bank if self.home_within and self.home_bank != self.bank else ()
        safe = self.safe_bank if self.safe_bank != self.bank else ()
        late = self.late_worth if self.late_from and self.late_worth != self.left_worth else ()
        leader = self.leader_worth if self.leader_worth != self.left_worth else ()
        return dataclasses.replace(self, chase_bank=chase, home_bank=home, safe_bank=safe,
                                   leader_worth=leader,
                                   chase_worth=self.chase_worth if chasing else (),
                                   home_within=self.home_within if home else 0,
                                   late_worth=late, late_from=self.late_from if late else 0)

    def at_target(self, rules: Rules) -> "Card":
        """The card as it plays to ``rules``' target: a condition that no
        score short of the target meets is dropped, one that every score
        meets is folded into the rule it selects (the chase row becomes
        the bank row). It makes the same decisions (a test evaluates both)
        and reads as a person would say it there: a card fitted to 10,000
        and shown for a game to 1,000 no longer says "within 4,300 of
        1,000". Scores and turn totals are short of the target, so a gap
        is at most the target less a unit and a distance to go at most the
        target."""
        u, target_units = rules.unit, rules.target_units
        units = partial(in_units, rules)

        def always_within(points):
            return points > 0 and within_from_anywhere(rules, points)

        def never_ahead_by(points):     # other - score >= points, no scores
            return units(points) > target_units - 1
        change = {}
        if self.chase_behind and never_ahead_by(self.chase_behind):
            change["chase_behind"] = 0
        if self.lead_offer_behind and (never_ahead_by(self.lead_offer_behind)
                                       or units(self.lead_offer_far) >= target_units):
            change.update(lead_offer_behind=0, lead_offer_from=0, lead_offer_to=0,
                          lead_offer_far=0)
        if self.take_one_behind and never_ahead_by(self.take_one_behind_by):
            change.update(take_one_behind=0, take_one_behind_by=0, take_one_behind_within=0)
        elif always_within(self.take_one_behind_within):
            change["take_one_behind_within"] = 0
        if self.leave_unless and units(self.leave_unless) >= target_units:
            change["leave_unless"] = 0      # every turn total is below it
        if always_within(self.finish_yields_within):    # the finish never holds
            change.update(finish_within=0, five_hundreds_within=0, finish_yields_within=0)
        else:
            # A bank leaves a unit to go or more: of 500, 1,500, ..., the
            # largest it may leave.
            largest = (rules.target - u - 500) // 1000 * 1000 + 500 if rules.target - u >= 500 \
                else 0
            if self.five_hundreds_within > largest:
                change["five_hundreds_within"] = largest
        card = dataclasses.replace(self, **change)
        if always_within(card.chase_within):
            worths = dict(left_worth=card.chase_worth, late_worth=(), late_from=0,
                          leader_worth=()) if card.chase_worth else {}
            lone_die = dict(take_one_at=card.take_one_chasing, take_one_behind=0,
                            take_one_behind_by=0, take_one_behind_within=0) \
                if card.take_one_chasing else {}
            card = dataclasses.replace(
                card, bank=card.chase_bank or card.bank, home_within=0, home_bank=(),
                safe_bank=(), most_points_from=card.chase_most_points_from
                or card.most_points_from, lead_most_points_from=0, chase_within=0,
                chase_behind=0, **worths, **lone_die)
        if always_within(card.home_within):     # the rows after it are unused
            # () stands for the bank row, which changes here.
            chase_bank = card.chase_bank or card.bank if card.chase_within or \
                card.chase_behind else ()
            card = dataclasses.replace(card, bank=card.home_bank or card.bank, safe_bank=(),
                                       chase_bank=chase_bank, home_within=0, home_bank=())
        if not (card.chase_within or card.chase_behind):
            card = dataclasses.replace(card, chase_bank=(), chase_worth=(),
                                       chase_most_points_from=0, take_one_chasing=0)
        return card

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Card":
        fields = {f.name for f in dataclasses.fields(cls)}
        # JSON gives lists; a card is hashed (a search keeps its measured cards by card).
        values = {k: tuple(v) if isinstance(v, list) else v
                  for k, v in data.items() if k in fields}
        if data.get("die_worth") and not values.get("left_worth"):
            # A card fitted before dice left had a worth each: so much a die.
            values["left_worth"] = tuple(data["die_worth"] * k
                                         for k in range(1, len(values["bank"]) + 1))
        return cls(**values)


def in_units(rules: Rules, points: int) -> int:
    """A card's threshold or distance in ``points``, in units as
    :meth:`Card.compiled` reads it: rounded up, to a score a turn can hold."""
    return -(-points // rules.unit)


def within_from_anywhere(rules: Rules, points: int) -> bool:
    """Whether every score short of the target is within ``points`` of it
    (:func:`in_units`)."""
    return in_units(rules, points) >= rules.target_units


def chooses_keeps(rules: Rules) -> bool:
    """Whether a card of the game ranks keeps (the game lets one choose)."""
    return rules.keep_rule == "any" and rules.dice > 1
