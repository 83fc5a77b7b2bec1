"""What the terminal of ``farkle play`` shows of a game: the sheet, the
questions, the events, the advice and the review, in the person's language.

Every line is a whole sentence of the catalog (``play`` domain,
docs/french.md): the person at the keyboard ("you") has sentences of their
own, since French conjugates the verb for them ("vous lancez", "le bot
lance"). Points are written as the sheet writes them (``10 000`` in French;
``10000`` in English, as the terminal always has), chances with two
decimals (``53.10%`` / ``53,10 %``).
"""

from __future__ import annotations

from functools import reduce

from solver.advice.advisor import Choice
from solver.model.messages import figure
from solver.play.game import KEEP, OVER, ROLL, TAKE, Decision, Event, Game, best_choice
from solver.text import N_, _, language, ngettext, number
from solver.text import percent as text_percent

HELP = N_("answers: dice as digits (1 1 5), #N for a keep of the list, b bank, r roll, "
          "t take over, f roll fresh, u undo (coaching), q quit")


# Points on the sheet: ``10 000`` in French, ``10000`` in English
# (solver.model.messages writes the rule once).
points = figure


def percent(win: float) -> str:
    return text_percent(win, 2)


def points_given_up(cost: float) -> str:
    """A cost in percentage points of win probability."""
    if cost == 0 or 100 * cost >= 0.01:
        value = number(100 * cost, 2)
    else:
        value = f"{100 * cost:.1e}"
        value = value if language() == "en" else value.replace(".", ",")
    return _("{value} pp").format(value=value)


def describe(choice: Choice) -> str:
    if choice.action == "keep":
        then = {"bank": N_("keep {dice} ({points}), then bank"),
                "roll": N_("keep {dice} ({points}), then roll"),
                "win": N_("keep {dice} ({points}), wins"),
                "zero": N_("keep {dice} ({points}), overshoots")}.get(
                    choice.then, N_("keep {dice} ({points})"))
        return _(then).format(dice=_dice(choice.keep), points=points(choice.points))
    return _({"bank": N_("bank"), "roll": N_("roll"), "take": N_("take over"),
              "fresh": N_("roll fresh"), "zero": N_("zero roll")}[choice.action])


def _dice(dice) -> str:
    return " ".join(map(str, dice))


def count(dice: int) -> str:
    """``1 die``, ``5 dice``."""
    return ngettext("{n} die", "{n} dice", dice).format(n=dice)


def _both(first: str, second: str) -> str:
    return _("{first} and {second}").format(first=first, second=second)


def _then(first: str, second: str) -> str:
    """Two items of a list of choices: ``bank 53.10%; roll 41.20%``."""
    return _("{first}; {second}").format(first=first, second=second)


class Screen:
    """What the terminal shows of a game."""

    def __init__(self, game: Game, options, write):
        self.game = game
        self.rules = game.rules
        self.coach = options.coach
        self.write = write
        self.you = None if options.coach else options.seat
        if options.coach:
            self.names = [_("player {seat}").format(seat=seat + 1)
                          for seat in range(options.players)]
        else:
            # One bot is "the bot"; several are told apart by their seats.
            bot = N_("the bot ({policy})") if options.players == 2 else N_("bot {seat} ({policy})")
            self.names = [_("you") if seat == options.seat
                          else _(bot).format(seat=seat + 1, policy=options.bot)
                          for seat in range(options.players)]
        self.people = [seat for seat in range(options.players) if not game.is_bot(seat)]
        self.seed = options.seed

    def said(self, seat: int, yours: str, theirs: str, **values) -> str:
        """The sentence of ``seat``'s doing: ``yours`` for the person at the
        keyboard, else ``theirs`` with ``{name}`` (both already translated)."""
        text = yours if seat == self.you else theirs
        return text.format(name=self.names[seat], **values)

    def title(self) -> None:
        rules = self.rules
        if self.coach:
            self.write(_("coaching {game} to {target}: type each roll's dice; u undoes the "
                         "last entry").format(game=rules.name, target=points(rules.target)))
        else:
            seats = ", ".join(_("seat {seat} {name}").format(seat=seat + 1, name=name)
                              for seat, name in enumerate(self.names))
            self.write(_("{game} to {target}, seed {seed}: {seats}").format(
                game=rules.name, target=points(rules.target), seed=self.seed, seats=seats))
        self.write(_(HELP))

    def sheet(self) -> None:
        state = self.game.state
        self.write("")
        self.write(self.said(state.mover, _("-- turn {turn}: you to play --"),
                             _("-- turn {turn}: {name} to play --"), turn=state.turn_number))
        width = max(len(name) for name in self.names)
        for seat, line in enumerate(state.lines):
            text = f"  {seat + 1} {self.names[seat]:<{width}}  {points(line.score):>6}"
            if self.rules.crosses:
                marks = f"{'x' * line.crosses or '-':<{self.rules.crosses}}"
                text += "   " + _("crosses {marks}").format(marks=marks)
            if self.rules.falls_back:
                text += "  " + _("previous {score}").format(score=points(line.previous))
            self.write(text)
        if state.offer is not None:
            offered, dice = state.offer
            self.write("  " + self.said(
                state.mover, _("on the table: {points} with {dice}, for you to take over"),
                _("on the table: {points} with {dice}, for {name} to take over"),
                points=points(offered), dice=count(dice)))

    def question(self) -> str:
        """Print what the question needs (the keeps, the turn, the advice
        when coaching) and return its prompt."""
        game, state = self.game, self.game.state
        advice = game.advice() if self.coach else None
        if state.phase == ROLL:
            if state.turn_total:
                return _("{name}: the {dice} rolled ({points} set aside)? ").format(
                    name=self.names[state.mover], dice=count(state.in_hand),
                    points=points(state.turn_total))
            return _("{name}: the {dice} rolled? ").format(name=self.names[state.mover],
                                                           dice=count(state.in_hand))
        if state.phase == KEEP:
            wins = {tuple(c.keep): c for c in advice.choices} if advice else {}
            best = _best(advice)
            for order, keep in enumerate(game.options(), 1):
                text = f"  #{order:<2} {_dice(keep.dice):<12} {points(keep.points):>5}"
                if keep.dice in wins:
                    text += f"   {percent(wins[keep.dice].win):>7}"
                    text += "  " + _("<- best") if best is wins[keep.dice] else ""
                self.write(text)
            return _("keep (dice, or #N)? ")
        if state.phase == TAKE:
            if advice:
                self._advice(advice)
            offered, dice = state.offer
            return _("take over {points} with {dice} (t) or roll fresh (f)? ").format(
                points=points(offered), dice=count(dice))
        self.write("  " + _("turn total {points}, {dice} in hand").format(
            points=points(state.turn_total), dice=count(state.in_hand)))
        refusal = game.bank_refusal()
        if refusal:
            return _("{refusal}; roll (r)? ").format(refusal=refusal)
        if advice:
            self._advice(advice)
        return _("bank (b) or roll (r)? ")

    def _advice(self, advice) -> None:
        best = _best(advice)
        others = [c for c in advice.choices if c is not best]
        shown = [_("{choice} {chance}").format(choice=describe(c), chance=percent(c.win))
                 for c in [best, *others]]
        self.write("  " + _("best: {best}").format(best=reduce(_then, shown)))

    def events(self, events: list[Event]) -> None:
        for event in events:
            line = self._event(event)
            if line:
                self.write(line)

    def _event(self, event: Event) -> str | None:
        seat, rules, kind = event.seat, self.rules, event.kind
        said = self.said
        if kind == "roll":
            return said(seat, _("you roll {dice}"), _("{name} rolls {dice}"),
                        dice=_dice(event.dice))
        if kind == "zero":
            if event.points:
                return "  " + _("no die scores: zero roll, {points} lost").format(
                    points=points(event.points))
            return "  " + _("no die scores: zero roll")
        if kind == "keep":
            if event.forced:
                text = said(seat, _("you keep {dice} ({points}): forced"),
                            _("{name} keeps {dice} ({points}): forced"),
                            dice=_dice(event.dice), points=points(event.points))
            else:
                text = said(seat, _("you keep {dice} ({points})"),
                            _("{name} keeps {dice} ({points})"),
                            dice=_dice(event.dice), points=points(event.points))
            return "  " + text
        if kind == "overshoot":
            return "  " + _("{points} more would pass {target}: zero turn").format(
                points=points(event.points), target=points(rules.target))
        if kind == "win":
            if event.score >= rules.target:
                return said(seat, _("you win with {score}"), _("{name} wins with {score}"),
                            score=points(event.score))
            return said(seat, _("you win at once"), _("{name} wins at once"))
        if kind == "bank":
            values = {"points": points(event.points), "score": points(event.score),
                      "n": event.count}
            if event.count:
                return "  " + said(
                    seat, ngettext("you bank {points}: {score}; {n} die left on the table",
                                   "you bank {points}: {score}; {n} dice left on the table",
                                   event.count),
                    ngettext("{name} banks {points}: {score}; {n} die left on the table",
                             "{name} banks {points}: {score}; {n} dice left on the table",
                             event.count), **values)
            return "  " + said(seat, _("you bank {points}: {score}"),
                               _("{name} banks {points}: {score}"), **values)
        if kind == "cross":
            return "  " + _("{name}: cross {count}").format(name=self.names[seat],
                                                            count=event.count)
        if kind == "fall":
            if rules.fall_penalty:
                return "  " + _("{name}: {crosses} crosses in a row, {penalty} points off to "
                                "{score}").format(name=self.names[seat], crosses=rules.crosses,
                                                  penalty=points(rules.fall_penalty),
                                                  score=points(event.score))
            return "  " + _("{name}: {crosses} crosses in a row, back to {score}").format(
                name=self.names[seat], crosses=rules.crosses, score=points(event.score))
        if kind == "take":
            return "  " + said(seat, _("you take over {points} with {dice}"),
                               _("{name} takes over {points} with {dice}"),
                               points=points(event.points), dice=count(event.count))
        if kind == "fresh":
            return "  " + said(seat, _("you roll fresh"), _("{name} rolls fresh"))
        if kind == "tie":
            return "  " + said(seat, _("you bank {points}: {score}, equal: the win is shared"),
                               _("{name} banks {points}: {score}, equal: the win is shared"),
                               points=points(event.points), score=points(event.score))
        if kind == "shared":
            names = reduce(_both, [self.names[s] for s in event.seats])
            return _("{names} share the win at {score}").format(names=names,
                                                                 score=points(event.score))
        if kind == "last-turn":
            return said(seat, _("you have one last turn to pass {score}"),
                        _("{name} has one last turn to pass {score}"),
                        score=points(event.score))
        if kind == "decision" and event.seat in self.people:
            return self._verdict(event.decision)
        return None

    def _verdict(self, decision: Decision) -> str:
        best = decision.best
        if decision.cost == 0:
            return "  " + _("best: {best} {chance}: your choice").format(
                best=describe(best), chance=percent(best.win))
        return "  " + _("best: {best} {chance}; yours {yours}: you gave up {cost}").format(
            best=describe(best), chance=percent(best.win), yours=percent(decision.chosen.win),
            cost=points_given_up(decision.cost))

    def review(self) -> None:
        game = self.game
        if game.state.winner is None:
            self.write(_("the win is shared") if game.phase == OVER else _("no winner yet"))
        for seat in self.people:
            review = game.review(seat)
            self.write(ngettext(
                "review, {name}: {n} decision, gave up {cost} of winning in all",
                "review, {name}: {n} decisions, gave up {cost} of winning in all",
                review.decisions).format(name=self.names[seat], n=review.decisions,
                                         cost=points_given_up(review.given_up)))
            if review.decisions and not review.costliest:
                self.write("  " + _("every decision was the best"))
            for decision in review.costliest:
                self.write("  " + _("{situation}: {chosen}; best {best}: {cost}").format(
                    situation=_situation(decision), chosen=describe(decision.chosen),
                    best=describe(decision.best), cost=points_given_up(decision.cost)))


def _best(advice):
    return best_choice(advice) if advice else None


def _situation(decision: Decision) -> str:
    position = decision.position
    turn = decision.turn_number
    if decision.kind == "take":
        offered, dice = position["offer"]
        return _("turn {turn}, offer of {points} with {dice}").format(
            turn=turn, points=points(offered), dice=count(dice))
    if decision.kind == "keep":
        return _("turn {turn}, roll {dice} with {points} set aside").format(
            turn=turn, dice=_dice(position["roll"]), points=points(position["turn"]))
    return _("turn {turn}, {points} set aside with {dice}").format(
        turn=turn, points=points(position["turn"]), dice=count(position["dice"]))
