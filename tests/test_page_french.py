"""The page of ``farkle serve`` for a French phone: headless Chromium with
French as the browser's language (``--lang=fr`` and the
``intl.accept_languages`` preference). The page speaks French by itself,
writes its numbers the French way (1 000 with a narrow no-break space,
51,31 %), switches to English and back with its FR | EN switch (kept over
a reload), and the API answers its errors in the request's language.
One browser session for the file; tests/test_page.py's page helpers.
"""

import re
from pathlib import Path

import pytest
from test_page import CHROMEDRIVER, Page, ask, chromium, server  # noqa: F401

pytest.importorskip("selenium")
pytestmark = pytest.mark.skipif(not Path(CHROMEDRIVER).exists(), reason="no chromedriver")

from selenium.webdriver.support.ui import Select  # noqa: E402

NNBSP, NBSP = "\u202f", "\u00a0"
ENGLISH = [" the ", " you ", " and ", " of ", "Bank", "bank", "Roll", "roll", "Keep", "keep",
           "Turn", "turn", "Score sheet", "Undo", "New game", "Player", "recommended", "Throw",
           "Chances of", "Strategy", "events", "dice", "wins", "entry"]
"""English words that no French screen of the page holds."""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Chromium as a French phone has it."""
    yield from chromium(tmp_path_factory.mktemp("chromium-fr"), "--lang=fr",
                        prefs={"intl.accept_languages": "fr-FR,fr"})


def french_percent(text: str) -> float:
    """``51,31 %`` (a no-break space before the sign) as 0.5131."""
    match = re.fullmatch(r"(\d+),(\d\d)" + NBSP + "%", text)
    assert match, f"not a French percentage: {text!r}"
    return float(f"{match.group(1)}.{match.group(2)}") / 100


def test_the_page_in_french_and_back(browser, server):  # noqa: F811
    page = Page(browser, server)
    page.open_fresh()
    content = lambda selector: page.js(  # noqa: E731
        "return document.querySelector(arguments[0]).textContent", selector)
    assert page.js("return navigator.languages[0]").startswith("fr")
    page.wait(lambda d: page.js("return document.documentElement.lang") == "fr"
              and page.text("h1") == "Table de dés")
    assert page.text("#start") == "Commencer" and page.driver.title.startswith("Table de dés")
    assert page.css('#lang-switch [data-lang="fr"]').get_attribute("aria-pressed") == "true"
    Select(page.css("#game")).select_by_value("cinq-mille")
    assert content("#game-info") == f"objectif 5{NNBSP}000 · 5 dés · entrée à 750"
    assert "Table exacte à 2 joueurs." == page.text("#players-info")

    state = page.start("cinq-mille", ["Ann", "Bob"])
    assert "Tour 1 : à Ann de jouer" in page.text("#status")
    # Ann's keeps, each with its chance written the French way.
    state = page.roll(1, 1, 1, 2, 3)
    assert page.text("#decision h2") == "Le jet"
    shown = [french_percent(b.get_attribute("textContent"))
             for b in page.all("#decision .choice .win")]
    assert shown == pytest.approx([c["win"] for c in state["advice"]["choices"]], abs=0.00006)
    assert "conseillé" in page.text("#decision").lower()
    state = page.act('.choice[data-keep="1,1,1"]')
    assert content("#turn-total") == f"1{NNBSP}000"
    assert "le meilleur choix" in page.text("#last-decision")
    state = page.act('.choice[data-action="bank"]')
    assert content('#sheet tr[data-seat="0"] .score') == f"1{NNBSP}000"
    assert f"Ann a marqué 1{NNBSP}000, total 1{NNBSP}000" in content("#log")

    # Bob is not entered: the bank is refused with the reason, in French.
    state = page.roll(1, 2, 3, 4, 6)
    status, refused = ask(server, "api/game?lang=fr", {**page.stored()["settings"],
                                                       "entries": page.entries() + [{"choose": "bank"}]})
    assert status == 400 and refused["error"] == "il faut 750 points pour entrer (100 de côté)"
    assert page.text("#refusal") == refused["error"]
    page.css('.choice[data-action="bank"]').click()
    page.wait(lambda d: page.css("#message").is_displayed())
    assert page.text("#message") == refused["error"]
    text = page.js("return document.body.innerText")
    assert [word for word in ENGLISH if word in text] == []

    # EN: the same game in English words and numbers, the server's words too.
    page.css('#lang-switch [data-lang="en"]').click()
    page.wait(lambda d: page.text("h1") == "Dice table" and "Roll on" in page.text("#decision"))
    assert page.js("return localStorage.getItem('farkle-lang')") == "en"
    assert "Ann banked 1000, now 1000" in page.text("#log")
    assert page.text("#refusal") == "no bank before the entry of 750 (100 set aside)"
    assert page.css('#sheet tr[data-seat="0"] .score').text == "1000"
    # FR again, and kept over a reload.
    page.css('#lang-switch [data-lang="fr"]').click()
    page.wait(lambda d: page.text("h1") == "Table de dés" and "Relancer" in page.text("#decision"))
    entries = page.entries()
    page.driver.refresh()
    page.settled(len(entries))
    page.wait(lambda d: page.text("#refusal") == refused["error"])
    assert page.text("h2[data-text=sheet]") == "Feuille de score"
    page.no_side_scroll()


def test_the_api_answers_in_the_requests_language(server):  # noqa: F811
    unknown = {"game": "nope"}
    status, answer = ask(server, "api/game?lang=fr", unknown)
    assert status == 400 and answer["error"].startswith("jeu inconnu 'nope' ; jeux servis : ")
    status, answer = ask(server, "api/game", unknown)
    assert status == 400 and answer["error"].startswith("unknown game 'nope'; served games: ")
    status, answer = ask(server, "api/game", unknown,
                         {"Accept-Language": "de-DE, fr;q=0.8, en;q=0.5"})
    assert answer["error"].startswith("jeu inconnu")
    status, answer = ask(server, "api/nothing?lang=fr")
    assert status == 404 and answer == {"error": "pas de page /api/nothing"}
    # The page's words: French for every one, three plural forms; none in English.
    status, french = ask(server, "api/messages?lang=fr")
    assert status == 200 and french["lang"] == "fr"
    assert french["messages"]["New game"] == "Nouvelle partie"
    assert french["messages"]["{n} die"] == ["{n} dé", "{n} dés", "{n} dés"]
    assert all(french["messages"].values())
    assert ask(server, "api/messages?lang=en") == (200, {"lang": "en", "messages": {}})
