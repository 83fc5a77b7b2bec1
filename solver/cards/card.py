"""Strategy cards: optimal play a person can remember.

A card is a few whole numbers of points (:class:`solver.cards.record.Card`),
fitted to a game's table (``scripts/fit_cards.py``), and a rule that uses
them with mental arithmetic, written here once.
For the player in state (score ``s``, crosses), against the opponent's
score ``o`` (with more players: the leader's), holding turn total ``t``
with ``n`` dice in hand, the first of these rules that applies decides:

    not entered:          (s = 0 in a game with an entry) no bank below open_at
    past the target:      (a final round) bank once s + t - o >= past_lead
                          (past_lead_all with every die in hand); the
                          other player then has one last turn to pass
                          it, and the card's own last turn is played by
                          the one-turn odds (solver.model.last_turn)
    racing:               either player within race_within of the target:
                          no bank short of it (roll on to the target)
    leaving too little:   below leave_unless set aside (if set), no bank
                          that leaves less than leave_at_least to go, or
                          lone_die_leaves with one die in hand (if set: a
                          lone die rarely finishes, so its bank may leave
                          less), crossed_two_dice_leaves with two dice
                          and a cross (if set: a zero turn would cost a
                          cross too). To an exact target a remainder of 50
                          wants a lone 5, all the other dice blank; past a
                          cap the bank keeps only the points up to it,
                          while a roll plays on for the win
    finishing:            to an exact target, bank once finish_from <=
                          target - s - t <= finish_within (with at most
                          finish_dice dice in hand, if set; with a cross,
                          crossed_finish_dice), or where
                          target - s - t is 500, 1,500, ... up to
                          five_hundreds_within (with at most
                          five_hundreds_dice dice, if set: three 5s or a
                          straight make it), unless the
                          other player is within finish_yields_within of
                          the target (if set), or, with offer_dice dice or
                          more, may take over to within
                          finish_unless_within of it (if set); on the last
                          cross before a fall, last_cross_offer_dice
                          stands for offer_dice here and below (if set)
    offering the finish:  no bank with offer_dice dice or more in hand
                          that the other player may take over to within
                          offer_within of the target (o + t short of it by
                          that much or less: they take it and finish);
                          with fewer dice, but two or more, from
                          offer_fewer_from to offer_fewer_within (a lone
                          die's offer is seldom taken)
    offering the leader:  no bank with offer_dice dice or more in hand
                          from lead_offer_from to lead_offer_to (if set)
                          where the other player leads by lead_offer_behind
                          or more, may take over and is more than
                          lead_offer_far from the target: a leader who
                          takes over a good offer runs away with the game
    otherwise:            bank once t >= row[n] + shift
    row   = chase_bank   if target - o <= chase_within or o - s >= chase_behind
                         (the other player's end is near, or they lead by
                         much: a row of its own, as optimal play's bank
                         with three dice jumps, not shifts, there)
            home_bank    else if target - s <= home_within (the player's
                         own end is near: a bank that leaves little to go
                         must keep enough to be worth the wait)
            safe_bank    else if the game has take-over and the other
                         player may not take over (their score is short
                         of the game's minimum for it): an offer is no
                         gift, so the card banks sooner
            bank         otherwise
    shift = behind * trunc((o - s) / gap_step)         (less when ahead)
          - last_cross     on the last cross before a fall

A keep (where the game lets one choose) is the one with the most
``points + left_worth[k]`` (``+ bank_keep_worth`` when the card banks
after it; before the player enters, ``+ entry_die * k`` where the turn
total after it is short of the entry, ``+ entry_reach`` where it is not),
``k`` the dice it leaves to roll (all of them after hot dice;
``left_worth`` is 0 where the card has none; ``leader_worth`` instead for
a player who leads; ``late_worth`` instead, whoever leads, once the turn
total before the roll is ``late_from`` or more; ``chase_worth`` instead of
them all, where the card has it, wherever the chase row applies), or the
most points alone once the turn total before the roll is
``most_points_from`` or more (where set, ``chase_most_points_from`` where
the chase row applies, else ``lead_most_points_from`` for a player who
leads: one who must catch up banks late and needs dice, a leader banks
soon). Where hot
dice must be rolled, a keep of every die that brings the turn total ``a``
to ``hot_dice_from`` or more counts ``hot_dice_cost`` less per 1,000 of
``a``: all of it rides on the forced roll, where a keep of fewer dice may
bank. Near an exact target what is left to go matters
more than the dice: a keep that leaves ``r <= end_within`` to go counts
``points + end_bonus + end_die * k - odd_fifty * [r needs a 5]`` instead
(leaving 100 beats leaving 50: a lone 1 or two 5s finish it, where 50
wants a 5). Of two keeps ranked alike, the one that leaves more dice; a keep
that wins first and one that overshoots an exact target last. An offer
of ``t`` with ``n`` dice is taken when ``take_at > 0`` and
``t + take_die * n >= take_at``; a lone die, where ``take_one_at > 0``,
only from ``t >= take_one_at`` (it mostly misses: the line through the
offers of more dice takes it far too soon), or from ``take_one_behind``
when the other player (the leader) is ``take_one_behind_by`` or more
ahead (a player who trails must gamble) and, where set, within
``take_one_behind_within`` of the target (far from it there is time to
catch up), and before either from
``take_one_chasing`` when the other player is within ``chase_within``
of the target (they may finish next turn). On the last cross before a
fall every take wants ``last_cross_take_more`` more (``t`` counts that
much less). To an exact target an offer
that leaves ``r`` to go is taken also where ``r`` = 100, or
``100 <= r <= take_finish_within`` with ``take_finish_dice`` dice or more
offered (where set). Where the rules forbid a bank
(the entry, forced hot dice) or a bank would leave the score where it is
(at a cap short of the target), the card rolls on; it takes no offer from
which every keep overshoots.

The functions below are plain Python over a :class:`CardRules` record (units)
so that the compiled evaluation (:mod:`solver.cards.seat_kernel`) wraps them with
numba and the simulator's card policy calls them as they are: the card's
rule is written once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.model.states import LAST_CROSS, NO_CROSS
from solver.model.turn_rules import (
    OVERSHOOT,
    WIN,
    bank_changes_nothing,
    keep_result,
    may_bank,
    may_take_over,
    offer,
    offer_only_overshoots,
)


class CardRules(NamedTuple):
    """A card in units, for the compiled evaluation: ``bank[n]`` for n = 0..D
    (index 0 unused)."""
    bank: np.ndarray
    left_worth: np.ndarray
    """``left_worth[k]``: a keep's worth of ``k`` dice left to roll (index 0
    unused)."""
    behind: int
    gap_step: int
    chase_within: int
    chase_bank: np.ndarray
    """The bank row once the other player is within ``chase_within`` of the
    target or leads by ``chase_behind`` (``bank`` itself where the card has
    none)."""
    chase_behind: int
    """0: the row is not for a lead."""
    home_within: int
    home_bank: np.ndarray
    """The bank row once the player is within ``home_within`` of the target
    (0: never), where ``chase_bank`` does not apply."""
    safe_bank: np.ndarray
    """The bank row where the other player may not take over, where
    ``chase_bank`` and ``home_bank`` do not apply (``bank`` itself where
    the card has none)."""
    open_at: int
    late_from: int
    """From this turn total (before the roll) dice left are worth
    ``late_worth``; 0: never."""
    late_worth: np.ndarray
    """``left_worth`` from ``late_from`` (``left_worth`` itself where the
    card has none)."""
    most_points_from: int
    """From this turn total (before the roll) dice left are worth nothing;
    0: never."""
    chase_most_points_from: int
    """``most_points_from`` where ``chase_bank`` applies (0: the same)."""
    lead_most_points_from: int
    """``most_points_from`` for a player who leads, where ``chase_bank``
    does not apply (0: the same)."""
    take_at: int
    take_die: int
    take_one_at: int
    take_one_behind: int
    """0: ``take_one_at`` however far behind."""
    take_one_behind_by: int
    last_cross: int
    finish_within: int
    finish_from: int
    finish_yields_within: int
    """0: the finish however near the other player is."""
    finish_dice: int
    """Dice in hand, not units; 0: any."""
    crossed_finish_dice: int
    """``finish_dice`` with a cross and a fall ahead (``finish_dice`` itself
    where the card has none)."""
    race_within: int
    leave_at_least: int
    bank_keep_worth: float
    """In units, as ``left_worth``: not rounded."""
    end_within: int
    """To an exact target: a keep leaving this much or less to go is ranked
    by the end rule (:func:`keep_score`); 0: never."""
    end_die: float
    odd_fifty: float
    end_bonus: float
    """In units, as ``left_worth``."""
    hot_dice: int
    """The dice a hot-dice keep leaves to roll where they must be rolled
    and the card prices that (:func:`keep_score`); 0: no such rule."""
    hot_dice_from: int
    hot_dice_cost: float
    """A share of the turn total after the keep, not units."""
    hundred: int
    """100 points in units: a remainder that is no multiple of it needs a 5."""
    leave_unless: int
    """0: ``leave_at_least`` at any turn total."""
    lone_die_leaves: int
    """``leave_at_least`` with one die in hand (``leave_at_least`` itself
    where the card has none)."""
    crossed_two_dice_leaves: int
    """``leave_at_least`` with two dice in hand, a cross and a fall ahead
    (``leave_at_least`` itself where the card has none)."""
    offer_within: int
    """0: no such rule."""
    offer_dice: int
    """Dice in hand, not units."""
    last_cross_offer_dice: int
    """``offer_dice`` on the last cross before a fall (``offer_dice``
    itself where the card has none)."""
    offer_fewer_within: int
    """0: no such rule."""
    finish_unless_within: int
    """0: the finish whatever offer it makes."""
    take_finish_within: int
    """0: no such rule."""
    take_finish_dice: int
    """Dice offered, not units."""
    offer_fewer_from: int
    """The fewer-dice offer window starts at this remainder (0: at any)."""
    five_hundreds_within: int
    """0: no such rule."""
    five_hundreds_dice: int
    """Dice in hand, not units; 0: any."""
    take_one_chasing: int
    """0: no such rule."""
    last_cross_take_more: int
    """0 where the game has no crosses."""
    lead_offer_behind: int
    """0: no such rule."""
    lead_offer_from: int
    lead_offer_to: int
    lead_offer_far: int
    entry_die: float
    entry_reach: float
    """In units, as ``left_worth``; 0: no such rule."""
    take_one_behind_within: int
    """0: ``take_one_behind`` however far the leader is from the target."""
    leader_worth: np.ndarray
    """``left_worth`` for a player who leads (``left_worth`` itself where
    the card has none)."""
    chase_worth: np.ndarray
    """``left_worth`` where the chase row applies, whatever the turn total;
    empty where the card has none (the other rows hold there)."""
    past_lead: int
    """With a final round, past the target: bank once the lead the bank
    leaves is this or more (0: on reaching the target; 0 without a final
    round)."""
    past_lead_all: int
    """``past_lead`` with every die in hand."""

    def typed(self) -> "CardRules":
        """These rules with every number of the type its field declares: a
        ``0`` where a float is declared would make numba compile the card's
        kernels again, for an int (the seat evaluation's take a minute)."""
        return self._replace(**{name: _NUMBERS[kind](value)
                                for name, kind, value in zip(self._fields, _KINDS, self)
                                if kind in _NUMBERS})


_NUMBERS = {"int": int, "float": float}
_KINDS = [getattr(kind, "__forward_arg__", kind) for kind in CardRules.__annotations__.values()]
"""Each field's declared type, as written (``int``, ``float``, ``np.ndarray``)."""


def threshold_shift(card, score, opponent, crossed):
    """What the situation adds to every bank threshold (units); ``crossed``
    is the player's crosses as :func:`solver.model.states.cross_state` reads
    them."""
    gap = opponent - score
    steps = gap // card.gap_step if gap >= 0 else -((-gap) // card.gap_step)
    shift = card.behind * steps
    if crossed == LAST_CROSS:
        shift -= card.last_cross
    return shift


def card_situation(card, score, opponent, crossed):
    """``(shift, crossed, score, opponent)``: the situation arguments of
    :func:`card_banks` and :func:`keep_rank` at one turn start, the shift
    computed once for all its decisions."""
    return threshold_shift(card, score, opponent, crossed), crossed, score, opponent


def card_banks(card, turn_rules, shift, crossed, score, opponent, turn_total, in_hand):
    """True where the card banks: by its rule, where the rules allow a bank
    (``turn_rules``: a :class:`TurnRules`) and the bank changes the score;
    ``shift`` is :func:`threshold_shift`'s, for the same ``crossed``."""
    target = turn_rules.target
    if not may_bank(turn_rules, score, turn_total, in_hand) or \
            bank_changes_nothing(turn_rules, score, turn_total):
        return False
    if score == 0 and turn_total < card.open_at:
        return False
    if turn_rules.final_round and score + turn_total >= target:
        # Past the target the other player has one last turn to pass the
        # bank: the lead it leaves is what it is worth.
        lead = score + turn_total - opponent
        return lead >= (card.past_lead_all if in_hand == turn_rules.dice else card.past_lead)
    if card.race_within > 0 and target - max(score, opponent) <= card.race_within:
        return False
    left = target - score - turn_total
    # A zero turn costs a cross too: a bank near the end may leave less.
    leave_at_least = card.lone_die_leaves if in_hand == 1 else \
        card.crossed_two_dice_leaves if in_hand == 2 and crossed != NO_CROSS else \
        card.leave_at_least
    if left < leave_at_least and (card.leave_unless == 0 or turn_total < card.leave_unless):
        return False
    # Dice enough for the offer rule; on the last cross a roll risks the
    # fall too, so an offer of as many dice may be worth making.
    offering = in_hand >= (card.last_cross_offer_dice if crossed == LAST_CROSS
                           else card.offer_dice)
    finish_dice = card.crossed_finish_dice if crossed != NO_CROSS else card.finish_dice
    finishing = card.finish_within > 0 and (finish_dice == 0 or in_hand <= finish_dice) and \
        card.finish_from <= left <= card.finish_within
    # 500, 1,500, ...: three 5s or a straight make what is left.
    five_hundreds = card.five_hundreds_within > 0 and left <= card.five_hundreds_within and \
        left % (10 * card.hundred) == 5 * card.hundred and \
        (card.five_hundreds_dice == 0 or in_hand <= card.five_hundreds_dice)
    if turn_rules.exact and (finishing or five_hundreds) and \
            not (card.finish_yields_within > 0 and
                 target - opponent <= card.finish_yields_within) and \
            not (offering and offers_finish(turn_rules, opponent, turn_total, in_hand,
                                            0, card.finish_unless_within)):
        return True
    if offering:
        window_from, window = 0, card.offer_within
    else:
        window_from, window = card.offer_fewer_from, card.offer_fewer_within if in_hand > 1 else 0
    if offers_finish(turn_rules, opponent, turn_total, in_hand, window_from, window):
        return False
    if offering and offers_the_leader(card, turn_rules, score, opponent, turn_total):
        return False
    home = card.home_within > 0 and target - score <= card.home_within
    row = card.chase_bank if chasing(card, target, score, opponent) else \
        card.home_bank if home else \
        card.bank if may_take_over(turn_rules, opponent) else card.safe_bank
    return turn_total >= row[in_hand] + shift


def chasing(card, target, score, opponent):
    """Whether the card's chase row applies: the other player is within
    ``chase_within`` of the target, or leads by ``chase_behind``."""
    return (card.chase_within > 0 and target - opponent <= card.chase_within) or \
        (card.chase_behind > 0 and opponent - score >= card.chase_behind)


def points_from(card, target, score, opponent):
    """The turn total from which the card keeps the most points at a turn
    start (``most_points_from``, or its chase or lead value where that
    applies and is set); 0: never."""
    if chasing(card, target, score, opponent):
        other = card.chase_most_points_from
    elif score > opponent:
        other = card.lead_most_points_from
    else:
        other = 0
    return other if other > 0 else card.most_points_from


def offers_finish(turn_rules, opponent, turn_total, in_hand, least, within):
    """Whether a bank of ``turn_total`` with ``in_hand`` dice offers the
    other player a take-over that leaves them ``least`` to ``within`` to go
    (``within`` 0: never), as its taker sees it: the same checks as
    :func:`card_takes`."""
    return within > 0 and least <= turn_rules.target - opponent - turn_total <= within and \
        offer(turn_rules, in_hand) > 0 and may_take_over(turn_rules, opponent) and \
        not offer_only_overshoots(turn_rules, opponent, turn_total)


def offers_the_leader(card, turn_rules, score, opponent, turn_total):
    """Whether a bank of ``turn_total`` (with dice enough to make an offer)
    is one the card does not offer a leader: the other player leads by
    ``lead_offer_behind`` or more (0: never), may take over, is more than
    ``lead_offer_far`` from the target, and the total is from
    ``lead_offer_from`` to ``lead_offer_to``."""
    return card.lead_offer_behind > 0 and opponent - score >= card.lead_offer_behind and \
        may_take_over(turn_rules, opponent) and \
        turn_rules.target - opponent > card.lead_offer_far and \
        card.lead_offer_from <= turn_total <= card.lead_offer_to


def keep_score(card, most_points_from, turn_total, units, dice_after, banks_after, to_go,
               not_entered, leading, chasing):
    """How the card ranks a keep of ``units`` points from ``turn_total``
    that neither wins nor overshoots, leaving ``to_go`` to an exact target
    (anything past ``end_within`` elsewhere), after which the card banks
    where ``banks_after`` (a bool, or an array of them, as ``to_go``), by a
    player who has not entered where ``not_entered``, who leads where
    ``leading``, against one near the end where ``chasing`` (the chase
    row's condition, :func:`chasing`); of
    two keeps ranked alike, the one that leaves more dice (the fraction:
    the fitted worths are whole or half units). Within ``end_within`` of the
    target what is left to go matters more than the dice: a die left is
    worth ``end_die`` and a remainder that needs a 5 (50, 150, ...) counts
    ``odd_fifty`` less. A keep of hot dice that must be rolled counts
    ``hot_dice_cost`` of its turn total less from ``hot_dice_from``. From
    ``most_points_from`` (:func:`points_from`; 0: never) the points alone
    rank a keep. Before the entry a keep that leaves the turn total short
    of it counts ``entry_die`` more a die left, one that reaches it
    ``entry_reach`` more."""
    tie_break = dice_after / 1024
    after = turn_total + units
    forced = (dice_after == card.hot_dice) * (after >= card.hot_dice_from) * (card.hot_dice > 0)
    points = units - forced * card.hot_dice_cost * after
    if most_points_from > 0 and turn_total >= most_points_from:
        return points + tie_break
    in_end = (to_go <= card.end_within) * (card.end_within > 0)
    end = card.end_bonus + card.end_die * dice_after - \
        card.odd_fifty * (to_go % card.hundred != 0)
    worth = card.chase_worth if chasing and len(card.chase_worth) > 0 else \
        card.late_worth if 0 < card.late_from <= turn_total else \
        card.leader_worth if leading else card.left_worth
    usual = worth[dice_after] + card.bank_keep_worth * banks_after
    # Before the entry the dice count more until a keep reaches it.
    short = not_entered * (after < card.open_at)
    reached = not_entered * (after >= card.open_at)
    usual += short * card.entry_die * dice_after + reached * card.entry_reach
    return points + in_end * end + (1 - in_end) * usual + tie_break


def keep_rank(card, turn_rules, shift, crossed, score, opponent, turn_total, units,
              dice_after, instant_win):
    """How the card ranks a keep of ``units`` points from ``turn_total``
    leaving ``dice_after`` dice, at the turn start of :func:`card_banks`:
    one that wins first, one that overshoots an exact target last, the
    others by :func:`keep_score`."""
    after = turn_total + units
    result = keep_result(turn_rules, score, after, instant_win)
    if result == WIN:
        return np.inf
    if result == OVERSHOOT:
        return -1e300       # last, yet above the -inf a search for the best starts from
    banks_after = card.bank_keep_worth != 0 and card_banks(
        card, turn_rules, shift, crossed, score, opponent, after, dice_after)
    return keep_score(card, points_from(card, turn_rules.target, score, opponent), turn_total,
                      units, dice_after, banks_after, turn_rules.target - score - after,
                      score == 0, score > opponent,
                      chasing(card, turn_rules.target, score, opponent))


def card_takes(card, turn_rules, crossed, score, opponent, offer_total, offer_dice):
    """Whether the card takes over an offer of ``offer_total`` with
    ``offer_dice`` at ``score`` (``crossed``: the taker's crosses, as
    :func:`solver.model.states.cross_state` reads them) against ``opponent`` (the
    leader of the others, the banker among them): by its rule, and never
    one from which every keep overshoots."""
    target = turn_rules.target
    # On the last cross a take that fails is the fall: it wants more.
    total = offer_total - (card.last_cross_take_more if crossed == LAST_CROSS else 0)
    if card.take_one_chasing > 0 and offer_dice == 1 and card.chase_within > 0 and \
            target - opponent <= card.chase_within:
        takes = total >= card.take_one_chasing
    elif card.take_one_behind > 0 and offer_dice == 1 and \
            opponent - score >= card.take_one_behind_by and \
            (card.take_one_behind_within == 0 or
             target - opponent <= card.take_one_behind_within):
        takes = total >= card.take_one_behind
    elif card.take_one_at > 0 and offer_dice == 1:
        takes = total >= card.take_one_at
    else:
        takes = total + card.take_die * offer_dice >= card.take_at
    # A lone 1 finishes 100 from any dice; more dice finish more.
    left = target - score - offer_total
    finishes = card.take_finish_within > 0 and left >= card.hundred and (
        left == card.hundred or
        (left <= card.take_finish_within and offer_dice >= card.take_finish_dice))
    return card.take_at > 0 and (takes or finishes) and \
        not offer_only_overshoots(turn_rules, score, offer_total)
