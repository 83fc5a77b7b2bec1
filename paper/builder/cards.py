"""The paper's section on strategy cards, from ``solver/cards/cards.json`` (what
``scripts/fit_cards.py`` fitted and measured) and the tables: every card,
its loss, the simple rules' losses, and a figure of where each card's bank
decisions part from optimal play."""

from __future__ import annotations

import numpy as np

from paper.builder.figures import card_departures
from paper.builder.format import table

SAMPLED = 120
"""The most scores a side of the departures figure replays."""

GOAL = 0.01
"""Issue 14's goal: a card gives up at most one percentage point."""


CARD_RULES = [
    "Bank once the turn total reaches a threshold for the dice in hand, moved by whole steps "
    "of the score gap.",
    "Read the thresholds from a second row when the other player nears the target or leads "
    "by much, and from a third where the other player may not take over (an offer is no gift "
    "there, so the card banks sooner).",
    "In a race to the end, never bank short of the target.",
    "Never bank where the bank would leave the score where it is. To an exact target or past "
    "a cap, never bank leaving less than a set amount to go (less with a lone die), below a "
    "set turn total.",
    "Where the other player may take over, never offer a total that brings them close to an "
    "exact target; with two dice a window of its own may leave out the nearest totals.",
    "Never offer, with as many dice, a total in a set range where the other player leads by "
    "a set amount and is far from the end: a leader who takes a good offer runs away with "
    "the game.",
    "With few dice in hand, bank whatever leaves a set range to go, or 500 or 1,500 (three "
    "5s or a straight make it).",
    "On the last cross before a fall every threshold drops by a set amount, and the offer "
    "rules may hold from more dice.",
    "Rank keeps by their points plus a worth for each number of dice left to roll, with "
    "other rows for a player who leads, once a set total is set aside, and where the second "
    "row of thresholds applies; add a worth for a keep after which the card banks.",
    "Before the entry, count more for each die while the turn total is short of it and for "
    "the keep that reaches it.",
    "From a set turn total keep the most points (later near the other player's end, sooner "
    "for a leader).",
    "Near an exact target, rank keeps by their points, a worth per die of their own and a "
    "penalty for leaving what only a 5 finishes. Where hot dice must be rolled, a keep of "
    "every die counts less per 1,000 of the turn total it brings.",
    "Take an offer when its total plus a worth per die reaches a threshold; a lone die from "
    "a threshold of its own, lower for a player who trails or whose opponent nears the target, "
    "higher on the last cross. Near an exact target take any offer that leaves 100 to go.",
]
"""The card's rule, in the sentences the paper gives (solver.cards.card has
it in full); a card leaves out what its game does not need."""


def cards_appendix(N, tabs, cards: dict, games: dict) -> str:
    """Appendix D: the card's rule, how cards are fitted and scored, every
    card's loss beside the simple rules, the cards at larger tables, and
    where each card loses."""
    if not cards:
        return ("No card is stored: run `python scripts/fit_cards.py GAME`, then rebuild.")
    rows = []
    for name, entry in cards.items():
        key = f"card/{name}"
        loss = entry["loss"]
        first, second = loss["seats"]
        simple = "; ".join(
            f"{label} {N(f'{key}/simple/{label}', s['loss'], 'ppabs')}"
            + (f" ± {N(f'{key}/simple/{label}/stderr', s['stderr'], 'ppabs')} (sampled)"
               if "stderr" in s else "")
            for label, s in entry["simple"].items()) or "not measured yet"
        rows.append([games[name].label if name in games else name,
                     N(f"{key}/loss", loss["loss"], "ppabs"),
                     f"{N(f'{key}/first', first, 'pct')} / {N(f'{key}/second', second, 'pct')}",
                     simple, searched_note(name, loss)])
    ref = tabs.peek()
    caption = tabs.caption(
        "What each card gives up against optimal play, in percentage points of win probability "
        "(one half minus the mean of its chances as first and as second player, an exact "
        "evaluation), its chances in each seat, the same for the simple rules people use "
        "(\"always keep everything\": the card's banks and take-overs, every scoring die "
        "kept; where one exact evaluation takes hours, a rule's loss is its regret summed over "
        "sampled games, with one standard error), and the card's fields the search moved.")
    goal = [n for n, e in cards.items() if e["loss"]["loss"] <= GOAL]
    lead = (
        "A card is one rule with numbers of its own for each game (`solver.cards.card`):\n\n"
        + "\n".join(f"- {rule}" for rule in CARD_RULES) + "\n\n"
        "Its parameters are whole multiples of the unit, fitted to the table by a coordinate "
        "search (`scripts/fit_cards.py`). Where one evaluation takes an hour (dix-mille), the "
        "search moves by a first-order estimate instead: the regret of the moved card at the "
        "decisions the card met in sampled games (`scripts/screen_cards.py`). A move is taken "
        "only where the estimate drops over a second set of games with other dice as well. "
        "Each stored card is scored exactly: the card is a fixed policy, its opponent plays "
        "the table, and the chance of each is a linear system solved level by level "
        "(`solver.cards.seat_value`); `farkle simulate --a card --b optimal` agrees within "
        f"its standard error (a test). {ref} gives each card's loss. The goal was at most one "
        "percentage point, which "
        + (("every card" if len(goal) == len(cards) else "the cards of "
            + _join(games[n].label if n in games else n for n in goal))
           if goal else "no card")
        + (" meet." if goal and len(goal) < len(cards) else " meets."))
    return "\n\n".join([lead, table(["game", "card loses (pp)", "card first / second",
                                      "simple rules lose (pp)", "fields"], rows, "lrlll"),
                         caption, *with_more_players(N, cards, games),
                         *where_lost(N, tabs, cards, games)])


def _join(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def with_more_players(N, cards: dict, games: dict) -> list[str]:
    """What the cards measured at a larger table give up there
    (``scripts/measure_card_players.py``): a paragraph, or none."""
    measured = [(name, players, m) for name, entry in cards.items()
                for players, m in entry.get("players", {}).items()]
    if not measured:
        return []
    parts, fitted = [], []
    for name, players, m in measured:
        key = f"card/{name}/players/{players}"
        label = games[name].label if name in games else name
        # The two-player card's own measurement there is dropped when that
        # card is fitted again; a card fitted for the table stays.
        if "loss" in m:
            seats = " / ".join(N(f"{key}/seat{i + 1}", v, "pct")
                               for i, v in enumerate(m["seats"]))
            table_seats = " / ".join(N(f"{key}/table_seat{i + 1}", v, "pct")
                                     for i, v in enumerate(m["table_seats"]))
            parts.append(f"{label}'s card with {players} players gives up "
                         f"{N(f'{key}/loss', m['loss'], 'ppabs')} (seats {seats}, seat 1 "
                         f"first, against the table's {table_seats}; with two "
                         f"{N(f'card/{name}/loss', cards[name]['loss']['loss'], 'ppabs')})")
        if "fitted" in m:
            fitted.append(f"{label}'s card for {players} gives up "
                          f"{N(f'{key}/fitted/loss', m['fitted']['loss'], 'ppabs')} there "
                          f"({changed_fields(cards[name]['card'], m['fitted']['card'])}; "
                          f"{N(f'{key}/fitted/evaluations', m['fitted']['evaluations'], 'int')}"
                          " evaluations)")
    text = ("With more players the card is played against the leader: the other player it "
            "reads is the one furthest ahead. Its exact chance in each seat against the "
            "N-player table is the same fixed-policy evaluation with every other seat "
            "playing the table (`solver.cards.seat_value.card_seat_values_n`; a test checks it "
            "against the N-player simulator)" + (": " + "; ".join(parts) if parts else "")
            + ".")
    if fitted:
        text += (" A card fitted at the larger table (`scripts/measure_card_players.py GAME "
                 "--players N --fit`: the same search from the two-player card, each card "
                 "scored by this evaluation; `farkle card GAME --players N` prints it): "
                 + "; ".join(fitted) + ".")
    return [text]


def changed_fields(two: dict, fitted: dict) -> str:
    """The fields where a card fitted for more players differs from the
    two-player card (as ``solver/cards/cards.json`` keeps them, a field left out
    at its default): ``bank 21 to 23, gap_step 7 to 5``."""
    from solver.cards.record import Card
    two, fitted = (Card.from_dict(card).to_dict() for card in (two, fitted))
    return ", ".join(f"{field} {_value(two[field])} to {_value(value)}"
                     for field, value in fitted.items() if value != two[field])


def _value(value) -> str:
    return " / ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def searched_note(name: str, loss: dict) -> str:
    """What the search moved of a card, where not every field: the fewer of
    the fields searched and the fields left as first guessed."""
    from solver.cards.fit.search import fields_to_fit
    from solver.model.rules import get_rules
    searched = loss["searched"]
    left = [f for f in fields_to_fit(get_rules(name)) if f not in searched]
    if not searched:
        return "first guess, not searched"
    if not left:
        return "all searched"
    return (f"searched: {', '.join(searched)}" if len(searched) <= len(left) else
            f"all but {', '.join(left)}")


def where_lost(N, tabs, cards: dict, games: dict) -> list[str]:
    """The loss of each card split by the decisions that lose it
    (:mod:`solver.cards.regret`): a paragraph and a table."""
    from solver.cards.bounds import bank_threshold_bound
    from solver.cards.record import Card
    from solver.cards.regret import (
        KIND_LABELS,
        NEAR_END,
        card_regret,
        decisions,
        distance_limits,
        loss_by_distance,
        loss_near_end,
    )
    shown = [n for n in cards if n in games]
    if not shown:
        return []
    rows, missing, bounded, finer = [], [], [], []
    for name in shown:
        solution, card = games[name].solution, Card.from_dict(cards[name]["card"])
        banded = bool(distance_limits(solution.rules))      # not Pig's 100
        over_goal = cards[name]["loss"]["loss"] > GOAL and banded
        visits = [] if over_goal else None
        regret = card_regret(solution, card, REGRET_GAMES, seed=1, visits=visits)
        key = f"card/{name}/regret"
        loss, stderr = regret.loss()
        lost = loss_by_distance(regret)
        near = N(f"{key}/near_end", loss_near_end(lost), "ppabs") if banded else "-"
        far, far_error = regret.loss_far_from_end()
        then_table = (f"{N(f'{key}/far', far, 'ppabs')} ± "
                      f"{N(f'{key}/far_stderr', far_error, 'ppabs')}" if banded else "-")
        if over_goal:
            missing.append(f"{games[name].label} {near} of {N(f'{key}/loss', loss, 'ppabs')}")
            packed = decisions(solution, visits)
            cells = {step: bank_threshold_bound(solution.rules, packed, REGRET_GAMES, step)
                     for step in BOUND_CELLS}
            card_banks = N(f"{key}/near_end_banks", loss_near_end(lost, "bank"), "ppabs")
            bounded.append(
                f"{games[name].label}: " + " and ".join(
                    f"{N(f'{key}/bound/{step}', bound, 'ppabs')} with cells of {step:,} points "
                    f"({N(f'{key}/bound/{step}/cells', count, 'int')} thresholds)"
                    for step, (bound, count) in cells.items())
                + f", against the card's {card_banks}")
            finer.append(finer_rules(N, key, games[name].label, solution, card, regret, packed))
        by_kind = regret.by("kind")
        (kind, dice), worst_loss = max(regret.by("kind", "dice").items(),
                                       key=lambda item: item[1])
        worst = (f"{KIND_LABELS[kind]} with "
                 f"{N(f'{key}/worst_dice', dice, 'int')} {'die' if dice == 1 else 'dice'}")
        rows.append([games[name].label,
                     f"{N(f'{key}/loss', loss, 'ppabs')} ± {N(f'{key}/stderr', stderr, 'ppabs')}",
                     N(f"{key}/exact", cards[name]["loss"]["loss"], "ppabs"),
                     N(f"{key}/keeps", by_kind.get(("keep",), 0.0), "ppabs"),
                     N(f"{key}/banks", by_kind.get(("bank",), 0.0), "ppabs"),
                     N(f"{key}/takes", by_kind.get(("take",), 0.0), "ppabs")
                     if games[name].rules.has_takeover else "-",
                     near, then_table,
                     f"{worst} ({N(f'{key}/worst', worst_loss, 'ppabs')})"])
    ref = tabs.peek()
    text = (
        "**Where a card loses.** Against the table's player a card's player faces a decision "
        "process whose best values are the table's own. So by the performance difference "
        "lemma (Kakade and Langford [5]) the card's loss is the expected sum, over the "
        "decisions of a game it plays, of what each costs against the best choice there, both "
        "valued by the table (`solver.cards.regret`). Sampling games splits the loss by "
        f"decision, and the sum checks itself against the exact loss ({ref}). "
        "What the first cards gave up shaped the rule. Ranking keeps by points plus one worth "
        "per die lost most: a die left buys much more when it brings a roll of every die, so "
        "the cards carry a worth for each number of dice left. In the games to an exact "
        "target, banks near the end lost most: a bank that leaves 50 or 100 wants a lone 5 or "
        "1, so the cards never bank leaving less than a set amount. Where a keep is chosen, "
        "the end lost in keeps: from 300 to go with 1 1 among five dice, keeping both 1s "
        "leaves 100, which a lone 1 or two 5s finish. In take-over games the banks lost most "
        "where the offer brought the other player close to the target, so the cards there no "
        "longer bank with many dice in hand."
        + (f" What the cards over the goal still give up sits near the end ({ref}, within "
           f"{NEAR_END:,} of the target for either player, of the sampled points: "
           f"{', '.join(missing)}). There the best choice depends on both players' distances "
           "to the target. A player who plays the card until then and the table after gives "
           f"up what the card loses before ({ref}, \"card, then the table\"). A bank "
           "threshold for each number of dice, crosses and cell of both distances, each fitted "
           "to the very decisions it is priced at (`solver.cards.bounds`; the fit flatters "
           f"it), loses in the banks near the end: {'; '.join(bounded)}. It takes over a "
           "thousand thresholds to do what the card's few rules do. Nor would finer rules "
           "anywhere bring these cards to the goal: with a row of corrections to the worths "
           "of dice left for each cell of the position, fitted to the same games and checked "
           "on as many others (seed 2), and a bank threshold for each cell of the score, "
           f"the first-order estimate stays over it ({'; '.join(finer)})."
           if missing else ""))
    caption = tabs.caption(
        f"Each card's loss split by its decisions, in percentage points ({REGRET_GAMES:,} "
        "sampled games a card, half in each seat, seed 1; ± one standard error): in keeps, in "
        "bank-or-roll decisions, in take-overs (the dice offered), near the end (where either "
        f"player is within {NEAR_END:,} of the target; - where the whole game is), what "
        "a player gives up who plays the card until then and the table after, and "
        "the costliest kind of decision by dice in hand.")
    return [text, table(["game", "sampled loss (pp)", "exact loss (pp)", "in keeps",
                         "in banks", "in takes", "near the end", "card, then the table",
                         "costliest"], rows, "lrrrrrrrl"),
            caption]


def finer_rules(N, key: str, label: str, solution, card, regret, packed) -> str:
    """What far finer keep and bank rules would buy a card, first order
    (:func:`solver.cards.bounds.keep_worth_headroom` checked on games of
    seed 2, and :func:`solver.cards.bounds.bank_threshold_bound`
    everywhere): a clause of the section's text."""
    from solver.cards.bounds import (
        KEEP_CELLS,
        Sample,
        bank_threshold_bound,
        finer_card_loss,
        keep_worth_headroom,
    )
    rules = solution.rules
    keeps = keep_worth_headroom(rules, card, Sample(packed, REGRET_GAMES),
                                Sample.played(solution, card, REGRET_GAMES, seed=2),
                                KEEP_CELLS["and the score"])
    card_banks = regret.by("kind").get(("bank",), 0.0)
    parts = []
    for step in BOUND_CELLS:
        banks, cells = bank_threshold_bound(rules, packed, REGRET_GAMES, step,
                                            near_end_only=False)
        left = finer_card_loss(regret.loss()[0], card_banks, keeps, banks)
        parts.append(f"{N(f'{key}/finer/{step}', left, 'ppabs')} with cells of {step:,} "
                     f"points ({N(f'{key}/finer/{step}/cells', cells, 'int')} thresholds)")
    takes = (f", its take-overs as they are "
             f"({N(f'{key}/finer/takes', regret.by('kind').get(('take',), 0.0), 'ppabs')} of it)"
             if rules.has_takeover else "")
    return (f"{label}: {N(f'{key}/finer/keep_rows', keeps.cells, 'int')} rows of corrections "
            f"win back {N(f'{key}/finer/keeps', keeps.won_back, 'ppabs')} in keeps, and with the "
            f"thresholds the card would give up " + " or ".join(parts) + takes)


REGRET_GAMES = 4000
"""Games sampled per card for the split of its loss."""

BOUND_CELLS = (500, 200)
"""Of :data:`solver.cards.bounds.CELL_STEPS`, the cells of the bound on bank
thresholds near the end the section gives for the cards over the goal:
where such thresholds first match the card's rule, and where they halve
its loss."""


def departures(figs, cards: dict, games: dict) -> str:
    """Per game, the share of bank decisions at each pair of scores (no
    crosses) where the card and optimal play differ, over the turn totals a
    turn can reach with the bank allowed."""
    from solver.cards.card import card_banks, threshold_shift
    from solver.cards.record import Card
    from solver.engine.solution import replay
    from solver.model.turn_rules import TurnRules
    from solver.study.analysis import plain_scores, reachable, state_at
    shown = [name for name in cards if name in games]
    if not shown:
        return ""
    panels = []
    for name in shown:
        solution, rules = games[name].solution, games[name].rules
        card = Card.from_dict(cards[name]["card"]).compiled(rules)
        turn = TurnRules.of(rules)
        scores = plain_scores(solution.space)
        # At most SAMPLED scores a side (a replay each pair), each shown
        # over the scores up to the next one sampled.
        sample = scores[::-(-len(scores) // SAMPLED)]
        T, unit = rules.target_units, rules.unit
        share = np.full((len(sample), len(sample)), np.nan)
        for i, me in enumerate(sample):
            m = state_at(solution.space, int(me))
            reach = reachable(rules, int(me))
            for j, opp in enumerate(sample):
                w = state_at(solution.space, int(opp))
                _, R, _, B = replay(solution, m, w)
                rows = T - int(me)
                R, B = np.asarray(R)[:rows], np.asarray(B)[:rows]
                asked = np.isfinite(B) & reach[:rows]
                asked[:, 0] = False
                if not asked.any():
                    continue
                shift = threshold_shift(card, int(me), int(opp), False)
                t, n = np.nonzero(asked)
                ours = np.array([card_banks(card, turn, shift, False, int(me), int(opp),
                                                 int(a), int(b))
                                 for a, b in zip(t, n)])
                share[i, j] = np.mean(ours != (B[t, n] >= R[t, n]))
        panels.append((games[name].label, unit, scores, sample, share))
    return card_departures(figs, panels,
                           "Where each card parts from optimal play: at each pair of scores "
                           "(no crosses), the share of the bank-or-roll decisions a turn can "
                           "reach where the card and the table differ (not weighted by how "
                           "often play reaches them).")
