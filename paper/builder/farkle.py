"""The paper's part on the published Farkle figures: each figure with its
source's digits beside what this program computes under the source's rules
(the presets ``farkle-cardgames``, ``farkle-acg2017``, ``farkle-facebook``
and ``zilch``; docs/farkle-sources.md has the sources and the readings
taken), and the fair start of Busche and Neller's game beside their 200
compensation points.

The published figures are data with a citation (:data:`PUBLISHED`, the
sources' own digits); every figure of this program is read or computed
here: the first player's chance from the committed tables' info, the head
starts from a table's start values, Zilch's points a turn by
:func:`solver.engine.solo.points_policy` (what ``farkle solve zilch
--objective points`` prints), a card's loss from the stored cards. A
sentence that compares two figures takes its words from the two numbers
(:func:`agreement`, :func:`edge_words`), so a table solved again cannot
leave a comparison the numbers no longer make.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import Path

import numpy as np

from paper.builder.format import FORMATS, table
from solver.cards.store import stored_cards
from solver.engine.solo import points_policy
from solver.model.rules import get_rules
from solver.study.analysis import komi, start_values
from solver.tables.files import read_info, read_table

TABLES = Path(__file__).resolve().parents[2] / "tables"
"""The committed tables (not ``$FARKLE_TABLES``): the paper reports the
tables the repository ships."""

# The citations: the paper's own references (paper.builder.sections.REFERENCES,
# [1] to [5]) and the two this part adds, numbered after them in the order of
# REFERENCES (tests/test_paper_farkle.py checks the numbering).
BUSCHE_NELLER = "[2]"
BUSCHE_FACEBOOK = "[3]"
FIRST_ADDED = 6
DOMSLEEE = f"[{FIRST_ADDED}]"
BUSCHE_ZILCH = f"[{FIRST_ADDED + 1}]"

REFERENCES = [
    ("domsleee. farkle: a Farkle player for cardgames.io, and its results. GitHub repository "
     "domsleee/farkle, README."),
    ("Matthew Busche. Maximizing Expected Scores in the Game of Zilch. Blog post, 19 August "
     "2010."),
]
"""The references this part cites beyond the paper's own, in their style
(the builder numbers them: ``[6]`` is the first)."""


@dataclass(frozen=True)
class Published:
    """A figure as its source prints it."""
    digits: str
    """The source's digits, as printed (a percentage ends with %)."""
    cite: str
    source: str
    """The source in words, for the table."""
    quote: str
    """The source's sentence (for the reader of this module; not printed)."""

    @property
    def percent(self) -> bool:
        return self.digits.endswith("%")

    @property
    def value(self) -> float:
        """A probability for a percentage, else the number printed."""
        number = Decimal(self.digits.rstrip("%").replace(",", ""))
        return float(number / 100) if self.percent else float(number)

    @property
    def kind(self) -> str:
        """The format of :data:`paper.builder.format.FORMATS` that prints
        the value with the source's digits."""
        number = self.digits.rstrip("%")
        decimals = len(number.split(".")[1]) if "." in number else 0
        kinds = ({1: "pct", 3: "pct3", 4: "pct4"} if self.percent else
                 {0: "pts", 1: "f1", 2: "f2", 3: "f3", 4: "f4"})
        return kinds[decimals]


PUBLISHED = {
    "farkle/cardgames/first_player_win": Published(
        "53.3%", DOMSLEEE, "domsleee's solver",
        "Expected win rate against a perfect AI when you go first is 53.3%"),
    "farkle/acg2017/fair_start": Published(
        "200", BUSCHE_NELLER, "Busche and Neller",
        "For fairest play, we recommend 200 compensation points at the beginning of the game "
        "for the second player."),
    "farkle/acg2017/human_edge": Published(
        "1.7754%", BUSCHE_NELLER, "Busche and Neller",
        "augment this method so as to enable human Farkle play against which complex optimal "
        "play maintains only a small win advantage of 1.7754%."),
    "farkle/facebook/first_player_win": Published(
        "53.487%", BUSCHE_FACEBOOK, "Busche",
        "if both players use this same strategy, the player going first will win 53.487% of "
        "the time."),
    "farkle/zilch/points_per_turn": Published(
        "620.855", BUSCHE_ZILCH, "Busche",
        "Using these three strategies you rack up an average of 620.855 points per turn, "
        "which is the best you can possibly do."),
}
"""The published figures this part reproduces or compares (the key is the
number's key in ``paper/numbers.json`` plus ``/published``; this program's
figure has the key itself)."""

GAMES = {"cardgames": "farkle-cardgames", "acg2017": "farkle-acg2017",
         "facebook": "farkle-facebook", "zilch": "zilch"}
"""The short name in the numbers' keys -> the game."""

THREE_PAIRS, FOUR_AND_PAIR = (2, 2, 2), (4, 2)


# ------------------------------------------------------------ computing

def table_path(game: str, tables: Path) -> Path:
    path = tables / f"{game}.h5"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: make it with farkle solve {game}")
    return path


@cache
@lru_cache(maxsize=None)
def computed(tables: Path = TABLES) -> dict:
    """This program's figures (each read or solved once a build): the
    first player's chances from the tables' info, farkle-acg2017's start
    values, its card, and Zilch played for points as the preset reads the
    rules page and as the page says (a few seconds each)."""
    out = {name: read_info(table_path(GAMES[name], tables))["first_player_win"]
           for name in ("cardgames", "facebook")}
    acg = read_table(table_path(GAMES["acg2017"], tables))
    scores, W = start_values(acg)
    unit = acg.rules.unit
    # The first player at 0 against a second player at each score: Busche
    # and Neller's fairest start is the one nearest one half.
    shares = W[0]
    fair = int(np.argmin(np.abs(shares - 0.5)))
    out["acg2017"] = {
        "unit": unit, "fair": int(scores[fair]) * unit, "komi": komi(acg),
        "share": {int(s) * unit: float(p) for s, p in zip(scores, shares, strict=True)}}
    cards = stored_cards()                  # read from its file once
    out["card"] = cards[GAMES["acg2017"]]["loss"]
    # The other Farkle rule sets' cards, where stored (the common table's
    # preset, `farkle`, among them).
    out["other_cards"] = {game: cards[game]["loss"]
                          for game in ("farkle-cardgames", "farkle", "farkle-facebook", "zilch")
                          if game in cards}
    zilch = get_rules(GAMES["zilch"])
    policy = points_policy(zilch)
    # The rules page names three pairs but not four of a kind with a pair:
    # the preset reads it as three pairs; the page's own words do not.
    page = dataclasses.replace(
        zilch, name=f"{zilch.name}-as-the-page-says",
        combinations=tuple(c for c in zilch.combinations if c[0] != FOUR_AND_PAIR))
    out["zilch"] = {"points": policy.points_per_turn,
                    "page": points_policy(page).points_per_turn,
                    "five_dice_banks": [policy.bank_from(5, c) for c in range(zilch.crosses)]}
    return out


# ------------------------------------------------------------ comparing

def reproduces(key: str, ours: float) -> bool:
    """Whether this program's figure ``ours``, printed to the digits of the
    published figure of ``key``, reads the same."""
    published = PUBLISHED[key]
    return FORMATS[published.kind](ours) == published.digits


def offset(N, key: str, ours: float) -> str:
    """How far ``ours`` is from the published figure of ``key``, and which
    way: "0.003 percentage points less"."""
    published = PUBLISHED[key]
    off = ours - published.value
    amount = (N(f"{key}/off", abs(off), "ppabs") + " percentage points" if published.percent
              else N(f"{key}/off", abs(off), published.kind) + " points")
    return f"{amount} {'more' if off > 0 else 'less'}"


def agreement(N, key: str, ours: float) -> str:
    """The table's word on ``ours`` against the published figure of
    ``key``: reproduced to the digits published, or by how much not."""
    if reproduces(key, ours):
        return "reproduced to the digits published"
    return f"not reproduced: {offset(N, key, ours)}"


def edge_words(loss: float, published: float) -> str:
    """How a card's loss compares with a published edge of optimal play
    over a human method, under both readings of that edge: optimal play's
    chance less one half (the card's loss) or the gap between the two
    players' chances (twice the loss)."""
    edge, gap = loss > published, 2 * loss > published
    if edge == gap:
        return f"{'more' if edge else 'less'} than their method, under either reading"
    return (f"{'more' if gap else 'less'} than their method if theirs is the gap between the "
            f"two players' chances, {'more' if edge else 'less'} if it is optimal play's "
            "chance less one half")


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def past_three(N, key: str, rules) -> str:
    """How four, five and six of a kind score, in words read off the rules'
    points (a twos' row stands for the faces that score only as sets)."""
    twos = rules.scoring[1]
    if all(row[k] == 2 * row[k - 1] for row in rules.scoring for k in (3, 4, 5)):
        return "each die past three doubles three of a kind"
    return ("four, five and six of a kind score "
            + _and([N(f"{key}/rules/of_a_kind/{k + 1}", twos[k], "pts") for k in (3, 4, 5)]))


def combination(rules, dice) -> int | None:
    return dict(rules.combinations).get(dice)


# ------------------------------------------------------------ the texts

def rule_sets(N) -> str:
    """A sentence for what the four games have in common and one for each."""
    rules = {name: get_rules(game) for name, game in GAMES.items()}
    common = []
    dice = {r.dice for r in rules.values()}
    if len(dice) == 1:
        common.append(f"{N('farkle/rules/dice', dice.pop(), 'int')} dice")
    if all(r.keep_rule == "any" for r in rules.values()):
        common.append("any scoring dice kept")
    if not any(r.hot_dice_forced for r in rules.values()):
        common.append("hot dice rolled or banked at the player's choice")
    lead = ("Farkle is played under many rule sheets, and each published figure holds for its "
            "own; this program solves each as a game of its own, with the rules read from its "
            "source" + (": all four with " + _and(common) if common else "") + ".")
    acg, cards, fb, zilch = (rules[n] for n in ("acg2017", "cardgames", "facebook", "zilch"))
    win = ("the first to bank {} or more wins at once"
           if not acg.final_round and not acg.exact_target else "the game is played to {}")
    parts = [lead]
    parts.append(
        f"`{acg.name}` is Busche and Neller's game {BUSCHE_NELLER}: "
        + win.format(N("farkle/acg2017/rules/target", acg.target, "pts"))
        + ", and only ones, fives and three of a kind score"
        + (", with no entry." if not acg.entry else "."))
    straight = cards.straights[0][1] if cards.straights else None
    parts.append(
        f"`{cards.name}` is cardgames.io's online game, solved by domsleee {DOMSLEEE}: the "
        f"same, but {past_three(N, 'farkle/cardgames', cards)}, three pairs "
        f"{N('farkle/cardgames/rules/three_pairs', combination(cards, THREE_PAIRS), 'pts')}"
        + (" (four of a kind with a pair among them)"
           if combination(cards, FOUR_AND_PAIR) == combination(cards, THREE_PAIRS) else "")
        + (f" and the run of six faces {N('farkle/cardgames/rules/run', straight, 'pts')}"
           if straight else "") + ".")
    parts.append(
        f"`{fb.name}` is Facebook's Farkle as Busche solved it {BUSCHE_FACEBOOK}: "
        f"{past_three(N, 'farkle/facebook', fb)}, three pairs score "
        f"{N('farkle/facebook/rules/three_pairs', combination(fb, THREE_PAIRS), 'pts')} and the "
        f"run {N('farkle/facebook/rules/run', fb.straights[0][1], 'pts')}, and "
        f"{N('farkle/facebook/rules/crosses', fb.crosses, 'int')} zero turns in a row cost "
        f"{N('farkle/facebook/rules/penalty', fb.fall_penalty, 'pts')} points, scores held "
        f"at {N('farkle/facebook/rules/floor', fb.floor, 'pts')} or above, his model's floor.")
    penalty = (zilch.crosses, zilch.fall_penalty) == (fb.crosses, fb.fall_penalty)
    same = ("Facebook's scoring and penalty"
            if (zilch.scoring, zilch.straights) == (fb.scoring, fb.straights) and penalty else
            f"{past_three(N, 'farkle/zilch', zilch)}, "
            f"{N('farkle/zilch/rules/crosses', zilch.crosses, 'int')} zero turns in a row "
            f"costing {N('farkle/zilch/rules/penalty', zilch.fall_penalty, 'pts')}")
    parts.append(
        f"`{zilch.name}` is playr.co.uk's Zilch, which Busche played for the most points a turn "
        f"{BUSCHE_ZILCH}: {same}, but three pairs "
        f"{N('farkle/zilch/rules/three_pairs', combination(zilch, THREE_PAIRS), 'pts')}, six "
        f"dice that score nothing {N('farkle/zilch/rules/no_score', zilch.no_score_bonus, 'pts')}"
        f" and a free roll, and no bank below "
        f"{N('farkle/zilch/rules/min_bank', zilch.min_bank, 'pts')}.")
    return " ".join(parts)


def _published(N, key: str) -> str:
    p = PUBLISHED[key]
    return N(f"{key}/published", p.value, p.kind)


def _fair_start(N, c: dict) -> tuple[str, str]:
    """farkle-acg2017's fairest head start and the first player's chance
    there (the same keys in both texts)."""
    fair = c["acg2017"]["fair"]
    return (N("farkle/acg2017/fair_start", fair, "pts"),
            N("farkle/acg2017/fair_start/first_player", c["acg2017"]["share"][fair], "pct3"))


def farkle_text(N, tabs, tables: Path = TABLES) -> str:
    """The section "Farkle: the published figures" (no heading): the rule
    sets, a table of each published figure beside this program's, and where
    one is not reproduced, by how much and why."""
    c = computed(tables)
    card, z = c["card"], c["zilch"]
    fair, fair_share = _fair_start(N, c)
    unit = N("farkle/acg2017/unit", c["acg2017"]["unit"], "pts")
    k = {"cards": "farkle/cardgames/first_player_win", "fair": "farkle/acg2017/fair_start",
         "edge": "farkle/acg2017/human_edge", "fb": "farkle/facebook/first_player_win",
         "zilch": "farkle/zilch/points_per_turn"}
    row = {name: [f"{PUBLISHED[key].source} {PUBLISHED[key].cite}", _published(N, key)]
           for name, key in k.items()}
    edge = edge_words(card["loss"], PUBLISHED[k["edge"]].value)
    rows = [
        [f"`{GAMES['cardgames']}`", "the first player's chance", *row["cards"],
         N(k["cards"], c["cardgames"], "pct4"), agreement(N, k["cards"], c["cardgames"])],
        [f"`{GAMES['acg2017']}`", "the fairest head start for the second player (points)",
         *row["fair"], f"{fair} (the first player {fair_share})",
         agreement(N, k["fair"], c["acg2017"]["fair"])],
        [f"`{GAMES['acg2017']}`", "optimal play's edge over a human method", *row["edge"],
         (f"the strategy card gives up {N('farkle/acg2017/card/loss', card['loss'], 'pct3')} "
          f"(a gap of {N('farkle/acg2017/card/gap', 2 * card['loss'], 'pct3')})"),
         f"compared, not reproduced: the card gives up {edge}"],
        [f"`{GAMES['facebook']}`", "the first player's chance", *row["fb"],
         N(k["fb"], c["facebook"], "pct4"), agreement(N, k["fb"], c["facebook"])],
        [f"`{GAMES['zilch']}`", "points a turn, played for points", *row["zilch"],
         N(k["zilch"], z["points"], "f4"), agreement(N, k["zilch"], z["points"])],
    ]
    ref = tabs.peek()
    caption = tabs.caption(
        "Published figures of optimal Farkle play beside this program's, each under its "
        "source's rules: the first player's chance at the start, the head start nearest one "
        f"half (in steps of {unit} points), a strategy card against optimal play, and the "
        "long-run points a turn of a player alone.")
    # The figures of optimal play (the human method's edge is compared, not
    # reproducible here).
    optimal = ((k["cards"], c["cardgames"]), (k["fair"], c["acg2017"]["fair"]),
               (k["fb"], c["facebook"]), (k["zilch"], z["points"]))
    said = sum(reproduces(key, value) for key, value in optimal)
    lead = (f"The same program solves the Farkle rule sets whose optimal play has been "
            f"published. {ref} sets each published figure beside this program's: "
            f"{N('farkle/reproduced', said, 'int')} of the "
            f"{N('farkle/reproducible', len(optimal), 'int')} figures of optimal play are "
            "reproduced to the digits published. Appendix J gives the rule sets, the readings "
            "and why the others differ.")
    return "\n\n".join([lead, table(
        ["game", "figure", "source", "published", "this program", "agreement"], rows,
        "llllrl"), caption])


def farkle_appendix(N) -> str:
    """Appendix J: the Farkle rule sets as solved here, and why a published
    figure is not reproduced."""
    c = computed(TABLES)
    k = {"edge": "farkle/acg2017/human_edge", "fb": "farkle/facebook/first_player_win",
         "zilch": "farkle/zilch/points_per_turn"}
    return rule_sets(N) + "\n\n" + explanation(N, c, k)


def explanation(N, c: dict, k: dict) -> str:
    """Where a figure is not reproduced, by how much and why; what the card
    is measured against; what Zilch's figure needs."""
    card, z = c["card"], c["zilch"]
    first, second = card["seats"]
    zilch = get_rules(GAMES["zilch"])
    parts = []
    if not reproduces(k["fb"], c["facebook"]):
        parts.append(
            "Busche's Facebook figure is not reproduced: the table gives "
            f"{N(k['fb'], c['facebook'], 'pct4')}, {offset(N, k['fb'], c['facebook'])} than his "
            f"{_published(N, k['fb'])}. His article's rules section could not be read, so its "
            "scoring is a reading of secondary sources: how five and six of a kind score, and "
            "whether four of a kind with a pair counts as three pairs, are this program's "
            "readings.")
    parts.append(
        f"Busche and Neller's {_published(N, k['edge'])} is the edge optimal play keeps over "
        "their human method; the method is in the part of their paper that could not be "
        "read, so this program's strategy card stands in for it.")
    parts.append(
        f"The card gives up {N('farkle/acg2017/card/loss', card['loss'], 'pct3')} against "
        "optimal play (one half less its mean chance over the two seats: "
        f"{N('farkle/acg2017/card/first', first, 'pct')} moving first, "
        f"{N('farkle/acg2017/card/second', second, 'pct')} second), a gap of "
        f"{N('farkle/acg2017/card/gap', 2 * card['loss'], 'pct3')} between the two players' "
        "chances: "
        f"{edge_words(card['loss'], PUBLISHED[k['edge']].value)}.")
    others = c["other_cards"]
    if others:
        parts.append(
            "The other rule sets' cards give up "
            + _and([f"{N(f'farkle/card/{game}/loss', loss['loss'], 'pct3')}"
                    + (f" ± {N(f'farkle/card/{game}/stderr', loss['stderr'], 'pct3')}"
                       if "stderr" in loss else "")
                    + f" (`{game}`)" for game, loss in others.items()])
            + (" (a ± figure: measured over sampled games, one standard error, where an "
               "exact evaluation at the game's own floor takes hours)."
               if any("stderr" in loss for loss in others.values()) else "."))
    page_same = reproduces(k["zilch"], z["page"])
    parts.append(
        f"Busche's {_published(N, k['zilch'])} points a turn are a long-run average over "
        "turns played for points, "
        f"{N('farkle/zilch/rules/crosses', zilch.crosses, 'int')} zero turns (zilches) in a "
        "row costing "
        f"{N('farkle/zilch/rules/penalty', zilch.fall_penalty, 'pts')}. "
        + ("It is reproduced whether or not four of a kind with a pair counts as three pairs"
           if page_same else
           "It is reproduced only with four of a kind and a pair counted as three pairs, which "
           "the rules page does not say")
        + f": as the page reads, the average is {N('farkle/zilch/page', z['page'], 'f4')} "
        + ("too." if page_same else "points."))
    banks = z["five_dice_banks"]
    if None not in banks:
        falls = all(a > b for a, b in pairwise(banks))
        parts.append(
            f"Played for points, `{zilch.name}` banks with five dice from "
            + _and([N(f"farkle/zilch/bank/5/{i}", b, "pts") for i, b in enumerate(banks)])
            + " points after none, one and two zilches in a row: these "
            + ("fall" if falls else "do not fall")
            + " as his three \"successively more conservative\" strategies do.")
    return " ".join(parts)


def compensation_text(N, tabs, tables: Path = TABLES) -> str:
    """A paragraph for the fair-start section: the fair start this program
    finds for farkle-acg2017 beside Busche and Neller's 200 points, and the
    first player's chance without it, at it and one step past it.
    (``tabs``: the builder's table counter, unused: no table here.)"""
    c = computed(tables)
    a = c["acg2017"]
    key = "farkle/acg2017/fair_start"
    fair, fair_share = _fair_start(N, c)
    unit = N("farkle/acg2017/unit", a["unit"], "pts")
    step = a["fair"] + a["unit"]
    same = reproduces(key, a["fair"])
    text = (
        f"Busche and Neller {BUSCHE_NELLER} recommend {_published(N, key)} compensation points "
        f"for the second player as the fairest start of their Farkle (`{GAMES['acg2017']}`). "
        f"This program's table finds {fair}" + (" too" if same else " instead")
        + f": of the head starts in steps of {unit} points, it leaves the first player's "
        f"chance nearest one half, {N('farkle/acg2017/start/0', a['share'][0], 'pct3')} "
        f"with none, {fair_share} at {fair} and "
        f"{N(f'farkle/acg2017/start/{step}', a['share'][step], 'pct3')} at "
        f"{N('farkle/acg2017/next_step', step, 'pts')}.")
    h = a["komi"]
    if h is not None:
        off = h["h"] - a["fair"]
        how = ("no other" if off == 0 else
               f"{N('farkle/acg2017/komi/off', abs(off), 'pts')} points "
               f"{'more' if off > 0 else 'less'}")
        text += (" The komi of this game, the smallest head start that leaves the first "
                 f"player at most one half, is {N('farkle/acg2017/komi', h['h'], 'pts')}: "
                 f"{how} than the head start nearest one half.")
    return text
