"""The paper's results for each French game (Section 5) and the banking of
the other games (Appendix G), from what :func:`paper.builder.build.analyse`
computed: when optimal play banks, when it takes over an offer, and, for
dix-mille, how far the memory model is from the exact game (the house rules
are Section 5's last part, :func:`paper.builder.sections.house_text`)."""

from __future__ import annotations

from paper.builder import figures as F
from solver.study.analysis import plain_scores


def game_section(W, g, house, model_check, explained: set) -> str:
    """Section 5's part on game ``g``. What a table or a figure shows is
    said once, in the first game that has one: ``explained`` holds what is
    said already (``banking``, ``bands``, ``take``) and gains this game's."""
    parts = [banking(W, g, explained)]
    if g.results.get("take"):
        parts.append(taking_over(W, g, "take" not in explained))
        explained.add("take")
    if g.rules.crosses and model_check:
        parts.append(model_check_text(W, model_check))
    return "\n\n".join(p for p in parts if p)


def banking(W, g, explained: set) -> str:
    N, D = W.N, g.rules.dice
    ref = W.tabs.peek()
    first = "banking" not in explained
    if first:
        explained.add("banking")
        text = (f"{ref} gives the turn totals at which optimal play banks, per number of dice "
                "in hand, in five score situations, as intervals of the totals play can "
                "reach: a–b means bank at every reachable total from a to b, and roll on at "
                "the others. The figures draw the same, and the smallest total banked at "
                "every pair of scores.")
    else:
        text = f"{ref} and the figures give the same for {g.label}."
    if g.rules.hot_dice_forced:
        text += " Hot dice are forced, so there is no bank with every die in hand (-)."
    bad, cells = g.results.get("not_threshold", (0, 0))
    if cells:
        text += (f" Over every pair of scores and number of dice, "
                 f"{N(f'{g.key}/not_threshold', bad / cells, 'pct')} of the banks are not a "
                 "threshold.")
    g.results["bank_table_ref"] = ref
    out = [text, W.decision_table(g, g.results["bank"], "bank", range(1, D + 1),
                                  f"{g.label}: turn totals banked, by dice in hand.")]
    out.append(F.decision_intervals(
        W.figs, g.label, g.rules.unit, g.results["bank"], "dice in hand",
        "turn total banked (points)", range(1, D + 1), f"bank-{g.key}",
        f"{g.label}: the turn totals banked, by dice in hand"
        + (" (drawn as for the first game)." if not first else ", in the situations of the table "
           "(bars; a dot where an interval starts, a cross at 0: never).")))
    out.append(bank_map(W, g, brief=not first))
    if g.results.get("unusable"):
        out.append(bands(N, g, "bands" not in explained))
        explained.add("bands")
    return "\n\n".join(out)


def bank_map(W, g, brief: bool = False) -> str:
    scores, smallest, _, step = g.results["maps"]
    note = ("" if step == 1 else f"; every {W.N(f'{g.key}/map_step', step, 'int')}"
            f"{'nd' if step == 2 else 'th'} score replayed, standing for those up to the next")
    note += "; both players without crosses" if g.rules.crosses else ""
    return F.bank_map(W.figs, g.key, g.label, g.rules.unit, scores, smallest,
                      plain_scores(g.solution.space), note, brief=brief)


def bands(N, g, first: bool) -> str:
    """The diagonal bands of a take-over game's banking map: the smallest
    bank is often the smallest offer the leader cannot use (explained
    once, counted for each game)."""
    u, k = g.results["unusable"], f"{g.key}/unusable"
    if not u["cells"]:
        return ""
    if not first:
        return (f"The map of {g.label} shows the same bands: in "
                f"{N(f'{k}/hits', u['hits'], 'int')} of its "
                f"{N(f'{k}/cells', u['cells'], 'int')} cells with a bank and an offer "
                f"({N(f'{k}/share', u['hits'] / u['cells'], 'pct')}) the smallest bank is an "
                "offer the opponent cannot use.")
    return (
        f"The banking map of {g.label} shows diagonal bands where the opponent is ahead. "
        "There the smallest total banked is often the smallest offer the opponent cannot use, "
        "one from which every keep would take them past the target: in "
        f"{N(f'{k}/hits', u['hits'], 'int')} of the {N(f'{k}/cells', u['cells'], 'int')} "
        f"cells with a bank and an offer ({N(f'{k}/share', u['hits'] / u['cells'], 'pct')}), "
        f"{N(f'{k}/exact', u['exact'], 'int')} times exactly the target minus the opponent's "
        "score. Such a bank needs a total between the target minus the opponent's score and "
        "the target minus the mover's: a window as wide as the opponent's lead. The lead is "
        "constant along a diagonal of the map, and that draws the bands.")


def taking_over(W, g, explain: bool) -> str:
    N = W.N
    falling, total = 0, 0
    for _, _, _, rule in g.results["take"]:
        seq = [rule[n].smallest for n in sorted(rule) if rule[n].smallest is not None]
        total += 1
        falling += all(a >= b for a, b in zip(seq, seq[1:]))
    ref = W.tabs.peek()
    text = (f"A player who may take over starts their turn fresh, or with the previous "
            "player's turn total and unset dice; optimal play takes an offer $(t, n)$ when "
            f"$R(t, n) > W$, the value of a fresh turn. {ref} gives the offers taken."
            if explain else f"{ref} gives the offers taken in {g.label}.")
    if total:
        k = f"{g.key}/take"
        text += (f" In {N(f'{k}/falling', falling, 'int')} of the "
                 f"{N(f'{k}/situations', total, 'int')} situations the smallest offer taken "
                 + ("falls" if falling == total else "mostly falls" if 2 * falling > total
                    else "does not always fall")
                 + " as the dice offered rise: a bank that leaves many dice is the "
                 "dangerous offer.")
    table = W.decision_table(g, g.results["take"], "take", range(1, g.rules.dice),
                             f"{g.label}: offers taken over, by dice offered (taker vs the "
                             "banker's new score).")
    figure = F.decision_intervals(
        W.figs, g.label, g.rules.unit, g.results["take"], "dice offered",
        "offered turn total taken (points)", range(1, g.rules.dice), f"takeover-{g.key}",
        f"{g.label}: the offered totals taken over, by dice offered"
        + (", in the situations of the table (a cross at 0: none)." if explain else "."))
    return "\n\n".join([text, table, figure])


def model_check_text(W, model_check) -> str:
    N = W.N
    worst = max(model_check, key=lambda c: abs(c["model"] - c["exact"]))
    largest = max(c["target"] for c in model_check)
    return (
        "The memory model is not the exact game. Where the exact game can be solved, up to "
        f"a target of {N('model_check/largest', largest, 'pts')}, the model's first-player "
        f"chance is within {N('model_check/worst', abs(worst['model'] - worst['exact']), 'ppabs')} "
        f"percentage points of the exact one ({W.tabs.peek()}). What the model's decisions "
        "cost a player who follows them is measured in Appendix H.\n\n"
        + W.model_check_table(model_check))


def other_banking(W, games) -> str:
    """Appendix G: the banking tables and maps of Pig and cinq-mille's
    variants."""
    out = []
    for g in games:
        D = g.rules.dice
        out.append(W.decision_table(g, g.results["bank"], "bank", range(1, D + 1),
                                    f"{g.label}: turn totals banked, by dice in hand."))
        out.append(bank_map(W, g))
    return "\n\n".join(out) if out else "No other game in this build."
