"""One source of numbers (issue 69): where the README or a docs page gives
a number the paper gives too, the two are the same, as the paper's builder
recorded it in paper/numbers.json (key -> value and the text printed).

Each claim below is a pattern in a file and the key of the paper's number
it must equal, as printed. A rebuild of the paper that moves a number fails
here until the page says it too; a page edited by hand, likewise. The
cards' table of docs/cards.md is checked against the stored cards, the
paper's own source for them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CLAIMS = [
    # (file, pattern with one group per key, keys)
    ("docs/solver.md", r"([\d,]+) player states at 10,000 points and\s+([\d,]+) turn starts",
     ("memory/exact_states", "memory/exact_turn_starts")),
    ("docs/solver.md", r"distance to the fixed point\s+is below (\S+?):",
     ("method/tolerance",)),
    ("docs/fair-start.md", r"in cinq-mille turns ([\d.]+%) into", ("abstract/cinq-mille/pct",)),
    # The table file's size; its solve time is the benchmark's (cores idle),
    # not the time a table records under whatever load made it.
    ("README.md", r"quinze-mille's is a file of ([\d.]+) MB", ("quinze-mille/cost/file_bytes",)),
    ("docs/players.md", r"\| cinq-mille to 5,000 \| ([\d.]+) / ([\d.]+) / ([\d.]+)% \|",
     ("players/cinq-mille/5000/3/seat1", "players/cinq-mille/5000/3/seat2",
      "players/cinq-mille/5000/3/seat3")),
]


def same(said: str, entry: dict) -> bool:
    """Whether the page's number is the paper's, at the page's precision: a
    page may give more digits than the paper prints, never other ones."""
    plain = said.replace(",", "").rstrip("%")
    if plain == entry["text"].replace(",", "").rstrip("%"):
        return True
    value = entry["value"] * (100 if entry["kind"].startswith("pct") else 1)
    if "e" in plain:
        return float(plain) == pytest.approx(value, rel=1e-9)
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return f"{value:.{decimals}f}" == plain


@pytest.fixture(scope="module")
def numbers():
    return json.loads((ROOT / "paper" / "numbers.json").read_text())["numbers"]


@pytest.mark.parametrize("path, pattern, keys", CLAIMS, ids=[f"{c[0]}:{c[2][0]}" for c in CLAIMS])
def test_a_page_gives_the_paper_s_number(numbers, path, pattern, keys):
    text = (ROOT / path).read_text()
    found = re.search(pattern, text)
    assert found, f"{path} no longer says {pattern!r}: say it again or drop the claim here"
    for key, said in zip(keys, found.groups()):
        assert same(said, numbers[key]), f"{path} says {said}, the paper {numbers[key]['text']} ({key})"


def test_the_cards_page_gives_the_stored_losses():
    """docs/cards.md's table of losses, against the cards the paper prints
    (solver/cards/cards.json): each game's loss to three decimals and its
    seats to one."""
    from solver.cards.store import stored_cards
    table = re.findall(r"^\| ([\w-]+) \| ([\d.]+)(?: ± ([\d.]+) \(sampled\))? \| "
                       r"([\d.]+)% / ([\d.]+)% \|",
                       (ROOT / "docs" / "cards.md").read_text(), flags=re.M)
    assert table
    cards = stored_cards()
    for game, loss, stderr, first, second in table:
        stored = cards[game]["loss"]
        assert loss == f"{100 * stored['loss']:.3f}", game
        # A loss measured over sampled games is given with its error.
        assert stderr == (f"{100 * stored['stderr']:.3f}" if "stderr" in stored else ""), game
        assert (first, second) == tuple(f"{100 * s:.1f}" for s in stored["seats"]), game
