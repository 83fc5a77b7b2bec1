"""The layers below the command line in French: the ``library`` catalog has
the French of every message; an unknown game, a bad house-rules file and
an impossible position are refused in one French line (exit 2), whether
the locale says fr or ``--lang fr`` does; the strategy cards read as a
French player says them, with French numbers (10 000 with a narrow
no-break space; 350 stays 350; 0,96), line for line the English card's
rules; ``farkle variants`` describes the games in French; and what goes
into ``--json`` stays English.
"""

import json
import os
import subprocess
import sys

import pytest

from scripts.catalogs import problems
from solver.cards.store import find_card
from solver.cards.text import card_text
from solver.model.rules import GAMES
from solver.text import set_language

NNBSP = "\u202f"
ENGLISH = [" the ", " you ", " and ", " of ", " is ", " must ", " not ", " with ", "Bank",
           "bank", "Roll", "Keep", "Take over", "player", "dice"]
"""Words of the English messages that no French one holds."""


def english_words(text: str) -> list[str]:
    return [word for word in ENGLISH if word in text]


def french_env() -> dict:
    """A French player's environment: the locale says fr, nothing overrides it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return {**env, "LANG": "fr_FR.UTF-8"}


def english_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return {**env, "LANG": "C.UTF-8"}


WAYS = {"locale": (french_env, []), "--lang": (english_env, ["--lang", "fr"])}
"""French by the locale (LANG=fr_FR.UTF-8), or by --lang fr in an English one."""


def farkle(way: str, *args):
    env, options = WAYS[way]
    return subprocess.run([sys.executable, "-m", "solver.cli", *map(str, args), *options],
                          capture_output=True, text=True, timeout=120, env=env())


@pytest.fixture
def french():
    set_language("fr")
    yield
    set_language(None)


def test_every_message_of_the_library_has_its_french():
    assert problems(["library"]) == []


BAD_HOUSE = 'base = "cinq-mille"\ntarget = 1500\nentry = "five hundred"\n'


@pytest.mark.parametrize("way", WAYS)
def test_bad_input_is_refused_in_one_french_line(way, tmp_path):
    house = tmp_path / "maison.toml"
    house.write_text(BAD_HOUSE)
    cases = [
        (("advise", "nope", "--me", 0, "--opp", 0), ["jeu inconnu 'nope'", "jeux connus :"]),
        (("variants", "--rules", house), [f"{house} : entry : il faut un nombre entier de points",
                                          'pas "five hundred"']),
        # Impossible positions, from the rules alone (nothing is solved).
        (("advise", "cinq-mille", "--me", 100, "--opp", 0),
         ["mon score (100) est impossible au cinq-mille (entrée à 750)"]),
        (("advise", "dix-mille", "--me", 10050, "--opp", 0),
         [f"mon score (10{NNBSP}050) doit valoir au moins 0 et rester sous l'objectif "
          f"10{NNBSP}000"]),
    ]
    # --lang: the same messages, two of the cases suffice.
    for args, expected in cases if way == "locale" else cases[1::2]:
        result = farkle(way, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("farkle: "), result.stderr
        for text in expected:
            assert text in lines[0], (text, lines[0])
        assert not english_words(lines[0].replace(str(house), "")), lines[0]


def french_card(name: str) -> tuple[list[str], list[str]]:
    """The stored card of ``name`` in French and in English, line by line."""
    rules = GAMES[name]
    found = find_card(rules)
    args = (found.card, rules, found.loss, found.players, found.then_table)
    return card_text(*args).splitlines(), card_text(*args, lang="en").splitlines()


def test_dix_mille_card_in_french(french):
    lines, english = french_card("dix-mille")
    assert len(lines) == len(english)
    text = "\n".join(lines)
    assert not english_words(text), english_words(text)
    assert lines[0] == ("dix-mille : fiche de stratégie (deux joueurs) ; perd 0,96 partie sur "
                        "100 face au jeu parfait")
    assert lines[1] == "Ne jamais marquer sous 350 avant d'être entré."
    assert lines[2] == (f"Marquer quand les points du tour atteignent, selon les dés à "
                        f"relancer : 5 dés : 5{NNBSP}000 | 4 dés : 1{NNBSP}950 | 3 dés : 250 | "
                        f"2 dés : toujours | 1 dé : 200")
    assert lines[-1].startswith("Reprendre les points du joueur précédent quand ces points "
                                "+ 150 par dé laissé font 800 ou plus ; un seul dé : ")
    # The glossary's words, each where the card says it.
    for words in ("l'adversaire pas encore entré (il ne peut pas reprendre)",
                  "à une croix de la chute : retirer 200",
                  f"pour faire 10{NNBSP}000", "(trois 5, une suite)", "en reprenant",
                  "tant que les points du tour sont sous"):
        assert words in text, words
    # 350, 250 and 200 are not grouped; 10 000 is, with a narrow no-break space.
    assert "10 000" not in text and "10,000" not in text and "1.950" not in text


def test_cinq_mille_card_in_french(french):
    lines, english = french_card("cinq-mille")
    assert len(lines) == len(english) == 6
    assert lines[1] == (f"Ne jamais marquer sous 750 avant d'être entré, ni sans atteindre "
                        f"5{NNBSP}000 dès que l'un des deux joueurs en est à 300 ou plus près.")
    assert lines[3] == "  ajouter 50 par tranche de 600 points de retard (retirer 50 par " \
                       "tranche de 600 d'avance)"
    assert lines[4].startswith("Garder : le plus de points + les dés à relancer, qui valent "
                               "5 dés : 250 | 4 dés : 200 |")
    assert lines[5] == "  avec 600 points du tour ou plus : le plus de points (400 si on mène)."
    assert not english_words("\n".join(lines))


def test_english_card_stays_english_whatever_the_language(french):
    """``lang="en"`` (a file, ``--json``) is the English card whatever the
    reader's language; the reader's language goes back as it was."""
    rules = GAMES["quinze-mille-free-keep"]
    found = find_card(rules)
    args = (found.card, rules, found.loss, found.players, found.then_table)
    english = card_text(*args, lang="en")
    assert english.startswith("quinze-mille-free-keep: strategy card (two players); gives up "
                              "1.55 points of 100 against perfect play (0.59 if you ask")
    assert "dés" in card_text(*args)
    set_language("en")
    assert card_text(*args) == english


@pytest.mark.parametrize("way", WAYS)
def test_card_and_variants_through_the_command(way):
    card = farkle(way, "card", "dix-mille")
    assert card.returncode == 0, card.stderr
    assert card.stdout.startswith("dix-mille : fiche de stratégie (deux joueurs)")
    assert not english_words(card.stdout)
    variants = farkle(way, "variants")
    assert variants.returncode == 0, variants.stderr
    described = {line.split()[0]: line for line in variants.stdout.splitlines()}
    assert (f"5 dés, 10{NNBSP}000 tout juste, entrée à 350, tous les dés qui marquent mis de "
            "côté, main pleine obligatoire, trois croix font redescendre au score précédent, "
            "reprise une fois entré") in described["dix-mille"]
    assert f"cinq-mille en 5{NNBSP}000 tout juste ; dépasser donne un tour à zéro" in \
        described["cinq-mille-exact"]
    assert "jeu de référence : un dé" in described["pig"]


def test_json_stays_english_under_a_french_locale(tmp_path):
    """The note of an answer and a game's summary: French on the screen,
    English in --json."""
    position = ("advise", "cinq-mille", "--me", 1500, "--opp", 2000, "--turn", 600, "--dice", 2,
                "--roll", 2, 3)
    shown = farkle("locale", *position)
    assert shown.stdout.startswith("jet sans point : aucun dé ne marque, le tour est perdu\n")
    answer = json.loads(farkle("locale", *position, "--json").stdout)
    assert answer["note"] == "zero roll: no die scores, the turn is lost"
    house = tmp_path / "house.toml"
    house.write_text('base = "cinq-mille"\ntarget = 1500\nentry = 500\n')
    assert "cinq-mille avec target 1500, entry 500" in farkle("locale", "variants", "--rules",
                                                               house).stdout
    rows = json.loads(farkle("locale", "variants", "--json").stdout)
    assert {row["name"]: row["summary"] for row in rows}["cinq-mille-10000"] == \
        "cinq-mille played to 10,000"
