"""What the crosses model costs in dix-mille (issue 4, item 3).

    python scripts/measure_memory_model.py [--targets 700 1000 1500]
        [--decision-games 3000] [--games 2000000] [--selfplay-games 200000]

The crosses model (solver.engine.memory, ``memory="model"``) forgets the previous
score; the exact memory (``memory="exact"``) does not, but is only solvable
at small targets. At each target of ``--targets`` this solves both and
measures:

(a) the first player's win probability in each table;
(b) how often the two policies decide differently at the decisions that
    come up in play: ``--decision-games`` games of exact-optimal self-play
    (paper sheet, as the simulator), and at each decision the model's
    (with its one-turn look-ahead, as the simulator plays it) compared with
    the exact table's: take over or not (at a turn start with an offer the
    mover may take), which keep (rolls with two keeps or more: none under
    dix-mille's keep rule ``all``), bank or roll (where the bank is legal). "Differ" counts different choices; "cost"
    sums the exact win probability the model's choice gives up (exact value
    of the exact choice minus that of the model's), ties (equal exact
    values) not counted as differences that cost;
(c) the exact win probability the model's policy gives up against the
    exact policy: ``--games`` games of model (look-ahead) against exact, and
    of exact against exact, with common dice (each game its own dice stream
    from the same seed), in both seatings; the loss is ``exact first-player
    win - rate`` (model first) or ``rate - exact first-player win`` (model
    second), with its binomial standard error, and, sharper, the paired
    difference with the exact self-play on the same dice, with the standard
    error of the per-game differences (:func:`solver.sim.simulate.match`, with
    the exact self-play as its baseline). Played on docs/rules.md's one-level
    memory (``one_level=True``: the game both tables are about) and on the
    paper sheet (the simulator's default);
(d) at 10,000: if the model table (``tables/dix-mille.h5``, made by ``farkle
    solve dix-mille``) exists, ``--selfplay-games`` games of model self-play
    on the paper sheet next to the table's first-player win.

Prints a markdown table (machine, command and every number) for the README.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

import numpy as np

from solver.tables.machine import cpu_model

# ------------------------------------------------------------ (b) decisions

class TablePolicy:
    """One table's optimal decisions, as the simulator plays them: its line
    maps (solver.sim.policies.player_states) and, per turn start, the policy's
    tables with the replay's values (solver.sim.policies.optimal_turn), kept
    for the exact table's costs."""

    def __init__(self, solution):
        from solver.sim.policies import player_states
        self.solution = solution
        self.state_of, self.zero_of = player_states(solution.rules, solution.space)
        self.turns: dict = {}

    def state(self, line):
        """(m, zero_to or -1) of a line (units), as the simulator maps it."""
        m = int(self.state_of[line])
        if m < 0:
            raise RuntimeError(f"no state for line {line}")
        return m, int(self.zero_of[line])

    def turn(self, mover_line, waiting_line):
        from solver.sim.policies import optimal_turn
        m, z = self.state(mover_line)
        w, _ = self.state(waiting_line)
        if (m, w, z) not in self.turns:
            self.turns[(m, w, z)] = optimal_turn(self.solution, m, w, z)
        return self.turns[(m, w, z)]


def first_argmax(values):
    """The simulator's choice among equal values: the first."""
    best, chosen = -math.inf, 0
    for i, v in enumerate(values):
        if v > best:
            best, chosen = v, i
    return chosen


def compare_decisions(rules, exact, model, games: int, seed: int) -> dict:
    """Play ``games`` games of exact-optimal self-play (paper sheet) and
    count, per kind, decisions, differing ones and their exact cost. The
    game itself (dice, sheets, crosses, offers) is the simulator's
    (solver.sim.simulate), the rules of a turn solver.model.turn_rules'; only the
    turn's loop is written here, to see each decision of both tables."""
    from solver.model.turn_rules import OVERSHOOT as OVERSHOOTS
    from solver.model.turn_rules import WIN as WINS
    from solver.model.turn_rules import TurnRules, dice_left, keep_result, may_bank, may_take_over
    from solver.sim.dice import dice_tables
    from solver.sim.game_loop import keep_value, throw
    from solver.sim.score_sheet import (
        BANK,
        INSTANT_WIN,
        OVERSHOOT,
        WIN,
        ZERO,
        Games,
        end_turn,
        player_line,
        start_game,
    )
    dice = dice_tables(rules)
    r = TurnRules.of(rules)
    play = Games.new(rules, seed)
    state, sheets = play.state, play.sheets
    count = {kind: [0, 0, 0, 0.0] for kind in ("take", "keep", "bank")}
    # per kind: decisions, differing, differing at a cost, exact cost summed

    def record(kind, differ, cost):
        c = count[kind]
        c[0] += 1
        if differ:
            c[1] += 1
            if cost > 1e-12:
                c[2] += 1
                c[3] += cost

    def keep_values(turn, s, t, n, k0, k1):
        # A win is worth 1 to the optimal policy (its store's win value).
        return [keep_value(r, turn.A[None], 0, turn.Z, 1.0, s, t, n, int(dice.keep_units[k]),
                           int(dice.keep_used[k]), bool(dice.keep_win[k]))
                for k in range(k0, k1)]

    for _ in range(games):
        start_game(state, sheets, play.rng, play.common_seed)
        while True:
            seat = play.mover
            me = tuple(int(x) for x in player_line(r, state, sheets, seat))
            opp = tuple(int(x) for x in player_line(r, state, sheets, 1 - seat))
            s = me[0]
            te, tm = exact.turn(me, opp), model.turn(me, opp)
            t, n, took = 0, r.dice, 0
            offer_t, offer_n = play.offer
            if offer_n > 0 and may_take_over(r, s):
                take_e, take_m = bool(te.take[offer_t, offer_n]), bool(tm.take[offer_t, offer_n])
                record("take", take_e != take_m, abs(te.R[offer_t, offer_n] - te.fresh))
                if take_e:
                    t, n, took = offer_t, offer_n, 1
            while True:
                roll = int(throw(dice.power, dice.roll_of_code, play.script, state, play.rng, n))
                k0, k1 = int(dice.keep_first[roll]), int(dice.keep_first[roll + 1])
                if dice.instant_win[roll]:
                    outcome = INSTANT_WIN
                    break
                if k0 == k1:
                    outcome = ZERO
                    break
                ve = keep_values(te, s, t, n, k0, k1)
                ke = first_argmax(ve)
                if k1 - k0 > 1:
                    km = first_argmax(keep_values(tm, s, t, n, k0, k1))
                    record("keep", km != ke, ve[ke] - ve[km])
                k = k0 + ke
                t += int(dice.keep_units[k])
                result = keep_result(r, s, t, bool(dice.keep_win[k]))
                if result == WINS:
                    outcome = WIN
                    break
                if result == OVERSHOOTS:
                    outcome = OVERSHOOT
                    break
                n = dice_left(r, n, int(dice.keep_used[k]))
                if may_bank(r, s, t, n):
                    bank_e, bank_m = bool(te.bank[t, n]), bool(tm.bank[t, n])
                    record("bank", bank_e != bank_m, abs(te.B[t, n] - te.R[t, n]))
                    if bank_e:
                        outcome = BANK
                        break
            if outcome in (WIN, INSTANT_WIN):
                break
            end_turn(r, state, sheets, play.log, play.one_level, seat, outcome, t, n, took)
    return count


# -------------------------------------------------------------------- main

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, nargs="*", default=[700, 1000, 1500],
                        help="targets for (a) to (c) (none: only (d))")
    parser.add_argument("--decision-games", type=int, default=3000)
    parser.add_argument("--games", type=int, default=2_000_000,
                        help="games per match in (c)")
    parser.add_argument("--selfplay-games", type=int, default=200_000,
                        help="games of model self-play at 10,000 in (d)")
    parser.add_argument("--table", default=None,
                        help="the model table for (d) (default: tables/dix-mille.h5, "
                             "the model at 10,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json-out", default=None, metavar="FILE",
                        help="also write the measured numbers as JSON (the paper reads "
                             "paper/memory_model.json)")
    args = parser.parse_args(argv)
    numbers: dict = {}

    def record(target, key, value):
        numbers.setdefault(f"target {target}", {})[key] = float(value)

    import numba

    from solver.model.rules import get_rules
    from solver.sim.simulate import match, simulate
    from solver.tables.make import solve_game

    machine = (f"{os.cpu_count()} cores (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}; "
               f"Python {platform.python_version()}, numpy {np.__version__}, "
               f"numba {numba.__version__}")
    command = "python " + " ".join([sys.argv[0]] + (argv if argv is not None else sys.argv[1:]))
    rows = []            # (target, quantity, value, note)

    def say(*parts):
        print(*parts, file=sys.stderr, flush=True)

    for target in args.targets:
        rules = get_rules("dix-mille", target)
        started = time.perf_counter()
        exact = solve_game(rules, "exact")
        exact_seconds = time.perf_counter() - started
        started = time.perf_counter()
        model = solve_game(rules, "model")
        model_seconds = time.perf_counter() - started
        say(f"{target}: exact {exact.space.size} states {exact_seconds:.1f} s, "
            f"model {model.space.size} states {model_seconds:.1f} s")
        fe, fm = exact.first_player_win, model.first_player_win
        rows.append((target, "(a) first-player win, exact table", f"{fe:.6f}",
                     f"{exact.space.size} player states, solved in {exact_seconds:.1f} s"))
        rows.append((target, "(a) first-player win, model table", f"{fm:.6f}",
                     f"{model.space.size} player states, solved in {model_seconds:.1f} s"))
        rows.append((target, "(a) model - exact", f"{fm - fe:+.6f}", ""))
        record(target, "first player win, exact", fe)
        record(target, "first player win, model", fm)

        started = time.perf_counter()
        ep, mp = TablePolicy(exact), TablePolicy(model)
        counts = compare_decisions(rules, ep, mp, args.decision_games, args.seed)
        seconds = time.perf_counter() - started
        say(f"{target}: decisions compared in {seconds:.1f} s: {counts}")
        for kind, label in (("take", "take over or not"), ("keep", "which keep"),
                            ("bank", "bank or roll")):
            total, differ, costly, cost = counts[kind]
            share = differ / total if total else math.nan
            rows.append((target, f"(b) {label}: differing / decisions",
                         f"{differ:,} / {total:,} = {100 * share:.3f}%",
                         f"{costly:,} at a cost, mean cost {cost / costly if costly else 0:.2e}; "
                         f"{args.decision_games:,} games of exact self-play (paper sheet)"))
        total = sum(c[0] for c in counts.values())
        differ = sum(c[1] for c in counts.values())
        record(target, "share of decisions that differ", differ / total)
        rows.append((target, "(b) all decisions: differing / decisions",
                     f"{differ:,} / {total:,} = {100 * differ / total:.3f}%", ""))

        for one_level, rule in ((True, "one-level memory"), (False, "paper sheet")):
            started = time.perf_counter()
            # (c): model (X) against exact (Y), both seatings, compared game by
            # game with exact self-play on the same dice.
            ref = simulate(rules, "optimal", "optimal", args.games, seed=args.seed,
                           solution=exact, common_dice=True, keep_winners=True,
                           one_level=one_level)
            out = match(rules, "optimal", "optimal", args.games, args.seed, solution=model,
                        solution_y=exact, one_level=one_level, baseline=ref)
            seconds = time.perf_counter() - started
            assert ref.unfinished == out.first.unfinished == out.second.unfinished == 0
            say(f"{target}: matches ({rule}) in {seconds:.1f} s")
            fpw = exact.first_player_win
            note = (f"{args.games:,} games each, common dice, seed {args.seed}, {rule}; "
                    f"{seconds:.0f} s")
            rows.append((target, f"(c) exact self-play, A wins ({rule})",
                         f"{ref.win_rate_a:.5f} ± {ref.stderr:.5f}",
                         f"table {fpw:.5f}; {ref.deep_fall_games:,} games with a "
                         f"second fall without a bank; " + note))
            record(target, f"exact self-play, first player wins ({rule})", ref.win_rate_a)
            # The model's loss in a seat: the exact table's win in that seat
            # minus the model's there; paired: minus X's gain over the baseline.
            seats = (("first", "A = model, B = exact", out.first, fpw - out.win_first,
                      out.win_first_se, out.paired_first, out.paired_first_se,
                      out.differ_first),
                     ("second", "A = exact, B = model", out.second,
                      (1 - fpw) - out.win_second, out.win_second_se, out.paired_second,
                      out.paired_second_se, out.differ_second))
            for seat, label, res, loss, loss_se, gain, gain_se, differ in seats:
                record(target, f"model {seat}: paired loss ({rule})", -gain)
                record(target, f"model {seat}: paired loss, standard error ({rule})", gain_se)
                rows.append((target, f"(c) {label}: A wins ({rule})",
                             f"{res.win_rate_a:.5f} ± {res.stderr:.5f}", note))
                rows.append((target, f"(c) model {seat}: loss vs the table ({rule})",
                             f"{loss:+.5f} ± {loss_se:.5f}",
                             "exact first-player win - rate" if seat == "first"
                             else "rate - exact first-player win"))
                rows.append((target, f"(c) model {seat}: paired loss vs exact self-play ({rule})",
                             f"{-gain:+.6f} ± {gain_se:.6f}",
                             f"{differ:,} games with another winner"))

    # (d) the model at 10,000 under the paper sheet
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    rules = get_rules("dix-mille")
    path = args.table or default_path(rules)
    if args.selfplay_games <= 0:
        say("(d) skipped (--selfplay-games 0)")
    elif not os.path.exists(path):
        say(f"(d) skipped: no model table at {path} (make it with: farkle solve dix-mille)")
        rows.append((10_000, "(d) model self-play on the paper sheet", "skipped",
                     f"no table at {path}"))
    else:
        table = read_table(path, lazy_take=False)
        rules = table.rules
        if rules.name != "dix-mille" or table.space.memory != "model":
            raise SystemExit(f"{path} is not a dix-mille crosses-model table")
        say(f"(d) {args.selfplay_games:,} games of model self-play at {rules.target:,}")
        started = time.perf_counter()
        res = simulate(rules, "optimal", "optimal", args.selfplay_games, seed=args.seed,
                       solution=table, progress=lambda done, total: say(
                           f"  {done:,}/{total:,} games, {time.perf_counter() - started:.0f} s"))
        gap = (res.win_rate_a - table.first_player_win) / res.stderr
        record(rules.target, "model self-play, first player wins", res.win_rate_a)
        record(rules.target, "model self-play, standard error", res.stderr)
        record(rules.target, "model table, first player win", table.first_player_win)
        rows.append((rules.target, "(d) model self-play on the paper sheet, A wins",
                     f"{res.win_rate_a:.5f} ± {res.stderr:.5f}",
                     f"table {table.first_player_win:.5f} ({gap:+.1f} s.e.); "
                     f"{args.selfplay_games:,} games, seed {args.seed}, {res.seconds:.0f} s; "
                     f"{res.deep_fall_games:,} games with a second fall without a bank"))

    print(f"Machine: {machine}  ")
    print(f"Command: `{command}`\n")
    print("| target | quantity | value | note |")
    print("|---|---|---|---|")
    for target, quantity, value, note in rows:
        print(f"| {target:,} | {quantity} | {value} | {note} |")
    if args.json_out:
        import json
        with open(args.json_out, "w") as f:
            json.dump(numbers, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
