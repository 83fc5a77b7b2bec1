"""The play engine as the adapters' engine: a :class:`solver.play.game.Game`
moved by chance outcomes and answers, without advice.

Every adapter (OpenSpiel, PettingZoo, Gymnasium, the referee's exact
evaluation) asks the engine alone what a roll, a keep, a bank, a take-over,
a zero turn, a fall and a final round do; nothing here knows a rule.

* Chance: at the ROLL phase the dice in hand ``n`` are thrown. Outcome
  ``i`` is the ``i``-th distinct roll of :func:`solver.model.dice.rolls`
  (face counts, most 1s first), with its exact multinomial probability
  ``P(c) = n! / (c1! ... c6!) / 6^n``; one chance node per roll, not per
  die.
* Decisions: TAKE (take over or roll fresh), KEEP (which dice, asked only
  where the engine asks: more than one keep and none forced) and BANK
  (bank or roll). A BANK phase where the bank is refused
  (:meth:`~solver.play.game.Game.bank_refusal`: the entry, forced hot
  dice, a final round's mark) has one answer, ``roll``; :func:`settle`
  gives it, so that every decision an adapter shows has two choices or
  more.
* The end: OVER. Player ``i``'s share of the win ``w_i`` is 1 for the
  winner, ``1/k`` for each of ``k`` players who share a final round's win,
  else 0; the return is OpenSpiel's Pig's for ``N`` players,

      r_i = (N w_i - 1) / (N - 1)        (+1 a win, -1/(N-1) a loss),

  zero-sum, and a player's chance of winning is ``(1 + (N - 1) r_i) / N``.

The engine's records for undo are not kept (:func:`clear_history`), and
:class:`NoAdvice` prices no decision: an adapter that wants prices gives
the game a real :class:`solver.advice.advisor.Advisor`.
"""

from __future__ import annotations

import copy
from functools import cache

from solver.model.dice import rolls
from solver.play.game import BANK, KEEP, OVER, ROLL, TAKE, Game

PHASES = (TAKE, ROLL, KEEP, BANK, OVER)
"""The engine's phases, in the order of the observation's one-hot."""


class NoAdvice:
    """An advisor that prices nothing: :meth:`Game.choose` then records no
    decision (the engine asks it at every choice)."""

    def __init__(self, rules):
        self.rules = rules

    def take_or_fresh(self, *position):
        return None

    keep = bank_or_roll = take_or_fresh


def new_game(rules, players: int, advisor=None) -> Game:
    """A game of ``players`` seats at its start (seat 0 to roll), every
    seat answered from outside (no bots)."""
    return Game(advisor or NoAdvice(rules), players)


def copy_game(game: Game) -> Game:
    """An independent copy of ``game`` (its table copied, no undo history;
    rules and advisor shared)."""
    clone = copy.copy(game)
    clone.state = game.state.copy()
    clone.history = []
    return clone


def clear_history(game: Game) -> None:
    """Drop the engine's states kept for undo (an adapter never undoes)."""
    game.history.clear()


@cache
def roll_outcomes(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The chance outcomes of ``n`` dice: ``(sorted dice, probability)``
    per distinct roll, in :func:`solver.model.dice.rolls`' order."""
    return tuple((tuple(face for face, count in zip(range(1, 7), counts) for _ in range(count)),
                  float(prob)) for counts, prob in rolls(n))


def max_chance_outcomes(rules) -> int:
    return len(roll_outcomes(rules.dice))


def is_chance(game: Game) -> bool:
    return game.phase == ROLL


def chance_outcomes(game: Game) -> list[tuple[int, float]]:
    """``(outcome, probability)`` of the roll now due."""
    return [(i, prob) for i, (_, prob) in enumerate(roll_outcomes(game.state.in_hand))]


def apply_roll(game: Game, outcome: int) -> None:
    """The roll now due comes up as chance outcome ``outcome``."""
    game.enter_roll(roll_outcomes(game.state.in_hand)[outcome][0])
    settle(game)


def throw(game: Game, rng) -> int:
    """Throw the roll now due from ``rng`` (a numpy Generator) by the chance
    outcomes' probabilities; the outcome thrown."""
    outcomes = roll_outcomes(game.state.in_hand)
    outcome = int(rng.choice(len(outcomes), p=[prob for _, prob in outcomes]))
    apply_roll(game, outcome)
    return outcome


def apply_answer(game: Game, answer) -> None:
    """The mover's answer (``take``/``fresh``, the dice of a keep,
    ``bank``/``roll``), as :meth:`Game.choose` takes it."""
    game.choose(answer)
    settle(game)


def settle(game: Game) -> None:
    """Give the only answer of a BANK phase whose bank is refused (roll);
    drop the undo history."""
    while game.phase == BANK and game.bank_refusal() is not None:
        game.choose("roll")
    clear_history(game)


def shares(game: Game) -> list[float]:
    """Each seat's share of the win once the game is over (module
    docstring); zeros before."""
    state, N = game.state, game.players
    out = [0.0] * N
    if state.phase != OVER:
        return out
    winners = (state.winner,) if state.winner is not None else tuple(state.holders)
    for seat in winners:
        out[seat] = 1.0 / len(winners)
    return out


def returns(game: Game) -> list[float]:
    """OpenSpiel's Pig's returns for N players (module docstring); zeros
    before the end."""
    N = game.players
    if game.phase != OVER:
        return [0.0] * N
    return [(N * share - 1.0) / (N - 1) for share in shares(game)]


def chance_of_return(ret: float, players: int) -> float:
    """A player's chance of winning from their return (module docstring)."""
    return (1.0 + (players - 1) * ret) / players
