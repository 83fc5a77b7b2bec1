"""The games as data.

Every game of ``docs/rules.md`` is one value of :class:`Rules`. Nothing else in the
package tests a game's name: a house rule is a field here, and the dice
engine, the player-state space, the solver, the simulator and the CLI read
the fields.

Points are stored in points (as printed on the score sheet); the solver works
in *units* (``points // unit``), since every score is a multiple of the unit.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from solver.model.errors import UsageError
from solver.model.messages import figure, said
from solver.text import N_, _

KEEP_RULES = ("any", "all")


@dataclass(frozen=True)
class Rules:
    name: str
    summary: str
    dice: int
    unit: int
    target: int
    exact_target: bool
    """True: the target must be hit exactly and a keep past it is a zero turn.
    False: a keep that brings the score to the target or past it wins."""
    entry: int
    """While the banked score is 0, a bank needs a turn total of at least this."""
    scoring: tuple[tuple[int, ...], ...]
    """``scoring[face - 1][count - 1]``: points of ``count`` dice of ``face``
    kept from one roll; 0 means that count of that face is not a legal keep."""
    straights: tuple[tuple[tuple[int, ...], int], ...] = ()
    """(faces, points): a straight is kept whole and alone."""
    combinations: tuple[tuple[tuple[int, ...], int], ...] = ()
    """(shape, points): dice whose face counts, largest first, are exactly
    ``shape`` are kept whole and alone for ``points``: (2, 2, 2) three pairs,
    (3, 3) two triplets, (4, 2) four of a kind with a pair."""
    no_score_bonus: int = 0
    """When positive, a roll of every die (all ``dice``) with no scoring die
    is not a zero roll: its dice are set aside for these points (Zilch:
    500 and a free roll)."""
    instant_wins: tuple[tuple[int, int], ...] = ()
    """(face, count): keeping that many of that face from one roll wins."""
    hot_dice_forced: bool = False
    """With every die set aside: True, the player must roll them all again;
    False, they may bank or roll them all again."""
    crosses: int = 0
    """Consecutive turns without a bank that make a fall (0: no crosses):
    back to the score before the last bank, or, with ``fall_penalty``,
    that many points off."""
    fall_penalty: int = 0
    """When positive, a fall takes this many points off the banked score
    (Farkle's penalty for three zero turns in a row), down to ``floor``,
    instead of going back to the score before the last bank."""
    floor: int = 0
    """The lowest banked score a fall can leave (0 or below): a penalty may
    leave a score below zero, and the model bounds it (Busche: -2,500)."""
    takeover_min: int | None = None
    """Smallest banked score at which a player may take over the previous
    player's turn total and unset dice; None: no take-over."""
    last_turn_points: int = 0
    """When positive, a bank that does not reach the target leaves at most
    ``target - last_turn_points``: the last points must come in one turn."""
    min_bank: int = 0
    """Every bank needs a turn total of at least this (beside the entry,
    which only the first bank needs); 0: any turn total."""
    final_round: bool = False
    """True: reaching the target does not end the game. The player who
    reaches it may roll on and bank any total past it; the other player then
    has one last turn, and wins by passing that score (a bank that equals it
    shares the win). False: reaching the target wins."""
    keep_rule: str = "any"
    """Which keeps a roll allows: ``any`` non-empty set of scoring dice, or
    ``all`` of them (the roll's keep with the most dice, then the most
    points); under ``all`` the player chooses only to bank or roll."""

    # ----------------------------------------------------------------- units
    @property
    def target_units(self) -> int:
        return self.target // self.unit

    @property
    def entry_units(self) -> int:
        return self.entry // self.unit

    @property
    def falls_back(self) -> bool:
        """Crosses whose fall goes back to the score before the last bank:
        a player's state then holds that score (the exact memory), or the
        crosses model stands in for it (docs/solver.md)."""
        return bool(self.crosses) and not self.fall_penalty

    @property
    def fall_penalty_units(self) -> int:
        return self.fall_penalty // self.unit

    @property
    def floor_units(self) -> int:
        return self.floor // self.unit

    @property
    def turn_rows_units(self) -> int:
        """Turn totals from the lowest score (the floor, or 0) to the target;
        a turn DP holds more with a final round (``TurnRules.rows``)."""
        return self.target_units - self.floor_units

    @property
    def min_bank_units(self) -> int:
        return -(-self.min_bank // self.unit)

    @property
    def score_cap_units(self) -> int | None:
        """Largest score a bank short of the target can leave, if capped."""
        if self.last_turn_points <= 0:
            return None
        return (self.target - self.last_turn_points) // self.unit

    @property
    def takeover_min_units(self) -> int | None:
        if self.takeover_min is None:
            return None
        # Take-over needs an entered player (score > 0) in every game.
        return max(1, -(-self.takeover_min // self.unit))

    @property
    def has_takeover(self) -> bool:
        """True when some reachable score below the target may take over."""
        return (self.takeover_min_units is not None
                and self.takeover_min_units < self.target_units
                and self.dice > 1)

    def with_target(self, points: int) -> "Rules":
        """The same game played to another target (for tests and studies)."""
        if points == self.target:
            return self
        rules = dataclasses.replace(self, target=points)
        rules.validate()
        return rules

    def validate(self) -> None:
        if self.target % self.unit:
            raise UsageError(_("target {target} is not a multiple of {unit} points for "
                               "{game}").format(target=figure(self.target),
                                                unit=figure(self.unit), game=self.name))
        if self.target <= self.entry or self.target <= 0:
            raise UsageError(_("target {target} must be above the entry threshold ({entry}) "
                               "of {game}").format(target=figure(self.target),
                                                   entry=figure(self.entry), game=self.name))
        if self.last_turn_points and self.target <= self.last_turn_points:
            raise UsageError(_("target {target} must be above the {points} points that {game} "
                               "wants in the last turn").format(
                target=figure(self.target), points=figure(self.last_turn_points),
                game=self.name))
        if self.last_turn_points and self.crosses:
            raise UsageError(_("a capped score and crosses together are not modelled"))
        if self.no_score_bonus < 0 or self.no_score_bonus % self.unit:
            raise UsageError(_("{game}: no_score_bonus must be a multiple of {unit} points, "
                               "0 or more").format(game=self.name, unit=figure(self.unit)))
        for values in self.scoring:
            if any(v % self.unit for v in values):
                raise UsageError(_("{game}: a score is not a multiple of the unit").format(
                    game=self.name))
        if self.fall_penalty or self.floor:
            self._validate_penalty()
        if self.min_bank >= self.target:
            raise UsageError(_("min_bank {points} must be below the target ({target}) of "
                               "{game}").format(points=figure(self.min_bank),
                                                target=figure(self.target), game=self.name))
        if self.final_round and (self.exact_target or self.crosses or self.takeover_min
                                 is not None or self.last_turn_points):
            raise UsageError(_("{game}: a final round with an exact target, crosses, a "
                               "take-over or a last-turn cap is not modelled").format(
                game=self.name))
        if self.keep_rule not in KEEP_RULES:
            raise UsageError(_("{game}: keep_rule must be one of {rules}, not {given}").format(
                game=self.name, rules=", ".join(KEEP_RULES), given=repr(self.keep_rule)))

    def _validate_penalty(self) -> None:
        """A penalty and a floor: what is modelled of them (docs/rules.md)."""
        if self.fall_penalty < 0 or self.fall_penalty % self.unit:
            raise UsageError(_("{game}: fall_penalty must be a multiple of {unit} points, "
                               "0 or more").format(game=self.name, unit=figure(self.unit)))
        if self.floor > 0 or self.floor % self.unit:
            raise UsageError(_("{game}: floor must be a multiple of {unit} points, "
                               "0 or below").format(game=self.name, unit=figure(self.unit)))
        if self.fall_penalty and not self.crosses:
            raise UsageError(_("{game}: a fall_penalty needs crosses (the zero turns in "
                               "a row that cost it)").format(game=self.name))
        if self.floor and not self.fall_penalty:
            raise UsageError(_("{game}: a floor only bounds the scores a fall_penalty "
                               "leaves").format(game=self.name))
        # Scores below zero are modelled where nothing else reads "entered"
        # (a score above zero) or a previous score.
        if self.fall_penalty and (self.entry or self.takeover_min is not None
                                  or self.last_turn_points):
            raise UsageError(_("{game}: a fall_penalty with an entry, a take-over or a "
                               "last-turn cap is not modelled").format(game=self.name))

    def first_difference(self, other: "Rules") -> str | None:
        """The first field in which ``other`` differs, as ``"field mine,
        not theirs"`` (None if equal), for a message in the reader's
        language. Fields of play come before the name and summary, which
        only label a game."""
        labels = ("name", "summary")
        names = [f.name for f in dataclasses.fields(self) if f.name not in labels]
        for name in (*names, *labels):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                return _("{field} {mine}, not {theirs}").format(
                    field=name, mine=_short(mine), theirs=_short(theirs))
        return None

    # --------------------------------------------------------------- output
    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Rules":
        data = json.loads(text)
        data["scoring"] = tuple(tuple(v) for v in data["scoring"])
        data["straights"] = tuple((tuple(f), p) for f, p in data["straights"])
        data["combinations"] = tuple((tuple(s), p) for s, p in data.get("combinations", ()))
        data["instant_wins"] = tuple(tuple(x) for x in data["instant_wins"])
        return cls(**data)

    def describe(self) -> dict:
        """Every field, JSON-ready (``farkle variants --json``): the keys a
        house-rules file uses. The summary is English (JSON), shown in the
        reader's language (:func:`shown_summary`, a :class:`Said`)."""
        data = json.loads(self.to_json())
        data["summary"] = said(shown_summary, self)
        return data


WITH = " with "
"""Between a base game and its changes in a house file's summary
(``cinq-mille with target 1500``: :mod:`solver.model.house_rules`)."""


def shown_summary(rules: Rules) -> str:
    """A game's summary as a person reads it (``farkle variants``): a
    built-in game's in the reader's language, a house file's changes to
    its base with the keys as the file writes them, a summary the file
    gives as written. The stored summary stays English (tables keep it)."""
    if any(rules.summary == game.summary for game in GAMES.values()):
        return _(rules.summary)
    base, with_, changes = rules.summary.partition(WITH)
    if with_ and base in GAMES:
        return _("{game} with {changes}").format(game=base, changes=changes)
    return rules.summary


def _short(value, width: int = 60) -> str:
    """A field's value for a one-line message (long tables cut short)."""
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def _scoring(ones, fives, others_of_face) -> tuple[tuple[int, ...], ...]:
    table = []
    for face in range(1, 7):
        if face == 1:
            table.append(tuple(ones))
        elif face == 5:
            table.append(tuple(fives))
        else:
            table.append(tuple(others_of_face(face)))
    return tuple(table)


DIX_MILLE = Rules(
    name="dix-mille",
    summary=N_("5 dice, exactly 10,000, entry 350, every scoring die set aside, hot "
            "dice forced, three crosses fall back a bank, take-over once entered"),
    dice=5, unit=50, target=10_000, exact_target=True, entry=350,
    scoring=_scoring((100, 200, 1000, 5000, 5000), (50, 100, 500, 5000, 5000),
                     lambda f: (0, 0, 100 * f, 1000 * f, 1000 * f)),
    straights=(((1, 2, 3, 4, 5), 1500), ((2, 3, 4, 5, 6), 1500)),
    hot_dice_forced=True, crosses=3, takeover_min=350, keep_rule="all",
)

QUINZE_MILLE = Rules(
    name="quinze-mille",
    summary=N_("6 dice, exactly 15,000, entry 500, every scoring die set aside, "
            "hot dice forced, take-over from 5,000"),
    dice=6, unit=50, target=15_000, exact_target=True, entry=500,
    scoring=_scoring((100, 200, 1000, 2000, 4000, 8000),
                     (50, 100, 500, 1000, 2000, 4000),
                     lambda f: (0, 0, 100 * f, 200 * f, 400 * f, 800 * f)),
    straights=(((1, 2, 3, 4, 5, 6), 3000),),
    hot_dice_forced=True, takeover_min=5000, keep_rule="all",
)

# The two games as many tables play them: any scoring dice may be kept.
DIX_MILLE_FREE_KEEP = dataclasses.replace(
    DIX_MILLE, name="dix-mille-free-keep", keep_rule="any",
    summary=N_("dix-mille where the player chooses which scoring dice to keep"))

QUINZE_MILLE_FREE_KEEP = dataclasses.replace(
    QUINZE_MILLE, name="quinze-mille-free-keep", keep_rule="any",
    summary=N_("quinze-mille where the player chooses which scoring dice to keep"))

CINQ_MILLE = Rules(
    name="cinq-mille",
    summary=N_("5 dice, 5,000 or more, opening 750, hot dice optional, five 1s "
            "in one roll win"),
    dice=5, unit=50, target=5000, exact_target=False, entry=750,
    scoring=_scoring((100, 200, 1000, 1100, 0), (50, 100, 500, 550, 5000),
                     lambda f: (0, 0, 100 * f, 0, 0)),
    straights=(((1, 2, 3, 4, 5), 500), ((2, 3, 4, 5, 6), 500)),
    instant_wins=((1, 5),),
)

CINQ_MILLE_EXACT = dataclasses.replace(
    CINQ_MILLE, name="cinq-mille-exact", exact_target=True,
    summary=N_("cinq-mille to exactly 5,000; a keep past it is a zero turn"))

CINQ_MILLE_LAST1000 = dataclasses.replace(
    CINQ_MILLE, name="cinq-mille-last1000", last_turn_points=1000,
    summary=N_("cinq-mille where the last 1,000 points come in one turn "
            "(banks short of the target stop at 4,000)"))

CINQ_MILLE_10000 = dataclasses.replace(
    CINQ_MILLE, name="cinq-mille-10000", target=10_000,
    summary=N_("cinq-mille played to 10,000"))

PIG = Rules(
    name="pig",
    summary=N_("reference game: one die, a 1 loses the turn, 2-6 score their "
            "face, 100 or more wins"),
    dice=1, unit=1, target=100, exact_target=False, entry=0,
    scoring=_scoring((0,), (5,), lambda f: (f,)),
)

# Farkle as published (docs/farkle-sources.md has each source and what it
# leaves open; docs/rules.md the readings taken).
FARKLE_ACG2017 = Rules(
    name="farkle-acg2017",
    summary=N_("Farkle as Busche and Neller solved it (ACG 2017): 6 dice, 10,000 or more, "
            "only 1s, 5s and three of a kind score, any scoring dice kept, hot dice optional"),
    dice=6, unit=50, target=10_000, exact_target=False, entry=0,
    # Extra 1s and 5s beyond a triple score as singles; six of a face are
    # two triples; a fourth or fifth 2, 3, 4 or 6 scores nothing.
    scoring=_scoring((100, 200, 1000, 1100, 1200, 2000), (50, 100, 500, 550, 600, 1000),
                     lambda f: (0, 0, 100 * f, 0, 0, 200 * f)),
)

FARKLE_CARDGAMES = Rules(
    name="farkle-cardgames",
    summary=N_("Farkle as cardgames.io plays it (and domsleee/farkle solved it): 6 dice, "
            "10,000 or more, four/five/six of a kind 1,000/2,000/3,000, three pairs "
            "1,500, a run 2,500, hot dice optional"),
    dice=6, unit=50, target=10_000, exact_target=False, entry=0,
    # Four 1s are better read as a triple and a single (1,100) than as four
    # of a kind (1,000); four 5s are four of a kind.
    scoring=_scoring((100, 200, 1000, 1100, 2000, 3000), (50, 100, 500, 1000, 2000, 3000),
                     lambda f: (0, 0, 100 * f, 1000, 2000, 3000)),
    straights=(((1, 2, 3, 4, 5, 6), 2500),),
    # "Three pairs: 1500. Includes having a four of a kind plus a pair."
    combinations=(((2, 2, 2), 1500), ((4, 2), 1500)),
)

FARKLE_FACEBOOK = Rules(
    name="farkle-facebook",
    summary=N_("Facebook Farkle as Busche solved it (2016), in a reading of secondary sources: "
            "6 dice, 10,000 or more, each die past three doubles, three pairs 750, a run "
            "1,500, three zero turns in a row lose 500, scores down to -2,500"),
    dice=6, unit=50, target=10_000, exact_target=False, entry=0,
    # Four of a kind twice the triple (the sources), each die more doubling
    # again as in Zilch ("Farkle rules differ only slightly from the rules
    # of Zilch", Busche): the reading nearest his 53.487% (docs/farkle-sources.md).
    scoring=_scoring((100, 200, 1000, 2000, 4000, 8000), (50, 100, 500, 1000, 2000, 4000),
                     lambda f: (0, 0, 100 * f, 200 * f, 400 * f, 800 * f)),
    straights=(((1, 2, 3, 4, 5, 6), 1500),),
    combinations=(((2, 2, 2), 750),),
    crosses=3, fall_penalty=500, floor=-2500,
)

ZILCH = Rules(
    name="zilch",
    summary=N_("Zilch as played at playr.co.uk and as Busche analysed it (2010): 6 dice, "
            "each die past three doubles, three pairs and a run 1,500, six dice that score "
            "nothing 500, every bank at least 300, three zilches in a row lose 500"),
    dice=6, unit=50, target=10_000, exact_target=False, entry=0,
    scoring=_scoring((100, 200, 1000, 2000, 4000, 8000), (50, 100, 500, 1000, 2000, 4000),
                     lambda f: (0, 0, 100 * f, 200 * f, 400 * f, 800 * f)),
    straights=(((1, 2, 3, 4, 5, 6), 1500),),
    # Four of a kind with a pair counts as three pairs: the reading under
    # which Busche's 620.855 points a turn comes out (docs/farkle-sources.md).
    combinations=(((2, 2, 2), 1500), ((4, 2), 1500)),
    no_score_bonus=500, min_bank=300,
    # The target and the floor are this program's: the source plays for
    # points a turn (farkle solve zilch --objective points).
    crosses=3, fall_penalty=500, floor=-2500,
)

FARKLE = Rules(
    name="farkle",
    summary=N_("Farkle from the common rule sheet: 6 dice, 500 in one turn to get on the "
            "board, four/five/six of a kind 1,000/2,000/3,000, a run, three pairs or four "
            "of a kind with a pair 1,500, two triplets 2,500; whoever reaches 10,000 gives "
            "the other player one last turn to pass them"),
    dice=6, unit=50, target=10_000, exact_target=False, entry=500,
    # Three 1s are 300 on this sheet (three of a kind: 100 times the face);
    # four 1s are four of a kind (1,000).
    scoring=_scoring((100, 200, 300, 1000, 2000, 3000), (50, 100, 500, 1000, 2000, 3000),
                     lambda f: (0, 0, 100 * f, 1000, 2000, 3000)),
    straights=(((1, 2, 3, 4, 5, 6), 1500),),
    combinations=(((2, 2, 2), 1500), ((4, 2), 1500), ((3, 3), 2500)),
    final_round=True,
)

GAMES: dict[str, Rules] = {r.name: r for r in (
    DIX_MILLE, QUINZE_MILLE, DIX_MILLE_FREE_KEEP, QUINZE_MILLE_FREE_KEEP, CINQ_MILLE,
    CINQ_MILLE_EXACT, CINQ_MILLE_LAST1000, CINQ_MILLE_10000, PIG, FARKLE, FARKLE_ACG2017,
    FARKLE_CARDGAMES, FARKLE_FACEBOOK, ZILCH)}


def get_rules(name: str, target: int | None = None) -> Rules:
    """The game called ``name``, optionally played to ``target`` points."""
    try:
        rules = GAMES[name]
    except KeyError:
        raise UsageError(_("unknown game {name}; known games: {games}").format(
            name=repr(name), games=", ".join(GAMES))) from None
    if target is not None:
        rules = rules.with_target(target)
    return rules
