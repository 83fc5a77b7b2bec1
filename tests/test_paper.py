"""The paper's numbers against the tables.

``python -m paper.builder`` (the package ``paper/builder/``, run from the
repository's root) writes ``paper/paper.md`` and ``paper/numbers.json``
(every number printed: key -> value and the text printed). These tests do
not rebuild the paper: they read the committed tables in ``tables/`` (not
``$FARKLE_TABLES``, which the test suite points at a scratch directory) and
check that the paper says what the tables say. A committed table solved
again, or a new one, without a rebuild of the paper fails here: rebuild it
with ``python -m paper.builder``. The builder itself is checked on small
cases only (its whole run takes some 13 minutes and 6.7 GB).

The big tables are not committed (``.gitignore``: each machine makes them).
Where one exists it is checked too, but as a solve of the same game, not the
same file: its first player's win probability to 1e-9 and as printed, not
its solve time or size. Where it does not (CI's fresh clone), its numbers
are not checked.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from paper.builder.build import ORDER as PAPER_GAMES
from solver.model.rules import GAMES
from solver.tables.files import read_info, read_table

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "paper"
TABLES = ROOT / "tables"
REBUILD = "the paper is stale: rebuild it with python -m paper.builder"


@pytest.fixture(scope="module")
def built():
    numbers = json.loads((PAPER / "numbers.json").read_text())
    return numbers["build"], numbers["numbers"], (PAPER / "paper.md").read_text()


def present_tables() -> dict[str, Path]:
    """The tables in tables/ of the games the paper studies (game name ->
    file): paper.builder.build.ORDER (the Farkle games' tables, committed
    for issue 67, wait for the paper's own issue)."""
    return {name: TABLES / f"{name}.h5" for name in PAPER_GAMES
            if (TABLES / f"{name}.h5").exists()}


@lru_cache(maxsize=None)
def tracked() -> set[str] | None:
    """Games whose table git tracks (None: no git here, take them all)."""
    try:
        out = subprocess.run(["git", "ls-files", "tables"], cwd=ROOT, capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return {Path(line).stem for line in out.stdout.split() if line.endswith(".h5")}


def committed_tables() -> dict[str, Path]:
    names = tracked()
    return {name: path for name, path in present_tables().items()
            if names is None or name in names}


def test_the_paper_was_built_from_the_committed_tables(built):
    build, _, _ = built
    assert not build["quick"], "a quick build is not the paper: " + REBUILD
    assert set(committed_tables()) <= set(build["tables"]), REBUILD


@pytest.mark.parametrize("name", sorted(present_tables()))
def test_first_player_win_is_the_table_s(name, built):
    _, numbers, paper = built
    info = read_info(TABLES / f"{name}.h5")
    printed = numbers[f"{name}/first_player_win"]
    if name in committed_tables():
        assert printed["value"] == info["first_player_win"], REBUILD
    else:
        assert printed["value"] == pytest.approx(info["first_player_win"], abs=1e-9), REBUILD
    assert printed["text"] == f"{info['first_player_win']:.7f}"
    assert printed["text"] in paper


@pytest.mark.parametrize("name", sorted(committed_tables()))
def test_cost_and_residual_are_the_table_s(name, built):
    _, numbers, paper = built
    info = read_info(TABLES / f"{name}.h5")
    assert numbers[f"{name}/cost/seconds"]["value"] == info["stats"]["seconds"], REBUILD
    assert numbers[f"{name}/cost/turn_starts"]["value"] == info["stats"]["turn_starts"]
    assert numbers[f"{name}/cost/keep_evaluations"]["value"] == info["stats"]["keep_evaluations"]
    assert numbers[f"{name}/cost/file_bytes"]["value"] == info["bytes"], REBUILD
    assert numbers[f"{name}/residual"]["value"] == info["bellman_residual"]
    for key in ("cost/turn_starts", "cost/keep_evaluations", "residual"):
        assert numbers[f"{name}/{key}"]["text"] in paper


def test_pig_is_the_published_value(built):
    """Neller and Presser (2004) published the first player's 0.5306 (53.06%)
    under optimal play to 100; the table's value rounds to it."""
    _, numbers, paper = built
    if "pig" not in present_tables():
        pytest.skip("no Pig table")
    assert numbers["pig/published"]["text"] == "0.5306"
    assert round(numbers["pig/first_player_win"]["value"], 4) == 0.5306
    assert "agree to the 4 digits published" in paper


def test_head_start_is_the_table_s(built):
    """The fair head start (komi) of the games without crosses, recomputed
    from the table's start values."""
    _, numbers, _ = built
    for name, path in present_tables().items():
        rules = GAMES[name]
        if rules.crosses or f"{name}/komi/h" not in numbers:
            continue
        solution = read_table(path, expect=rules)
        space, W = solution.space, solution.W
        start = space.index_of_score(0)
        scores = [int(s) for s in np.unique(space.score) if s > 0]
        h = next(s for s in scores if W[start, space.index_of_score(s)] <= 0.5)
        assert numbers[f"{name}/komi/h"]["value"] == h * rules.unit, REBUILD
        assert numbers[f"{name}/komi/p"]["value"] == pytest.approx(
            W[start, space.index_of_score(h)], abs=1e-9)


def test_every_number_is_printed_in_the_paper(built):
    _, numbers, paper = built
    missing = [key for key, v in numbers.items() if v["text"] not in paper]
    assert not missing, missing[:10]


def test_the_paper_names_its_figures_and_they_exist(built):
    _, _, paper = built
    figures = re.findall(r"\]\((figures/[^)]+\.png)\)", paper)
    assert figures
    for figure in figures:
        assert (PAPER / figure).exists(), figure


def test_the_template_is_filled(built):
    _, _, paper = built
    assert "{{" not in paper and "}}" not in paper


def test_every_simulation_has_its_own_seed(built):
    _, numbers, _ = built
    seeds = [v["value"] for key, v in numbers.items() if "/seed" in key]
    assert seeds and len(seeds) == len(set(seeds))


def test_no_mean_above_its_maximum(built):
    _, numbers, _ = built
    lo, hi = numbers["method/newton/mean_lo"]["value"], numbers["method/newton/mean_hi"]["value"]
    assert 1 <= lo <= hi <= numbers["method/newton/max"]["value"]


@pytest.mark.parametrize("name", sorted(set(present_tables()) & {"cinq-mille", "quinze-mille",
                                                                  "dix-mille"}))
def test_house_rules_are_compared_with_the_table_s_game(name, built):
    """The house-rule rows are at the real target: the game as played is
    the table's value."""
    _, numbers, _ = built
    key = f"house/{name}/as played/p"
    if key not in numbers:
        pytest.skip("house rules of this game not in the paper")
    info = read_info(TABLES / f"{name}.h5")
    assert numbers[key]["value"] == pytest.approx(info["first_player_win"], abs=1e-9), REBUILD


def test_three_player_seats_are_the_committed_table_s(built):
    """The section on more players prints each seat of 3-player cinq-mille
    to 5,000 (from paper/players.json); they must be those of the committed
    table tables/cinq-mille-3players.h5, as printed (one decimal of a
    percentage) and to 1e-9 in numbers.json."""
    _, numbers, _ = built
    seats = read_info(TABLES / "cinq-mille-3players.h5")["seat_wins"]
    for i, value in enumerate(seats):
        printed = numbers[f"players/cinq-mille/5000/3/seat{i + 1}"]
        assert printed["value"] == pytest.approx(value, abs=1e-9), REBUILD
        assert printed["text"] == f"{100 * value:.1f}%", REBUILD


def test_fair_start_is_solved_again(built):
    """The fair start the paper gives for cinq-mille (from
    paper/fair_start.json) solved again by solver.study.fair_start: the second
    player's entry nearest one half, its share to 1e-9 and as printed, and
    the entries either side of it on either side of one half."""
    from solver.study.fair_start import FairStart, solve_fair_start
    _, numbers, _ = built
    rules = GAMES["cinq-mille"]
    entry = numbers["fair/cinq-mille/second_entry"]["value"]
    printed = numbers["fair/cinq-mille/second_entry/share"]
    share = solve_fair_start(rules, FairStart(second_entry=entry))[0]
    assert printed["value"] == pytest.approx(share, abs=1e-9), REBUILD
    assert printed["text"] == f"{share:.4f}", REBUILD
    side = 1 if share > 0.5 else -1          # a lower entry helps the second player
    other = solve_fair_start(rules, FairStart(second_entry=entry - side * rules.unit))[0]
    assert (other - 0.5) * (share - 0.5) <= 0
    assert abs(share - 0.5) <= abs(other - 0.5)


def test_cards_are_the_stored_cards(built):
    """The section on strategy cards prints each card's loss from
    solver/cards/cards.json (whose Pig loss tests/test_cards.py evaluates again),
    the simple rules' losses, and the losses with more players (the
    two-player card's and a card fitted there); a card fitted or a rule
    measured again without a rebuild fails here."""
    from paper.builder.build import paper_cards
    _, numbers, _ = built
    cards = paper_cards()
    assert cards
    for name, entry in cards.items():
        printed = numbers[f"card/{name}/loss"]
        assert printed["value"] == pytest.approx(entry["loss"]["loss"], abs=1e-12), REBUILD
        assert printed["text"] == f"{100 * entry['loss']['loss']:.3f}", REBUILD
        for label, simple in entry["simple"].items():
            printed = numbers[f"card/{name}/simple/{label}"]
            assert printed["value"] == pytest.approx(simple["loss"], abs=1e-12), REBUILD
        # Measured at a larger table, and a card fitted there.
        for players, measured in entry.get("players", {}).items():
            key = f"card/{name}/players/{players}"
            for printed_key, loss in [(f"{key}/loss", measured.get("loss")),
                                      (f"{key}/fitted/loss",
                                       measured.get("fitted", {}).get("loss"))]:
                if loss is not None:
                    assert numbers[printed_key]["value"] == pytest.approx(loss, abs=1e-12), \
                        REBUILD


def test_the_builder_runs_as_a_package_from_the_root():
    """``python -m paper.builder``, as the docs say to run it (no ``sys.path``
    edit: the root is on the path of ``python -m``): it starts, and names
    itself so."""
    for module in ("paper.builder", "paper.builder.cache"):
        out = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(f"usage: python -m {module} ")


def test_the_builder_runs_the_tests_reference_cases():
    """The builder compares the fast solver with the tests' reference solver
    (tests/test_reference.py, loaded from its file): on a small case they
    agree to 1e-9, as the paper says."""
    from paper.builder.checks import run_reference_cases
    [row] = run_reference_cases(["pig-30"])
    assert row["case"] == "pig-30" and row["states"] == 30
    assert row["start_error"] < 1e-9 and row["take_error"] is None


def test_the_builder_writes_where_the_tests_read():
    """The builder's paths are the repository's: the paper, its numbers and
    the measurements it reads in paper/, the cache in paper/cache."""
    from paper.builder import build, cache
    assert build.ROOT == ROOT
    assert cache.CACHE == PAPER / "cache"
    assert build.MEMORY_RESULTS.parent == build.PLAYERS_RESULTS.parent == PAPER
    assert (PAPER / "template.md").exists()


# ------------------------------------------------------------ readability

def body(paper: str) -> str:
    """The paper before its references (the appendices follow them)."""
    return paper.split("\n## References")[0]


def prose(text: str) -> str:
    """The text without tables, code blocks, display math, figures and
    captions: what a reader reads as sentences."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    lines = [line for line in text.splitlines()
             if not line.startswith(("|", "![", "*Table", "*Figure", "#"))]
    return "\n".join(lines)


def test_the_body_is_about_seven_thousand_words_and_twelve_figures(built):
    """Issue 69: at most about 7,000 words and 12 figures in the body."""
    _, _, paper = built
    text = body(paper)
    assert len(text.split()) <= 7500, len(text.split())
    assert len(re.findall(r"^!\[Figure", text, flags=re.M)) <= 12


def test_no_sentence_of_the_body_is_sixty_words_or_more(built):
    _, _, paper = built
    text = re.sub(r"\$[^$]*\$", "x", prose(body(paper)))
    # A sentence ends at a full stop, question or colon mark followed by a
    # space and a capital, or at a paragraph's end; decimals and "e.g."
    # do not end one.
    sentences = re.split(r"(?<=[.?!])\s+(?=[A-Z*\"(`\d])|\n\s*\n|\n- ", text)
    long = [s for s in sentences if len(s.split()) >= 60]
    assert not long, [s[:120] for s in long]


def test_the_body_names_no_file_date_or_module(built):
    _, _, paper = built
    text = prose(body(paper))
    for pattern in (r"\b[\w/]+\.(py|md|json|h5|toml)\b", r"\bscripts/", r"\bsolver\.\w",
                    r"\b20\d\d-\d\d-\d\d\b", r"\bissue\b", r"BENCHMARKS"):
        found = re.findall(pattern, text)
        assert not found, (pattern, found[:5])
