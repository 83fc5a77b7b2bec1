"""Build the paper (paper/paper.md, its figures and paper/numbers.json) from
the solved tables, the solver and the simulator. Run from the repository's
root:

    python -m paper.builder              # the paper, in paper/
    python -m paper.builder --quick      # a tenth of the games, for a look
    python -m paper.builder --out DIR    # somewhere else

This module is the driver: it loads the games (a table in ``tables/``, or a
solve here when the table is missing and the solve is short), runs the
checks and the simulations, asks :mod:`solver.study.analysis` for every result
(fair head start, bank and take-over intervals, banking maps, house-rule
variants), and fills ``paper/template.md`` with the passages of
:mod:`paper.builder.text` and :mod:`paper.builder.sections` and the figures
of :mod:`paper.builder.figures`. Every number goes through
:class:`paper.builder.format.Numbers`, which writes it to ``numbers.json``
(key -> value and the text printed), so that ``tests/test_paper.py`` can
check the paper against the tables without rebuilding it. House-rule
variants and the exact-memory checks are solved once and kept in
``paper/cache/`` (:mod:`paper.builder.cache`; ``python -m
paper.builder.cache`` beforehand solves the slow ones in the background).

Figures need matplotlib (``pip install "farkle-solver[paper]"``); the PDF
beside the Markdown (:mod:`paper.builder.pdf`) needs Debian's headless
Chromium too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paper.builder import cache, pdf, sections
from paper.builder.checks import dice_checks, run_reference_cases
from paper.builder.format import Numbers, Tables, fill, stray_digits
from solver import __version__
from solver.cards.store import stored_cards
from solver.engine.solution import Solution
from solver.model.rules import GAMES, Rules
from solver.sim.simulate import match, simulate
from solver.study import analysis
from solver.tables.estimates import estimated_solve_seconds
from solver.tables.files import read_info, read_table
from solver.tables.machine import machine
from solver.tables.make import solve_game
from solver.tables.paths import default_path, table_name
from solver.text import set_language

ROOT = Path(__file__).resolve().parents[2]
"""The repository: the builder reads ``tables/``, ``tests/`` and
``paper/template.md`` there and writes ``paper/``."""

# ------------------------------------------------------------- parameters
# Parameters of the experiments (how many games, which heuristics, which
# situations), not results: every result is computed below.

ORDER = ["pig", "cinq-mille", "cinq-mille-exact", "cinq-mille-last1000",
         "cinq-mille-10000", "quinze-mille", "dix-mille"]
RULE_ROWS = ORDER + ["quinze-mille-free-keep", "dix-mille-free-keep"]
def paper_cards() -> dict:
    """The stored cards of the games the paper studies (RULE_ROWS): the
    Farkle games' cards (issue 67) wait for the paper's own issue."""
    return {name: entry for name, entry in stored_cards().items() if name in RULE_ROWS}


SOLVE_BUDGET_SECONDS = 300.0
"""A game or variant without a table or cache entry is solved here when its
estimated solve time (``estimated_solve_seconds``) is below this."""
SELF_PLAY_GAMES = 100_000
SELF_PLAY_MAIN = 200_000
"""Self-play games of the three French games (issue 69: a standard error of
about 0.1 point); the others play SELF_PLAY_GAMES."""
MAIN = ("cinq-mille", "quinze-mille", "dix-mille")
HEURISTIC_GAMES = 20_000
"""Games per seating of optimal play against each heuristic."""
BIG_STATES = 200
BIG_FRACTION = 20
"""Tables with more player states than BIG_STATES play 1/BIG_FRACTION of the
games: each new turn start of the optimal player replays a turn."""
MAP_AXIS = 150
"""The banking maps replay at most this many scores per axis (every k-th)."""
THRESHOLDS = {1: (15, 20, 25, 30), "default": (300, 500, 1000), "big": (500,)}
SITUATIONS = [("start", 0.0, 0.0), ("level", 0.4, 0.4), ("behind", 0.4, 0.8),
              ("ahead", 0.8, 0.4), ("both near the end", 0.9, 0.9)]
"""(name, my score, opponent's score) as fractions of the target, moved to
the nearest score a player can hold."""
TAKE_SITUATIONS = [("taker behind", 0.5, 0.8), ("level", 0.6, 0.6),
                   ("taker ahead", 0.8, 0.5)]
SIGMAS = 3
"""A simulated difference counts when it exceeds this many standard errors."""
REFERENCE_CASES = ["pig-30", "cinq-mille-1500", "cinq-mille-exact-1500",
                   "cinq-mille-last1000-1500", "quinze-mille-2000",
                   "quinze-mille-takeover500-2000", "dix-mille-nocross-1000", "dix-mille-700"]
"""Cases of tests/test_reference.py re-run here (the fast ones)."""
MODEL_CHECK_TARGETS = (700, 1000, 1500, 2500)
"""dix-mille as played, exact memory against the crosses model."""
MEMORY_RESULTS = ROOT / "paper" / "memory_model.json"
"""What scripts/measure_memory_model.py measured."""
PLAYERS_RESULTS = ROOT / "paper" / "players.json"
"""What scripts/measure_players.py measured."""
FAIR_START_RESULTS = ROOT / "paper" / "fair_start.json"
"""What scripts/measure_fair_start.py measured."""


def seed_of(run: str) -> int:
    """Each simulation its own seed, fixed by the run's name."""
    return zlib.crc32(run.encode()) % 2 ** 31


# ------------------------------------------------------------------ games

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
    results: dict = field(default_factory=dict)

    @property
    def stats(self) -> dict:
        return self.solution.stats


class RowCache:
    """Take-over values read from HDF5 a row (one taker) at a time, the last
    few rows kept: ``Solution.take_values`` for a table too big to load."""

    def __init__(self, dataset, max_bytes: int = 400 * 2 ** 20):
        self.dataset, self.shape = dataset, dataset.shape
        self.max_rows = max(1, max_bytes // max(int(np.prod(dataset.shape[1:])) * 8, 1))
        self.rows: dict[int, np.ndarray] = {}

    def __getitem__(self, key):
        row, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
        data = self.rows.pop(int(row), None)
        if data is None:
            data = self.dataset[int(row)]
            if len(self.rows) >= self.max_rows:
                self.rows.pop(next(iter(self.rows)))
        self.rows[int(row)] = data
        return data[rest] if rest else data


def available_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2 ** 31


def load_game(name: str, log) -> tuple[Game | None, float | None]:
    """The game from its table, or solved here if that is short; else
    ``(None, estimated seconds)``."""
    rules = GAMES[name]
    game = table_game(name, log)
    if game is not None:
        return game, None
    estimate = estimated_solve_seconds(rules)
    if estimate > SOLVE_BUDGET_SECONDS:
        log(f"{name}: no table, estimated {estimate:.0f} s: skipped")
        return None, estimate
    solution = solve_game(rules)
    log(f"{name}: solved in {solution.stats['seconds']:.1f} s")
    return Game(name, label_of(rules), rules, solution, "solved"), None


def table_game(name: str, log) -> Game | None:
    """The game from its table, if one is on this machine."""
    rules = GAMES[name]
    # The repository's tables first (tests/test_paper.py checks the paper
    # against them), then where farkle writes the big ones it makes.
    path = ROOT / "tables" / table_name(rules)
    if not path.exists():
        path = default_path(rules)
    if not path.exists() or stale(path, rules, log):
        return None
    info = read_info(path)
    take = info["datasets"].get("take_codes") or info["datasets"].get("take_values")
    take_bytes = int(np.prod(take["shape"])) * 8 if take else 0
    solution = read_table(path, expect=rules, lazy_take=take_bytes > available_bytes() // 3)
    if not isinstance(solution.take_values, np.ndarray):
        solution.take_values = RowCache(solution.take_values)
    log(f"{name}: table {path}")
    return Game(name, label_of(rules), rules, solution, "table", path, info)


def label_of(rules: Rules) -> str:
    """How the paper names a game: with crosses, the tables hold the crosses
    model, not the exact game, and the label says so."""
    return rules.name + (" (crosses model)" if rules.crosses else "")


def stale(path: Path, rules: Rules, log) -> bool:
    """A table this program cannot read (an older format): treated as
    missing, with the reason in the log."""
    from solver.model.errors import UsageError
    try:
        read_table(path, expect=rules, lazy_take=True)
    except UsageError as error:
        log(f"{rules.name}: {error}")
        return True
    return False


# ------------------------------------------------------------- simulation

def games_for(game: Game, base: int, quick: bool) -> int:
    n = base if game.solution.space.size <= BIG_STATES else base // BIG_FRACTION
    return max(1000, n // 10) if quick else n


def self_play(game: Game, quick: bool, play_missing: bool = False) -> dict:
    """Optimal self-play of the game, from the cache where it was played
    (``python -m paper.builder.cache --self-play GAME``). A French game
    plays SELF_PLAY_MAIN games; where those are not cached and the table is
    big (each new turn start of the optimal player replays a turn: most of
    an hour), the build plays the smaller count of before unless
    ``play_missing``, and the result says so (``short``)."""
    full = SELF_PLAY_MAIN if game.key in MAIN else SELF_PLAY_GAMES
    big = game.solution.space.size > BIG_STATES
    n = max(1000, full // (10 * (BIG_FRACTION if big else 1))) if quick else full
    seed = seed_of(f"{game.key}/self-play")
    fpw = game.solution.first_player_win
    hit = cache.cached_self_play(game.rules, n, seed, fpw)
    short = None
    if hit is None and not quick and not play_missing and big:
        short, n = n, games_for(game, SELF_PLAY_GAMES, quick)
        hit = cache.cached_self_play(game.rules, n, seed, fpw)
    if hit is None:
        # The tables solve docs/rules.md's one-level memory; self-play checks
        # them under that rule (Appendix H measures the paper sheet).
        r = simulate(game.rules, "optimal", "optimal", n, seed=seed, solution=game.solution,
                     one_level=bool(game.rules.crosses))
        hit = {"games": n, "rate": r.win_rate_a, "stderr": r.stderr, "turns": r.turns_mean,
               "seed": seed, "deep": r.deep_fall_games}
        cache.store_self_play(game.rules, n, seed, fpw, hit)
    return {**hit, "z": (hit["rate"] - fpw) / hit["stderr"], "short_of": short}


def heuristics(game: Game, quick: bool) -> list[dict]:
    rules = game.rules
    big = game.solution.space.size > BIG_STATES
    n = games_for(game, HEURISTIC_GAMES, quick)
    if big:                                 # fewer opponents, more games each
        n = n * len(THRESHOLDS["default"]) // len(THRESHOLDS["big"])
    xs = THRESHOLDS["big"] if big else THRESHOLDS.get(rules.dice, THRESHOLDS["default"])
    out = []
    for opponent in [f"threshold:{x}" for x in xs] + ["expected"]:
        seed = seed_of(f"{game.key}/optimal against {opponent}")
        # Both seatings on common dice: the two halves share their luck.
        r = match(rules, "optimal", opponent, n, seed=seed, solution=game.solution,
                  one_level=bool(rules.crosses))
        out.append({"opponent": opponent, "games": n, "first": r.win_first,
                    "second": r.win_second, "both": r.win_mean, "stderr": r.win_mean_se,
                    "seeds": (seed,), "common_dice": True})
    return out


# --------------------------------------------------------------- analysis

def situations(sol: Solution, spec, decide) -> list:
    """(name, my points, opponent's points, rules per dice) per situation;
    ``decide(sol, m, w)`` gives the rules (None: the question is not asked)."""
    out = []
    for name, a, b in spec:
        me, opp = ((0, 0) if a == b == 0 else
                   (analysis.nearest_score(sol, a), analysis.nearest_score(sol, b)))
        m, w = analysis.state_at(sol.space, me), analysis.state_at(sol.space, opp)
        rule = decide(sol, m, w)
        if rule is not None:
            out.append((name, me * sol.rules.unit, opp * sol.rules.unit, rule))
    return out


def analyse(game: Game, quick: bool, log) -> None:
    sol, rules = game.solution, game.rules
    game.results["komi"] = analysis.komi(sol)
    game.results["bank"] = situations(sol, SITUATIONS, analysis.bank_rules)
    scores, smallest, threshold, step = analysis.bank_maps(sol, MAP_AXIS // (3 if quick else 1))
    game.results["maps"] = (scores, smallest, threshold, step)
    banks = [smallest[n] >= 0 for n in smallest]
    game.results["not_threshold"] = (
        sum(int(np.count_nonzero(b & ~threshold[n])) for n, b in zip(smallest, banks)),
        sum(int(np.count_nonzero(b)) for b in banks))
    if rules.has_takeover and rules.exact_target:
        game.results["unusable"] = analysis.unusable_banks(rules, scores, smallest)
    if rules.has_takeover:
        game.results["take"] = situations(
            sol, TAKE_SITUATIONS,
            lambda s, m, w: analysis.take_rules(s, m, w) if s.space.can_take[m] else None)
    game.results["heuristics"] = heuristics(game, quick)
    log(f"{game.key}: analysis and heuristics")


def house_rules(games: dict, log) -> tuple[list, list]:
    """Rows (family, label, p, delta, komi) at the real targets, from the
    tables for the games as played and from paper/cache (solving what is
    missing and within budget); and the variants left unsolved."""
    rows, not_solved = [], []
    jobs = cache.house_jobs()
    base = {}
    for family, label, rules in jobs:
        game = games.get(family) if label == "as played" else None
        hit = cache.cached(rules)
        if game is not None:
            data = {"first_player_win": game.solution.first_player_win,
                    "komi": game.results["komi"]}
        elif hit is not None:
            data = hit
        elif estimated_solve_seconds(rules) <= SOLVE_BUDGET_SECONDS:
            data = cache.summary(rules)
            log(f"house rule {family} / {label}: solved in {data['seconds']:.0f} s")
        else:
            not_solved.append((family, label, estimated_solve_seconds(rules)))
            continue
        if label == "as played":
            base[family] = data["first_player_win"]
        rows.append({"family": family, "label": label, "p": data["first_player_win"],
                     "delta": None if family not in base or label == "as played"
                     else data["first_player_win"] - base[family], "komi": data["komi"]})
    return rows, not_solved


def model_checks(targets, log) -> list[dict]:
    """dix-mille as played at small targets: exact memory against the
    crosses model (each solve cached)."""
    out = []
    for target in targets:
        rules = GAMES["dix-mille"].with_target(target)
        exact, model = cache.summary(rules, "exact"), cache.summary(rules, "model")
        out.append({"target": target, "exact": exact["first_player_win"],
                    "model": model["first_player_win"], "exact_states": exact["states"],
                    "model_states": model["states"]})
        log(f"model check at {target}: {model['first_player_win'] - exact['first_player_win']:+.2e}")
    return out


def measured_game(memory: dict | None) -> str | None:
    """Which game scripts/measure_memory_model.py measured (its file does
    not say): the one whose exact solve at a measured target gives the
    recorded first-player value."""
    for name, d in (memory or {}).items():
        if "first player win, exact" not in d:
            continue
        target = int(name.split()[-1])
        for game in ("dix-mille", "dix-mille-free-keep"):
            exact = cache.summary(GAMES[game].with_target(target), "exact")
            if abs(exact["first_player_win"] - d["first player win, exact"]) < 1e-9:
                return game
        return None
    return None


# --------------------------------------------------------------- the build

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paper.builder", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "paper")
    parser.add_argument("--quick", action="store_true",
                        help="a tenth of the simulated games, coarser maps, fewer checks")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    # The paper is written in English, whatever the machine's locale: the
    # cards and numbers it prints through the package are English too.
    set_language("en")
    if importlib.util.find_spec("matplotlib") is None:
        print("the paper's figures need matplotlib: pip install \"farkle-solver[paper]\"",
              file=sys.stderr)
        return 2
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    def log(text):
        print(f"[{time.perf_counter() - started:6.1f} s] {text}", file=sys.stderr, flush=True)

    games, missing = {}, {}
    for name in ORDER:
        game, estimate = load_game(name, log)
        if game is None:
            missing[name] = estimate
        else:
            games[name] = game
    present = list(games.values())
    # The cards of games the paper does not study on their own (the
    # free-keep variants): where and how much they lose, from their tables
    # where this machine has them.
    card_games = {name: game for name in paper_cards() if name not in games
                  for game in [table_game(name, log)] if game is not None}

    checks = dice_checks()
    reference = run_reference_cases(REFERENCE_CASES[:3] if args.quick else REFERENCE_CASES)
    log("dice and reference checks done")
    from solver.engine.solution import bellman_residual
    for game in present:
        game.results["residual"] = (bellman_residual(game.solution, samples=200)
                                    if game.source == "solved"
                                    else float(game.info["bellman_residual"]))
        game.results["self"] = self_play(game, args.quick)
        log(f"{game.key}: self-play {game.results['self']['rate']:.4f}")
    for game in present:
        analyse(game, args.quick, log)
    house, not_solved = house_rules(games, log)
    log("house rules")
    checks_model = model_checks(MODEL_CHECK_TARGETS[:1 if args.quick else None], log)
    memory = json.loads(MEMORY_RESULTS.read_text()) if MEMORY_RESULTS.exists() else None
    memory_game = measured_game(memory)

    log("writing")
    N, tabs = Numbers(), Tables()
    from paper.builder.figures import Figures
    figs = Figures(out)
    parts = sections.make(N, tabs, figs, present=present, missing=missing,
                                dice_checks=checks, reference=reference, house=house,
                                not_solved=not_solved, model_check=checks_model,
                                memory=memory, memory_game=memory_game, quick=args.quick, machine=machine(),
                                rule_rows=RULE_ROWS, sigmas=SIGMAS, version=__version__,
                                players=json.loads(PLAYERS_RESULTS.read_text())
                                if PLAYERS_RESULTS.exists() else None,
                                fair_start=json.loads(FAIR_START_RESULTS.read_text())
                                if FAIR_START_RESULTS.exists() else None,
                                cards=paper_cards(), card_games=card_games)
    text = fill((ROOT / "paper" / "template.md").read_text(), parts)
    (out / "paper.md").write_text(text)
    numbers = {"build": {"seconds": time.perf_counter() - started, "quick": args.quick,
                         "program_version": __version__, "machine": machine(),
                         "tables": {g.key: str(g.path.relative_to(ROOT))
                                    if g.path.is_relative_to(ROOT) else str(g.path)
                                    for g in present if g.source == "table"},
                         "solved": [g.key for g in present if g.source == "solved"],
                         "card_tables": {g.key: str(g.path) for g in card_games.values()},
                         "missing": sorted(missing)},
               "numbers": N.values}
    (out / "numbers.json").write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n")
    stray = stray_digits(text, N, GAMES)
    if stray:
        print("digits not from a computed value:", stray[:20], file=sys.stderr)
    try:
        pdf.make_pdf(out / "paper.md")          # paper.pdf beside it
    except pdf.PdfError as error:
        log(f"no PDF: {error}")
    log(f"done: {out / 'paper.md'} ({len(N.values)} numbers, {figs.count} figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
