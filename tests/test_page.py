"""The page of ``farkle serve`` in a real browser (headless Chromium driven
by Selenium), at a phone's size.

The server is started as a person starts it; the page is played by
clicking, and what it shows is checked against the server's own answer to
the same game (POST /api/game with the entries the page holds in
localStorage). Skipped where Selenium or ChromeDriver is missing.
"""

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import small_dix, start_server, stop_server

from solver.tables.lock import table_lock

pytest.importorskip("selenium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not CHROMEDRIVER.exists(), reason="no /usr/bin/chromedriver")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PHONE = (390, 844)
STORE = "farkle-table"
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--window-size={PHONE[0]},{PHONE[1]}"]
WAIT = 60
"""Seconds an answer may take (a table is read on its game's first question).
Generous on purpose: on a busy 2-core machine a page test failed at 20 s
(issue 68). A longer wait hides nothing: every wait is for one precise
state, and a wait that ends without it fails with what the page showed."""


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``farkle serve --port 0``, run from the checkout; its address."""
    yield from serving(tmp_path_factory.mktemp("user-tables"))


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    """dix-small.toml and its table: (rules file, table directory)."""
    return small_dix(tmp_path_factory.mktemp("house"))


@pytest.fixture(scope="module")
def house_server(house):
    """``farkle serve --rules dix-small.toml``, its table made first."""
    rules, tables = house
    yield from serving(tables, "--rules", str(rules))


def serving(tables, *options):
    process, url = start_server(tables, *options, cwd=ROOT)
    try:
        yield url
    finally:
        stop_server(process)


def chromium(user_data_dir, *arguments, prefs=None):
    """Headless Chromium the size of a phone, with its own profile, more
    command-line ``arguments`` and ``prefs``; quit when the caller is done
    (a generator, for a fixture to yield from)."""
    options = Options()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *arguments, f"--user-data-dir={user_data_dir}"):
        options.add_argument(flag)
    if prefs:
        options.add_experimental_option("prefs", prefs)
    # The driver's path is given: Selenium Manager is not asked for anything.
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        driver.set_page_load_timeout(WAIT)
        phone(driver)
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chromium"))


@pytest.fixture
def page(browser, server):
    page = Page(browser, server)
    page.open_fresh()
    return page


def phone(driver, height=PHONE[1]):
    """A phone's viewport, as DevTools' device mode makes it (headless
    Chromium keeps its windows at least 500 px wide)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": PHONE[0], "height": height, "deviceScaleFactor": 1,
                            "mobile": True})


def ask(url, path, body=None, headers=None):
    """(status, JSON) of a GET, or of a POST of ``body``."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, headers=headers or {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=WAIT) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


def api(url, body):
    """The server's answer to POST /api/game: (status, JSON)."""
    return ask(url, "api/game", body, {"Content-Type": "application/json"})


def pct(p):
    return f"{p * 100:.2f}%"


def pp(p):
    return f"{p * 100:.2f} pp"


class Page:
    """The page in the browser, and the game it holds."""

    def __init__(self, driver, url):
        self.driver, self.url = driver, url

    def open_fresh(self):
        # The storage is cleared from a page of the same origin that runs
        # no script: the app, opened with a saved game, would save it again.
        self.driver.get(self.url + "api/games")
        self.driver.execute_script("localStorage.clear()")
        self.driver.get(self.url)
        self.wait(lambda d: self.css("#setup").is_displayed()
                  and self.css("#game").get_attribute("value"))

    def wait(self, condition, timeout=WAIT):
        try:
            return WebDriverWait(self.driver, timeout).until(condition)
        except TimeoutException:
            body = self.driver.find_element(By.TAG_NAME, "body")
            raise AssertionError(f"the page did not reach the awaited state in {timeout} s; "
                                 f"busy={body.get_attribute('data-busy')!r}, it showed: "
                                 f"{body.text[:500]!r}") from None

    def css(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self, selector):
        return self.css(selector).text

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    # ------------------------------------------------------------ the game
    def stored(self):
        return self.js(f"return JSON.parse(localStorage.getItem('{STORE}'))")

    def entries(self):
        return self.stored()["entries"]

    def answer(self, extra=()):
        """The server's answer for the game the page holds (plus ``extra``
        entries): (status, JSON)."""
        saved = self.stored()
        return api(self.url, {**saved["settings"], "entries": saved["entries"] + list(extra)})

    def state(self):
        status, answer = self.answer()
        assert status == 200, answer
        return answer

    def settled(self, count):
        """Wait until the page has adopted ``count`` entries and is idle."""
        self.wait(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "0"
                  and self.css("#play").get_attribute("data-entries") == str(count))

    def act(self, selector):
        """Click a button that makes one entry; the server's answer after it."""
        count = len(self.entries())
        self.css(selector).click()
        self.settled(count + 1)
        return self.state()

    def roll(self, *faces):
        """Tap the dice of a roll (it goes in with the last one)."""
        count = len(self.entries())
        for face in faces:
            self.css(f'.face[data-face="{face}"]').click()
        self.settled(count + 1)
        assert self.entries()[-1] == {"dice": list(faces)}
        return self.state()

    def start(self, game, names, players=None):
        Select(self.css("#game")).select_by_value(game)
        Select(self.css("#players")).select_by_value(str(players or len(names)))
        for field, name in zip(self.all("#names .name"), names):
            field.clear()
            field.send_keys(name)
        self.css("#start").click()
        self.settled(0)
        assert self.stored()["settings"] == {"game": game, "players": players or len(names),
                                             "names": list(names)}
        return self.state()

    # ------------------------------------------------------------ checks
    def no_side_scroll(self):
        width = self.js("return document.documentElement.scrollWidth")
        assert width <= PHONE[0], f"the page is {width} px wide"

    def shown_choices(self):
        """(data-action, data-keep, percent shown, recommended) of each choice button."""
        return [(b.get_attribute("data-action"), b.get_attribute("data-keep"),
                 b.find_element(By.CSS_SELECTOR, ".win").text,
                 "best" in b.get_attribute("class").split())
                for b in self.all("#decision .choice")]

    def lines(self):
        """The number of points of each player's line in the chart."""
        lines = self.all("#chart polyline[data-seat]")
        return {int(line.get_attribute("data-seat")): len(line.get_attribute("points").split())
                for line in lines}

    def expect_chart(self, answer):
        """One line per player, through every chance the server knows."""
        known = {seat: sum(point["chances"][seat] is not None for point in answer["chart"])
                 for seat in range(answer["players"])}
        assert self.lines() == known
        return known


def advised(answer):
    """What the page should show for the advice of ``answer``."""
    choices = answer["advice"]["choices"]
    return [(c["action"], ",".join(map(str, c["keep"])) if "keep" in c else None, pct(c["win"]),
             i == answer["recommended"]) for i, c in enumerate(choices)]


# ---------------------------------------------------------------- the tests
def test_a_game_of_cinq_mille_by_clicking(page):
    # A game without its table is shown with the command that makes it and
    # cannot be started.
    Select(page.css("#game")).select_by_value("dix-mille")
    assert "farkle solve dix-mille" in page.text("#game-info")
    assert not page.css("#start").is_enabled()
    page.no_side_scroll()

    state = page.start("cinq-mille", ["Ann", "Bob"])
    assert state["phase"] == "roll" and state["mover"] == 0
    assert "Ann" in page.text("#status") and "to play" in page.text("#status")
    assert [r.text.split()[0] for r in page.all("#sheet tbody tr")] == ["▶", "Bob"]
    assert page.lines() == {0: 1, 1: 1}
    faces = page.all(".face")
    assert [f.get_attribute("data-face") for f in faces] == list("123456")
    assert all(f.size["width"] >= 44 and f.size["height"] >= 44 for f in faces)
    page.no_side_scroll()

    # Ann rolls 1 1 1 2 3: every keep with its chance, the best recommended.
    state = page.roll(1, 1, 1, 2, 3)
    assert state["phase"] == "keep"
    assert page.shown_choices() == advised(state)
    assert [k for _, k, _, _ in page.shown_choices()] == ["1,1,1", "1", "1,1"]
    page.no_side_scroll()

    # She keeps the recommended 1 1 1: bank or roll, each with its chance.
    state = page.act('.choice[data-keep="1,1,1"]')
    assert state["phase"] == "bank" and state["bank_refusal"] is None
    assert sorted(page.shown_choices()) == sorted(advised(state))
    assert {a for a, _, _, _ in page.shown_choices()} == {"bank", "roll"}
    assert "best choice" in page.text("#last-decision")
    assert page.text("#turn-total") == "1000"
    page.no_side_scroll()

    # She banks: the turn ends, the chart has a second point for each.
    state = page.act('.choice[data-action="bank"]')
    assert state["mover"] == 1 and state["sheet"][0]["score"] == 1000
    assert page.css('#sheet tr[data-seat="0"] .score').text == "1000"
    assert page.expect_chart(state) == {0: 2, 1: 2}
    assert "Bob" in page.text("#mover")
    assert "Ann banked 1000" in page.text("#log")

    # Throw for me: random dice, as many as are in hand; undo takes them back.
    count = len(page.entries())
    page.css("#throw").click()
    page.settled(count + 1)
    thrown = page.entries()[-1]["dice"]
    assert len(thrown) == 5 and all(1 <= d <= 6 for d in thrown)
    page.css("#undo").click()
    page.settled(count)
    assert len(page.entries()) == count and page.css("#play").get_attribute("data-phase") == "roll"

    # Bob rolls 1 2 3 4 6: the 1 is kept (the only keep), 100 is short of
    # the entry of 750. A bank is shown all the same; the server refuses it,
    # the page says why and keeps the game as it was.
    state = page.roll(1, 2, 3, 4, 6)
    assert state["phase"] == "bank" and state["advice"] is None
    assert page.text("#refusal") == state["bank_refusal"]
    before = page.entries()
    status, refused = page.answer([{"choose": "bank"}])
    assert status == 400 and "entry" in refused["error"]
    page.css('.choice[data-action="bank"]').click()
    page.wait(lambda d: page.css("#message").is_displayed())
    assert page.text("#message") == refused["error"]
    assert page.entries() == before
    assert page.css("#play").get_attribute("data-entries") == str(len(before))
    page.no_side_scroll()

    # Undo drops the roll: Bob's roll is due again, and the message goes.
    page.css("#undo").click()
    page.settled(len(before) - 1)
    assert page.entries() == before[:-1]
    assert page.state()["phase"] == "roll"
    assert not page.css("#message").is_displayed()

    # Bob rolls 1 1 3 3 5 and keeps 1 1 rather than the best 1: what it
    # cost, on the last decision and on his line of the sheet.
    state = page.roll(1, 1, 3, 3, 5)
    assert page.shown_choices() == advised(state)
    state = page.act('.choice[data-keep="1,1"]')
    decision = state["last_decision"]
    assert decision["cost"] > 0 and decision["chosen"]["keep"] == [1, 1]
    assert f"cost {pp(decision['cost'])}" in page.text("#last-decision")
    assert page.css('#sheet tr[data-seat="1"] .given-up').text == pp(state["sheet"][1]["given_up"])
    assert page.css('#sheet tr[data-seat="0"] .given-up').text == pp(0)

    # He rolls his three dice on and scores nothing: Ann's turn, a third point.
    state = page.act('.choice[data-action="roll"]')
    state = page.roll(2, 3, 4)
    assert state["mover"] == 0 and state["sheet"][1]["score"] == 0
    assert page.expect_chart(state) == {0: 3, 1: 3}
    assert "no die scores" in page.text("#log")

    # Ann rolls again: the advice and the chart, on a phone, for the README.
    state = page.roll(1, 1, 5, 3, 3)
    assert page.shown_choices() == advised(state)
    page.no_side_scroll()
    height = page.js("return document.documentElement.scrollHeight")
    phone(page.driver, height)
    try:
        (ROOT / "docs").mkdir(exist_ok=True)
        assert page.driver.save_screenshot(str(ROOT / "docs" / "page.png"))
    finally:
        phone(page.driver)

    # A reload resumes the game where it was.
    entries = page.entries()
    page.driver.refresh()
    page.settled(len(entries))
    assert page.entries() == entries and page.shown_choices() == advised(state)

    # New game: back to the setup.
    page.css("#new-game").click()
    page.wait(lambda d: page.css("#setup").is_displayed())
    assert not page.css("#play").is_displayed()


@pytest.mark.parametrize("players, model", [(3, None), (4, "duels")])
def test_more_players_one_line_each(page, players, model):
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    state = page.start("cinq-mille", names)
    assert state["model"] == model
    assert len(page.all("#sheet tbody tr")) == players
    assert page.expect_chart(state) == {seat: int(seat == 0 or model is None)
                                        for seat in range(players)}
    assert [li.text.split()[0] for li in page.all("#legend li")] == names
    if model:
        assert "duels" in page.text("#model")
    # Ann scores nothing; Bob's turn: each player known at the new point too
    # (the model knows the mover's chance only).
    state = page.roll(2, 3, 4, 6, 6)
    assert state["mover"] == 1
    assert page.expect_chart(state) == {seat: 2 if model is None else int(seat < 2)
                                        for seat in range(players)}
    state = page.roll(1, 1, 3, 3, 5)
    assert page.shown_choices() == advised(state)
    if model:
        assert page.text("#note") == state["advice"]["note"]
    page.no_side_scroll()


@pytest.mark.parametrize("players", [2, 3])
def test_the_strategy_card_is_shown_beside_the_sheet(page, players):
    """Below the chart, a fold opens the game's strategy card as ``farkle
    card`` prints it (Pig's card for three with three players), without
    a note where it was fitted for that many, and without side scrolling
    at a phone's width."""
    import subprocess
    import sys
    state = page.start("pig", ["Ann", "Bob", "Cy"][:players])
    printed = subprocess.run([sys.executable, "-m", "solver.cli", "card", "pig", "--players",
                              str(players)], capture_output=True, text=True, check=True).stdout
    text = "\n".join(line for line in printed.splitlines() if not line.startswith("("))
    assert state["card"]["text"] == text and state["card"]["players"] == players
    box = page.css("#card-box")
    assert box.is_displayed() and not page.css("#card").is_displayed()
    page.css("#card-box summary").click()
    page.wait(lambda d: page.css("#card").is_displayed())
    assert page.js("return document.getElementById('card').textContent") == text
    assert page.text("#card").splitlines()[0].startswith("pig: strategy card (")
    assert page.text("#card-note") == ""
    page.no_side_scroll()


def test_a_final_round_by_clicking(page):
    """Farkle's final round on the page (the committed table): Ann rolls
    six 6s four times and banks 12,000; Bob's last turn is a zero roll and
    the game is Ann's."""
    state = page.start("farkle", ["Ann", "Bob"])
    for turn_total in (3000, 6000, 9000, 12000):
        state = page.roll(6, 6, 6, 6, 6, 6)
        assert state["phase"] == "keep"
        state = page.act('.choice[data-keep="6,6,6,6,6,6"]')
        assert state["phase"] == "bank" and state["turn_total"] == turn_total
        if turn_total < 12000:
            state = page.act('.choice[data-action="roll"]')
    # Past the target the table still prices the bank against rolling on.
    assert {a for a, _, _, _ in page.shown_choices()} == {"bank", "roll"}
    state = page.act('.choice[data-action="bank"]')
    assert state["to_pass"] == 12000 and state["mover"] == 1 and state["phase"] == "roll"
    assert "Bob: one last turn to pass 12000" in page.text("#log")
    state = page.roll(2, 2, 3, 4, 6, 6)
    assert state["phase"] == "over" and state["winner"] == 0
    assert page.text("#winner") == "Ann wins with 12000"
    page.no_side_scroll()


def test_take_over_and_a_cross_by_clicking(browser, house_server):
    """House rules given to serve: a dix-mille to 800, with the crosses and
    previous scores on the sheet, an offer taken over, and a cross."""
    page = Page(browser, house_server)
    page.open_fresh()
    assert page.css("#game").get_attribute("value") == "dix-small"     # house rules first
    state = page.start("dix-small", ["Ann", "Bob"])
    assert [th.text for th in page.all("#sheet thead th")][1:4] == ["Score", "✕", "Prev."]
    # No card fitted for this house game: no card shown.
    assert state["card"] is None and not page.css("#card-box").is_displayed()
    # Ann enters with three 5s (every scoring die is set aside) and banks
    # 500 with 2 dice unset; Bob, not entered, may not take them over.
    page.roll(5, 5, 5, 2, 3)
    state = page.act('.choice[data-action="bank"]')
    assert state["phase"] == "roll" and state["mover"] == 1
    # Bob does the same; Ann, entered, is offered his 500 with 2 dice.
    page.roll(5, 5, 5, 2, 3)
    state = page.act('.choice[data-action="bank"]')
    assert state["phase"] == "take" and state["offer"] == {"points": 500, "dice": 2}
    assert "500 with 2 dice" in page.text("#offer")
    assert sorted(page.shown_choices()) == sorted(advised(state))
    assert {a for a, _, _, _ in page.shown_choices()} == {"take", "fresh"}
    page.no_side_scroll()
    # She takes over and rolls nothing that scores: a cross, and Bob moves.
    state = page.act('.choice[data-action="take"]')
    assert state["phase"] == "roll" and state["turn_total"] == 500 and state["in_hand"] == 2
    state = page.roll(2, 3)
    assert state["mover"] == 1 and state["sheet"][0]["crosses"] == 1
    ann = page.all("#sheet tbody tr")[0].text.split()
    assert ann[:4] == ["Ann", "500", "✕", "0"]     # score, one cross, previous score
    assert page.all("#log li")[0].text == "Ann gets cross 1"


def test_a_table_another_farkle_is_making_is_waited_for(browser, house, tmp_path):
    """While another process holds the table's lock, the page says the table
    is being made and looks again by itself; once the table is there, Start
    is offered and the game plays (issue 68, point 1). A game asked for
    meanwhile (a saved one) gets 503 and is asked again: tests/test_faults.py."""
    rules, made = house
    tables = tmp_path / "tables"
    tables.mkdir()
    with table_lock(tables / "dix-small-800.h5"):
        process, url = start_server(tables, "--rules", str(rules), cwd=ROOT)
        try:
            page = Page(browser, url)
            page.open_fresh()
            Select(page.css("#game")).select_by_value("dix-small")
            page.wait(lambda d: "Being solved now by another farkle" in page.text("#game-info"))
            assert not page.css("#start").is_enabled()
            shutil.copy(made / "dix-small-800.h5", tables / "dix-small-800.h5")
        except BaseException:
            stop_server(process)
            raise
    try:
        page.wait(lambda d: page.css("#start").is_enabled())
        assert "Being solved" not in page.text("#game-info")
        assert page.start("dix-small", ["Ann", "Bob"])["phase"] == "roll"
    finally:
        stop_server(process)
