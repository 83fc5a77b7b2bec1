"""The fills of ``paper/template.md``, section by section, in the order of
the text (so that table and figure numbers follow it): :func:`make`
returns ``{placeholder: text}``. The sentences here are those whose wording
depends on the results; the sections per game are
:mod:`paper.builder.per_game`'s, practical play
:mod:`paper.builder.practical`'s, tables and the abstract
:mod:`paper.builder.text`'s, figures :mod:`paper.builder.figures`'.

The body (everything before the references) names no file, date or
internal module: the appendices give the commands that made the numbers.
"""

from __future__ import annotations

import inspect

from paper.builder import figures as F
from paper.builder import per_game
from paper.builder.cards import cards_appendix
from paper.builder.fair_start import MECHANISMS, fair_start_text
from paper.builder.farkle import REFERENCES as FARKLE_REFERENCES
from paper.builder.farkle import compensation_text, farkle_appendix, farkle_text
from paper.builder.players import duel, players_text
from paper.builder.practical import practical_text
from paper.builder.text import PUBLISHED, Writer, _and, _hkey
from solver.model.rules import GAMES
from solver.model.states import memory_space
from solver.study.analysis import start_values
from solver.study.fair_start_survey import nearest_half
from solver.tables.make import solve_game

MAIN = ("cinq-mille", "quinze-mille", "dix-mille")

REFERENCES = [
    "Todd W. Neller and Clifton G.M. Presser. Optimal Play of the Dice Game Pig. *The UMAP "
    "Journal* 25(1), 2004.",
    "Matthew Busche and Todd W. Neller. Optimal Play of the Farkle Dice Game. In *Advances in "
    "Computer Games* (ACG 2017), Lecture Notes in Computer Science 10664, Springer, 2017.",
    "Matthew Busche. Maximizing Win Probability in the Game of Farkle. Blog post, 2 August "
    "2016.",
    "Todd W. Neller and Clifton G.M. Presser. Practical Play of the Dice Game Pig. *The UMAP "
    "Journal* 31(1), 2010.",
    "Sham Kakade and John Langford. Approximately Optimal Approximate Reinforcement Learning. "
    "In *Proceedings of the 19th International Conference on Machine Learning* (ICML 2002), "
    "267-274.",
]
"""[1] to [5]; the Farkle sources follow (:data:`paper.builder.farkle.REFERENCES`)."""


def make(N, tabs, figs, *, present, missing, dice_checks, reference, house, not_solved,
         model_check, memory, memory_game, quick, machine, rule_rows, sigmas, version,
         players=None, fair_start=None, cards=None, card_games=None) -> dict:
    W = Writer(N, tabs, figs)
    games = {g.key: g for g in present}
    cards = cards or {}
    P: dict[str, str] = {"version": version}

    P["abstract"] = W.abstract(games, house, model_check, cards)

    # ------------------------------------------------------------- games
    P["unit"] = N("unit/farkle", GAMES["cinq-mille"].unit, "pts")
    P["unit_pig"] = N("unit/pig", GAMES["pig"].unit, "int")
    P["games_ref"] = tabs.peek()
    P["table_games"] = W.games_table(rule_rows)
    P["points_ref"] = tabs.peek()
    P["table_points"] = W.points_table(["dix-mille", "quinze-mille", "cinq-mille", "pig"])

    # ------------------------------------------------------------ method
    P["newton"] = W.newton_text(present)
    dix = games.get("dix-mille")
    tol = (dix.info["tolerance"] if dix and dix.info else
           inspect.signature(solve_game).parameters["tol"].default)
    P["tolerance"] = N("method/tolerance", tol, "e")
    P["sweeps"] = sweeps_text(N, dix)
    P["memory_model"] = memory_model_text(N, dix)

    # ------------------------------------------------------------ checks
    agree = all(c["zero"] == c["brute"] for c in dice_checks)
    P["dice_agree"] = ("the counts agree with the engine's for every game and number of dice."
                       if agree else "**the counts disagree with the engine's**.")
    P["reference"] = reference_text(N, reference)
    P["worst_residual"] = N("residual/worst", max(g.results["residual"] for g in present), "e")
    P["self_play"] = self_play_text(N, tabs, present)
    P["table_self_play"] = W.self_play_table(present)
    P["pig"] = pig_text(N, games.get("pig"))
    P["farkle"] = farkle_text(N, tabs)

    # ----------------------------------------------------------- results
    P["first_player"] = first_player_text(N, tabs, games)
    P["table_first_player"] = W.first_player_table(present)
    shown = [g for g in present if g.key in ("pig",) + MAIN]
    P["figure_win"] = F.win_map(figs, [(g.label, g.rules.unit, *start_values(g.solution))
                                       for g in shown])
    explained: set[str] = set()
    for key in MAIN:
        P[key.replace("-", "_")] = (per_game.game_section(W, games[key], house, model_check,
                                                          explained)
                                    if key in games else f"No table of {key} in this build.")
    P["house"] = house_text(N, house)
    P["figure_house"] = W.house_figure(house)

    # ------------------------------------------------ players, fair start
    P["players"] = players_text(N, tabs, players)
    P["komi"] = komi_text(N, tabs, W, present)
    P["fair_start"] = fair_start_text(N, tabs, fair_start, {g.key: g.label for g in present})
    P["compensation"] = compensation_text(N, tabs)

    # --------------------------------------------------- practical play
    P["practical"] = practical_text(W, games, cards, sigmas)
    P["related"] = related_text(N, games, cards)
    P["conclusion"] = conclusion_text(N, games, house, fair_start, cards, missing)
    P["references"] = "\n\n".join(f"[{i}] {r}" for i, r in
                                  enumerate(REFERENCES + FARKLE_REFERENCES, 1))

    # -------------------------------------------------------- appendices
    P["readings"] = readings(N)
    P["table_classes"] = W.classes_table(dice_checks)
    P["cost"] = cost_text(N, machine, missing, not_solved, quick, present)
    P["table_cost"] = W.cost_table(present)
    P["table_dice"], _ = W.dice_table(dice_checks)
    P["table_reference"] = W.reference_table(reference) if reference else ""
    P["cards"] = cards_appendix(N, tabs, cards, {**games, **(card_games or {})})
    P["heuristics"] = heuristics_text(N, present, sigmas)
    P["table_heuristics"] = W.heuristics_table(present)
    P["table_house"] = W.house_table(house, not_solved)
    P["other_banking"] = per_game.other_banking(W, [g for g in present if g.key not in MAIN])
    P["memory_cost"] = memory_cost_text(N, W, memory, memory_game)
    P["duel"] = duel(N, tabs, players)
    P["farkle_rules"] = farkle_appendix(N)
    return P


# ----------------------------------------------------------- the method

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
        "with hot dice (no die unset) offers nothing. The taker plays on with their entry met. "
        "Taking over never wins by itself: only a keep can reach the target.",
        f"A dix-mille player who falls back to 0 must enter again "
        f"({N('rules/dix-mille/entry', dix.entry, 'pts')}).",
        f"In cinq-mille-last1000 a bank short of the target at "
        f"{N('rules/cinq-mille-last1000/cap', last.target - last.last_turn_points, 'pts')} is "
        "allowed and leaves the player there: the last points must come in one turn.",
        "dix-mille's crosses: a turn without a bank (zero roll or overshoot) is a cross, and a "
        f"bank erases them. At the {N('rules/dix-mille/crosses', dix.crosses, 'int')}rd cross "
        "in a row the player goes back to the score before their last bank. The tables use the "
        "*one-level memory*: after a fall the previous score is the current score, so a "
        "further third cross only erases the crosses. The *paper sheet*, the rule as played "
        "with pen and paper, lists every bank and strikes off the last score at each third "
        f"cross, so {N('rules/dix-mille/deep_fall', 2 * dix.crosses, 'int')} zero turns in a "
        "row go back two banks. The simulator plays either rule. Self-play (Section 4) uses "
        "the one-level memory, and Appendix H gives what the paper sheet changes. Crosses at "
        "score 0, or after a fall, change nothing, and the solver does not count them.",
        f"quinze-mille's take-over needs a banked score of at least "
        f"{N('rules/quinze-mille/takeover_min', quinze.takeover_min, 'pts')}; dix-mille's, an "
        f"entered player (so {N('rules/dix-mille/takeover_min', dix.takeover_min, 'pts')}).",
    ]
    return ("The rules are those of the project's rule page (`docs/rules.md`), which closes "
            "the gaps of three French rule sheets as follows.\n\n"
            + "\n".join(f"- {item}" for item in items))


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
        "### The dix-mille memory model\n\n"
        "The exact state of a dix-mille player is (score, previous score, crosses): "
        f"{N('memory/exact_states', exact, 'int')} player states at "
        f"{N('rules/dix-mille/target', rules.target, 'pts')} and "
        f"{N('memory/exact_turn_starts', exact ** 2, 'int')} turn starts, out of reach. The "
        "table solves a model that keeps the crosses and the *fallen* state exactly, and "
        "replaces the previous score by one number per score, $\\hat p(s)$, the expected "
        "previous score of a player now at $s$. The estimate comes from play: solve the game "
        "without crosses, follow the optimal turn of a player at $x$ forwards to get the "
        "probability $P(\\text{bank} = t \\mid x)$ of banking $t$, and average over where a "
        "player now at $s$ came from:\n\n"
        "$$\\hat p(s) = \\frac{\\sum_x x\\, P(\\text{bank} = s - x \\mid x)}"
        "{\\sum_x P(\\text{bank} = s - x \\mid x)}.$$\n\n")
    if dix is not None:
        text += (f"The model has {N('memory/model_states', dix.solution.space.size, 'int')} "
                 "player states at the full target. ")
    text += ("Advice for a real position uses the true previous score one turn ahead. Every "
             "dix-mille number of this paper at the full target is the model's; Section 5 "
             "checks it against the exact game where that can be solved.")
    return text


def cost_text(N, machine, missing, not_solved, quick, present) -> str:
    text = ("The table below gives the size and the cost of each solve: player states (per "
            "player), turn starts, keep evaluations (rows of the turn DP times keeps per row, "
            "over every Newton pass), sweeps, the seconds of the solve as the table stores "
            "them (the machine that made it and its load are not recorded), the memory of "
            "the take-over values during the solve, the size of the table file, and the "
            f"Bellman residual. This build ran on `{machine}` (`python -m paper.builder`).")
    items = []
    for name, estimate in sorted(missing.items()):
        items.append(f"`{name}` had no table at the time of this build (about "
                     f"{N(f'missing/{name}/estimate', estimate, 'dur')} to solve: "
                     f"`python scripts/make_tables.py {name}`, then rebuild).")
    for family in dict.fromkeys(f for f, _, _ in not_solved):
        labels = [f"\"{label}\"" for f, label, _ in not_solved if f == family]
        items.append(f"House rules of {family} not solved yet: " + _and(labels)
                     + " (`python -m paper.builder.cache`, then rebuild).")
    solved = [g.key for g in present if g.source == "solved"]
    if solved:
        items.append("Solved by this build because their table is missing: "
                     + ", ".join(f"`{k}`" for k in solved) + ".")
    if quick:
        items.append("**This is a quick build**: a tenth of the simulated games, coarser "
                     "maps, fewer checks.")
    return text + ("\n\n" + "\n".join(f"- {i}" for i in items) if items else "")


# ------------------------------------------------------------ the checks

def reference_text(N, reference) -> str:
    if not reference:
        return ("A second, simple solver checks the fast one in the test suite; this build "
                "could not run it.")
    worst = max(max(r["start_error"], r["take_error"] or 0) for r in reference)
    return ("A second solver, written from the rule page alone, has none of the fast "
            "solver's structure: plain value iteration over every state, with its own score "
            "sheets (for dix-mille the exact memory). Tests compare the two at every turn start "
            f"on small targets of every game; this build re-ran "
            f"{N('reference/cases', len(reference), 'int')} of them (Appendix C), the largest "
            f"difference {N('reference/worst', worst, 'e')}.")


def self_play_text(N, tabs, present) -> str:
    worst_z = max(abs(g.results["self"]["z"]) for g in present)
    crossed = [g for g in present if g.rules.crosses]
    text = (f"{tabs.peek()} gives the simulated rate with its binomial standard error, the "
            "table's value and the difference in standard errors; the largest is "
            f"{N('self/worst_z', worst_z, 'f1')}.")
    if crossed:
        text += (" With crosses the optimal player uses the model's table with the exact "
                 "one-turn look-ahead, so the difference measures the model as well as the "
                 "table.")
    short = [g for g in present if g.results["self"].get("short_of")]
    if short:
        text += (" The self-play of " + _and([g.label for g in short]) + " is not yet the "
                 + N("self/full_games", short[0].results["self"]["short_of"], "int")
                 + " games of the others: each new turn start of the optimal player replays "
                 "a turn of these big tables, most of an hour for the full count.")
    return text


def pig_text(N, pig) -> str:
    """Pig's first player against the published 0.5306 [1] (four digits:
    the comparison is to as many as were published)."""
    if pig is None:
        return "No Pig table in this build."
    published = PUBLISHED["pig"]
    ours = pig.solution.first_player_win
    digits = len(f"{published}".split(".")[1])
    agree = round(ours, digits) == published
    return (f"Pig to {N('rules/pig/target', GAMES['pig'].target, 'pts')} is the same engine "
            f"with one die. Its table gives the first player {N(f'{pig.key}/first_player_win', ours, 'p')}; "
            f"Neller and Presser [1] published {N('pig/published', published, 'p4')}. "
            + (f"The two agree to the {N('pig/published_digits', digits, 'int')} digits "
               "published." if agree else "**The two differ.**"))


# ----------------------------------------------------------- the results

def first_player_text(N, tabs, games) -> str:
    main = [g for k, g in games.items() if k in MAIN]
    if not main:
        return ""
    lo = min(main, key=lambda g: g.solution.first_player_win)
    hi = max(main, key=lambda g: g.solution.first_player_win)
    text = (f"{tabs.peek()} gives the first player's chance in every game. Among the three "
            f"French games it runs from {N(f'first/{lo.key}', lo.solution.first_player_win, 'pct3')} "
            f"in {lo.label} to {N(f'first/{hi.key}', hi.solution.first_player_win, 'pct3')} in "
            f"{hi.label}.")
    short, long_ = games.get("cinq-mille"), games.get("cinq-mille-10000")
    if short and long_:
        a, b = short.solution.first_player_win, long_.solution.first_player_win
        text += (" A longer game " + ("dilutes" if b < a else "does not dilute")
                 + " the first move: cinq-mille to "
                 + N("first/long/target", long_.rules.target, "pts") + " gives the first "
                 "player " + N("first/long/pct", b, "pct3") + ", against "
                 + N("first/short/pct", a, "pct3") + " to "
                 + N("first/short/target", short.rules.target, "pts") + ".")
    return text + (" The figure shows the chance at every pair of scores; Section 7 asks "
                   "what start would make the games fair.")


def house_text(N, house) -> str:
    rows = [r for r in house if r["delta"] is not None]
    if not rows:
        return "No house rule was solved for this build."
    top = max(rows, key=lambda r: abs(r["delta"]))
    crossed = [r for r in rows if r["family"] == "dix-mille" and r["label"] != "no crosses"
               and "no crosses" not in r["label"]]
    text = ("Each variant differs from the game as played in one rule (two for \"no "
            "take-over and no crosses\") and is solved at the game's own target"
            + (", exactly but for dix-mille's variants that keep its crosses, which use the "
               "memory model as its table does. " if crossed else ", exactly. ")
            + f"The figure gives the change of the first player's chance; the rule that "
            f"matters most is \"{top['label']}\" in {top['family']} "
            f"({N(_hkey(top, 'delta'), top['delta'], 'pp3')} "
            "percentage points).")
    return text + " Appendix F lists every variant."


def komi_text(N, tabs, W, present) -> str:
    entry_komi = [g.label for g in present if g.results["komi"] and g.rules.entry
                  and g.results["komi"]["h"] == g.rules.entry]
    text = ("The usual remedy for the first player's edge is a head start for the second, "
            "the *komi*: the smallest score $h$ a player can hold such that the first player, "
            "to move at 0 against an opponent at $h$, wins with probability at most one half. "
            f"{tabs.peek()} gives $h$, with the first player's chance at $h$ and at the next "
            "smaller score.")
    if entry_komi:
        text += (" Where the smallest score above 0 is the entry (" + _and(entry_komi)
                 + "), the entry itself turns the advantage round: no score a player can hold "
                 "is a fair head start.")
    return text + "\n\n" + W.komi_table(present)


def related_text(N, games, cards) -> str:
    carded = [games[n].label for n in cards if n in games]
    return (
        "Neller and Presser [1] solved two-player Pig by value iteration and drew its "
        "optimal policy; this program reproduces their first-player figure (Section 4). "
        "Their later study [4] looked for rules of thumb a person can play: \"keep pace and "
        "end race\" holds at a total that moves with the score gap and rolls to the end once "
        "someone nears the target. Busche and Neller [2] solved two-player Farkle by value "
        "iteration with a floor on the scores, measured a fair compensation for the second "
        "player and an augmented human method; Busche [3] solved the Facebook rules. "
        "Section 4 sets their figures beside this program's. The strategy cards of Section 8 "
        "are rules of the same kind as those of [4] and [2], fitted to each table and scored "
        "exactly" + (f", here for {_and(carded)}" if carded else "") + ". The card's loss is "
        "split by decision with the performance difference lemma of Kakade and Langford [5]. "
        "As far as we know no table of the French games, nor an exact table of more than two "
        "players of any game of this family beyond Pig, was published before.")


def conclusion_text(N, games, house, fair_start, cards, missing) -> str:
    main = [g for k, g in games.items() if k in MAIN]
    parts = []
    if main:
        parts.append(
            "Perfect play of the three French games is computed and checked. When both play "
            "perfectly the first player wins "
            + _and([f"{N(f'conclusion/{g.key}', g.solution.first_player_win, 'pct')} of the "
                    f"games of {g.label}" for g in main]) + ".")
    advice = fair_start_advice(N, games, fair_start)
    if advice:
        parts.append(advice)
    within = [games[n].label for n, e in cards.items() if n in games and n in MAIN
              and e["loss"]["loss"] <= 0.01]
    if within:
        parts.append("A card a player can remember gives up at most one point of a hundred "
                     "in " + _and(within) + ".")
    parts.append("What is left is size: three players exactly at the real targets of "
                 "quinze-mille and dix-mille, and four at cinq-mille's, are work for several "
                 "machines.")
    if missing:
        parts.append("Not yet in this edition: the tables of " + _and(sorted(missing)) + ".")
    return " ".join(parts)


def fair_start_advice(N, games, fair_start) -> str:
    """The fair start nearest one half, game by game, each compared with
    the mechanisms solved the same way (dix-mille: the search without its
    crosses, and the one mechanism solved with them apart)."""
    if not fair_start:
        return ""
    advice = []
    for r in fair_start["games"]:
        if r["game"] not in games or r["game"] not in MAIN:
            continue
        mechanism, value, share = nearest_half(r)
        key = f"fair/{r['game']}"
        share_key = f"{key}/{mechanism}" if value is None else f"{key}/{mechanism}/share"
        what = MECHANISMS[mechanism] if value is None else \
            f"{MECHANISMS[mechanism]} ({N(f'{key}/{mechanism}', value, 'pts')})"
        text = f"{games[r['game']].label}: {what}, {N(share_key, share, 'p4')}"
        if r.get("without_crosses"):
            model = r["with_crosses"]
            text += (" without its crosses; with them only "
                     + MECHANISMS[model["mechanism"]] + " was solved, "
                     + N(f"{key}/with_crosses", model["share"], "p4"))
        advice.append(text)
    return ("The fair start nearest one half is, game by game, " + "; ".join(advice) + "."
            if advice else "")


# ---------------------------------------------------------- appendices

def heuristics_text(N, present, sigmas) -> str:
    strongest = {g.label: min(g.results["heuristics"], key=lambda h: h["both"])["opponent"]
                 for g in present}
    kinds = sorted(set(strongest.values()))
    beats = all(h["both"] - sigmas * h["stderr"] > 0.5 for g in present
                for h in g.results["heuristics"])
    return ("`threshold:X` banks as soon as the turn total is at least X (and the bank is "
            "legal) and keeps the most points; `expected` maximises the expected points "
            "banked this turn, ignoring both scores. Each plays the optimal player in both "
            "seats on common dice, so that the first player's edge cancels; \"both\" is the "
            "optimal player's win rate over both seats. "
            + (f"The strongest of them is `{kinds[0]}` in every game. " if len(kinds) == 1 else
               "The strongest: " + "; ".join(f"{k} `{o}`" for k, o in strongest.items())
               + ". ")
            + ("Optimal play beats every one by more than "
               f"{N('heur/sigmas', sigmas, 'int')} standard errors." if beats else
               "Optimal play does not beat every one of them clearly."))


def memory_cost_text(N, W, memory, game) -> str:
    """What the crosses model's decisions cost against the exact policy,
    under the one-level memory and under the paper sheet (as
    ``scripts/measure_memory_model.py`` measured them)."""
    if not memory:
        return "Not measured for this build (`python scripts/measure_memory_model.py`)."
    which = {"dix-mille": "dix-mille as played",
             "dix-mille-free-keep": "the game now called `dix-mille-free-keep`"}.get(
        game, "a version of dix-mille that none of the present rules reproduces")
    text = ("`scripts/measure_memory_model.py` compares the model's decisions with the exact "
            "policy over games of exact self-play, and plays the model's policy (with its "
            "one-turn look-ahead) against the exact policy game by game over common dice, "
            f"on {which}, under the one-level memory and under the paper sheet "
            f"({W.tabs.peek()}).\n\n" + W.memory_table(memory, game))
    d = memory.get("target 10000", {})
    if "model self-play, first player wins" in d:
        text += ("\n\nAt the full target there is no exact game to compare with. The model's "
                 "policy played against itself on the paper sheet: the first player won "
                 + N("memory_results/10000/selfplay", d["model self-play, first player wins"], "p4")
                 + " ± " + N("memory_results/10000/se", d["model self-play, standard error"], "p4")
                 + ", against the table's "
                 + N("memory_results/10000/table", d["model table, first player win"], "p")
                 + " under the one-level memory.")
    return text
