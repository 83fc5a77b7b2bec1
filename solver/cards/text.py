"""A strategy card as a person reads it at the table (:class:`solver.cards.record.Card`).

The rules of :mod:`solver.cards.card`, in the order they apply, in words and
whole points; only the rules the card has (a field at 0 prints nothing),
as it plays at the target it is read for (:meth:`Card.at_target
<solver.cards.record.Card.at_target>`: no condition every score or no
score there meets).

Every sentence and clause is a message of the ``library`` catalog with
named placeholders (docs/french.md), so that a French player reads the
card as it is said at the table; the English card is the messages as
written. Numbers are written as the reader's language writes them
(``2,150`` / ``2 150``).
"""

from __future__ import annotations

from solver.cards.phrases import and_list as _and
from solver.cards.phrases import decimal as _decimal
from solver.cards.phrases import dice_or_fewer as _at_most
from solver.cards.phrases import dice_or_more as _dice_or_more
from solver.cards.phrases import dice_row as _row
from solver.cards.phrases import nor_list as _nor
from solver.cards.phrases import number_as_read as _n
from solver.cards.phrases import plural_count as _count
from solver.cards.phrases import semicolon as _semicolon
from solver.cards.record import chooses_keeps, within_from_anywhere
from solver.model.messages import in_language
from solver.model.rules import Rules
from solver.text import _, ngettext


def _total(threshold: int, never_from: int) -> str:
    """A bank threshold as read: 0 banks at any total, one from
    ``never_from`` (:func:`_never_from`) never."""
    return _("never") if threshold >= never_from else _n(threshold) if threshold else _("any")


def _never_from(card, rules: Rules) -> int:
    """The bank threshold no turn total short of the target reaches, however
    far the player leads (each step of the lead takes ``behind`` off) and on
    the last cross."""
    lead_steps = (rules.target - rules.unit) // max(card.gap_step, 1)
    return rules.target + abs(card.behind) * lead_steps + (card.last_cross if rules.crosses
                                                           else 0)


def _bank_at(row: tuple[int, ...], card, never_from: int) -> str:
    """A bank row beside the usual one, "bank at ...": only the dice whose
    threshold it changes, a line to read."""
    changed = [(n, _total(b, never_from)) for n, b, usual in
               reversed(list(zip(range(1, len(row) + 1), row, card.bank)))
               if _total(b, never_from) != _total(usual, never_from)]
    return _("bank at {row}").format(row=_row(changed)) if changed else _("bank at the same")


def _worths(row, usual=None) -> str:
    """Worths of dice left as read, most dice first: only those that differ
    from ``usual`` where given."""
    return _row((k, _n(w)) for k, w in reversed(list(enumerate(row, start=1)))
                if usual is None or w != usual[k - 1])


def _keep_lines(card, rules: Rules, chase_said: bool) -> list[str]:
    """The keep rules; ``chase_said``: the row near the other player's end
    went on the chase row's line."""
    worth = list(card.left_worth) or [0]
    if all(w == worth[0] * k for k, w in enumerate(worth, start=1)):
        lines = [_("Keep: the most points + {worth} for each die left to roll").format(
            worth=_n(worth[0]))]
    else:
        lines = [_("Keep: the most points + the dice left to roll, worth {row}").format(
            row=_worths(worth))]
    extra = [_("+ {points} for a keep after which you bank").format(
        points=_n(card.bank_keep_worth))] if card.bank_keep_worth else []
    leader = _worths(card.leader_worth, card.left_worth or None)
    if card.leader_worth and leader:
        extra.insert(0, _("if you lead, {row}").format(row=leader))
    if rules.entry and (card.entry_die or card.entry_reach):
        entry = max(card.open_at, rules.entry)
        extra.append(_("before you enter, {rules}").format(rules=", ".join(
            ([_("+ {points} a die while short of {entry}").format(
                points=_n(card.entry_die), entry=_n(entry))] if card.entry_die else []) +
            ([_("+ {points} for the keep that reaches it").format(points=_n(card.entry_reach))]
             if card.entry_reach else []))))
    if extra:
        lines[-1] += f" ({(_semicolon() + ' ').join(extra)})"
    # Turn totals in order: the late worths, then the most points.
    late = _worths(card.late_worth, card.left_worth or None)
    later = [_("from {points} set aside: {row}").format(points=_n(card.late_from), row=late)] \
        if card.late_from and late else []
    most_points = _most_points(card, rules, after_late=bool(later))
    if most_points:
        later.append(most_points)
    if later:
        lines.append("  " + (_semicolon() + " ").join(later))
    when_chasing = _chase_when(card, rules)
    if card.chase_worth and when_chasing and not chase_said:
        lines[-1] += _semicolon()
        lines.append("  " + _("{condition}: dice left worth {row}, in place of the worths "
                              "above").format(condition=when_chasing,
                                              row=_worths(card.chase_worth)))
    if card.hot_dice_cost and rules.hot_dice_forced:
        lines[-1] += _semicolon()
        if card.hot_dice_from:
            hot = _("a keep of every die (all {dice} to roll again) that brings the turn total "
                    "to {points} or more: {cost} less per {thousand} of the turn total it "
                    "brings")
        else:
            hot = _("a keep of every die (all {dice} to roll again): {cost} less per "
                    "{thousand} of the turn total it brings")
        lines.append("  " + hot.format(dice=rules.dice, points=_n(card.hot_dice_from),
                                       cost=_n(card.hot_dice_cost), thousand=_n(1000)))
    lines[-1] += "."
    return lines


def _most_points(card, rules: Rules, after_late: bool = False) -> str:
    """From which turn total the card keeps the most points, and where
    (:func:`solver.cards.card.points_from`): "" where never; ``after_late``:
    after the late row's "from N set aside", so "from M" says it."""
    base, lead = card.most_points_from, card.lead_most_points_from
    if_chasing = _chase_when(card, rules, clause=True)
    chase = card.chase_most_points_from if if_chasing else 0
    # A total from the target on is never reached; without a total of its
    # own the card never keeps the most points, so "never" near the other
    # player's end is worth saying only beside the lead's total.
    never = chase >= rules.target
    if never and not (base or lead):
        chase = 0
    # With a total of its own the others are in brackets after it; the
    # chase row's first: it decides where both apply.
    other = []
    if chase:
        other.append((_("never {condition}") if never else
                      _("{points} {condition}") if base else
                      _("from {points} set aside {condition}")).format(
            points=_n(chase), condition=if_chasing))
    if lead:
        other.append((_("else {points} if you lead") if other and base else
                      _("{points} if you lead") if base else
                      _("else from {points} if you lead") if other else
                      _("from {points} if you lead")).format(points=_n(lead)))
    if base:
        since = (_("from {points}: the most points") if after_late else
                 _("with {points} or more set aside: the most points")).format(points=_n(base))
        return since + (f" ({', '.join(other)})" if other else "")
    return _("the most points {others}").format(others=", ".join(other)) if other else ""


def _end_lines(card, rules: Rules) -> list[str]:
    bonus = f" + {_n(card.end_bonus)}" if card.end_bonus else ""
    die = _(" + {points} a die left to roll").format(points=_n(card.end_die)) \
        if card.end_die else ""
    odd = _(", {points} less if that needs a 5 (50, 150, ...)").format(
        points=_n(card.odd_fifty)) if card.odd_fifty else ""
    return ["  " + _("leaving {within} or less to {target}: the points{bonus}{die}{odd}.").format(
        within=_n(card.end_within), target=_n(rules.target), bonus=bonus, die=die, odd=odd)]


def _chase_when(card, rules: Rules, clause: bool = False) -> str:
    """Where the card's chase row applies, as a person says it ("" where
    never); ``clause``: as a clause ("if the other player is within ...")."""
    behind, within = card.chase_behind, card.chase_within
    if behind and within:
        text = (_("if you are trailing by {behind} or more or the other player is within "
                  "{within} of {target}") if clause else
                _("trailing by {behind} or more or the other player within {within} of "
                  "{target}"))
    elif behind:
        text = _("if you are trailing by {behind} or more") if clause else \
            _("trailing by {behind} or more")
    elif within:
        text = _("if the other player is within {within} of {target}") if clause else \
            _("the other player within {within} of {target}")
    else:
        return ""
    return text.format(behind=_n(behind), within=_n(within), target=_n(rules.target))


def _distance(rules: Rules, within: int, least: int, to_target: bool = False) -> str:
    """How far from the target the taker would be: "within 1,800 of
    10,000", "exactly 100", "100 to 300" (the target said after the
    first)."""
    if least <= rules.unit:
        text = _("within {within} of {target}") if to_target else _("within {within}")
    elif least == within:
        text = _("exactly {within} from {target}") if to_target else _("exactly {within}")
    else:
        text = (_("{least} to {within} from {target}") if to_target else
                _("{least} to {within}"))
    return text.format(within=_n(within), least=_n(least), target=_n(rules.target))


def _offer_rule(card, rules) -> str:
    """The offer rule, with the dice it holds for: "" where the card has none."""
    if not rules.has_takeover:
        return ""
    windows = [(_dice_or_more(card.offer_dice), card.offer_within, 0)]
    if card.offer_dice > 2:     # with fewer dice, but two or more
        fewer = _("2 dice") if card.offer_dice == 3 else \
            _("2 to {most} dice").format(most=card.offer_dice - 1)
        windows.append((fewer, card.offer_fewer_within, card.offer_fewer_from))
    windows = [window for window in windows if window[1]]
    lead = (_("from {low} to {high}").format(low=_n(card.lead_offer_from),
                                             high=_n(card.lead_offer_to))
            if card.lead_offer_behind else "")
    leading = dict(between=lead, behind=_n(card.lead_offer_behind),
                   far=_n(card.lead_offer_far))
    if not windows:
        return _("with {dice}, never bank {between} if the other player leads by {behind} or "
                 "more with more than {far} to go and may take over").format(
            dice=_dice_or_more(card.offer_dice), **leading) if lead else ""
    (dice, within, least), *rest = windows
    if least <= rules.unit and within_from_anywhere(rules, within):
        first = _("with {dice}, never bank if the other player may take over").format(
            dice=dice)     # any offer
    else:
        first = _("with {dice}, never bank if the other player, taking over, would be "
                  "{distance}").format(dice=dice,
                                       distance=_distance(rules, within, least, True))
    return (first + "".join(_(" (with {dice}, {distance})").format(
                dice=dice, distance=_distance(rules, within, least))
                            for dice, within, least in rest)
            + (_(", nor {between} if they lead by {behind} or more with more than {far} to go")
               .format(**leading) if lead else ""))


def _finish_dice(card, rules: Rules) -> str:
    """The finish's dice in hand: ", with 3 dice or fewer (any dice with a
    cross)", or nothing where it holds with any dice, cross or not."""
    plain = _at_most(card.finish_dice, rules)
    crossed = _at_most(card.crossed_finish_dice or card.finish_dice, rules)
    if rules.crosses and crossed != plain:
        return _(", with {dice} ({crossed} with a cross)").format(
            dice=plain or _("any dice"), crossed=crossed or _("any dice"))
    return "" if plain is None else _(", with {dice}").format(dice=plain)


def _five_hundreds(card, rules: Rules) -> tuple[str, str]:
    """The finish at 500, 1,500, ...: ``(amounts, then)``, "500 or 1,500"
    and " with 3 dice or fewer (three 5s, a straight)"."""
    amounts = range(500, card.five_hundreds_within + 1, 1000)
    listed = [_n(a) for a in amounts]
    if len(listed) > 1:
        listed = _("{amounts} or {last}").format(amounts=", ".join(listed[:-1]),
                                                 last=listed[-1])
    else:
        listed = listed[-1]
    # What makes them in one roll of fresh dice: three 5s, and a straight
    # where one is worth as much.
    makes = [_("three 5s")] + ([_("a straight")] if any(points in amounts for _faces, points
                                                        in rules.straights) else [])
    dice = _at_most(card.five_hundreds_dice, rules)
    return listed, (_(" with {dice}").format(dice=dice) if dice is not None else "") + \
        f" ({', '.join(makes)})"


def _take_finish(card, rules: Rules) -> str:
    """The take-over that chases the end: "" where the card has none."""
    if not (rules.exact_target and card.take_finish_within):
        return ""
    wider = card.take_finish_within > 100
    if not wider:
        up_to = ""
    elif card.take_finish_dice > 1:
        up_to = _(" (up to {points} with {dice} dice or more)").format(
            points=_n(card.take_finish_within), dice=card.take_finish_dice)
    else:
        up_to = _(" (up to {points})").format(points=_n(card.take_finish_within))
    return (_semicolon() + " " + _("and any offer that leaves {points} to {target}").format(
        points=_n(100), target=_n(rules.target)) + up_to)


def _final_round_lines(card, rules: Rules) -> list[str]:
    """A final round: the bank past the target (:attr:`Card.past_lead
    <solver.cards.record.Card.past_lead>`), and the card's own last turn,
    the one-turn odds' (:mod:`solver.model.last_turn`, as ``farkle
    advise`` gives them)."""
    target = _n(rules.target)
    if card.past_lead or card.past_lead_all:
        if card.past_lead_all != card.past_lead:
            past = _("bank once you lead by {points} ({all} with all {dice} dice to roll)")
        else:
            past = _("bank once you lead by {points}")
        past = past.format(points=_n(card.past_lead), all=_n(card.past_lead_all),
                           dice=rules.dice)
    else:
        past = _("bank at once")
    return [_("Past {target}: {rule}; the other player then has one last turn to pass "
              "you.").format(target=target, rule=past),
            _("Your last turn (the other player banked at or past {target}): roll until you "
              "pass them, keeping the dice that give you the best chance (farkle "
              "advise).").format(target=target)]


def card_text(card, rules: Rules, loss: dict | None = None, players: int = 2,
              then_table: dict | None = None, lang: str | None = None) -> str:
    """The card as a person reads it at the table (under 15 lines); ``loss``:
    its measured loss, as :func:`solver.cards.store.stored_cards` keeps it;
    ``players``: the table it was fitted for (with more than two, every
    "other player" of the card is the leader); ``then_table``: its loss
    when its player asks the table near the end, where measured;
    ``lang``: the language (``en`` for a file or ``--json``), else the
    reader's (:mod:`solver.text`)."""
    if lang is not None:
        return in_language(lang, card_text, card, rules, loss, players, then_table)
    card = card.at_target(rules)
    lines = [_("{game}: strategy card (two players)").format(game=rules.name) if players == 2
             else _("{game}: strategy card ({players} players; the other player is the "
                    "leader)").format(game=rules.name, players=players)]
    # The loss in points of 100 (percentage points of the chance to win);
    # the count picks the plural (French: "0,96 partie sur 100").
    if loss and "stderr" in loss:
        # Measured over sampled games, where an exact evaluation takes hours.
        lines[0] += ngettext("; gives up {loss} ± {stderr} points of 100 against perfect play "
                             "(sampled)",
                             "; gives up {loss} ± {stderr} points of 100 against perfect play "
                             "(sampled)", _count(100 * loss["loss"])).format(
            loss=_decimal(100 * loss["loss"]), stderr=_decimal(100 * loss["stderr"]))
    elif loss:
        lines[0] += ngettext("; gives up {loss} points of 100 against perfect play",
                             "; gives up {loss} points of 100 against perfect play",
                             _count(100 * loss["loss"])).format(loss=_decimal(100 * loss["loss"]))
    if loss and then_table:
        lines[0] += _(" ({loss} if you ask farkle advise once either player is within {within} "
                      "of {target})").format(loss=_decimal(100 * then_table["loss"]),
                                             within=_n(then_table["within"]),
                                             target=_n(rules.target))
    # The rules that forbid a bank whatever the row says, first.
    never = ([_("below {points} before you enter").format(
        points=_n(max(card.open_at, rules.entry)))] if rules.entry else []) + \
        ([_("below {points} (the rules' smallest bank)").format(points=_n(rules.min_bank))]
         if rules.min_bank else []) + \
        ([(_("short of {target} once either player is within {within} of it") if players == 2
           else _("short of {target} once any player is within {within} of it")).format(
            target=_n(rules.target), within=_n(card.race_within))]
         if card.race_within else [])
    if never:
        lines.append(_("Never bank {rules}.").format(rules=_nor(never)))
    bank_line = len(lines)
    never_from = _never_from(card, rules)
    if rules.dice == 1:
        lines.append(_("Bank when your turn total reaches {points}").format(
            points=_n(card.bank[0])))
    else:
        lines.append(_("Bank when your turn total reaches, by dice left to roll: {row}").format(
            row=_row((n, _total(b, never_from))
                     for n, b in reversed(list(enumerate(card.bank, start=1))))))
    if card.behind:
        lines.append("  " + _("add {points} for every {step} points you trail (take {points} "
                              "off for every {step} you lead)").format(
            points=_n(card.behind), step=_n(card.gap_step)))
    when_chasing = _chase_when(card, rules)
    chasing = bool(when_chasing and card.chase_bank)
    # Its keeps too, where the card has a row of worths for them: one line
    # for what changes near the other player's end.
    chase_keeps = chasing and bool(card.chase_worth) and chooses_keeps(rules)
    if chasing:
        bank_at = _bank_at(card.chase_bank, card, never_from)
        if chase_keeps:
            bank_at += _semicolon() + " " + _(
                "keep by dice left worth {row}, in place of the worths below").format(
                row=_worths(card.chase_worth))
        lines.append("  " + _("{condition}: {rule}").format(condition=when_chasing,
                                                            rule=bank_at))
    if card.home_within and card.home_bank:
        lines.append("  " + (_("else, yourself within {within} of {target}: {rule}") if chasing
                             else _("yourself within {within} of {target}: {rule}")).format(
            within=_n(card.home_within), target=_n(rules.target),
            rule=_bank_at(card.home_bank, card, never_from)))
    if rules.has_takeover and card.safe_bank:
        # Where an entered player may take over, the row is for one not entered.
        lines.append("  " + (_("the other player not entered (no take-over): {rule}")
                             if rules.takeover_min <= rules.entry else
                             _("the other player short of {points} (no take-over): {rule}"))
                     .format(points=_n(rules.takeover_min),
                             rule=_bank_at(card.safe_bank, card, never_from)))
    offer_rule = _offer_rule(card, rules)
    on_last_cross = []
    if rules.crosses and card.last_cross:
        on_last_cross.append(_("take {points} off").format(points=_n(card.last_cross)))
    if rules.crosses and rules.has_takeover and card.take_at and card.last_cross_take_more:
        on_last_cross.append(_("take over only from {points} more").format(
            points=_n(card.last_cross_take_more)))
    if rules.crosses and offer_rule and card.last_cross_offer_dice not in (0, card.offer_dice):
        on_last_cross.append(_("count the offer rules below from {dice} dice, not {usual}")
                             .format(dice=card.last_cross_offer_dice, usual=card.offer_dice))
    if on_last_cross:
        lines.append("  " + _("on your last cross: {rules}").format(rules=_and(on_last_cross)))
    # An exception as wide as the offer rule is the offer rule first.
    offer_first = bool(offer_rule) and card.finish_unless_within >= card.offer_within
    if offer_first:
        lines.append("  " + offer_rule)
    # A bank leaves a unit to go or more (the target reached wins): an
    # amount of one unit forbids nothing and goes unsaid.
    least = card.leave_at_least if card.leave_at_least > rules.unit else 0
    lone_leaves = card.lone_die_leaves or card.leave_at_least
    crossed_leaves = card.crossed_two_dice_leaves or card.leave_at_least
    if least or lone_leaves > rules.unit:
        fewer = ([_("{points} with one die").format(points=_n(lone_leaves))]
                 if lone_leaves != least else []) + (
            [_("with a cross, {points} with two").format(points=_n(crossed_leaves))]
            if rules.crosses and crossed_leaves != least else [])
        unless = _(" with less than {points} set aside").format(points=_n(card.leave_unless)) \
            if card.leave_unless else ""
        if least:
            leave = _("never bank leaving less than {least}{fewer} to {target}{unless}")
        else:
            leave = _("with one die, never bank leaving less than {least} to {target}{unless}")
        lines.append("  " + leave.format(
            least=_n(least or lone_leaves), target=_n(rules.target), unless=unless,
            fewer=f" ({(_semicolon() + ' ').join(fewer)})" if fewer else ""))
    finish = rules.exact_target and (card.finish_within or card.five_hundreds_within)
    if finish:
        amounts, then = _five_hundreds(card, rules) if card.five_hundreds_within else ("", "")
        if card.finish_within:
            leaves = (_("between {low} and {high}").format(low=_n(card.finish_from),
                                                           high=_n(card.finish_within))
                      if card.finish_from else
                      _("{points} or less").format(points=_n(card.finish_within)))
            lines.append("  " + _("or bank whatever leaves {leaves} to {target}").format(
                leaves=leaves, target=_n(rules.target)) + _finish_dice(card, rules)
                + (_semicolon() + " " + _("or {amounts}{then}").format(amounts=amounts,
                                                                       then=then)
                   if amounts else ""))
        else:
            lines.append("  " + _("or bank whatever leaves {leaves} to {target}").format(
                leaves=amounts, target=_n(rules.target)) + then)
        yields = card.finish_yields_within
        taken = (offer_rule and not offer_first and card.finish_unless_within)
        unless = dict(within=_n(yields), other=_n(card.finish_unless_within),
                      dice=_dice_or_more(card.offer_dice))
        if yields and taken:
            lines[-1] += _(", unless the other player is within {within} of it or, with {dice}, "
                           "the other player, taking over, would be within {other} of "
                           "it").format(**unless)
        elif yields:
            lines[-1] += _(", unless the other player is within {within} of it").format(**unless)
        elif taken:
            lines[-1] += _(", unless, with {dice}, the other player, taking over, would be "
                           "within {other} of it").format(**unless)
    if offer_rule and not offer_first:
        lines.append("  " + (_("else, {rule}").format(rule=offer_rule) if finish
                             else offer_rule))
    if rules.score_cap_units is not None:
        cap = rules.score_cap_units * rules.unit
        lines.append("  " + _("at {cap} a bank short of {target} leaves you there: roll on")
                     .format(cap=_n(cap), target=_n(rules.target)))
    if chooses_keeps(rules):
        lines += _keep_lines(card, rules, chase_keeps)
        if rules.exact_target and card.end_within:
            lines += _end_lines(card, rules)
    if rules.final_round:
        lines += _final_round_lines(card, rules)
    if rules.has_takeover:
        lines.append(_take_over_line(card, rules))
    if rules.dice == 1:     # one threshold: a sentence, or a clause its changes follow
        follows = bank_line + 1 < len(lines) and lines[bank_line + 1].startswith("  ")
        lines[bank_line] += _semicolon() if follows else "."
    return "\n".join(lines)


def _take_over_line(card, rules: Rules) -> str:
    """When the card takes over the previous player's points."""
    if not card.take_at:
        return _("Take over: never.")
    one_die = []
    if card.take_one_at:
        one_die.append(_("from {points}").format(points=_n(card.take_one_at)))
    if card.take_one_behind:
        one_die.append((_("from {points} when behind by {behind} or more and they are within "
                          "{within} of {target}") if card.take_one_behind_within else
                        _("from {points} when behind by {behind} or more")).format(
            points=_n(card.take_one_behind), behind=_n(card.take_one_behind_by),
            within=_n(card.take_one_behind_within), target=_n(rules.target)))
    if card.take_one_chasing and card.chase_within:
        one_die.append(_("from {points} if they are within {within} of {target}").format(
            points=_n(card.take_one_chasing), within=_n(card.chase_within),
            target=_n(rules.target)))
    return _("Take over: when the total + {worth} per die offered is {points} or "
             "more{one_die}{finish}.").format(
        worth=_n(card.take_die), points=_n(card.take_at),
        one_die=(_semicolon() + " " + _("one die: {rules}").format(rules=", ".join(one_die))
                 if one_die else ""),
        finish=_take_finish(card, rules))
