"""A strategy card as a person reads it at the table (:class:`solver.cards.record.Card`).

The rules of :mod:`solver.cards.card`, in the order they apply, in words and
whole points; only the rules the card has (a field at 0 prints nothing),
as it plays at the target it is read for (:meth:`Card.at_target
<solver.cards.record.Card.at_target>`: no condition every score or no
score there meets).
"""

from __future__ import annotations

from solver.cards.record import chooses_keeps, within_from_anywhere
from solver.model.rules import Rules


def _total(threshold: int, never_from: int) -> str:
    """A bank threshold as read: 0 banks at any total, one from
    ``never_from`` (:func:`_never_from`) never."""
    return "never" if threshold >= never_from else f"{threshold:,}" if threshold else "any"


def _never_from(card, rules: Rules) -> int:
    """The bank threshold no turn total short of the target reaches, however
    far the player leads (each step of the lead takes ``behind`` off) and on
    the last cross."""
    lead_steps = (rules.target - rules.unit) // max(card.gap_step, 1)
    return rules.target + abs(card.behind) * lead_steps + (card.last_cross if rules.crosses
                                                           else 0)


def _changed(row: tuple[int, ...], card, never_from: int) -> str:
    """A bank row beside the usual one: only the dice whose threshold it
    changes, a line to read."""
    return " | ".join(f"{n}: {_total(b, never_from)}" for n, b, usual in
                      reversed(list(zip(range(1, len(row) + 1), row, card.bank)))
                      if _total(b, never_from) != _total(usual, never_from)) or "the same"


def _worths(row, usual=None) -> str:
    """Worths of dice left as read, most dice first: only those that differ
    from ``usual`` where given."""
    return " | ".join(f"{k}: {w:,}" for k, w in reversed(list(enumerate(row, start=1)))
                      if usual is None or w != usual[k - 1])


def _chase_worths(card, where: str) -> str:
    """The row of worths near the other player's end, as read on the
    chase row's line (``where``: "below") or a line of its own ("above")."""
    return f"dice left worth {_worths(card.chase_worth)}, in place of the worths {where}"


def _keep_lines(card, rules: Rules, chase_said: bool) -> list[str]:
    """The keep rules; ``chase_said``: the row near the other player's end
    went on the chase row's line."""
    worth = list(card.left_worth) or [0]
    if all(w == worth[0] * k for k, w in enumerate(worth, start=1)):
        lines = [f"Keep: the most points + {worth[0]:,} for each die left to roll"]
    else:
        lines = ["Keep: the most points + the dice left to roll, worth " + _worths(worth)]
    extra = [f"+ {card.bank_keep_worth:,} for a keep after which you bank"] \
        if card.bank_keep_worth else []
    leader = _worths(card.leader_worth, card.left_worth or None)
    if card.leader_worth and leader:
        extra.insert(0, f"if you lead, {leader}")
    if rules.entry and (card.entry_die or card.entry_reach):
        entry = max(card.open_at, rules.entry)
        extra.append("before you enter, " + ", ".join(
            ([f"+ {card.entry_die:,} a die while short of {entry:,}"] if card.entry_die else []) +
            ([f"+ {card.entry_reach:,} for the keep that reaches it"] if card.entry_reach
             else [])))
    if extra:
        lines[-1] += f" ({'; '.join(extra)})"
    # Turn totals in order: the late worths, then the most points.
    late = _worths(card.late_worth, card.left_worth or None)
    later = [f"from {card.late_from:,} set aside: {late}"] if card.late_from and late else []
    most_points = _most_points(card, rules, after_late=bool(later))
    if most_points:
        later.append(most_points)
    if later:
        lines.append("  " + "; ".join(later))
    when_chasing = _chase_when(card, rules)
    if card.chase_worth and when_chasing and not chase_said:
        lines[-1] += ";"
        lines.append(f"  {when_chasing}: {_chase_worths(card, 'above')}")
    if card.hot_dice_cost and rules.hot_dice_forced:
        lines[-1] += ";"
        reaching = (f" that brings the turn total to {card.hot_dice_from:,} or more"
                    if card.hot_dice_from else "")
        lines.append(f"  a keep of every die (all {rules.dice} to roll again){reaching}: "
                     f"{card.hot_dice_cost:,} less per 1,000 of the turn total it brings")
    lines[-1] += "."
    return lines


def _most_points(card, rules: Rules, after_late: bool = False) -> str:
    """From which turn total the card keeps the most points, and where
    (:func:`solver.cards.card.points_from`): "" where never; ``after_late``:
    after the late row's "from N set aside", so "from M" says it."""
    base, lead = card.most_points_from, card.lead_most_points_from
    when_chasing = _chase_when(card, rules, "if ")
    chase = card.chase_most_points_from if when_chasing else 0
    # A total from the target on is never reached; without a total of its
    # own the card never keeps the most points, so "never" near the other
    # player's end is worth saying only beside the lead's total.
    never = chase >= rules.target
    if never and not (base or lead):
        chase = 0
    # With a total of its own the others are in brackets after it; the
    # chase row's first: it decides where both apply.
    amount = "{:,}" if base else "from {:,} set aside"
    other = [f"{'never' if never else amount.format(chase)} {when_chasing}"] if chase else []
    if lead:
        other.append(f"{'else ' if other else ''}{'' if base else 'from '}{lead:,} if you lead")
    if base:
        since = f"from {base:,}" if after_late else f"with {base:,} or more set aside"
        return f"{since}: the most points" + (
            f" ({', '.join(other)})" if other else "")
    return "the most points " + ", ".join(other) if other else ""


def _end_lines(card, rules: Rules) -> list[str]:
    bonus = f" + {card.end_bonus:,}" if card.end_bonus else ""
    die = f" + {card.end_die:,} a die left to roll" if card.end_die else ""
    odd = f", {card.odd_fifty:,} less if that needs a 5 (50, 150, ...)" if card.odd_fifty else ""
    return [f"  leaving {card.end_within:,} or less to {rules.target:,}: "
            f"the points{bonus}{die}{odd}."]


def _chase_when(card, rules: Rules, verb: str = "") -> str:
    """Where the card's chase row applies, as a person says it ("" where
    never); ``verb``: "if " to make it a clause ("if the other player is
    within ...")."""
    when = [f"{'you are ' if verb else ''}trailing by {card.chase_behind:,} or more"] \
        if card.chase_behind else []
    when += [f"the other player {'is ' if verb else ''}within {card.chase_within:,} of "
             f"{rules.target:,}"] if card.chase_within else []
    return verb + " or ".join(when) if when else ""


def _offer_rule(card, rules) -> str:
    """The offer rule, with the dice it holds for: "" where the card has none."""
    if not rules.has_takeover:
        return ""
    windows = [(f"{card.offer_dice} dice or more", card.offer_within, 0)]
    if card.offer_dice > 2:     # with fewer dice, but two or more
        fewer = "2" if card.offer_dice == 3 else f"2 to {card.offer_dice - 1}"
        windows.append((f"{fewer} dice", card.offer_fewer_within, card.offer_fewer_from))
    windows = [window for window in windows if window[1]]
    lead = (f"from {card.lead_offer_from:,} to {card.lead_offer_to:,}"
            if card.lead_offer_behind else "")
    if not windows:
        return (f"with {card.offer_dice} dice or more, never bank {lead} if the other player "
                f"leads by {card.lead_offer_behind:,} or more with more than "
                f"{card.lead_offer_far:,} to go and may take over") if lead else ""

    def distance(within, least, target=""):
        """How far from the target the taker would be ("" after the first)."""
        if least <= rules.unit:
            return f"within {within:,}" + (f" of {target}" if target else "")
        return (f"exactly {within:,}" if least == within else f"{least:,} to {within:,}") + (
            f" from {target}" if target else "")
    (dice, within, least), *rest = windows
    if least <= rules.unit and within_from_anywhere(rules, within):
        first = f"with {dice}, never bank if the other player may take over"  # any offer
    else:
        first = (f"with {dice}, never bank if the other player, taking over, would be "
                 f"{distance(within, least, f'{rules.target:,}')}")
    return (first + "".join(f" (with {dice}, {distance(within, least)})"
                            for dice, within, least in rest)
            + (f", nor {lead} if they lead by {card.lead_offer_behind:,} or more with more "
               f"than {card.lead_offer_far:,} to go" if lead else ""))


def _at_most(count: int, rules: Rules) -> str:
    """A rule's dice in hand, "3 dice or fewer", where 0 stands for any."""
    return "any dice" if count in (0, rules.dice) else f"{count} dice or fewer"


def _finish_dice(card, rules: Rules) -> str:
    """The finish's dice in hand: ", with 3 dice or fewer (any dice with a
    cross)", or nothing where it holds with any dice, cross or not."""
    plain = _at_most(card.finish_dice, rules)
    crossed = _at_most(card.crossed_finish_dice or card.finish_dice, rules)
    if rules.crosses and crossed != plain:
        return f", with {plain} ({crossed} with a cross)"
    return "" if plain == "any dice" else f", with {plain}"


def _five_hundreds(card, rules: Rules) -> tuple[str, str]:
    """The finish at 500, 1,500, ...: ``(amounts, then)``, "500 or 1,500"
    and " with 3 dice or fewer (three 5s, a straight)"."""
    amounts = range(500, card.five_hundreds_within + 1, 1000)
    listed = [f"{a:,}" for a in amounts]
    listed = (", ".join(listed[:-1]) + " or " if len(listed) > 1 else "") + listed[-1]
    # What makes them in one roll of fresh dice: three 5s, and a straight
    # where one is worth as much.
    makes = ["three 5s"] + (["a straight"] if any(points in amounts for _, points
                                                   in rules.straights) else [])
    dice = _at_most(card.five_hundreds_dice, rules)
    return listed, (f" with {dice}" if dice != "any dice" else "") + f" ({', '.join(makes)})"


def _take_finish(card, rules: Rules) -> str:
    """The take-over that chases the end: "" where the card has none."""
    if not (rules.exact_target and card.take_finish_within):
        return ""
    wider = card.take_finish_within > 100
    dice = (f" with {card.take_finish_dice} dice or more"
            if card.take_finish_dice > 1 and wider else "")
    return (f"; and any offer that leaves 100 to {rules.target:,}"
            + (f" (up to {card.take_finish_within:,}{dice})" if wider else ""))


def _final_round_lines(card, rules: Rules) -> list[str]:
    """A final round: the bank past the target (:attr:`Card.past_lead
    <solver.cards.record.Card.past_lead>`), and the card's own last turn,
    the one-turn odds' (:mod:`solver.model.last_turn`, as ``farkle
    advise`` gives them)."""
    target = f"{rules.target:,}"
    if card.past_lead or card.past_lead_all:
        all_dice = (f" ({card.past_lead_all:,} with all {rules.dice} dice to roll)"
                    if card.past_lead_all != card.past_lead else "")
        past = f"bank once you lead by {card.past_lead:,}{all_dice}"
    else:
        past = "bank at once"
    return [f"Past {target}: {past}; the other player then has one last turn to pass you.",
            f"Your last turn (the other player banked at or past {target}): roll until you pass "
            f"them, keeping the dice that give you the best chance (farkle advise)."]


def card_text(card, rules: Rules, loss: dict | None = None, players: int = 2,
              then_table: dict | None = None) -> str:
    """The card as a person reads it at the table (under 15 lines); ``loss``:
    its measured loss, as :func:`solver.cards.store.stored_cards` keeps it;
    ``players``: the table it was fitted for (with more than two, every
    "other player" of the card is the leader); ``then_table``: its loss
    when its player asks the table near the end, where measured."""
    card = card.at_target(rules)
    lines = [f"{rules.name}: strategy card (two players)" if players == 2 else
             f"{rules.name}: strategy card ({players} players; the other player is the leader)"]
    if loss and "stderr" in loss:
        # Measured over sampled games, where an exact evaluation takes hours.
        lines[0] += (f"; gives up {100 * loss['loss']:.2f} ± {100 * loss['stderr']:.2f} "
                     "points of 100 against perfect play (sampled)")
    elif loss:
        lines[0] += (f"; gives up {100 * loss['loss']:.2f} points of 100 against perfect "
                     "play")
    if loss and then_table:
        lines[0] += (f" ({100 * then_table['loss']:.2f} if you ask farkle advise once either "
                     f"player is within {then_table['within']:,} of {rules.target:,})")
    # The rules that forbid a bank whatever the row says, first.
    never = ([f"below {max(card.open_at, rules.entry):,} before you enter"] if rules.entry
             else []) + ([f"below {rules.min_bank:,} (the rules' smallest bank)"]
                         if rules.min_bank else []) + ([f"short of {rules.target:,} once {'either' if players == 2 else 'any'} "
                          f"player is within {card.race_within:,} of it"]
                         if card.race_within else [])
    if never:
        lines.append("Never bank " + ", nor ".join(never) + ".")
    bank_line = len(lines)
    never_from = _never_from(card, rules)
    if rules.dice == 1:
        lines.append(f"Bank when your turn total reaches {card.bank[0]:,}")
    else:
        lines.append("Bank when your turn total reaches, by dice left to roll: " + " | ".join(
            f"{n}: {_total(b, never_from)}"
            for n, b in reversed(list(enumerate(card.bank, start=1)))))
    if card.behind:
        lines.append(f"  add {card.behind:,} for every {card.gap_step:,} points you trail "
                     f"(take {card.behind:,} off for every {card.gap_step:,} you lead)")
    when_chasing = _chase_when(card, rules)
    chasing = bool(when_chasing and card.chase_bank)
    # Its keeps too, where the card has a row of worths for them: one line
    # for what changes near the other player's end.
    chase_keeps = chasing and bool(card.chase_worth) and chooses_keeps(rules)
    if chasing:
        lines.append(f"  {when_chasing}: bank at {_changed(card.chase_bank, card, never_from)}"
                     + (f"; keep by {_chase_worths(card, 'below')}" if chase_keeps else ""))
    if card.home_within and card.home_bank:
        lines.append(("  else, " if chasing else "  ")
                     + f"yourself within {card.home_within:,} of {rules.target:,}: "
                     f"bank at {_changed(card.home_bank, card, never_from)}")
    if rules.has_takeover and card.safe_bank:
        # Where an entered player may take over, the row is for one not entered.
        short = ("not entered" if rules.takeover_min <= rules.entry
                 else f"short of {rules.takeover_min:,}")
        lines.append(f"  the other player {short} (no take-over): "
                     f"bank at {_changed(card.safe_bank, card, never_from)}")
    offer_rule = _offer_rule(card, rules)
    on_last_cross = []
    if rules.crosses and card.last_cross:
        on_last_cross.append(f"take {card.last_cross:,} off")
    if rules.crosses and rules.has_takeover and card.take_at and card.last_cross_take_more:
        on_last_cross.append(f"take over only from {card.last_cross_take_more:,} more")
    if rules.crosses and offer_rule and card.last_cross_offer_dice not in (0, card.offer_dice):
        on_last_cross.append(f"count the offer rules below from {card.last_cross_offer_dice} "
                             f"dice, not {card.offer_dice}")
    if on_last_cross:
        *first, last = on_last_cross
        lines.append("  on your last cross: " + ", ".join(first) + (", and " if first else "")
                     + last)
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
        fewer = ([f"{lone_leaves:,} with one die"] if lone_leaves != least else []) + (
            [f"with a cross, {crossed_leaves:,} with two"]
            if rules.crosses and crossed_leaves != least else [])
        leave = (f"never bank leaving less than {least:,}"
                 + (f" ({'; '.join(fewer)})" if fewer else "")
                 if least else
                 f"with one die, never bank leaving less than {lone_leaves:,}")
        lines.append(f"  {leave} to {rules.target:,}" + (
            f" with less than {card.leave_unless:,} set aside" if card.leave_unless else ""))
    finish = rules.exact_target and (card.finish_within or card.five_hundreds_within)
    if finish:
        amounts, then = _five_hundreds(card, rules) if card.five_hundreds_within else ("", "")
        if card.finish_within:
            leaves = (f"between {card.finish_from:,} and {card.finish_within:,}"
                      if card.finish_from else f"{card.finish_within:,} or less")
            lines.append(f"  or bank whatever leaves {leaves} to {rules.target:,}"
                         + _finish_dice(card, rules) + (f"; or {amounts}{then}" if amounts else ""))
        else:
            lines.append(f"  or bank whatever leaves {amounts} to {rules.target:,}{then}")
        unless = ([f" the other player is within {card.finish_yields_within:,} of it"]
                  if card.finish_yields_within else [])
        if offer_rule and not offer_first and card.finish_unless_within:
            unless.append(f", with {card.offer_dice} dice or more, the other player, taking "
                          f"over, would be within {card.finish_unless_within:,} of it")
        if unless:
            lines[-1] += ", unless" + " or".join(unless)
    if offer_rule and not offer_first:
        lines.append("  " + ("else, " if finish else "") + offer_rule)
    if rules.score_cap_units is not None:
        cap = rules.score_cap_units * rules.unit
        lines.append(f"  at {cap:,} a bank short of {rules.target:,} leaves you there: "
                     "roll on")
    if chooses_keeps(rules):
        lines += _keep_lines(card, rules, chase_keeps)
        if rules.exact_target and card.end_within:
            lines += _end_lines(card, rules)
    if rules.final_round:
        lines += _final_round_lines(card, rules)
    if rules.has_takeover:
        one_die = ([f"from {card.take_one_at:,}"] if card.take_one_at else []) + (
            [f"from {card.take_one_behind:,} when behind by {card.take_one_behind_by:,} or more"
             + (f" and they are within {card.take_one_behind_within:,} of {rules.target:,}"
                if card.take_one_behind_within else "")]
            if card.take_one_behind else []) + (
            [f"from {card.take_one_chasing:,} if they are within {card.chase_within:,} of "
             f"{rules.target:,}"] if card.take_one_chasing and card.chase_within else [])
        lines.append("Take over: " + (
            "never." if not card.take_at else
            f"when the total + {card.take_die:,} per die offered is {card.take_at:,} or "
            "more" + ("; one die: " + ", ".join(one_die) if one_die else "")
            + _take_finish(card, rules) + "."))
    if rules.dice == 1:     # one threshold: a sentence, or a clause its changes follow
        follows = bank_line + 1 < len(lines) and lines[bank_line + 1].startswith("  ")
        lines[bank_line] += ";" if follows else "."
    return "\n".join(lines)
