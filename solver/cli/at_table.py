"""The ``farkle`` commands at the table: ``advise``, ``simulate``, ``card``,
``play`` and ``serve``, the ones that choose moves from a table (or from the
strategy card). :mod:`solver.cli.parser` builds their parser.
"""

from __future__ import annotations

from solver.cli.args import action_word, print_json, rules_of, signed, whole
from solver.cli.tables import first_use, memory_of, progress_bar, table_of
from solver.model.errors import UsageError
from solver.text import _, ngettext, number, percent


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
        raise UsageError(_("--offer takes T,N (turn total and dice), not {text!r}").format(
            text=text)) from None
    return points, dice


def cmd_advise(args):
    advisor = _load_advisor(args)
    rules = advisor.rules
    dice = args.dice if args.dice is not None else rules.dice
    me, opp = _lines(args)
    if args.offer is not None:
        if args.turn != 0 or args.roll:
            raise UsageError(_("--offer is a turn-start question: use it with --turn 0 and no "
                               "--roll"))
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
    from solver.play.screen import describe  # the terminal's words for a choice
    if advice.note:
        print(advice.note)
    others = len(advice.choices[0].wins or []) > 2
    for choice in advice.choices:
        line = f"{describe(choice):<32} {percent(choice.win, 2):>7}"
        if others:
            line += "   " + _("opponents {chances}").format(
                chances=" ".join(f"{percent(v, 2):>6}" for v in choice.wins[1:]))
        print(line)
    if card:
        what = (_("keep {dice}").format(dice=" ".join(map(str, card["keep"]))) if "keep" in card
                else action_word(card["action"]))
        print(_("the card: {what}, the best choice").format(what=what) if card["cost"] <= 1e-12
              else ngettext("the card: {what}, {cost} points of 100 less",
                            "the card: {what}, {cost} points of 100 less",
                            int(100 * card["cost"])).format(
                                what=what, cost=number(100 * card["cost"], 2)))


def cmd_simulate(args):
    from solver.sim.policies import parse_policy
    from solver.sim.simulate import MAX_GAMES, simulate
    from solver.sim.simulate_n import seat_policies
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(_("--games must be 1 to {most}, not {given}").format(
            most=number(MAX_GAMES), given=number(args.games)))
    if args.seed < 0:
        raise UsageError(_("--seed must be 0 or more, not {seed}").format(seed=args.seed))
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
                      progress=_playing(rules, args.games))
    _some_finished(result.unfinished, args.games)
    predicted = solution.first_player_win if both_optimal else None
    out = {"game": rules.name, "target": rules.target, "a": args.a, "b": args.b,
           "games": result.games, "wins_a": result.wins_a, "win_rate_a": result.win_rate_a,
           "stderr": result.stderr, "predicted": predicted, "unfinished": result.unfinished,
           "seed": args.seed, "seconds": result.seconds, "shared": result.shared}
    if args.json:
        print_json(out)
        return
    print(_("{game} to {target}: A ({a}) against B ({b}), {games} games, seed {seed}").format(
        game=rules.name, target=whole(rules.target), a=args.a, b=args.b,
        games=whole(result.games), seed=args.seed))
    print(_("A wins {chance} +- {error} (one standard error)").format(
        chance=percent(result.win_rate_a, 2), error=percent(result.stderr, 2)))
    if result.shared:
        print(_("{games} games shared (a final round's tie), half a win each").format(
            games=whole(result.shared)))
    if predicted is not None:
        gap = (result.win_rate_a - predicted) / result.stderr if result.stderr else 0.0
        print(ngettext("the table predicts {chance} ({gap} standard errors)",
                       "the table predicts {chance} ({gap} standard errors)",
                       int(abs(gap))).format(chance=percent(predicted, 2), gap=signed(gap, 1)))
    if result.unfinished:
        print(_("{games} games stopped at the turn cap and are not counted").format(
            games=whole(result.unfinished)))


def _playing(rules, games):
    """The progress bar of a long simulation (none for a short one)."""
    return progress_bar(_("playing {game}").format(game=rules.name)) if games >= 50_000 else None


def _some_finished(unfinished: int, games: int) -> None:
    """No win rate is shown for games none of which ended (a rate of 0/0)."""
    if unfinished == games:
        from solver.sim.score_sheet import MAX_TURNS
        raise UsageError(_("no game ended within {turns} turns ({games} played): these "
                           "policies do not finish this game; try a smaller --target").format(
                               turns=number(MAX_TURNS), games=number(games)))


def _simulate_seats(args, rules, policies):
    """``simulate --seat ...``: N seats (two: the two-player simulator)."""
    from solver.sim.simulate import simulate
    from solver.sim.simulate_n import simulate_n, two_player_result
    solution = None
    if any(p.needs_table for p in policies):
        solution = table_of(args, rules, lazy_take=False, players=args.players)
    progress = _playing(rules, args.games)
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
        raise UsageError(_("--table, --rounds and --sampled go with --fit"))
    found = find_card(rules, args.players)
    card, loss = found.card, found.loss
    notes = []
    if loss and rules.target != loss.get("target", rules.target):
        notes.append(_("fitted and measured to {fitted}; here the target is {target}").format(
            fitted=number(loss["target"]), target=number(rules.target)))
    if found.fitted_here is not None:
        plays = loss.get("plays", 1)
        how = (ngettext("{plays} play of {games} sampled games",
                        "{plays} plays of {games} sampled games", plays).format(
                            plays=plays, games=number(loss["sampled"]))
               if "sampled" in loss
               else _("{count} evaluations").format(count=whole(loss["evaluations"])))
        notes.append(_("fitted on this machine from {start}, {how}; kept in {path}").format(
            start=loss["start"], how=how, path=found.fitted_here))
    two_player_card = (loss_with_players(rules, args.players)
                       if args.players > 2 and found.fitted_here is None else None)
    # The printed card's loss with this many players: the fitted card's, or
    # the two-player card's measured there.
    with_players = loss if found.players > 2 else two_player_card
    loss_2 = two_player_card["loss"] if two_player_card else 0.0
    if found.players > 2:
        if two_player_card:
            notes.append(ngettext("the two-player card, played against the leader, gives up "
                                  "{points} points with {players}",
                                  "the two-player card, played against the leader, gives up "
                                  "{points} points with {players}", int(100 * loss_2)).format(
                                      points=number(100 * loss_2, 2), players=args.players))
    elif two_player_card:
        notes.append(ngettext("with {players} players: play it against the leader; so played "
                              "it gives up {points} points of 100 against perfect play with "
                              "{players}",
                              "with {players} players: play it against the leader; so played "
                              "it gives up {points} points of 100 against perfect play with "
                              "{players}", int(100 * loss_2)).format(
                                  players=args.players, points=number(100 * loss_2, 2)))
    elif args.players > 2:
        notes.append(_("with {players} players: play it against the leader (fitted and "
                       "measured for two)").format(players=args.players))
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
        raise UsageError(_("--rounds takes 1 or more, not {rounds}").format(rounds=args.rounds))
    if args.sampled is not None and args.sampled < 100:
        raise UsageError(_("--sampled takes 100 games or more, not {games}").format(
            games=args.sampled))
    if args.sampled is not None and args.players != 2:
        raise UsageError(_("--sampled fits a two-player card; a table of more players is "
                           "fitted by exact evaluations"))
    if stored_card(rules, args.players) is not None:
        raise UsageError(_("{game} has a stored card for {players} players, fitted with the "
                           "program (scripts/fit_cards.py); --fit is for a house game, another "
                           "target or a table of more players").format(
                               game=rules.name, players=args.players))
    solution = table_of(args, rules, lazy_take=False, players=args.players)
    game = f"--rules {args.rules}" if args.rules is not None else rules.name
    command = (f"farkle card {game}" + (f" --target {rules.target}" if args.target else "")
               + (f" --players {args.players}" if args.players != 2 else "")
               + " --fit" + (f" --rounds {args.rounds}" if args.rounds != 1 else "")
               + (f" --sampled {args.sampled}" if args.sampled else ""))
    fitting = (_("fitting a card for {game} to {target} with {players} players; its moves "
                 "scored over {games} sampled games, the card kept once measured exactly")
               if args.sampled else
               _("fitting a card for {game} to {target} with {players} players; Ctrl-C keeps "
                 "the best card so far"))
    print("farkle: " + fitting.format(game=rules.name, target=number(rules.target),
                                      players=args.players, games=number(args.sampled or 0)),
          file=sys.stderr)
    bar, round_ = None, 0

    def progress(at):
        nonlocal bar, round_
        if at.round != round_:
            if bar is not None:
                bar.close()
            round_ = at.round
            bar = tqdm(total=at.moves, desc=_("round {round}").format(round=at.round),
                       unit=_("card"), file=sys.stderr, leave=False, disable=None)
        bar.total = max(at.moves, at.tried)
        bar.set_postfix_str(ngettext("gives up {points} points", "gives up {points} points",
                                     int(100 * at.loss)).format(
                                         points=number(100 * at.loss, 3)), refresh=False)
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
        if not path.exists():
            said = _("interrupted; no card was kept")
        elif args.sampled:
            said = _("interrupted; the card fitted before is kept in {path}")
        else:
            said = _("interrupted; the best card so far is kept in {path}")
        print("farkle: " + said.format(path=path), file=sys.stderr)
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
        raise UsageError(_("--port must be 0 to 65535, not {port}").format(port=args.port))
    house_rules = load_house_rules(args.rules) if args.rules is not None else None
    serve(TableDesk(house_rules, args.rules), args.host, args.port, args.quiet)


