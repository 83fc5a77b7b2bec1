"""A final round with three players at the table (issue 67): every other
player has one last turn, in seat order, to pass the highest score
(docs/rules.md, "Final round"); ``farkle play``'s game and bots play it on
the exact table and its advice (solver.advice.final_round)."""

import dataclasses
from functools import lru_cache

from solver.advice.advisor import Advisor
from solver.engine.n_player import solve_players
from solver.model.rules import get_rules
from solver.play.bots import make_bots
from solver.play.game import BANK, KEEP, OVER, ROLL, Game
from solver.sim.policies import parse_policy


@lru_cache(maxsize=None)
def three_players():
    """Farkle on three dice to 300 (the N-player reference's case), solved
    for three players in a second or two."""
    rules = dataclasses.replace(get_rules("farkle-acg2017"), final_round=True, dice=3,
                                entry=150).with_target(300)
    return Advisor(solve_players(rules, 3))


def throw(play, dice, keep=None):
    """Enter a roll and, where it has more than one keep, keep ``keep``
    (every die of it by default)."""
    play.enter_roll(dice)
    if play.phase == KEEP:
        play.choose(tuple(keep or dice))


def reach_the_target(play):
    """Seat 1 throws three 1s (1,000), rolls its hot dice on, keeps a 1 and
    banks 1,100: every other player has a last turn to pass it."""
    throw(play, [1, 1, 1])
    play.choose("roll")
    throw(play, [1, 2, 3])
    events = play.choose("bank")
    assert [(e.kind, e.seat, e.score) for e in events if e.kind != "decision"] == [
        ("bank", 0, 1100), ("last-turn", 1, 1100)]


def test_a_player_before_the_last_may_pass_and_set_a_higher_mark():
    play = Game(three_players(), 3)
    reach_the_target(play)
    throw(play, [1, 1, 1])                      # 1,000: short of 1,100, roll on
    assert play.phase == ROLL and play.state.in_hand == 3
    throw(play, [1, 5, 2], keep=[1, 5])         # 1,150: past it
    assert play.phase == BANK and play.state.turn_total == 1150
    # Not the last to play: the turn goes on past the mark as the player likes.
    assert {c.action for c in play.advice().choices} == {"bank", "roll"}
    events = play.choose("bank")
    assert [(e.kind, e.seat, e.score) for e in events[-2:]] == [
        ("bank", 1, 1150), ("last-turn", 2, 1150)]
    assert play.state.holders == (1,) and play.mover == 2
    events = play.enter_roll([2, 3, 4])         # the last one: a zero roll ends it
    assert play.phase == OVER and play.state.winner == 1
    assert (events[-1].kind, events[-1].seat, events[-1].score) == ("win", 1, 1150)


def test_equal_scores_share_the_win_at_the_end():
    play = Game(three_players(), 3)
    reach_the_target(play)
    throw(play, [1, 1, 1])                      # 1,000: short, roll on
    throw(play, [1, 2, 3])                      # 1,100: equal, banked: a second holder
    events = play.choose("bank")
    assert play.state.holders == (0, 1) and events[-1].kind == "last-turn"
    events = play.enter_roll([2, 3, 4])         # the last one falls short
    assert play.phase == OVER and play.state.winner is None
    assert (events[-1].kind, events[-1].seats) == ("shared", (0, 1))


def test_the_optimal_bots_play_three_player_final_rounds_to_the_end():
    """Games of optimal bots: every decision of a last turn is the advice's
    best (none gives anything up) and the game ends with the highest score."""
    advisor, finals = three_players(), 0
    for seed in range(12):
        bots = make_bots({seat: parse_policy("optimal") for seat in range(3)},
                         advisor.rules, seed, players=3)
        play = Game(advisor, 3, bots, seed)
        while play.phase != OVER:
            play.throw() if play.phase == ROLL else play.bot_move()
        finals += play.state.to_pass is not None
        assert all(d.cost == 0 for d in play.state.decisions)
        top = max(line.score for line in play.state.lines)
        winners = [play.state.winner] if play.state.winner is not None else play.state.holders
        assert all(play.state.lines[seat].score == top for seat in winners)
    assert finals >= 6
