"""What the crosses model costs in dix-mille (issue 4, item 3).

    python scripts/measure_memory_model.py [--targets 700 1000 1500]
        [--decision-games 3000] [--games 2000000] [--selfplay-games 200000]

The crosses model (solver.memory, ``memory="model"``) forgets the previous
score; the exact memory (``memory="exact"``) does not, but is only solvable
at small targets. At each target of ``--targets`` this solves both and
measures:

(a) the first player's win probability in each table;
(b) how often the two policies decide differently at the decisions that
    come up in play: ``--decision-games`` games of exact-optimal self-play
    (paper sheet, as the simulator), and at each decision the model's
    (with its one-turn look-ahead, as the simulator plays it) compared with
    the exact table's: take over or not (at a turn start with an offer the
    mover may take), which keep (rolls with two keeps or more), bank or roll
    (where the bank is legal). "Differ" counts different choices; "cost"
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
    error of the per-game differences. Played on RULES.md's one-level memory
    (``one_level=True``: the game both tables are about) and on the paper
    sheet (the simulator's default);
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

from machine import cpu_model


# ------------------------------------------------------------ (b) decisions

class Policy:
    """One table's optimal decisions, as the simulator plays them
    (solver.simulate: ``_OptimalCache.fill`` and the compiled loop), with
    the values of the replay kept for the exact table's costs."""

    def __init__(self, solution):
        from solver.simulate import player_states
        self.solution = solution
        self.rules = solution.rules
        self.state_of, self.zero_of = player_states(self.rules, solution.space)
        self.cache: dict = {}

    def line(self, score, previous, crosses):
        """(m, zero_to or -1) of a line (units), as the simulator maps it."""
        m = int(self.state_of[score, previous, crosses])
        if m < 0:
            raise RuntimeError(f"no state for line {(score, previous, crosses)}")
        return m, int(self.zero_of[score, previous, crosses])

    def tables(self, mover_line, waiting_line):
        from solver.solution import replay
        m, z = self.line(*mover_line)
        w, _ = self.line(*waiting_line)
        key = (m, w, z)
        if key not in self.cache:
            rules = self.rules
            D, rows = rules.dice, rules.target_units
            Z, R, A, B = replay(self.solution, m, w, compiled=True,
                                zero_to=None if z < 0 else z)
            R, A = np.asarray(R)[:rows], np.asarray(A)[:rows]
            fresh = float(self.solution.W[m, w]) if z < 0 else float(R[0, D])
            self.cache[key] = (float(Z), R, A, np.asarray(B), fresh)
        return self.cache[key]


def keep_values(tables, s, t, n, k0, k1, dice, target):
    """Value of each keep ``k0..k1-1`` of a roll, as the simulator values
    them: a win 1, an overshoot Z, else A[t', n'] (hot dice: all dice)."""
    Z, _, A, _, _ = tables
    out = []
    for k in range(k0, k1):
        total = s + t + int(dice.keep_units[k])
        if total == target:
            out.append(1.0)
        elif total > target:
            out.append(Z)
        else:
            left = n - int(dice.keep_used[k])
            out.append(float(A[t + int(dice.keep_units[k]), left if left > 0 else len(A[0]) - 1]))
    return out


def first_argmax(values):
    best, chosen = -math.inf, 0
    for i, v in enumerate(values):
        if v > best:
            best, chosen = v, i
    return chosen


def compare_decisions(rules, exact, model, games: int, seed: int) -> dict:
    """Play ``games`` games of exact-optimal self-play (paper sheet) and
    count, per kind, decisions, differing ones and their exact cost."""
    from solver.simulate import dice_tables
    dice = dice_tables(rules)
    D, target, entry = rules.dice, rules.target_units, rules.entry_units
    C, take_min = rules.crosses, rules.takeover_min_units
    rng = np.random.default_rng(seed)
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

    for _ in range(games):
        sheets, crosses, fallen = [[], []], [0, 0], [False, False]
        offer_t = offer_n = 0
        p = 0
        for _turn in range(10_000):
            def line(q):
                sheet = sheets[q]
                s = sheet[-1] if sheet else 0
                prev = s if fallen[q] else (sheet[-2] if len(sheet) > 1 else 0)
                return s, prev, crosses[q]
            me, opp = line(p), line(1 - p)
            s = me[0]
            te, tm = exact.tables(me, opp), model.tables(me, opp)
            t, n = 0, D
            if offer_n > 0 and take_min is not None and s >= take_min:
                take_e = te[1][offer_t, offer_n] > te[4]
                take_m = tm[1][offer_t, offer_n] > tm[4]
                record("take", take_e != take_m,
                       abs(te[1][offer_t, offer_n] - te[4]))
                if take_e:
                    t, n = offer_t, offer_n
            offer_t = offer_n = 0
            while True:
                faces = rng.integers(0, 6, size=n)
                r = int(dice.roll_of_code[int(dice.power[faces].sum())])
                k0, k1 = int(dice.keep_first[r]), int(dice.keep_first[r + 1])
                if dice.instant_win[r]:
                    outcome = "win"
                    break
                if k0 == k1:
                    outcome = "zero"
                    break
                ve = keep_values(te, s, t, n, k0, k1, dice, target)
                ke = first_argmax(ve)
                if k1 - k0 > 1:
                    km = first_argmax(keep_values(tm, s, t, n, k0, k1, dice, target))
                    record("keep", km != ke, ve[ke] - ve[km])
                k = k0 + ke
                t += int(dice.keep_units[k])
                n -= int(dice.keep_used[k])
                if s + t == target:
                    outcome = "win"
                    break
                if s + t > target:
                    outcome = "zero"
                    break
                hot = n == 0
                if hot:
                    n = D
                if (s > 0 or t >= entry) and not (rules.hot_dice_forced and hot):
                    Re, Be = te[1][t, n], te[3][t, n]
                    bank_e = Be >= Re
                    bank_m = tm[3][t, n] >= tm[1][t, n]
                    record("bank", bank_e != bank_m, abs(Be - Re))
                    if bank_e:
                        outcome = "bank"
                        break
            if outcome == "win":
                break
            if outcome == "bank":
                sheets[p].append(s + t)
                crosses[p], fallen[p] = 0, False
                if 1 <= n <= D - 1:
                    offer_t, offer_n = t, n
            else:
                crosses[p] += 1
                if crosses[p] >= C:
                    crosses[p] = 0
                    if sheets[p]:
                        sheets[p].pop()
                    fallen[p] = True
            p = 1 - p
    return count


# ------------------------------------------------------------- (c) matches

def match(rules, exact, model, games: int, seed: int, one_level: bool) -> dict:
    """Model against exact in both seatings, and exact self-play, on common
    dice; the losses of (c) with their standard errors."""
    from solver.simulate import simulate
    kw = dict(seed=seed, common_dice=True, keep_winners=True, one_level=one_level)
    started = time.perf_counter()
    ref = simulate(rules, "optimal", "optimal", games, solution=exact, **kw)
    first = simulate(rules, "optimal", "optimal", games, solution=model, solution_b=exact, **kw)
    second = simulate(rules, "optimal", "optimal", games, solution=exact, solution_b=model, **kw)
    fpw = exact.first_player_win
    out = {"seconds": time.perf_counter() - started, "ref": ref, "first": first,
           "second": second, "fpw": fpw}
    a_ref = (ref.winners == 0).astype(np.float64)
    for name, res, sign in (("first", first, 1), ("second", second, -1)):
        assert res.unfinished == 0 and ref.unfinished == 0
        d = a_ref - (res.winners == 0).astype(np.float64)     # model first: exact - model
        out[name + "_loss"] = sign * (fpw - res.win_rate_a)
        out[name + "_loss_se"] = res.stderr
        out[name + "_paired"] = sign * float(d.mean())
        out[name + "_paired_se"] = float(d.std(ddof=1) / math.sqrt(games))
        out[name + "_games_differ"] = int(np.sum(res.winners != ref.winners))
    return out


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

    from solver.solve import solve_game
    from solver.rules import get_rules
    from solver.simulate import simulate

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
        ep, mp = Policy(exact), Policy(model)
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
            out = match(rules, exact, model, args.games, args.seed, one_level)
            say(f"{target}: matches ({rule}) in {out['seconds']:.1f} s")
            ref = out["ref"]
            note = (f"{args.games:,} games each, common dice, seed {args.seed}, {rule}; "
                    f"{out['seconds']:.0f} s")
            rows.append((target, f"(c) exact self-play, A wins ({rule})",
                         f"{ref.win_rate_a:.5f} ± {ref.stderr:.5f}",
                         f"table {out['fpw']:.5f}; {ref.deep_fall_games:,} games with a "
                         f"second fall without a bank; " + note))
            record(target, f"exact self-play, first player wins ({rule})", ref.win_rate_a)
            for seat, label in (("first", "A = model, B = exact"),
                                ("second", "A = exact, B = model")):
                res = out[seat]
                record(target, f"model {seat}: paired loss ({rule})", out[seat + "_paired"])
                record(target, f"model {seat}: paired loss, standard error ({rule})",
                       out[seat + "_paired_se"])
                rows.append((target, f"(c) {label}: A wins ({rule})",
                             f"{res.win_rate_a:.5f} ± {res.stderr:.5f}", note))
                rows.append((target, f"(c) model {seat}: loss vs the table ({rule})",
                             f"{out[seat + '_loss']:+.5f} ± {out[seat + '_loss_se']:.5f}",
                             "exact first-player win - rate" if seat == "first"
                             else "rate - exact first-player win"))
                rows.append((target, f"(c) model {seat}: paired loss vs exact self-play ({rule})",
                             f"{out[seat + '_paired']:+.6f} ± {out[seat + '_paired_se']:.6f}",
                             f"{out[seat + '_games_differ']:,} games with another winner"))

    # (d) the model at 10,000 under the paper sheet
    from solver.tables import default_path, read_table
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
