"""The simulator (solver.sim) on Farkle's two rules that the French games
lack: a fall that costs points, scores below 0 down to a floor
(``fall_penalty``), and a final round (``final_round``).

Where each number comes from is said in each test: docs/rules.md
("Penalty", "Final round") for the mechanics, the scores worked out by
hand from the rules' points (farkle-acg2017: a 1 is 100, a 5 50, three 1s
1,000; farkle: three 1s 300, four of a kind 1,000); the one-turn DP of
solver.model.last_turn for the last turn's choices; and the solved table
(``Solution.first_player_win``, solver.engine.two_player.solve) for the
statistical tests, within 3 standard errors.
"""

import dataclasses

import numpy as np
import pytest

from solver.cards.record import Card
from solver.engine.two_player import solve
from solver.model.dice import keeps_of_dice
from solver.model.errors import UsageError
from solver.model.last_turn import last_turn_values
from solver.model.rules import get_rules
from solver.model.states import Line, player_state
from solver.sim.policies import player_states
from solver.sim.simulate import _Machine, match, play_scripted, scripted_events, simulate

ZERO6 = [2, 3, 4, 6, 6, 2]     # no 1, no 5, no triple, two pairs only: a zero roll of 6 dice
ZERO5 = [2, 3, 4, 6, 6]        # the same with 5 dice

# farkle-acg2017 to 1,000, three zero turns in a row lose 500, down to -1,000.
PENALTY = dataclasses.replace(get_rules("farkle-acg2017"), name="penalty-1000", crosses=3,
                              fall_penalty=500, floor=-1000).with_target(1000)
# Farkle's final round, to 1,000 (its 500 entry kept).
FINAL = get_rules("farkle").with_target(1000)


def test_the_zero_rolls_used_below_are_zero_rolls():
    """docs/rules.md's points of farkle-acg2017 and farkle: none of these
    dice scores (farkle's three pairs need three)."""
    for rules in (PENALTY, FINAL):
        assert keeps_of_dice(rules, ZERO6) == () and keeps_of_dice(rules, ZERO5) == ()


def events(game, player=None):
    return [(e["player"], e["outcome"], e["turn_total"], e["score"]) for e in game.events
            if player is None or e["player"] == player]


# ---------------------------------------------------------------- penalty

def test_three_zero_turns_cost_500_and_a_bank_from_below_zero():
    """docs/rules.md "Penalty": A and B each roll three zero rolls in turn;
    each third one takes 500 off 0 (-500, written on the sheet as a fall).
    Then A rolls 1-5-2-3-4-6 (threshold keeps the most points, 1 and 5:
    150) and 1-5-2-3 (150 more): 300, banked from -500 to -200."""
    dice = ZERO6 * 6 + [1, 5, 2, 3, 4, 6] + [1, 5, 2, 3]
    game = play_scripted(PENALTY, "threshold:300", "threshold:300", dice, turns=7)
    assert events(game, "A") == [("A", "zero", 0, 0)] * 3 + [("A", "fall", 0, -500),
                                                             ("A", "bank", 300, -200)]
    assert events(game, "B") == [("B", "zero", 0, 0)] * 3 + [("B", "fall", 0, -500)]
    assert game.sheets == ([-500, -200], [-500])
    assert game.scores == (-200, -500) and game.crosses == (0, 0) and game.winner is None


def test_at_the_floor_nothing_is_lost_and_a_fall_stops_there():
    """docs/rules.md "Penalty": a player at the floor (-1,000) has nothing
    to lose and keeps no crosses: A's three zero turns there change
    nothing; B's third from -700 falls 500, but not below the floor
    (-1,000). A then banks 300 (as above) from the floor: -700."""
    dice = ZERO6 * 6 + [1, 5, 2, 3, 4, 6] + [1, 5, 2, 3]
    game = play_scripted(PENALTY, "threshold:300", "threshold:300", dice, turns=7,
                         start=(-1000, -700))
    assert events(game, "A") == [("A", "zero", 0, -1000)] * 3 + [("A", "bank", 300, -700)]
    assert events(game, "B") == [("B", "zero", 0, -700)] * 3 + [("B", "fall", 0, -1000)]
    assert game.sheets == ([-1000, -700], [-700, -1000]) and game.crosses == (0, 0)


def test_a_start_below_the_floor_is_refused():
    with pytest.raises(UsageError, match="not below the floor -1000"):
        play_scripted(PENALTY, "random", "random", ZERO6, turns=1, start=(-1050, 0))


# A small penalty game for the table: farkle-acg2017 to 500, every zero
# turn a fall of 200 (crosses 1), down to -400; solved in about a second.
SMALL_PENALTY = dataclasses.replace(get_rules("farkle-acg2017"), name="penalty-500", crosses=1,
                                    fall_penalty=200, floor=-400).with_target(500)


@pytest.fixture(scope="module")
def small_penalty():
    return solve(SMALL_PENALTY)


def test_lines_below_zero_map_to_their_own_states(small_penalty):
    """The line maps have a row per score from the floor (numba does not
    check bounds: an index of score -400 itself would read the row of
    score 100 from the end, the array's rows being -400 .. 450). Every
    row is the state solver.model.states.player_state gives its line, and
    in a scripted game B, playing the table from below 0, asks for exactly
    the turn starts of its lines and A's."""
    rules, solution = SMALL_PENALTY, small_penalty
    state_of, _ = player_states(rules, solution.space)
    assert state_of.shape == (18, 1, 1)                 # -400 .. 450, units of 50
    for row in range(18):
        score = (row - 8) * 50
        assert state_of[row, 0, 0] == player_state(rules, solution.space, Line(score, 0),
                                                   "A")[0]
    # A (threshold:300) banks 300 (1-5, then 1-5) and falls with B, who
    # only rolls zero rolls: B at 0, -200, -400 (the floor), -400.
    dice = [1, 5, 2, 3, 4, 6, 1, 5, 2, 3] + ZERO6 + ZERO6 + ZERO6 + ZERO6 + ZERO6 + ZERO6 \
        + ZERO6
    machine = _Machine(rules, "threshold:300", "optimal", 0, solution_b=solution, max_turns=8,
                       script=dice, log_size=32)
    machine.run(1)
    log = [(e["player"], e["outcome"], e["score"])
           for e in scripted_events(machine.games, rules.unit)]
    assert log == [("A", "bank", 300), ("B", "zero", 0), ("B", "fall", -200),
                   ("A", "zero", 300), ("A", "fall", 100), ("B", "zero", -200),
                   ("B", "fall", -400), ("A", "zero", 100), ("A", "fall", -100),
                   ("B", "zero", -400), ("A", "zero", -100), ("A", "fall", -300),
                   ("B", "zero", -400)]
    cache, space = machine.seat_cache[1], solution.space
    turn_starts = [(0, 300), (-200, 100), (-400, -100), (-400, -300)]     # (B, A)
    expected = {cache.key(space.find(b // 50, None, 0), space.find(a // 50, None, 0), -1)
                for b, a in turn_starts}
    hash_keys = machine.index.hash_keys
    assert set(hash_keys[hash_keys >= 0].tolist()) == expected


def test_optimal_self_play_matches_the_penalty_table(small_penalty):
    """The table's first-player chance within 3 standard errors of 40,000
    games, 44% of which go below 0 (measured with this seed's log)."""
    result = simulate(SMALL_PENALTY, "optimal", "optimal", 40_000, seed=12,
                      solution=small_penalty, keep_winners=True)
    assert result.unfinished == 0 and result.shared == 0
    assert abs(result.win_rate_a - small_penalty.first_player_win) < 3 * result.stderr


# ------------------------------------------------------------ final round

def test_past_the_target_then_the_last_turn_passes():
    """docs/rules.md "Final round": A at 900 (threshold:400) keeps 1-1-1-5
    of 1-1-1-5-2-3 (350: 1,250, past the target, the turn goes on), then
    the 5 of 5-2 (400) and banks 1,300. B at 900 has one last turn to pass
    it: 1-1-1-1-2-3 keeps the four 1s (1,000: 1,900), which passes and
    ends the game at once."""
    dice = [1, 1, 1, 5, 2, 3] + [5, 2] + [1, 1, 1, 1, 2, 3]
    game = play_scripted(FINAL, "threshold:400", "expected", dice, turns=4, start=(900, 900))
    assert events(game) == [("A", "bank", 400, 1300), ("B", "win", 1000, 1900)]
    assert game.winner == "B" and game.dice_used == 14


def test_every_policy_banks_where_the_tables_end():
    """The tables of a final round hold turn totals up to target + E
    (E = 16,400 points in farkle: solver.model.last_turn.past_target_units,
    docs/rules.md), and the simulator banks there, as the table's turn DP
    does: A at 900 with threshold:100000 (which never banks by itself)
    keeps 1-1-1-1-5-5 (four of a kind with a pair, 1,500, hot dice) eleven
    times, 16,500: 17,400 = 1,000 + 16,400, and banks. B's last turn
    scores nothing."""
    dice = [1, 1, 1, 1, 5, 5] * 11 + ZERO6
    game = play_scripted(FINAL, "threshold:100000", "expected", dice, turns=2,
                         start=(900, 900))
    assert events(game) == [("A", "bank", 16_500, 17_400), ("B", "zero", 0, 900)]
    assert game.winner == "A"


def test_the_last_turn_ties_and_shares_the_win():
    """B at 900 against 1,300 keeps 1-1-1-5-5 of 1-1-1-5-5-2 (400: equal)
    with one die left: the one-turn DP (solver.model.last_turn) rates that
    keep best (banking it is worth 1/2) and banks, since one die scores
    with chance 1/3 < 1/2. The win is shared; B's sheet reads 1,300."""
    values = last_turn_values(FINAL, 8, tie=0.5)
    assert values[0, 1] == 0.5 and values[8 - 7, 2] < 0.5 and values[8 - 2, 5] < 0.5
    dice = [1, 1, 1, 5, 2, 3] + [5, 2] + [1, 1, 1, 5, 5, 2]
    game = play_scripted(FINAL, "threshold:400", "threshold:300", dice, turns=4,
                         start=(900, 900))
    assert events(game, "B") == [("B", "tie", 400, 1300)]
    assert game.winner == "shared" and game.sheets[1] == [900, 1300]


@pytest.fixture(scope="module")
def small_final():
    return solve(FINAL)


def test_the_last_turn_fails_and_the_other_wins(small_final):
    """B at 900 against 1,300, playing the table (whose last turn is the
    one-turn DP), keeps the 5 of 5-2-3-4-6-6 (the only keep) and rolls
    five dice that score nothing: A wins."""
    dice = [1, 1, 1, 5, 2, 3] + [5, 2] + [5, 2, 3, 4, 6, 6] + ZERO5
    game = play_scripted(FINAL, "threshold:400", "optimal", dice, turns=4, start=(900, 900),
                         solution=small_final)
    assert events(game, "B") == [("B", "zero", 50, 900)]
    assert game.winner == "A" and game.scores == (1300, 900)


def test_optimal_self_play_matches_the_final_round_table(small_final):
    """The table's first-player chance (a tie counted half, as the table
    counts it) within 3 standard errors of 40,000 games, of which some are
    shared (measured: about 1%)."""
    result = simulate(FINAL, "optimal", "optimal", 40_000, seed=13, solution=small_final)
    assert result.unfinished == 0 and result.shared > 100
    assert result.wins_a + result.wins_b + result.shared == 40_000
    assert abs(result.win_rate_a - small_final.first_player_win) < 3 * result.stderr


def test_a_shared_game_counts_half_in_matches(small_final):
    """match: a shared game is half a win to either player, in both seatings."""
    result = match(FINAL, "optimal", "random", 2000, seed=5, solution=small_final)
    for run in (result.first, result.second):
        assert run.shared == int(np.sum(run.winners == 2)) > 0
    assert result.win_first == pytest.approx(((result.first.winners == 0)
                                              + 0.5 * (result.first.winners == 2)).mean())
    assert result.win_second == pytest.approx(((result.second.winners == 1)
                                               + 0.5 * (result.second.winners == 2)).mean())


def test_a_card_in_a_final_round_evaluated_exactly_and_simulated(small_final, monkeypatch):
    """The exact evaluation of a policy with a final round
    (solver.cards.seat_value): the table played as a policy gives the
    table's own chances; a card banks past the target by its lead
    (``past_lead``), plays its own last turn by the one-turn DP, and its
    chance as first player is the simulator's within 4 standard errors
    of 40,000 games, with a lead of 700 (2,700 with all six dice) and
    with none (the bank on reaching the target: 3.6 points less here)."""
    from solver.cards import store as card_store
    from solver.cards.seat_value import card_seat_values
    from solver.cards.text import card_text
    first = small_final.first_player_win
    assert card_seat_values(small_final, None) == pytest.approx([first, 1 - first], abs=1e-12)
    card = Card(FINAL.name, (250, 250, 250, 450, 500, 500), open_at=500,
                left_worth=(50, 100, 150, 200, 250, 300), past_lead=700, past_lead_all=2700)
    at_once = dataclasses.replace(card, past_lead=0, past_lead_all=0)
    exact = {c: card_seat_values(small_final, c)[0] for c in (card, at_once)}
    assert exact[card] > exact[at_once] + 0.03
    for played in (card, at_once):
        monkeypatch.setattr(card_store, "card_for", lambda rules, c=played: (c, None, {}))
        result = simulate(FINAL, "card", "optimal", 40_000, seed=3, solution=small_final)
        assert abs(result.win_rate_a - exact[played]) <= 4 * result.stderr
    # In its own last turn the card plays the one-turn odds (advise --card):
    # at an equal total with one die, the bank (1/2) before the roll (1/3).
    from solver.advice.advisor import Advisor
    from solver.cards.sheet import card_answer
    advice = Advisor(small_final).bank_or_roll(900, 1200, 300, 1)
    assert card_answer(card, FINAL, advice, 900, [1200], 300, 1)["action"] == "bank"
    text = card_text(card, FINAL)
    assert "Past 1,000: bank once you lead by 700 (2,700 with all 6 dice to roll)" in text
    assert "Your last turn (the other player banked at or past 1,000): roll until" in text
    assert "Past 1,000: bank at once" in card_text(at_once, FINAL)
