"""``farkle serve``'s JSON questions, asked over HTTP of a server started as
a person starts it: the page's answers are ``farkle advise --json``'s for
the same position, bad requests get 400 and one line while the server goes
on, a missing table says how to make it, and nothing is written.

Then the server as many phones meet it: an idle or slow client holds no
one else, every error is JSON (a wrong method, http.server's own errors),
no body, however odd, gets a 500, and a client that hangs up leaves no
traceback.

The page itself, in a browser, is tests/test_page.py."""

import json
import re
import socket
import struct
import time
import urllib.error
import urllib.request

import numpy as np
import pytest
from conftest import farkle, small_dix, start_server, stop_server

# Every game with a committed table, with its number of players.
COMMITTED = [("pig", 2), ("cinq-mille", 2), ("cinq-mille", 3), ("cinq-mille-exact", 2),
             ("cinq-mille-last1000", 2), ("cinq-mille-10000", 2)]


class Server:
    """``farkle serve --port 0`` in a scratch directory, with a scratch
    table directory; ``ask`` returns (status, JSON answer)."""

    def __init__(self, workdir, tables, *options):
        workdir.mkdir(exist_ok=True)
        self.process, self.url = start_server(tables, *options, cwd=workdir, home=workdir)

    def ask(self, path, body=None, raw=None, method=None, timeout=60):
        status, _, answer = self.ask_with_headers(path, body, raw, method, timeout)
        return status, answer

    def ask_with_headers(self, path, body=None, raw=None, method=None, timeout=60):
        """(status, headers, JSON answer)."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return answer.status, answer.headers, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.headers, json.loads(error.read())

    def address(self):
        host, port = self.url.rstrip("/").rsplit("/", 1)[1].split(":")
        return host, int(port)

    def connect(self):
        """A raw connection to the server, as a client that sends what it likes."""
        return socket.create_connection(self.address(), timeout=10)

    def stop(self):
        stop_server(self.process)


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    """The small dix-mille's rules file and its table, in scratch folders."""
    folder = tmp_path_factory.mktemp("serve")
    return (folder, *small_dix(folder))


@pytest.fixture(scope="module")
def server(house):
    folder, rules, tables = house
    running = Server(folder / "cwd", tables, "--rules", str(rules))
    yield running
    running.stop()


def best_entry(answer):
    """The entry that follows the advice (docs/rules.md's tie-break is the
    server's: its first choice)."""
    advice = answer["advice"]
    if advice["action"] == "keep":
        return {"keep": advice["keep"]}
    return {"choose": advice["action"]}


def play(server, game, players, rng, wanted, most=400):
    """Throw seeded dice and follow the advice, until ``wanted(answer)``
    holds at a decision; returns that answer."""
    settings = {"game": game, "players": players, "entries": []}
    for _ in range(most):
        status, answer = server.ask("/api/game", settings)
        assert status == 200, answer
        if answer["phase"] == "over":
            settings["entries"] = []            # a new game, same dice stream
            continue
        if answer["advice"] is not None and wanted(answer):
            return answer
        if answer["phase"] == "roll":
            entry = {"dice": [int(d) for d in rng.integers(1, 7, answer["in_hand"])]}
        elif answer["advice"] is None:          # a bank refused: roll on
            entry = {"choose": "roll"}
        else:
            entry = best_entry(answer)
        settings["entries"].append(entry)
    raise AssertionError(f"no such decision in {most} entries of {game}")


def cli_options(position):
    """``farkle advise`` options for an advice's position."""
    me, opps = position["me"], position["opp"]
    opps = opps if isinstance(opps, list) else [opps]
    options = ["--me", me["score"], "--crosses", me["crosses"]]
    if me["previous"] is not None:
        options += ["--previous", me["previous"]]
    for opp in opps:
        options += ["--opp", opp["score"], "--opp-crosses", opp["crosses"]]
        if opp["previous"] is not None:
            options += ["--opp-previous", opp["previous"]]
    if "offer" in position:
        return options + ["--offer", "{},{}".format(*position["offer"])]
    options += ["--turn", position["turn"], "--dice", position["dice"]]
    return options + (["--roll", *position["roll"]] if "roll" in position else [])


def same_as_cli(answer, *game):
    advice = answer["advice"]
    printed = farkle("advise", *game, *cli_options(advice["position"]), "--json", check=0)
    assert advice == json.loads(printed.stdout)


@pytest.mark.parametrize("game,players", COMMITTED)
def test_the_page_answers_as_farkle_advise(server, game, players):
    # Two decisions per game, twelve positions: a keep (a bank in Pig,
    # whose one die has no choice) and a later seat's bank, in the page's
    # game replayed by the server, against a separate `farkle advise`.
    first = "bank" if game == "pig" else "keep"
    wanted = [lambda a: a["phase"] == first,
              lambda a: a["phase"] == "bank" and a["mover"] > 0 and a["turn_number"] > 3]
    rng = np.random.default_rng(len(game) * 10 + players)
    for wanted_here in wanted:
        answer = play(server, game, players, rng, wanted_here)
        assert answer["model"] is None and len(answer["advice"]["choices"][0]["wins"]) == players
        same_as_cli(answer, game)


def test_take_over_and_crosses_as_farkle_advise(server, house, monkeypatch):
    _, rules, tables = house
    rng = np.random.default_rng(3)
    take = play(server, "dix-small", 2, rng, lambda a: a["phase"] == "take")
    assert {c["action"] for c in take["advice"]["choices"]} == {"take", "fresh"}
    crossed = play(server, "dix-small", 2, rng,
                   lambda a: a["phase"] in ("keep", "bank") and
                   any(line["crosses"] for line in a["sheet"]))
    monkeypatch.setenv("FARKLE_TABLES", str(tables))     # the table the server reads
    for answer in (take, crossed):
        same_as_cli(answer, "--rules", rules)


def test_the_chart_has_every_seat_at_every_turn_start(server):
    settings = {"game": "cinq-mille", "players": 3, "entries": [
        {"dice": [2, 3, 4, 6, 6]},                               # a zero roll: next player
        {"dice": [2, 3, 4, 6, 6]}]}
    status, answer = server.ask("/api/game", settings)
    assert status == 200 and answer["mover"] == 2
    points = answer["chart"]
    assert [p["turn"] for p in points] == [1, 2, 3] and [p["seat"] for p in points] == [0, 1, 2]
    # The committed 3-player table's seats (paper/players.json: 36.3, 33.2
    # and 30.5%), which sum to one.
    first = points[0]["chances"]
    assert [round(100 * c, 1) for c in first] == [36.3, 33.2, 30.5]
    assert abs(sum(first) - 1) < 1e-9
    # Two zero turns at 0 change nothing but whose turn it is: the third
    # seat now moves first, and the first seat is next.
    assert points[2]["chances"] == [first[1], first[2], first[0]]


def test_a_zero_entry_gives_its_cost(server):
    # Keeping a lone 5 of 1 2 3 4 5 in cinq-mille: the straight is best.
    settings = {"game": "cinq-mille", "players": 2,
                "entries": [{"dice": [1, 2, 3, 4, 5]}, {"keep": [5]}]}
    status, answer = server.ask("/api/game", settings)
    assert status == 200
    last = answer["last_decision"]
    assert last["chosen"]["keep"] == [5] and last["best"]["keep"] == [1, 2, 3, 4, 5]
    assert last["cost"] == pytest.approx(last["best"]["win"] - last["chosen"]["win"])
    assert last["cost"] > 0.01 and answer["sheet"][0]["given_up"] == last["cost"]


BAD = [
    ("/api/game", {"game": "cinq-mille", "entries": [{"dice": [1, 2, 3, 4, 7]}]},
     "a die shows 1 to 6, not 7"),
    ("/api/game", {"game": "cinq-mille", "entries": [{"dice": [1, 5, 2, 2, 3]},
                                                    {"keep": [6]}]},
     "6 is not in the roll 1 2 2 3 5"),
    ("/api/game", {"game": "cinq-mille", "entries": [{"dice": [1, 2, 3, 4, 6]},
                                                    {"keep": [1]}]},
     "a keep is not due now: bank or roll is"),
    ("/api/game", {"game": "cinq-mille", "entries": [{"choose": "dance"}]},
     'unknown entry {"choose": "dance"}'),
    ("/api/game", {"game": "cinq-mille", "entries": [{"dice": [1, 2, 3, 4, 6]},
                                                    {"choose": "bank"}]},
     "no bank before the entry of 750 (100 set aside)"),
    ("/api/game", {"game": "cinq-mille", "players": 7}, "players must be 2 to 6, not 7"),
    ("/api/game", {"game": "yahtzee"}, "unknown game 'yahtzee'"),
    ("/api/game", [1, 2], "the request body must be a JSON object"),
    ("/api/advise", {"game": "cinq-mille", "me": 1234, "opp": 0}, "1234"),
    ("/api/advise", {"game": "cinq-mille", "me": 4000, "opp": [0], "turn": 1500},
     "takes the score 4000 to the target"),
    ("/api/advise", {"game": "cinq-mille", "me": 0, "opp": [0], "roll": [1, 9, 3, 4, 5]},
     "every die must be 1 to 6"),
    # Bodies found by fuzzing, each once a 500 or a long wait.
    ("/api/advise", {"game": "cinq-mille", "me": None, "opp": 0},
     "me must be a whole number, not null"),
    ("/api/advise", {"game": "cinq-mille", "me": "0", "opp": 0},
     'me must be a whole number up to 1,000,000,000, not "0"'),
    ("/api/advise", {"game": "cinq-mille", "me": 0, "opp": [0, None]},
     "opp must be a score or a list of scores"),
    ("/api/advise", {"game": "cinq-mille", "me": 0, "opp": 0, "turn": 10**4000},
     "turn must be a whole number up to 1,000,000,000, not 1000000"),
    ("/api/advise", {"game": "cinq-mille", "me": 0, "opp": 0, "roll": [10**30]},
     "roll must be a list of whole numbers"),
    # As many opponents as `farkle advise --opp` takes, refused as it refuses.
    ("/api/advise", {"game": "cinq-mille", "me": 0, "opp": [0] * 6},
     "players must be 2 to 6, not 7 (me and 6 opponents)"),
    ("/api/advise", {"game": "cinq-mille", "me": 0, "opp": [0] * 1000},
     "players must be 2 to 6, not 1001"),
    ("/api/advise", "a question", "the request body must be a JSON object"),
    ("/api/game", {"game": "cinq-mille", "players": None, "entries": [{"choose": [1]}]},
     'unknown entry {"choose": [1]}'),
    ("/api/game", {"game": "cinq-mille", "players": 10**4000},
     "players must be a whole number"),
]


@pytest.mark.parametrize("path,body,message", BAD)
def test_a_bad_request_gets_400_and_one_line(server, path, body, message):
    status, answer = server.ask(path, body)
    assert status == 400 and message in answer["error"] and "\n" not in answer["error"]
    # The server goes on.
    assert server.ask("/api/game", {"game": "pig"})[0] == 200


def test_a_body_that_is_not_json(server):
    status, answer = server.ask("/api/game", raw=b"{entries: oops")
    assert status == 400 and answer["error"].startswith("the request body is not JSON")
    assert server.process.poll() is None


NOT_QUESTIONS = [
    # An integer longer than Python turns from text (a ValueError in json).
    (b'{"game": "cinq-mille", "me": ' + b"9" * 5000 + b', "opp": 0}',
     "the request body is not JSON: it holds a number too long to read"),
    # Nested past the recursion limit (a RecursionError in json).
    (b"[" * 100_000 + b"]" * 100_000, "the request body is nested too deeply"),
    # Nested within it, but far deeper than any question.
    (b'{"game": ' * 200 + b"0" + b"}" * 200, "the request body is nested over 16 deep"),
    (b"\xff\xfe\x00", "the request body is not JSON"),
]


@pytest.mark.parametrize("raw,message", NOT_QUESTIONS, ids=["digits", "deep", "nested", "bytes"])
def test_a_body_that_is_no_question_gets_400_and_one_line(server, raw, message):
    for path in ("/api/advise", "/api/game"):
        status, answer = server.ask(path, raw=raw)
        assert status == 400 and answer["error"].startswith(message), answer
        assert "\n" not in answer["error"] and len(answer["error"]) <= 300
    assert server.ask("/api/game", {"game": "pig"})[0] == 200


def test_an_idle_or_slow_client_holds_no_one_else(server):
    # One phone connects and says nothing; another sends its body a byte
    # at a time. A server answering one connection at a time waits on the
    # first for ever: here every other question is answered at once.
    idle = server.connect()
    slow = server.connect()
    slow.sendall(b"POST /api/advise HTTP/1.0\r\nContent-Length: 100\r\n\r\n{")
    try:
        for _ in range(3):
            started = time.monotonic()
            status, answer = server.ask("/api/advise", {"game": "pig", "me": 0, "opp": 0},
                                        timeout=5)
            assert status == 200 and answer["action"] in ("roll", "bank")
            assert time.monotonic() - started < 2
            slow.sendall(b" ")
        # The idle connection is closed after its 10 s of silence, not held
        # for ever (recv returns b"" once the server has closed it).
        idle.settimeout(15)
        started = time.monotonic()
        assert idle.recv(100) == b""
        assert time.monotonic() - started < 12
    finally:
        idle.close()
        slow.close()


WRONG_METHODS = [
    ("PUT", "/api/game", "POST"), ("DELETE", "/api/advise", "POST"),
    ("PATCH", "/api/game", "POST"), ("OPTIONS", "/api/advise", "POST"),
    ("GET", "/api/game", "POST"), ("POST", "/api/games", "GET, HEAD"),
    ("PUT", "/", "GET, HEAD"), ("DELETE", "/app.js", "GET, HEAD"),
]


@pytest.mark.parametrize("method,path,allow", WRONG_METHODS)
def test_a_wrong_method_gets_405_json_and_allow(server, method, path, allow):
    body = b"{}" if method in ("PUT", "PATCH", "POST") else None
    status, headers, answer = server.ask_with_headers(path, raw=body, method=method)
    assert status == 405 and headers["Allow"] == allow
    assert headers["Content-Type"] == "application/json"
    assert answer == {"error": f"{path} takes {allow.split(',')[0]}, not {method}"}


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE"])
def test_an_unknown_path_gets_404_json(server, method):
    status, answer = server.ask("/api/nothing", raw=b"{}" if method in ("POST", "PUT") else None,
                                method=method)
    assert status == 404 and answer == {"error": "no page /api/nothing"}


def test_head_and_the_loading_state(server):
    # HEAD: GET's headers, no body.
    request = urllib.request.Request(server.url, method="HEAD")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200 and answer.read() == b""
        length = int(answer.headers["Content-Length"])
    with urllib.request.urlopen(server.url, timeout=10) as answer:
        page = answer.read().decode()
    assert len(page.encode()) == length
    # The page says "loading…" in its HTML, shown before any script runs:
    # it is never blank while its first question is on its way.
    # (Its data-text names the message the page puts there in its language.)
    assert re.search(r'<p id="loading" role="status"[^>]*>loading…</p>', page)


def raw_answer(server, request: bytes):
    """What the server sends back to ``request`` sent as is: (status line,
    headers, body)."""
    with server.connect() as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *headers = head.decode().split("\r\n")
    return status, headers, body


HTTP_ERRORS = [
    (b"GARBAGE\r\n\r\n", "HTTP/1.0 400 Bad Request", "Bad request syntax ('GARBAGE')"),
    (b"GET / HTTP/9.9\r\n\r\n", "HTTP/1.0 505 HTTP Version Not Supported",
     "Invalid HTTP version (9.9)"),
    (b"BREW /pot HTTP/1.0\r\n\r\n", "HTTP/1.0 501 Not Implemented",
     "Unsupported method ('BREW')"),
    # One byte over http.server's 65,536 (no more: bytes left unread would
    # reset the connection before the answer is read).
    (b"GET /" + b"a" * 65_532, "HTTP/1.0 414 Request-URI Too Long", "Request-URI Too Long"),
    (b"POST /api/advise HTTP/1.0\r\nContent-Length: -5\r\n\r\n", "HTTP/1.0 400 Bad Request",
     "Content-Length is not a number of bytes: '-5'"),
]


@pytest.mark.parametrize("request_bytes,status,message", HTTP_ERRORS,
                         ids=["line", "version", "method", "uri", "length"])
def test_http_servers_own_errors_are_json(server, request_bytes, status, message):
    # http.server answers these itself, with an HTML page; here they are
    # JSON like every other answer.
    got, headers, body = raw_answer(server, request_bytes)
    assert got == status
    assert "Content-Type: application/json" in headers
    assert json.loads(body) == {"error": message}


def test_a_client_that_hangs_up_leaves_no_traceback(house):
    # A server of its own, to read everything it wrote to stderr.
    folder, rules, tables = house
    running = Server(folder / "hang-ups", tables)
    long_game = {"game": "pig", "entries": [{"dice": [1]}] * 3000}     # a 0.8 MB answer
    body = json.dumps(long_game).encode()
    question = b"POST /api/game HTTP/1.0\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    try:
        # Gone before the answer is written: a reset, with SO_LINGER 0,
        # makes the server's writes fail (BrokenPipeError, ConnectionResetError).
        for _ in range(3):
            connection = running.connect()
            connection.sendall(question)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
        # Gone in the middle of the body, and before saying anything.
        with running.connect() as connection:
            connection.sendall(question[:200])
        running.connect().close()
        # The same question asked whole is answered, after the others.
        assert running.ask("/api/game", long_game)[0] == 200
        time.sleep(1)
        assert running.ask("/api/game", {"game": "pig"})[0] == 200
    finally:
        running.process.terminate()
        running.process.wait(timeout=10)
        stderr = running.process.stderr.read()
        running.stop()
    assert "Traceback" not in stderr and "Error" not in stderr, stderr


def test_a_missing_table_says_how_to_make_it(server, tmp_path):
    # quinze-mille has no table in the scratch table directory.
    games = {g["name"]: g for g in server.ask("/api/games")[1]["games"]}
    assert games["quinze-mille"]["table"] is False
    assert games["quinze-mille"]["command"] == "farkle solve quinze-mille"
    status, answer = server.ask("/api/game", {"game": "quinze-mille"})
    assert status == 404
    assert answer["error"] == ("quinze-mille has no table here yet: make it with: "
                               "farkle solve quinze-mille")


def test_house_rules_come_first_and_nothing_is_written(server, house):
    folder, rules, tables = house
    games = server.ask("/api/games")[1]["games"]
    assert games[0]["name"] == "dix-small" and games[0]["house_rules"] is True
    assert games[0]["target"] == 800 and games[0]["crosses"] == 3 and games[0]["takeover"]
    assert games[0]["table"] is True
    # The server ran in folder/cwd with HOME there: it wrote nothing, and
    # the table directory holds the one table solved before it started.
    assert list((folder / "cwd").iterdir()) == []
    assert sorted(p.name for p in tables.iterdir()) == ["dix-small-800.h5"]


def test_the_model_with_more_players_than_tables(server):
    status, answer = server.ask("/api/game", {"game": "pig", "players": 4,
                                              "entries": [{"dice": [4]}]})
    assert status == 200 and answer["model"] == "duels"
    assert "independent duels" in answer["advice"]["note"]
    # The model knows the mover's chance only.
    assert answer["chart"][0]["chances"][1:] == [None, None, None]


def test_serve_refuses_a_bad_port(tmp_path):
    result = farkle("serve", "--port", "70000", check=2)
    assert result.stderr == "farkle: --port must be 0 to 65535, not 70000\n"


def test_serve_says_when_the_port_is_taken(server, tmp_path):
    port = server.url.rstrip("/").rsplit(":", 1)[1]
    result = farkle("serve", "--port", port, check=2)
    assert result.stderr.startswith(f"farkle: cannot serve on 127.0.0.1:{port}: ")
    assert "Traceback" not in result.stderr
