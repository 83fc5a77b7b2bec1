"""Messages a person reads later, and numbers in the reader's language.

Most messages are translated where they are made (``_("...")`` of
:mod:`solver.text`, as an error's message is). A note that goes both into
``--json`` output and onto the screen (an answer's note, the referee's) is
a :class:`Message`: a ``str`` whose value is the English text, so that JSON,
comparisons and tests read English, while ``str()``, ``print`` and
f-strings show it in the language of the moment it is shown. A text made
where it cannot wait (an error's message put in a row of ``farkle tables
--json``) is made in both languages, a :class:`Said` (:func:`said`).

:func:`figure` writes a number that the English messages write without
grouping (``my score 1500``): the same in English, grouped in French
(``1 500``, as :func:`solver.text.number` groups).
"""

from __future__ import annotations

import contextvars

from solver.text import _, language, number, set_language


def figure(value) -> str:
    """``value`` as English messages write it, ungrouped (``1500``), and
    grouped in French (``1 500``)."""
    if language() != "fr":
        return str(value)
    if isinstance(value, float) and not value.is_integer():
        return str(value).replace(".", ",")
    return number(value)


def in_language(code: str, function, *args, **kw):
    """``function(*args, **kw)`` with messages in ``code``, the caller's
    language untouched (a copied context)."""
    def run():
        set_language(code)
        return function(*args, **kw)
    return contextvars.copy_context().run(run)


class Number:
    """A number written when shown: :func:`solver.text.number`."""

    def __init__(self, value, digits: int = 0):
        self.value, self.digits = value, digits

    def __str__(self) -> str:
        return number(self.value, self.digits)


class Figure:
    """A number written when shown: :func:`figure`."""

    def __init__(self, value):
        self.value = value

    def __str__(self) -> str:
        return figure(self.value)


def _render(template: str, params: dict) -> str:
    return _(template).format(**{key: str(value) for key, value in params.items()})


class Message(str):
    """A message marked ``N_("...")`` with named placeholders, kept to be
    shown later: its ``str`` value is the English text (JSON, tests), while
    ``str()`` and ``format()`` give it in the language of that moment.
    A placeholder's value is shown with ``str()``: a :class:`Number`,
    :class:`Figure` or another Message is written in that language too."""

    template: str
    params: dict

    def __new__(cls, template: str, **params):
        self = super().__new__(cls, in_language("en", _render, template, params))
        self.template, self.params = template, params
        return self

    def __str__(self) -> str:
        return _render(self.template, self.params)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self):
        return _rebuilt, (self.template, self.params)

    def english(self) -> str:
        """The English text (the value)."""
        return str.__str__(self)


def _rebuilt(template: str, params: dict) -> Message:
    return Message(template, **params)


class Said(str):
    """A text made twice, in English (its ``str`` value: JSON) and in the
    reader's language (``str()``, ``print``, f-strings), where it cannot
    be kept as a :class:`Message` (an error's message, made where it was
    raised)."""

    shown: str

    def __new__(cls, english: str, shown: str):
        self = super().__new__(cls, english)
        self.shown = shown
        return self

    def __str__(self) -> str:
        return self.shown

    def __format__(self, spec: str) -> str:
        return format(self.shown, spec)

    def __reduce__(self):
        return Said, (str.__str__(self), self.shown)


def said(function, *args, **kw) -> str:
    """What ``function(*args, **kw)`` returns, as a :class:`Said` where the
    reader's language is not English (called once in each), else as is."""
    shown = function(*args, **kw)
    if language() == "en":
        return shown
    return Said(in_language("en", function, *args, **kw), shown)
