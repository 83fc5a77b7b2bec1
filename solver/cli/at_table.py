"""The ``farkle`` commands at the table: ``advise``, ``simulate``, ``card``,
``play`` and ``serve``, the ones that choose moves from a table (or from the
strategy card). :mod:`solver.cli.main` builds their parser.
"""

from __future__ import annotations

from solver.cli.args import print_json, rules_of
from solver.cli.tables import first_use, memory_of, progress_bar, table_of
from solver.model.errors import UsageError


def _lines(args):
    """My line and the opponents' (one Line with two players, else a list in
    seat order after me)."""
    from solver.advice.advisor import lines_of
    return lines_of(args.me, args.crosses, args.previous, args.opp,
                    args.opp_crosses, args.opp_previous)


def _load_advisor(args):
    from solver.advice.advisor import turn_state
    from solver.model.states import check_line
    rules = rules_of(args)
    me, opp = _lines(args)
    players = 1 + len(args.opp)
    # The memory of the table that will answer, where the line fixes it: with
    # more players the table decides (exact, or the duels model on the
    # two-player table), and what only it needs is asked once it is chosen.
    memory = None if players > 2 else "none" if not rules.falls_back else args.memory or "model"

    def check():
        # Before a solve: from the rules alone, at once whatever the target.
        check_line(rules, me, "my", memory)
        for line in opp if players > 2 else [opp]:
            check_line(rules, line, "opponent", memory)
        turn_state(rules, args.me, args.turn, args.dice if args.dice is not None else rules.dice)
    return _players_advisor(args, rules, players, check)


def _players_advisor(args, rules, players, check=None):
    """The advisor of ``players`` at ``rules``: exact or the model, as
    :func:`solver.advice.choose.advisor_for` decides; a missing table is
    made on first use."""
    from solver.advice.choose import advisor_for
    return advisor_for(rules, players, memory_of(args, rules), path=args.table,
                       first_use=first_use(args), before_solving=check)


def _parse_offer(text):
    try:
        points, dice = (int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--offer takes T,N (turn total and dice), not {text!r}") from None
    return points, dice


def cmd_advise(args):
    advisor = _load_advisor(args)
    rules = advisor.rules
    dice = args.dice if args.dice is not None else rules.dice
    me, opp = _lines(args)
    if args.offer is not None:
        if args.turn != 0 or args.roll:
            raise UsageError("--offer is a turn-start question: use it with --turn 0 and no --roll")
        advice = advisor.take_or_fresh(me, opp, *_parse_offer(args.offer))
    elif args.roll:
        advice = advisor.keep(me, opp, args.turn, dice, args.roll)
    else:
        advice = advisor.bank_or_roll(me, opp, args.turn, dice)
    card = None
    if args.card:
        from solver.cards.sheet import card_answer
        from solver.cards.store import card_for
        opponents = opp if isinstance(opp, list) else [opp]
        card = card_answer(card_for(rules, 1 + len(opponents))[0], rules, advice, me,
                           opponents, args.turn, dice, args.roll,
                           _parse_offer(args.offer) if args.offer is not None else None)
    if args.json:
        print_json({**advice.to_json(), **({"card": card} if card else {})})
        return
    if advice.note:
        print(advice.note)
    others = len(advice.choices[0].wins or []) > 2
    for choice in advice.choices:
        line = f"{_describe(choice):<32} {100 * choice.win:6.2f}%"
        if others:
            line += "   opponents " + " ".join(f"{100 * v:5.2f}%" for v in choice.wins[1:])
        print(line)
    if card:
        what = f"keep {' '.join(map(str, card['keep']))}" if "keep" in card else card["action"]
        print(f"the card: {what}" + (", the best choice" if card["cost"] <= 1e-12 else
                                     f", {100 * card['cost']:.2f} points of 100 less"))


def cmd_simulate(args):
    from solver.sim.policies import parse_policy
    from solver.sim.simulate import MAX_GAMES, simulate
    from solver.sim.simulate_n import seat_policies
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games must be 1 to {MAX_GAMES:,}, not {args.games:,}")
    if args.seed < 0:
        raise UsageError(f"--seed must be 0 or more, not {args.seed}")
    seats = seat_policies(args.players, args.seat, args.a, args.b)
    rules = rules_of(args)
    if seats is not None:
        return _simulate_seats(args, rules, seats)
    policies = [parse_policy(args.a), parse_policy(args.b)]
    both_optimal = all(str(p) == "optimal" for p in policies)
    solution = None
    if any(p.needs_table for p in policies):
        solution = table_of(args, rules, lazy_take=False)
    result = simulate(rules, *policies, args.games, seed=args.seed, solution=solution,
                      progress=progress_bar(f"playing {rules.name}") if args.games >= 50_000 else None)
    _some_finished(result.unfinished, args.games)
    predicted = solution.first_player_win if both_optimal else None
    out = {"game": rules.name, "target": rules.target, "a": args.a, "b": args.b,
           "games": result.games, "wins_a": result.wins_a, "win_rate_a": result.win_rate_a,
           "stderr": result.stderr, "predicted": predicted, "unfinished": result.unfinished,
           "seed": args.seed, "seconds": result.seconds, "shared": result.shared}
    if args.json:
        print_json(out)
        return
    print(f"{rules.name} to {rules.target}: A ({args.a}) against B ({args.b}), "
          f"{result.games} games, seed {args.seed}")
    print(f"A wins {100 * result.win_rate_a:.2f}% +- {100 * result.stderr:.2f}% "
          f"(one standard error)")
    if result.shared:
        print(f"{result.shared} games shared (a final round's tie), half a win each")
    if predicted is not None:
        gap = (result.win_rate_a - predicted) / result.stderr if result.stderr else 0.0
        print(f"the table predicts {100 * predicted:.2f}% ({gap:+.1f} standard errors)")
    if result.unfinished:
        print(f"{result.unfinished} games stopped at the turn cap and are not counted")


def _some_finished(unfinished: int, games: int) -> None:
    """No win rate is shown for games none of which ended (a rate of 0/0)."""
    if unfinished == games:
        from solver.sim.score_sheet import MAX_TURNS
        raise UsageError(f"no game ended within {MAX_TURNS:,} turns ({games:,} played): these "
                         f"policies do not finish this game; try a smaller --target")


def _simulate_seats(args, rules, policies):
    """``simulate --seat ...``: N seats (two: the two-player simulator)."""
    from solver.sim.simulate import simulate
    from solver.sim.simulate_n import simulate_n, two_player_result
    solution = None
    if any(p.needs_table for p in policies):
        solution = table_of(args, rules, lazy_take=False, players=args.players)
    progress = progress_bar(f"playing {rules.name}") if args.games >= 50_000 else None
    if args.players == 2:
        result = two_player_result(simulate(rules, *policies, args.games, seed=args.seed,
                                            solution=solution, progress=progress), solution)
    else:
        result = simulate_n(rules, policies, args.games, seed=args.seed, solution=solution,
                            progress=progress)
    _some_finished(result.unfinished, args.games)
    if args.json:
        print_json(result.to_json())
        return
    print("\n".join(result.describe()))


def cmd_card(args):
    from solver.cards.store import find_card, loss_with_players
    from solver.cards.text import card_text
    from solver.engine.solution_n import check_player_count
    rules = rules_of(args)
    check_player_count(args.players)
    if args.fit:
        interrupted = _fit_card(args, rules)
        if interrupted:
            return interrupted
    elif args.table is not None or args.rounds != 1 or args.sampled is not None:
        raise UsageError("--table, --rounds and --sampled go with --fit")
    found = find_card(rules, args.players)
    card, loss = found.card, found.loss
    notes = []
    if loss and rules.target != loss.get("target", rules.target):
        notes.append(f"fitted and measured to {loss['target']:,}; here the target is "
                     f"{rules.target:,}")
    if found.fitted_here is not None:
        plays = loss.get("plays", 1)
        how = (f"{plays} play{'s' * (plays != 1)} of {loss['sampled']:,} sampled games"
               if "sampled" in loss
               else f"{loss['evaluations']} evaluations")
        notes.append(f"fitted on this machine from {loss['start']}, {how}; kept in "
                     f"{found.fitted_here}")
    two_player_card = (loss_with_players(rules, args.players)
                       if args.players > 2 and found.fitted_here is None else None)
    # The printed card's loss with this many players: the fitted card's, or
    # the two-player card's measured there.
    with_players = loss if found.players > 2 else two_player_card
    if found.players > 2:
        if two_player_card:
            notes.append(f"the two-player card, played against the leader, gives up "
                         f"{100 * two_player_card['loss']:.2f} points with {args.players}")
    elif two_player_card:
        notes.append(f"with {args.players} players: play it against the leader; so played it "
                     f"gives up {100 * two_player_card['loss']:.2f} points of 100 against "
                     f"perfect play with {args.players}")
    elif args.players > 2:
        notes.append(f"with {args.players} players: play it against the leader (fitted and "
                     "measured for two)")
    then_table = found.then_table if args.players == 2 else None
    text = card_text(card, rules, loss, found.players, then_table)
    if args.json:
        print_json({"game": rules.name, "players": args.players, "fitted_for": found.players,
                     "card": card.to_dict(), "loss": loss, "loss_with_players": with_players,
                     "two_player_card_loss_with_players": two_player_card
                     if found.players > 2 else None, "simple": found.simple,
                     "fitted_here": str(found.fitted_here) if found.fitted_here else None,
                     "card_then_table": then_table,
                     "notes": notes, "text": text})
        return
    print(text)
    for note in notes:
        print(f"({note})")


def _fit_card(args, rules) -> int:
    """``farkle card --fit``: the search of :mod:`solver.cards.fit.fit_here` against
    the game's table, with a progress bar; 130 if interrupted (the best card
    so far is kept)."""
    import sys

    from tqdm import tqdm

    from solver.cards.fit.fit_here import fit_card
    from solver.cards.store import card_path, stored_card
    if args.rounds < 1:
        raise UsageError(f"--rounds takes 1 or more, not {args.rounds}")
    if args.sampled is not None and args.sampled < 100:
        raise UsageError(f"--sampled takes 100 games or more, not {args.sampled}")
    if args.sampled is not None and args.players != 2:
        raise UsageError("--sampled fits a two-player card; a table of more players is "
                         "fitted by exact evaluations")
    if stored_card(rules, args.players) is not None:
        raise UsageError(f"{rules.name} has a stored card for {args.players} players, fitted "
                         "with the program (scripts/fit_cards.py); --fit is for a house "
                         "game, another target or a table of more players")
    solution = table_of(args, rules, lazy_take=False, players=args.players)
    game = f"--rules {args.rules}" if args.rules is not None else rules.name
    command = (f"farkle card {game}" + (f" --target {rules.target}" if args.target else "")
               + (f" --players {args.players}" if args.players != 2 else "")
               + " --fit" + (f" --rounds {args.rounds}" if args.rounds != 1 else "")
               + (f" --sampled {args.sampled}" if args.sampled else ""))
    print(f"farkle: fitting a card for {rules.name} to {rules.target:,} with {args.players} "
          f"players; " + (f"its moves scored over {args.sampled:,} sampled games, the card "
                          f"kept once measured exactly" if args.sampled else
                          "Ctrl-C keeps the best card so far"), file=sys.stderr)
    bar, round_ = None, 0

    def progress(at):
        nonlocal bar, round_
        if at.round != round_:
            if bar is not None:
                bar.close()
            round_ = at.round
            bar = tqdm(total=at.moves, desc=f"round {at.round}", unit="card", file=sys.stderr,
                       leave=False, disable=None)
        bar.total = max(at.moves, at.tried)
        bar.set_postfix_str(f"gives up {100 * at.loss:.3f} points", refresh=False)
        bar.update(at.tried - bar.n)

    def log(text):
        if bar is None or bar.disable:
            print(f"farkle: {text}", file=sys.stderr)
        else:
            bar.write(f"farkle: {text}", file=sys.stderr)
    try:
        fit_card(solution, args.rounds, command, log, None if args.sampled else progress,
                 args.sampled)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()         # its line cleared before ours (closing again is harmless)
        path = card_path(rules, args.players)
        # A sampled search keeps its card only once it is measured exactly.
        kept = "the card fitted before is kept" if args.sampled else \
            "the best card so far is kept"
        print("farkle: interrupted; " + (f"{kept} in {path}" if path.exists()
                                         else "no card was kept"), file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()
    return 0


def cmd_play(args):
    from solver.play.terminal import check_options, play
    rules = rules_of(args)
    options = check_options(args, rules)
    return play(_players_advisor(args, rules, options.players), options)


def cmd_serve(args):
    from solver.model.house_rules import load_house_rules
    from solver.web.api import TableDesk
    from solver.web.server import serve
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    house_rules = load_house_rules(args.rules) if args.rules is not None else None
    serve(TableDesk(house_rules, args.rules), args.host, args.port, args.quiet)


def _describe(choice) -> str:
    if choice.action == "keep":
        then = {"bank": "then bank", "roll": "then roll", "win": "wins", "zero": "overshoots"}
        return f"keep {' '.join(map(str, choice.keep))} ({choice.points}), {then[choice.then]}"
    return {"bank": "bank", "roll": "roll", "take": "take over", "fresh": "roll fresh",
            "zero": "zero roll"}[choice.action]
