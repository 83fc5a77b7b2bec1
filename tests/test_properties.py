"""Property tests (issue 68, point 5), in-process so that many cases cost
seconds: whatever a house-rules file or a page request holds, the outcome is
a game or an answer, or one :class:`UsageError` of one line, never another
exception. Bounded: a fixed number of examples each, no deadline (a first
question reads a table)."""

import json
import math
import string

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from solver.model.errors import UsageError
from solver.model.house_rules import load_house_rules
from solver.model.rules import GAMES
from solver.web.api import TableDesk

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# Values from valid to absurd, as a TOML file or a JSON body may hold them.
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.sampled_from([0, 1, 5, 50, 350, 500, 750, 1000, 5000, 10_000]),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.text(alphabet=string.printable, max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=6), max_leaves=20)


def one_line(error: UsageError) -> bool:
    return len(str(error).strip().splitlines()) == 1


def toml_value(value) -> str | None:
    """``value`` written as TOML, or None where TOML has no such value."""
    if value is None or isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        items = [toml_value(v) for v in value]
        return None if None in items else "[" + ", ".join(items) + "]"
    return json.dumps(value)


FIELDS = sorted(json.loads(GAMES["cinq-mille"].to_json()))


@SETTINGS
@given(base=st.sampled_from(sorted(GAMES)),
       changes=st.dictionaries(st.sampled_from(FIELDS + ["base", "typo"]), VALUES, max_size=4))
def test_a_mutated_house_file_is_a_game_or_one_line(tmp_path_factory, base, changes):
    lines = [f'base = "{base}"']
    for key, value in changes.items():
        text = toml_value(value)
        if text is not None and key != "base":
            lines.append(f"{key} = {text}")
    path = tmp_path_factory.mktemp("house") / "house.toml"
    path.write_text("\n".join(lines) + "\n")
    try:
        rules = load_house_rules(path)
    except UsageError as error:
        assert one_line(error), str(error)
        return
    assert rules.target > rules.entry and rules.dice >= 1


DESK = TableDesk()


def assert_answer_or_one_line(question, body) -> None:
    """``question(body)`` answers JSON the page can read, or refuses in one
    line."""
    try:
        answer = question(body)
    except UsageError as error:
        assert one_line(error), str(error)
        return
    json.dumps(answer, allow_nan=False)
GAME_NAMES = st.sampled_from(["cinq-mille", "pig", "cinq-mille-exact", "no-such-game"])
ENTRY = st.one_of(VALUES, st.fixed_dictionaries({}, optional={
    "roll": st.lists(st.integers(-1, 8), max_size=7), "choose": VALUES}))


@SETTINGS
@given(body=st.one_of(
    VALUES,
    st.fixed_dictionaries({"game": GAME_NAMES}, optional={
        "players": SCALARS, "names": VALUES, "entries": st.lists(ENTRY, max_size=5)})))
def test_a_page_game_request_is_an_answer_or_one_line(body):
    assert_answer_or_one_line(DESK.play, body)


@SETTINGS
@given(body=st.fixed_dictionaries({"game": GAME_NAMES}, optional={
    "me": SCALARS, "opp": st.one_of(SCALARS, st.lists(SCALARS, max_size=7)), "turn": SCALARS,
    "dice": SCALARS, "roll": st.one_of(SCALARS, st.lists(st.integers(-1, 8), max_size=7)),
    "offer": VALUES, "crosses": SCALARS, "previous": SCALARS}))
def test_a_page_advice_request_is_an_answer_or_one_line(body):
    assert_answer_or_one_line(DESK.advise, body)


# The command line, in-process: the commands that answer from the dice and
# the tables, their options given values from valid to absurd. Games and
# targets are small ones, so that a first use solves in a second.
TOKENS = st.sampled_from(["--json", "--me", "--opp", "--turn", "--dice", "--roll", "--offer",
                          "--target", "--games", "--seed", "--a", "--b", "--players", "--seat",
                          "--crosses", "--previous", "--card", "--memory", "--tolerance",
                          "--objective", "--remove", "--table", "--fit", "1", "5", "0", "-1",
                          "30", "600", "1500", "2", "3", "7", "99999999999999999999", "nan",
                          "optimal", "random", "threshold:20", "card", "expected", "exact",
                          "points", "250,2", "x", "", "pig", "cinq-mille", "\n"])
# Not simulate, solve and card: their first call in a process compiles the
# game loops and solvers (a minute here); tests/test_bad_input.py drives them.
COMMANDS = st.sampled_from(["variants", "keeps", "odds", "info", "tables", "advise"])


@settings(max_examples=50, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(command=COMMANDS, game=st.sampled_from(["pig", "cinq-mille"]),
       target=st.sampled_from([None, "30", "50", "1000", "1500", "-5", "7"]),
       args=st.lists(TOKENS, max_size=7))
def test_any_command_line_answers_or_says_one_line(command, game, target, args):
    """``farkle COMMAND GAME ...`` with any options: exit 0, or 2 and one
    line on stderr; never an exception out of main (a traceback)."""
    import contextlib
    import io

    from solver.cli.main import main
    argv = [command, game, *(["--target", target] if target else []), *args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    event(f"exit {status}")
    assert status in (0, 2), (argv, status, err.getvalue())
    if status == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) >= 1 and lines[-1].startswith("farkle: "), (argv, err.getvalue())
        assert all(line.startswith("farkle: ") for line in lines
                   if "waiting" not in line and "solving" not in line), (argv, err.getvalue())
