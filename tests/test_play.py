"""farkle play: a whole game at the terminal, and the cost of every decision.

The terminal tests drive ``farkle play`` through a pseudo-terminal as a
person would (pexpect), mistakes included; the others play the library's
:class:`solver.play.game.Game` directly. Every expected cost is recomputed here
from the Advisor's values for the same position.
"""

import dataclasses
import functools
import io
import json
import re
import signal
import subprocess
import sys
import time

import pexpect
import pytest
from conftest import answerer

from solver.advice.advisor import Advisor
from solver.model.rules import get_rules
from solver.model.states import Line
from solver.play.bots import make_bots
from solver.play.game import BANK, KEEP, OVER, ROLL, TAKE, Game, PlayerLine, PlayError
from solver.play.terminal import HELP, points_given_up
from solver.sim.policies import parse_policy
from solver.tables.files import read_table
from solver.tables.load import ALWAYS_SOLVE, load_table
from solver.tables.paths import default_path

# Small targets, so that a missing table solves in a few seconds.
SMALL = {"pig": 30, "cinq-mille": 1500, "cinq-mille-exact": 1500, "cinq-mille-last1000": 1500,
         "cinq-mille-10000": 1500, "dix-mille": 1000, "dix-mille-free-keep": 1000,
         "quinze-mille": 2000, "quinze-mille-free-keep": 2000}
ZERO_ROLL = [2, 3, 4, 6, 6]
"""Five dice of dix-mille with nothing that scores."""


@functools.lru_cache(maxsize=None)
def advisor(game: str) -> Advisor:
    """The Advisor of a game at its small target (solved here if missing,
    into the session's scratch tables)."""
    return Advisor(load_table(get_rules(game, SMALL[game]), first_use=ALWAYS_SOLVE))


def spawn(*args) -> pexpect.spawn:
    # A terminal's ^C reaches a program that has not inherited SIGINT
    # ignored, as a test run started in the background (`... &`) would pass
    # it on: the child gets the default, as at a person's terminal.
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "play", *map(str, args)],
                          encoding="utf-8", timeout=120, dimensions=(60, 200),
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    child.logfile_read = io.StringIO()
    return child


def play_with_input(text: str, *args) -> subprocess.CompletedProcess:
    """``farkle play`` with its answers from a pipe (no terminal)."""
    return subprocess.run([sys.executable, "-m", "solver.cli", "play", *map(str, args)],
                          input=text, capture_output=True, text=True, timeout=300)


def screen(child) -> str:
    return child.logfile_read.getvalue()


def replayed_cost(record: dict) -> float:
    """A logged decision's cost, from the Advisor's values at its position:
    the best choice's win probability minus the chosen one's."""
    position = record["position"]
    game = next(name for name, target in SMALL.items()
                if name == position["game"] and target == position["target"])
    me, opp = (Line(**position[who]) if isinstance(position[who], dict) else position[who]
               for who in ("me", "opp"))
    ask = advisor(game)
    if record["decision"] == "take":
        advice = ask.take_or_fresh(me, opp, *position["offer"])
    elif record["decision"] == "keep":
        advice = ask.keep(me, opp, position["turn"], position["dice"], position["roll"])
    else:
        advice = ask.bank_or_roll(me, opp, position["turn"], position["dice"])
    chosen = record["chosen"]
    wins = [c.win for c in advice.choices
            if c.action == chosen["action"] and c.keep == chosen.get("keep")]
    assert len(wins) == 1
    return max(c.win for c in advice.choices) - wins[0]


# ------------------------------------------------------------ at the terminal

def test_a_whole_game_at_the_terminal_with_mistakes(tmp_path):
    log = tmp_path / "game.jsonl"
    child = spawn("cinq-mille", "--target", 1500, "--seed", 4, "--log", log)
    prompts = [r"keep \(dice, or #N\)\? ", r"bank \(b\) or roll \(r\)\? ", r"; roll \(r\)\? ",
               r"\(t\) or roll fresh \(f\)\? ",
               r"review, you: (\d+) decisions, gave up (\S+ pp)"]
    mistakes = ["7", "1 1 1 1 1 1", "b"]
    keeps_answered, listed = 0, []
    while True:
        found = child.expect(prompts)
        # The keeps listed (not again when the question is asked again).
        listed = re.findall(r"#(\d+)", child.before) or listed
        if found == 0 and mistakes[:1] == ["7"]:
            # A die outside 1-6, then a keep that is not in the roll: one
            # line each, and the same question again.
            child.sendline(mistakes.pop(0))
            child.expect("a die shows 1 to 6, not 7")
        elif found == 0 and mistakes[:1] == ["1 1 1 1 1 1"]:
            child.sendline(mistakes.pop(0))
            child.expect(r"1 1 1 1 1 1 is not in the roll")
        elif found == 0:
            # The last keep of the list (often the smallest: a costly one),
            # every other time; the first otherwise.
            keeps_answered += 1
            child.sendline(f"#{listed[-1]}" if keeps_answered % 2 else "#1")
        elif found == 1:
            total = int(re.findall(r"turn total (\d+)", child.before)[-1])
            child.sendline("b" if total >= 300 else "r")
        elif found == 2 and mistakes == ["b"]:
            child.sendline(mistakes.pop(0))
            child.expect(r"no bank before the entry of 750 \(\d+ set aside\)\r\n")
        elif found == 2:
            child.sendline("r")
        elif found == 3:
            child.sendline("t")
        else:
            decisions, given_up = int(child.match.group(1)), child.match.group(2)
            break
    child.expect(pexpect.EOF)
    child.close()
    text = screen(child)
    assert child.exitstatus == 0 and "Traceback" not in text
    assert mistakes == []
    assert "seat 1 you, seat 2 the bot (optimal)" in text
    assert "-- turn 1: you to play --" in text and "  2 the bot (optimal)" in text
    assert re.search(r"you win|the bot \(optimal\) wins", text)
    # Each decision of the person is followed by the best choice; the costs
    # on the screen are the logged ones, and the logged ones are the
    # Advisor's (recomputed here).
    records = [json.loads(line) for line in log.read_text().splitlines()]
    mine = [r for r in records if r["seat"] == 1]
    assert len(mine) == decisions == text.count("  best: ")
    shown = re.findall(r"you gave up (\S+ pp)", text)
    assert shown == [points_given_up(r["cost"]) for r in mine if r["cost"] > 0]
    assert shown, "the alternate keeps should have cost something"
    assert given_up == points_given_up(sum(r["cost"] for r in mine))
    for record in records:
        assert record["cost"] == pytest.approx(replayed_cost(record), abs=1e-12)
    # The bot plays the best choice every time.
    assert all(r["cost"] == 0 for r in records if r["seat"] == 2)


def test_ctrl_c_ends_with_the_review_so_far():
    child = spawn("dix-mille", "--target", 1000, "--seed", 2, "--seat", 2,
                  "--bots", "threshold:300")
    child.expect(r"\(r\)\? ")
    # The prompt is written before input() has set the terminal up to read:
    # a ^C in that instant can be lost (it was, once in a cold CI run, and the
    # test waited out its 120 s). A person cannot type that fast; wait.
    time.sleep(0.5)
    child.sendintr()
    child.expect("game stopped")
    child.expect(r"review, you: \d+ decisions")
    child.expect(pexpect.EOF)
    child.close()
    text = screen(child)
    assert child.exitstatus == 0 and "Traceback" not in text
    # The second seat: the bot moved first, and the sheet has crosses.
    assert "seat 1 the bot (threshold:300), seat 2 you" in text
    assert "-- turn 1: the bot (threshold:300) to play --" in text
    assert re.search(r"  2 you\s+\d+   crosses .*previous \d+", text)


def test_end_of_input_ends_with_the_review(tmp_path):
    result = play_with_input("", "pig", "--target", 30, "--seed", 1)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "game stopped" in result.stdout and "review, you: 0 decisions" in result.stdout


def test_coaching_a_real_game(tmp_path):
    log = tmp_path / "coach.jsonl"
    child = spawn("dix-mille", "--target", 1000, "--coach", "--log", log)

    answer = answerer(child)
    dice = r"rolled( \(\d+ set aside\))?\? "
    answer(r"player 1: the 5 dice rolled\? ", "1 2 3", "5 dice are rolled: enter 5, not 3")
    answer(dice, "1 1 5 2 8", "a die shows 1 to 6, not 8")
    # Under the keep rule "all" the keep is shown, not asked.
    answer(dice, "11523", r"player 1 keeps 1 1 5 \(250\): forced")
    answer(r"roll \(r\)\? ", "b", r"no bank before the entry of 350 \(250 set aside\)")
    answer(r"roll \(r\)\? ", "r")
    answer(dice, "5 2", r"keeps 5 \(50\)")
    answer(r"roll \(r\)\? ", "u", "undone")
    # Undone: the same roll is asked for again.
    answer(r"player 1: the 2 dice rolled \(250 set aside\)\? ", "5 2")
    answer(r"roll \(r\)\? ", "r")
    answer(dice, "1", r"turn total 400, 5 dice in hand")
    answer(r"hot dice: all 5 dice must be rolled again; roll \(r\)\? ", "r")
    # Before each decision: the best choice and its win probability.
    answer(dice, "1 2 3 4 6", r"  best: (bank|roll) \d+\.\d\d%")
    answer(r"bank \(b\) or roll \(r\)\? ", "b", "player 1 banks 500: 500; 4 dice left")
    answer(r"player 2: the 5 dice rolled\? ", "4 4 4 2 3", r"best: (bank|roll)")
    answer(r"bank \(b\) or roll \(r\)\? ", "b")
    child.expect("on the table: 400 with 2 dice, for player 1 to take over")
    answer(r"\(t\) or roll fresh \(f\)\? ", "x", "type t to take over or f to roll fresh")
    answer(r"\(f\)\? ", "t", "player 1 takes over 400 with 2 dice")
    answer(dice, "5 2")
    answer(r"bank \(b\) or roll \(r\)\? ", "b", "player 1 banks 450: 950")
    answer(r"\(f\)\? ", "f")
    answer(dice, " ".join(map(str, ZERO_ROLL)), "player 2: cross 1")
    child.expect(r"  2 player 2\s+400   crosses x\s+previous 0")
    child.expect(r"player 1: the 5 dice rolled\? ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    text = screen(child)
    assert child.exitstatus == 0 and "Traceback" not in text
    assert "  1 player 1     950   crosses -    previous 500" in text
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["seat"], r["decision"], r["chosen"]["action"]) for r in records] == [
        (1, "bank", "bank"), (2, "bank", "bank"), (1, "take", "take"), (1, "bank", "bank"),
        (2, "take", "fresh")]
    for seat in (1, 2):
        total = sum(replayed_cost(r) for r in records if r["seat"] == seat)
        assert f"review, player {seat}: " in text
        assert f"decisions, gave up {points_given_up(total)} of winning" in text


def test_coaching_undoes_a_win_entered_by_mistake():
    child = spawn("pig", "--target", 30, "--coach")
    for _ in range(4):
        child.expect(r"player 1: the 1 die rolled( \(\d+ set aside\))?\? ")
        child.sendline("6")
        child.expect(r"best: roll \d+\.\d\d%")
        child.expect(r"bank \(b\) or roll \(r\)\? ")
        child.sendline("r")
    child.expect(r"rolled \(24 set aside\)\? ")
    child.sendline("6")
    child.expect("player 1 wins with 30")
    child.expect("game over; u undoes the last entry, Enter ends: ")
    child.sendline("u")
    child.expect("undone")
    child.expect(r"player 1: the 1 die rolled \(24 set aside\)\? ")
    child.sendline("1")
    child.expect("zero roll, 24 lost")
    child.expect(r"player 2: the 1 die rolled\? ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "review, player 1: 4 decisions" in screen(child)


@pytest.mark.parametrize("game", ["dix-mille", "cinq-mille"])
def test_a_log_replays_to_the_same_costs(tmp_path, game):
    """Answers typed without looking (a person who does not read), bad
    ones included: the log's costs are the Advisor's."""
    log = tmp_path / "game.jsonl"
    answers = ["#2", "b", "r", "t", "1", "#1", "r", "f", "b"] * 60
    result = play_with_input("\n".join(answers) + "\n", game, "--target", SMALL[game],
                             "--seed", 11, "--bots", "expected", "--log", log)
    assert result.returncode == 0 and "Traceback" not in result.stdout + result.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert {r["decision"] for r in records} >= ({"bank"} if game == "dix-mille"
                                                else {"bank", "keep"})
    assert any(r["cost"] > 0 for r in records)
    for record in records:
        assert record["cost"] == pytest.approx(replayed_cost(record), abs=1e-12)


@pytest.mark.parametrize("args, message", [
    (("pig", "--target", 30, "--seat", 3), "--seat must be 1 to 2"),
    (("pig", "--target", 30, "--bots", "clever"), "unknown policy"),
    (("pig", "--target", 30, "--coach", "--bots", "random"), "--coach is for a game"),
    (("pig", "--target", 30, "--players", 7), "players must be 2 to 6"),
    (("pig", "--target", 30, "--json"), "no --json"),
])
def test_bad_options_are_one_line(args, message):
    result = play_with_input("", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


# --------------------------------------------------------------- the library

@pytest.mark.parametrize("game", list(SMALL))
def test_every_game_plays_to_the_end(game):
    """Bots of every kind, whole games: someone wins, the optimal bot never
    gives anything up, and every cost is the Advisor's gap."""
    ask = advisor(game)
    for seed, policies in enumerate([("optimal", "threshold:300"), ("expected", "random"),
                                     ("random", "optimal"), ("card", "expected")]):
        bots = make_bots({seat: parse_policy(p) for seat, p in enumerate(policies)}, ask.rules, seed)
        play = Game(ask, 2, bots, seed)
        while play.phase != OVER:
            play.throw() if play.phase == ROLL else play.bot_move()
        assert play.state.winner in (0, 1)
        for decision in play.state.decisions:
            gap = decision.best.win - decision.chosen.win
            assert decision.cost == (gap if gap > 1e-12 else 0.0)
            assert decision.best.win == pytest.approx(max(c.win for c in decision.choices))
            if policies[decision.seat] == "optimal":
                assert decision.cost == 0


def test_three_players_play_to_the_end_from_the_committed_table():
    """Three optimal bots on tables/cinq-mille-3players.h5: each decision is
    priced for its mover with every player's chance, the optimal bots give
    nothing up, and the turn-start chances are the table's (they sum to 1)."""
    rules = get_rules("cinq-mille")
    ask = Advisor(read_table(default_path(rules, players=3), expect=rules, expect_players=3))
    bots = make_bots({seat: parse_policy("optimal") for seat in range(3)}, rules, 4, 3)
    play = Game(ask, 3, bots, seed=4)
    movers = set()
    while play.phase != OVER:
        if play.phase == ROLL and play.state.turn_total == 0 and play.state.in_hand == 5:
            chances = play.chances()
            assert len(chances) == 3 and sum(chances) == pytest.approx(1, abs=1e-9)
        movers.add(play.mover)
        play.throw() if play.phase == ROLL else play.bot_move()
    assert movers == {0, 1, 2} and play.state.winner in (0, 1, 2)
    assert play.state.decisions and all(d.cost == 0 and len(d.best.wins) == 3
                                        for d in play.state.decisions)


def test_three_players_at_the_terminal():
    result = play_with_input("q\n", "cinq-mille", "--players", 3, "--seed", 5)
    assert result.returncode == 0, result.stderr
    # Two bots are told apart by their seats (both were "the bot (optimal)").
    assert "seat 1 you, seat 2 bot 2 (optimal), seat 3 bot 3 (optimal)" in result.stdout
    assert "  2 bot 2 (optimal)       0" in result.stdout
    assert "  3 bot 3 (optimal)       0" in result.stdout and "the bot" not in result.stdout
    assert "you roll 1 3 5 5 5" in result.stdout and "#1  1 5 5 5        600" in result.stdout


def test_wrong_keys_say_what_can_be_done_and_lines_wrap_at_words():
    """Before the entry a wrong key says to roll (it said "type b to bank"),
    where a bank is allowed to bank or roll; at a terminal 100 columns wide
    every line fits, the answers line wrapped between words."""
    advisor("cinq-mille")                   # the table, so that no solve is shown
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "play", "cinq-mille",
                                           "--target", "1500", "--seed", "4"],
                          encoding="utf-8", timeout=120, dimensions=(40, 100),
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    child.logfile_read = io.StringIO()
    prompts = [r"; roll \(r\)\? ", r"bank \(b\) or roll \(r\)\? ", r"keep \(dice, or #N\)\? ",
               r"\(t\) or roll fresh \(f\)\? ", "review, you"]
    told = {}
    for _ in range(200):
        found = child.expect(prompts)
        if found == 0 and "entry" not in told:
            child.sendline("x")
            child.expect(r"(type .*)\r\n")
            told["entry"] = child.match.group(1)
        elif found == 1 and "bank" not in told:
            child.sendline("x")
            child.expect(r"(type .*)\r\n")
            told["bank"] = child.match.group(1)
            child.sendline("q")
        elif found in (0, 1):
            child.sendline("r")
        elif found == 2:
            child.sendline("#1")
        elif found == 3:
            child.sendline("f")
        else:
            break
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert told["entry"] == "type r to roll: no bank before the entry of 750 (650 set aside)"
    assert told["bank"] == "type b to bank or r to roll"
    lines = screen(child).split("\r\n")
    assert max(len(line) for line in lines) < 100
    # The answers line (longer than 100) on two lines, the second indented,
    # every word whole.
    first = next(i for i, line in enumerate(lines) if line.startswith("answers: "))
    rest = lines[first + 1]
    assert rest.startswith("  ") and rest[2] != " "
    assert f"{lines[first]} {rest.strip()}" == HELP


def test_same_seed_same_game():
    def moves(seed):
        ask = advisor("cinq-mille")
        bots = make_bots({0: parse_policy("optimal"), 1: parse_policy("random")}, ask.rules, seed)
        play = Game(ask, 2, bots, seed)
        events = []
        while play.phase != OVER:
            events += play.throw() if play.phase == ROLL else play.bot_move()
        return [(e.kind, e.seat, e.points, e.dice) for e in events]
    assert moves(5) == moves(5) != moves(6)


def test_crosses_fall_to_the_previous_score_one_level():
    """docs/rules.md rule 4 on the sheet: the third cross goes back to the score
    before the last bank; after that fall the previous score is the score,
    and three more crosses change nothing."""
    play = Game(advisor("dix-mille"), 2)

    def zero_turn():
        events = play.enter_roll(ZERO_ROLL)
        assert events[-1].kind in ("zero", "cross", "fall")
        return events

    def bank(roll):
        play.enter_roll(roll)
        play.choose("bank")
    bank([4, 4, 4, 2, 3])                   # player 1: 400, previous 0
    zero_turn()                             # player 2 at 0: no cross
    assert play.state.lines[1] == PlayerLine(0, 0, 0)
    bank([3, 3, 3, 2, 4])                   # player 1: 700, previous 400
    assert play.state.lines[0] == PlayerLine(700, 400, 0)
    zero_turn()                             # player 2
    for crosses in (1, 2):
        zero_turn()
        assert play.state.lines[0] == PlayerLine(700, 400, crosses)
        zero_turn()
    events = zero_turn()
    assert [e.kind for e in events][-1] == "fall" and events[-1].score == 400
    assert play.state.lines[0] == PlayerLine(400, 400, 0)
    for _ in range(3):                      # fallen: nothing left to lose
        zero_turn()
        assert play.state.lines[0] == PlayerLine(400, 400, 0)
        zero_turn()


def test_a_bank_below_the_minimum_is_refused():
    """Issue 67's minimum bank at the table: once entered, a bank of 50 is
    refused with the minimum named, and the question stays."""
    rules = dataclasses.replace(get_rules("cinq-mille"), name="minbank", min_bank=300,
                                entry=500).with_target(1000)
    play = Game(Advisor(load_table(rules, first_use=ALWAYS_SOLVE)), 2)
    play.enter_roll([6, 6, 6, 2, 3])
    play.choose("bank")                     # player 1: 600, entered
    play.enter_roll(ZERO_ROLL)              # player 2: a zero turn
    play.enter_roll([5, 2, 3, 4, 6])
    play.choose((5,))
    state = play.state.copy()
    with pytest.raises(PlayError, match=r"no bank below 300 \(50 set aside\)"):
        play.choose("bank")
    assert play.state == state and play.phase == BANK


def test_take_over_and_undo(tmp_path):
    log = tmp_path / "log.jsonl"
    play = Game(advisor("dix-mille"), 2, log=log)
    play.enter_roll([1, 2, 3, 4, 6])
    assert play.phase == BANK
    with pytest.raises(PlayError, match="entry of 350"):
        play.choose("bank")
    play.choose("roll")
    play.enter_roll([4, 4, 4, 2])           # 500 with one die left
    play.choose("bank")
    # Player 2 is not entered: the offer lapses.
    assert play.phase == ROLL and play.state.offer is None
    play.enter_roll([4, 4, 4, 2, 6])
    play.choose("bank")
    assert play.phase == TAKE and play.state.offer == (400, 2)
    before = (play.state.copy(), log.read_text())
    decision = play.choose("take")[0].decision
    # The decision's values are the Advisor's for the same position.
    wins = {c.action: c.win for c in advisor("dix-mille").take_or_fresh(
        Line(500, 0, 0), Line(400, 0, 0), 400, 2).choices}
    assert decision.chosen.win == wins["take"]
    assert decision.cost == max(0.0, wins["fresh"] - wins["take"])
    assert play.phase == ROLL and (play.state.turn_total, play.state.in_hand) == (400, 2)
    assert len(log.read_text().splitlines()) == len(before[1].splitlines()) + 1
    with pytest.raises(PlayError, match="2 dice are rolled: enter 2, not 3"):
        play.enter_roll([1, 1, 1])
    assert play.undo()
    assert play.state == before[0] and log.read_text() == before[1]
    assert play.phase == TAKE


def test_input_mistakes_keep_the_question():
    play = Game(advisor("cinq-mille"), 2)
    play.enter_roll([1, 1, 5, 3, 2])
    assert play.phase == KEEP
    state = play.state.copy()
    for dice, message in [((1, 1, 1), "1 1 1 is not in the roll 1 1 2 3 5"),
                          ((7,), "a die shows 1 to 6, not 7"),
                          ((1, 2), "1 2 is not a keep"),
                          ((), "keep at least one")]:
        with pytest.raises(PlayError, match=message):
            play.choose(dice)
        assert play.state == state
    with pytest.raises(PlayError, match="no roll is due"):
        play.enter_roll([1, 2, 3, 4, 5])
    play.choose((1, 5))
    assert (play.state.turn_total, play.state.in_hand, play.phase) == (150, 3, BANK)
