"""Take-over values coded in the table files (solver.tables.take_codes, issue 12
item 2): what a file gives back, against the solve that wrote it."""

import json
import subprocess
import sys

import h5py
import numpy as np
import pytest

from solver.advice.advisor import Advisor
from solver.model.rules import get_rules
from solver.tables.files import read_table, write_table
from solver.tables.make import solve_game
from solver.tables.take_codes import QUANTUM, decode, encode_row


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """dix-mille to 1,000 (take-over from 350, crosses), solved and written."""
    rules = get_rules("dix-mille").with_target(1000)
    solution = solve_game(rules)
    values = solution.take_values.copy()   # the writer must not change the solve
    path = tmp_path_factory.mktemp("codes") / "dix-mille-1000.h5"
    write_table(solution, path, 1e-12, 0.0)
    return rules, solution, values, path


def offer_values(solution, values):
    """Per taker row: the roll values of the offers a bank can make, and
    whether each is taken (worth more than the taker's fresh start)."""
    space = solution.space
    slots = np.flatnonzero(space.bank_slot >= 0)
    offers = space.score[slots] + 1 - space.offers[0]
    made = (np.arange(values.shape[2])[None, :] < offers[:, None])[:, :, None]
    for w in np.flatnonzero(solution.take_row >= 0):
        row = solution.take_row[w]
        fresh = solution.W[w, slots][:, None, None]
        yield row, made & (values[row] > fresh), made & (values[row] <= fresh)


@pytest.mark.parametrize("lazy", [True, False])
def test_a_table_gives_back_every_taken_offer_to_half_a_step(written, lazy):
    """Rounding to a multiple of 2^-33 moves a value by at most 2^-34
    (5.8e-11): every taken offer reads back within that, every offer not
    taken reads back as 0 (a taker starts afresh), and the start values
    exactly."""
    rules, solution, values, path = written
    table = read_table(path, expect=rules, lazy_take=lazy)
    assert np.array_equal(np.asarray(table.W), solution.W)
    assert np.array_equal(solution.take_values, values)
    taken_count = 0
    for row, taken, refused in offer_values(solution, values):
        back = np.asarray(table.take_values[row])
        assert np.max(np.abs(back - values[row])[taken], initial=0.0) <= QUANTUM / 2
        assert np.all(back[refused] == 0.0)
        taken_count += int(taken.sum())
    assert taken_count > 1000


def test_codes_of_values_on_the_grid_decode_exactly():
    """Decoding undoes the differences and the zigzag exactly: values that
    are multiples of the step come back bit for bit, with residuals of
    both signs and a run of offers not taken in between."""
    rng = np.random.default_rng(5)
    steps = rng.integers(0, 2 ** 33, size=(7, 9, 4))
    values = steps * QUANTUM
    values[:, 3:5, :] = 0.0                # offers not taken
    fresh = np.zeros(7)
    codes = encode_row(values, fresh, offers=np.full(7, 9))
    assert np.array_equal(decode(codes), values)
    assert np.array_equal(decode(codes[None])[0], values)


def test_a_table_of_the_previous_format_still_answers(written, tmp_path):
    """A format-4 table (take-over values as float64 ``take_values``) is
    read as it is: the same advice as the coded table, to the rounding."""
    rules, solution, values, path = written
    old = tmp_path / "format4.h5"
    old.write_bytes(path.read_bytes())
    with h5py.File(old, "r+") as f:
        del f["take_codes"]
        f.create_dataset("take_values", data=values)
        f.attrs["format_version"] = 4
    coded = Advisor(read_table(path, expect=rules))
    plain = Advisor(read_table(old, expect=rules))
    for me, opp, turn, dice in [(350, 600, 300, 2), (0, 500, 350, 3), (500, 500, 100, 4)]:
        a = coded.bank_or_roll(me=me, opp=opp, turn=turn, dice=dice)
        b = plain.bank_or_roll(me=me, opp=opp, turn=turn, dice=dice)
        assert [c.action for c in a.choices] == [c.action for c in b.choices]
        assert max(abs(c.win - d.win) for c, d in zip(a.choices, b.choices)) <= QUANTUM
    offer = plain.take_or_fresh(me=400, opp=750, offer=400, offer_dice=2)
    assert abs(offer.best.win - coded.take_or_fresh(me=400, opp=750, offer=400,
                                                    offer_dice=2).best.win) <= QUANTUM


def test_farkle_info_says_how_the_take_over_values_are_kept(written):
    """What a person reads of a coded table: the step and the error."""
    _, _, _, path = written
    shown = subprocess.run([sys.executable, "-m", "solver.cli", "info", str(path)],
                           capture_output=True, text=True, check=True).stdout
    assert "take-over values: the offers worth taking, in steps of 1.16e-10 " \
           "(error at most 5.8e-11)" in shown
    assert "take_codes" in shown and "int64" in shown
    info = json.loads(subprocess.run([sys.executable, "-m", "solver.cli", "info", str(path),
                                      "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    assert info["take_quantum"] == 2.0 ** -33
