"""The final round (issue 67): reaching the target gives the other player one
last turn to pass the score (``Rules.final_round``, docs/rules.md).

The last turn's chances against a recursion over the die (Pig) and against
the reference solver's own recursion over the rolls (Farkle); the table's
advice past the target and in the last turn against those chances; what is
not played yet says so in one line. (tests/test_reference.py checks whole
games with a final round against the reference solver.)"""

import json
import sys
from functools import lru_cache

import pytest
from conftest import farkle, solved_house
from reference_solver import pass_chances, roll_arrays, tie_chances

from solver.model.last_turn import CAP_CHANCE, last_turn_chance, past_target_units
from solver.model.rules import get_rules


@lru_cache(maxsize=None)
def pig_brings(need: int) -> float:
    """The chance that one turn of Pig brings at least ``need``, rolling
    until it does, die face by die face: a 1 ends the turn, 2 to 6 score."""
    if need <= 0:
        return 1.0
    return sum(pig_brings(need - face) for face in range(2, 7)) / 6


def test_the_last_turn_of_pig_is_the_recursion_over_the_die():
    pig = get_rules("pig")
    must_pass = last_turn_chance(pig, 80, tie=0.0)      # equal is not enough
    may_equal = last_turn_chance(pig, 80, tie=1.0)
    for r in range(81):
        assert must_pass[r] == pytest.approx(pig_brings(r + 1), abs=1e-14)
        assert may_equal[r] == pytest.approx(pig_brings(r) if r else 1.0, abs=1e-14)


def test_the_last_turn_of_farkle_is_the_reference_recursion():
    farkle = get_rules("farkle")
    ours = last_turn_chance(farkle, 120, tie=0.0)
    theirs = pass_chances(farkle, roll_arrays(farkle), 121)
    assert max(abs(ours[r] - theirs[r + 1]) for r in range(121)) < 1e-14
    shared = last_turn_chance(farkle, 120, tie=0.5)         # a tie shares the win
    assert max(abs(shared - tie_chances(farkle, roll_arrays(farkle), 120))) < 1e-14
    # The turn DP banks E units past the target: one turn brings E with a
    # chance of at most 1e-8, and E - 1 with more.
    past = past_target_units(farkle)
    brings = last_turn_chance(farkle, past, tie=1.0)
    assert brings[past] <= CAP_CHANCE < brings[past - 1]


HOUSE = 'base = "farkle"\nname = "farkle-small"\ntarget = 1000\n'


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    """The house file and the environment that reads its table."""
    return solved_house(tmp_path_factory.mktemp("final"), HOUSE)


def advise(house, *args):
    rules, env = house
    answer = farkle("advise", "--rules", rules, *args, "--json", env=env)
    assert answer.returncode == 0, answer.stderr
    return json.loads(answer.stdout)


def last_turn_chance_by_reference(gap_points: int) -> float:
    """The reference recursion's last turn that must pass a score
    ``gap_points`` ahead, a tie shared (no minimum bank in play)."""
    farkle = get_rules("farkle")
    gap = gap_points // farkle.unit
    return float(tie_chances(farkle, roll_arrays(farkle), gap)[gap])


def test_past_the_target_a_bank_is_worth_the_other_failing(house):
    # At 900 with 300 set aside: banking 1,200 leaves the other, at 600,
    # one turn to pass it (600 more shares the win).
    data = advise(house, "--me", 900, "--opp", 600, "--turn", 300, "--dice", 2)
    bank = [c for c in data["choices"] if c["action"] == "bank"][0]
    assert bank["win"] == pytest.approx(1 - last_turn_chance_by_reference(600), abs=1e-12)
    roll = [c for c in data["choices"] if c["action"] == "roll"][0]
    assert data["action"] == ("bank" if bank["win"] >= roll["win"] else "roll")


def test_in_the_last_turn_the_chance_is_to_pass(house):
    # They banked 1,350; at 400 with 600 set aside and 3 dice, I need 400 more.
    data = advise(house, "--me", 400, "--opp", 1350, "--turn", 600, "--dice", 3)
    assert data["position"]["last_turn"] is True
    assert data["action"] == "roll"
    farkle = get_rules("farkle")
    from solver.model.last_turn import last_turn_values
    values = last_turn_values(farkle, 20, tie=0.5)
    assert data["win"] == pytest.approx(values[(1350 - 400 - 600) // 50, 3], abs=1e-12)
    # Keeping all three (200) gives hot dice: six dice to bring 150 more.
    keep = advise(house, "--me", 400, "--opp", 1350, "--turn", 600, "--dice", 3,
                  "--roll", 1, 5, 5)
    assert keep["keep"] == [1, 5, 5] and keep["choices"][0]["then"] == "roll"
    assert keep["win"] == pytest.approx(values[(1350 - 400 - 600 - 200) // 50, 6], abs=1e-12)
    passed = advise(house, "--me", 400, "--opp", 1000, "--turn", 600, "--dice", 3,
                    "--roll", 1, 5, 2)
    assert passed["choices"][0]["then"] == "win" and passed["win"] == 1.0


@pytest.mark.parametrize("args, said", [
    (("--me", 1100, "--opp", 1200), "must be below the target 1000"),
    (("--me", 900, "--opp", 20000), "past 17400, farther than"),
    (("--me", 500, "--opp", 1200, "--turn", 750, "--dice", 2), "passes 1200: the turn is"),
])
def test_last_turns_that_cannot_be_are_one_line(house, args, said):
    rules, env = house
    answer = farkle("advise", "--rules", rules, *args, env=env)
    assert answer.returncode == 2 and said in answer.stderr, answer.stderr
    assert answer.stderr.count("\n") == 1


def test_simulate_plays_the_final_round_with_three_players(house):
    """``farkle simulate --players 3``: every finished game ends after the
    other two seats' last turns (or an instant win), a shared game credited
    1/k to each of its k holders (self-play against the table:
    tests/test_simulate_n.py); random seats need no table."""
    rules, env = house
    answer = farkle("simulate", "--rules", rules, "--players", 3, "--seat", "random", "--seat",
                    "random", "--seat", "random", "--games", 2000, "--seed", 1, "--json",
                    env=env)
    assert answer.returncode == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert data["last_turns"] > 0 and data["shared"] > 0
    assert sum(data["wins"]) + sum(data["shared_wins"]) + data["unfinished"] == \
        pytest.approx(2000)


def test_simulate_plays_the_final_round(house):
    """``farkle simulate`` on the house game, the table against itself: the
    JSON counts the shared games (about 1% of them here, 454 of 40,000 in
    tests/test_simulate_farkle.py), and A's rate, a shared game counted
    half, is within 4 standard errors of the table's own prediction."""
    rules, env = house
    answer = farkle("simulate", "--rules", rules, "--a", "optimal", "--b", "optimal",
                    "--games", 4000, "--seed", 3, "--json", env=env)
    assert answer.returncode == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert data["shared"] > 0 and data["unfinished"] == 0
    assert abs(data["win_rate_a"] - data["predicted"]) < 4 * data["stderr"]


@pytest.mark.parametrize("text, said", [
    ('final_round = "yes"\n', "final_round"),
    ('base = "dix-mille"\nname = "dix-final"\nfinal_round = true\n', "not modelled"),
])
def test_house_files_that_the_final_round_cannot_take(tmp_path, text, said):
    path = tmp_path / "bad.toml"
    path.write_text(text if text.startswith("base") else HOUSE + text)
    answer = farkle("variants", "--rules", path)
    assert answer.returncode == 2 and said in answer.stderr, answer.stderr
    assert answer.stderr.count("\n") == 1


# ------------------------------------------------------------- at the table

@lru_cache(maxsize=None)
def small_farkle_advisor():
    """Farkle to 1,000, solved into the session's scratch tables (a
    function, not a module fixture: those are set up before the scratch
    directory is)."""
    from solver.advice.advisor import Advisor
    from solver.tables.load import ALWAYS_SOLVE, load_table
    return Advisor(load_table(get_rules("farkle", 1000), first_use=ALWAYS_SOLVE))


@pytest.fixture
def small_farkle():
    return small_farkle_advisor()


def reach_the_target(play):
    """Player 1 keeps four 1s (1,000: entered and at the target) and banks."""
    from solver.play.game import BANK
    play.enter_roll([1, 1, 1, 1, 2, 3])
    play.choose((1, 1, 1, 1))
    assert play.phase == BANK
    events = play.choose("bank")
    assert [(e.kind, e.seat, e.score) for e in events][-1] == ("last-turn", 1, 1000)
    assert play.state.to_pass == 1000 and play.mover == 1


def test_a_zero_roll_in_the_last_turn_ends_the_game(small_farkle):
    from solver.play.game import OVER, Game
    play = Game(small_farkle, 2)
    reach_the_target(play)
    events = play.enter_roll([2, 3, 4, 6, 6, 2])
    assert play.phase == OVER and play.state.winner == 0
    assert (events[-1].kind, events[-1].seat, events[-1].score) == ("win", 0, 1000)


def test_the_last_turn_rolls_on_until_it_passes(small_farkle):
    from solver.play.game import BANK, KEEP, OVER, ROLL, Game, PlayError
    play = Game(small_farkle, 2)
    reach_the_target(play)
    play.enter_roll([1, 1, 1, 2, 3, 4])          # three 1s: 300, not yet past 1,000
    if play.phase == KEEP:
        play.choose((1, 1, 1))
    assert play.phase == ROLL and play.state.turn_total == 300
    with pytest.raises(PlayError, match="nothing to choose"):
        play.choose("bank")
    play.enter_roll([3, 3, 3])                   # 600 and hot dice: still short
    assert play.phase == ROLL and play.state.turn_total == 600 and play.state.in_hand == 6
    play.enter_roll([4, 4, 4, 2, 3, 6])          # 1,000 equals the score: no pass yet
    assert play.phase == BANK and play.state.turn_total == 1000
    events = play.choose("bank")                 # a bank that equals shares the win
    assert play.phase == OVER and play.state.winner is None
    assert (events[-1].kind, events[-1].seat, events[-1].score) == ("tie", 1, 1000)
    assert play.undo() and play.phase == BANK
    play.choose("roll")
    events = play.enter_roll([5, 2, 3])          # a 5: 1,050 passes
    assert play.phase == OVER and play.state.winner == 1
    assert (events[-1].kind, events[-1].score) == ("win", 1050)


def test_the_optimal_bot_plays_a_final_round_to_the_end(small_farkle):
    from solver.play.bots import make_bots
    from solver.play.game import OVER, ROLL, Game
    from solver.sim.policies import parse_policy
    finals = 0
    for seed in range(6):
        bots = make_bots({0: parse_policy("optimal"), 1: parse_policy("random")},
                         small_farkle.rules, seed)
        play = Game(small_farkle, 2, bots, seed)
        while play.phase != OVER:
            play.throw() if play.phase == ROLL else play.bot_move()
        finals += play.state.to_pass is not None
        assert play.state.winner in (0, 1, None)
        assert all(d.cost == 0 for d in play.state.decisions if d.seat == 0)
    assert finals                   # some game went to a last turn


def test_the_table_bots_play_a_final_round_as_the_simulator(small_farkle):
    """threshold:300 and expected (solver.play.bots.TableBot) play Farkle to
    1,000 to the end: past the target by their own tables, and the last
    turn by its best chance (solver.sim.final_round), as the optimal bot
    does: no decision of a last turn gives anything up."""
    from solver.play.bots import make_bots
    from solver.play.game import OVER, ROLL, Game
    from solver.sim.policies import parse_policy
    finals, last_turn_decisions = 0, []
    for seed in range(8):
        bots = make_bots({0: parse_policy("threshold:300"), 1: parse_policy("expected")},
                         small_farkle.rules, seed)
        play = Game(small_farkle, 2, bots, seed)
        while play.phase != OVER:
            if play.phase == ROLL:
                play.throw()
                continue
            last_turn, made = play.state.to_pass is not None, len(play.state.decisions)
            play.bot_move()
            if last_turn:
                last_turn_decisions += play.state.decisions[made:]
        finals += play.state.to_pass is not None
    assert finals and last_turn_decisions
    assert all(d.cost == 0 for d in last_turn_decisions)


def test_a_last_turn_at_the_terminal(tmp_path):
    """Coaching a Pig with a final round through a pseudo-terminal: a bank at
    30 gives player 2 one last turn; at 30 they may bank to share the win
    (rolling on is better: five faces in six pass), 36 passes."""
    import pexpect
    rules = tmp_path / "pig-final.toml"
    rules.write_text('base = "pig"\nname = "pig-final"\ntarget = 30\nfinal_round = true\n')
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "play", "--rules", str(rules),
                                           "--coach", "--solve"],
                          encoding="utf-8", timeout=120, dimensions=(60, 200))
    for _ in range(5):
        child.expect(r"player 1: the 1 die rolled( \(\d+ set aside\))?\? ")
        child.sendline("6")
        child.expect(r"bank \(b\) or roll \(r\)\? ")
        child.sendline("r" if _ < 4 else "b")
    child.expect("player 2 has one last turn to pass 30")
    for _ in range(6):
        child.expect(r"player 2: the 1 die rolled( \(\d+ set aside\))?\? ")
        child.sendline("6")
        if _ == 4:                  # 30: equal, a bank would share the win
            child.expect(r"best: roll \d+\.\d\d%")
            child.expect(r"bank \(b\) or roll \(r\)\? ")
            child.sendline("r")
    child.expect("player 2 wins with 36")
    child.expect("game over; u undoes the last entry, Enter ends: ")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_page_plays_and_answers_a_last_turn(small_farkle):
    """The page's two questions (``POST /api/game`` and ``/api/advise``, in
    process): the bank at the target, the last turn's zero roll, and the
    last turn's advice."""
    from solver.web.api import TableDesk
    desk = TableDesk(house_rules=small_farkle.rules)
    game = desk.play({"game": "farkle", "entries": [
        {"dice": [1, 1, 1, 1, 2, 3]}, {"keep": [1, 1, 1, 1]}, {"choose": "bank"}]})
    assert game["to_pass"] == 1000 and game["mover"] == 1 and game["phase"] == "roll"
    assert game["rules"]["final_round"] is True
    assert ("last-turn", 1, 1000) in [(e["kind"], e["seat"], e["score"])
                                      for e in game["events"]]
    over = desk.play({"game": "farkle", "entries": [
        {"dice": [1, 1, 1, 1, 2, 3]}, {"keep": [1, 1, 1, 1]}, {"choose": "bank"},
        {"dice": [2, 3, 4, 6, 6, 2]}]})
    assert over["winner"] == 0 and over["phase"] == "over"
    answer = desk.advise({"game": "farkle", "me": 400, "opp": 1350, "turn": 600, "dice": 3})
    assert answer["position"]["last_turn"] is True and answer["action"] == "roll"
