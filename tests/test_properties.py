"""Property tests (issue 68, point 5), in-process so that many cases cost
seconds: whatever a house-rules file or a page request holds, the outcome is
a game or an answer, or one :class:`UsageError` of one line, never another
exception. Bounded: a fixed number of examples each, no deadline (a first
question reads a table)."""

import itertools
import json
import math
import socket
import string
import time

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


# Damaged tables, drawn at random (tests/test_damaged_tables.py has the
# fixed list of 74 kinds, through subprocesses): bytes of a sound table
# flipped or the file cut short, read in-process by `farkle info` and
# `farkle advise --table`. A hang would stop the suite: faulthandler ends the
# process after HANG_SECONDS instead (the test then fails as a crash).
HANG_SECONDS = 20
ADVISE_ARGS = ["advise", "pig", "--target", "30", "--me", "0", "--opp", "0", "--turn", "10",
               "--json"]


def cli(argv) -> tuple[int, str, str]:
    """``main(argv)`` in-process: (exit status, stdout, stderr)."""
    import contextlib
    import io

    from solver.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


_SOUND = {}
_NUMBER = itertools.count()


def sound_table(folder) -> tuple[bytes, str, str]:
    """Pig to 30's table, and what info and advice print from it: made once."""
    if not _SOUND:
        path = folder / "pig-30.h5"
        assert cli(["solve", "pig", "--target", "30", "--out", str(path)])[0] == 0
        _SOUND["table"] = (path.read_bytes(), cli(["info", str(path)])[1].replace(str(path), "F"),
                           cli([*ADVISE_ARGS, "--table", str(path)])[1])
    return _SOUND["table"]


DAMAGE = st.one_of(
    st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
             min_size=1, max_size=4).map(lambda flips: ("flip", flips)),
    st.floats(0, 1, exclude_max=True).map(lambda keep: ("cut", keep)))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(damage=DAMAGE)
def test_a_randomly_damaged_table_answers_as_before_or_in_one_line(tmp_path_factory, damage):
    import faulthandler
    folder = tmp_path_factory.getbasetemp() / "damaged-at-random"
    folder.mkdir(exist_ok=True)
    data, info, advice = sound_table(folder)
    kind, how = damage
    if kind == "cut":
        damaged = data[:int(how * len(data))]
    else:
        damaged = bytearray(data)
        for where, mask in how:
            damaged[int(where * len(data))] ^= mask
    path = folder / f"damaged-{next(_NUMBER)}.h5"     # a new file: nothing read is reused
    path.write_bytes(bytes(damaged))
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    try:
        for argv, sound in ((["info", str(path)], info), ([*ADVISE_ARGS, "--table", str(path)],
                                                            advice)):
            status, out, err = cli(argv)
            event(f"{argv[0]} exit {status}")
            if status == 0:
                assert out.replace(str(path), "F") == sound and err == "", (damage, argv)
            else:
                assert status == 2 and err.count("\n") == 1 and err.startswith("farkle: "), \
                    (damage, argv, err)
    finally:
        faulthandler.cancel_dump_traceback_later()


# The page over HTTP, the requests drawn at random: any method and path, a
# body of any length, sent whole, cut short, or a byte at a time, the client
# hanging up early or waiting for the answer. The only outcomes are a JSON
# answer (200 or a 4xx/5xx with one line) or no answer to a client that
# hung up; and after each, a sound question is answered at once.
METHODS = st.sampled_from(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "BREW", "get"])
PATHS = st.sampled_from(["/", "/api/advise", "/api/game", "/api/games", "/app.js", "/nope",
                         "/../etc/passwd", "/api/advise?x=1", "//", "*"])
BODIES = st.one_of(st.binary(max_size=300),
                   st.builds(lambda b: json.dumps(b).encode(), VALUES),
                   st.just(json.dumps({"game": "pig", "me": 10, "opp": 0}).encode()))
SOUND_QUESTION = json.dumps({"game": "pig", "me": 10, "opp": 0}).encode()


def http(url, raw: bytes, *, send_in=1, pause=0.0, hang_up=False, timeout=10) -> bytes:
    """Send ``raw`` to the server in ``send_in`` pieces, ``pause`` seconds
    apart; hang up at once (b"") or read the whole answer."""
    host, port = url.split("//")[1].strip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as connection:
        size = -(-len(raw) // send_in) if raw else 1
        try:
            for start in range(0, len(raw), size):
                connection.sendall(raw[start:start + size])
                time.sleep(pause)
            if hang_up:
                return b""
            connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass            # the server answered (a GET) before reading the body
        answer = b""
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        return answer


def request_bytes(method, path, body, length=None) -> bytes:
    length = len(body) if length is None else length
    return (f"{method} {path} HTTP/1.1\r\nHost: phone\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\nConnection: close\r\n\r\n").encode() + body


def test_any_request_over_http_is_json_or_nothing_and_the_rest_are_served(tmp_path):
    """The server as a person starts it, asked at random (above); its log
    holds no traceback afterwards, whatever the clients did."""
    from conftest import start_server
    process, url = start_server(tmp_path / "tables", cwd=tmp_path)
    try:
        requests_at_random(url)
    finally:
        process.terminate()
        process.wait(timeout=10)
        log = process.stderr.read()
        process.stdout.close()
        process.stderr.close()
    assert "Traceback" not in log, log[-2000:]


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(method=METHODS, path=PATHS, body=BODIES, short_by=st.sampled_from([0, 0, 1, 50]),
       send_in=st.sampled_from([1, 1, 3, 10]), hang_up=st.booleans())
def requests_at_random(url, method, path, body, short_by, send_in, hang_up):
    # A body shorter than its Content-Length is only sent by a client that
    # then hangs up (the server waits 30 s for the rest, then answers 408).
    hang_up = hang_up or short_by > 0
    answer = http(url, request_bytes(method, path, body, len(body) + short_by),
                  send_in=send_in, pause=0.01, hang_up=hang_up)
    if not hang_up:
        head, _, content = answer.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        event(f"status {status}")
        assert head.startswith(b"HTTP/1."), answer[:200]
        if method != "HEAD" and (status >= 400 or path.startswith("/api/")):
            data = json.loads(content)
            if status >= 400:
                assert set(data) <= {"error", "retry_after"} and "\n" not in data["error"]
    started = time.perf_counter()
    sound = http(url, request_bytes("POST", "/api/advise", SOUND_QUESTION))
    assert sound.split(b" ", 2)[1] == b"200", sound[:300]
    assert time.perf_counter() - started < 5
