"""The language of the ``farkle`` command: ``--lang fr|en``, read from the
line before the parser is built (its help texts are written in the
language chosen), and argparse's own messages (``usage:``, ``the following
arguments are required``...) in that language too.

argparse writes its messages with ``_`` and ``ngettext`` taken from the
standard library's gettext at its import (``from gettext import gettext as
_, ngettext``), which reads the ``argparse`` domain of the system's
catalogs: not ours, and not installed with Python. :func:`speak_argparse`
replaces the two names in the argparse module by :mod:`solver.text`'s, so
that its messages are looked up in our catalogs (their French is in
``commands.po``, marked below) in the language :func:`solver.text.set_language`
chose. A message of argparse's not listed here stays English.
"""

from __future__ import annotations

import argparse

from solver.model.errors import UsageError
from solver.text import LANGUAGES, N_, _, ngettext

OPTION = "--lang"

ARGPARSE_MESSAGES = (
    # The messages argparse shows a person (Python 3.10 to 3.13), marked so
    # that the catalog keeps them: argparse looks them up through _ at run time.
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
)


def speak_argparse() -> None:
    """argparse's messages through our catalogs (see the module's docstring).
    In English they are argparse's own, unchanged."""
    argparse._ = _
    argparse.ngettext = ngettext


def language_of(argv: list[str]) -> str | None:
    """The language ``--lang X`` or ``--lang=X`` asks for on the line (the
    last one given, as argparse keeps), None when none is; an unknown one
    is refused. Read before the parser is built, so that its help is in
    that language; an option's value or the words after ``--`` are not
    read as ``--lang``."""
    chosen = None
    words = iter(argv)
    for word in words:
        if word == "--":
            break
        if word == OPTION:
            value = next(words, None)
            if value is None or value.startswith("-"):
                break                       # argparse says the value is missing
        elif word.startswith(OPTION + "="):
            value = word[len(OPTION) + 1:]
        else:
            continue
        if value not in LANGUAGES:
            raise UsageError(_("--lang takes en or fr, not {given!r}").format(given=value))
        chosen = value
    return chosen


def lang_option(parser, json: bool = True) -> None:
    """``--lang``, on the top-level parser and on every command: absent from
    the namespace unless given, so that a command's does not hide the
    top-level one's. ``json``: the command takes ``--json`` too."""
    parser.add_argument(OPTION, choices=LANGUAGES, default=argparse.SUPPRESS,
                        help=_("the language of the messages: fr or en (default: the "
                               "locale's, LANG); --json output is always the same") if json
                        else _("the language of the messages: fr or en (default: the "
                               "locale's, LANG)"))
