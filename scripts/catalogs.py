"""The French catalogs: extract the marked messages, update the ``.po``
files, compile the ``.mo`` files the package ships, check them.

    python scripts/catalogs.py update [DOMAIN]    # new messages into the .po files (empty msgstr)
    python scripts/catalogs.py compile [DOMAIN]   # .po -> .mo
    python scripts/catalogs.py check [DOMAIN]     # what is untranslated or stale; exit 1 if any

Babel does the extraction (``_``, ``N_``, ``ngettext``; Python and the
page's JavaScript) and the compilation; a domain is a part of the program
(:data:`solver.text.DOMAINS`, docs/french.md). Each domain's test runs
:func:`problems` (tests/test_french_commands.py, test_french_library.py,
test_french_play.py).
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "solver"
LOCALE = SOLVER / "text" / "locale"
LANGUAGES = ("fr",)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}

# Which files each domain's messages come from (the first pattern that
# matches a file decides, as in Babel's mapping files).
SOURCES = {
    "commands": [("cli/**.py", "python")],
    "library": [("cli/**", "ignore"), ("play/**", "ignore"), ("web/**", "ignore"),
                ("**.py", "python")],
    "play": [("play/**.py", "python"), ("web/**.py", "python"), ("web/**.js", "javascript")],
}


def template(domain: str) -> Catalog:
    """The messages marked in the domain's files."""
    catalog = Catalog(domain=domain, project="farkle-solver", charset="utf-8")
    for filename, line, message, comments, context in extract_from_dir(
            SOLVER, SOURCES[domain], keywords=KEYWORDS, strip_comment_tags=True):
        catalog.add(message, None, [(f"solver/{filename}", line)], auto_comments=comments,
                    context=context)
    return catalog


def po_path(domain: str, language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def read(domain: str, language: str) -> Catalog:
    path = po_path(domain, language)
    if not path.exists():
        return Catalog(locale=language, domain=domain, project="farkle-solver")
    with path.open("rb") as file:
        return read_po(file, locale=language, domain=domain)


def write(catalog: Catalog, path: Path, writer, **options) -> None:
    """Write to a temporary file and rename, as the tables are written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    with temporary.open("wb") as file:
        writer(file, catalog, **options)
    temporary.replace(path)


def update(domains) -> None:
    for domain in domains:
        for language in LANGUAGES:
            catalog = read(domain, language)
            catalog.update(template(domain), no_fuzzy_matching=True)
            catalog.fuzzy = False           # the header: Babel marks a new catalog's fuzzy
            # Messages no longer in the code are dropped, not kept commented.
            catalog.obsolete.clear()
            write(catalog, po_path(domain, language), write_po, width=96, sort_output=True)


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()


def compile_all(domains) -> None:
    for domain in domains:
        for language in LANGUAGES:
            path = po_path(domain, language).with_suffix(".mo")
            path.write_bytes(compiled(read(domain, language)))


PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


def problems(domains=tuple(SOURCES)) -> list[str]:
    """Each message with no French, a fuzzy one, one whose placeholders the
    French does not keep, one that another domain translates otherwise (a
    message is looked up in the domains in turn, so the first would win),
    and a ``.mo`` that is not its ``.po`` compiled."""
    found = _disagreements(domains)
    for domain in domains:
        wanted = template(domain)
        for language in LANGUAGES:
            catalog = read(domain, language)
            for message in wanted:
                if not message.id:
                    continue
                where = f"{domain}.po ({message.locations[0][0]}:{message.locations[0][1]})"
                have = catalog.get(message.id)
                strings = () if have is None else \
                    (have.string if isinstance(have.string, tuple) else (have.string,))
                if have is None or not all(strings):
                    found.append(f"{language}: no translation of {message.id!r} in {where}")
                elif have.fuzzy:
                    found.append(f"{language}: fuzzy translation of {message.id!r} in {where}")
                else:
                    ids = message.id if isinstance(message.id, tuple) else (message.id,)
                    names = set(PLACEHOLDER.findall(" ".join(ids)))
                    if any(set(PLACEHOLDER.findall(s)) != names for s in strings):
                        found.append(f"{language}: placeholders of {message.id!r} changed "
                                     f"in {where}")
            mo = po_path(domain, language).with_suffix(".mo")
            if not mo.exists() or mo.read_bytes() != compiled(catalog):
                found.append(f"{language}: {mo.relative_to(ROOT)} is not its .po compiled "
                             "(python scripts/catalogs.py compile)")
    return found


def _disagreements(domains) -> list[str]:
    found = []
    for language in LANGUAGES:
        catalogs = {domain: read(domain, language) for domain in SOURCES}
        for domain in domains:
            for message in catalogs[domain]:
                if not message.id:
                    continue
                for other, catalog in catalogs.items():
                    theirs = catalog.get(message.id)
                    if other != domain and theirs is not None and theirs.string \
                            and theirs.string != message.string:
                        found.append(f"{language}: {message.id!r} is {message.string!r} in "
                                     f"{domain}.po but {theirs.string!r} in {other}.po")
    return found


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    domains = argv[1:] or list(SOURCES)
    if any(domain not in SOURCES for domain in domains):
        print(f"catalogs.py: the domains are {', '.join(SOURCES)}", file=sys.stderr)
        return 2
    if command == "update":
        update(domains)
    elif command == "compile":
        compile_all(domains)
    elif command == "check":
        found = problems(domains)
        print("\n".join(found) or "every message has its French")
        return 1 if found else 0
    else:
        print(f"catalogs.py: update, compile or check, not {command!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
