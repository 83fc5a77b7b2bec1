"""``farkle serve``'s JSON questions, asked over HTTP of a server started as
a person starts it: the page's answers are ``farkle advise --json``'s for
the same position, bad requests get 400 and one line while the server goes
on, a missing table says how to make it, and nothing is written.

The page itself, in a browser, is tests/test_page.py."""

import json
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

    def ask(self, path, body=None, raw=None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

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
