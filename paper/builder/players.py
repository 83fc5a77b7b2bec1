"""The paper's section on more players, from ``paper/players.json`` (what
``scripts/measure_players.py`` measured: exact N-player solves, how banking
moves, and what two policies made from the two-player table give up).
Every comparison word (more/less, later/earlier) is chosen from the numbers
it compares."""

from __future__ import annotations

from paper.builder.format import table


def players_text(N, tabs, data: dict | None) -> str:
    if not data:
        return ("The measurements of more players are missing from this build "
                "(`python scripts/measure_players.py --json-out paper/players.json`).")
    text = [seats(N, tabs, data), banking(N, data), duel_summary(N, data)]
    return "\n\n".join(t for t in text if t)


def duel_summary(N, data: dict) -> str:
    """Section 6's sentence on the race-of-duels model (Appendix I has the
    model and the table): the most it gives up in a seat where the exact
    game exists, against the duel's."""
    rows = data.get("duel")
    if not rows:
        return ""
    model = max(max(r["model_loss"]) for r in rows)
    duel_ = max(max(r["loss"]) for r in rows)
    return ("**Beyond the exact tables.** Where the exact game with three or more players is "
            "out of reach, advice comes from the two-player table through a model, a *race "
            "of duels, one turn ahead* (Appendix I). Where the exact game exists, a player "
            "who follows the model gives up at most "
            + N("players/duel/model_worst", model, "ppabs") + " percentage points in a seat, "
            "against " + N("players/duel/duel_worst", duel_, "ppabs") + " for one who plays "
            "the two-player table against the leader.")


def first_seat_edges(N, data: dict) -> str:
    """The first seat's chance against a fair share ``1/N``, as a relative
    edge, for each game and target solved with several numbers of players;
    the words say whether the edge grows or shrinks with more players."""
    by_game: dict[tuple, dict[int, float]] = {}
    for r in data["seats"]:
        by_game.setdefault((r["game"], r["target"]), {})[r["players"]] = r["seat_wins"][0]
    said, trends = [], []
    for (game, target), firsts in by_game.items():
        if len(firsts) < 2:
            continue
        key = f"players/{game}/{target}"
        edges = {n: p * n - 1 for n, p in sorted(firsts.items())}
        trends.append(all(b > a for a, b in zip(edges.values(), list(edges.values())[1:])))
        trends[-1] = ("grows" if trends[-1] else "shrinks" if all(
            b < a for a, b in zip(edges.values(), list(edges.values())[1:])) else "moves")
        said.append(f"In {'Pig' if game == 'pig' else game} to "
                    f"{N(f'{key}/target', target, 'pts')} the first seat wins "
                    + _and([f"{N(f'{key}/{n}/edge', edges[n], 'pct')} more than a fair share "
                            f"with {n}" if i == 0 else
                            f"{N(f'{key}/{n}/edge', edges[n], 'pct')} with {n}"
                            for i, n in enumerate(sorted(firsts))]) + ".")
    if not said:
        return ""
    verdict = ("more" if all(t == "grows" for t in trends) else
               "less" if all(t == "shrinks" for t in trends) else "sometimes more, sometimes less")
    return (f"Moving first is worth {verdict} in relative terms with more players. "
            + " ".join(said) + " ")


def seats(N, tabs, data: dict) -> str:
    rows = []
    for r in data["seats"]:
        key = f"players/{r['game']}/{r['target']}/{r['players']}"
        wins = " / ".join(N(f"{key}/seat{i + 1}", v, "pct") for i, v in enumerate(r["seat_wins"]))
        eq = r["equilibria"]
        rows.append([r["game"], N(f"players/{r['game']}/{r['target']}/target", r["target"], "pts"),
                     N(f"{key}/players", r["players"], "int"), wins,
                     N(f"{key}/mixed_levels", eq["levels_mixed"], "int")])
    ref = tabs.peek()
    caption = tabs.caption(
        "Each seat's chance of winning under optimal play, seat 1 moving first, and the "
        "levels (sums of the scores) where the equilibrium mixes; exact solves.")
    return (first_seat_edges(N, data) + f"{ref} gives every seat.\n\n" + table(
        ["game", "target", "players", "seats win", "mixed levels"], rows, "lrrlr")
        + "\n\n" + caption)


def banking(N, data: dict) -> str:
    """When the mover banks with two and with three players: cinq-mille at
    the middle of the game, Pig at its start and middle; the words say
    which way each total moves."""
    moves, parts = [], []
    rows = {r["players"]: r for r in data["seats"]
            if r["game"] == "cinq-mille" and r["target"] == 5000}
    if 2 in rows and 3 in rows:
        two, three = rows[2]["first_bank_middle"], rows[3]["first_bank_middle"]
        key = "players/cinq-mille/5000"
        said = []
        for n in two:
            if two[n] is None or three[n] is None:
                continue
            way = "later" if three[n] > two[n] else "earlier" if three[n] < two[n] else "the same"
            moves.append(way)
            said.append(f"{n} {'die' if n == '1' else 'dice'} "
                        f"{N(f'{key}/2/bank_middle/{n}', two[n], 'pts')} to "
                        f"{N(f'{key}/3/bank_middle/{n}', three[n], 'pts')}")
        parts.append("in cinq-mille with every player at "
                     + N(f"{key}/middle", rows[2]["middle"], "pts")
                     + " the smallest total banked goes, by dice in hand, " + ", ".join(said))
    pig = {r["players"]: r for r in data["seats"] if r["game"] == "pig" and r["target"] == 100}
    if 2 in pig and 3 in pig:
        for where in ("start", "middle"):
            two, three = (pig[p][f"first_bank_{where}"]["1"] for p in (2, 3))
            if two is None or three is None:
                continue
            moves.append("later" if three > two else "earlier" if three < two else "the same")
            parts.append(f"in Pig to 100 at the {where} the hold goes from "
                         + N(f"players/pig/100/2/hold_{where}", two, "int") + " to "
                         + N(f"players/pig/100/3/hold_{where}", three, "int"))
    if not parts:
        return ""
    ways = set(moves) - {"the same"}
    verdict = ("A third player makes the mover bank later wherever it moves the total."
               if ways == {"later"} else
               "A third player makes the mover bank earlier wherever it moves the total."
               if ways == {"earlier"} else
               "A third player moves these totals both ways: there is no single rule such as "
               "\"bank later with more opponents\"." if ways else
               "A third player leaves these totals where they are.")
    return ("**Banking with more opponents.** From two players to three, "
            + ". ".join(p if i == 0 else p[0].upper() + p[1:] for i, p in enumerate(parts))
            + ". " + verdict)


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def duel(N, tabs, data: dict | None) -> str:
    """Appendix I: the race-of-duels model and what it gives up, beside the
    plain duel against the leader."""
    if not data or not data.get("duel"):
        return "Not measured for this build."
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
        "while the two others play the three-player table (exact evaluation); and the share "
        "of bank-or-roll decisions where each differs "
        "from the table, over every allowed bank decision of "
        f"{N('players/duel/sample', data['duel'][0]['sample'], 'int')} random turn starts.")
    return ("Where the exact game with "
            "three or more players is out of reach, advice must come from the two-player "
            "table. The plain way plays it against the leader: the *duel*. The program's "
            "advice does better with a *race of duels, one turn ahead*. The two-player table "
            "gives the chance $q_j$ of beating each opponent alone. Read each duel as a race "
            "of two independent normal times to finish of one spread (Thurstone's case V): "
            "then the player finishes first with chance "
            "$M = E_z[\\prod_j \\Phi(\\sqrt{2}\\,\\Phi^{-1}(q_j) - z)]$, $z$ standard "
            "normal. The player's own turn and the next player's are played exactly, the "
            "next player's over $M$. Nothing in the model is fitted. What each costs is "
            "measured where the exact game exists: the player who uses it is evaluated "
            f"exactly against two exact players ({ref}).\n\n"
            + table(["game", "target", "exact seats", "lost by the duel (pp)",
                     "lost by the model (pp)", "decisions that differ (duel / model)"],
                    rows, "lrllll")
            + "\n\n" + caption)
