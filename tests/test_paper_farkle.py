"""The paper's part on the published Farkle figures
(:mod:`paper.builder.farkle`), built here with a fresh Numbers and Tables
from the committed tables (a few seconds: two table infos, one small table,
two Zilch turns played for points): every published figure printed with
its source's digits, this program's figures the tables', and each
comparison word the one its numbers give."""

from __future__ import annotations

import re

import numpy as np
import pytest

from paper.builder import farkle
from paper.builder.format import Numbers, Tables, stray_digits
from solver.cards.store import stored_cards
from solver.model.rules import GAMES
from solver.tables.files import read_info, read_table

SOURCES = {"farkle/cardgames/first_player_win": "53.3%",
           "farkle/acg2017/fair_start": "200",
           "farkle/acg2017/human_edge": "1.7754%",
           "farkle/facebook/first_player_win": "53.487%",
           "farkle/zilch/points_per_turn": "620.855"}
"""The sources' digits (docs/farkle-sources.md), written again here so that
a slip in the module's data is caught."""


@pytest.fixture(scope="module")
def built():
    N, tabs = Numbers(), Tables()
    # The section and its appendix (the rule sets, why a figure differs).
    section = farkle.farkle_text(N, tabs) + "\n\n" + farkle.farkle_appendix(N)
    compensation = farkle.compensation_text(N, tabs)
    return N.values, section, compensation, N


def table_of(name: str):
    return farkle.TABLES / f"{name}.h5"


def test_every_published_figure_is_printed_with_its_source_s_digits(built):
    values, section, _, _ = built
    assert {key: p.digits for key, p in farkle.PUBLISHED.items()} == SOURCES
    for key, digits in SOURCES.items():
        assert values[f"{key}/published"]["text"] == digits
        assert digits in section
        assert farkle.PUBLISHED[key].cite in section
    # The builder numbers the paper's references, then these.
    from paper.builder.sections import REFERENCES
    numbered = {f"[{i}]": r for i, r in enumerate(REFERENCES + farkle.REFERENCES, 1)}
    assert numbered[farkle.DOMSLEEE].startswith("domsleee.")
    assert "Zilch" in numbered[farkle.BUSCHE_ZILCH]
    assert "Farkle Dice Game" in numbered[farkle.BUSCHE_NELLER]
    assert "Busche" in numbered[farkle.BUSCHE_FACEBOOK] and "2016" in numbered[
        farkle.BUSCHE_FACEBOOK]


def test_the_program_s_figures_are_the_tables(built):
    values, section, compensation, _ = built
    for short in ("cardgames", "facebook"):
        info = read_info(table_of(farkle.GAMES[short]))
        printed = values[f"farkle/{short}/first_player_win"]
        assert printed["value"] == info["first_player_win"]
        assert printed["text"] in section
    # The head starts from farkle-acg2017's start values: the first player
    # at 0 against the second at h (a game without entry nor crosses).
    solution = read_table(table_of("farkle-acg2017"))
    unit = solution.rules.unit
    W = np.asarray(solution.W)
    share = {int(s) * unit: float(W[0, i]) for i, s in enumerate(solution.space.score)}
    fair = min(share, key=lambda h: abs(share[h] - 0.5))
    assert values["farkle/acg2017/fair_start"]["value"] == fair
    assert values["farkle/acg2017/fair_start/first_player"]["value"] == share[fair]
    assert values["farkle/acg2017/start/0"]["value"] == share[0] == \
        read_info(table_of("farkle-acg2017"))["first_player_win"]
    assert values[f"farkle/acg2017/start/{fair + unit}"]["value"] == share[fair + unit]
    komi = min(h for h in share if share[h] <= 0.5)
    assert values["farkle/acg2017/komi"]["value"] == komi
    if komi != fair:
        word = "more" if komi > fair else "less"
        assert (f"{values['farkle/acg2017/komi/off']['text']} points {word} than the head "
                "start nearest one half") in compensation
    for key in ("farkle/acg2017/fair_start/first_player", "farkle/acg2017/start/0"):
        assert values[key]["text"] in compensation
    card = stored_cards()["farkle-acg2017"]["loss"]
    assert values["farkle/acg2017/card/loss"]["value"] == card["loss"]
    assert values["farkle/acg2017/card/gap"]["value"] == 2 * card["loss"]
    # The other rule sets' cards, as stored, each printed (with its
    # standard error where it was measured over sampled games).
    for game in ("farkle-cardgames", "farkle", "farkle-facebook", "zilch"):
        stored = stored_cards().get(game)
        if stored is None:
            assert f"farkle/card/{game}/loss" not in values
            continue
        printed = values[f"farkle/card/{game}/loss"]
        assert printed["value"] == stored["loss"]["loss"] and printed["text"] in section
        assert (f"farkle/card/{game}/stderr" in values) == ("stderr" in stored["loss"])
    # As `farkle solve zilch --objective points` prints it.
    from solver.engine.solo import points_policy
    from solver.model.rules import get_rules
    assert values["farkle/zilch/points_per_turn"]["value"] == \
        points_policy(get_rules("zilch")).points_per_turn


def test_each_comparison_word_follows_its_numbers(built):
    values, section, compensation, _ = built
    rows = {line.split(" | ")[0].strip("| `") + " " + line.split(" | ")[1]: line
            for line in section.splitlines() if line.startswith("| `")}
    for key, row_key in (("farkle/cardgames/first_player_win",
                          "farkle-cardgames the first player's chance"),
                         ("farkle/facebook/first_player_win",
                          "farkle-facebook the first player's chance"),
                         ("farkle/zilch/points_per_turn",
                          "zilch points a turn, played for points")):
        ours, published = values[key]["value"], farkle.PUBLISHED[key]
        # Reproduced: within half the last published digit.
        digits = published.digits.rstrip("%")
        scale = 100 if published.percent else 1
        same = abs(ours * scale - float(digits)) < 0.5 * 10 ** -len(digits.split(".")[1])
        row = rows[row_key]
        assert ("reproduced to the digits published" in row) == same
        if not same:
            word = "more" if ours > published.value else "less"
            assert row.endswith(f"percentage points {word} |" if published.percent
                                else f"points {word} |")
    # farkle-facebook's figure is below Busche's: the text says less, by as
    # much as the numbers differ.
    off = values["farkle/facebook/first_player_win/off"]
    assert off["value"] == pytest.approx(farkle.PUBLISHED[
        "farkle/facebook/first_player_win"].value - values[
        "farkle/facebook/first_player_win"]["value"])
    assert f"{off['text']} percentage points less than his" in section
    loss = values["farkle/acg2017/card/loss"]["value"]
    edge = farkle.PUBLISHED["farkle/acg2017/human_edge"].value
    word = "more" if min(loss, 2 * loss) > edge else "less" if max(loss, 2 * loss) < edge \
        else None
    if word:
        assert f"{word} than their method, under either reading" in section
    fair = values["farkle/acg2017/fair_start"]["value"]
    assert (" too:" in compensation) == (fair == 200)


def test_the_words_are_chosen_by_the_numbers():
    N = Numbers()
    key = "farkle/facebook/first_player_win"
    assert farkle.agreement(N, key, 0.534871) == "reproduced to the digits published"
    assert farkle.agreement(N, key, 0.53490) == "not reproduced: 0.003 percentage points more"
    assert farkle.agreement(Numbers(), key, 0.53480) == \
        "not reproduced: 0.007 percentage points less"
    assert farkle.agreement(N, "farkle/zilch/points_per_turn", 620.8546) == \
        "reproduced to the digits published"
    assert farkle.agreement(N, "farkle/zilch/points_per_turn", 611.7944) == \
        "not reproduced: 9.061 points less"
    assert farkle.edge_words(0.02, 0.017754).startswith("more than their method, under either")
    assert farkle.edge_words(0.008, 0.017754).startswith("less than their method, under either")
    assert farkle.edge_words(0.012, 0.017754) == (
        "more than their method if theirs is the gap between the two players' chances, less "
        "if it is optimal play's chance less one half")


def test_the_text_has_no_digit_that_is_not_a_number_and_short_sentences(built):
    _, section, compensation, N = built
    text = section + "\n\n" + compensation
    assert stray_digits(text, N, GAMES) == []
    assert [key for key, v in N.values.items() if v["text"] not in text] == []
    for paragraph in text.split("\n\n"):
        if paragraph.startswith("|"):
            continue
        for sentence in re.split(r"(?<=\.)\s+(?=[A-Z`])", paragraph.strip("*")):
            assert len(sentence.split()) < 60, sentence
    assert not re.search(r"\b(tables/|docs/|issue|20\d\d)\b", text)
