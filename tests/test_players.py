"""Three players and more: the N-player solver against the two-player one,
the equilibrium conditions where a block mixes, tables and the CLI.

The comparison with an independent N-player solver (plain value iteration)
is in ``tests/test_reference_n.py``."""

import dataclasses
import itertools
import json

import numpy as np
import pytest
from conftest import farkle

from solver.advice.choose import advisor_for
from solver.engine.final_round_n import chain_values, seat_last_turn
from solver.engine.n_player import solve_players
from solver.engine.solution import final_round_reach
from solver.engine.solution_n import bellman_residual_n, replay_n
from solver.engine.two_player import solve
from solver.model.errors import UsageError
from solver.model.rules import get_rules
from solver.model.states import player_space
from solver.tables.estimates import check_players
from solver.tables.files import read_info, read_table, write_table


def quinze_take_over(target=2000):
    """quinze-mille with take-over from 500 (once entered), to ``target``:
    take-over in play at a small target."""
    return dataclasses.replace(get_rules("quinze-mille"), takeover_min=500).with_target(target)


def pig_penalty(target=15):
    """Pig with three zero turns in a row costing 5 points, down to -10."""
    return dataclasses.replace(get_rules("pig"), crosses=3, fall_penalty=5,
                               floor=-10).with_target(target)


def farkle_final(target=600):
    """cardgames.io's Farkle with a final round and an entry of 300."""
    return dataclasses.replace(get_rules("farkle-cardgames"), final_round=True,
                               entry=300).with_target(target)


@pytest.mark.parametrize("rules", [get_rules("pig", 40), quinze_take_over(),
                                   get_rules("dix-mille", 700), farkle_final()],
                         ids=["pig", "quinze-take-over", "dix-mille-crosses", "farkle-final-round"])
def test_two_players_through_the_n_player_solver_is_the_two_player_game(rules):
    """With N = 2 the N-player solver (vectors, rotations, its own kernel)
    must give the two-player solver's W (Newton on scalars, lanes) to 1e-10,
    in a game with take-over, in one with crosses (exact memory) and in one
    with a final round."""
    space = player_space(rules, "exact")
    two = solve(rules, space=space)
    many = solve_players(rules, 2, space=space)
    P = space.size
    assert np.max(np.abs(many.V[:, 0].reshape(P, P) - two.W)) < 1e-10
    assert np.max(np.abs(many.V.sum(axis=1) - 1.0)) < 1e-10


def test_three_players_sum_to_one_and_replay_exactly():
    """Someone wins every game: the N chances at every node sum to 1; and
    the numpy replay (independent of the compiled kernel) reproduces every
    stored value, take-over values included (quinze-mille, take-over in
    play)."""
    solution = solve_players(quinze_take_over(1500), 3)
    assert np.max(np.abs(solution.V.sum(axis=1) - 1.0)) < 1e-10
    assert np.any(solution.space.can_take)
    assert bellman_residual_n(solution, samples=150, seed=3) < 1e-10
    wins = solution.seat_wins
    # Seat order matters: moving first is worth most.
    assert wins[0] > wins[1] > wins[2]


def test_the_chain_of_last_turns_at_two_players_is_the_two_player_last_turn():
    """solver.engine.final_round_n's last turns over the score, at two
    players, against solver.model.last_turn's recursion over the points
    still needed (another formulation and code): the banker's chance after
    a bank k units past the target, against every score."""
    for rules in (dataclasses.replace(get_rules("pig"), final_round=True).with_target(20),
                  farkle_final()):
        chain = chain_values(rules, 2)[:, 0]                # [k, s_1, player]
        banker = final_round_reach(rules, np.arange(rules.target_units))
        assert np.max(np.abs(chain[:, :, 0].T - banker)) < 1e-12
        assert np.max(np.abs(chain.sum(axis=-1) - 1.0)) < 1e-12


def test_three_players_with_a_final_round_round_trip_and_advice(tmp_path):
    """A 3-player final round: the numpy replay reproduces the stored
    values (past the target too); the table keeps reach; advice past the
    target comes from it, and in the last turns from each seat's DP
    (solver.engine.final_round_n.seat_last_turn), consistent with it; a
    minimum bank with three players is refused in one line."""
    # Three dice, as the reference's cases: the last turns stay small.
    rules = dataclasses.replace(get_rules("farkle-acg2017"), final_round=True, dice=3,
                                entry=150).with_target(300)
    solution = solve_players(rules, 3)
    assert np.max(np.abs(solution.V.sum(axis=1) - 1.0)) < 1e-10
    assert bellman_residual_n(solution, samples=200, seed=7) < 1e-10
    path = tmp_path / "f3.h5"
    write_table(solution, path, 1e-12, 0.0)
    table = read_table(path, expect=rules, expect_players=3)
    assert np.array_equal(table.reach, solution.reach)
    advisor = advisor_for(rules, 3, path=path)
    # 250 + 100 is past the target: bank there, or roll on against two last turns.
    advice = advisor.bank_or_roll(250, [0, 200], turn=100, dice=2)
    assert {c.action for c in advice.choices} == {"bank", "roll"}
    for choice in advice.choices:
        assert sum(choice.wins) == pytest.approx(1.0, abs=1e-12)
    # The bank's worth (the table's reach, from the chain of last turns) is
    # the next player's chance at their last turn's start, asked of the
    # advice as a position of that player (their seat's DP on its own).
    bank = next(c for c in advice.choices if c.action == "bank")
    nxt = advisor.bank_or_roll(0, [200, 350], turn=0, dice=3).best
    assert nxt.action == "roll"
    assert bank.wins == pytest.approx([nxt.wins[2], nxt.wins[0], nxt.wins[1]], abs=1e-14)
    # Whatever the roll, the best keep (or the zero roll) averaged over the
    # dice is the roll's chance, at a turn start and mid-turn, for a seat
    # with another still to play (seat 1) and for the last (seat 2).
    for me, opps, turn, dice in ((0, [200, 350], 0, 3), (100, [200, 350], 150, 2),
                                 (200, [350, 0], 0, 3), (200, [350, 100], 50, 3)):
        roll = advisor.bank_or_roll(me, opps, turn=turn, dice=dice)
        mean = np.zeros(3)
        for faces in itertools.product(range(1, 7), repeat=dice):
            keep = advisor.keep(me, opps, turn=turn, dice=dice, roll=list(faces))
            mean += np.array(keep.best.wins) / 6 ** dice
        rolled = next(c for c in roll.choices if c.action == "roll")
        assert np.max(np.abs(mean - rolled.wins)) < 1e-12
    # Each seat's DP on its own gives the chain's turn starts, bit for bit.
    chain, T = chain_values(rules, 3), rules.target_units
    for k, later in itertools.product((0, 2, 9), (0, 3, T - 1)):
        seat_1 = seat_last_turn(rules, 3, 1, T + k, 1, (later,))
        assert np.array_equal(seat_1.roll[:T, rules.dice], chain[k, later])
    with pytest.raises(UsageError, match="must be below the target"):
        advisor.bank_or_roll(400, [350, 200], turn=0, dice=3)
    with pytest.raises(UsageError, match="minimum bank"):
        check_players(dataclasses.replace(rules, min_bank=100), 3)


def test_three_players_with_a_penalty_replay_exactly():
    """Scores below 0 (a penalty to the floor): the numpy replay, whose
    rows run from the floor, reproduces the stored values (300 nodes)."""
    solution = solve_players(pig_penalty(10), 3)
    assert solution.space.score.min() == -10
    assert np.max(np.abs(solution.V.sum(axis=1) - 1.0)) < 1e-10
    assert bellman_residual_n(solution, samples=300, seed=5) < 1e-10


@pytest.fixture(scope="module")
def mixed_cinq_mille():
    """cinq-mille to 1,500 with 3 players: the best responses at one score
    tuple (0, 150, 150 and its rotations) cycle, and the logit path settles
    it (found by this solver; the test checks the equilibrium conditions
    themselves, not the numbers)."""
    return solve_players(get_rules("cinq-mille", 1500), 3)


def test_one_block_kernel_serves_the_levels_and_the_cycling_blocks(mixed_cinq_mille):
    """The block kernel that a level's blocks run (inside the level's
    parallel loop) and the one a cycling block runs from Python are one
    compiled kernel: numba compiled it a second time when the level passed
    its pass limit as the constant 40."""
    from solver.engine.n_player_blocks import solve_block_n
    assert mixed_cinq_mille.mixed      # a block cycled: the second caller ran
    assert len(solve_block_n.signatures) == 1, solve_block_n.signatures


def test_a_cycling_block_is_settled_by_an_equilibrium(mixed_cinq_mille):
    """docs/rules.md, "Cycles and equilibria": at the block that needed mixing,
    every mixing mover is indifferent (to 1e-10) between the two choices it
    mixes, and at every other decision of those turns no pure deviation is
    better for the mover (checked on the numpy replay, which recomputes
    every choice from the stored values)."""
    assert_equilibrium(mixed_cinq_mille)


@pytest.mark.parametrize("stage", ["node supports", "every support"])
def test_the_last_resorts_of_the_search_find_an_equilibrium_too(monkeypatch, stage):
    """Where the logit path and the polish fail (as at blocks of 4-player
    Pig to 80 and to 100), the fixed search is taken: with the polish and
    the pure profiles made to fail, the same game is settled by the
    supports of one decision a node alone, or by every support alone, and
    its blocks satisfy the same equilibrium conditions."""
    from solver.engine import equilibrium_search as search
    monkeypatch.setattr(search, "polish", lambda *args, **kw: None)
    monkeypatch.setattr(search, "MAX_FALLBACK_PROFILES", -1)
    if stage == "node supports":
        monkeypatch.setattr(search, "support_enumeration", lambda game: None)
    else:
        monkeypatch.setattr(search, "node_supports", lambda *args: None)
    solution = solve_players(get_rules("cinq-mille", 1500), 3)
    assert {block["selection"] for block in solution.equilibria} == {"first found"}
    assert_equilibrium(solution)


def assert_equilibrium(solution):
    assert solution.equilibria and solution.mixed
    block = solution.equilibria[0]
    D = solution.rules.dice
    from solver.model.dice import keep_table
    dice = keep_table(solution.rules).packed()
    for node in block["nodes"]:
        Z, R, A, B, mix = replay_n(solution, node)
        # A fixed point: the stored value is the replayed one.
        assert np.max(np.abs(R[0, D] - solution.V[node])) < 1e-12
        for kind, t, *where, q in solution.mixed.get(node, []):
            assert 0 < q < 1
            if kind == "bank":
                n = where[0]
                assert abs(B[t, n, 0] - R[t, n, 0]) < 1e-10
            else:
                r, main, alt = where
                own = [A[t + dice.keep_units[k], dice.keep_col[k], 0] for k in (main, alt)]
                assert abs(own[0] - own[1]) < 1e-10
        # Every pure bank decision is a best response of the mover.
        allowed = ~np.isnan(B[:, :, 0])
        best = np.where(allowed, np.fmax(B[:, :, 0], R[:, :, 0]), R[:, :, 0])
        T = len(B)
        pure = allowed & (mix < 0)
        assert np.all(np.abs(A[:T, :, 0][pure] - best[pure]) < 1e-12)


def test_mixed_table_round_trip_and_info(tmp_path, mixed_cinq_mille):
    path = tmp_path / "c3.h5"
    write_table(mixed_cinq_mille, path, 1e-12, 0.0)
    table = read_table(path, expect=mixed_cinq_mille.rules, expect_players=3)
    assert np.array_equal(table.V, mixed_cinq_mille.V)
    assert table.mixed == mixed_cinq_mille.mixed
    info = read_info(path)
    assert info["players"] == 3
    assert info["seat_wins"] == pytest.approx(list(mixed_cinq_mille.seat_wins), abs=1e-15)
    assert info["equilibria"]["blocks_mixed"] == len(mixed_cinq_mille.equilibria)
    text = farkle("info", path, check=0).stdout
    assert "3 players" in text and "logit-path equilibrium" in text


def test_solve_and_advise_three_players_from_the_command_line():
    """The CLI as a player uses it: solve cinq-mille to 1,500 for three,
    then ask at the table. Every choice gives each player's chance, me
    first; the chances sum to 1."""
    out = json.loads(farkle("solve", "cinq-mille", "--target", 1500, "--players", 3, "--json",
                            check=0).stdout)
    assert out["players"] == 3 and len(out["seat_wins"]) == 3
    assert out["first_player_win"] == out["seat_wins"][0]
    assert sum(out["seat_wins"]) == pytest.approx(1.0, abs=1e-12)
    advice = json.loads(farkle("advise", "cinq-mille", "--target", 1500, "--me", 0, "--opp", 800,
                               "--opp", 0, "--turn", 750, "--dice", 2, "--json",
                               check=0).stdout)
    assert {c["action"] for c in advice["choices"]} == {"bank", "roll"}
    for choice in advice["choices"]:
        assert len(choice["wins"]) == 3
        assert sum(choice["wins"]) == pytest.approx(1.0, abs=1e-12)
        assert choice["win"] == choice["wins"][0]
    # At the game start (all at 0) the mover's chance of rolling is seat 1's.
    start = json.loads(farkle("advise", "cinq-mille", "--target", 1500, "--me", 0, "--opp", 0,
                              "--opp", 0, "--json", check=0).stdout)
    assert start["win"] == pytest.approx(out["seat_wins"][0], abs=1e-12)
    # With two players the same question gets (v, 1 - v).
    two = json.loads(farkle("advise", "cinq-mille", "--target", 1500, "--me", 0, "--opp", 0,
                            "--json", check=0).stdout)
    assert two["choices"][0]["wins"][1] == pytest.approx(1 - two["win"], abs=1e-15)


@pytest.mark.parametrize("args, words", [
    (("solve", "pig", "--players", 7), "players must be 2 to 6"),
    (("solve", "pig", "--players", 1), "players must be 2 to 6"),
    (("advise", "cinq-mille", "--target", 1500, "--me", 0, "--opp", 0, "--opp", 0,
      "--opp-crosses", 0), "--opp-crosses is given 1 times for 2 opponents"),
    (("advise", "dix-mille", "--target", 1000, "--me", 0, "--opp", 0, "--opp", 0,
      "--opp-previous", 0, "--opp-previous", 0, "--opp-previous", 0), "--opp-previous"),
    (("solve", "dix-mille", "--players", 3, "--memory", "model"), "crosses model"),
    (("solve", "quinze-mille", "--players", 4), "out of reach exactly"),
])
def test_bad_player_input_is_one_line_and_exit_2(args, words):
    result = farkle(*args, check=2)
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_table_for_other_players_is_refused(tmp_path, mixed_cinq_mille):
    path = tmp_path / "c3.h5"
    write_table(mixed_cinq_mille, path, 1e-12, 0.0)
    result = farkle("advise", "cinq-mille", "--target", 1500, "--me", 0, "--opp", 0,
                    "--table", path, check=2)
    assert "is for 3 players, not 2" in result.stderr


def test_the_seat_evaluation_gives_the_table_its_own_values(mixed_cinq_mille):
    """The fixed-policy evaluation of solver.cards.seat_value, with D playing the
    table's own decisions (mixed ones included), must return the table's
    seat values: an independent linear solve of the same policies."""
    from solver.cards.seat_value import duel_seat_values
    rules = mixed_cinq_mille.rules
    two = solve(rules, space=mixed_cinq_mille.space)
    own = duel_seat_values(mixed_cinq_mille, two, model=False)
    assert np.max(np.abs(own - mixed_cinq_mille.seat_wins)) < 1e-12
    # The duel model gives something up in every seat, and not much.
    duel = duel_seat_values(mixed_cinq_mille, two)
    loss = mixed_cinq_mille.seat_wins - duel
    assert np.all(loss > 0) and np.all(loss < 0.01)


def test_the_seat_evaluation_with_take_over_and_crosses():
    """The same check where offers and falls are in play (quinze-mille with
    take-over once entered, dix-mille with crosses, small targets)."""
    from solver.cards.seat_value import duel_seat_values
    for rules in (quinze_take_over(1500), get_rules("dix-mille", 500)):
        space = player_space(rules, "exact")
        many = solve_players(rules, 3, space=space)
        two = solve(rules, space=space)
        own = duel_seat_values(many, two, model=False)
        assert np.max(np.abs(own - many.seat_wins)) < 1e-11, rules.name


def test_a_search_that_finds_no_equilibrium_stops_with_one_line(monkeypatch, capsys):
    """Should the search find no equilibrium at a block (it happened in
    4-player Pig to 80 before its last resort, BENCHMARKS.md), the solve
    stops with one line and exit 2. Here every step of the search is made
    to fail at the first cycling block of 3-player cinq-mille to 1,500."""
    from solver.cli.main import main
    from solver.engine import equilibrium_search as search
    monkeypatch.setattr(search, "polish", lambda *args, **kw: None)
    monkeypatch.setattr(search, "node_supports", lambda *args: None)
    monkeypatch.setattr(search, "support_enumeration", lambda game: None)
    assert main(["solve", "cinq-mille", "--target", "1500", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("farkle: cinq-mille to 1500 with 3 players: no equilibrium found at "
                          "a block whose best responses cycle (")
    assert err.endswith("flipping decisions); try a smaller --target\n")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("rules", [get_rules("cinq-mille", 1500), quinze_take_over(1500)],
                         ids=["cinq-mille", "quinze-take-over"])
def test_the_turn_dp_policy_holds_over_its_steady_range(rules):
    """The N-player turn DP reports the range of moves of Z[0] over which its
    decisions hold (solver.engine.turn_kernel_n, "the policy's range"); the solver
    accepts a policy iteration step without running the DPs again when the
    new Z falls inside. Inside the range, the DP run at a moved Z must give
    exactly the affine value of the policy picked at Z, c + b Z' (rounding
    only: 1e-12), whatever the other components of Z do. The ranges must
    also be non-empty at most turn starts, or the solver saves nothing."""
    from solver.engine.n_player_blocks import no_plan
    from solver.engine.turn import pad
    from solver.engine.turn_kernel_n import (
        MultiValues,
        NodeMix,
        Seats,
        multi_work,
        turn_dp_vec,
        zero_value,
    )
    from solver.model.dice import keep_table
    from solver.model.turn_rules import TurnRules
    solution = solve_players(rules, 3)
    space = solution.space
    seats, turn, moves = Seats.of(3, space), TurnRules.of(rules), space.moves()
    dice = keep_table(rules).packed()
    values = MultiValues(solution.V, solution.take_values)
    work = multi_work(turn.target, pad(rules, turn.target), rules.dice, 3)
    plan = NodeMix(*(array[0] for array in no_plan()))
    rng = np.random.default_rng(5)
    nodes = rng.choice(len(solution.V), 400, replace=False)
    Z, out, moved_out = np.empty(3), np.empty(3), np.empty(3)
    non_empty = 0
    for node in nodes:
        zero_value(seats, moves.zero_next, solution.V, node, Z)
        rows = turn.target - moves.score[node // seats.lead]
        slope = turn_dp_vec(turn, dice, moves, values, seats, node, Z, rows, work, plan, out)
        lo, hi = work.steady
        assert lo <= 0.0 <= hi
        non_empty += hi > lo
        for dz in (0.999 * lo, 0.999 * hi, rng.uniform(lo, hi)):
            shift = np.append(dz, rng.uniform(-0.01, 0.01, 2))
            moved_slope = turn_dp_vec(turn, dice, moves, values, seats, node, Z + shift, rows,
                                      work, plan, moved_out)
            assert moved_slope == pytest.approx(slope, abs=1e-12)
            assert np.max(np.abs(moved_out - (out + slope * shift))) < 1e-12
    assert non_empty > 0.5 * len(nodes)


def test_policy_iteration_accepts_steady_steps():
    """With the steady ranges, a block whose zero turns go round it is
    settled by one DP pass where the start's policy holds. In 3-player
    cinq-mille every turn start's zero turn stays in its block, so
    confirming each step by a second pass would take at least two DPs a
    turn start: the solve must take fewer."""
    from solver.engine.n_player_blocks import build_multi_blocks
    solution = solve_players(get_rules("cinq-mille", 2000), 3)
    assert np.all(build_multi_blocks(solution.space, 3).succ_local >= 0)
    assert solution.stats["turn_dp_runs"] < 2 * solution.stats["turn_starts"]
