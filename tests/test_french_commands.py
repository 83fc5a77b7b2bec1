"""The ``farkle`` command in French, as a French player runs it: through
subprocesses whose locale says French (LANG=fr_FR.UTF-8, no LANGUAGE) or
with ``--lang fr``, and once through a pseudo-terminal. French words and
numbers (10 000 with a narrow no-break space, 53,1 % with a no-break space),
argparse's own messages in French, errors in one French line with exit
status 2, ``--lang en`` beating the locale, ``--json`` the same bytes in
every language; and the ``commands`` catalog has the French of every
message of solver/cli.
"""

import io
import json
import os
import re
import sys

import pexpect
import pytest
from conftest import farkle

from scripts.catalogs import problems
from solver.text import NARROW_NBSP, NBSP

ENGLISH = [" the ", " you ", " and ", " of ", " or ", "bank", "Bank", "roll", "Roll", "keep",
           "then", "wins", "zero", "dice", "opponent", "target", "entry", "must", "required",
           "argument ", "expected", "invalid", "please"]
"""Words of the English screens that none of the French screens below holds
(game names aside: "dix-mille-free-keep" is a name)."""

GAMES = re.compile(r"\b[\w-]*-free-keep\b")


def english_words(text: str) -> list[str]:
    text = GAMES.sub("", text)
    return [word for word in ENGLISH if word in text]


def french() -> dict:
    """The environment of a French player: the locale says fr and nothing
    overrides it (conftest sets LANGUAGE=en for the rest of the suite).
    Read at each call: FARKLE_TABLES is each test's own."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    return {**env, "LANG": "fr_FR.UTF-8"}


def test_every_message_of_the_commands_has_its_french():
    assert problems(["commands"]) == []


CINQ_MILLE_ROLL = ["advise", "cinq-mille", "--me", 3000, "--opp", 4200, "--turn", 350,
                   "--dice", 5, "--roll", 1, 1, 5, 5, 3]


def test_advise_in_french_by_the_locale_and_by_lang():
    """The committed cinq-mille table: keep 1 1 5 5 and bank. The same
    screen whether the locale or --lang (before or after the command) asks
    for French; --lang en beats a French locale."""
    by_locale = farkle(*CINQ_MILLE_ROLL, "--card", env=french(), check=0).stdout
    lines = by_locale.splitlines()
    assert lines[0] == f"garder 1 1 5 5 (300) et marquer  20,08{NBSP}%"
    assert f"garder 1 (100) et relancer       18,26{NBSP}%" in lines
    assert lines[-1] == "la fiche : garder 1 1 5 5, le meilleur choix"
    assert english_words(by_locale) == []
    assert farkle(*CINQ_MILLE_ROLL, "--card", "--lang", "fr", check=0).stdout == by_locale
    assert farkle("--lang=fr", *CINQ_MILLE_ROLL, "--card", check=0).stdout == by_locale
    english = farkle(*CINQ_MILLE_ROLL, "--lang", "en", env=french(), check=0).stdout
    assert english.splitlines()[0] == "keep 1 1 5 5 (300), then bank     20.08%"
    # More players: each opponent's chance, in French.
    three = farkle("advise", "cinq-mille", "--me", 1000, "--opp", 2000, "--opp", 750,
                   "--lang", "fr", check=0).stdout
    assert three == f"relancer                         23,93{NBSP}%   adversaires " \
                    f"63,23{NBSP}% 12,85{NBSP}%\n"


@pytest.fixture(scope="module")
def dix_mille_600(tmp_path_factory):
    """Dix-mille to 600 (crosses, falls, take-over), solved into a table
    directory of its own in a few seconds."""
    tables = tmp_path_factory.mktemp("dix-600")
    farkle("solve", "dix-mille", "--target", 600, "--json",
           env={**os.environ, "FARKLE_TABLES": str(tables)}, check=0)
    return tables


def test_advise_a_dix_mille_position_in_french(dix_mille_600):
    """Two crosses, one more zero turn falls back to the previous score:
    the choices in the table's words, and the same choices as in English."""
    env = {**french(), "FARKLE_TABLES": str(dix_mille_600)}
    position = ["advise", "dix-mille", "--target", 600, "--me", 400, "--opp", 450,
                "--crosses", 2, "--previous", 0, "--turn", 50, "--dice", 4]
    out = farkle(*position, env=env, check=0).stdout
    english = farkle(*position, "--lang", "en", env=env, check=0).stdout
    words = {"bank": "marquer", "roll": "relancer"}
    assert [line.split()[0] for line in out.splitlines()] == \
        [words[line.split()[0]] for line in english.splitlines()]
    assert all(line.endswith(f"{NBSP}%") and "," in line for line in out.splitlines())
    kept = farkle(*position, "--roll", 5, 2, 3, 4, env=env, check=0).stdout
    assert kept == f"garder 5 (50) et relancer        55,39{NBSP}%\n"
    assert english_words(out + kept) == []


def test_keeps_and_variants_in_french():
    env = french()
    keeps = farkle("keeps", "dix-mille-free-keep", 1, 1, 1, 2, 5, env=env, check=0).stdout
    assert keeps.splitlines()[0] == f"1 1 1 5      = 1{NARROW_NBSP}050"
    forced = farkle("keeps", "dix-mille", 1, 1, 5, 2, 3, env=env, check=0).stdout
    assert forced == "1 1 5        = 250\n(dix-mille met de côté tous les dés qui marquent : " \
                     "ce choix est imposé)\n"
    nothing = farkle("keeps", "dix-mille", 2, 2, 3, 4, 6, env=env, check=0).stdout
    assert nothing == "2 2 3 4 6 : jet sans point, aucun dé ne marque\n"
    variants = farkle("variants", env=env, check=0).stdout
    assert variants.startswith(f"dix-mille            5 dés  objectif 10{NARROW_NBSP}000  "
                               "entrée 350  ")
    assert "pig                  1 dé   objectif    100  entrée   0  " in variants
    assert english_words(keeps + forced + nothing) == []
    # The games' summaries are the library's: only the columns are checked here.
    assert english_words(re.sub(r"  \S.*$", "", variants, flags=re.M)) == []


@pytest.mark.parametrize("args, said", [
    (["advise", "pig", "--me"], "farkle: advise: argument --me : un argument attendu"),
    (["advise", "pig"], "farkle: advise: ces arguments sont obligatoires : --me, --opp"),
    (["odds", "pig", "--target", "abc"],
     "farkle: odds: argument --target : valeur int invalide : 'abc'"),
    (["nope"], "farkle: argument {variants,keeps,odds,solve,info,tables,advise,simulate,card,"
               "play,referee,serve} : choix invalide : 'nope' (au choix : 'variants', 'keeps', "
               "'odds', 'solve', 'info', 'tables', 'advise', 'simulate', 'card', 'play', "
               "'referee', 'serve')"),
    (["keeps", "dix-mille", 1, 1, 1, 1, 1, 1],
     "farkle: un jet au dix-mille se fait avec 1 à 5 dés, pas 6"),
    (["simulate", "pig", "--games", 0],
     f"farkle: --games doit valoir de 1 à 1{NARROW_NBSP}000{NARROW_NBSP}000{NARROW_NBSP}000, "
     "pas 0"),
    (["variants", "--lang", "de"], "farkle: --lang prend en ou fr, pas 'de'"),
])
def test_an_error_is_one_french_line_and_exit_2(args, said):
    result = farkle(*args, env=french())
    assert (result.returncode, result.stdout, result.stderr) == (2, "", said + "\n")


def test_help_in_french():
    """argparse's own words (usage, sections, -h) and ours."""
    out = farkle("advise", "--help", "--lang", "fr", env={**os.environ, "COLUMNS": "100"},
                 check=0).stdout
    assert out.startswith("usage : farkle advise [-h] [--rules FICHIER] ")
    for line in ("arguments positionnels :", "options :",
                 "  -h, --help            afficher cette aide et quitter",
                 "  --crosses C           vos croix"):
        assert line in out.splitlines()
    assert english_words(re.sub(r"--[\w-]+", "", out)) == []


def test_json_is_the_same_bytes_in_every_language():
    """Scripts read --json: French locale or --lang fr change no byte,
    even of the text the JSON carries (the games' summaries)."""
    for command in (["variants", "--json"], [*CINQ_MILLE_ROLL, "--card", "--json"]):
        english = farkle(*command, check=0).stdout
        assert farkle(*command, env=french(), check=0).stdout == english
    assert farkle(*command, "--lang", "fr", env=french(), check=0).stdout == english
    advice = json.loads(english)
    assert advice["action"] == "keep" and advice["card"]["keep"] == [1, 1, 5, 5]


def test_the_language_of_a_run_stays_its_own():
    """main() in-process (as tests call it): --lang fr does not leak into
    the caller's thread, nor does the French of argparse."""
    import argparse
    import contextlib

    from solver.cli.main import main
    from solver.text import language
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["--lang", "fr", "advise", "pig", "--me"]) == 2
    assert err.getvalue() == "farkle: advise: argument --me : un argument attendu\n"
    assert language() == "en"
    assert argparse._("expected one argument") == "expected one argument"


def test_at_a_terminal_in_french():
    """Through a pseudo-terminal, dix-mille's missing table: the question
    (the library's), a wrong answer asked again in French, "non" refused in
    one French line; then a small solve's progress bar and summary."""
    env = french()
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "advise", "dix-mille", "--me",
                                           "0", "--opp", "0"],
                          encoding="utf-8", timeout=120, env=env, dimensions=(24, 120))
    child.logfile_read = io.StringIO()
    child.expect(r"\[o/N\] ")
    child.sendline("peut-être")
    child.expect("répondez o ou n, pas 'peut-être'")
    child.expect(r"\[o/N\] ")
    child.sendline("non")
    child.expect(pexpect.EOF)
    child.close()
    screen = child.logfile_read.getvalue()
    assert child.exitstatus == 2, screen
    assert screen.splitlines()[-1].startswith("farkle: dix-mille ")
    assert english_words(screen.replace("peut-être", "")) == []
    child = pexpect.spawn(sys.executable, ["-m", "solver.cli", "solve", "pig", "--target", "60",
                                           "--out", str(os.path.join(env["FARKLE_TABLES"],
                                                                     "pig-60-fr.h5"))],
                          encoding="utf-8", timeout=120, env={**env, "TQDM_MININTERVAL": "0"},
                          dimensions=(24, 120))
    child.expect(pexpect.EOF)
    child.close()
    screen = child.before
    assert child.exitstatus == 0, screen
    assert "calcul de pig" in screen
    assert re.search(r"pig en 60 : le premier joueur gagne avec une probabilité de 0,\d{7}",
                     screen)
    assert re.search(r"\d+ débuts de tour résolus en \d+,\d s ; résidu de Bellman", screen)
    assert english_words(screen) == []
