"""Strategy cards (solver.card): the exact evaluation of a card against the
table, checked against a brute-force Pig evaluation written here from the
card's rule and against simulation; the stored cards' losses; the `card`
command, `advise --card` and `simulate --a card`."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from solver.card_record import Card
from solver.card_sheet import card_bank, card_for, stored_cards
from solver.rules import PIG, get_rules
from solver.seat_value import card_seat_values
from solver.solve import solve_game
from solver.states import Line


def farkle(*args, env=None):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True,
                          text=True, timeout=600, env=env)


def pig_turn(target, score, won, zero, choose):
    """A Pig turn from ``score``, by value iteration from the top turn total
    down: a throw of 1 (chance 1/6) is the zero turn, worth ``zero``; 2 to
    6 add to the turn total; at the target the turn is ``won``; with t > 0
    set aside, ``choose(t, roll)`` gives the value of the decision (``roll``
    the value of throwing again). Returns the value at t = 0."""
    value = {}
    for t in range(target - score + 6, -1, -1):
        if score + t >= target:
            value[t] = won
            continue
        roll = (zero + sum(value[t + f] for f in range(2, 7))) / 6
        value[t] = choose(t, roll) if t > 0 else roll
    return value[0]


def brute_force_pig_card(solution, hold, behind=0, gap_step=1000, race_within=0, tol=1e-13):
    """The card's chance as first and second player in Pig, by value
    iteration over (card's score, optimal player's score, turn total): the
    card holds at ``hold + behind * trunc((opp - me) / gap_step)`` and never
    short of the target when either player is within ``race_within`` of it;
    the optimal player banks where the table's one-turn look-ahead says so
    (ties bank)."""
    T = solution.rules.target
    W = np.asarray(solution.W)
    state = {int(s): i for i, s in enumerate(solution.space.score)}

    def w(a, b):
        return W[state[a], state[b]]
    optimal_banks = {}
    for a in range(T):
        for b in range(T):
            def look_ahead(t, roll):
                bank = 1 - w(b, a + t)
                optimal_banks[a, b, t] = bank >= roll
                return max(roll, bank)
            pig_turn(T, a, 1.0, 1 - w(b, a), look_ahead)
    card_first = np.full((T, T), 0.5)          # [card, optimal], card to move
    card_waits = np.full((T, T), 0.5)          # [optimal, card], optimal to move
    while True:
        new_first, new_waits = np.empty_like(card_first), np.empty_like(card_waits)
        for a in range(T):
            for b in range(T):
                gap = b - a
                steps = abs(gap) // gap_step * (1 if gap >= 0 else -1)
                racing = race_within > 0 and T - max(a, b) <= race_within
                threshold = hold + behind * steps
                new_first[a, b] = pig_turn(
                    T, a, 1.0, card_waits[b, a],
                    lambda t, roll: card_waits[b, a + t] if not racing and t >= threshold
                    else roll)
                new_waits[b, a] = pig_turn(
                    T, b, 0.0, card_first[a, b],
                    lambda t, roll: card_first[a, b + t] if optimal_banks[b, a, t] else roll)
        change = max(np.abs(new_first - card_first).max(), np.abs(new_waits - card_waits).max())
        card_first, card_waits = new_first, new_waits
        if change < tol:
            return card_first[0, 0], card_waits[0, 0]


@pytest.fixture(scope="module")
def pig20():
    return solve_game(dataclasses.replace(PIG, target=20))


@pytest.mark.parametrize("card_fields", [
    {"hold": 6}, {"hold": 5, "behind": 1, "gap_step": 3},
    {"hold": 7, "behind": 2, "gap_step": 4, "race_within": 6}])
def test_card_evaluation_against_brute_force(pig20, card_fields):
    """Pig to 20: the exact evaluation of solver.seat_value against the
    brute force above (the card's first- and second-player chances)."""
    fields = dict(card_fields)
    card = Card("pig", (fields.pop("hold"),), **fields)
    first, second = brute_force_pig_card(pig20, card.bank[0], **fields)
    values = card_seat_values(pig20, card)
    assert values == pytest.approx([first, second], abs=1e-10)


def test_sweeps_extrapolate_only_once_the_ratio_has_settled():
    """solver.convergence.settled_ratio: a geometric run of changes gives its ratio
    (the evaluation then jumps to the limit); dix-mille-free-keep's solve,
    whose ratios fall from 0.47 to 0.14 (its table's stats), gives none,
    nor does a ratio near 1 or too short a run."""
    from solver.convergence import settled_ratio
    assert settled_ratio([0.9 * 0.43 ** k for k in range(6)]) == pytest.approx(0.43)
    assert settled_ratio([0.22, 0.093, 3.06e-3, 1.41e-4, 6.67e-5, 2.50e-5, 7.74e-6]) is None
    assert settled_ratio([0.95 ** k for k in range(6)]) is None
    assert settled_ratio([0.43 ** k for k in range(3)]) is None


@pytest.mark.parametrize("rules", [None, "quinze-take-over", "dix-mille"])
def test_the_table_evaluated_as_a_policy_is_the_table(pig20, rules):
    """With D playing the table, the evaluation gives the table's values:
    Pig, and games where offers are in play (quinze-mille with take-over
    from 500; dix-mille, whose crosses model keeps offers from a first turn
    total per banked state: a reading of them by the turn total alone was
    off by that much until this test)."""
    if rules is None:
        table = pig20
    else:
        table = solve_game(dataclasses.replace(get_rules("quinze-mille", 1500), takeover_min=500)
                           if rules == "quinze-take-over" else get_rules("dix-mille", 1000))
    values = card_seat_values(table, None)
    assert values == pytest.approx([table.first_player_win, 1 - table.first_player_win],
                                   abs=1e-12)


def test_evaluation_cached_under_one_thread_runs_under_two(tmp_path):
    """The evaluation's kernels compiled and cached with one thread, then
    loaded with two, give the same chances (Pig's stored card against its
    committed table). The thread count once was read inside the parallel
    kernel, frozen into its cache: two threads then shared one part of the
    work arrays, and the run crashed."""
    import os
    script = ("from solver.rules import get_rules; from solver.card_sheet import card_for;"
              "from solver.tables import default_path, read_table;"
              "from solver.seat_value import card_seat_values; rules = get_rules('pig');"
              "table = read_table(default_path(rules), rules, lazy_take=False);"
              "print(list(card_seat_values(table, card_for(rules)[0])))")
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
                                "NUMBA_NUM_THREADS": threads})
            for threads in ("1", "2")]
    assert [run.returncode for run in runs] == [0, 0], runs[1].stderr[-500:]
    assert runs[0].stdout == runs[1].stdout


@pytest.mark.parametrize("game", ["pig", "cinq-mille", "cinq-mille-exact"])
def test_stored_card_loss_is_the_evaluation(game):
    """solver/cards.json's loss of a game with a committed table is the
    exact evaluation of its card against that table (a stale file after a
    change of the card's rule fails here: run python scripts/fit_cards.py
    GAME --from-stored --rounds 0)."""
    from solver.tables import default_path, read_table
    rules = get_rules(game)
    card, loss, _ = card_for(rules)
    values = card_seat_values(read_table(default_path(rules), rules, lazy_take=False), card)
    assert loss["seats"] == pytest.approx(list(values), abs=1e-12)
    assert loss["loss"] == pytest.approx(0.5 - values.mean(), abs=1e-12)


def test_simulated_card_agrees_with_the_evaluation(tmp_path):
    """`farkle simulate pig --target 50 --a card --b optimal`: the card's
    simulated chance as first player is the exact evaluation's within four
    standard errors."""
    import os
    env = {**os.environ, "FARKLE_TABLES": str(tmp_path)}
    rules = get_rules("pig", 50)
    out = farkle("simulate", "pig", "--target", "50", "--a", "card", "--b", "optimal",
                 "--games", "40000", "--seed", "11", "--solve", "--json", env=env)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    exact = card_seat_values(solve_game(rules), card_for(rules)[0])[0]
    assert abs(result["win_rate_a"] - exact) <= 4 * result["stderr"]


def test_the_simulated_card_keeps_by_its_late_row_once_points_are_set_aside(monkeypatch):
    """`simulate --a card` plays the card's keeps: quinze-mille-free-keep to
    3,000, a card whose dice left are worth another row from 350 set aside
    (as in the test of that row), the dice scripted. 1 1 1 5 5 5: all six
    (1,500, six dice again); 1 2 2 3 4 6: the 1 (1,600, five dice); 1 1 2 3
    4: by the late row 1 1 (200 + three dice at 100 beat 100 + four at
    175), then a bank of 1,800 with three dice; by the first row the 1
    alone, then a roll of four dice on to a zero turn (2 3 4 6)."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps
    from solver.simulate import play_scripted
    rules = get_rules("quinze-mille-free-keep", 3000)
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 3100, 6650, 7500), open_at=500,
                 left_worth=(100, 50, 50, 175, 350, 200))
    card = dataclasses.replace(plain, late_from=350, late_worth=(200, 150, 100, 175, 300, 300))
    roll = keeps(rules, counts_of([1, 1, 2, 3, 4]))
    assert [card_keep(c.compiled(rules), rules, 0, [0], 1600, 5, roll).points
            for c in (plain, card)] == [100, 200]
    dice = [1, 1, 1, 5, 5, 5, 1, 2, 2, 3, 4, 6, 1, 1, 2, 3, 4] + [2, 3, 4, 6] * 2
    solution = solve_game(rules)
    turns = []
    for c in (plain, card):
        monkeypatch.setattr("solver.card_sheet.card_for", lambda rules, c=c: (c, None, {}))
        game = play_scripted(rules, "card", "optimal", dice, turns=1, solution=solution)
        turns.append([(e["outcome"], e["turn_total"]) for e in game.events])
    assert turns == [[("zero", 1700)], [("bank", 1800)]]


def test_card_command_prints_the_card():
    out = farkle("card", "pig")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) < 15
    card, loss, _ = card_for(get_rules("pig"))
    assert f"{card.bank[0]:,}" in out.stdout
    assert f"{100 * loss['loss']:.2f} points of 100" in lines[0]
    data = json.loads(farkle("card", "pig", "--json").stdout)
    assert data["card"]["bank"] == list(card.bank) and data["loss"]["loss"] == loss["loss"]


@pytest.mark.parametrize("game", list(stored_cards()))
def test_every_stored_card_reads_in_under_15_lines(game):
    """Issue 14: a card a person reads at the table, under 15 lines."""
    out = farkle("card", game)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.strip().splitlines()) < 15


def test_the_readme_shows_the_card_the_command_prints():
    """Issue 14: the README shows one card; it is the stored one, as
    `farkle card` prints it (not a copy that drifted)."""
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    shown = readme.split("    $ farkle card cinq-mille\n", 1)[1].split("\n\n", 1)[0]
    printed = farkle("card", "cinq-mille").stdout.strip()
    assert [line.removeprefix("    ") for line in shown.splitlines()] == printed.splitlines()


def test_card_command_refuses_a_game_without_a_card_in_one_line():
    out = farkle("card", "pig", "--players", "9")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    from solver.rules import GAMES
    missing = [name for name in GAMES if name not in stored_cards()]
    if missing:
        out = farkle("card", missing[0])
        assert out.returncode == 2 and "no strategy card" in out.stderr
        assert "Traceback" not in out.stderr


def test_advise_card_gives_the_card_s_choice_and_its_cost():
    """At Pig 50 against 80 with 24 in hand the card (hold 21, one more per
    7 behind: 25) rolls; the table says what rolling costs."""
    card, _, _ = card_for(get_rules("pig"))
    out = farkle("advise", "pig", "--me", "50", "--opp", "80", "--turn", "24", "--card",
                 "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    by_action = {c["action"]: c["win"] for c in data["choices"]}
    threshold = card.bank[0] + card.behind * ((80 - 50) // card.gap_step)
    expected = "bank" if 24 >= threshold and 100 - 80 > card.race_within else "roll"
    assert data["card"]["action"] == expected
    assert data["card"]["cost"] == pytest.approx(max(by_action.values()) - by_action[expected],
                                                 abs=1e-15)


def test_card_bot_plays_the_card():
    """`farkle play --bots card`: in whole games of Pig against the optimal
    bot, every decision of the card's seat is the card's rule (hold at its
    threshold, moved by the gap, none in the race)."""
    from solver.advice import Advisor
    from solver.play import OVER, ROLL, Game
    from solver.policies import parse_policy
    rules = get_rules("pig")
    card, _, _ = card_for(rules)
    checked = 0
    for seed in range(3):
        play = Game(Advisor.for_game("pig"), 2, {0: parse_policy("card"),
                                                 1: parse_policy("optimal")}, seed)
        while play.phase != OVER:
            play.throw() if play.phase == ROLL else play.bot_move()
        for decision in play.state.decisions:
            if decision.seat != 0 or decision.kind != "bank":
                continue
            position = decision.position
            me, opp = position["me"]["score"], position["opp"]["score"]
            total = position["turn"]
            gap = opp - me
            steps = abs(gap) // card.gap_step * (1 if gap >= 0 else -1)
            racing = 100 - max(me, opp) <= card.race_within
            banks = not racing and total >= card.bank[0] + card.behind * steps
            assert decision.chosen.action == ("bank" if banks else "roll")
            checked += 1
    assert checked > 20


def test_to_an_exact_target_the_card_leaves_enough_to_go():
    """quinze-mille's optimal player at 14,600 against 12,000 banks with 2
    dice from 100 to 200 only, leaving 200 to 300 to make exactly (its
    table, BENCHMARKS.md): a remainder of 50 or 100 wants a lone 5 or 1 with
    the other dice blank. A card with ``leave_at_least`` 200 banks 200 there
    and rolls on at 250 and 300; without it, it banks all three."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (200,) * 6, open_at=500, leave_at_least=200)
    compiled, plain = card.compiled(rules), dataclasses.replace(card, leave_at_least=0).compiled(
        rules)
    assert [card_bank(compiled, rules, 14600, [12000], turn, 2) for turn in (200, 250, 300)] \
        == [True, False, False]
    assert [card_bank(plain, rules, 14600, [12000], turn, 2) for turn in (200, 250, 300)] \
        == [True, True, True]
    assert "never bank leaving less than 200 to 15,000" in card.text(rules)


def test_past_a_cap_the_card_rolls_on_for_the_win():
    """cinq-mille-last1000 against 3,000, 1,000 set aside with 2 dice (its
    committed table: `farkle advise cinq-mille-last1000 --me 3800 --opp 3000
    --turn 1000 --dice 2`): a bank stops at 4,000 either way; at 3,800 a
    roll wins 71.90% against the bank's 68.62% (200 to go), at 3,500 the
    bank's 68.62% beats the roll's 64.41% (500 to go). With
    ``leave_at_least`` 500 the card does both; without, it banks both."""
    rules = get_rules("cinq-mille-last1000")
    plain = Card("cinq-mille-last1000", (150, 200, 450, 800, 2950), open_at=750)
    card = dataclasses.replace(plain, leave_at_least=500)
    for each, banks in ((card, [False, True]), (plain, [True, True])):
        assert [card_bank(each.compiled(rules), rules, me, [3000], 1000, 2)
                for me in (3800, 3500)] == banks
    assert "never bank leaving less than 500 to 5,000" in card.text(rules)


def test_the_finish_applies_with_few_dice_in_hand():
    """quinze-mille's optimal player at 14,500 against 10,000 banks 200 or
    250 with 1 to 3 dice in hand (leaving 300 or 250 to make exactly;
    ``farkle advise quinze-mille --me 14500 --opp 10000 --turn 200 --dice
    3``: bank 94.74%, roll 94.19%), while a card banking at 400 with 3
    dice would roll on. With ``finish_within`` 300 and ``finish_dice`` 3
    the card banks there with 3 dice but not with 4 or 5 (against 14,000
    optimal play rolls on with 5: 66.23% against 66.16%), and never below
    ``leave_at_least``."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (250, 200, 400, 2550, 2750, 7500), open_at=500,
                leave_at_least=200, finish_within=300, finish_dice=3)
    compiled = card.compiled(rules)
    banks = {(turn, dice): card_bank(compiled, rules, 14500, [10000], turn, dice)
             for turn in (150, 200, 250, 350) for dice in (3, 4, 5)}
    assert banks == {(150, 3): False, (200, 3): True, (250, 3): True, (350, 3): False,
                     (150, 4): False, (200, 4): False, (250, 4): False, (350, 4): False,
                     (150, 5): False, (200, 5): False, (250, 5): False, (350, 5): False}
    any_dice = dataclasses.replace(card, finish_dice=0).compiled(rules)
    assert card_bank(any_dice, rules, 14500, [10000], 200, 5)
    assert "or bank whatever leaves 300 or less to 15,000, with 3 dice or fewer" \
        in card.text(rules)


def test_the_finish_may_want_enough_left_to_go():
    """cinq-mille-exact at 4,600 against 4,300 with 3 dice (its table,
    `farkle advise cinq-mille-exact --me 4600 --opp 4300 --turn 200 --dice
    3`): with 200 set aside, the bank, leaving 200, wins 78.31% against the
    roll's 75.73%; with 300 set aside, leaving 100, the roll wins, 82.52%
    against 81.24%. A finish from 150 to 200 left banks the first and
    not the second; with more than 3 dice, neither; and near the other
    player's end it may yield."""
    rules = get_rules("cinq-mille-exact")
    card = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750,
                finish_within=200, finish_from=150, finish_dice=3)
    compiled = card.compiled(rules)
    assert card_bank(compiled, rules, 4600, [4300], 200, 3)
    assert not card_bank(compiled, rules, 4600, [4300], 300, 3)
    assert not card_bank(compiled, rules, 4600, [4300], 200, 4)
    unbounded = dataclasses.replace(card, finish_from=0).compiled(rules)
    assert card_bank(unbounded, rules, 4600, [4300], 300, 3)
    assert "or bank whatever leaves between 150 and 200 to 5,000, with 3 dice or fewer" \
        in card.text(rules)
    # Against 4,750 the roll wins, 43.85% against 40.02% (`--opp 4750`):
    # the other player may finish before the 200 left is made.
    yielding = dataclasses.replace(card, finish_yields_within=250)
    assert card_bank(compiled, rules, 4600, [4750], 200, 3)
    assert not card_bank(yielding.compiled(rules), rules, 4600, [4750], 200, 3)
    assert card_bank(yielding.compiled(rules), rules, 4600, [4300], 200, 3)
    assert "with 3 dice or fewer, unless the other player is within 250 of it\n" \
        in yielding.text(rules)


def test_the_most_points_come_later_when_chasing_and_sooner_when_leading():
    """cinq-mille-exact's table (`farkle advise cinq-mille-exact --me 3000
    --opp 4600 --turn 700 --roll 1 5 2 2 3`): with the other player within
    500 of the end and 700 set aside, keeping the 1 alone (4 dice left)
    wins 13.87%, 1 5 (3 dice) 11.83%, so the most points from 600 costs
    there; leading 3,000 to 2,000 with 450 set aside (`--opp 2000 --turn
    450`), 1 5 then the bank wins 87.70%, the 1 alone 87.16%, so a leader
    wants the most points before 600."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps
    rules = get_rules("cinq-mille-exact")
    card = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), behind=50, gap_step=500,
                chase_within=500, chase_bank=(300, 350, 700, 3200, 3700), open_at=750,
                left_worth=(100, 50, 100, 200, 250), most_points_from=600,
                bank_keep_worth=25)
    fitted = dataclasses.replace(card, chase_most_points_from=2000, lead_most_points_from=250)

    def kept(card, opponent, turn_total):
        options = list(keeps(rules, counts_of([1, 5, 2, 2, 3])))
        return sorted(card_keep(card.compiled(rules), rules, 3000, [opponent], turn_total, 5,
                                options).dice)
    assert kept(card, 4600, 700) == [1, 5] and kept(fitted, 4600, 700) == [1]
    assert kept(card, 2000, 450) == [1] and kept(fitted, 2000, 450) == [1, 5]
    # Behind and not chased, the 600 stands (3,000 against 3,500, 450 set aside).
    assert kept(fitted, 3500, 450) == kept(card, 3500, 450) == [1]
    assert "with 600 or more set aside: the most points (2,000 if the other player is " \
        "within 500 of 5,000, else 250 if you lead)." in fitted.text(rules)
    # From the target on is never: no turn total gets there.
    never = dataclasses.replace(fitted, chase_most_points_from=5000)
    assert kept(never, 4600, 700) == [1]
    assert "the most points (never if the other player is within 500 of 5,000, else 250 " \
        "if you lead)." in never.text(rules)


def test_near_an_exact_target_the_card_keeps_what_leaves_a_good_remainder():
    """cinq-mille-exact at 4,700 against 4,000, nothing set aside (its
    committed table: `farkle advise cinq-mille-exact --me 4700 --opp 4000
    --roll 1 1 2 3 4`): keeping 1 1 (100 to go, 3 dice) wins 89.75%, a lone 1
    (200 to go, 4 dice) 88.37%; after 1 5 5 2 3 the lone 1 is best (88.37%),
    then 1 5 5 (87.93%), 5 5 (85.82%), 1 5 (85.71%) and 5 (85.22%): a
    remainder of 50 or 150 wants a 5. Ranked by points and dice left the
    card takes the lone 1 both times; with the end rule (within 500: 50 a
    die, 100 off a remainder that needs a 5) it takes the best keep both
    times, and ranks the second roll's keeps as the table does."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps
    rules = get_rules("cinq-mille-exact")
    usual = Card("cinq-mille-exact", (200, 250, 550, 800, 2100), open_at=750,
                 left_worth=(100, 50, 100, 200, 250))
    ended = dataclasses.replace(usual, end_within=500, end_die=50, odd_fifty=100)

    def ranked(card, roll):
        options = list(keeps(rules, counts_of(roll)))
        order = []
        while options:
            best = card_keep(card.compiled(rules), rules, 4700, [4000], 0, 5, options)
            order.append(sorted(best.dice))
            options.remove(best)
        return order
    assert ranked(usual, [1, 1, 2, 3, 4])[0] == [1]
    assert ranked(ended, [1, 1, 2, 3, 4])[0] == [1, 1]
    assert ranked(ended, [1, 5, 5, 2, 3]) == [[1], [1, 5, 5], [5, 5], [1, 5], [5]]
    text = ended.text(rules)
    assert "leaving 500 or less to 5,000: the points + 50 a die left to roll, 100 less if " \
        "that needs a 5 (50, 150, ...)." in text
    # In a game to at least the target the rule does nothing.
    at_least = get_rules("cinq-mille")
    assert ended.compiled(at_least).end_within == 0


def test_a_lone_die_offered_is_taken_from_its_own_threshold():
    """quinze-mille-free-keep at 9,000 against 9,000 (its table: `farkle
    advise quinze-mille-free-keep --me 9000 --opp 9000 --offer 1500,1`):
    a fresh turn wins 53.69%; one die offered with 1,500 wins 52.72% and
    with 2,000 53.38%, with 3,000 53.82%; two dice with 1,000 55.80%. A line
    through the offers of more dice (1,000 less 150 a die) takes the lone
    die from 850; with ``take_one_at`` 3,000 the card takes it as optimal
    play does, and the other offers as before."""
    from solver.card_sheet import card_take
    rules = get_rules("quinze-mille-free-keep")
    line = Card("quinze-mille-free-keep", (250,) * 6, open_at=500, take_at=1000, take_die=150)
    card = dataclasses.replace(line, take_one_at=3000)
    offers = [(1500, 1), (2000, 1), (3000, 1), (1000, 2)]
    assert [card_take(card.compiled(rules), rules, 9000, [9000], *o) for o in offers] \
        == [False, False, True, True]
    assert [card_take(line.compiled(rules), rules, 9000, [9000], *o) for o in offers] \
        == [True, True, True, True]
    assert "Take over: when the total + 150 per die offered is 1,000 or more; one die: " \
        "from 3,000." in card.text(rules)


def test_near_the_end_the_card_takes_an_offer_that_finishes():
    """dix-mille at 9,650 (its table: `farkle advise dix-mille --me 9650
    --opp OPP --offer T,N`): against 9,800, two dice offered with 250
    (100 left, a lone 1 finishes it): the take wins 50.08%, a fresh turn
    40.04%; against 9,750, three dice with 150 (200 left): the take,
    46.92% against 43.59%; two dice with 150: the fresh turn, 43.59%
    against 40.97%. A card that takes an offer leaving 100, or up to 200
    with 3 dice or more, does the same; the line through the offers (800,
    150 a die) takes none of them."""
    from solver.card_sheet import card_take
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 200, 250, 2750, 5000), open_at=350, take_at=800,
                 take_die=150)
    card = dataclasses.replace(plain, take_finish_within=200, take_finish_dice=3)
    cases = [([9800], (250, 2)), ([9750], (150, 3)), ([9750], (150, 2))]
    assert [card_take(card.compiled(rules), rules, 9650, opp, *o) for opp, o in cases] \
        == [True, True, False]
    assert [card_take(plain.compiled(rules), rules, 9650, opp, *o) for opp, o in cases] \
        == [False, False, False]
    assert "; and any offer that leaves 100 to 10,000 (up to 200 with 3 dice or more)." \
        in card.text(rules)


def test_behind_the_card_takes_a_lone_die_sooner():
    """quinze-mille at 12,000, one die offered with 1,100 (its table:
    `farkle advise quinze-mille --me 12000 --opp OPP --offer 1100,1`):
    against 13,500 the take wins 32.84%, a fresh turn 32.02%; against
    12,500 the fresh turn wins, 46.60% against 45.35% (and with 1,700
    offered the take, 47.21%). A card that takes one die from 1,700, from
    1,100 when behind by 1,000 or more, does the same; without the second
    threshold it refuses the first."""
    from solver.card_sheet import card_take
    rules = get_rules("quinze-mille")
    plain = Card("quinze-mille", (300,) * 6, open_at=500, take_at=950, take_die=150,
                 take_one_at=1700)
    card = dataclasses.replace(plain, take_one_behind=1100, take_one_behind_by=1000)
    cases = [([13500], (1100, 1)), ([12500], (1100, 1)), ([12500], (1700, 1))]
    assert [card_take(card.compiled(rules), rules, 12000, opp, *o) for opp, o in cases] \
        == [True, False, True]
    assert [card_take(plain.compiled(rules), rules, 12000, opp, *o) for opp, o in cases] \
        == [False, False, True]
    assert "one die: from 1,700, from 1,100 when behind by 1,000 or more." \
        in card.text(rules)


def test_a_big_keep_of_hot_dice_that_must_be_rolled_counts_less():
    """dix-mille-free-keep at 5,000 each, 3 3 3 3 1 thrown (its table:
    `farkle advise dix-mille-free-keep --me 5000 --opp 5000 --roll 3 3 3 3
    1`): 3 3 3 3 (3,000) then a bank wins 77.23%, all five (3,100, hot dice
    that must be rolled) 67.63%; 1 1 1 5 5 thrown, 1 1 1 5 (1,050) then a
    bank wins 63.88%, all five 61.36%. A card whose dice left are worth
    more than the points (five dice 250, one 125) keeps all five both
    times; counting a hot-dice keep 100 less per 1,000 from 1,500, it keeps
    3 3 3 3 and still all of 1 1 1 5 5 (below 1,500)."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps
    rules = get_rules("dix-mille-free-keep")
    plain = Card("dix-mille-free-keep", (200, 150, 500, 4100, 5000), open_at=350,
                 left_worth=(125, 75, 100, 225, 250), bank_keep_worth=50)
    card = dataclasses.replace(plain, hot_dice_from=1500, hot_dice_cost=100)

    def kept(c, roll):
        return card_keep(c.compiled(rules), rules, 5000, [5000], 0, 5,
                         keeps(rules, counts_of(roll))).points
    assert [kept(plain, [3, 3, 3, 3, 1]), kept(plain, [1, 1, 1, 5, 5])] == [3100, 1100]
    assert [kept(card, [3, 3, 3, 3, 1]), kept(card, [1, 1, 1, 5, 5])] == [3000, 1100]
    assert "a keep of every die (all 5 to roll again) that brings the turn total to 1,500 " \
        "or more: 100 less per 1,000 of the turn total it brings." in card.text(rules)
    assert "a keep of every die (all 5 to roll again): 100 less per 1,000 of the turn total " \
        "it brings." in dataclasses.replace(card, hot_dice_from=0).text(rules)
    # Where hot dice may be banked, the rule does nothing.
    assert card.compiled(get_rules("cinq-mille")).hot_dice == 0


def test_once_points_are_set_aside_the_dice_left_are_worth_another_row():
    """quinze-mille-free-keep at 5,000 each, 1 5 5 2 3 thrown with 5 dice
    (its table: `farkle advise quinze-mille-free-keep --me 5000 --opp 5000
    --turn T --dice 5 --roll 1 5 5 2 3`): with 500 set aside, 1 5 5 (two
    dice left) then a bank wins 55.63%, the 1 alone then a roll 54.52%;
    with 100 set aside the 1 alone wins, 51.09% against 50.74%. A card
    whose two dice left are worth 50 and four 175 keeps the 1 both times;
    worth 150 from 350 set aside, it keeps 1 5 5 with 500."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 3100, 6650, 7500), open_at=500,
                 left_worth=(100, 50, 50, 175, 350, 200))
    card = dataclasses.replace(plain, late_from=350, late_worth=(200, 150, 100, 175, 300, 300))

    def kept(c, turn_total):
        return card_keep(c.compiled(rules), rules, 5000, [5000], turn_total, 5,
                         keeps(rules, counts_of([1, 5, 5, 2, 3]))).points
    assert [kept(plain, 100), kept(plain, 500)] == [100, 100]
    assert [kept(card, 100), kept(card, 500)] == [100, 200]
    assert "  from 350 set aside: 6: 300 | 5: 300 | 3: 100 | 2: 150 | 1: 200." \
        in card.text(rules)
    # A late row like the usual one, or from no total, is no row.
    assert dataclasses.replace(card, late_worth=plain.left_worth).in_play().late_worth == ()
    assert dataclasses.replace(card, late_from=0).in_play() == plain


def test_the_card_offers_no_finish_to_the_other_player():
    """quinze-mille, 200 set aside with 3 dice (its table: `farkle advise
    quinze-mille --me ME --opp OPP --turn 200 --dice 3`):

    - at 14,600 against 14,700, banking wins 39.20%, rolling on 50.23%
      (the other player takes the offer at 14,900 and needs a 1 of 3
      dice); with 1 die the bank wins 45.77%, the roll 41.26%;
    - at 14,550 against 14,500 the bank wins 55.41%, the roll 51.25% (the
      bank leaves 250 to go; taking over leaves them 300);
    - at 14,000 against 14,700 the roll wins 30.07%, the bank 23.53%;
    - at 14,600 against 10,000 the bank wins 95.62%, the roll 94.32%.

    The finish (300 or less left, 3 dice or fewer) comes before the offer
    rule (3 dice or more, not within 400), and yields where the offer
    brings the other player within 100: the card plays each as optimal
    play does. Without the exception the finish banks at 14,600 against
    14,700. An exception as wide as the offer rule is the offer rule
    first, the order of the cards fitted before the exception."""
    rules = get_rules("quinze-mille")
    plain = Card("quinze-mille", (250, 200, 200, 1750, 3150, 7500), open_at=500,
                 finish_within=300, finish_dice=3, offer_within=400, offer_dice=3)
    card = dataclasses.replace(plain, finish_unless_within=100)
    compiled = card.compiled(rules)
    assert card_bank(plain.compiled(rules), rules, 14600, [14700], 200, 3)
    assert not card_bank(compiled, rules, 14600, [14700], 200, 3)
    assert card_bank(compiled, rules, 14600, [14700], 200, 1)
    assert card_bank(compiled, rules, 14550, [14500], 200, 3)
    assert not card_bank(compiled, rules, 14000, [14700], 200, 3)
    assert card_bank(compiled, rules, 14600, [10000], 200, 3)
    text = card.text(rules)
    assert "unless, with 3 dice or more, the other player, taking over, would be within 100 " \
        "of it" in text
    assert "else, with 3 dice or more, never bank if the other player, taking over, would " \
        "be within 400 of 15,000" in text
    # An exception as wide as the offer rule is the old order, the offer rule
    # first: no bank at 14,550 against 14,500, and the card says it so.
    old_order = dataclasses.replace(plain, finish_unless_within=400)
    assert not card_bank(old_order.compiled(rules), rules, 14550, [14500], 200, 3)
    assert "  with 3 dice or more, never bank if the other player, taking over, would be " \
        "within 400 of 15,000\n  or bank whatever leaves 300 or less to 15,000, with 3 dice " \
        "or fewer\n" in old_order.text(rules)


def test_with_two_dice_the_card_offers_no_finish_either():
    """quinze-mille at 13,000, 300 set aside (its table: `farkle advise
    quinze-mille --me 13000 --opp OPP --turn 300 --dice N`): against 14,600
    with 2 dice the roll wins 22.68%, the bank 20.08% (the other player
    would take over at 14,900); against 14,000 the bank wins, 33.13%
    against 32.62%; against 14,600 with 1 die the bank wins, 22.91% against
    22.90% (a lone die's offer is seldom taken). A card whose offer rule
    holds from 3 dice, within 2,600, and with 2 dice within 100, plays
    each as optimal play does; without the second window it banks the
    first."""
    rules = get_rules("quinze-mille")
    plain = Card("quinze-mille", (250, 250, 400, 2300, 3150, 7500), open_at=500,
                 offer_within=2600, offer_dice=3)
    card = dataclasses.replace(plain, offer_fewer_within=100)
    compiled = card.compiled(rules)
    assert card_bank(plain.compiled(rules), rules, 13000, [14600], 300, 2)
    assert not card_bank(compiled, rules, 13000, [14600], 300, 2)
    assert card_bank(compiled, rules, 13000, [14000], 300, 2)
    assert card_bank(compiled, rules, 13000, [14600], 300, 1)
    assert "  with 3 dice or more, never bank if the other player, taking over, would be " \
        "within 2,600 of 15,000 (with 2 dice, within 100)\n" in card.text(rules)
    alone = dataclasses.replace(card, offer_within=0)
    assert not card_bank(alone.compiled(rules), rules, 13000, [14600], 300, 2)
    assert "  with 2 dice, never bank if the other player, taking over, would be within 100 " \
        "of 15,000\n" in alone.text(rules)


def test_on_the_last_cross_the_card_offers_more_dice():
    """dix-mille at 9,650 against 9,700, 150 set aside with 3 dice (its
    table: `farkle advise dix-mille --me 9650 --opp 9700 --turn 150 --dice 3
    --crosses C [--previous 9400]`): on the last cross (2 crosses, 9,400
    before the last bank) the bank wins, 49.01% against 48.70% (a zero turn
    would fall back to 9,400 as well); with no cross the roll wins, 49.33%
    against 49.01% (the other player would take over at 9,850). The card
    whose offer rules hold from 4 dice on the last cross (3 elsewhere)
    plays both as optimal play does: the bank leaves 200 to go, its
    finish; without the field it rolls on the last cross too."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 2750, 5000), open_at=350, last_cross=200,
                 finish_within=300, leave_at_least=200, offer_within=2800, offer_dice=3,
                 offer_fewer_within=100, finish_unless_within=250)
    card = dataclasses.replace(plain, last_cross_offer_dice=4)
    last_cross = Line(9650, crosses=2, previous=9400)
    assert card_bank(card.compiled(rules), rules, last_cross, [9700], 150, 3)
    assert not card_bank(card.compiled(rules), rules, Line(9650), [9700], 150, 3)
    assert not card_bank(plain.compiled(rules), rules, last_cross, [9700], 150, 3)
    assert "  on your last cross: take 200 off, and count the offer rules below from 4 " \
        "dice, not 3\n" in card.text(rules)
    assert "count the offer rules" not in plain.text(rules)


def test_with_a_cross_the_card_finishes_sooner():
    """dix-mille at 9,500 against 9,000 (its table: `farkle advise dix-mille
    --me 9500 --opp 9000 --crosses C --previous 9000 --turn T --dice N`):
    with 250 set aside and 4 dice (leaving 250) the roll wins with no cross,
    68.80% against 68.55%, the bank with one cross, 68.55% against 66.88%;
    with 350 and 2 dice (leaving 150) the roll wins with no cross, 65.52%
    against 64.83%, the bank with one cross, 64.83% against 62.80%: a zero
    turn would cost a cross too. The card with the finish for 3 dice or
    fewer (any with a cross) and 150 to leave with two dice and a cross
    plays the four as optimal play does; a fallen player (previous score
    equal to the score) has no fall ahead and plays as with no cross."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 2750, 5000), open_at=350, finish_within=300,
                 finish_dice=3, leave_at_least=200, lone_die_leaves=150)
    card = dataclasses.replace(plain, crossed_finish_dice=5, crossed_two_dice_leaves=150)
    compiled = card.compiled(rules)
    crossed, fallen = Line(9500, crosses=1, previous=9000), Line(9500, crosses=1, previous=9500)
    for line, banks in ((Line(9500), False), (crossed, True), (fallen, False)):
        assert card_bank(compiled, rules, line, [9000], 250, 4) == banks
        assert card_bank(compiled, rules, line, [9000], 350, 2) == banks
        assert not card_bank(plain.compiled(rules), rules, line, [9000], 350, 2)
    assert "(150 with one die; with a cross, 150 with two)" in card.text(rules)
    assert "300 or less to 10,000, with 3 dice or fewer (any dice with a cross)" in card.text(rules)
    assert "with a cross" not in plain.text(rules)


def test_cross_states_read_the_table_states_as_the_score_sheet():
    """A table state's crosses (``cross_states``, the evaluation's and the
    simulator's) and a score-sheet line's (``cross_state``, advice's) are
    the same reading: on a small dix-mille, every state of the exact
    memory, with the count of each kind not zero (so the test can fail)."""
    from solver.states import (CROSSED, LAST_CROSS, NO_CROSS, cross_state, cross_states,
                               player_space)
    rules = get_rules("dix-mille", target=700)
    space = player_space(rules, memory="exact")
    codes = cross_states(rules, space)
    for p in range(space.size):
        score, crosses, previous = (int(space.score[p]), int(space.crosses[p]),
                                    int(space.previous[p]))
        assert codes[p] == cross_state(rules, score, crosses, previous)
        if crosses == 0 or previous == score:
            assert codes[p] == NO_CROSS
    assert {NO_CROSS, CROSSED, LAST_CROSS} == set(codes.tolist())


def test_a_big_turn_total_banks_even_leaving_little_to_go():
    """quinze-mille at 13,000 against 12,000 (its table: `farkle advise
    quinze-mille --me 13000 --opp 12000 --turn 1850 --dice 1`): banking
    1,850 with 1 die, which leaves 150 to go, wins 74.90% against 62.39%
    for a roll; at 14,500 with 350 (`--me 14500 --opp 12000 --turn 350
    --dice 1`) the roll wins, 82.80% against 78.04%. ``leave_at_least``
    200 alone rolls on both times; with ``leave_unless`` 1,500 the card
    banks the first and rolls on the second."""
    rules = get_rules("quinze-mille")
    strict = Card("quinze-mille", (250, 200, 400, 1750, 3150, 7500), open_at=500,
                  leave_at_least=200)
    card = dataclasses.replace(strict, leave_unless=1500)
    assert not card_bank(strict.compiled(rules), rules, 13000, [12000], 1850, 1)
    assert card_bank(card.compiled(rules), rules, 13000, [12000], 1850, 1)
    assert not card_bank(card.compiled(rules), rules, 14500, [12000], 350, 1)
    assert "never bank leaving less than 200 to 15,000 with less than 1,500 set aside" \
        in card.text(rules)


def test_a_lone_die_may_bank_leaving_less_to_go():
    """dix-mille at 9,500 against 9,000 with 350 set aside, which a bank
    leaves 150 short (its table: `farkle advise dix-mille --me 9500 --opp
    9000 --turn 350 --dice 1`): with one die the bank wins, 64.83% against
    62.34% for a roll; with two (`--dice 2`) the roll, 65.52% against
    64.83%. ``leave_at_least`` 200 rolls on both; with ``lone_die_leaves``
    150 the card banks the lone die and still rolls the two."""
    rules = get_rules("dix-mille")
    strict = Card("dix-mille", (200, 200, 250, 2750, 5000), open_at=350, leave_at_least=200)
    card = dataclasses.replace(strict, lone_die_leaves=150)
    assert not card_bank(strict.compiled(rules), rules, 9500, [9000], 350, 1)
    assert card_bank(card.compiled(rules), rules, 9500, [9000], 350, 1)
    assert not card_bank(card.compiled(rules), rules, 9500, [9000], 350, 2)
    assert "never bank leaving less than 200 (150 with one die) to 10,000" in card.text(rules)
    assert "with one die" not in strict.text(rules)
    assert "  with one die, never bank leaving less than 150 to 10,000\n" in \
        dataclasses.replace(card, leave_at_least=0).text(rules)


def test_an_amount_to_leave_of_one_unit_goes_unsaid():
    """A bank leaves 50 or more to go (the target reached wins, and a
    bank needs the score below it: ``solver.turn_rules.may_bank``), so
    "never bank leaving less than 50" forbids nothing: the card banks 300
    at 14,650 with 2 dice as the card without it, and its text leaves
    the line out (a line the 15 of a card cannot spare)."""
    rules = get_rules("quinze-mille")
    bare = Card("quinze-mille", (250, 200, 400, 1750, 3150, 7500), open_at=500)
    card = dataclasses.replace(bare, leave_at_least=50, lone_die_leaves=50)
    assert card_bank(card.compiled(rules), rules, 14650, [10000], 300, 2)
    assert card_bank(bare.compiled(rules), rules, 14650, [10000], 300, 2)
    assert "never bank leaving" not in card.text(rules)
    assert "  with one die, never bank leaving less than 150 to 15,000\n" in \
        dataclasses.replace(card, lone_die_leaves=150).text(rules)


def test_a_threshold_of_0_reads_as_any_total():
    """A card that banks with 2 dice whatever the total says so, and banks
    there from the smallest total a turn with 2 dice left can hold."""
    rules = get_rules("dix-mille")
    card = Card("dix-mille", (200, 0, 250, 2750, 5000), open_at=350)
    assert "by dice left to roll: 5: 5,000 | 4: 2,750 | 3: 250 | 2: any | 1: 200\n" \
        in card.text(rules)
    assert card_bank(card.compiled(rules), rules, 3000, [3000], 150, 2)
    assert not card_bank(card.compiled(rules), rules, 3000, [3000], 150, 1)


def test_near_the_other_player_s_end_the_card_banks_by_a_row_of_its_own():
    """cinq-mille-exact at 4,000 against 4,600 (its table: `farkle advise
    cinq-mille-exact --me 4000 --opp 4600 --turn 250 --dice 2`): rolling on
    wins 23.81%, banking 250 with 2 dice 19.97%; against 3,000 (`--opp
    3000`) the bank wins, 85.80% against 84.45%. A card that banks 200 with
    2 dice banks both; with a row of 300 once the other player is within
    500 of 5,000 it rolls on against 4,600 and still banks against 3,000."""
    rules = get_rules("cinq-mille-exact")
    plain = Card("cinq-mille-exact", (150, 200, 550, 800, 2100), open_at=750)
    card = dataclasses.replace(plain, chase_within=500,
                               chase_bank=(250, 300, 550, 800, 2100))
    assert card_bank(plain.compiled(rules), rules, 4000, [4600], 250, 2)
    assert not card_bank(card.compiled(rules), rules, 4000, [4600], 250, 2)
    assert card_bank(card.compiled(rules), rules, 4000, [3000], 250, 2)
    assert "the other player within 500 of 5,000: bank at 2: 300 | 1: 250\n" in card.text(rules)


def test_near_its_own_end_the_card_banks_by_a_row_of_its_own():
    """cinq-mille-exact at 4,350 against 4,000 with 400 set aside and 3
    dice (its table: `farkle advise cinq-mille-exact --me 4350 --opp 4000
    --turn 400 --dice 3`): banking wins 80.50%, rolling on 77.85%. A card
    that banks at 550 with 3 dice rolls on; with a row of 400 once the
    player is within 800 of 5,000 it banks, and 1,000 from it (at 4,000)
    it still rolls on."""
    rules = get_rules("cinq-mille-exact")
    plain = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750)
    card = dataclasses.replace(plain, home_within=800, home_bank=(150, 150, 400, 550, 600))
    assert not card_bank(plain.compiled(rules), rules, 4350, [4000], 400, 3)
    assert card_bank(card.compiled(rules), rules, 4350, [4000], 400, 3)
    assert not card_bank(card.compiled(rules), rules, 4000, [4000], 400, 3)
    assert "  yourself within 800 of 5,000: bank at 5: 600 | 4: 550 | 3: 400 | 2: 150\n" \
        in card.text(rules)
    # Where the row near the other player's end applies too, it decides.
    chasing = dataclasses.replace(card, chase_within=300, chase_bank=plain.bank)
    assert not card_bank(chasing.compiled(rules), rules, 4350, [4750], 400, 3)
    assert "  else, yourself within 800" in chasing.text(rules)


def test_a_card_in_play_drops_only_the_rows_it_never_uses():
    """A row without its condition, or that repeats the bank row, plays as
    no row (the card banks alike at every score, the other player's, turn
    total and dice in hand tried), so the search measures such cards once;
    a row in use stays."""
    rules = get_rules("cinq-mille-exact")
    plain = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750)
    idle = dataclasses.replace(plain, chase_bank=(300, 350, 1450, 3200, 3700),
                               home_bank=(150, 150, 400, 550, 600))
    repeated = dataclasses.replace(plain, home_within=800, home_bank=plain.bank)
    states = [(me, opp, turn, dice) for me in (2000, 4300, 4600) for opp in (2000, 4800)
              for turn in range(50, 400, 50) for dice in range(1, 6) if me + turn < 5000]

    def banks(card):
        return [card_bank(card.compiled(rules), rules, me, [opp], turn, dice)
                for me, opp, turn, dice in states]
    for card in (idle, repeated):
        assert card.in_play() == plain
        assert banks(card) == banks(plain)
    used = dataclasses.replace(idle, home_within=800)
    assert used.in_play() == dataclasses.replace(used, chase_bank=())
    assert used.in_play() != plain


def test_leaving_little_to_go_counts_beyond_the_dice():
    """cinq-mille-exact at 4,400 against 4,000 with 150 set aside, after
    1 1 2 with 3 dice (its table: `farkle advise cinq-mille-exact --me 4400
    --opp 4000 --turn 150 --dice 3 --roll 1 1 2`): keeping 1 1 (250 to go,
    one die) wins 80.50%, a lone 1 (350 to go, two dice) 72.49%. With the
    end rule within 250 (50 a die, 100 less where what is left needs a 5)
    1 1 counts 200 + 50 - 100 = 150, the lone 1 as usual 100 + 50 for two
    dice + 25 for the bank after it = 175; worth 100 more, 1 1 comes first."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps
    rules = get_rules("cinq-mille-exact")
    card = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750,
                left_worth=(100, 50, 100, 200, 250), bank_keep_worth=25, end_within=250,
                end_die=50, odd_fifty=100)
    options = list(keeps(rules, counts_of([1, 1, 2])))

    def kept(card):
        return sorted(card_keep(card.compiled(rules), rules, 4400, [4000], 150, 3, options).dice)
    assert kept(card) == [1]
    bonus = dataclasses.replace(card, end_bonus=100)
    assert kept(bonus) == [1, 1]
    assert "leaving 250 or less to 5,000: the points + 100 + 50 a die left to roll, 100 less " \
        "if that needs a 5 (50, 150, ...)." \
        in bonus.text(rules)


def test_far_behind_the_card_banks_by_that_row_too():
    """quinze-mille at 3,000 against 6,000 (its table: `farkle advise
    quinze-mille --me 3000 --opp 6000 --turn 800 --dice 3`): rolling on
    wins 26.21%, banking 800 with 3 dice 25.86%; against 3,500 (`--opp
    3500`) the bank wins, 50.58% against 49.50%. With the row's 3 dice at
    2,000 for a lead of 2,000 or more, the card rolls on against 6,000 and
    banks against 3,500."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (250, 200, 400, 2000, 3150, 7500), open_at=500,
                chase_behind=2000, chase_bank=(250, 200, 2000, 2000, 3150, 7500))
    compiled = card.compiled(rules)
    assert not card_bank(compiled, rules, 3000, [6000], 800, 3)
    assert card_bank(compiled, rules, 3000, [3500], 800, 3)
    assert "trailing by 2,000 or more: bank at 3: 2,000\n" in card.text(rules)


def test_a_card_read_back_from_json_is_the_card_it_was():
    """A card written to JSON (as solver/cards.json keeps it) and read back
    is equal to it, and hashable, as a search keeps its measured cards by
    card (``fit_cards.py --from-stored``): its rows come back as tuples."""
    card = Card("quinze-mille", (250, 200, 400, 2000, 3150, 7500), open_at=500,
                chase_within=2950, chase_bank=(250, 250, 700, 2000, 3150, 7500),
                left_worth=(100, 50, 100, 200, 250, 300))
    again = Card.from_dict(json.loads(json.dumps(card.to_dict())))
    assert again == card
    assert {again: 1}[card] == 1


def test_the_card_banks_what_leaves_five_hundred_or_fifteen_hundred():
    """dix-mille against 8,000 with 3 dice (its table: `farkle advise
    dix-mille --me S --opp 8000 --turn T --dice N`): at 9,300 with 200 set
    aside the bank (to 9,500, 500 to go: three 5s make it) wins 75.24%, the
    roll 74.29%; at 8,300 with 200 (1,500 to go: a straight) the bank,
    57.10% against 55.80%; at 9,250 with 200 (to 9,450) the roll, 73.23%
    against 72.36%; at 9,300 with 200 and 4 dice the roll, 75.53% against
    75.24%. A card that banks 3 dice from 250 and whatever leaves 500 or
    1,500 with 3 dice or fewer does the same; without the rule it rolls
    all four."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350)
    card = dataclasses.replace(plain, five_hundreds_within=1500, five_hundreds_dice=3)
    cases = [(9300, 200, 3), (8300, 200, 3), (9250, 200, 3), (9300, 200, 4)]
    assert [card_bank(card.compiled(rules), rules, me, [8000], t, n) for me, t, n in cases] \
        == [True, True, False, False]
    assert [card_bank(plain.compiled(rules), rules, me, [8000], t, n) for me, t, n in cases] \
        == [False, False, False, False]
    assert "  or bank whatever leaves 500 or 1,500 to 10,000 with 3 dice or fewer " \
        "(three 5s, a straight)" in card.text(rules)


def test_with_two_dice_the_card_may_offer_fifty_to_go_but_not_a_hundred():
    """dix-mille at 9,300 with 2 dice (its table: `farkle advise dix-mille
    --me 9300 --opp OPP --turn T --dice 2`): against 9,550 with 400 set
    aside (the taker would need 50) the bank wins 50.18%, the roll 50.04%;
    against 9,600 with 300 (they would need 100: a 1, or two 5s) the roll,
    44.81% against 39.27%. A card whose two-dice offer window is exactly
    100 does the same; one within 100 rolls both."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350, offer_within=4300,
                 offer_dice=3, offer_fewer_within=100)
    card = dataclasses.replace(plain, offer_fewer_from=100)
    cases = [([9550], 400), ([9600], 300)]
    assert [card_bank(card.compiled(rules), rules, 9300, opp, t, 2) for opp, t in cases] \
        == [True, False]
    assert [card_bank(plain.compiled(rules), rules, 9300, opp, t, 2) for opp, t in cases] \
        == [False, False]
    assert "(with 2 dice, exactly 100)" in card.text(rules)


def test_the_card_takes_a_lone_die_sooner_from_a_player_near_the_end():
    """dix-mille at 7,000, one die offered with 1,000 (its table: `farkle
    advise dix-mille --me 7000 --opp OPP --offer 1000,1`): from a player at
    8,700 the take wins 29.53%, a fresh turn 28.45%; from one at 5,000 the
    fresh turn, 72.98% against 72.76%. A card that takes a lone die from
    1,200, or from 700 where its maker is within 1,300 of 10,000, does the
    same; without the second threshold it refuses both."""
    from solver.card_sheet import card_take
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350, take_at=800,
                 take_die=150, take_one_at=1200, chase_within=1300)
    card = dataclasses.replace(plain, take_one_chasing=700)
    cases = [[8700], [5000]]
    assert [card_take(card.compiled(rules), rules, 7000, opp, 1000, 1) for opp in cases] \
        == [True, False]
    assert [card_take(plain.compiled(rules), rules, 7000, opp, 1000, 1) for opp in cases] \
        == [False, False]
    assert "from 700 if they are within 1,300 of 10,000" in card.text(rules)


def test_on_the_last_cross_the_card_takes_over_later():
    """dix-mille at 5,000 against 6,000, two dice offered with 650 (its
    table: `farkle advise dix-mille --me 5000 --opp 6000 --offer 650,2
    --crosses C --previous 4000`): with no cross the take wins 41.76%, a
    fresh turn 40.96%; on the last cross (two crosses, a fall to 4,000
    ahead) the fresh turn, 39.68% against 38.16%. A card that takes from
    800 (the total + 150 a die), 200 more on the last cross, does the
    same; without the shift it takes both."""
    from solver.card_sheet import card_take
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350, take_at=800,
                 take_die=150)
    card = dataclasses.replace(plain, last_cross_take_more=200)
    lines = [Line(5000), Line(5000, crosses=2, previous=4000)]
    assert [card_take(card.compiled(rules), rules, me, [6000], 650, 2) for me in lines] \
        == [True, False]
    assert [card_take(plain.compiled(rules), rules, me, [6000], 650, 2) for me in lines] \
        == [True, True]
    assert "on your last cross: take over only from 200 more" in card.text(rules)


def test_where_the_other_player_may_not_take_over_the_card_banks_by_a_row_of_its_own():
    """quinze-mille-free-keep with 1,500 set aside and 4 dice (its table:
    `farkle advise quinze-mille-free-keep --me 3000 --opp 4000 --turn 1500
    --dice 4`): at 3,000 against 4,000, who may not take over (short of
    5,000), banking wins 52.88%, rolling on 52.12%; at 6,000 against 7,000
    (`--me 6000 --opp 7000`) rolling on wins 47.76%, banking 45.82%. A card
    that banks at 2,300 with 4 dice rolls on at both; with a row of 1,000
    where the other player may not take over it banks the first and still
    rolls on at the second."""
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 2300, 4650, 7500), open_at=500)
    card = dataclasses.replace(plain, safe_bank=(250, 200, 400, 1000, 2600, 7500))
    assert not card_bank(plain.compiled(rules), rules, 3000, [4000], 1500, 4)
    assert card_bank(card.compiled(rules), rules, 3000, [4000], 1500, 4)
    assert not card_bank(card.compiled(rules), rules, 6000, [7000], 1500, 4)
    assert "  the other player short of 5,000 (no take-over): bank at 5: 2,600 | 4: 1,000\n" \
        in card.text(rules)
    # Where any entered player may take over, the row is for one not entered.
    dix = get_rules("dix-mille")
    entered = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350,
                   safe_bank=(200, 0, 250, 1000, 5000))
    assert "  the other player not entered (no take-over): bank at 4: 1,000\n" \
        in entered.text(dix)
    assert card_bank(entered.compiled(dix), dix, 2000, [0], 1000, 4)
    assert not card_bank(entered.compiled(dix), dix, 2000, [350], 1000, 4)
    # Where nobody may ever take over, the row is the usual one.
    cinq = get_rules("cinq-mille")
    both = Card("cinq-mille", (200, 250, 550, 800, 2150), open_at=750,
                safe_bank=(200, 250, 550, 300, 2150))
    assert not card_bank(both.compiled(cinq), cinq, 3000, [3000], 500, 4)
    assert "take-over" not in both.text(cinq)


def test_the_card_does_not_offer_a_leader_a_take_over():
    """quinze-mille-free-keep with 1,000 set aside and 3 dice (its table:
    `farkle advise quinze-mille-free-keep --me 5000 --opp 7000 --turn 1000
    --dice 3`): against 7,000, who leads and may take over, rolling on
    wins 31.67%, banking 31.36%; level at 5,000 banking wins, 56.24%
    against 55.92%; at 2,000 against 4,000, who may not take over, banking
    wins, 35.16% against 33.67%. A card that banks from 400 with 3 dice
    banks all three; one that offers a leader by 1,000 or more nothing
    from 550 to 2,950 rolls on against 7,000 alone, and banks the 500 of
    three 5s there."""
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 2300, 4650, 7500), open_at=500,
                 offer_dice=3)
    card = dataclasses.replace(plain, lead_offer_behind=1000, lead_offer_from=550,
                               lead_offer_to=2950, lead_offer_far=2500)
    for me, other in ((5000, 7000), (5000, 5000), (2000, 4000)):
        assert card_bank(plain.compiled(rules), rules, me, [other], 1000, 3)
    assert not card_bank(card.compiled(rules), rules, 5000, [7000], 1000, 3)
    assert card_bank(card.compiled(rules), rules, 5000, [5000], 1000, 3)
    assert card_bank(card.compiled(rules), rules, 2000, [4000], 1000, 3)
    assert card_bank(card.compiled(rules), rules, 5000, [7000], 500, 3)
    # Near the other player's end the card's other rules decide.
    assert card_bank(card.compiled(rules), rules, 11000, [13000], 1000, 3)
    assert "with 3 dice or more, never bank from 550 to 2,950 if the other player leads by " \
        "1,000 or more with more than 2,500 to go and may take over" in card.text(rules)
    # Beside the offer rule, one clause of it.
    both = dataclasses.replace(card, offer_within=1800)
    assert "would be within 1,800 of 15,000, nor from 550 to 2,950 if they lead by 1,000 " \
        "or more with more than 2,500 to go\n" in both.text(rules)


def test_the_rules_that_forbid_any_bank_come_first_in_one_line():
    """Before the entry and near the target a card never banks, whatever
    its rows say: one line, before them."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (250, 200, 400, 2300, 3150, 7500), open_at=500,
                race_within=300)
    lines = card.text(rules).splitlines()
    assert lines[1] == ("Never bank below 500 before you enter, nor short of 15,000 once "
                        "either player is within 300 of it.")
    assert lines[2].startswith("Bank when your turn total reaches")
    assert not card_bank(card.compiled(rules), rules, 14700, [3000], 200, 2)
    assert card_bank(dataclasses.replace(card, race_within=0).compiled(rules), rules, 14700,
                     [3000], 200, 2)
    assert card_bank(card.compiled(rules), rules, 14650, [3000], 250, 2)


def test_before_the_entry_the_card_counts_the_dice_more_and_the_entry_too():
    """dix-mille-free-keep at 0 all, 100 set aside, 1 5 2 3 thrown (`farkle
    advise dix-mille-free-keep --me 0 --opp 0 --turn 100 --dice 4 --roll 1
    5 2 3`): the 1 alone wins 50.50%, 1 5 50.30%. Ranked by the usual
    worths (two dice 75, three 100) the card keeps 1 5; with 50 more a die
    short of the entry, the 1; entered, 1 5 still. quinze-mille-free-keep
    at 0 all, 1 2 3 4 4 4 thrown: 1 4 4 4 (500, then a bank) wins 52.81%,
    the 1 alone 51.10%; with 25 more a die short of the entry the card
    would keep the 1, with 125 more for the keep that reaches it 1 4 4 4."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps

    def kept(card, rules, score, turn_total, roll):
        return card_keep(card.compiled(rules), rules, score, [0], turn_total, len(roll),
                         keeps(rules, counts_of(roll))).points
    dix = get_rules("dix-mille-free-keep")
    plain = Card("dix-mille-free-keep", (150, 150, 500, 3400, 5000), open_at=350,
                 left_worth=(125, 75, 100, 225, 275))
    card = dataclasses.replace(plain, entry_die=50)
    assert [kept(c, dix, 0, 100, [1, 5, 2, 3]) for c in (plain, card)] == [150, 100]
    assert kept(card, dix, 1000, 100, [1, 5, 2, 3]) == 150
    assert "(before you enter, + 50 a die while short of 350)" in card.text(dix)
    quinze = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 4000, 5450, 7500), open_at=500,
                 left_worth=(100, 50, 50, 175, 350, 200), entry_die=25)
    card = dataclasses.replace(plain, entry_reach=125)
    assert [kept(c, quinze, 0, 0, [1, 2, 3, 4, 4, 4]) for c in (plain, card)] == [100, 500]
    assert "(before you enter, + 25 a die while short of 500, + 125 for the keep that " \
        "reaches it)" in card.text(quinze)


def test_a_leader_keeps_the_points_where_a_trailing_player_keeps_the_dice():
    """quinze-mille-free-keep, 1 3 3 3 2 4 thrown at a turn's start (`farkle
    advise quinze-mille-free-keep --me ME --opp OPP --turn 0 --dice 6 --roll
    1 3 3 3 2 4`): at 9,000 against 6,000 1 3 3 3, then a bank, wins 85.94%,
    the 1 alone 85.61%; at 3,000 against 6,000 the 1 alone, 19.07% against
    19.05%. Two dice left worth 50, five 350, the card keeps the 1 (400 + 50
    against 100 + 350, the more dice); two dice worth 75 to a leader, 1 3 3
    3 at 9,000 and the 1 still at 3,000."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps

    def kept(card, me, opponent):
        return card_keep(card.compiled(rules), rules, me, [opponent], 0, 6,
                         keeps(rules, counts_of([1, 3, 3, 3, 2, 4]))).points
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 4000, 5450, 7500), open_at=500,
                 left_worth=(100, 50, 75, 175, 350, 200))
    card = dataclasses.replace(plain, leader_worth=(100, 75, 75, 175, 350, 200))
    assert [kept(plain, 9000, 6000), kept(plain, 3000, 6000)] == [100, 100]
    assert [kept(card, 9000, 6000), kept(card, 3000, 6000)] == [400, 100]
    assert "1: 100 (if you lead, 2: 75)" in card.text(rules)
    assert card.in_play().leader_worth and not \
        dataclasses.replace(card, leader_worth=plain.left_worth).in_play().leader_worth


def test_near_the_other_player_s_end_the_card_keeps_by_a_row_of_its_own():
    """quinze-mille-free-keep at 13,650 against 14,500, 500 set aside, 1 1 5
    5 2 3 thrown (`farkle advise quinze-mille-free-keep --me 13650 --opp
    14500 --turn 500 --dice 6 --roll 1 1 5 5 2 3`): the 1 alone wins 36.36%,
    1 1 5 5 then a bank 29.43%. By the late row (two dice 100, five 275) the
    card keeps 1 1 5 5 (300 + 100 against 100 + 275); by a row of its own
    once the other player is within 1,200 of 15,000 (two dice 0, five 350),
    the 1; against 12,000 the late row still holds."""
    from solver.card_sheet import card_keep
    from solver.dice import counts_of, keeps

    def kept(card, opponent):
        return card_keep(card.compiled(rules), rules, 13650, [opponent], 500, 6,
                         keeps(rules, counts_of([1, 1, 5, 5, 2, 3]))).points
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 4000, 5450, 7500), open_at=500,
                 chase_within=1200, left_worth=(100, 50, 75, 175, 350, 200), late_from=400,
                 late_worth=(75, 100, 100, 175, 275, 300))
    card = dataclasses.replace(plain, chase_worth=(75, 0, 0, 175, 350, 300),
                               chase_bank=(400, 200, 400, 4000, 5450, 7500))
    assert [kept(plain, 14500), kept(plain, 12000)] == [300, 300]
    assert [kept(card, 14500), kept(card, 12000)] == [100, 300]
    text = card.text(rules)
    assert "  the other player within 1,200 of 15,000: bank at 1: 400; keep by dice left " \
        "worth 6: 300 | 5: 350 | 4: 175 | 3: 0 | 2: 0 | 1: 75, in place of the worths below" \
        in text
    # Without a bank row of its own there, on a line of its own.
    alone = dataclasses.replace(card, chase_bank=()).text(rules)
    assert "  the other player within 1,200 of 15,000: dice left worth 6: 300 | 5: 350 | 4: " \
        "175 | 3: 0 | 2: 0 | 1: 75, in place of the worths above" in alone


def test_far_from_the_end_a_trailing_player_takes_a_lone_die_no_sooner():
    """dix-mille-free-keep, one die offered with 1,100 (`farkle advise
    dix-mille-free-keep --me ME --opp OPP --offer 1100,1`): at 3,000
    against 4,000 the fresh turn wins, 40.38% against 40.09%; at 7,000
    against 8,000 the take, 31.82% against 30.94%. A card that takes one
    die from 1,400, from 1,000 when behind by 500 or more, takes both;
    with that rule only where the leader is within 3,000 of 10,000, the
    second alone."""
    from solver.card_sheet import card_take
    rules = get_rules("dix-mille-free-keep")
    plain = Card("dix-mille-free-keep", (150, 150, 500, 3400, 5000), open_at=350,
                 take_at=850, take_die=150, take_one_at=1400, take_one_behind=1000,
                 take_one_behind_by=500)
    card = dataclasses.replace(plain, take_one_behind_within=3000)
    cases = [(3000, 4000), (7000, 8000)]
    assert [card_take(plain.compiled(rules), rules, me, [opp], 1100, 1)
            for me, opp in cases] == [True, True]
    assert [card_take(card.compiled(rules), rules, me, [opp], 1100, 1)
            for me, opp in cases] == [False, True]
    assert "from 1,000 when behind by 500 or more and they are within 3,000 of 10,000" \
        in card.text(rules)


@pytest.mark.parametrize("game", [name for name, entry in stored_cards().items()
                                  if "card_then_table" in entry])
def test_the_card_says_what_it_gives_up_with_the_table_near_the_end(game):
    """Where ``scripts/measure_card_then_table.py`` measured it, the card's
    first line says what its player gives up by asking ``farkle advise``
    near the end, as stored; it is less than the card alone gives up."""
    stored = stored_cards()[game]
    then_table = stored["card_then_table"]
    rules = get_rules(game)
    out = farkle("card", game)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].endswith(
        f"({100 * then_table['loss']:.2f} if you ask farkle advise once either player is "
        f"within {then_table['within']:,} of {rules.target:,})")
    assert json.loads(farkle("card", game, "--json").stdout)["card_then_table"] == then_table
    assert then_table["loss"] < stored["loss"]["loss"]
    # With more players the card is played against the leader: no such line.
    assert "farkle advise" not in farkle("card", game, "--players", "3").stdout
