"""The paper's section on more players, from ``paper/players.json`` (what
``scripts/measure_players.py`` measured: exact N-player solves, how banking
moves, and what two policies made from the two-player table give up)."""

from __future__ import annotations

from paper.builder.format import table


def players_text(N, tabs, data: dict | None) -> str:
    if not data:
        return ("`paper/players.json` is missing: run `python scripts/measure_players.py "
                "--json-out paper/players.json`, then rebuild.")
    text = [method(), seats(N, tabs, data), banking(N, data), duel(N, tabs, data)]
    return "\n\n".join(t for t in text if t)


def method() -> str:
    return (
        "`docs/rules.md` defines the games for two to six players: seats move in turn, each "
        "player maximises their own chance of winning, an offer goes to the next player "
        "only, and ties are broken by a fixed rule. A turn start is then the tuple of every "
        "player's state, and its value the vector of every player's chance. The solver "
        "(`solver.engine.n_player`) keeps the two-player structure: levels by the sum of the "
        "scores, and inside a level blocks of the score tuples that the zero turns rotate "
        "into one another, solved by policy iteration with vectors (a node's vector is "
        "affine in its zero-turn successor's, with one scalar slope). With three players the "
        "game is no longer zero-sum, and in a few blocks the best responses go round a "
        "cycle: player 1's best decision flips player 2's, which flips player 1's back, and "
        "no pure policy is stable. There the decisions that flip are mixed, and the "
        "equilibrium is selected as the limit of the logit (quantal-response) equilibrium "
        "as its precision grows (`solver.engine.equilibrium`); each mixing player is indifferent "
        "between the two choices they mix, which the tests check.")


def seats(N, tabs, data: dict) -> str:
    rows = []
    for r in data["seats"]:
        key = f"players/{r['game']}/{r['target']}/{r['players']}"
        wins = " / ".join(N(f"{key}/seat{i + 1}", v, "pct") for i, v in enumerate(r["seat_wins"]))
        eq = r["equilibria"]
        rows.append([r["game"], N(f"{key}/target", r["target"], "pts"),
                     N(f"{key}/players", r["players"], "int"), wins,
                     N(f"{key}/mixed_levels", eq["levels_mixed"], "int")])
    ref = tabs.peek()
    caption = tabs.caption(
        "Each seat's chance of winning under optimal play, seat 1 moving first, and the "
        "levels (sums of the scores) where the equilibrium mixes; exact solves by "
        f"`{data['command']}` (the solve times are in BENCHMARKS.md).")
    first = {(r["game"], r["target"], r["players"]): r["seat_wins"][0] for r in data["seats"]}
    pig2, pig3 = first.get(("pig", 100, 2)), first.get(("pig", 100, 3))
    lead = ""
    if pig2 and pig3:
        lead = ("Moving first is worth less in relative terms with more players but remains: "
                f"in Pig to 100 the first of two wins {N('players/pig/100/2/seat1', pig2, 'pct')}"
                f", the first of three {N('players/pig/100/3/seat1', pig3, 'pct')} where a fair "
                f"share would be {N('players/fair/3', 1 / 3, 'pct')}. ")
    return (lead + f"{ref} gives every seat.\n\n" + table(
        ["game", "target", "players", "seats win", "mixed levels"], rows, "lrrlr") + "\n\n" + caption)


def banking(N, data: dict) -> str:
    rows = {r["players"]: r for r in data["seats"]
            if r["game"] == "cinq-mille" and r["target"] == 5000}
    if 2 not in rows or 3 not in rows:
        return ""
    parts = []
    for players, r in sorted(rows.items()):
        key = f"players/cinq-mille/5000/{players}"
        shown = [f"{n} {'die' if n == '1' else 'dice'} {N(f'{key}/bank_middle/{n}', t, 'pts')}"
                 for n, t in r["first_bank_middle"].items() if t is not None]
        never = [n for n, t in r["first_bank_middle"].items() if t is None]
        parts.append(f"with {N(f'{key}/players', players, 'int')} players, " + ", ".join(shown)
                     + (f" (with {', '.join(never)} dice: never)" if never else ""))
    two, three = rows[2]["first_bank_middle"], rows[3]["first_bank_middle"]
    pairs = [(two[n], three[n]) for n in two if two[n] is not None and three[n] is not None]
    later = all(b >= a for a, b in pairs) and any(b > a for a, b in pairs)
    verdict = ("With a third player optimal play banks later, never earlier: more opponents "
               "means more turns in which someone else may finish before the player moves "
               "again, so a small bank is worth less. " if later else
               "The third player moves these totals both ways. ")
    return ("**Banking with more opponents.** In cinq-mille with every player at "
            f"{N('players/cinq-mille/5000/middle', rows[2]['middle'], 'pts')}, the smallest "
            "turn total at which the mover banks is, by dice in hand: " + "; ".join(parts)
            + ". " + verdict + pig_holds(N, data))


def pig_holds(N, data: dict) -> str:
    """Pig's hold total (the smallest turn total banked) with two and three
    players, at the start and in the middle."""
    rows = {r["players"]: r for r in data["seats"] if r["game"] == "pig" and r["target"] == 100}
    if 2 not in rows or 3 not in rows:
        return ""
    out = []
    for where in ("start", "middle"):
        two, three = (rows[p][f"first_bank_{where}"]["1"] for p in (2, 3))
        if two is None or three is None:
            continue
        way = "later" if three > two else "earlier" if three < two else "at the same total"
        out.append(f"at the {where} a third player makes the mover hold {way} ("
                   + N(f"players/pig/100/2/hold_{where}", two, "int") + " with two, "
                   + N(f"players/pig/100/3/hold_{where}", three, "int") + " with three)")
    return "In Pig to 100, " + "; ".join(out) + "." if out else ""


def duel(N, tabs, data: dict) -> str:
    if not data.get("duel"):
        return ""
    rows = []
    for r in data["duel"]:
        changes = r.get("changes") or {}
        key = f"players/duel/{r['game']}{''.join(f'/{k}{v}' for k, v in changes.items())}" \
              f"/{r['target']}"
        label = r["game"] + "".join(
            f", take-over from {N(f'{key}/takeover_min', v, 'pts')}" if k == "takeover_min"
            else f", {k} {v}" for k, v in changes.items())
        rows.append([label, N(f"{key}/target", r["target"], "pts"),
                     " / ".join(N(f"{key}/exact{i + 1}", v, "pct") for i, v in
                                enumerate(r["exact"])),
                     " / ".join(N(f"{key}/loss{i + 1}", v, "pp3") for i, v in
                                enumerate(r["loss"])),
                     " / ".join(N(f"{key}/model_loss{i + 1}", v, "pp3") for i, v in
                                enumerate(r["model_loss"])),
                     N(f"{key}/differ", r["differ"] / max(r["decisions"], 1), "pct") + " / "
                     + N(f"{key}/model_differ", r["model_differ"] / max(r["decisions"], 1),
                         "pct")])
    ref = tabs.peek()
    caption = tabs.caption(
        "Three players: what a player gives up, in percentage points per seat, by playing "
        "the two-player table against the leader (the duel), or the model (a race of "
        "duels, one turn ahead), "
        "while the two others play the three-player table (exact evaluation, "
        "`solver.cards.seat_value`); and the share of bank-or-roll decisions where each differs "
        "from the table, over every allowed bank decision of "
        f"{data['duel'][0]['sample']:,} random turn starts.")
    return ("**The two-player table in a three-player game.** Where the exact game with "
            "three or more players is out of reach (dix-mille and quinze-mille at their "
            "targets; five or six players), advice must come from the two-player table. "
            "The plain way is to play it against one opponent: the leader (and, for an "
            "offer, the player who made it). The program's advice does better with a *race "
            "of duels, one turn ahead*. A player must finish before every opponent, and the "
            "two-player table gives the chance $q_j$ of beating each one alone (the earlier "
            "in the round moving first). Read each duel as a race of two independent normal "
            "times to finish of one spread (Thurstone's case V): $q_j$ fixes the gap between "
            "the two mean times, and the player finishes first with chance "
            "$M = E_z[\\prod_j \\Phi(\\sqrt{2}\\,\\Phi^{-1}(q_j) - z)]$, $z$ standard "
            "normal: the two-player table with one opponent, and an even share from an even "
            "start. The player's own turn is played exactly, and so is the next player's: "
            "each way the turn can end leads to the next player's turn, which the "
            "$N$-player turn DP plays over $M$ (their take-over of an offer included), and "
            "what that turn gives prices the end of the player's own. An offer is taken "
            "when the player's turn says so. Nothing in the model is fitted. The first "
            "version read the duels as a race of memoryless times (the odds against a "
            "player add up: $M = 1/(1 + \\sum_j (1 - q_j)/q_j)$) and priced the end of the "
            "turn by $M$ directly; it gave up more than 0.1 point in a seat of dix-mille "
            "and of quinze-mille (BENCHMARKS.md, 2026-12-02 evening). "
            "What each costs is measured where both exist: the player who uses it is "
            "evaluated exactly against two exact players "
            f"({ref}).\n\n" + table(["game", "target", "exact seats",
                                             "lost by the duel (pp)",
                                             "lost by the model (pp)",
                                             "decisions that differ (duel / model)"],
                                            rows, "lrllll")
            + "\n\n" + caption)
