"""How the paper prints numbers and tables, and the template it fills.

Every number in the paper goes through :class:`Numbers`: ``N(key, value,
kind)`` formats ``value`` (``kind`` names a format of :data:`FORMATS`) and
remembers key, value and text, which the build writes to
``paper/numbers.json``; ``tests/test_paper.py`` reads them. A key printed
twice must print the same text.

The prose lives in ``paper/template.md``; :func:`fill` replaces each
``{{name}}`` with the text the build made for it and refuses a template with
a name the build did not fill (or a fill the template does not use).
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np


def points(v) -> str:
    return f"{int(round(v)):,}"


FORMATS = {
    "p": lambda v: f"{v:.7f}",          # a probability, as the tables give it
    "pct": lambda v: f"{100 * v:.1f}%",  # a probability for a reader
    "pct3": lambda v: f"{100 * v:.3f}%",
    "pct4": lambda v: f"{100 * v:.4f}%",
    "p4": lambda v: f"{v:.4f}",         # a simulated rate or a standard error
    "pp": lambda v: f"{100 * v:+.2f}",  # a difference, in percentage points
    "pp3": lambda v: f"{100 * v:+.3f}",
    "ppabs": lambda v: f"{100 * v:.3f}",
    "pts": points,                      # points
    "int": lambda v: f"{int(v):,}",
    "id": lambda v: f"{int(v)}",        # a seed: a name, not a quantity
    "s": lambda v: f"{v:.2f}" if v < 10 else f"{v:.1f}",   # seconds
    "e": lambda v: f"{v:.1e}",
    "mb": lambda v: f"{v / 1e6:.1f}",   # bytes shown as MB
    "z": lambda v: f"{v:+.1f}",
    "f2": lambda v: f"{v:.2f}",
    "f1": lambda v: f"{v:.1f}",
    "f3": lambda v: f"{v:.3f}",
    "f4": lambda v: f"{v:.4f}",
    "frac": lambda v: f"{v.numerator}/{v.denominator}",
    "dur": lambda v: f"{v:.0f} s" if v < 120 else f"{v / 60:.0f} minutes",
}


class Numbers:
    """Every number printed in the paper (module docstring)."""

    def __init__(self):
        self.values: dict[str, dict] = {}

    def __call__(self, key: str, value, kind: str = "p") -> str:
        text = FORMATS[kind](value)
        if isinstance(value, Fraction):
            plain = float(value)
        elif isinstance(value, (np.integer, int)) and not isinstance(value, bool):
            plain = int(value)
        else:
            plain = float(value)
        old = self.values.get(key)
        if old is not None and old["text"] != text:
            raise RuntimeError(f"number {key} printed as {old['text']} and {text}")
        self.values[key] = {"value": plain, "text": text, "kind": kind}
        return text


def table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


class Tables:
    """Table numbers, in the order the captions are made (the order of the
    text, since the build makes the sections in order)."""

    def __init__(self):
        self.count = 0

    def caption(self, text: str) -> str:
        self.count += 1
        return f"*Table {self.count}. {text}*"

    def peek(self, ahead: int = 1) -> str:
        return f"Table {self.count + ahead}"


def fill(template: str, parts: dict[str, str]) -> str:
    names = set(re.findall(r"\{\{(\w+)\}\}", template))
    missing, unused = names - set(parts), set(parts) - names
    if missing or unused:
        raise KeyError(f"template names not filled: {sorted(missing)}; "
                       f"fills not in the template: {sorted(unused)}")
    text = re.sub(r"\{\{(\w+)\}\}", lambda m: parts[m.group(1)], template)
    return re.sub(r"\n{3,}", "\n\n", text)


def stray_digits(text: str, numbers: Numbers, names) -> list[str]:
    """Digits in the text that no computed number accounts for (a guard
    against a number typed by hand): math, code, figure files, figure and
    table numbers, section numbers, game names and the references are not
    looked at."""
    body = text.split("\n## References")[0]
    body = re.sub(r"\$\$.*?\$\$", " ", body, flags=re.S)
    body = re.sub(r"\$[^$\n]+\$", " ", body)
    body = re.sub(r"`[^`]*`", " ", body)
    body = re.sub(r"\]\([^)]*\)", "]", body)
    body = re.sub(r"\[\d+\]", " ", body)
    body = re.sub(r"(Figure|Table|Section)s? \d+", " ", body)
    body = re.sub(r"^#+ [\d.]+", "#", body, flags=re.M)
    for name in sorted(names, key=len, reverse=True):
        body = body.replace(name, " ")
    pattern = r"(?<![\w-])[-+]?\d[\d,./]*(?:e[-+]\d+)?%?"
    tokens = re.findall(pattern, body)
    texts = {t for v in numbers.values.values() for t in [v["text"]] + re.findall(pattern, v["text"])}
    return [t for t in tokens if t not in texts and t.rstrip(".,") not in texts
            and t.rstrip(".,%") not in texts]
