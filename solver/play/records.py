"""The records of one game at the table: the phases of a turn, each
player's line on the score sheet, a decision and its price, what happened
(events), the whole state at one moment (copied for undo), a seat's review,
and the decisions' log. :mod:`solver.play.game` moves a game through them.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from solver.advice.advisor import Advice, Choice
from solver.model.errors import UsageError
from solver.text import _

TAKE, ROLL, KEEP, BANK, OVER = "take", "roll", "keep", "bank", "over"

TIE = 1e-12
"""Two choices within this of each other are equally good (docs/rules.md)."""

# docs/rules.md's tie-break between equal choices: bank rather than roll, roll
# fresh rather than take over (lower comes first).
_PREFERENCE = {"bank": 0, "roll": 1, "fresh": 0, "take": 1}


class PlayError(UsageError):
    """An entry the game cannot accept now; its message is one line, and
    the same question may be asked again."""


@dataclass
class PlayerLine:
    """A player's line on the score sheet, in points."""
    score: int = 0
    previous: int = 0
    """The score before the last bank (the score itself after a fall)."""
    crosses: int = 0


@dataclass(frozen=True)
class Decision:
    """One decision and its price: every choice's probability of winning
    for the mover, the best choice and the choice made."""
    seat: int
    turn_number: int
    kind: str
    """``take``, ``keep`` or ``bank``."""
    position: dict
    """The Advisor's position (scores, turn total, dice, roll or offer)."""
    chosen: Choice
    best: Choice
    choices: tuple[Choice, ...]

    @property
    def cost(self) -> float:
        """Probability of winning given up by the choice made (0 within TIE
        of the best)."""
        gap = self.best.win - self.chosen.win
        return gap if gap > TIE else 0.0

    def to_json(self) -> dict:
        return {"seat": self.seat + 1, "turn_number": self.turn_number, "decision": self.kind,
                "position": self.position, "chosen": self.chosen.to_json(),
                "best": self.best.to_json(), "cost": self.cost,
                "choices": [c.to_json() for c in self.choices]}


@dataclass(frozen=True)
class Event:
    """Something that happened, for the screen: ``kind`` is one of roll,
    zero, keep, overshoot, win, bank, cross, fall, take, fresh, decision,
    last-turn (a final round: ``seat`` has one last turn to pass ``score``),
    tie (``seat`` banks ``points`` to equal ``score``: the win is shared),
    shared (the final round is over: ``seats`` share the win at ``score``)."""
    kind: str
    seat: int
    points: int = 0
    dice: tuple[int, ...] = ()
    """The faces of a roll or a keep."""
    count: int = 0
    """Dice offered or taken over; crosses after a cross."""
    score: int = 0
    forced: bool = False
    decision: Decision | None = None
    seats: tuple[int, ...] = ()


@dataclass
class Table:
    """Everything the game is at one moment (copied for undo)."""
    lines: list[PlayerLine]
    in_hand: int
    mover: int = 0
    phase: str = ROLL
    turn_total: int = 0
    roll: tuple[int, ...] | None = None
    offer: tuple[int, int] | None = None
    """(points, dice) the mover may take over."""
    turn_number: int = 1
    winner: int | None = None
    to_pass: int | None = None
    """A final round's score that the last turns must pass (None before)."""
    banker: int | None = None
    """The seat whose bank reached the target first (a final round)."""
    holders: tuple[int, ...] = ()
    """The seats at ``to_pass``; at OVER with ``winner`` None, those who
    share the win."""
    decisions: list[Decision] = field(default_factory=list)

    def copy(self) -> "Table":
        # Decisions never change once made: the list is copied, not them.
        return dataclasses.replace(self, lines=[dataclasses.replace(line) for line in self.lines],
                                   decisions=list(self.decisions))


@dataclass(frozen=True)
class Review:
    """A seat's decisions summed up: how many, the win probability given
    up in all, and the costliest (most first, those with a cost only)."""
    seat: int
    decisions: int
    given_up: float
    costliest: tuple[Decision, ...]


def best_choice(advice: Advice) -> Choice:
    """The best choice, docs/rules.md's tie-break among those within TIE."""
    top = max(choice.win for choice in advice.choices)
    tied = [choice for choice in advice.choices if choice.win >= top - TIE]
    return min(tied, key=lambda c: (_PREFERENCE.get(c.action, 0), -(c.points or 0),
                                    -len(c.keep or ())))


class DecisionLog:
    """Decisions as JSON lines in a file (``--log``), one flushed line each,
    so that an interrupted game leaves a whole log."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.path.write_text("")
        except OSError as error:
            raise UsageError(_("cannot write the log {path}: {reason}").format(
                path=path, reason=error.strerror)) from None

    def append(self, decision: Decision) -> None:
        with self.path.open("a") as out:
            out.write(json.dumps(decision.to_json()) + "\n")

    def rewrite(self, decisions) -> None:
        self.path.write_text("".join(json.dumps(d.to_json()) + "\n" for d in decisions))
