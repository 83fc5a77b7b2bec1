"""The language a person reads: French or English messages, and numbers
written as each language writes them.

Every message a person reads is written in English in the code, marked
``_("...")`` (``ngettext(singular, plural, n)`` where it depends on a
count), and looked up at the moment it is shown in the gettext catalogs
shipped in ``solver/text/locale/<language>/LC_MESSAGES/<domain>.mo``
(compiled from the ``.po`` beside them with Babel: docs/french.md). A
message kept in a constant is marked ``N_("...")`` where it is written
and translated with ``_(constant)`` where it is shown, so that the
language chosen after the import is the one read. Placeholders are named
(``_("{points} points").format(points=number(p))``): a translation may
put them in another order.

The language: :func:`set_language` (the CLI's ``--lang``), else the first
of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set, as
gettext reads them; a language without a catalog is English. ``--json``
output is never translated (scripts read its keys and values).

Numbers: :func:`number` groups thousands (``10,000``; in French ``10 000``
with a narrow no-break space, U+202F, as CLDR writes French), and
:func:`percent` writes a percentage (``53.1%``; in French ``53,1 %``, a
no-break space before the sign, U+00A0, as CLDR does).
"""

from __future__ import annotations

import gettext
import os
from contextvars import ContextVar
from pathlib import Path

LOCALE_DIR = Path(__file__).with_name("locale")
DOMAINS = ("commands", "library", "play")
"""The catalogs, each for a part of the program (docs/french.md):
``commands`` the CLI's, ``library`` the errors, advice and cards of the
layers below it, ``play`` the game at the table and the page. A message is
looked up in each in turn."""
LANGUAGES = ("en", "fr")

NARROW_NBSP = "\u202f"
NBSP = "\u00a0"

# A context variable, not a global: the page's server answers each request
# in its own language, a thread each.
_chosen: ContextVar[str | None] = ContextVar("language", default=None)
_catalogs: dict[str, gettext.NullTranslations] = {}


def language() -> str:
    """The language messages are shown in: ``en`` or ``fr``."""
    chosen = _chosen.get()
    if chosen is not None:
        return chosen
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable)
        if value:
            # LANGUAGE may list several (fr:en); C and POSIX are English.
            first = value.split(":")[0]
            code = first.split("_")[0].split(".")[0].split("@")[0].lower()
            return code if code in LANGUAGES else "en"
    return "en"


def set_language(code: str | None) -> None:
    """Show messages in ``code`` (``en`` or ``fr``) from now on; None goes
    back to the environment's. In this thread (a context variable)."""
    if code is not None and code not in LANGUAGES:
        raise ValueError(f"no language {code!r}: {' or '.join(LANGUAGES)}")
    _chosen.set(code)


def catalog(code: str | None = None) -> gettext.NullTranslations:
    """The messages of language ``code`` (the current one by default): the
    domains' catalogs chained, English where none has the message."""
    code = code or language()
    if code not in _catalogs:
        translations = gettext.NullTranslations()
        if code != "en":
            for domain in reversed(DOMAINS):
                found = gettext.translation(domain, LOCALE_DIR, [code], fallback=True)
                if not isinstance(found, gettext.GNUTranslations):
                    continue
                found.add_fallback(translations)
                translations = found
        _catalogs[code] = translations
    return _catalogs[code]


def _(message: str) -> str:
    """``message`` in the current language."""
    return catalog().gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count`` in the current language."""
    return catalog().ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message to translate where it is shown, not here."""
    return message


def number(value: int | float, digits: int = 0) -> str:
    """``value`` with its thousands grouped and ``digits`` decimals:
    ``10,000`` / ``10 000``, ``-2,500.5`` / ``-2 500,5``."""
    text = f"{value:,.{digits}f}"
    if language() == "fr":
        text = text.replace(",", NARROW_NBSP).replace(".", ",")
    return text


def percent(fraction: float, digits: int = 1) -> str:
    """``fraction`` as a percentage: ``53.1%`` / ``53,1 %``."""
    text = number(100 * fraction, digits)
    return text + (NBSP + "%" if language() == "fr" else "%")
