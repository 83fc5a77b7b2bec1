"""``farkle play`` in French, through a pseudo-terminal as a French player
would type it: French answers (m, marquer, r, relancer, a annuler), a wrong
answer asked again in French, French numbers (5 000 with a narrow no-break
space, 57,84 %), and not one English word on the screen; the committed
cinq-mille table, so that nothing is solved. And the ``play`` catalog (the
terminal's and the page's words) has the French of every message.
"""

import io
import os
import re
import signal
import sys

import pexpect
from conftest import answerer

from scripts.catalogs import problems

ENGLISH = [" the ", " you ", " and ", " of ", "bank", "Bank", "roll", "Roll", "keep", "turn",
           "best", "review", "seat", "seed", "cross", "dice", "player", "take over", "fresh"]
"""Words of the English screens that no French screen of the game holds."""


def french():
    """The environment of a French player: the locale says fr, nothing
    overrides it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    return {**env, "LANG": "fr_FR.UTF-8"}


def spawn(*args, env=None) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "play", *map(str, args)],
                          encoding="utf-8", timeout=120, dimensions=(60, 200), env=env or french(),
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    child.logfile_read = io.StringIO()
    return child


def english_words(text: str) -> list[str]:
    return [word for word in ENGLISH if word in text]


def test_every_message_of_play_has_its_french():
    assert problems(["play"]) == []


def test_a_game_against_the_bot_in_french():
    """Cinq-mille to 5 000 (the committed table) against the bot, seed 4:
    keeps by number, a die of 7 and a wrong key refused in French with the
    same question again, banks and rolls typed as m and r."""
    child = spawn("cinq-mille", "--seed", 4)
    prompts = [r"quels dés garder \(ou #N\) \? ", r"marquer \(m\) ou relancer \(r\) \? ",
               r" ; relancer \(r\) \? ", r"-- tour (\d+) : "]
    mistakes = {"keep": "7", "bank": "x", "entry": "m"}
    while True:
        found = child.expect(prompts)
        if found == 3:
            # A few turns, until every mistake has been made.
            turn = int(child.match.group(1))
            assert turn < 60, f"mistakes left to make: {mistakes}"
            if turn >= 5 and not mistakes:
                break
            continue
        if found == 0:
            if mistakes.pop("keep", None):
                child.sendline("7")
                child.expect("un dé va de 1 à 6, pas 7\r\n")
                child.expect(prompts[0])            # the same question again
            child.sendline("#1")
        elif found == 1:
            total = re.findall(r"points du tour : ([\d\u202f]+)", child.before)[-1]
            if mistakes.pop("bank", None):
                child.sendline("x")
                child.expect("tapez m pour marquer ou r pour relancer\r\n")
                child.expect(prompts[1])
            child.sendline("marquer" if int(total.replace("\u202f", "")) >= 300 else "r")
        else:
            if mistakes.pop("entry", None):
                # A bank before the entry: the reason, in French.
                child.sendline("m")
                child.expect(r"il faut 750 points pour entrer \(\d+ de côté\)\r\n")
                child.expect(prompts[2])
            child.sendline("relancer")
    child.expect(r"\? ")
    child.sendline("q")
    child.expect(r"bilan, vous : \d+ décisions?, ")
    child.expect(pexpect.EOF)
    child.close()
    text = child.logfile_read.getvalue()
    assert child.exitstatus == 0 and "Traceback" not in text
    assert mistakes == {}
    assert "cinq-mille en 5\u202f000, graine 4 : place 1 vous, place 2 le bot (optimal)" in text
    assert "-- tour 1 : à vous de jouer --" in text and "-- tour 2 : le bot (optimal) joue --" in text
    assert "vous lancez : " in text and "le bot (optimal) lance : " in text
    assert "partie arrêtée" in text
    # After each decision, the best choice with its chance, French style.
    assert re.search(r"  le mieux : .+, à \d+,\d\d\u00a0% ", text)
    assert english_words(text) == []


def test_coaching_a_real_game_in_french():
    """A real game of cinq-mille coached in French: the dice typed, a
    wrong count told in French, the help, the keeps with their chances and
    the best marked, a bank before the entry refused, a roll undone (a)."""
    child = spawn("cinq-mille", "--coach")

    answer = answerer(child)
    rolled = r"qu'est-il sorti \? "
    entry = r"il faut 750 points pour entrer \(250 de côté\)"
    child.expect("conseils pour cinq-mille en 5\u202f000 : tapez les dés de chaque jet")
    answer(r"joueur 1, jet de 5 dés : " + rolled, "1 2 3", "5 dés sont lancés : entrez-en 5, pas 3")
    answer(rolled, "?", "réponses : les dés en chiffres")
    answer(rolled, "1 1 5 2 3", r"  #1  1 1 5          250   \d+,\d\d\u00a0%")
    child.expect(r"  <- le mieux")
    answer(r"quels dés garder \(ou #N\) \? ", "#1",
           r"  le mieux : garder 1 \(100\) et relancer, à \d+,\d\d\u00a0% ; votre choix : "
           r"\d+,\d\d\u00a0%, coût \d+,\d\d pt")
    child.expect(r"points du tour : 250, 2 dés en main")
    answer(entry + r" ; relancer \(r\) \? ", "m", entry + "\r\n")
    answer(r"relancer \(r\) \? ", "relancer")
    answer(r"joueur 1, jet de 2 dés \(250 de côté\) : " + rolled, "a", "annulé")
    answer(entry + r" ; relancer \(r\) \? ", "r")
    answer(r"joueur 1, jet de 2 dés \(250 de côté\) : " + rolled, "6 6",
           "aucun dé ne marque : jet sans point, 250 perdus")
    answer(r"joueur 2, jet de 5 dés : " + rolled, "q", "partie arrêtée")
    child.expect(r"bilan, joueur 1 : 1 décision, coût total \d+,\d\d pt de chances de gagner")
    child.expect(r"tour 1, jet 1 1 2 3 5 avec 0 de côté : garder 1 1 5 \(250\) et relancer ; "
                 r"le mieux : garder 1 \(100\) et relancer ; coût")
    child.expect(pexpect.EOF)
    child.close()
    text = child.logfile_read.getvalue()
    assert child.exitstatus == 0 and "Traceback" not in text
    assert english_words(text) == []


def test_french_and_english_answers_mean_the_same():
    from solver.play.terminal import BANK_WORDS, TAKE_WORDS
    assert {BANK_WORDS[w] for w in ("m", "marquer", "b", "bank")} == {"bank"}
    assert {BANK_WORDS[w] for w in ("r", "relancer", "roll")} == {"roll"}
    assert {TAKE_WORDS[w] for w in ("p", "prendre", "reprendre", "t")} == {"take"}
    assert {TAKE_WORDS[w] for w in ("z", "zéro", "zero", "f")} == {"fresh"}
