"""The paper's computed passages: tables, lists and the sentences whose
wording depends on the results, each returned as text for one placeholder
of ``paper/template.md``. Every number goes through ``N``
(:class:`paper.builder.format.Numbers`). The sections are made in the
order of the text, so that table and figure numbers follow it.
"""

from __future__ import annotations

import numpy as np

from paper.builder import figures as F
from paper.builder.format import Numbers, Tables, table
from solver.model.dice import FACES
from solver.model.rules import GAMES
from solver.study.analysis import newton_passes

PUBLISHED = {"pig": 0.5306}
"""Published first-player win probabilities, to the digits published: Pig to
100 (Neller and Presser 2004, [1]: the first player wins 53.06% under
optimal play). The Farkle figures are :mod:`paper.builder.farkle`'s."""


def dice_word(n: int) -> str:
    return "die" if n == 1 else "dice"


class Writer:
    def __init__(self, N: Numbers, tabs: Tables, figs):
        self.N, self.tabs, self.figs = N, tabs, figs

    # ---------------------------------------------------------------- bits
    def fpw(self, g) -> str:
        return self.N(f"{g.key}/first_player_win", g.solution.first_player_win, "p")

    def intervals(self, key: str, rule, unit: int, most: int = 3) -> str:
        """``lo-hi, lo-hi`` (points) of a decision's intervals; ``never``."""
        if rule.top is None:
            return "-"
        if not rule.intervals:
            return "never"
        parts = []
        for i, (lo, hi) in enumerate(rule.intervals[:most]):
            a = self.N(f"{key}/{i}/lo", lo * unit, "pts")
            parts.append(a if lo == hi else a + "–" + self.N(f"{key}/{i}/hi", hi * unit, "pts"))
        more = len(rule.intervals) - most
        if more > 0:
            parts.append(f"and {self.N(f'{key}/more', more, 'int')} more")
        return ", ".join(parts)

    # ------------------------------------------------------------ abstract
    def abstract(self, games, house, model_check, cards) -> str:
        N = self.N
        said = []
        for key in ("cinq-mille", "quinze-mille", "dix-mille"):
            g = games.get(key)
            if g is not None:
                said.append(f"{N(f'abstract/{key}/pct', g.solution.first_player_win, 'pct')} "
                            f"of {key} games")
        text = ("Dix-mille, quinze-mille and cinq-mille are French dice games of the Farkle "
                "family: a player rolls five or six dice, sets scoring ones aside, and either "
                "banks the turn's points or rolls the rest again, losing the turn's points if "
                "a roll scores nothing. We computed perfect play for two players, every "
                "decision of every position, and checked it. ")
        if said:
            text += ("When both play perfectly the first player wins " + _and(said) + ". ")
        if "dix-mille" in games and model_check:
            worst = max(abs(c["model"] - c["exact"]) for c in model_check)
            largest = max(c["target"] for c in model_check)
            text += ("The dix-mille figure comes from a model of its crosses rule; where the "
                     "exact game can be solved, up to a target of "
                     + N("abstract/model/target", largest, "pts") + " points, the model is "
                     "within " + N("abstract/model/gap", worst, "ppabs") + " percentage "
                     "points of it. ")
        if any(r["delta"] is not None for r in house):
            r = max((r for r in house if r["delta"] is not None), key=lambda r: abs(r["delta"]))
            text += (f"Of the house rules compared, \"{r['label']}\" in {r['family']} matters "
                     f"most to the first player ({N(_hkey(r, 'delta_pct'), r['delta'], 'pp')} "
                     "percentage points). ")
        main = [(k, cards[k]["loss"]["loss"]) for k in ("cinq-mille", "quinze-mille",
                                                        "dix-mille") if k in cards]
        if main:
            worst_card = max(loss for _, loss in main)
            text += ("A strategy card a player can remember gives up at most "
                     + N("abstract/cards/worst", worst_card, "ppabs") + " percentage points "
                     "against perfect play in the three games. ")
        pig = games.get("pig")
        if pig:
            text += ("The same program gives Pig's published first-player chance and the "
                     "published figures of Farkle's rule sets.")
        return "**Abstract.** " + text

    # --------------------------------------------------------------- games
    def games_table(self, names) -> str:
        N, rows = self.N, []
        for name in names:
            r = GAMES[name]
            k = f"rules/{name}"
            target = ("exactly " if r.exact_target else "at least ") + N(f"{k}/target", r.target, "pts")
            entry = N(f"{k}/entry", r.entry, "pts") if r.entry else "none"
            if r.has_takeover:
                take = (f"once entered ({N(f'{k}/takeover_min', r.takeover_min, 'pts')})"
                        if r.takeover_min <= r.entry else
                        f"from {N(f'{k}/takeover_min', r.takeover_min, 'pts')}")
            else:
                take = "none"
            wins = ", ".join(f"{N(f'{k}/instant/{f}/{c}/count', c, 'int')} x "
                             f"{N(f'{k}/instant/{f}/{c}/face', f, 'int')}"
                             for f, c in r.instant_wins) or "none"
            rows.append([f"`{name}`", N(f"{k}/dice", r.dice, "int"), target, entry,
                         "every scoring die" if r.keep_rule == "all" else "any",
                         "forced" if r.hot_dice_forced else "optional",
                         N(f"{k}/crosses", r.crosses, "int") if r.crosses else "none", take,
                         N(f"{k}/last_turn_points", r.last_turn_points, "pts")
                         if r.last_turn_points else "none", wins])
        return (self.tabs.caption("The games (from `solver.model.rules.GAMES`).") + "\n\n"
                + table(["game", "dice", "target", "entry", "keep", "hot dice", "crosses",
                         "take-over", "last turn", "instant win"], rows, "lrrrllrrrr"))

    def points_table(self, names) -> str:
        N, rows = self.N, []
        for name in names:
            r = GAMES[name]
            k = f"rules/{name}/scoring"

            def counts(face):
                out = []
                for c, v in enumerate(r.scoring[face - 1], 1):
                    out.append("win" if (face, c) in r.instant_wins else
                               N(f"{k}/{face}/{c}", v, "pts") if v else "-")
                return ", ".join(out)
            other = ", ".join("-" if v == 0 else N(f"{k}/2/{c}/per-face", v // 2, "pts") + " f"
                              for c, v in enumerate(r.scoring[1], 1))
            straights = "; ".join(
                "-".join(N(f"{k}/straight/{i}/{f}", f, "int") for f in faces) + ": "
                + N(f"{k}/straight/{i}/points", p, "pts")
                for i, (faces, p) in enumerate(r.straights)) or "none"
            rows.append([f"`{name}`", counts(1), counts(5), other, straights])
        one, five = (N(f"faces/{f}", f, "int") for f in (FACES[0], FACES[4]))
        others = ", ".join(N(f"faces/{f}", f, "int") for f in FACES if f not in (1, 5))
        return (self.tabs.caption("Points of a keep: the entries are for one, two, ... dice "
                                  "of a face kept from one roll; - is not a legal keep.")
                + "\n\n" + table(["game", f"face {one}", f"face {five}", f"faces {others}",
                                  "straights"], rows, "lllll"))

    # -------------------------------------------------------------- method
    def newton_text(self, games) -> str:
        N, one, many = self.N, [], []
        for g in games:
            s = newton_passes(g.stats)
            (one if s["sweeps"] == 1 else many).append((g, s))
        text = ""
        if one:
            means = [s["mean"] for _, s in one]
            text += ("Without crosses one sweep runs Newton's method to convergence in every "
                     "block, in " + N("method/newton/mean_lo", min(means), "f2") + " to "
                     + N("method/newton/mean_hi", max(means), "f2") + " turn-DP passes per "
                     "block on average (at most "
                     + N("method/newton/max", max(s["max"] for _, s in one), "int") + "). ")
        for g, s in many:
            text += (f"With crosses every sweep gives each block one Newton pass, since the "
                     f"next sweep corrects its inputs anyway: {g.label} ran "
                     f"{N(f'{g.key}/cost/newton_sweeps', s['sweeps'], 'int')} sweeps. ")
        return text.strip()

    def classes_table(self, dice_checks) -> str:
        N = self.N
        names = [n for n in dict.fromkeys(c["name"] for c in dice_checks) if n != "pig"]
        most = max(c["n"] for c in dice_checks)
        by = {(c["name"], c["n"]): c for c in dice_checks}
        rows = []
        for n in range(1, most + 1):
            row = [N(f"dice/{n}/n", n, "int"), N(f"dice/{n}/rolls", by[(names[-1], n)]["rolls"]
                                                   if (names[-1], n) in by else 0, "int")]
            for name in names:
                c = by.get((name, n))
                row.append(N(f"dice/{name}/{n}/classes", c["classes"], "int") if c else "")
            rows.append(row)
        return (self.tabs.caption("Distinct rolls of n dice, and the roll classes the turn DP "
                                  "goes through in each game.") + "\n\n"
                + table(["dice", "distinct rolls"] + [f"`{n}`" for n in names], rows))

    def cost_table(self, games) -> str:
        N, rows = self.N, []
        for g in games:
            st, k = g.stats, f"{g.key}/cost"
            P = g.solution.space.size
            take = g.solution.take_values
            take_bytes = int(np.prod(take.shape)) * 8 if np.any(g.solution.take_row >= 0) else 0
            rows.append([g.label, N(f"{k}/states", P, "int"),
                         N(f"{k}/turn_starts", st.get("turn_starts", P * P), "int"),
                         N(f"{k}/keep_evaluations", st["keep_evaluations"], "int"),
                         N(f"{k}/sweeps", st["sweeps"], "int"),
                         N(f"{k}/seconds", st["seconds"], "s"),
                         N(f"{k}/take_bytes", take_bytes, "mb") if take_bytes else "-",
                         N(f"{k}/file_bytes", g.info["bytes"], "mb") if g.info else "-",
                         N(f"{k}/residual", g.results["residual"], "e")])
            N(f"{g.key}/residual", g.results["residual"], "e")
        return (self.tabs.caption("Size and cost of each solve (MB: a million bytes), and the "
                                  "largest Bellman residual.") + "\n\n"
                + table(["game", "player states", "turn starts", "keep evaluations", "sweeps",
                         "seconds", "take-over (MB)", "file (MB)", "residual"], rows))

    # ---------------------------------------------------------- correctness
    def dice_table(self, dice_checks) -> tuple[str, bool]:
        N = self.N
        names = [n for n in dict.fromkeys(c["name"] for c in dice_checks) if n != "pig"]
        by = {(c["name"], c["n"]): c for c in dice_checks}
        agree = all(c["zero"] == c["brute"] for c in dice_checks)
        most = max(c["n"] for c in dice_checks)
        rows = []
        for n in range(1, most + 1):
            zeros = {by[(name, n)]["zero"] for name in names if (name, n) in by}
            zero = zeros.pop() if len(zeros) == 1 else None
            row = [N(f"dice/{n}/n", n, "int"), N(f"dice/{n}/ordered", 6 ** n, "int"),
                   N(f"dice/{n}/zero", zero, "frac") if zero is not None else "differs",
                   N(f"dice/{n}/zero_p", float(zero), "p4") if zero is not None else ""]
            for name in names:
                c = by.get((name, n))
                row.append("" if c is None else N(f"dice/{name}/{n}/hot", c["hot"], "frac")
                           + " / " + N(f"dice/{name}/{n}/best", float(c["best"]), "f2"))
            rows.append(row)
        return (self.tabs.caption("The dice: zero-roll probability (the same in the three "
                                  "games), and per game the probability of hot dice / the "
                                  "expected points of the best keep.") + "\n\n"
                + table(["dice", "ordered rolls", "zero roll", "(decimal)"]
                        + [f"`{n}`" for n in names], rows)), agree

    def reference_table(self, reference) -> str:
        N, rows = self.N, []
        for r in reference:
            k = f"reference/{r['case']}"
            rows.append([f"`{r['case']}`", N(f"{k}/states", r["states"], "int"),
                         N(f"{k}/sweeps", r["sweeps"], "int"),
                         N(f"{k}/start_error", r["start_error"], "e"),
                         "-" if r["take_error"] is None else
                         N(f"{k}/take_error", r["take_error"], "e")])
        return (self.tabs.caption("The fast solver against the simple one: player states, "
                                  "sweeps of the simple one, largest difference of a start "
                                  "value and of a take-over value.") + "\n\n"
                + table(["case", "states", "reference sweeps", "start values",
                         "take-over values"], rows))

    def self_play_table(self, games) -> str:
        N, rows = self.N, []
        for g in games:
            r, k = g.results["self"], f"{g.key}/self"
            rows.append([g.label, N(f"{k}/games", r["games"], "int"),
                         N(f"{k}/rate", r["rate"], "p4") + " ± " + N(f"{k}/stderr", r["stderr"], "p4"),
                         self.fpw(g), N(f"{k}/z", r["z"], "z"), N(f"{k}/turns", r["turns"], "f2"),
                         N(f"{k}/seed", r["seed"], "id")])
        return (self.tabs.caption("Optimal self-play: the first player's simulated win rate "
                                  "against the table; z = difference / standard error; mean "
                                  "turns per game; the run's seed.") + "\n\n"
                + table(["game", "games", "simulated", "table", "z", "turns", "seed"], rows))

    # -------------------------------------------------------------- results
    def first_player_table(self, games) -> str:
        N, rows = self.N, []
        for g in games:
            r = g.results["self"]
            rows.append([g.label, N(f"{g.key}/target", g.rules.target, "pts"), self.fpw(g),
                         N(f"{g.key}/self/turns", r["turns"], "f2")])
        return (self.tabs.caption("The first player's chance of winning when both play "
                                  "perfectly, and the mean number of turns of a game (both "
                                  "players' turns, from the self-play of Section 4).")
                + "\n\n" + table(["game", "target", "first player wins", "turns"], rows))

    def komi_table(self, games) -> str:
        N, rows = self.N, []
        for g in games:
            kk, k = g.results["komi"], f"{g.key}/komi"
            if kk:
                rows.append([g.label, self.fpw(g), N(f"{k}/h", kk["h"], "pts"),
                             N(f"{k}/p", kk["p"], "p"), N(f"{k}/h_before", kk["h_before"], "pts"),
                             N(f"{k}/p_before", kk["p_before"], "p")])
            else:
                rows.append([g.label, self.fpw(g), "none", "-", "-", "-"])
        return (self.tabs.caption("The first player's win probability, and the head start "
                                  "that makes the game fair.") + "\n\n"
                + table(["game", "first player wins", "head start h", "first player at h",
                         "next smaller score", "first player there"], rows))

    def decision_table(self, g, rows_in, what: str, dice, caption: str) -> str:
        rows = []
        for name, me, opp, rule in rows_in:
            k = f"{g.key}/{what}/{name}"
            cells = [self.intervals(f"{k}/{n}", rule[n], g.rules.unit) for n in dice]
            rows.append([f"{name} ({self.N(f'{k}/me', me, 'pts')} vs "
                         f"{self.N(f'{k}/opp', opp, 'pts')})"] + cells)
        return (self.tabs.caption(caption) + "\n\n"
                + table(["situation"] + [f"{n} {dice_word(n)}" for n in dice], rows))

    def heuristics_table(self, games) -> str:
        N, rows = self.N, []
        for g in games:
            for h in g.results["heuristics"]:
                k = f"{g.key}/heur/{h['opponent']}"
                rows.append([g.label, f"`{h['opponent']}`", N(f"{k}/games", h["games"], "int"),
                             N(f"{k}/first", h["first"], "p4"), N(f"{k}/second", h["second"], "p4"),
                             N(f"{k}/both", h["both"], "p4") + " ± "
                             + N(f"{k}/stderr", h["stderr"], "p4"),
                             ", ".join(N(f"{k}/seed/{i}", s, "id")
                                       for i, s in enumerate(h["seeds"]))])
        common = all(h.get("common_dice") for g in games for h in g.results["heuristics"])
        return (self.tabs.caption("The optimal player's win rate against simple strategies "
                                  "(games per seating; "
                                  + ("both seatings on common dice from one seed"
                                     if common else "the seeds of the two seatings")
                                  + ").") + "\n\n"
                + table(["game", "opponent", "games", "optimal first", "optimal second",
                         "both", "seeds"], rows, "llrrrrr"))

    def house_table(self, house, not_solved) -> str:
        N, rows = self.N, []
        for r in house:
            k = _hkey(r, "")
            delta = "-" if r["delta"] is None else N(k + "delta", r["delta"], "pp3")
            rows.append([r["family"], r["label"], N(k + "p", r["p"], "p"), delta])
        for family, label, estimate in not_solved:
            rows.append([family, label, "not solved (about "
                         + N(f"house/{family}/{label}/estimate", estimate, "dur") + ")", ""])
        return (self.tabs.caption("The first player's win probability under each house rule, "
                                  "at the game's own target, and the change against the game "
                                  "as played (dix-mille's variants with crosses: the memory "
                                  "model, as its table).") + "\n\n"
                + table(["game", "variant", "first player wins", "change (pp)"], rows,
                        "llrr"))

    def house_figure(self, house) -> str:
        bars = [(f"{r['family']}: {r['label']}", 100 * r["delta"],
                 self.N(_hkey(r, "delta"), r["delta"], "pp3"))
                for r in house if r["delta"] is not None]
        return F.house_rules(self.figs, bars) if bars else ""

    def memory_table(self, data: dict, game: str | None) -> str:
        """The model's decisions against the exact policy: the paired loss
        in each seat under the one-level memory and under the paper sheet."""
        N, rows = self.N, []
        sheets = {"one-level memory": "one_level", "paper sheet": "paper"}
        needed = ["first player win, exact", "first player win, model",
                  "share of decisions that differ"] + [
            f"model {who}: paired loss{se} ({sheet})" for sheet in sheets
            for who in ("first", "second") for se in ("", ", standard error")]
        for name, d in data.items():
            if any(key not in d for key in needed):
                continue
            target = int(name.split()[-1])
            k = f"memory_results/{target}"

            def loss(who, sheet):
                tag = f"{k}/{sheets[sheet]}/{who}"
                return (N(f"{tag}/loss", d[f"model {who}: paired loss ({sheet})"], "ppabs")
                        + " ± " + N(f"{tag}/se", d[f"model {who}: paired loss, standard "
                                                   f"error ({sheet})"], "ppabs"))
            rows.append([N(f"{k}/target", target, "pts"),
                         N(f"{k}/exact", d["first player win, exact"], "p"),
                         N(f"{k}/model", d["first player win, model"], "p"),
                         N(f"{k}/differ", d["share of decisions that differ"], "pct3"),
                         *(loss(who, sheet) for sheet in sheets for who in ("first", "second"))])
        return (self.tabs.caption("What the crosses model's decisions cost a player who follows "
                                  "them against the exact policy"
                                  + (f" (`{game}`)" if game else "")
                                  + ", in percentage points of win probability, playing first "
                                  "and second, under the one-level memory and on the paper "
                                  "sheet.")
                + "\n\n"
                + table(["target", "first player: exact", "model", "decisions that differ",
                         "first (one level)", "second (one level)", "first (paper sheet)",
                         "second (paper sheet)"], rows))

    def model_check_table(self, checks) -> str:
        N, rows = self.N, []
        for c in checks:
            k = f"model_check/{c['target']}"
            rows.append([N(f"{k}/target", c["target"], "pts"),
                         N(f"{k}/exact_states", c["exact_states"], "int"),
                         N(f"{k}/model_states", c["model_states"], "int"),
                         N(f"{k}/exact", c["exact"], "p"), N(f"{k}/model", c["model"], "p"),
                         N(f"{k}/gap", c["model"] - c["exact"], "pp3")])
        return (self.tabs.caption("dix-mille as played: the crosses model against the exact "
                                  "game where the exact game can be solved (this build).")
                + "\n\n" + table(["target", "exact states", "model states", "first player: "
                                  "exact", "model", "model - exact (pp)"], rows))


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _hkey(r, what) -> str:
    return f"house/{r['family']}/{r['label']}/{what}"


