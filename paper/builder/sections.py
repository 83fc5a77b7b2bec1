"""The fills of ``paper/template.md``, section by section, in the order of
the text (so that table and figure numbers follow it): :func:`make`
returns ``{placeholder: text}``. The sentences here are those whose wording
depends on the results; tables and the abstract come from
:mod:`paper.builder.text`, figures from :mod:`paper.builder.figures`.
"""

from __future__ import annotations

import inspect

from paper.builder import figures as F
from paper.builder.cards import cards_text
from paper.builder.fair_start import MECHANISMS, fair_start_text
from paper.builder.players import players_text
from paper.builder.text import PUBLISHED, Writer, _and
from solver.model.rules import GAMES
from solver.model.states import memory_space
from solver.study.analysis import plain_scores, start_values
from solver.study.fair_start_survey import nearest_half
from solver.tables.make import solve_game

MAIN = ("cinq-mille", "quinze-mille", "dix-mille")


def make(N, tabs, figs, *, present, missing, dice_checks, reference, house, not_solved,
         model_check, memory, memory_game, quick, machine, rule_rows, sigmas, version,
         players=None, fair_start=None, cards=None, card_games=None) -> dict:
    W = Writer(N, tabs, figs)
    games = {g.key: g for g in present}
    P: dict[str, str] = {"version": version, "machine": machine}

    edges = [(g, min(g.results["heuristics"], key=lambda h: h["both"])) for g in present]
    P["abstract"] = W.abstract(games, house, min(edges, key=lambda e: e[1]["both"])
                               if edges else None, model_check, missing,
                               decision_loss(memory) if memory_game == "dix-mille" else None)

    # ------------------------------------------------------------- games
    P["unit"] = N("unit/farkle", GAMES["cinq-mille"].unit, "pts")
    P["unit_pig"] = N("unit/pig", GAMES["pig"].unit, "int")
    P["table_games"] = W.games_table(rule_rows)
    P["points_ref"] = tabs.peek()
    P["table_points"] = W.points_table(["dix-mille", "quinze-mille", "cinq-mille", "pig"])
    P["readings"] = readings(N)

    # ------------------------------------------------------------ method
    P["newton"] = W.newton_text(present)
    P["table_classes"] = W.classes_table(dice_checks)
    dix = games.get("dix-mille")
    tol = (dix.info["tolerance"] if dix and dix.info else
           inspect.signature(solve_game).parameters["tol"].default)
    P["tolerance"] = N("method/tolerance", tol, "e")
    P["crosses"] = N("rules/dix-mille/crosses", GAMES["dix-mille"].crosses, "int")
    P["sweeps"] = sweeps_text(N, dix)
    P["memory_model"] = memory_model_text(N, dix)
    P["cost_ref"] = P["cost_ref_again"] = tabs.peek()
    P["table_cost"] = W.cost_table(present)

    # ------------------------------------------------------- correctness
    P["dice_ref"] = tabs.peek()
    P["table_dice"], agree = W.dice_table(dice_checks)
    P["dice_agree"] = ("they agree with the engine's for every game and number of dice." if agree
                       else "**they disagree with the engine's**.")
    pig = games.get("pig")
    P["pig"] = "" if pig is None else (
        "### Pig\n\n"
        f"Pig to {N('rules/pig/target', GAMES['pig'].target, 'pts')} is the same engine with one "
        f"die. Its table gives the first player {W.fpw(pig)}; Neller and Presser published "
        f"{N('pig/published', PUBLISHED['pig'], 'p')} [1]. "
        + ("The two agree to the published digits." if abs(pig.solution.first_player_win
                                                             - PUBLISHED["pig"]) < 5e-8
           else "**The two differ.**"))
    if reference:
        worst = max(max(r["start_error"], r["take_error"] or 0) for r in reference)
        P["reference"] = (
            "`tests/reference_solver.py` is written from `docs/rules.md` alone and shares none of "
            "the fast solver's structure: no levels, no blocks, no Newton step, no grouped "
            "rolls, its own score-sheet lines (for dix-mille with the exact memory: score, "
            "previous score and crosses, literally), and plain value iteration over every "
            "state until the largest change is below the tolerance. The test suite compares "
            "the two at every turn start and every take-over value on small targets of every "
            f"game; this build re-ran the cases of {tabs.peek()}. The largest difference is "
            f"{N('reference/worst', worst, 'e')}.\n\n" + W.reference_table(reference))
    else:
        P["reference"] = ("`tests/test_reference.py` compares it with the fast solver; this "
                          "build could not run it (pytest is missing).")
    P["worst_residual"] = N("residual/worst", max(g.results["residual"] for g in present), "e")
    worst_z = max(abs(g.results["self"]["z"]) for g in present)
    crossed = [g for g in present if g.rules.crosses]
    P["self_play"] = (
        f"{tabs.peek()} gives the simulated rate with its binomial standard error, the table's "
        f"value and the difference in standard errors; the largest is "
        f"{N('self/worst_z', worst_z, 'f1')}."
        + ("" if not crossed else
           " With crosses this self-play plays `docs/rules.md`'s one-level memory, the rule the "
           "tables solve (the simulator's `one_level=True`); the optimal player uses the "
           "model's table with the exact one-turn look-ahead, so the difference measures the "
           "model as well as the table. Under the paper sheet the same games would have "
           "parted from the one-level rule in "
           + _and([f"{N(f'{g.key}/self/deep', g.results['self']['deep'], 'int')} games of "
                   f"{g.label}" for g in crossed]) + "."))
    P["table_self_play"] = W.self_play_table(present)

    # ----------------------------------------------------------- results
    entry_komi = [g.label for g in present if g.results["komi"] and g.rules.entry
                  and g.results["komi"]["h"] == g.rules.entry]
    P["komi"] = (
        "A fair game gives the second player a head start, the *komi*: the smallest score $h$ "
        "a player can hold such that the first player, to move at 0 against an opponent at "
        f"$h$, wins with probability at most one half. {tabs.peek()} gives $h$, with the first "
        "player's probability at $h$ and at the next smaller score, so that the fair head "
        "start lies between the two."
        + (" Where the smallest score above 0 is the entry (" + _and(entry_komi) + "), the "
           "entry itself already turns the advantage round: no score a player can hold is a "
           "fair head start (Section 6)." if entry_komi else ""))
    P["table_komi"] = W.komi_table(present)
    P["figure_win"] = F.win_map(figs, [(g.label, g.rules.unit, *start_values(g.solution))
                                       for g in present])
    P["fair_start"] = fair_start_text(N, tabs, fair_start, {g.key: g.label for g in present})
    P["bank"] = bank_text(N, games)
    P["bank_tables"] = bank_tables(W, present)
    take_games = [g for g in present if g.results.get("take")]
    P["take"], P["take_tables"] = take_texts(W, take_games)
    strongest = {g.label: min(g.results["heuristics"], key=lambda h: h["both"])["opponent"]
                 for g in present}
    kinds = sorted(set(strongest.values()))
    beats = all(h["both"] - sigmas * h["stderr"] > 0.5 for g in present
                for h in g.results["heuristics"])
    P["heuristics"] = (
        (f"The strongest of them is `{kinds[0]}` in every game. " if len(kinds) == 1 else
         "The strongest of them: " + "; ".join(f"{k} `{o}`" for k, o in strongest.items())
         + ". ")
        + ("Optimal play beats every one by more than "
           f"{N('heur/sigmas', sigmas, 'int')} standard errors." if beats else
           "Optimal play does not beat every one of them clearly."))
    P["table_heuristics"] = W.heuristics_table(present)
    P["cards"] = cards_text(N, tabs, figs, cards or {}, {**games, **(card_games or {})})
    P["house"] = house_text(N, house)
    P["table_house"], P["figure_house"] = W.house_table(house, not_solved)
    P["memory_cost"] = memory_cost_text(N, W, memory, memory_game, model_check)
    P["players"] = players_text(N, tabs, players)
    P["discussion"] = discussion(N, games, house, fair_start, cards or {})
    P["missing"] = missing_text(N, present, missing, not_solved, quick,
                                memory is not None and memory_game != "dix-mille")
    return P


def decision_loss(memory: dict | None):
    """The largest paired loss of the model's policy against the exact one
    (either seat, one-level memory) and the largest target measured."""
    losses, targets = [], []
    for name, d in (memory or {}).items():
        for seat in ("first", "second"):
            key = f"model {seat}: paired loss (one-level memory)"
            if key in d:
                losses.append(d[key])
                targets.append(int(name.split()[-1]))
    return (max(losses), max(targets)) if losses else None


# ------------------------------------------------------------- passages

def readings(N) -> str:
    dix, quinze, last = GAMES["dix-mille"], GAMES["quinze-mille"], GAMES["cinq-mille-last1000"]
    face, count = GAMES["cinq-mille"].instant_wins[0]
    k = f"rules/cinq-mille/instant/{face}/{count}"
    items = [
        "A roll that holds a legal keep must be kept from, even when every keep overshoots an "
        "exact target; the turn then ends as a zero turn.",
        f"In cinq-mille, {N(f'{k}/count', count, 'int')} dice showing "
        f"{N(f'{k}/face', face, 'int')} in one roll win the game at once, also before the "
        "opening; the player is not asked to keep fewer dice.",
        "A take-over offer goes to the next player only and lapses if they roll fresh; a bank "
        "with hot dice (no die unset) offers nothing. The taker plays on with their entry met, "
        "and taking over never wins by itself: only a keep can reach the target.",
        f"A dix-mille player who falls back to 0 must enter again "
        f"({N('rules/dix-mille/entry', dix.entry, 'pts')}).",
        f"In cinq-mille-last1000 a bank short of the target at "
        f"{N('rules/cinq-mille-last1000/cap', last.target - last.last_turn_points, 'pts')} is "
        "allowed and leaves the player there: the last points must come in one turn.",
        "dix-mille's crosses: a turn without a bank (zero roll or overshoot) is a cross, a bank "
        f"erases them, and at the {N('rules/dix-mille/crosses', dix.crosses, 'int')}rd "
        "consecutive cross the player goes back to the score before their last bank. The "
        "tables use `docs/rules.md`'s *one-level memory*: after a fall the previous score is the "
        "current score, so a further third cross only erases the crosses. The *paper sheet*, "
        "the rule as played with pen and paper, lists every bank and strikes off the last "
        "score at each third cross, so "
        f"{N('rules/dix-mille/deep_fall', 2 * dix.crosses, 'int')} zero turns in a row go back "
        "two banks. The simulator plays either rule; Section 4's self-play uses the one-level "
        "memory, and Section 5 reports what the difference costs. Crosses at score 0, or after "
        "a fall, change nothing, and the solver does not count them.",
        f"quinze-mille's take-over needs a banked score of at least "
        f"{N('rules/quinze-mille/takeover_min', quinze.takeover_min, 'pts')}; dix-mille's, an "
        f"entered player (so {N('rules/dix-mille/takeover_min', dix.takeover_min, 'pts')}).",
    ]
    return "\n".join(f"- {item}" for item in items)


def sweeps_text(N, dix) -> str:
    if dix is None:
        return ""
    sw = dix.stats
    text = (f"{dix.label} took {N('method/sweeps/dix-mille', sw['sweeps'], 'int')} sweeps; the "
            f"first changed a value by {N('method/first_change/dix-mille', sw['sweep_changes'][0], 'e')}, "
            f"the last by at most {N('method/sweep_change/dix-mille', sw['sweep_change'], 'e')}")
    if "error_bound" in sw:
        text += (", for an estimated distance to the fixed point of "
                 f"{N('method/error_estimate/dix-mille', sw['error_bound'], 'e')}")
    return text + "."


def memory_model_text(N, dix) -> str:
    rules = GAMES["dix-mille"]
    exact = memory_space(rules).size
    text = (
        "The exact state of a dix-mille player is (score, previous score, crosses): "
        f"{N('memory/exact_states', exact, 'int')} player states at "
        f"{N('rules/dix-mille/target', rules.target, 'pts')} and "
        f"{N('memory/exact_turn_starts', exact ** 2, 'int')} turn starts, out of reach. The "
        "table solves a model that keeps everything of the rule but the previous score: the "
        "crosses exactly; the *fallen* state exactly (after a fall the previous score equals "
        "the score, so further crosses cost nothing and a fallen player may take risks); and "
        "instead of the previous score, one number per score, $\\hat p(s)$, the expected "
        "previous score of a player now at $s$, to which the third cross sends them. The "
        "estimate comes from play, without sampling: solve the game without crosses, follow "
        "the optimal turn of a player at $x$ (against an opponent at $x$) forwards to get the "
        "probability $P(\\text{bank} = t \\mid x)$ of ending the turn by banking $t$, and "
        "average over where a player now at $s$ came from:\n\n"
        "$$\\hat p(s) = \\frac{\\sum_x x\\, P(\\text{bank} = s - x \\mid x)}"
        "{\\sum_x P(\\text{bank} = s - x \\mid x)},$$\n\n"
        "rounded to the nearest score a previous score can be. ")
    if dix is not None:
        text += (f"The model has {N('memory/model_states', dix.solution.space.size, 'int')} "
                 "player states at the full target. ")
    text += ("Advice for a real position uses the true previous score one turn ahead: the "
             "zero-turn value of a player on their last cross is that of falling to their true "
             "previous score. Every dix-mille number of this paper at the full target is the "
             "model's; Section 5 says how far the model was checked against the exact game.")
    return text


def bank_text(N, games) -> str:
    text = ("For each game and a few score situations, the tables below give the turn totals at "
            "which optimal play banks, per number of dice in hand, as intervals of the totals "
            "some play can reach: an interval a–b means bank at every reachable total from a "
            "to b, and roll on at the others where a bank is allowed. Where hot dice are "
            "forced there is no bank with every die in hand (-); \"never\" is a turn played on "
            "to the target or to a zero turn. Banking is often not a threshold: near the "
            "target a total just short of it is worth a roll (one more keep may win), and in take-over games a bank "
            "is also an offer.")
    shares = [(g, *g.results["not_threshold"]) for g in games.values()
              if g.results.get("not_threshold", (0, 0))[1]]
    if shares:
        text += (" Over the banking maps below (every pair of scores, every number of dice "
                 "with some bank), the banks that are not a threshold make up "
                 + _and([f"{N(f'{g.key}/not_threshold', bad / cells, 'pct')} of the cells in "
                         f"{g.label}" for g, bad, cells in shares]) + ".")
    takers = [g for g in games.values() if g.results.get("unusable")]
    for g in takers:
        u = g.results["unusable"]
        if not u["cells"]:
            continue
        k = f"{g.key}/unusable"
        text += (
            f" In {g.label} the banking map (below) shows diagonal bands: where the opponent is "
            "ahead, the smallest total banked is often the smallest offer the opponent cannot "
            "use, one from which every keep would take them past the target. In "
            f"{N(f'{k}/hits', u['hits'], 'int')} of the {N(f'{k}/cells', u['cells'], 'int')} "
            "(mover, opponent, dice) cells of the map with a bank and an offer "
            f"({N(f'{k}/share', u['hits'] / u['cells'], 'pct')}), the smallest bank is such an "
            f"offer ({N(f'{k}/exact', u['exact'], 'int')} times exactly the target minus the "
            "opponent's score, the smallest unusable offer), and all of them have the "
            "opponent ahead, as they must: such a bank needs a total of at least the target "
            "minus the opponent's score and below the target minus the mover's, a window "
            "exactly as wide as the opponent's lead. The window depends on the lead alone, "
            "which is constant along the diagonals of the map, and that draws the bands: "
            "where the window is open the mover rolls on until the bank is an offer the "
            "leader cannot use.")
    return text


def bank_tables(W, present) -> str:
    out = []
    for g in present:
        D = g.rules.dice
        g.results["bank_table_ref"] = W.tabs.peek()
        out.append(W.decision_table(g, g.results["bank"], "bank", range(1, D + 1),
                                    f"{g.label}: turn totals banked, by dice in hand."))
        if g.key in MAIN:
            out.append(F.decision_intervals(
                W.figs, g.label, g.rules.unit, g.results["bank"], "dice in hand",
                "turn total banked (points)", range(1, D + 1), f"bank-{g.key}",
                f"{g.label}: the turn totals at which optimal play banks (bars; a dot marks "
                "where an interval starts, a cross at 0 that it never banks), per number of "
                "dice in hand, in the situations of the table (mover vs opponent)."))
        scores, smallest, _, step = g.results["maps"]
        note = ("" if step == 1 else f"; every {W.N(f'{g.key}/map_step', step, 'int')}"
                f"{'nd' if step == 2 else 'th'} score replayed, standing for those up to the next")
        note += "; both players without crosses" if g.rules.crosses else ""
        out.append(F.bank_map(W.figs, g.key, g.label, g.rules.unit, scores, smallest,
                              plain_scores(g.solution.space), note))
    return "\n\n".join(out)


def take_texts(W, take_games) -> tuple[str, str]:
    N = W.N
    falling, total = 0, 0
    for g in take_games:
        for _, _, _, rule in g.results["take"]:
            seq = [rule[n].smallest for n in sorted(rule) if rule[n].smallest is not None]
            total += 1
            falling += all(a >= b for a, b in zip(seq, seq[1:]))
    text = ("A player who may take over starts their turn either fresh, with every die and no "
            "points, or with the previous player's turn total and unset dice. Optimal play "
            "takes an offer $(t, n)$ when $R(t, n) > W$, the value of a fresh turn. The tables "
            "below give the offers taken, per number of dice offered, among those the banker's "
            "score allows and short of the taker's target.")
    if total:
        text += (f" In {N('take/falling', falling, 'int')} of the {N('take/situations', total, 'int')} "
                 "situations the smallest offer taken falls as the dice offered rise: an offer "
                 "with more dice is taken at a lower total. So in take-over games a bank that "
                 "leaves many dice is the dangerous offer, not one that leaves few.")
        text += "".join(_few_and_many(N, g) for g in take_games)
    tables = []
    for g in take_games:
        tables.append(W.decision_table(g, g.results["take"], "take", range(1, g.rules.dice),
                                       f"{g.label}: offers taken over, by dice offered (taker "
                                       "vs the banker's new score)."))
        tables.append(F.decision_intervals(
            W.figs, g.label, g.rules.unit, g.results["take"], "dice offered",
            "offered turn total taken (points)", range(1, g.rules.dice), f"takeover-{g.key}",
            f"{g.label}: the offered totals that optimal play takes over (bars; a cross at 0: "
            "none), per number of dice offered, in the situations of the table."))
    return text, "\n\n".join(tables)


def _few_and_many(N, g) -> str:
    """The level situation of ``g``'s bank table: smallest bank with one die
    against the most dice a bank can leave unset."""
    level = next((b for b in g.results["bank"] if b[0] == "level"), None)
    if level is None:
        return ""
    name, me, opp, rule = level
    many = g.rules.dice - 1
    one, lots = rule[1].smallest, rule[many].smallest
    if one is None or lots is None or lots <= one:
        return ""
    k = f"{g.key}/bank/{name}"
    return (f" In {g.label} at {N(f'{k}/me', me, 'pts')} against {N(f'{k}/opp', opp, 'pts')}, "
            f"optimal play banks with one die from {N(f'{k}/1/0/lo', one * g.rules.unit, 'pts')}, "
            f"but with {N(f'{k}/dice_many', many, 'int')} dice in hand only from "
            f"{N(f'{k}/{many}/0/lo', lots * g.rules.unit, 'pts')} ({g.results['bank_table_ref']}).")


def house_text(N, house) -> str:
    keep = [r for r in house if "scoring di" in r["label"] and r["delta"] is not None]
    text = ""
    if keep:
        text += ("The keep rule is a house rule too: " + "; ".join(
            f"in {r['family']}, \"{r['label']}\" changes the first player's chance by "
            + N(f"house/{r['family']}/{r['label']}/delta", r["delta"], "pp3") + " percentage points"
            for r in keep) + ".")
    return text


def memory_cost_text(N, W, memory, game, model_check) -> str:
    text = ("The model replaces the previous score by an estimate, so its tables are not those "
            "of the exact game. Two measurements say how far apart they are. ")
    if model_check:
        text += (f"First, this build solved dix-mille as played (every scoring die set aside) "
                 "both ways where the exact game is small enough ("
                 f"{W.tabs.peek()}): the model's first-player chance against the exact one.\n\n"
                 + W.model_check_table(model_check) + "\n\n")
    if memory:
        d = memory.get("target 10000", {})
        which = {"dix-mille": "on dix-mille as played",
                 "dix-mille-free-keep": "before the keep rule changed, on the game now called "
                                        "`dix-mille-free-keep`; it has not been repeated for "
                                        "dix-mille as played"}.get(
            game, "on a version of dix-mille that none of the present rules reproduces")
        text += ("Second, `scripts/measure_memory_model.py` measured what the model's "
                 "*decisions* cost: it compares them with the exact policy over games of exact "
                 "self-play, and plays the model's policy (with its one-turn look-ahead) against "
                 "the exact policy game by game over common dice, under the one-level memory. "
                 f"That measurement was made {which} ({W.tabs.peek()}).\n\n"
                 + W.memory_table(memory, game))
        if "model self-play, first player wins" in d:
            text += ("\n\nAt the full target there is no exact game to compare with; the same "
                     "script played the model's policy against itself under the paper sheet: "
                     "the first player won "
                     + N("memory_results/10000/selfplay", d["model self-play, first player wins"], "p4")
                     + " ± " + N("memory_results/10000/se", d["model self-play, standard error"], "p4")
                     + " against the table's "
                     + N("memory_results/10000/table", d["model table, first player win"], "p")
                     + (f" (also `{game}`)." if game else "."))
    return text


def discussion(N, games, house, fair_start, cards) -> str:
    parts = []
    rows = [f"{g.label} {N(f'discussion/{g.key}/pct', g.solution.first_player_win, 'pct3')}"
            for g in games.values() if g.key in MAIN]
    parts.append(
        "**Moving first.** Pig's first player wins "
        f"{N('discussion/pig/published', PUBLISHED['pig'], 'pct3')} [1]; in Farkle under the "
        f"Facebook rules, {N('discussion/farkle', PUBLISHED['farkle'], 'pct3')} [3]. The French "
        "games sit in the same narrow band" + (": " + _and(rows) if rows else "") + ".")
    short, long_ = games.get("cinq-mille"), games.get("cinq-mille-10000")
    if short and long_:
        a, b = short.solution.first_player_win, long_.solution.first_player_win
        parts[-1] += (" A longer game " + ("dilutes" if b < a else "does not dilute")
                      + " the first move: cinq-mille to "
                      + N("discussion/long/target", long_.rules.target, "pts") + " gives the "
                      "first player " + N("discussion/long/pct", b, "pct3") + ", against "
                      + N("discussion/short/pct", a, "pct3") + " to "
                      + N("discussion/short/target", short.rules.target, "pts") + ".")
    entered = [g for g in games.values() if g.rules.entry]
    over = [g for g in entered if g.results["komi"] and g.results["komi"]["h"] == g.rules.entry]
    if over:
        parts.append(
            "**A fair start.** A head start for the second player is the usual remedy, but in "
            + ("every game with an entry" if len(over) == len(entered) else _and(
                [g.label for g in over]))
            + " the smallest head start a player can hold, the entry itself, overshoots: it "
            "turns the advantage round (Section 5)." + fair_start_advice(N, games, fair_start))
    carded = [games[n].label for n in cards if n in games]
    without = [g.label for n, g in games.items() if n not in cards]
    parts.append(
        "**Practical play.** Neller and Presser [4] looked for simple rules of thumb for Pig "
        "(hold at a total that depends on the scores) that a person can play and that come "
        "close to optimal play. For Farkle, Busche and Neller [2] gave a mental method that "
        "gives up " + N("discussion/busche_neller_mental", 1.78, "f2") + " percentage points "
        "(the figure this project's issues quote; not checked against the paper here). The "
        "strategy cards of Section 5 do this for "
        + (_and(carded) if carded else "no game yet")
        + (", each read off its table or fitted to it and scored exactly; "
           + _and(without) + (" has" if len(without) == 1 else " have") + " no card yet."
           if without else "."))
    return "\n\n".join(parts)


def fair_start_advice(N, games, fair_start) -> str:
    """The fair start nearest one half, game by game (Section 5 measures them)."""
    if not fair_start:
        return " Other mechanisms are measured once `paper/fair_start.json` exists."
    advice = []
    for r in fair_start["games"]:
        if r["game"] not in games:
            continue
        mechanism, value, share = nearest_half(r)
        key = f"fair/{r['game']}"
        share_key = f"{key}/{mechanism}" if value is None else f"{key}/{mechanism}/share"
        if r.get("with_crosses"):          # the crosses model's share, not the search's
            share, share_key = r["with_crosses"]["share"], f"{key}/with_crosses"
        what = MECHANISMS[mechanism] if value is None else \
            f"{MECHANISMS[mechanism]} ({N(f'{key}/{mechanism}', value, 'pts')})"
        advice.append(f"{games[r['game']].label}: {what}, {N(share_key, share, 'p4')}")
    return (" Section 5 measures three other mechanisms; the one nearest one half is, game by "
            "game: " + "; ".join(advice) + "." if advice else "")


def missing_text(N, present, missing, not_solved, quick, memory_elsewhere) -> str:
    items = []
    for name, estimate in sorted(missing.items()):
        items.append(f"`{name}`: no table in `tables/` at the time of this build; solving it "
                     f"would take about {N(f'missing/{name}/estimate', estimate, 'dur')} "
                     "(the estimate of `farkle solve`), too long for this build. "
                     f"`python scripts/make_tables.py {name}` makes it; then rebuild.")
    for family in dict.fromkeys(f for f, _, _ in not_solved):
        labels = [f"\"{label}\"" for f, label, _ in not_solved if f == family]
        items.append(f"House rules of {family} not yet solved at its target: " + _and(labels)
                     + " (`python -m paper.builder.cache` solves them into the cache; then "
                     "rebuild).")
    solved = [g.key for g in present if g.source == "solved"]
    if solved:
        items.append("Solved by this build because their table is missing (not written to "
                     "`tables/`): " + ", ".join(f"`{k}`" for k in solved) + ".")
    if quick:
        items.append("**This is a quick build**: a tenth of the simulated games, coarser maps, "
                     "fewer checks.")
    if memory_elsewhere:
        items.append("The cost of the crosses model's decisions for dix-mille as played "
                     "(Section 5 gives it for the free-keep game).")
    big = [g for g in present if g.solution.space.size > 200]
    if big:
        items.append("Fewer simulated games for " + _and([g.label for g in big]) + ": every "
                     "new turn start of the optimal player replays a turn from the table, and "
                     "these tables have many.")
    items.append("Three or more players exactly where the state space is too large: "
                 "dix-mille and quinze-mille at their real targets, and four or more players "
                 "at the real targets of every game; the race-of-duels model stands in "
                 "there, and its cost is measured only where the exact game exists.")
    return "\n".join(f"- {i}" for i in items)
