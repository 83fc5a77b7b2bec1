"""The JSON questions behind ``farkle serve``'s page.

The server keeps no game. A game is its settings and the entries made so
far, which the page holds; every request replays them through
:class:`solver.play.game.Game`, the turn rules and the Advisor that ``farkle
play`` and ``farkle advise`` use, so an answer here is theirs, an undo is
the page dropping its last entry, and a restarted server loses nothing.

``GET /api/games``
    the games served: name, rules, whether their table is here, the
    command that makes a missing one, and ``solving``: the pid of another
    farkle making it now (0: not known; null: nobody), for which the page
    waits.
``POST /api/game``  ``{"game", "players", "names", "entries"}``
    an entry is ``{"dice": [faces]}`` (the roll now due),
    ``{"keep": [faces]}`` or ``{"choose": "bank" | "roll" | "take" |
    "fresh"}``. The answer is the score sheet, the phase of the turn, the
    decision now due with every choice's chance (``advice``, as ``farkle
    advise --json`` prints it), the last decision and its cost, every
    player's chance at each turn start so far (``chart``), the events,
    and the game's strategy card for that many players (``card``: its
    text, as ``farkle card`` prints it, and the points it gives up; null
    where the game has none).
    Seats (``mover``, ``winner``, ``seat``) are indices into ``sheet``, 0
    first (``winner`` null once over: a final round's shared win, shared by
    ``holders``; ``to_pass`` the score a final round's last turns must pass,
    else null, and ``holders`` the seats at it);
    ``recommended`` indexes ``advice.choices`` (docs/rules.md's tie-break
    among equal choices).
``POST /api/advise``  ``{"game", "me", "opp", "turn", "dice", "roll",
"offer", "crosses", "previous", "opp_crosses", "opp_previous"}``
    what ``farkle advise --json`` prints for the same options.

With more players than the game's exact tables hold, advice comes from
the two-player table as ``farkle advise`` gives it (the race-of-duels
model, :class:`solver.advice.duels.DuelsAdvisor`). A request the game cannot take is a
:class:`BadRequest` (HTTP 400), a game without its table a
:class:`solver.tables.load.MissingTable` (HTTP 404); both carry one line for the page,
in the request's language (the server sets it: :mod:`solver.web.server`), as are
the texts an answer carries for the page to show (``bank_refusal``, the card,
the default names); the keys, and the values the page computes with, never
change with the language.

Every question is checked before the game sees it, so that no body,
however odd, reaches the game as something it does not expect: a body is
a JSON object, a number is a whole number of at most :data:`BIGGEST` (not
null, a string or a float), and the players are 2 to 6 as on the command
line (``/api/advise``: at most five opponents).

:class:`TableDesk` is shared by the server's threads: each advisor is
loaded once, under a lock of its own, and then only read.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict
from pathlib import Path

from solver.advice.advisor import Advisor, lines_of
from solver.advice.choose import advisor_for
from solver.engine.solution_n import check_player_count
from solver.model.errors import UsageError
from solver.model.rules import GAMES, Rules
from solver.play.game import BANK, KEEP, OVER, ROLL, TAKE, Game, best_choice
from solver.tables.load import table_exists
from solver.tables.lock import solving_now
from solver.tables.paths import user_table_path
from solver.text import N_, _, language, number

MAX_ENTRIES = 10_000
"""Far more entries than any game needs: a longer list is refused."""

BIGGEST = 10**9
"""No score, count or face of a game is larger: a larger whole number is
refused before it meets numpy's 64-bit integers (a JSON integer can have
thousands of digits)."""


class BadRequest(UsageError):
    status = 400


class TableDesk:
    """The games served, their advisors (loaded once each) and the answers
    to the page's questions. ``house_rules`` (``serve --rules FILE``) is
    served beside the built-in games under its own name."""

    def __init__(self, house_rules: Rules | None = None, house_rules_file: Path | None = None):
        self.games: dict[str, Rules] = dict(GAMES)
        self.house_rules = house_rules
        self.house_rules_file = house_rules_file
        if house_rules is not None:
            self.games[house_rules.name] = house_rules
        self._advisors: dict[tuple[str, int], Advisor] = {}
        # One lock per advisor: two phones asking for the same game at once
        # read its table once, while another game's table loads beside it.
        self._locks: dict[tuple[str, int], threading.Lock] = {}
        self._locks_lock = threading.Lock()

    # ------------------------------------------------------------ the games
    def game_list(self) -> list[dict]:
        out = []
        for name, rules in self.games.items():
            present = table_exists(rules)
            out.append({"name": name, "house_rules": rules is self.house_rules,
                        "table": present, "command": None if present else self._command(rules),
                        "solving": None if present else solving_now(user_table_path(rules)),
                        "exact_players": self._exact_players(rules),
                        **_rules_summary(rules)})
        # The house rules first: they are what the person came with.
        return sorted(out, key=lambda g: not g["house_rules"])

    def _command(self, rules: Rules, players: int = 2) -> str:
        game = f"--rules {self.house_rules_file}" if rules is self.house_rules else rules.name
        seats = f" --players {players}" if players != 2 else ""
        return f"farkle solve {game}{seats}"

    def _exact_players(self, rules: Rules) -> list[int]:
        """The numbers of players whose exact table is here."""
        return [n for n in range(2, 7) if table_exists(rules, n)]

    def rules(self, body: dict) -> Rules:
        name = body.get("game")
        if not isinstance(name, str) or name not in self.games:
            raise BadRequest(_("unknown game {name}; served games: {games}").format(
                name=f"{name!r:.60}", games=", ".join(self.games)))
        return self.games[name]

    def advisor(self, rules: Rules, players: int) -> Advisor:
        """The exact table of ``players`` when it is here, else (three or
        more players) the race-of-duels model on the two-player table."""
        key = (rules.name, players)
        advisor = self._advisors.get(key)
        if advisor is not None:                 # loaded: read without a lock
            return advisor
        with self._locks_lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            # Another thread may have loaded it while this one waited. A
            # missing table stores nothing: it is looked for again next time.
            if key not in self._advisors:
                self._advisors[key] = self._load(rules, players)
            return self._advisors[key]

    def _load(self, rules: Rules, players: int) -> Advisor:
        """The page never solves: exact where the table is here, else the
        model (:func:`solver.advice.choose.advisor_for`); a missing table
        is a 404 naming the command that makes it."""
        return advisor_for(rules, players,
                           command=lambda rules, memory, table_players: self._command(rules))

    # ------------------------------------------------------- the questions
    def play(self, body: dict) -> dict:
        """``POST /api/game``: the game after its entries (module docstring)."""
        body = _object(body)
        rules = self.rules(body)
        players = _players(_number(body, "players", 2))
        names = _names(body.get("names"), players)
        entries = body.get("entries", [])
        if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
            raise BadRequest(_("entries must be a list of at most {most} entries").format(
                most=_whole(MAX_ENTRIES)))
        game = Game(self.advisor(rules, players), players)
        chart, events = [self._chart_point(game)], []
        for index, entry in enumerate(entries):
            try:
                events += _enter(game, entry)
            except UsageError as error:
                if index == len(entries) - 1:
                    raise BadRequest(str(error)) from None
                raise BadRequest(_("entry {n}: {error}").format(n=index + 1, error=error)) \
                    from None
            if game.phase == OVER:
                chart.append({"turn": game.state.turn_number, "seat": game.state.winner,
                              "chances": _final_chances(game.state, players)})
            elif game.state.turn_number != chart[-1]["turn"]:
                chart.append(self._chart_point(game))
        return {**self._sheet(game, rules, names, chart, events),
                "card": _card(rules, players)}

    def advise(self, body: dict) -> dict:
        """``POST /api/advise``: ``farkle advise --json`` for the same options."""
        body = _object(body)
        rules = self.rules(body)
        opps = body.get("opp")
        opps = [opps] if isinstance(opps, int) and not isinstance(opps, bool) else opps
        if not isinstance(opps, list) or not opps or not all(_is_int(o) for o in opps):
            raise BadRequest(_("opp must be a score or a list of scores (seat order after me)"))
        # Refused before anything is read: as many opponents as `farkle
        # advise --opp` takes, and no more.
        _players(1 + len(opps), len(opps))
        me, opp = lines_of(_number(body, "me"), _number(body, "crosses", 0),
                           _number(body, "previous", None), opps,
                           _numbers(body, "opp_crosses"), _numbers(body, "opp_previous"))
        advisor = self.advisor(rules, 1 + len(opps))
        dice = _number(body, "dice", rules.dice)
        turn = _number(body, "turn", 0)
        if body.get("offer") is not None:
            offer = _numbers(body, "offer")
            if len(offer) != 2:
                raise BadRequest(_("offer is [points, dice]"))
            if turn != 0 or body.get("roll"):
                raise BadRequest(_("an offer is a turn-start question: turn 0 and no roll"))
            return advisor.take_or_fresh(me, opp, *offer).to_json()
        if body.get("roll"):
            return advisor.keep(me, opp, turn, dice, _numbers(body, "roll")).to_json()
        return advisor.bank_or_roll(me, opp, turn, dice).to_json()

    # ------------------------------------------------------------ answers
    @staticmethod
    def _chart_point(game: Game) -> dict:
        return {"turn": game.state.turn_number, "seat": game.mover, "chances": game.chances()}

    @staticmethod
    def _sheet(game: Game, rules: Rules, names: list[str], chart: list, events: list) -> dict:
        state = game.state
        advice = game.advice()
        decisions = state.decisions
        return {
            "game": rules.name, "players": game.players, "names": names,
            "rules": _rules_summary(rules),
            "model": getattr(game.advisor, "MODEL", None),
            "sheet": [{"name": names[seat], **asdict(line),
                       "given_up": game.review(seat).given_up}
                      for seat, line in enumerate(state.lines)],
            "mover": state.mover, "phase": state.phase, "turn_number": state.turn_number,
            "turn_total": state.turn_total, "in_hand": state.in_hand,
            "roll": list(state.roll) if state.roll else None,
            "offer": ({"points": state.offer[0], "dice": state.offer[1]}
                      if state.offer else None),
            "winner": state.winner, "to_pass": state.to_pass, "holders": list(state.holders),
            "advice": advice.to_json() if advice is not None else None,
            # docs/rules.md's tie-break may prefer a choice after the first.
            "recommended": (advice.choices.index(best_choice(advice))
                            if advice is not None else None),
            "bank_refusal": game.bank_refusal() if state.phase == "bank" else None,
            "last_decision": _decision(decisions[-1]) if decisions else None,
            "chart": chart,
            "events": [_event(event) for event in events],
        }


def _card(rules: Rules, players: int) -> dict | None:
    """The strategy card the page shows beside the sheet, or None."""
    from solver.cards.store import find_card
    from solver.cards.text import card_text
    try:
        found = find_card(rules, players)
    except UsageError:
        return None
    return {"text": card_text(found.card, rules, found.loss, found.players,
                                    found.then_table if players == 2 else None),
            "players": found.players,
            "loss": found.loss["loss"] if found.loss else None}


def _rules_summary(rules: Rules) -> dict:
    return {"target": rules.target, "dice": rules.dice, "unit": rules.unit,
            "entry": rules.entry, "crosses": rules.crosses,
            "fall_penalty": rules.fall_penalty, "floor": rules.floor,
            "takeover": rules.has_takeover, "final_round": rules.final_round}


def _enter(game: Game, entry) -> list:
    if not isinstance(entry, dict) or len(entry) != 1:
        raise BadRequest(_('an entry is {{"dice": [...]}}, {{"keep": [...]}} or '
                           '{{"choose": ...}}, not {entry}').format(entry=_shown(entry)))
    (kind, value), = entry.items()
    # A choice is a string, dice and keeps are not (a list is no key).
    if (kind == "choose") != isinstance(value, str):
        phase = None
    else:
        phase = {"dice": ROLL, "keep": KEEP, "bank": BANK, "roll": BANK, "take": TAKE,
                 "fresh": TAKE}.get(value if kind == "choose" else kind)
    if phase is None:
        raise BadRequest(_("unknown entry {entry}").format(entry=_shown(entry)))
    if phase != game.phase:
        raise BadRequest(_("{entry} is not due now: {due} is").format(
            entry=_(_DUE[phase]), due=_(_DUE[game.phase])))
    return game.enter_roll(_faces(value)) if kind == "dice" else \
        game.choose(_faces(value) if kind == "keep" else value)


_DUE = {ROLL: N_("a roll's dice"), KEEP: N_("a keep"), BANK: N_("bank or roll"),
        TAKE: N_("take over or roll fresh"), OVER: N_("nothing (the game is over)")}


def _final_chances(state, players: int) -> list[float]:
    """Each seat's share of the win once the game is over."""
    sharers = [state.winner] if state.winner is not None else list(state.holders)
    return [1 / len(sharers) if seat in sharers else 0.0 for seat in range(players)]


def _event(event) -> dict:
    out = {"kind": event.kind, "seat": event.seat, "points": event.points,
           "dice": list(event.dice), "count": event.count, "score": event.score,
           "forced": event.forced}
    if event.decision is not None:
        out["decision"] = _decision(event.decision)
    if event.seats:
        out["seats"] = list(event.seats)
    return out


def _decision(decision) -> dict:
    # The API's seats are indices into the sheet (the play log counts from 1).
    return {**decision.to_json(), "seat": decision.seat}


# ---------------------------------------------------------------- checking
def _object(body) -> dict:
    if not isinstance(body, dict):
        raise BadRequest(_("the request body must be a JSON object"))
    return body


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= BIGGEST


def _shown(value, most: int = 60) -> str:
    """``value`` as JSON for a one-line message, cut to ``most`` characters."""
    text = json.dumps(value)
    return text if len(text) <= most else text[:most - 1] + "\u2026"


def _number(body: dict, key: str, default=...):
    """A whole number, or ``default`` where the key is absent or null (a
    null is refused where there is no default: ``me``)."""
    value = body.get(key)
    if value is None:
        if default is ...:
            raise BadRequest(_("{key} is missing").format(key=key) if key not in body
                             else _("{key} must be a whole number, not null").format(key=key))
        return default
    if not _is_int(value):
        raise BadRequest(_("{key} must be a whole number up to {most}, not {value}").format(
            key=key, most=number(BIGGEST), value=_shown(value)))
    return value


def _numbers(body: dict, key: str) -> list[int] | None:
    value = body.get(key)
    if value is not None and (not isinstance(value, list) or not all(map(_is_int, value))):
        raise BadRequest(_("{key} must be a list of whole numbers, not {value}").format(
            key=key, value=_shown(value)))
    return value


def _faces(value) -> list[int]:
    if not isinstance(value, list) or not all(map(_is_int, value)):
        raise BadRequest(_("dice are a list of faces, not {value}").format(value=_shown(value)))
    return value


def _players(players: int, opponents: int | None = None) -> int:
    """``players`` when 2 to 6, else the command line's refusal, as a 400
    (with the ``opponents`` of ``/api/advise`` named)."""
    try:
        check_player_count(players)
    except UsageError as error:
        if opponents is None:
            raise BadRequest(str(error)) from None
        raise BadRequest(_("{error} (me and {n} opponents)").format(error=error, n=opponents)) \
            from None
    return players


def _names(value, players: int) -> list[str]:
    value = [] if value is None else value
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value) \
            or len(value) > players:
        raise BadRequest(_("names must be a list of at most {most} names").format(most=players))
    names = [n.strip()[:24] or _("Player {n}").format(n=i + 1) for i, n in enumerate(value)]
    return names + [_("Player {n}").format(n=i + 1) for i in range(len(names), players)]


def _whole(value: int) -> str:
    """A count in a message: ``10 000`` in French, ``10000`` in English (as
    the page has always written it)."""
    return str(value) if language() == "en" else number(value)

