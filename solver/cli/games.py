"""The ``farkle`` commands about games and tables: ``variants``, ``keeps``,
``odds``, ``solve``, ``tables`` and ``info``. :mod:`solver.cli.parser`
builds their parser; the commands at the table are in
:mod:`solver.cli.at_table`.
"""

from __future__ import annotations

import sys
import time

from solver.cli.args import by_dice, decimal, listed, print_json, rules_of, scientific, whole
from solver.cli.tables import memory_of, progress_bar
from solver.model.errors import UsageError
from solver.tables.load import duration, megabytes
from solver.text import N_, _, ngettext, number


def _dice_roll(rules, dice):
    if not dice or len(dice) > rules.dice:
        raise UsageError(_("a roll in {game} has 1 to {most} dice, not {given}").format(
            game=rules.name, most=rules.dice, given=len(dice)))
    bad = [d for d in dice if not 1 <= d <= 6]
    if bad:
        raise UsageError(_("a die shows 1 to 6, not {face}").format(face=bad[0]))
    return dice


def cmd_variants(args):
    from solver.model.house_rules import load_house_rules
    from solver.model.rules import GAMES
    games = [load_house_rules(args.rules)] if args.rules is not None else GAMES.values()
    rows = [rules.describe() for rules in games]
    if args.json:
        print_json(rows)
        return
    for row in rows:
        # English writes "dice" in this column whatever the count.
        print(ngettext("{name:<20} {dice} dice  target {target:>6}  entry {entry:>3}  {summary}",
                       "{name:<20} {dice} dice  target {target:>6}  entry {entry:>3}  {summary}",
                       row["dice"]).format(name=row["name"], dice=row["dice"],
                                           target=whole(row["target"]),
                                           entry=whole(row["entry"]), summary=row["summary"]))


def cmd_keeps(args):
    from solver.model.dice import keeps_of_dice
    rules = rules_of(args)
    roll = _dice_roll(rules, args.dice)
    options = keeps_of_dice(rules, roll)
    if args.json:
        print_json([{"dice": list(k.dice), "points": k.points, **({"win": True} if k.win else {})}
                     for k in options])
        return
    if not options:
        print(_("{roll}: zero roll, no die scores").format(roll=" ".join(map(str, roll))))
        return
    for k in options:
        label = _("wins the game") if k.win else whole(k.points)
        print(f"{' '.join(map(str, k.dice)):<12} = {label}")
    if rules.keep_rule == "all":
        print(_("({game} sets every scoring die aside: this keep is forced)").format(
            game=rules.name))


ODDS_HEADS = ((N_("dice"), 4), (N_("zero roll"), 9), (N_("hot dice"), 8),
              (N_("best keep (points)"), 8))
"""``farkle odds``'s columns: each one's head and its numbers' least width."""


def cmd_odds(args):
    from solver.model.dice import odds
    rules = rules_of(args)
    if args.turns:
        return _odds_of_turns(args, rules)
    rows = odds(rules)
    if args.json:
        print_json(rows)
        return
    heads = [_(head) for head, _width in ODDS_HEADS]
    widths = [max(width, len(head)) if i < 3 else width
              for i, (head, (_head, width)) in enumerate(zip(heads, ODDS_HEADS))]
    print("   ".join(heads))
    for row in rows:
        cells = (str(row["dice"]), number(float(row["zero"]), 4), number(float(row["hot"]), 4),
                 decimal(float(row["best_points"]), 1))
        print("   ".join(cell.rjust(width) for cell, width in zip(cells, widths)))


def _solve_for_points(args, rules):
    """``solve --objective points``: the turn played alone for points
    (:mod:`solver.engine.solo`); nothing is written."""
    from solver.engine.solo import points_policy
    if args.players != 2 or args.out is not None or args.memory is not None:
        raise UsageError(_("--objective points plays one turn alone: no --players, --out or "
                           "--memory"))
    policy = points_policy(rules)
    crosses = range(rules.crosses if rules.fall_penalty else 1)
    bank_from = [{n: policy.bank_from(n, c) for n in range(1, rules.dice + 1)} for c in crosses]
    if args.json:
        print_json({"game": rules.name, "objective": "points",
                    "points_per_turn": policy.points_per_turn,
                    "bank_from": {str(n): t for n, t in bank_from[0].items()},
                    **({"bank_from_by_crosses": [{str(n): t for n, t in row.items()}
                                                 for row in bank_from]}
                       if rules.fall_penalty else {})})
        return
    if rules.fall_penalty:
        print(_("{game}: turns played for the most points average {points} in the long run, "
                "{crosses} zero turns in a row costing {penalty} (the objective: points, not "
                "the win)").format(game=rules.name, points=number(policy.points_per_turn, 3),
                                   crosses=rules.crosses, penalty=number(rules.fall_penalty)))
    else:
        print(_("{game}: a turn played for the most points scores {points} on average (the "
                "objective: points, not the win)").format(
                    game=rules.name, points=number(policy.points_per_turn, 3)))
    for c, row in zip(crosses, bank_from):
        thresholds = by_dice((n, _("never") if t is None else number(t))
                             for n, t in sorted(row.items(), reverse=True))
        if rules.fall_penalty:
            print(ngettext("after {count} zero turn in a row, bank once the turn total reaches, "
                           "by dice left to roll: {thresholds}",
                           "after {count} zero turns in a row, bank once the turn total "
                           "reaches, by dice left to roll: {thresholds}", c).format(
                               count=c, thresholds=thresholds))
        else:
            print(_("bank once the turn total reaches, by dice left to roll: {thresholds}")
                  .format(thresholds=thresholds))


def _solve_for_turns(args, rules):
    """``solve --objective turns``: one player alone, from 0 to the target
    in the fewest expected turns (:mod:`solver.engine.solo_turns`; no
    opponent, so no take-over); nothing is written."""
    from solver.engine.solo_turns import check_turns_rules, turns_policy
    if args.players != 2 or args.out is not None or args.memory is not None:
        raise UsageError(_("--objective turns plays alone and writes nothing: no --players, "
                           "--out or --memory"))
    check_turns_rules(rules, "--objective turns")
    started = time.perf_counter()
    policy = turns_policy(rules)
    seconds = time.perf_counter() - started
    if args.json:
        print_json({"game": rules.name, "target": rules.target, "objective": "turns",
                    "expected_turns": policy.expected_turns, "turn_dps": policy.dp_passes,
                    "seconds": seconds})
        return
    print(_("{game} to {target}, one player alone: {turns} turns expected from 0, playing for "
            "the fewest (the objective: turns, not the win)").format(
                game=rules.name, target=number(rules.target),
                turns=number(policy.expected_turns, 3)))
    print(_("solved in {seconds} s ({passes} turn DPs); nothing written").format(
        seconds=decimal(seconds, 1), passes=whole(policy.dp_passes)))


def _odds_of_turns(args, rules):
    """``odds --turns``: the law of the number of turns that the fewest-turns
    policy of :func:`_solve_for_turns` needs from 0."""
    from solver.engine import solo_turns
    solo_turns.check_turns_rules(rules, "odds --turns")
    policy = solo_turns.turns_policy(rules, transitions=True)
    probabilities = policy.distribution()

    def percentile(q):
        return solo_turns.turns_percentile(probabilities, q)

    mean = policy.expected_turns
    # A few turn counts around the mean, whatever the game's scale.
    within = sorted({max(1, round(mean * f)) for f in (0.5, 1.0, 1.5, 2.0)})
    within_odds = {n: solo_turns.done_within(probabilities, n) for n in within}
    if args.json:
        print_json({"game": rules.name, "target": rules.target, "objective": "turns",
                    "expected_turns": mean, "median": percentile(0.5),
                    "percentile_90": percentile(0.9), "percentile_99": percentile(0.99),
                    "within": {str(n): p for n, p in within_odds.items()},
                    "distribution": [float(p) for p in probabilities],
                    "distribution_tail": solo_turns.TAIL})
        return
    print(_("{game} to {target}, one player alone playing for the fewest turns:").format(
        game=rules.name, target=number(rules.target)))
    print(_("expected {mean} turns; median {median}, 90th percentile {p90}, 99th percentile "
            "{p99}").format(mean=number(mean, 3), median=whole(percentile(0.5)),
                            p90=whole(percentile(0.9)), p99=whole(percentile(0.99))))
    print(_("done within n turns: {odds}").format(
        odds=by_dice((n, number(p, 4)) for n, p in within_odds.items())))


def cmd_solve(args):
    """Solve and write the table; with others solving the same table at
    once, one solves and the others wait and report its table (issue 68,
    :func:`solver.tables.make.make_table`)."""
    from solver.tables.estimates import check_players
    from solver.tables.make import make_table
    rules = rules_of(args)
    if args.cluster is not None and args.objective != "win":
        raise UsageError(_("--cluster is for the N-player solve (--objective win)"))
    if args.objective == "points":
        return _solve_for_points(args, rules)
    if args.objective == "turns":
        return _solve_for_turns(args, rules)
    memory = memory_of(args, rules)
    check_players(rules, args.players, memory)
    started = time.perf_counter()
    made = make_table(rules, args.out, args.tolerance, memory,
                      progress_bar(_("solving {game}").format(game=rules.name)),
                      players=args.players, say=_say, reuse=True, cluster=args.cluster,
                      worker_memory=args.worker_memory)
    solution, path, residual = made.solution, made.path, made.residual
    if solution is None:
        from solver.tables.files import read_table
        solution = read_table(path, expect=rules, expect_players=args.players)
        residual = float(solution.stats["bellman_residual"])
        _say((_("{file} was made by another farkle (pid {pid}) while this one waited: using it")
              if made.made_by else
              _("{file} was made by another farkle while this one waited: using it")).format(
                  file=path.name, pid=made.made_by))
    seconds = time.perf_counter() - started
    seat_wins = _seat_wins(solution)
    result = {"game": rules.name, "target": rules.target, "players": args.players,
              "first_player_win": solution.first_player_win, "seat_wins": seat_wins,
              "states": int(solution.stats["turn_starts"]), "seconds": seconds,
              "table": str(path), "bellman_residual": residual}
    if made.solution is None:
        result["made_by"] = made.made_by
    elif args.cluster is not None:
        result["cluster"] = solution.stats["cluster"]       # workers, tasks, memory peaks
    if args.players > 2:
        from solver.tables.files import equilibria_summary
        result["equilibria"] = equilibria_summary(solution)
    if args.json:
        print_json(result)
        return
    if args.players == 2:
        print(_("{game} to {target}: the first player wins with probability {chance}").format(
            game=rules.name, target=whole(rules.target),
            chance=number(solution.first_player_win, 7)))
    else:
        print(_("{game} to {target}, {players} players: seats win {chances}").format(
            game=rules.name, target=whole(rules.target), players=args.players,
            chances=_seat_chances(seat_wins)))
        _print_equilibria(result["equilibria"])
    print((_("{states} turn starts solved in {seconds} s; Bellman residual {residual}; table "
             "{path}") if made.solution is not None else
           _("{states} turn starts solved by another farkle while this one waited; Bellman "
             "residual {residual}; table {path}")).format(
               states=whole(result["states"]), seconds=decimal(seconds, 1),
               residual=scientific(residual, 1), path=path))


def _say(line: str) -> None:
    """One line on stderr, as the errors are."""
    print(f"farkle: {line}", file=sys.stderr, flush=True)


def _seat_wins(solution) -> list[float]:
    """Each seat's chance at the game start, seat 1 first."""
    return [float(v) for v in solution.seat_wins]


def _seat_chances(wins) -> str:
    return listed((i + 1, number(v, 7)) for i, v in enumerate(wins))


def _print_equilibria(summary) -> None:
    if not summary["blocks_mixed"]:
        print(_("  every decision pure: best responses settled at every level"))
        return
    print(_("  {levels} levels ({blocks} score tuples) needed the logit-path equilibrium; "
            "{decisions} decisions mixed").format(
                levels=whole(summary["levels_mixed"]), blocks=whole(summary["blocks_mixed"]),
                decisions=whole(summary["mixed_decisions"])))
    if summary.get("blocks_selected_otherwise"):
        print(_("  at {blocks} of them the logit path lost its way and the first equilibrium "
                "found was taken").format(blocks=whole(summary["blocks_selected_otherwise"])))
    if summary["other_equilibria"]:
        print(_("  other equilibria found at {blocks} of them; they move those values by up to "
                "{move}").format(blocks=whole(summary["blocks_with_other_equilibria"]),
                                 move=scientific(summary["largest_move_of_other_equilibria"], 1)))


WHERE = {"user": N_("user"), "package": N_("package")}
"""Where a table is, as ``farkle tables --json`` writes it, in words."""


def cmd_tables(args):
    from solver.tables.listing import list_tables, remove_table
    if args.remove:
        path = remove_table(args.remove)
        if args.json:
            print_json({"removed": str(path)})
        else:
            print(_("removed {path}").format(path=path))
        return
    rows = list_tables()
    if args.json:
        print_json(rows)
        return
    sizes = [megabytes(row["bytes"]) for row in rows if row["status"] == "present"]
    # A column of sizes: 10 wide, as English's "under 1 MB", or the widest.
    width = max([10] + [len(size) for size in sizes])
    for row in rows:
        game = f"{row['game']:<24}"
        if row["status"] == "card only":
            print(_("{game} no table; its card is kept").format(game=game))
        elif row["status"] == "missing":
            print(_("{game} missing: {command} (about {time}, {size})").format(
                game=game, command=row["command"], time=duration(row["estimated_seconds"]),
                size=megabytes(row["estimated_bytes"])))
        elif row["status"] == "outdated":
            print(_("{game} made by an older farkle-solver: {command}").format(
                game=game, command=row["command"]))
        elif row["status"] == "damaged":
            print(_("{game} damaged: {error}").format(game=game, error=row["error"]))
        else:
            where = _(WHERE[row["where"]]) if row["where"] in WHERE else row["where"]
            print(f"{game} {megabytes(row['bytes']):>{width}}  {where:<7} {row['path']}")
        if "card" in row:
            loss = row["card"]["loss"]
            given_up = _("unreadable") if loss is None else \
                _gives_up(100 * loss)
            print(_("{blank} a strategy card fitted here ({given_up}): {path}").format(
                blank=" " * 24, given_up=given_up, path=row["card"]["path"]))


def _gives_up(points: float) -> str:
    """``gives up 0.71 points`` (of 100: games lost in 100)."""
    return ngettext("gives up {points} points", "gives up {points} points",
                    int(abs(points))).format(points=number(points, 2))


def cmd_info(args):
    from solver.tables.files import read_info
    info = read_info(args.file)
    if args.json:
        print_json(info)
        return
    print(_("{file}: {game} to {target} ({size} MB)").format(
        file=info["file"], game=info["game"], target=whole(info["target"]),
        size=decimal(info["bytes"] / 1e6, 1)))
    if info["players"] == 2:
        print(_("  first player wins {chance}").format(
            chance=number(info["first_player_win"], 7)))
    else:
        print(_("  {players} players; seats win {chances}").format(
            players=info["players"], chances=_seat_chances(info["seat_wins"])))
        _print_equilibria(info["equilibria"])
    print(_("  tolerance {tolerance}, Bellman residual {residual}, solved in {seconds} s by "
            "farkle-solver {version}").format(
                tolerance=scientific(info["tolerance"], 0),
                residual=scientific(info["bellman_residual"], 1),
                seconds=decimal(info["solve_seconds"], 1), version=info["program_version"]))
    if "take_quantum" in info:
        print(_("  take-over values: the offers worth taking, in steps of {step} (error at "
                "most {error})").format(step=scientific(info["take_quantum"], 2),
                                        error=scientific(info["take_quantum"] / 2, 1)))
    for name, meta in info["datasets"].items():
        axes = ", ".join(info["axes"].get(name, []))
        print(f"  {name:<14} {meta['dtype']:<8} {meta['shape']}  ({axes})")
