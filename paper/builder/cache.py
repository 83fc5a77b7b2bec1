"""Solved variants for the paper, kept on disk so that a rebuild does not
solve them again.

A house-rule variant at a real target costs from seconds (cinq-mille) to
many minutes (dix-mille with crosses). The paper needs only a summary of
each: the first player's win probability, the fair head start
(:func:`solver.study.analysis.komi`), the player states and the solve's stats.
:func:`summary` solves a game once and stores that summary in
``paper/cache/<hash>.json``, the hash being of the rules' JSON and the
memory (the exact previous-score memory or the crosses model), so that a
changed rule is a new entry and a stale one is never read.

    python -m paper.builder.cache            # solve every house variant the
                                             # paper compares, cheapest first
    python -m paper.builder.cache --list     # what is cached, what is not
    python -m paper.builder.cache --self-play dix-mille   # the long self-play runs

Optimal self-play of the title games (200,000 games: most of an hour for a
game whose optimal player replays many turns) is kept the same way, keyed by
the rules, the games, the seed and the table's first-player value.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from solver import __version__
from solver.model.rules import GAMES, Rules
from solver.study.analysis import house_variants, komi

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "paper" / "cache"
FAMILIES = ("cinq-mille", "quinze-mille", "dix-mille")
"""The games whose house rules the paper compares."""


def key_of(rules: Rules, memory: str = "model") -> str:
    memory = memory if rules.crosses else "none"
    text = json.dumps({"rules": json.loads(rules.to_json()), "memory": memory}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def path_of(rules: Rules, memory: str = "model", cache: Path = CACHE) -> Path:
    return cache / f"{key_of(rules, memory)}.json"


def summarise(solution, seconds: float, memory: str) -> dict:
    stats = {k: v for k, v in solution.stats.items() if isinstance(v, (int, float, list))}
    return {"rules": json.loads(solution.rules.to_json()), "memory": memory,
            "first_player_win": solution.first_player_win, "komi": komi(solution),
            "states": int(solution.space.size), "seconds": seconds, "stats": stats,
            "program_version": __version__}


def cached(rules: Rules, memory: str = "model", cache: Path = CACHE) -> dict | None:
    path = path_of(rules, memory, cache)
    if path.exists():
        data = json.loads(path.read_text())
        # The hash names the rules; this guards against a hand-copied file.
        return data if Rules.from_json(json.dumps(data["rules"])) == rules else None
    # An entry stored before the rules gained a field (its default then
    # fills in): the same game under another hash. Found by its rules, and
    # kept under today's hash.
    memory = memory if rules.crosses else "none"
    for other in cache.glob("*.json"):
        if other.name.startswith("self-play-"):
            continue
        data = json.loads(other.read_text())
        same_memory = (data.get("memory") if rules.crosses else "none") == memory
        if same_memory and Rules.from_json(json.dumps(data["rules"])) == rules:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({**data, "rules": json.loads(rules.to_json())},
                                      indent=1, sort_keys=True) + "\n")
            tmp.replace(path)
            other.unlink()
            return data
    return None


def store(solution, seconds: float, memory: str = "model", cache: Path = CACHE) -> dict:
    data = summarise(solution, seconds, memory)
    cache.mkdir(parents=True, exist_ok=True)
    path = path_of(solution.rules, memory, cache)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)
    return data


def summary(rules: Rules, memory: str = "model", cache: Path = CACHE, solution=None) -> dict:
    """The cached summary of ``rules``, solving (or taking ``solution``) and
    storing it when there is none."""
    data = cached(rules, memory, cache)
    if data is not None:
        return data
    if solution is not None:
        return store(solution, float(solution.stats.get("seconds", 0.0)), memory, cache)
    from solver.tables.make import solve_game
    started = time.perf_counter()
    solution = solve_game(rules, memory)
    return store(solution, time.perf_counter() - started, memory, cache)


def self_play_path(rules: Rules, games: int, seed: int, first_player_win: float,
                   cache: Path = CACHE) -> Path:
    """Where optimal self-play of ``games`` games from ``seed`` on the table
    whose first player wins ``first_player_win`` is kept: another table is
    another entry."""
    text = json.dumps({"rules": json.loads(rules.to_json()), "games": games, "seed": seed,
                       "table": f"{first_player_win:.15f}"}, sort_keys=True)
    return cache / f"self-play-{hashlib.sha256(text.encode()).hexdigest()[:20]}.json"


def cached_self_play(rules, games, seed, first_player_win, cache: Path = CACHE) -> dict | None:
    path = self_play_path(rules, games, seed, first_player_win, cache)
    return json.loads(path.read_text()) if path.exists() else None


def store_self_play(rules, games, seed, first_player_win, result: dict,
                    cache: Path = CACHE) -> None:
    path = self_play_path(rules, games, seed, first_player_win, cache)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def house_jobs(families=FAMILIES) -> list[tuple[str, str, Rules]]:
    """(family, label, rules) of every variant the paper compares, the
    game as played first in each family."""
    jobs = []
    for family in families:
        base = GAMES[family]
        jobs.append((family, "as played", base))
        jobs += [(family, label, rules) for label, rules in house_variants(base, GAMES)]
    return jobs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paper.builder.cache", description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="show the cache, solve nothing")
    parser.add_argument("--skip-played", action="store_true",
                        help="do not solve a game as played (its table is being made)")
    parser.add_argument("--only", nargs="+", metavar="FAMILY/LABEL",
                        help="these variants alone, in this order (e.g. \"dix-mille/as played\")")
    parser.add_argument("--self-play", nargs="+", metavar="GAME",
                        help="play the paper's optimal self-play of these games (their tables "
                             "must be there) and keep it, instead of solving variants")
    args = parser.parse_args(argv)
    if args.self_play:
        from paper.builder.build import load_game, self_play
        for name in args.self_play:
            game, _ = load_game(name, print)
            if game is None:
                print(f"{name}: no table", file=sys.stderr)
                return 2
            result = self_play(game, quick=False, play_missing=True)
            print(f"{name}: {result['games']:,} games, first player {result['rate']:.4f} "
                  f"+- {result['stderr']:.4f} (z {result['z']:+.1f})", flush=True)
        return 0
    from solver.tables.estimates import estimated_solve_seconds
    jobs = sorted(house_jobs(), key=lambda job: estimated_solve_seconds(job[2]))
    if args.only:
        named = {f"{family}/{label}": (family, label, rules) for family, label, rules in jobs}
        jobs = [named[name] for name in args.only]
    for family, label, rules in jobs:
        hit = cached(rules)
        estimate = estimated_solve_seconds(rules)
        if args.list or hit is not None or (args.skip_played and label == "as played"):
            state = (f"{hit['first_player_win']:.7f} ({hit['seconds']:.0f} s)" if hit
                     else f"not cached (estimate {estimate:.0f} s)")
            print(f"{family:14} {label:32} {state}", flush=True)
            continue
        print(f"{family:14} {label:32} solving (estimate {estimate:.0f} s) ...", flush=True)
        data = summary(rules)
        print(f"{'':14} {'':32} {data['first_player_win']:.7f} in {data['seconds']:.0f} s",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
