"""Build the paper (paper/paper.md, its figures and paper/numbers.json) from
the solved tables and the simulator.

    python scripts/build_paper.py              # the paper, in paper/
    python scripts/build_paper.py --quick      # a tenth of the games, for a look
    python scripts/build_paper.py --out DIR    # somewhere else

Every number in the text is formatted from a value computed here: read from
a table in ``tables/`` (:func:`solver.tables.read_table`, ``read_info``),
solved here (:func:`solver.solve.solve_game`: the small cinq-mille variants
when their table is missing, and the house-rule variants), or measured with
the simulator (:func:`solver.simulate.simulate`). Each such number goes
through :class:`Numbers`, which also writes it to ``numbers.json`` (key ->
value and the text printed), so that ``tests/test_paper.py`` can check the
paper against the tables without rebuilding it.

Figures need matplotlib (``pip install "farkle-solver[paper]"``). A PDF is
made with pandoc only when pandoc and a LaTeX engine are installed.
"""

from __future__ import annotations

import argparse
import inspect
import dataclasses
import itertools
import json
import math
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from solver import __version__  # noqa: E402
from solver.dice import FACES, keep_table, odds, rolls  # noqa: E402
from solver.solve import solve_game  # noqa: E402
from solver.rules import GAMES, Rules  # noqa: E402
from solver.simulate import simulate  # noqa: E402
from solver.solution import Solution, replay  # noqa: E402
from solver.tables import default_path, read_info, read_table  # noqa: E402

# ------------------------------------------------------------- parameters
# Parameters of the experiments (how many games, which heuristics, which
# reduced targets), not results: every result is computed below.

PUBLISHED_PIG = 0.5305927
"""Neller and Presser (2004): the first player's win probability in Pig."""

ORDER = ["pig", "cinq-mille", "cinq-mille-exact", "cinq-mille-last1000",
         "cinq-mille-10000", "quinze-mille", "dix-mille"]
SOLVE_IF_MISSING = ("pig", "cinq-mille", "cinq-mille-exact", "cinq-mille-last1000",
                    "cinq-mille-10000")
SOLVE_BUDGET_SECONDS = 120.0
"""A game of ``SOLVE_IF_MISSING`` whose table is missing is solved here when
its estimated solve time on this machine is below this."""
SELF_PLAY_GAMES = 100_000
HEURISTIC_GAMES = 20_000
"""Games per seating of optimal play against each heuristic."""
BIG_STATES = 200
BIG_FRACTION = 20
"""Tables with more player states than BIG_STATES play 1/BIG_FRACTION of the games: each
new turn start of the optimal player replays a turn (about a millisecond with
six dice or take-over), and they have many."""
MAP_AXIS = 150
"""The policy maps replay at most this many scores per axis (every k-th)."""
THRESHOLDS = {1: (15, 20, 25, 30), "default": (300, 500, 1000), "big": (500,)}
"""The ``threshold:X`` opponents, by number of dice (Pig has one die); tables
with more than ``BIG_STATES`` player states play fewer opponents, with
proportionally more games each."""
QUINZE_REDUCED = 3000
"""quinze-mille's house rules are compared at this target, with the
take-over minimum scaled in proportion (5,000 of 15,000)."""
DIX_REDUCED = 2000
"""dix-mille's house rules are compared at this target."""
SITUATIONS = [("start", 0.0, 0.0), ("level", 0.4, 0.4), ("behind", 0.4, 0.8),
              ("ahead", 0.8, 0.4), ("both near the end", 0.9, 0.9)]
"""Score situations of the policy figures: (name, my score, opponent's
score) as fractions of the target, moved to the nearest reachable score."""
SIGMAS = 3
"""A simulated difference counts when it exceeds this many standard errors."""
MAP_PERCENTILE = 99
"""The colour scale of the policy maps stops at this percentile."""
TAKE_SITUATIONS = [("taker behind", 0.5, 0.8), ("level", 0.6, 0.6),
                   ("taker ahead", 0.8, 0.5)]
REFERENCE_CASES = ["pig-30", "cinq-mille-1500", "cinq-mille-exact-1500",
                   "cinq-mille-last1000-1500", "quinze-mille-takeover500-2000",
                   "dix-mille-nocross-1000", "dix-mille-700"]
"""Cases of tests/test_reference.py re-run here (the fast ones)."""
MEMORY_RESULTS = ["results/memory_model.json", "paper/memory_model.json",
                  "results/measure_memory_model.json", "memory_model.json",
                  "tables/memory_model.json", "BENCHMARKS-memory.json"]
"""Where scripts/measure_memory_model.py may leave its results."""


# ---------------------------------------------------------------- numbers

def _points(v):
    return f"{int(round(v)):,}"


FORMATS = {
    "p": lambda v: f"{v:.7f}",          # a probability, as the tables give it
    "p4": lambda v: f"{v:.4f}",         # a simulated rate or a standard error
    "pp": lambda v: f"{100 * v:+.2f}",  # a difference, in percentage points
    "pts": _points,                     # points
    "int": lambda v: f"{int(v):,}",
    "s": lambda v: f"{v:.2f}" if v < 10 else f"{v:.1f}",   # seconds
    "min": lambda v: f"{v / 60:.0f}",   # seconds shown as minutes
    "e": lambda v: f"{v:.1e}",
    "mb": lambda v: f"{v / 1e6:.1f}",   # bytes shown as MB
    "z": lambda v: f"{v:+.1f}",
    "f2": lambda v: f"{v:.2f}",
    "frac": lambda v: f"{v.numerator}/{v.denominator}",
    "f1": lambda v: f"{v:.1f}",
    "pp3": lambda v: f"{100 * v:+.3f}",
    "dur": lambda v: f"{v:.0f} s" if v < 120 else f"{v / 60:.0f} minutes",
}


class Numbers:
    """Every number printed in the paper: ``n(key, value, kind)`` formats
    the value and remembers both under ``key``."""

    def __init__(self):
        self.values: dict[str, dict] = {}

    def __call__(self, key: str, value, kind: str = "p") -> str:
        text = FORMATS[kind](value)
        if isinstance(value, Fraction):
            plain = float(value)
        elif isinstance(value, (np.integer, int)):
            plain = int(value)
        else:
            plain = float(value)
        old = self.values.get(key)
        if old is not None and old["text"] != text:
            raise RuntimeError(f"number {key} printed as {old['text']} and {text}")
        self.values[key] = {"value": plain, "text": text, "kind": kind}
        return text


N = Numbers()


# ------------------------------------------------------------------ games

class RowCache:
    """A table's take-over values read from HDF5 a row (one taker) at a
    time, the last few rows kept: ``Solution.take_values`` for a table too
    big to load whole."""

    def __init__(self, dataset, max_bytes: int = 400 * 2 ** 20):
        self.dataset = dataset
        self.shape = dataset.shape
        row_bytes = int(np.prod(dataset.shape[1:])) * 8
        self.max_rows = max(1, max_bytes // max(row_bytes, 1))
        self.rows: dict[int, np.ndarray] = {}

    def __getitem__(self, key):
        row, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
        row = int(row)
        data = self.rows.pop(row, None)
        if data is None:
            data = self.dataset[row]
            if len(self.rows) >= self.max_rows:
                self.rows.pop(next(iter(self.rows)))
        self.rows[row] = data
        return data[rest] if rest else data


@dataclass
class Game:
    key: str
    label: str
    rules: Rules
    solution: Solution
    source: str
    """``table`` (read from tables/) or ``solved`` (solved by this build)."""
    path: Path | None = None
    info: dict | None = None
    seconds: float = 0.0
    note: str = ""
    results: dict = field(default_factory=dict)

    @property
    def stats(self) -> dict:
        return self.solution.stats


def load_table(rules: Rules) -> tuple[Solution, dict, Path] | None:
    path = default_path(rules)
    if not path.exists():
        return None
    info = read_info(path)
    take = info["datasets"].get("take_values")
    take_bytes = int(np.prod(take["shape"])) * 8 if take else 0
    # Replays (figures, the simulator's optimal player) read the take-over
    # values of the waiting player: held in memory they cost a fraction of a
    # millisecond, read from the file a few milliseconds.
    solution = read_table(path, expect=rules, lazy_take=take_bytes > available_bytes() // 3)
    if not isinstance(solution.take_values, np.ndarray):
        solution.take_values = RowCache(solution.take_values)
    return solution, info, path


def available_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2 ** 31


def timed_solve(rules: Rules) -> tuple[Solution, float]:
    started = time.perf_counter()
    solution = solve_game(rules)
    return solution, time.perf_counter() - started


def state_at(space, units: int) -> int:
    """The player state of a score reached by banks, no crosses."""
    if space.memory == "none":
        return space.index_of_score(units)
    return space.find(units, 0, 0)


def plain_scores(space) -> np.ndarray:
    """Reachable scores (units), sorted, once each."""
    return np.unique(np.asarray(space.score))


def snap(space, rules: Rules, fraction: float) -> int:
    """The reachable score nearest ``fraction`` of the target (units)."""
    scores = plain_scores(space)
    goal = fraction * rules.target_units
    return int(scores[np.argmin(np.abs(scores - goal))])


# ----------------------------------------------------------- turn analysis

def reachable(rules: Rules, rows: int) -> np.ndarray:
    """``reach[t, n]``: some play of a turn from (0, all dice) sets ``t``
    units aside with ``n`` dice in hand (hot dice: ``n`` = all dice)."""
    roll_first, prob, keep_first, keep_units, keep_col = keep_table(rules).packed()
    D = rules.dice
    reach = np.zeros((rows, D + 1), dtype=bool)
    reach[0, D] = True
    for t in range(rows):
        for n in range(1, D + 1):
            if not reach[t, n]:
                continue
            k0, k1 = keep_first[roll_first[n]], keep_first[roll_first[n + 1]]
            t2, col = t + keep_units[k0:k1], keep_col[k0:k1]
            ok = (col > 0) & (t2 < rows)
            reach[t2[ok], col[ok]] = True
    return reach


def bank_rule(solution: Solution, reach: np.ndarray, m: int, w: int):
    """Per dice in hand: the smallest reachable turn total (units) at which
    optimal play banks (None: never), and the reachable totals above it at
    which it rolls on although the bank is allowed."""
    rules = solution.rules
    _, R, _, B = replay(solution, m, w, compiled=True)
    T = rules.target_units - int(solution.space.score[m])
    R, B, ok = np.asarray(R)[:T], np.asarray(B)[:T], reach[:T]
    banks = (B >= R) & np.isfinite(B) & ok
    rolls_on = (B < R) & np.isfinite(B) & ok
    out = {}
    for n in range(1, rules.dice + 1):
        ts = np.flatnonzero(banks[:, n])
        if len(ts) == 0:
            out[n] = (None, 0)
        else:
            out[n] = (int(ts[0]), int(np.count_nonzero(rolls_on[ts[0]:, n])))
    return out


def take_rule(solution: Solution, offers: np.ndarray, m: int, w: int):
    """Per dice offered: the smallest offered total (units) that the taker
    ``m`` takes over from a banker now at ``w`` (None: none), and the
    offers above it that are left."""
    rules = solution.rules
    _, R, _, _ = replay(solution, m, w, compiled=True)
    space = solution.space
    # Offers that can be made (no more than the banker's new score) and can
    # still be played (short of the taker's target).
    rows = min(int(space.score[w]) + 1, rules.target_units - int(space.score[m]))
    R = np.asarray(R)[:rows]
    fresh = float(solution.W[m, w])
    out = {}
    for n in range(1, rules.dice):
        ok = offers[:rows, n]
        take = (R[:, n] > fresh) & ok
        ts = np.flatnonzero(take)
        if len(ts) == 0:
            out[n] = (None, 0)
        else:
            out[n] = (int(ts[0]), int(np.count_nonzero(ok[ts[0]:] & ~take[ts[0]:])))
    return out


def komi(solution: Solution) -> dict | None:
    """The smallest head start ``h`` (a reachable score) for the second
    player with which the first player wins with probability <= 1/2."""
    space, unit = solution.space, solution.rules.unit
    start = state_at(space, 0)
    before_h, before_p = 0, solution.first_player_win
    for h in plain_scores(space):
        if h == 0:
            continue
        try:
            p = float(solution.W[start, state_at(space, int(h))])
        except KeyError:
            continue
        if p <= 0.5:
            return {"h": int(h) * unit, "p": p, "h_before": before_h * unit, "p_before": before_p}
        before_h, before_p = int(h), p
    return None


def bank_maps(solution: Solution, reach: np.ndarray):
    """``maps[n][i, j]``: smallest banking turn total (points; -1: never)
    with ``n`` dice, me at score ``i`` units, opponent at ``j`` units (NaN
    where a score cannot occur). With more than :data:`MAP_AXIS` scores,
    every k-th score is replayed and stands for the next k - 1."""
    rules, space = solution.rules, solution.space
    scores, states = [], []
    for s in plain_scores(space):
        try:
            states.append(state_at(space, int(s)))
            scores.append(int(s))
        except KeyError:
            continue
    scores = np.array(scores)
    step = -(-len(scores) // MAP_AXIS)
    picked = np.arange(0, len(scores), step)
    rep = picked[np.searchsorted(picked, np.arange(len(scores)), side="right") - 1]
    G = rules.target_units
    values = {n: np.empty((len(picked), len(picked))) for n in range(1, rules.dice + 1)}
    for j, w in enumerate(picked):          # waiting player outside: one take-over row
        for i, m in enumerate(picked):
            for n, (t, _) in bank_rule(solution, reach, states[m], states[w]).items():
                values[n][i, j] = -1 if t is None else t * rules.unit
    where = np.searchsorted(picked, rep)    # index into picked of each score's stand-in
    maps = {}
    for n in values:
        grid = np.full((G, G), np.nan)
        grid[np.ix_(scores, scores)] = values[n][np.ix_(where, where)]
        maps[n] = grid
    return maps, step


def score_grid(rules: Rules, values: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``values[i, j]`` over the reachable ``scores`` spread on the grid of
    every score of the game (units), NaN where a score cannot occur."""
    G = rules.target_units
    grid = np.full((G, G), np.nan)
    grid[np.ix_(scores, scores)] = values
    return grid


def score_mesh(ax, rules: Rules, grid: np.ndarray, **kw):
    """Draw ``grid[me, opponent]`` (units) with one cell per score."""
    edges = (np.arange(grid.shape[0] + 1) - 0.5) * rules.unit
    im = ax.pcolormesh(edges, edges, np.ma.masked_invalid(grid), **kw)
    ax.set_xlabel("opponent's score")
    ax.set_ylabel("mover's score")
    ax.set_aspect("equal")
    return im


# ------------------------------------------------------------------ text

def table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


class Figures:
    """Figure numbers and files."""

    def __init__(self, out: Path):
        self.dir = out / "figures"
        self.count = 0
        self.dir.mkdir(parents=True, exist_ok=True)
        import matplotlib
        matplotlib.use("Agg")

    def save(self, fig, name: str, caption: str) -> str:
        self.count += 1
        label = f"Figure {self.count}"
        fig.savefig(self.dir / f"{name}.png", dpi=110, bbox_inches="tight")
        import matplotlib.pyplot as plt
        plt.close(fig)
        return f"![{label}. {caption}](figures/{name}.png)\n\n*{label}. {caption}*\n"


class Tables:
    def __init__(self):
        self.count = 0

    def caption(self, text: str) -> str:
        self.count += 1
        return f"\n\n*Table {self.count}. {text}*\n"

    def peek(self, ahead: int = 1) -> str:
        """``Table k`` of the ``ahead``-th caption still to come."""
        return f"Table {self.count + ahead}"


def rules_row(rules: Rules) -> list[str]:
    k = f"rules/{rules.name}"
    target = ("exactly " if rules.exact_target else "at least ") + N(f"{k}/target", rules.target, "pts")
    entry = N(f"{k}/entry", rules.entry, "pts") if rules.entry else "none"
    hot = "forced" if rules.hot_dice_forced else "optional"
    crosses = N(f"{k}/crosses", rules.crosses, "int") if rules.crosses else "none"
    take = ("from " + N(f"{k}/takeover_min", rules.takeover_min, "pts")
            if rules.has_takeover else "none")
    last = (N(f"{k}/last_turn_points", rules.last_turn_points, "pts")
            if rules.last_turn_points else "none")
    wins = ", ".join(f"{N(f'{k}/instant/{f}/{c}/count', c, 'int')} x {N(f'{k}/instant/{f}/{c}/face', f, 'int')}"
                     for f, c in rules.instant_wins) or "none"
    return [f"`{rules.name}`", N(f"{k}/dice", rules.dice, "int"), target, entry, hot,
            crosses, take, last, wins]


def scoring_row(rules: Rules) -> list[str]:
    k = f"rules/{rules.name}/scoring"

    def counts(face):
        values = rules.scoring[face - 1]
        parts = []
        for c, v in enumerate(values, 1):
            if (face, c) in rules.instant_wins:
                parts.append("win")
            elif v:
                parts.append(N(f"{k}/{face}/{c}", v, "pts"))
            else:
                parts.append("-")
        return ", ".join(parts)
    other = rules.scoring[1]
    other_text = ", ".join("-" if v == 0 else N(f"{k}/2/{c}/per-face", v // 2, "pts") + " f"
                           for c, v in enumerate(other, 1))
    straights = "; ".join("-".join(N(f"{k}/straight/{i}/{f}", f, "int") for f in faces)
                          + ": " + N(f"{k}/straight/{i}/points", pts, "pts")
                          for i, (faces, pts) in enumerate(rules.straights)) or "none"
    return [f"`{rules.name}`", counts(1), counts(5), other_text, straights]


# ----------------------------------------------------------------- checks

def brute_zero_rolls(rules: Rules, n: int) -> Fraction:
    """Zero-roll probability of ``n`` dice over all 6**n ordered rolls,
    from the scoring table alone (a roll holds a keep when some face count
    of it scores, or it holds a whole straight)."""
    zero = 0
    for roll in itertools.product(FACES, repeat=n):
        counts = Counter(roll)
        scores = any(any(k <= len(rules.scoring[f - 1]) and rules.scoring[f - 1][k - 1] > 0
                         or (f, k) in rules.instant_wins for k in range(1, c + 1))
                     for f, c in counts.items())
        straight = any(all(counts[f] >= 1 for f in faces) for faces, _ in rules.straights)
        zero += not (scores or straight)
    return Fraction(zero, 6 ** n)


def run_reference_cases() -> list[dict] | None:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import test_reference as ref
    except Exception as error:          # pytest or the reference solver missing
        print(f"reference solver not available: {error}", file=sys.stderr)
        return None
    out = []
    for case in REFERENCE_CASES:
        started = time.perf_counter()
        fast, slow = ref.fast(case), ref.reference(case)
        start_error = ref.start_error(fast, slow)
        take_error = ref.takeover_error(fast, slow) if fast.rules.has_takeover else None
        out.append({"case": case, "rules": fast.rules, "states": fast.space.size,
                    "start_error": start_error, "take_error": take_error,
                    "sweeps": slow.sweeps, "seconds": time.perf_counter() - started})
        print(f"  reference {case}: {start_error:.1e}", file=sys.stderr)
    return out


# ------------------------------------------------------------- simulation

def games_for(game: Game, base: int, quick: bool) -> int:
    n = base if game.solution.space.size <= BIG_STATES else base // BIG_FRACTION
    return max(1000, n // 10) if quick else n


def self_play(game: Game, quick: bool) -> dict:
    rules = game.rules
    n = games_for(game, SELF_PLAY_GAMES, quick)
    one_level = bool(rules.crosses)
    r = simulate(rules, "optimal", "optimal", n, seed=2024, solution=game.solution,
                 one_level=one_level)
    return {"games": n, "rate": r.win_rate_a, "stderr": r.stderr, "unfinished": r.unfinished,
            "turns": r.turns_mean, "seconds": r.seconds, "deep": r.deep_fall_games}


def heuristics(game: Game, quick: bool) -> list[dict]:
    rules = game.rules
    big = game.solution.space.size > BIG_STATES
    n = games_for(game, HEURISTIC_GAMES, quick)
    if big:     # fewer opponents, more games each
        n = n * len(THRESHOLDS["default"]) // len(THRESHOLDS["big"])
    xs = THRESHOLDS["big"] if big else THRESHOLDS.get(rules.dice, THRESHOLDS["default"])
    out = []
    for i, opponent in enumerate([f"threshold:{x}" for x in xs] + ["expected"]):
        first = simulate(rules, "optimal", opponent, n, seed=100 + 2 * i, solution=game.solution,
                         one_level=bool(rules.crosses))
        second = simulate(rules, opponent, "optimal", n, seed=101 + 2 * i,
                          solution=game.solution, one_level=bool(rules.crosses))
        done1, done2 = n - first.unfinished, n - second.unfinished
        wins = first.wins_a + second.wins_b
        p = wins / (done1 + done2)
        out.append({"opponent": opponent, "games": n,
                    "first": first.wins_a / done1, "second": second.wins_b / done2,
                    "both": p, "stderr": math.sqrt(p * (1 - p) / (done1 + done2)),
                    "unfinished": first.unfinished + second.unfinished})
    return out


# ---------------------------------------------------------------- figures

def figure_win_map(figs: Figures, games: list[Game]) -> str:
    import matplotlib.pyplot as plt
    cols = min(3, len(games))
    rows = -(-len(games) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.9 * rows), squeeze=False,
                             layout="constrained")
    for ax, game in zip(axes.flat, games):
        rules, space = game.rules, game.solution.space
        scores = plain_scores(space)
        states = [state_at(space, int(s)) for s in scores]
        grid = score_grid(rules, np.asarray(game.solution.W)[np.ix_(states, states)], scores)
        im = score_mesh(ax, rules, grid, vmin=0, vmax=1, cmap="RdBu_r")
        s = scores * rules.unit
        W = np.asarray(game.solution.W)[np.ix_(states, states)]
        cs = ax.contour(s, s, W, levels=[0.25, 0.5, 0.75], colors="k", linewidths=0.7)
        ax.clabel(cs, fontsize=7)
        ax.set_title(game.label, fontsize=9)
    for ax in list(axes.flat)[len(games):]:
        ax.axis("off")
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability that the mover wins")
    return figs.save(fig, "win-probability",
                     "Probability that the player about to start a turn wins, against the "
                     "scores of both players (crosses 0 where the game has crosses; white: "
                     "scores that cannot occur, below the entry); the contours are drawn at "
                     "one quarter, one half and three quarters.")


def figure_thresholds(figs: Figures, game: Game, situations, xlabel: str, ylabel: str,
                      dice_counts, name: str, caption: str) -> str:
    """One line per score situation: the smallest turn total at which a
    decision flips, per number of dice (bank, or take over)."""
    import matplotlib.pyplot as plt
    rules = game.rules
    fig, ax = plt.subplots(figsize=(5.5, 3.6), layout="constrained")
    for label, me, opp, rule in situations:
        ns = [n for n in rule if rule[n][0] is not None]
        ax.plot(ns, [rule[n][0] * rules.unit for n in ns], "o-",
                label=f"{label}: {_points(me)} vs {_points(opp)}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xticks(dice_counts)
    ax.legend(fontsize=7)
    ax.set_title(game.label, fontsize=9)
    return figs.save(fig, name, caption)


def figure_bank_situations(figs: Figures, game: Game) -> str:
    return figure_thresholds(
        figs, game, game.results["situations"], "dice in hand",
        "smallest turn total banked (points)", range(1, game.rules.dice + 1),
        f"bank-{game.key}",
        f"{game.label}: the smallest turn total at which optimal play banks, "
        "per number of dice in hand, in a few score situations (mover vs "
        "opponent). Below it optimal play rolls on.")


def figure_bank_maps(figs: Figures, game: Game) -> str:
    import matplotlib.pyplot as plt
    rules = game.rules
    maps, step = game.results["maps"]
    ns = [n for n in maps if np.any(maps[n] >= 0)]
    cols = min(3, len(ns))
    rows = -(-len(ns) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.9 * cols, 3.6 * rows), squeeze=False,
                             layout="constrained")
    finite = np.concatenate([maps[n][maps[n] >= 0] for n in ns])
    vmax = float(np.percentile(finite, MAP_PERCENTILE)) if len(finite) else 1
    for ax, n in zip(axes.flat, ns):
        never = np.where(maps[n] < 0, 1.0, np.nan)
        score_mesh(ax, rules, never, vmin=0, vmax=1, cmap="Greys", alpha=0.3)
        im = score_mesh(ax, rules, np.where(maps[n] >= 0, maps[n], np.nan), vmin=0,
                        vmax=vmax, cmap="viridis")
        ax.set_title(f"{n} {dice_word(n)} in hand", fontsize=9)
    for ax in list(axes.flat)[len(ns):]:
        ax.axis("off")
    fig.colorbar(im, ax=axes, shrink=0.8, label="smallest turn total banked (points)")
    fig.suptitle(game.label, fontsize=10)
    return figs.save(fig, f"bank-map-{game.key}",
                     f"{game.label}: the smallest turn total at which optimal play banks, "
                     "against both scores, one panel per number of dice in hand (grey: "
                     "never banks with that many dice, rolling on to win; white: a score "
                     "that cannot occur, below the entry; the "
                     f"colour scale stops at the {N('figures/percentile', MAP_PERCENTILE, 'int')}th "
                     "percentile"
                     + (f"; every {N(f'{game.key}/map_step', step, 'int')}nd reachable score "
                        "replayed, standing for the next" if step == 2 else
                        f"; every {N(f'{game.key}/map_step', step, 'int')}th reachable score "
                        "replayed, standing for those up to the next" if step > 2 else "")
                     + ("; both players without crosses" if rules.crosses else "") + ").")


def figure_takeover(figs: Figures, game: Game) -> str:
    return figure_thresholds(
        figs, game, game.results["take"], "dice offered", "smallest offer taken (points)",
        range(1, game.rules.dice), f"takeover-{game.key}",
        f"{game.label}: the smallest offered turn total that optimal play takes "
        "over, per number of dice offered, in a few situations (taker vs the "
        "banker's new score).")


def figure_house_rules(figs: Figures, rows: list[dict]) -> str:
    import matplotlib.pyplot as plt
    shown = [r for r in rows if r["base"] is not None]
    fig, ax = plt.subplots(figsize=(6.5, 0.4 * len(shown) + 1), layout="constrained")
    labels = [f"{label_of(dataclasses.replace(GAMES[r['family']], target=r['rules'].target))}: "
              f"{r['label']}" for r in shown]
    deltas = [100 * (r["p"] - r["base"]) for r in shown]
    ax.barh(range(len(shown)), deltas, color=["C3" if d < 0 else "C0" for d in deltas])
    ax.set_yticks(range(len(shown)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="k", linewidth=0.7)
    ax.set_xlabel("change of the first player's win probability (percentage points)")
    return figs.save(fig, "house-rules",
                     "What a house rule is worth to the first player: the change of the first "
                     "player's win probability against the game as played, each variant "
                     "solved exactly.")


# --------------------------------------------------------------- the build

def label_of(rules: Rules) -> str:
    return rules.name if rules.target == GAMES.get(rules.name, rules).target \
        else f"{rules.name} to {_points(rules.target)}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "paper")
    parser.add_argument("--quick", action="store_true",
                        help="a tenth of the simulated games and fewer checks")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.quick:                  # a look at the paper in a minute or two
        global SOLVE_BUDGET_SECONDS, QUINZE_REDUCED, DIX_REDUCED, REFERENCE_CASES
        SOLVE_BUDGET_SECONDS /= 6
        QUINZE_REDUCED //= 2
        DIX_REDUCED //= 2
        REFERENCE_CASES = REFERENCE_CASES[:3]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("the paper's figures need matplotlib: pip install \"farkle-solver[paper]\"",
              file=sys.stderr)
        return 2
    figs, tabs = Figures(out), Tables()

    def log(text):
        print(f"[{time.perf_counter() - started:6.1f} s] {text}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------- games
    # Calibrate the solve-time estimate on this machine with a solve that
    # the house-rule comparison needs anyway.
    from solver.solve import estimated_solve_seconds
    forced_rules = dataclasses.replace(GAMES["cinq-mille"], name="cinq-mille-forced",
                                       hot_dice_forced=True,
                                       summary="cinq-mille with hot dice forced")
    solve_game(GAMES["cinq-mille"].with_target(1500))     # loads the compiled kernels
    forced_solution, forced_seconds = timed_solve(forced_rules)
    speed = forced_seconds / estimated_solve_seconds(forced_rules)
    log(f"calibration: {forced_seconds:.1f} s, {speed:.1f} x the estimate")

    games: dict[str, Game] = {}
    missing: dict[str, float] = {}
    for name in ORDER:
        rules = GAMES[name]
        loaded = load_table(rules)
        if loaded is not None:
            solution, info, path = loaded
            games[name] = Game(name, name, rules, solution, "table", path, info,
                               seconds=info["stats"]["seconds"])
            log(f"{name}: table {path}")
            continue
        estimate = estimated_solve_seconds(rules) * speed
        if name not in SOLVE_IF_MISSING or estimate > SOLVE_BUDGET_SECONDS:
            missing[name] = estimate
            log(f"{name}: no table, estimated {estimate:.0f} s: skipped")
            continue
        solution, seconds = timed_solve(rules)
        games[name] = Game(name, name, rules, solution, "solved", seconds=seconds)
        log(f"{name}: solved in {seconds:.1f} s")
    present = [g for g in games.values()]

    # ------------------------------------------------------------ checks
    dice_checks = []
    for name in ("pig", "cinq-mille", "dix-mille", "quinze-mille"):
        rules = GAMES[name]
        for row in odds(rules):
            n = row["dice"]
            brute = brute_zero_rolls(rules, n)
            dice_checks.append({"rules": rules, "n": n, "zero": row["zero"], "brute": brute,
                                "hot": row["hot"], "best": row["best_points"],
                                "rolls": len(rolls(n)),
                                "classes": len(keep_table(rules).roll_prob[n])})
    log("dice checked")
    reference = run_reference_cases()
    log("reference cases done")
    from solver.game import bellman_residual
    for game in present:
        if game.source == "solved":
            game.results["residual"] = bellman_residual(game.solution, samples=200)
        else:
            game.results["residual"] = float(game.info["bellman_residual"])
    for game in present:
        game.results["self"] = self_play(game, args.quick)
        log(f"{game.key}: self-play {game.results['self']['rate']:.4f}")

    # ----------------------------------------------------------- results
    for game in present:
        rules, sol = game.rules, game.solution
        game.results["komi"] = komi(sol)
        reach = reachable(rules, rules.target_units)
        situations = []
        for name, a, b in SITUATIONS:
            m_units, w_units = (0, 0) if name == "start" else \
                (snap(sol.space, rules, a), snap(sol.space, rules, b))
            rule = bank_rule(sol, reach, state_at(sol.space, m_units),
                             state_at(sol.space, w_units))
            situations.append((name, m_units * rules.unit, w_units * rules.unit, rule))
        game.results["situations"] = situations
        game.results["maps"] = bank_maps(sol, reach)
        game.results["heuristics"] = heuristics(game, args.quick)
        log(f"{game.key}: policy and heuristics")

    # ------------------------------------------------------- house rules
    house = []                      # rows: family, label, rules, p, base, komi

    def add(family, label, rules, solution, base, note=""):
        k = komi(solution)
        house.append({"family": family, "label": label, "rules": rules,
                      "p": solution.first_player_win, "base": base, "komi": k,
                      "solution": solution, "note": note,
                      "seconds": solution.stats.get("seconds", 0.0)})

    cm = games.get("cinq-mille")
    cm_base = cm.solution if cm else solve_game(GAMES["cinq-mille"])
    base = cm_base.first_player_win
    add("cinq-mille", "as played", GAMES["cinq-mille"], cm_base, None)
    for name, label in (("cinq-mille-exact", "exactly the target"),
                        ("cinq-mille-last1000", "the last points in one turn")):
        solution = games[name].solution if name in games else solve_game(GAMES[name])
        add("cinq-mille", label, GAMES[name], solution, base)
    add("cinq-mille", "hot dice forced", forced_rules, forced_solution, base)

    q = GAMES["quinze-mille"]
    q_min = q.takeover_min * QUINZE_REDUCED // q.target
    q_red = dataclasses.replace(q, takeover_min=q_min).with_target(QUINZE_REDUCED)
    q_sol, _ = timed_solve(q_red)
    add("quinze-mille", "as played", q_red, q_sol, None)
    for label, rules in (("no take-over", dataclasses.replace(q_red, takeover_min=None)),
                         ("hot dice optional", dataclasses.replace(q_red, hot_dice_forced=False)),
                         ("at least the target", dataclasses.replace(q_red, exact_target=False))):
        add("quinze-mille", label, rules, timed_solve(rules)[0], q_sol.first_player_win)
    log("quinze-mille house rules")
    d = GAMES["dix-mille"].with_target(DIX_REDUCED)
    d_sol, _ = timed_solve(d)
    add("dix-mille", "as played", d, d_sol, None)
    for label, rules in (("no take-over", dataclasses.replace(d, takeover_min=None)),
                         ("no crosses", dataclasses.replace(d, crosses=0)),
                         ("neither", dataclasses.replace(d, takeover_min=None, crosses=0)),
                         ("hot dice optional", dataclasses.replace(d, hot_dice_forced=False))):
        add("dix-mille", label, rules, timed_solve(rules)[0], d_sol.first_player_win)
    log("dix-mille house rules")

    # Take-over figures: the full tables where present, else the reduced games.
    take_games = [g for g in present if g.rules.has_takeover]
    for family, sol in (("quinze-mille", q_sol), ("dix-mille", d_sol)):
        if family not in games:
            take_games.append(Game(f"{family}-{sol.rules.target}", label_of(sol.rules),
                                   sol.rules, sol, "solved"))
    for game in take_games:
        rules, sol = game.rules, game.solution
        offers = reachable(rules, rules.target_units)
        rows = []
        for name, a, b in TAKE_SITUATIONS:
            m_units, w_units = snap(sol.space, rules, a), snap(sol.space, rules, b)
            m = state_at(sol.space, m_units)
            if not sol.space.can_take[m]:
                continue
            rows.append((name, m_units * rules.unit, w_units * rules.unit,
                         take_rule(sol, offers, m, state_at(sol.space, w_units))))
        game.results["take"] = rows

    memory_file = next((ROOT / p for p in MEMORY_RESULTS if (ROOT / p).exists()), None)
    if memory_file is None:         # wherever the measuring script put it
        found = sorted(f for f in ROOT.glob("**/*memory*.json")
                       if not {".git", "build", "paper"} & set(f.relative_to(ROOT).parts))
        memory_file = found[0] if found else None

    # -------------------------------------------------------------- text
    log("writing")
    text = write_paper(present, missing, dice_checks, reference, house, take_games,
                       memory_file, figs, tabs, started, args.quick, d_sol)
    (out / "paper.md").write_text(text)
    seconds = time.perf_counter() - started
    numbers = {"build": {"seconds": seconds, "quick": args.quick, "program_version": __version__,
                         "tables": {g.key: str(g.path.relative_to(ROOT)) if g.path and
                                    g.path.is_relative_to(ROOT) else (str(g.path) if g.path else None)
                                    for g in present if g.source == "table"},
                         "solved": [g.key for g in present if g.source == "solved"],
                         "missing": sorted(missing)},
               "numbers": N.values}
    (out / "numbers.json").write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n")
    stray = stray_digits(text)
    if stray:
        print("digits not from a computed value:", stray[:20], file=sys.stderr)
    make_pdf(out)
    log(f"done: {out / 'paper.md'} ({len(N.values)} numbers, {figs.count} figures)")
    return 0


def stray_digits(text: str) -> list[str]:
    """Digits in the text that no computed number accounts for (a guard
    against a number typed by hand): math, code, figure files, headings'
    section numbers, figure and table numbers, and the references are not
    looked at."""
    body = text.split("\n## References")[0]
    body = re.sub(r"\$\$.*?\$\$", " ", body, flags=re.S)
    body = re.sub(r"\$[^$\n]+\$", " ", body)
    body = re.sub(r"`[^`]*`", " ", body)
    body = re.sub(r"\]\([^)]*\)", "]", body)
    body = re.sub(r"(Figure|Table|Section)s? \d+", " ", body)
    body = re.sub(r"^#+ [\d.]+", "#", body, flags=re.M)
    for name in sorted(GAMES, key=len, reverse=True):
        body = body.replace(name, " ")
    pattern = r"(?<![\w-])[-+]?\d[\d,./]*(?:e[-+]\d+)?"
    tokens = re.findall(pattern, body)
    texts = {t for v in N.values.values() for t in [v["text"]] + re.findall(pattern, v["text"])}
    return [t for t in tokens if t not in texts and t.rstrip(".,") not in texts]


def make_pdf(out: Path) -> None:
    pandoc = shutil.which("pandoc")
    engine = next((e for e in ("xelatex", "lualatex", "pdflatex", "tectonic")
                   if shutil.which(e)), None)
    if not pandoc or not engine:
        return
    subprocess.run([pandoc, "paper.md", "-o", "paper.pdf", f"--pdf-engine={engine}",
                    "--resource-path=."], cwd=out, check=False)


# ------------------------------------------------------------------ paper

def dice_word(n: int) -> str:
    return "die" if n == 1 else "dice"


def pts_or(value, key: str, never: str = "never") -> str:
    return never if value is None else N(key, value, "pts")


def write_paper(present, missing, dice_checks, reference, house, take_games, memory_file,
                figs, tabs, started, quick, d_sol) -> str:
    """The paper's text, section by section; every number through ``N``."""
    S = []                                  # sections
    games = {g.key: g for g in present}
    section = itertools.count(1)

    def head(title):
        return f"## {next(section)} {title}\n"

    def fpw(game):
        return N(f"{game.key}/first_player_win", game.solution.first_player_win, "p")

    # ---------------------------------------------------------- abstract
    S.append("# Optimal play of dix-mille, quinze-mille and cinq-mille\n")
    S.append(f"*farkle-solver `{__version__}`. Built by `scripts/build_paper.py` from the "
             "tables in `tables/` and the simulator: every number in this text is computed "
             "by the build, and `paper/numbers.json` lists them.*\n")
    pig = games.get("pig")
    lines = []
    for g in present:
        if g.key not in ("cinq-mille", "quinze-mille", "dix-mille"):
            continue
        k = g.results["komi"]
        lines.append(f"{g.label} with probability {fpw(g)}"
                     + (f" ({N(f'{g.key}/komi/p', k['p'], 'p')} when the second player starts "
                        f"with {N(f'{g.key}/komi/h', k['h'], 'pts')} points)" if k else ""))
    abstract = (
        "**Abstract.** Dix-mille, quinze-mille and cinq-mille are the French members of the "
        "family of jeopardy dice games that includes Pig and Farkle: a player rolls "
        f"{N('rules/dix-mille/dice', GAMES['dix-mille'].dice, 'int')} or "
        f"{N('rules/quinze-mille/dice', GAMES['quinze-mille'].dice, 'int')} dice, sets scoring dice aside, and either banks the turn's points or rolls the "
        "remaining dice again, losing the turn's points on a roll that scores nothing. Their "
        "house rules add an exact target, an entry threshold, forced or optional hot dice, "
        "crosses that send a player back to an earlier score, and the taking over of the "
        "previous player's points. We compute optimal two-player play for each game by "
        "dynamic programming over every turn start, solving the tie between the two players' "
        "zero-turn values exactly by Newton's method. ")
    if pig:
        abstract += (f"Pig, solved by the same program, comes out at {fpw(pig)}, the published "
                     "value. ")
    if lines:
        abstract += ("Under optimal play the first player wins " + "; ".join(lines) + ". ")
    worth = sorted((r for r in house if r["base"] is not None),
                   key=lambda r: -abs(r["p"] - r["base"]))
    if worth:
        r = worth[0]
        abstract += (f"Of the house rules compared, the one that moves the first player's "
                     f"chance most is {r['family']} with {r['label']} "
                     f"({N(hkey(r, 'delta'), r['p'] - r['base'], 'pp3')} percentage points"
                     + ("" if r["rules"].target == GAMES[r["family"]].target else
                        f", at a target of {N(hkey(r, 'target'), r['rules'].target, 'pts')}")
                     + "). ")
    edges = [(g, min(g.results["heuristics"], key=lambda h: h["both"])) for g in present
             if g.results.get("heuristics")]
    if edges:
        g, h = min(edges, key=lambda e: e[1]["both"])
        opponent = h["opponent"]
        beats_all = all(e["both"] - SIGMAS * e["stderr"] > 0.5 for game in present
                        for e in game.results["heuristics"])
        abstract += ((f"Optimal play beats every simple strategy tried (by more than "
                      f"{N('heur/sigmas', SIGMAS, 'int')} standard errors); its smallest edge is "
                      if beats_all else
                      "Optimal play does not beat every simple strategy tried clearly; its "
                      "smallest edge is ")
                     + f"against `{opponent}` in {g.label}, winning "
                     f"{N(f'{g.key}/heur/{opponent}/both', h['both'], 'p4')} of the games over "
                     "both seatings. ")
    if missing:
        abstract += ("No table yet for " + ", ".join(sorted(missing))
                     + " (Section 6).")
    S.append(abstract + "\n")

    # ------------------------------------------------------ introduction
    S.append(head("Introduction"))
    S.append(
        "Neller and Presser [1] computed optimal play of Pig, the simplest jeopardy dice "
        "game: one die, a 1 loses the turn, and the first player to reach the target wins. "
        "Their method is value iteration over the states (my score, opponent's score, turn "
        "total) of the two-player game, where a state's value is the probability that the "
        "player to move wins when both play to win. Busche and Neller [2] carried the same "
        "approach to Farkle, where several dice are rolled, scoring combinations are set "
        "aside, and a roll with no scoring die ends the turn.\n\n"
        "The French games of this family have more house rules. "
        "Each turn is the same push-your-luck loop, but the targets are often exact (a "
        "keep past the target wastes the turn), a player must enter the score sheet with a "
        "minimum bank, a third consecutive failed turn (a *cross*) may send the player back "
        "to the score before their last bank, and the next player may take over the points "
        "and the dice that the previous player left unset. These rules make the game's "
        "state larger (a take-over needs the turn total and dice of the previous turn, "
        "crosses need the score sheet's history) and break the clean ordering of states "
        "that makes Pig easy (crosses lower a score).\n\n"
        "This paper states the games as they are modelled (Section 2), the method "
        "(Section 3), the checks that the tables are right (Section 4), and what optimal "
        "play looks like and what each house rule is worth (Section 5).\n")

    # ---------------------------------------------------------- the games
    S.append(head("The games and the readings chosen"))
    S.append(
        "The rules are those of the project's rule page `RULES.md`, which closes the gaps of "
        "three French rule sheets. Each game is a value of the data type `solver.rules.Rules`; "
        "no code of the solver tests a game's name. Scores are multiples of a unit of "
        f"{N('unit/farkle', GAMES['cinq-mille'].unit, 'pts')} points "
        f"({N('unit/pig', GAMES['pig'].unit, 'int')} in Pig), and the solver counts in units. "
        f"{tabs.caption('The games (from `solver.rules.GAMES`).')}")
    S.append(table(["game", "dice", "target", "entry", "hot dice", "crosses", "take-over",
                    "last turn", "instant win"],
                   [rules_row(GAMES[name]) for name in ORDER], "lrrrlrrrr") + "\n")
    S.append(
        "A turn rolls the dice in hand. A roll with no legal keep is a *zero roll*: the turn "
        "ends and its points are lost. Otherwise the player sets aside a *keep*, any "
        "sub-multiset of the roll in which every die scores (fewer than the best is allowed), "
        "adds its points to the turn total, and then banks or rolls the dice left. With every "
        "die set aside (*hot dice*) the player has all dice in hand again; in dix-mille and "
        "quinze-mille they must roll them. Combinations count inside one roll only. "
        f"{tabs.peek()} gives the points; f stands for the face's number.\n\n"
        + tabs.caption("Points of a keep: the entries are for one, two, ... dice of a face "
                       "kept from one roll; - is not a legal keep."))
    one, five = (N(f"faces/{f}", f, "int") for f in (FACES[0], FACES[4]))
    others = ", ".join(N(f"faces/{f}", f, "int") for f in FACES if f not in (FACES[0], FACES[4]))
    S.append(table(["game", f"face {one}", f"face {five}", f"faces {others}", "straights"],
                   [scoring_row(GAMES[name]) for name in
                    ("dix-mille", "quinze-mille", "cinq-mille", "pig")], "lllll") + "\n")
    dix, quinze, cinq = GAMES["dix-mille"], GAMES["quinze-mille"], GAMES["cinq-mille"]
    last = GAMES["cinq-mille-last1000"]
    cap = last.target - last.last_turn_points
    win_face, win_count = cinq.instant_wins[0]
    S.append(
        "Where the rule sheets leave a question open, the program reads them as follows "
        "(they are the readings of `RULES.md` and of the project's README):\n\n"
        "- A roll that holds a legal keep must be kept from, even when every keep overshoots "
        "an exact target; the turn then ends as a zero turn.\n"
        f"- In cinq-mille, {N(f'rules/cinq-mille/instant/{win_face}/{win_count}/count', win_count, 'int')} "
        f"dice showing {N(f'rules/cinq-mille/instant/{win_face}/{win_count}/face', win_face, 'int')} in "
        "one roll win the game at once, also before the opening; the player is not asked to "
        "keep fewer dice.\n"
        "- A take-over offer goes to the next player only and lapses if they roll fresh; a "
        "bank with hot dice (no die unset) offers nothing. The taker plays on with their "
        "entry met, and taking over never wins by itself: only a keep can reach the target.\n"
        f"- A dix-mille player who falls back to 0 must enter again "
        f"({N('rules/dix-mille/entry', dix.entry, 'pts')}).\n"
        f"- In cinq-mille-last1000 a bank short of the target at "
        f"{N('rules/cinq-mille-last1000/cap', cap, 'pts')} is allowed and leaves the player "
        "there: the last points must come in one turn.\n"
        "- dix-mille's crosses: a turn without a bank (zero roll or overshoot) is a cross, a "
        f"bank erases them, and at the {N('rules/dix-mille/crosses', dix.crosses, 'int')}rd "
        "consecutive cross the player goes back to the score before their last bank. The "
        "memory is one level deep: after a fall the previous score is the current score, so "
        "a further third cross only erases the crosses (the paper sheet could go back "
        f"further, after {N('rules/dix-mille/deep_fall', 2 * dix.crosses, 'int')} zero turns "
        "in a row; the simulator plays that paper rule, so the "
        f"difference is measured in Section 4). Crosses at score {N('score/zero', 0, 'int')}, "
        "or after a fall, change "
        "nothing, and the solver does not count them.\n"
        f"- quinze-mille's take-over needs a banked score of at least "
        f"{N('rules/quinze-mille/takeover_min', quinze.takeover_min, 'pts')}; dix-mille's, "
        "only an entered player.\n\n"
        "The two-player game: players alternate, the first player moves first, both from 0. "
        "The value of a turn start is the probability that the player to move wins when both "
        "maximise their own probability of winning. The decisions are, at a turn start, to "
        "take over an offer or roll fresh; after a roll, which keep; after a keep, bank or "
        "roll. The headline number of a game is the first player's probability of winning "
        "from (0, 0).\n")

    # -------------------------------------------------------------- method
    S.append(head("Method"))
    S.append(
        "### The turn\n\n"
        "Fix a turn start: the mover in player state $m$, the waiting player in $w$, the "
        "mover $T$ units short of the target, $D$ dice. Let $W[m,w]$ be the mover's win "
        "probability at the turn start. A zero turn is worth $Z = 1 - W[w, z(m)]$, with "
        "$z(m)$ the mover's state after it, and a bank of $t$ with $n$ dice unset is worth\n\n"
        "$$B(t,n) = 1 - \\max\\bigl(W[w,m'],\\; R_{w,m'}(t,n)\\bigr),\\qquad m' = b(m,t),$$\n\n"
        "the second term only where the waiting player may take over ($1 \\le n < D$). "
        "Inside the turn, with turn total $t$ and $n$ dice in hand,\n\n"
        "$$R(t,n) = \\sum_{\\text{rolls } r} p(r)\\, \\max\\Bigl(Z \\text{ if } r "
        "\\text{ has no keep},\\; \\max_{k \\in r} K(t + \\pi_k, n - d_k)\\Bigr),$$\n\n"
        "$$A(t,n) = \\max\\bigl(B(t,n), R(t,n)\\bigr) \\text{ where a bank is allowed, else } "
        "R(t,n),$$\n\n"
        "where $K$ is $1$ for a keep that wins (reaches the target, or an instant win), $Z$ "
        "for a keep past an exact target, $A(t', D)$ after hot dice and $A(t', n')$ "
        "otherwise; and $W[m,w] = R(0, D)$. The turn total only grows, so one pass from the "
        "top turn total down computes the whole turn, given $Z$ and the values of the banks. "
        "Neller and Presser's Pig is the case $D = 1$.\n")
    newton = [(g, g.stats.get("newton_passes_mean"), g.stats.get("newton_passes_max"))
              for g in present if g.stats.get("newton_passes_mean") is not None]
    newton_text = "; ".join(
        f"{g.label} {N(f'{g.key}/cost/newton_mean', mean, 'f2')} on average, at most "
        f"{N(f'{g.key}/cost/newton_max', mx, 'int')}" for g, mean, mx in newton)
    S.append(
        "### Levels and the zero-turn tie\n\n"
        "A bank raises the sum of the two banked scores and a zero turn keeps it (without "
        "crosses). So the turn starts are solved by *levels*, the sum of the scores, from the "
        "top down: every bank a turn reads leads to a higher level, already solved. Inside a "
        "level, the turn starts with the same two scores, $(a, b)$ and $(b, a)$, are tied "
        "only through their zero-turn values: $W_i = f_i(1 - W_{s(i)})$, with $s(i)$ the "
        "zero-turn successor. Each $f_i$ is convex and piecewise linear in its $Z$ (a maximum "
        "of affine functions, one per policy), with slope the probability that the turn ends "
        "in a zero turn. Instead of iterating to a fixed point, the solver applies Newton's "
        "method (policy iteration): linearise each $f_i$ at the current $Z_i$ under the "
        "policy it picks, solve the linear system exactly (each node has one successor, so "
        "it is solved by following the successor pointers and closing each cycle), and "
        "repeat until the policy no longer changes. The number of turn-DP passes per block "
        f"was {newton_text}.\n\n"
        "### Rolls grouped by what their keeps can do\n\n"
        "The turn DP only needs, per roll, the distinct (points, dice used) of its keeps. "
        "Rolls with the same list form one *class*, whose probability is their sum. No keep "
        "is dropped for scoring fewer points than another with the same dice: near an exact "
        "target, or when a smaller bank makes a smaller offer to a player who may take over, "
        "fewer points can be better. "
        + tabs.caption("Distinct rolls of n dice and the roll classes the turn DP goes "
                       "through."))
    rows = []
    for c in dice_checks:
        if c["rules"].name == "pig":
            continue
        k = f"dice/{c['rules'].name}/{c['n']}"
        rows.append([f"`{c['rules'].name}`", N(f"{k}/n", c["n"], "int"),
                     N(f"{k}/rolls", c["rolls"], "int"), N(f"{k}/classes", c["classes"], "int")])
    S.append(table(["game", "dice", "distinct rolls", "roll classes"], rows) + "\n")
    S.append(
        "### Take-over\n\n"
        "The value of a bank that offers $(t, n)$ to a waiting player who may take over "
        "needs their roll values $R_{w,m'}(t, n)$ at the offered total, which belong to a "
        "turn start of a higher level. These are kept while solving, for every player state "
        "that may take over, and stored in the table (`take_values`), since an answer at "
        "the table with an offer needs them.\n")
    crossed = [g for g in present if g.rules.crosses] or []
    sweep_source = crossed[0].solution if crossed else d_sol
    sweep_label = crossed[0].label if crossed else label_of(d_sol.rules)
    sw = sweep_source.stats
    tolerance = (crossed[0].info["tolerance"] if crossed and crossed[0].info else
                 inspect.signature(solve_game).parameters["tol"].default)
    S.append(
        "### Crosses: sweeps\n\n"
        "dix-mille's third cross sends a zero turn to a lower level, whose values are not "
        "known on the way down. The solver then repeats whole top-down sweeps, each starting "
        "from the previous sweep's values, until the distance to the fixed point, bounded "
        "from the shrinking changes of the last sweeps (a contraction's geometric tail), is "
        f"below the tolerance of {N('method/tolerance', tolerance, 'e')}; the backward edges "
        f"need {N('rules/dix-mille/crosses', dix.crosses, 'int')} zero turns in a row, so "
        f"the changes shrink fast. {sweep_label} took "
        f"{N(f'method/sweeps/{sweep_label}', sw['sweeps'], 'int')} sweeps; the first changed "
        f"a value by {N(f'method/first_change/{sweep_label}', sw['sweep_changes'][0], 'e')}, "
        "the last by at most "
        f"{N(f'method/sweep_change/{sweep_label}', sw['sweep_change'], 'e')}"
        + (f", leaving at most {N(f'method/error_bound/{sweep_label}', sw['error_bound'], 'e')} "
           "to the fixed point" if "error_bound" in sw else "")
        + ". Turn starts "
        "whose movers differ only in their crosses share one turn DP, with a lane each.\n")
    from solver.states import memory_space
    exact_states = memory_space(dix).size
    dix_game = games.get("dix-mille")
    model_states = dix_game.solution.space.size if dix_game else None
    reduced_exact = memory_space(d_sol.rules).size
    S.append(
        "### The dix-mille memory model\n\n"
        "The exact state of a dix-mille player is (score, previous score, crosses): "
        f"{N('memory/exact_states', exact_states, 'int')} player states at "
        f"{N('rules/dix-mille/target', dix.target, 'pts')} and "
        f"{N('memory/exact_turn_starts', exact_states ** 2, 'int')} turn starts, out of reach. "
        "The table solves a model that keeps the crosses and forgets the previous score: the "
        "third cross at score $s$ sends the player to a fixed estimate $\\hat p(s)$ of it. "
        "The estimate comes from play, without sampling: solve the game without crosses, "
        "follow the optimal turn of a player at $x$ (against an opponent at $x$) forwards to "
        "get the probability $P(\\text{bank} = t \\mid x)$ of ending the turn by banking "
        "$t$, and average over where a player now at $s$ came from:\n\n"
        "$$\\hat p(s) = \\frac{\\sum_x x\\, P(\\text{bank} = s - x \\mid x)}"
        "{\\sum_x P(\\text{bank} = s - x \\mid x)},$$\n\n"
        "rounded to the nearest score a previous score can be. "
        + (f"The model has {N('memory/model_states', model_states, 'int')} player states "
           f"at the full target. " if model_states else
           "(The full dix-mille table is not in `tables/` yet, so the model's size at the full "
           "target is not reported here.) ")
        + f"At the reduced target of {N('house/dix-mille/target', d_sol.rules.target, 'pts')} "
        f"used in Section 5 the model has {N('memory/reduced_model_states', d_sol.space.size, 'int')} "
        f"player states against {N('memory/reduced_exact_states', reduced_exact, 'int')} exact "
        "ones. Advice for a real position uses the true previous score one turn ahead: the "
        "zero-turn value of a player on their last cross is that of falling to their true "
        "previous score.\n")
    # cost table
    rows = []
    for g in present:
        st, k = g.stats, f"{g.key}/cost"
        P = g.solution.space.size
        take = g.solution.take_values
        take_bytes = int(np.prod(take.shape)) * 8 if np.any(g.solution.take_row >= 0) else 0
        rows.append([g.label,
                     N(f"{k}/states", P, "int"),
                     N(f"{k}/turn_starts", st.get("turn_starts", P * P), "int"),
                     N(f"{k}/turn_dp_runs", st["turn_dp_runs"], "int"),
                     N(f"{k}/keep_evaluations", st["keep_evaluations"], "int"),
                     N(f"{k}/sweeps", st["sweeps"], "int"),
                     N(f"{k}/seconds", st["seconds"], "s"),
                     N(f"{k}/W_bytes", P * P * 8, "mb"),
                     N(f"{k}/take_bytes", take_bytes, "mb") if take_bytes else "-",
                     N(f"{k}/file_bytes", g.info["bytes"], "mb") if g.info else "(not written)"])
    S.append(
        "### Cost\n\n"
        f"{tabs.peek()} gives the size of each solved game and what its solve cost: player states "
        "(per player), turn starts (pairs of player states), turn-DP runs (a Newton pass of "
        "one turn start), keep evaluations (rows of the turn DP times keeps per row), sweeps "
        "and seconds of the solve (for a table, on the machine that made it), and the memory "
        "of the values held (the start values $W$ and, with take-over, the take-over values, "
        "in double precision) and of the table file (gzip). The solver is compiled with numba and "
        "runs the blocks of a level in parallel.\n\n"
        + tabs.caption("Size and cost of each solve (MB: a million bytes)."))
    S.append(table(["game", "player states", "turn starts", "turn-DP runs", "keep evaluations",
                    "sweeps", "seconds", "W (MB)", "take-over (MB)", "file (MB)"], rows) + "\n")

    # ---------------------------------------------------------- correctness
    S.append(head("Correctness"))
    families = sorted({c["rules"].name for c in dice_checks}, key=lambda x: ORDER.index(x))
    agree = all(c["zero"] == c["brute"] for c in dice_checks)
    rows = []
    for c in dice_checks:
        k = f"dice/{c['rules'].name}/{c['n']}"
        rows.append([f"`{c['rules'].name}`", N(f"{k}/n", c["n"], "int"),
                     N(f"{k}/ordered", 6 ** c["n"], "int"),
                     N(f"{k}/zero", c["zero"], "frac"), N(f"{k}/zero_p", float(c["zero"]), "p4"),
                     N(f"{k}/hot", c["hot"], "frac"),
                     N(f"{k}/best", float(c["best"]), "f2")])
    S.append(
        "### Dice\n\n"
        "The dice engine lists the distinct rolls of $n$ dice with their multinomial "
        "probabilities and the legal keeps of each. The test suite checks both against brute "
        "force over all $6^n$ ordered rolls and all $2^n$ subsets of their dice, for every "
        "game (`tests/test_dice.py`). This build checks the zero-roll probabilities once more, "
        "counting the ordered rolls in which no face count scores and no straight is present: "
        + ("they agree with the engine's for every game and number of dice." if agree else
           f"**they disagree with the engine's** (see {tabs.peek()}).")
        + f" {tabs.peek()} gives them, with the probability of hot dice and the expected points of "
        "the best single keep.\n\n"
        + tabs.caption("The dice of each scoring (" + ", ".join(families) + "): zero roll, hot "
                       "dice, expected points of the best keep."))
    S.append(table(["scoring", "dice", "ordered rolls", "zero roll", "(decimal)", "hot dice",
                    "best keep (points)"], rows) + "\n")
    if pig:
        ours = pig.solution.first_player_win
        same = abs(ours - PUBLISHED_PIG) < 5e-8
        S.append(
            "### Pig\n\n"
            f"Pig to {N('rules/pig/target', GAMES['pig'].target, 'pts')} is the same engine with "
            f"one die. Its table gives the first player {fpw(pig)}; Neller and Presser "
            f"published {N('pig/published', PUBLISHED_PIG, 'p')} [1]. "
            + ("The two agree to the published digits." if same else
               "**The two differ.**") + "\n")
    if reference:
        rows = []
        for r in reference:
            k = f"reference/{r['case']}"
            rows.append([f"`{r['case']}`", N(f"{k}/states", r["states"], "int"),
                         N(f"{k}/sweeps", r["sweeps"], "int"),
                         N(f"{k}/start_error", r["start_error"], "e"),
                         "-" if r["take_error"] is None else N(f"{k}/take_error", r["take_error"], "e")])
        worst = max(max(r["start_error"], r["take_error"] or 0) for r in reference)
        S.append(
            "### An independent simple solver\n\n"
            "`tests/reference_solver.py` is written from `RULES.md` alone and shares none of "
            "the fast solver's structure: no levels, no blocks, no Newton step, no grouped "
            "rolls, its own score-sheet lines (for dix-mille with the exact memory: score, "
            "previous score and crosses, literally), and plain value iteration over every "
            "state until the largest change is below the tolerance. The test suite compares "
            "the two at every turn start and every take-over value on small targets of every "
            f"game; this build re-ran the cases of {tabs.peek()}. The largest difference is "
            f"{N('reference/worst', worst, 'e')}.\n\n"
            + tabs.caption("The fast solver against the simple one: player states of the fast "
                           "solver, sweeps of the simple one, largest difference of a start value "
                           "and of a take-over value."))
        S.append(table(["case", "states", "reference sweeps", "start values", "take-over values"],
                       rows) + "\n")
    else:
        S.append("### An independent simple solver\n\n`tests/reference_solver.py` is compared "
                 "with the fast solver by `tests/test_reference.py`; it could not be run by this "
                 "build (pytest is missing).\n")
    rows = [[g.label, N(f"{g.key}/residual", g.results["residual"], "e"),
             "table" if g.source == "table" else "this build"] for g in present]
    S.append(
        "### Bellman residuals\n\n"
        "A table's values are replayed at the game start and a few hundred random turn "
        "starts with the numpy version of the turn DP, an implementation independent of the "
        "compiled kernel that solved the game; the residual is the largest difference from "
        "the stored value (start values and take-over values).\n\n"
        + tabs.caption("Largest Bellman residual of each solved game."))
    S.append(table(["game", "residual", "computed by"], rows, "lrl") + "\n")
    rows = []
    for g in present:
        r, k = g.results["self"], f"{g.key}/self"
        z = (r["rate"] - g.solution.first_player_win) / r["stderr"]
        g.results["self"]["z"] = z
        rows.append([g.label, N(f"{k}/games", r["games"], "int"),
                     N(f"{k}/rate", r["rate"], "p4") + " ± " + N(f"{k}/stderr", r["stderr"], "p4"),
                     fpw(g), N(f"{k}/z", z, "z"), N(f"{k}/turns", r["turns"], "f2")])
    worst_z = max((abs(g.results["self"]["z"]) for g in present), default=0)
    S.append(
        "### Simulation\n\n"
        "`solver.simulate` plays whole games with thrown dice under the full rules. It "
        "reads `RULES.md`, not the solver: it has its own turn loop and score sheets and "
        "shares only the dice engine, and the optimal policy reads its decisions from the "
        "table one turn start at a time. Optimal self-play should win for the first player "
        f"as often as the table says. {tabs.peek()} gives the simulated rate with its binomial "
        "standard error, the table's value and the difference in standard errors; the "
        f"largest is {N('self/worst_z', worst_z, 'f1')}.\n\n"
        + tabs.caption("Optimal self-play: the first player's simulated win rate against the "
                       "table; z = difference / standard error; mean turns per game."))
    S.append(table(["game", "games", "simulated", "table", "z", "turns"], rows) + "\n")
    if any(g.rules.crosses for g in present):
        S.append("With crosses the simulation plays the one-level memory of `RULES.md`; the "
                 "optimal player uses the model's table with the exact one-turn look-ahead, so "
                 "the difference from the table measures the model as well as the table.\n")

    # ------------------------------------------------------------- results
    S.append(head("Results"))
    rows = []
    for g in present:
        kk, k = g.results["komi"], f"{g.key}/komi"
        if kk:
            rows.append([g.label, fpw(g), N(f"{k}/h", kk["h"], "pts"), N(f"{k}/p", kk["p"], "p"),
                         N(f"{k}/h_before", kk["h_before"], "pts"),
                         N(f"{k}/p_before", kk["p_before"], "p")])
        else:
            rows.append([g.label, fpw(g), "none", "-", "-", "-"])
    ahead = [g for g in present if g.solution.first_player_win > 0.5]
    entry_komi = [g for g in present if g.results["komi"] and g.rules.entry
                  and g.results["komi"]["h"] == g.rules.entry]
    S.append(
        "### The first player's advantage\n\n"
        + ("Moving first is an advantage in every game. " if len(ahead) == len(present) else
           "Moving first is an advantage in " + ", ".join(g.label for g in ahead) + ". ")
        + "A fair game gives the second player a "
        "head start, the *komi*: the smallest reachable score $h$ such that the first player, "
        "to move at 0 against an opponent at $h$, wins with probability at most one half. "
        f"{tabs.peek()} gives $h$ with the first player's probability at $h$ and at the next "
        "smaller reachable score, so the fair head start lies between the two.\n\n"
        + ("Where the smallest score above 0 is the entry ("
           + ", ".join(g.label for g in entry_komi) + "), no head start is fair: the smallest, "
           "the entry itself, already turns the advantage round, and the fair head start "
           "lies between 0 and the entry. " if entry_komi else "")
        + tabs.caption("The first player's win probability, and the head start that makes the "
                       "game fair."))
    S.append(table(["game", "first player wins", "head start h", "first player at h",
                    "next smaller score", "first player there"], rows) + "\n")
    S.append(figure_win_map(figs, present) + "\n")

    S.append("### When to bank\n\n"
             "For each game and a few score situations, the tables and figures below give the "
             "smallest turn total (among those some play can reach) at which optimal play "
             "banks, per number of dice in hand. A star marks a rule that is not a clean "
             "threshold: at some larger reachable turn total optimal play rolls on although it "
             "could bank (near an exact target, a total just short of it may be worth a roll, "
             "and in take-over games a bank with few dice left makes a dangerous offer). "
             "Where hot dice are forced there is no bank with every die in hand (-); "
             "\"never\" is a turn played on to the target or to a zero turn.\n")
    for g in present:
        D = g.rules.dice
        rows = []
        for name, me, opp, rule in g.results["situations"]:
            k = f"{g.key}/bank/{name}"
            cells = []
            for n in range(1, D + 1):
                t, above = rule[n]
                if n == D and g.rules.hot_dice_forced:
                    cells.append("-")
                    continue
                cell = pts_or(None if t is None else t * g.rules.unit, f"{k}/{n}")
                if above:
                    cell += "*"
                cells.append(cell)
            rows.append([f"{name} ({N(f'{k}/me', me, 'pts')} vs {N(f'{k}/opp', opp, 'pts')})"]
                        + cells)
        S.append(tabs.caption(f"{g.label}: smallest turn total banked, by dice in hand."))
        S.append(table(["situation"] + [f"{n} {dice_word(n)}" for n in range(1, D + 1)], rows)
                 + "\n")
        if D > 1:
            S.append(figure_bank_situations(figs, g) + "\n")
        S.append(figure_bank_maps(figs, g) + "\n")

    if take_games:
        S.append("### Taking over\n\n"
                 "A player who may take over starts their turn either fresh, with every die and "
                 "no points, or with the previous player's turn total and unset dice. Optimal "
                 "play takes an offer $(t, n)$ when $R(t, n) > W$, the value of a fresh turn. "
                 "The tables and figures below give the smallest offer taken per number of dice "
                 "offered (a star: some larger offer, one that the banker's score allows and that "
                 "is short of the taker's target, is left).\n")
        for g in take_games:
            rows = []
            for name, me, opp, rule in g.results.get("take", []):
                k = f"{g.key}/take/{name}"
                cells = []
                for n in range(1, g.rules.dice):
                    t, above = rule[n]
                    cells.append(pts_or(None if t is None else t * g.rules.unit, f"{k}/{n}")
                                 + ("*" if above else ""))
                rows.append([f"{name} ({N(f'{k}/me', me, 'pts')} vs {N(f'{k}/opp', opp, 'pts')})"]
                            + cells)
            if not rows:
                continue
            note = "" if g.source == "table" else (
                " (solved by this build at a reduced target: the full table is missing)")
            S.append(tabs.caption(f"{g.label}: smallest offer taken over, by dice offered"
                                  f"{note}."))
            S.append(table(["situation (taker vs banker)"]
                           + [f"{n} {dice_word(n)}" for n in range(1, g.rules.dice)], rows) + "\n")
            S.append(figure_takeover(figs, g) + "\n")

    strongest = {g.label: min(g.results["heuristics"], key=lambda h: h["both"])["opponent"]
                 for g in present}
    kinds = sorted(set(strongest.values()))
    strongest_note = (
        (f"The strongest of them is `{kinds[0]}` in every game." if len(kinds) == 1 else
         "The strongest of them: " + "; ".join(f"{label} `{o}`" for label, o in
                                               strongest.items()) + ".")
        if strongest else "")
    S.append("### Optimal play against simple strategies\n\n"
             "`threshold:X` banks as soon as the turn total is at least X (and the bank is "
             "legal) and keeps the most points; `expected` maximises the expected points "
             "banked this turn, ignoring both scores. Each plays the optimal player in both "
             "seatings, so that the first player's edge cancels; the last column is the "
             "optimal player's win rate over both, with its standard error. "
             + strongest_note + "\n")
    for g in present:
        rows = []
        for h in g.results["heuristics"]:
            k = f"{g.key}/heur/{h['opponent']}"
            rows.append([f"`{h['opponent']}`", N(f"{k}/games", h["games"], "int"),
                         N(f"{k}/first", h["first"], "p4"), N(f"{k}/second", h["second"], "p4"),
                         N(f"{k}/both", h["both"], "p4") + " ± " + N(f"{k}/stderr", h["stderr"], "p4")])
        S.append(tabs.caption(f"{g.label}: the optimal player's win rate against simple "
                              "strategies (games per seating)."))
        S.append(table(["opponent", "games", "optimal first", "optimal second", "both"], rows)
                 + "\n")

    # house rules
    rows = []
    for r in house:
        rules = r["rules"]
        kk = r["komi"]
        rows.append([r["family"], r["label"], N(hkey(r, "target"), rules.target, "pts"),
                     N(hkey(r, "p"), r["p"], "p"),
                     "-" if r["base"] is None else N(hkey(r, "delta"), r["p"] - r["base"], "pp3")])
    q_red = next(r["rules"] for r in house if r["family"] == "quinze-mille")
    full = [g for g in present if g.key in ("quinze-mille", "dix-mille")]
    full_note = (" At the full targets each variant would cost a solve as long as the "
                 "table's (" + ", ".join(
                     f"{g.label} {N(f'{g.key}/cost/seconds', g.stats['seconds'], 's')} s"
                     for g in full) + " on the machine that made it), beyond this build's "
                 "budget." if full else "")
    S.append(
        "### What each house rule is worth\n\n"
        "Each variant below is a `Rules` value that differs from the game as played in one "
        "field, solved exactly. cinq-mille's variants are solved at its full target. "
        "quinze-mille and dix-mille are compared at reduced targets, where a solve takes "
        f"seconds: quinze-mille at {N('house/quinze-mille/target', q_red.target, 'pts')}, "
        "with the take-over minimum scaled in proportion to "
        f"{N('house/quinze-mille/takeover_min', q_red.takeover_min, 'pts')}, and dix-mille "
        f"at {N('house/dix-mille/target', d_sol.rules.target, 'pts')} (with the crosses "
        "model). The change is in percentage points of the first player's win probability."
        + full_note + "\n\n"
        + tabs.caption("The first player's win probability under each house rule."))
    S.append(table(["game", "variant", "target", "first player wins", "change (pp)"],
                   rows, "llrrr") + "\n")
    S.append(figure_house_rules(figs, house) + "\n")

    S.append("### dix-mille: the memory model and its cost\n\n")
    if memory_file is not None:
        data = json.loads(memory_file.read_text())
        flat = []

        def walk(prefix, value):
            if isinstance(value, dict):
                for key, v in value.items():
                    walk(f"{prefix}/{key}" if prefix else str(key), v)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    walk(f"{prefix}/{i}", v)
            elif isinstance(value, bool) or value is None or isinstance(value, str):
                flat.append((prefix, str(value)))
            elif isinstance(value, int):
                flat.append((prefix, N(f"memory_results/{prefix}", value, "int")))
            elif isinstance(value, float):
                flat.append((prefix, N(f"memory_results/{prefix}",
                                       value, "p" if 0 <= abs(value) <= 1 else "f2")))
        walk("", data)
        S.append(f"The measurement of `scripts/measure_memory_model.py` "
                 f"(`{memory_file.relative_to(ROOT)}`), as it wrote it:\n\n"
                 + table(["quantity", "value"], [[f"`{a}`", b] for a, b in flat], "lr") + "\n")
    else:
        S.append("> **Measurement not included.** `scripts/measure_memory_model.py` measures what "
                 "the model costs: its decisions and win rates against the exact memory at small "
                 "targets, and by simulation under the full rule. Its results are in the README "
                 "(section *dix-mille: crosses and the previous score*); this build found no "
                 "results file to read them from.\n")

    # ------------------------------------------------------------- missing
    S.append(head("What is missing"))
    items = []
    for name in ORDER:
        if name in missing:
            reduced = {"quinze-mille": "Its house rules and take-over are studied above at a "
                                       "reduced target.",
                       "dix-mille": "Its house rules, crosses and take-over are studied above "
                                    "at a reduced target."}.get(name, "It is not in this paper.")
            items.append(
                f"- `{name}`: no table in `tables/`. Solving it would take about "
                f"{N(f'missing/{name}/estimate', missing[name], 'dur')} on this machine "
                "(the solve-time estimate of `farkle solve`, calibrated by a solve of this "
                "build), too long for this build"
                + (f" (budget {N('build/budget', SOLVE_BUDGET_SECONDS, 'dur')})"
                   if name in SOLVE_IF_MISSING else "") + "; "
                f"`python scripts/make_tables.py {name}` makes it. {reduced}")
    solved_here = [g for g in present if g.source == "solved"]
    if solved_here:
        items.append("- Solved by this build because their table is missing (not written to "
                     "`tables/`): " + ", ".join(f"`{g.key}`" for g in solved_here) + ".")
    if quick:
        items.append("- **This is a quick build**: a tenth of the simulated games, fewer "
                     "reference cases.")
    if memory_file is None:
        items.append("- The measured cost of the dix-mille memory model (README).")
    big = [g for g in present if g.solution.space.size > BIG_STATES]
    if big:
        g = big[0]
        items.append(
            "- Fewer simulated games for " + ", ".join(x.label for x in big) + " ("
            f"{N(f'{g.key}/self/games', g.results['self']['games'], 'int')} in self-play, "
            f"{N(f'{g.key}/heur/games', g.results['heuristics'][0]['games'], 'int')} per "
            "seating against each of fewer simple strategies): every new turn start of the "
            "optimal "
            "player replays a turn from the table, and these tables have many.")
    if any(g.key in ("quinze-mille", "dix-mille") for g in present):
        items.append("- The house rules of quinze-mille and dix-mille at their full targets "
                     "(Section 5 compares them at reduced targets).")
    S.append("\n".join(items) + ("\n" if items else "Nothing: every game has its table.\n"))
    build = time.perf_counter() - started
    S.append(f"\nThis build took {N('build/seconds_text', build, 's')} s up to this "
             "sentence.\n")

    S.append("\n## References\n\n"
             "[1] Todd W. Neller and Clifton G.M. Presser. Optimal Play of the Dice Game Pig. "
             "*The UMAP Journal* 25(1), 2004.\n\n"
             "[2] Matthew Busche and Todd W. Neller. Optimal Play of the Farkle Dice Game. In "
             "*Advances in Computer Games* (ACG 2017), Lecture Notes in Computer Science "
             "10664, Springer, 2017.\n")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(S))


def hkey(row: dict, what: str) -> str:
    return f"house/{row['family']}/{row['label']}/{what}"

if __name__ == "__main__":
    sys.exit(main())
