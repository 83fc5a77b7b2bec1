"""The bots of ``farkle play``: a policy of ``farkle simulate`` answering one
decision of a :class:`solver.play.game.Game` at a time.

``optimal`` plays the exact advice's best choice; ``card`` the game's
strategy card (:mod:`solver.cards.card`); ``threshold:X`` and
``expected`` read the decision tables of :mod:`solver.sim.policies` (the value
of a keep, bank, take over) with the simulator's keep order and its two
guards; ``random`` tosses coins from its own generator, so that a seed's
dice do not depend on the bot.

A final round is played as the simulator plays it
(:mod:`solver.sim.final_round`): ``threshold:X`` and ``expected`` go on
past the target by their tables, bank by decree where the tables end, and
play the last turn as the optimal bot does (its best chance to pass);
``card`` banks past the target by its own rule and plays its last turn so
too, as its text says; ``random`` tosses its coins there too.
"""

from __future__ import annotations

import numpy as np

from solver.model.dice import Keep
from solver.model.turn_rules import (
    OVERSHOOT,
    WIN,
    bank_changes_nothing,
    dice_left,
    keep_result,
    offer_only_overshoots,
)
from solver.play.game import KEEP, TAKE, Game, best_choice
from solver.sim.policies import Policy, fixed_tables


def make_bots(policies: dict, rules, seed: int | None = None, players: int = 2) -> dict:
    """The bots of a :class:`Game` of ``seed``: seat -> bot of that seat's
    policy. The random bot's coin has its own stream, so the dice of a
    seed do not depend on who plays."""
    choice_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    return {seat: make_bot(policy, rules, choice_rng, players) for seat, policy in policies.items()}


def make_bot(policy: Policy, rules, rng, players: int = 2):
    if policy.kind == "optimal":
        return OptimalBot()
    if policy.kind == "random":
        return RandomBot(rng)
    if policy.kind == "card":
        return CardBot(rules, players)
    return TableBot(policy, rules)


class CardBot:
    """The game's strategy card (the one fitted for ``players`` where one
    is stored), with the simulator's two guards."""

    def __init__(self, rules, players: int = 2):
        from solver.cards.store import card_for
        self.card = card_for(rules, players)[0].compiled(rules)

    def answer(self, game: Game):
        from solver.cards.sheet import card_bank, card_keep, card_take
        state, rules = game.state, game.rules
        if state.to_pass is not None:       # a last turn: the card says play the best chance
            return OptimalBot().answer(game)
        me = game.line(state.mover)
        opponents = [game.line(seat) for seat in range(game.players) if seat != state.mover]
        if game.phase == TAKE:
            return "take" if card_take(self.card, rules, me, opponents, *state.offer) \
                else "fresh"
        if game.phase == KEEP:
            return card_keep(self.card, rules, me, opponents, state.turn_total, state.in_hand,
                             game.options()).dice
        banks = card_bank(self.card, rules, me, opponents, state.turn_total, state.in_hand)
        return "bank" if banks else "roll"


class OptimalBot:
    """The best choice of the exact advice."""

    def answer(self, game: Game):
        advice = game.advice()
        if advice is None:                  # no bank allowed: roll on
            return "roll"
        best = best_choice(advice)
        return tuple(best.keep) if best.action == "keep" else best.action


class RandomBot:
    """Every legal keep alike; bank, take over with probability 1/2."""

    def __init__(self, rng):
        self.rng = rng

    def answer(self, game: Game):
        if game.phase == KEEP:
            options = game.options()
            return options[int(self.rng.integers(len(options)))].dice
        coin = bool(self.rng.integers(2))
        if game.phase == TAKE:
            return "take" if coin else "fresh"
        return "bank" if coin and game.bank_refusal() is None else "roll"


class TableBot:
    """A table policy of :mod:`solver.sim.policies` (threshold:X, expected):
    keep the argmax of its value after the keep, bank and take where its
    tables say so, with the policies' two guards."""

    def __init__(self, policy: Policy, rules):
        self.value, self.bank, self.take, self.overshoot_value, self.win_value = \
            fixed_tables(policy, rules)
        self.guards = policy.guards

    def answer(self, game: Game):
        state, turn = game.state, game.turn
        if state.to_pass is not None:       # a final round's last turn: the best chance
            return OptimalBot().answer(game)
        score = game.units(state.lines[state.mover].score)
        if game.phase == TAKE:
            total, dice = game.units(state.offer[0]), state.offer[1]
            hopeless = offer_only_overshoots(turn, score, total)
            return "take" if self.take[total, dice] and not (self.guards and hopeless) \
                else "fresh"
        total = game.units(state.turn_total)
        if game.phase == KEEP:
            # The simulator's order: an instant win, the most points, the fewest dice.
            ordered = sorted(game.options(), key=lambda k: (not k.win, -k.points, k.used))
            return max(ordered, key=lambda k: self._keep_value(game, score, total, k)).dice
        if game.bank_refusal() is not None:
            return "roll"
        if turn.final_round and score + total >= turn.rows + turn.floor:
            return "bank"                   # where the tables end (final_round's decree)
        standstill = bank_changes_nothing(turn, score, total)
        banks = self.bank[total, state.in_hand] and not (self.guards and standstill)
        return "bank" if banks else "roll"

    def _keep_value(self, game: Game, score: int, total: int, keep: Keep) -> float:
        after = total + game.units(keep.points)
        result = keep_result(game.turn, score, after, keep.win)
        if result == WIN:
            return self.win_value
        if result == OVERSHOOT:
            return self.overshoot_value
        return self.value[after, dice_left(game.turn, game.state.in_hand, keep.used)]
