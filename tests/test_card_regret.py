"""Where a card's loss goes (solver.cards.regret): the regret sampled
decision by decision adds up to the card's exact loss (take-over games
included), which
solver.cards.seat_value computes another way (a fixed-policy evaluation over
every turn start, no sampling); and the per-dice worths of a keep."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from solver.cards.fit import screen as card_screen
from solver.cards.fit import search as card_fit
from solver.cards.record import Card
from solver.cards.regret import card_regret, regret_of
from solver.cards.seat_value import card_seat_values
from solver.cards.text import card_text
from solver.model.rules import get_rules
from solver.model.turn_rules import dice_left
from solver.tables.make import solve_game


@pytest.fixture(scope="module")
def cinq1500():
    return solve_game(get_rules("cinq-mille", 1500))


# Dice left worth other than so much a die (1 die more than 2), a worth for
# a keep after which the card banks, the most points from 500, and a bank
# rule moved by the score: the keeps and the banks both cost something.
CARD = Card("cinq-mille", (200, 200, 450, 750, 1500), behind=50, gap_step=300, open_at=750,
            left_worth=(100, 50, 100, 200, 250), most_points_from=500, race_within=200,
            bank_keep_worth=50)


@pytest.mark.parametrize("card", [CARD, Card("cinq-mille", (300,) * 5, open_at=750)],
                         ids=["fitted-like", "threshold-300"])
def test_sampled_regret_adds_up_to_the_exact_loss(cinq1500, card):
    exact = 0.5 - float(np.mean(card_seat_values(cinq1500, card)))
    regret = card_regret(cinq1500, card, games=3000, seed=5)
    sampled, stderr = regret.loss()
    assert exact > 0.005                       # a loss worth splitting
    assert abs(sampled - exact) <= 4 * stderr, (sampled, stderr, exact)
    assert stderr < 0.1 * exact
    assert min(regret.total.values()) >= -1e-12
    assert sum(regret.total.values()) / regret.games == pytest.approx(sampled, rel=1e-9)
    assert set(regret.by("kind")) == {("keep",), ("bank",)}
    assert sum(regret.by("kind", "dice").values()) == pytest.approx(sampled, rel=1e-9)


# Take-over from 500 at 2,000 (quinze-mille's own minimum is 5,000, beyond
# this target): a card that takes offers by its rule, another that takes
# nearly every offer; their losses lie mostly in banks, some in takes.
TAKE_CARDS = [Card("quinze-mille", (250, 250, 400, 800, 1500, 2000), open_at=500, take_at=1000,
                   take_die=100),
              Card("quinze-mille", (300,) * 6, open_at=500, take_at=400),
              Card("quinze-mille", (300,) * 6, open_at=500, take_at=400, take_one_at=600)]


@pytest.mark.parametrize("card", TAKE_CARDS, ids=["take-by-dice", "take-from-400",
                                                  "one-die-from-600"])
def test_in_a_take_over_game_the_regret_of_takes_and_banks_adds_up(card):
    """The bank values price the table's player taking over the card's
    offers; the card's own takes are a decision kind of their own."""
    solution = solve_game(dataclasses.replace(get_rules("quinze-mille", 2000), takeover_min=500))
    exact = 0.5 - float(np.mean(card_seat_values(solution, card)))
    regret = card_regret(solution, card, games=3000, seed=5)
    sampled, stderr = regret.loss()
    assert exact > 0.02
    assert abs(sampled - exact) <= 4 * stderr, (sampled, stderr, exact)
    assert regret.by("kind")[("take",)] > 0


def test_with_crosses_the_regret_adds_up_to_the_exact_loss():
    """dix-mille to 1,000 (the crosses model): a state is a score with
    crosses; a zero turn moves it as the table does, falls included, and
    the card's last-cross rule (here: bank anything on the last cross)
    reads it."""
    solution = solve_game(get_rules("dix-mille", 1000))
    card = Card("dix-mille", (300, 300, 400, 1000, 1000), open_at=350, take_at=700,
                take_die=100, last_cross=1000)
    exact = 0.5 - float(np.mean(card_seat_values(solution, card)))
    regret = card_regret(solution, card, games=3000, seed=5)
    sampled, stderr = regret.loss()
    assert exact > 0.01
    assert abs(sampled - exact) <= 4 * stderr, (sampled, stderr, exact)
    assert stderr < 0.1 * exact
    # The same dice played by a card without the last-cross rule: other
    # decisions, so other regrets.
    plain = card_regret(solution, dataclasses.replace(card, last_cross=0), games=3000, seed=5)
    assert plain.per_game != regret.per_game


def test_on_the_last_cross_the_takes_of_the_exact_loss_and_the_games_agree():
    """dix-mille to 1,000: a card that takes over only from 300 more on its
    last cross. The exact evaluation reads the taker's crosses as the
    sampled games do (their regret adds up to its loss), and they are read:
    the card without the shift gives up another amount."""
    solution = solve_game(get_rules("dix-mille", 1000))
    plain = Card("dix-mille", (300, 300, 400, 1000, 1000), open_at=350, take_at=700,
                 take_die=100)
    card = dataclasses.replace(plain, last_cross_take_more=300)
    exact = 0.5 - float(np.mean(card_seat_values(solution, card)))
    plain_exact = 0.5 - float(np.mean(card_seat_values(solution, plain)))
    regret = card_regret(solution, card, games=3000, seed=5)
    sampled, stderr = regret.loss()
    assert abs(sampled - exact) <= 4 * stderr, (sampled, stderr, exact)
    assert abs(exact - plain_exact) > 1e-4, (exact, plain_exact)


def test_a_card_fitted_with_one_worth_a_die_reads_as_so_much_a_die():
    old = {"game": "cinq-mille", "bank": [200, 200, 450, 750, 2100], "die_worth": 50,
           "open_at": 750}
    card = Card.from_dict(old)
    assert card.left_worth == (50, 100, 150, 200, 250)
    rules = get_rules("cinq-mille")
    assert "+ 50 for each die left to roll" in card_text(card, rules)
    text = card_text(CARD, rules)
    assert "5: 250 | 4: 200 | 3: 100 | 2: 50 | 1: 100" in text
    assert "with 500 or more set aside: the most points." in text
    assert list(card.compiled(rules).left_worth) == [0, 1, 2, 3, 4, 5]


# To exactly 1,500, with the end rule too (solver.cards.card.keep_score), the
# most points from 250 near the other player's end, from 350 for a leader,
# from 150 set aside another row of worths, below it a row of the
# leader's own, near the other player's end one of its own, and before
# the entry a die left worth 50 more, the keep
# that reaches it 100.
EXACT_CARD = dataclasses.replace(CARD, game="cinq-mille-exact", end_within=400, end_die=50,
                                 odd_fifty=100, chase_within=400, chase_most_points_from=250,
                                 lead_most_points_from=350, late_from=150,
                                 late_worth=(150, 100, 50, 150, 200),
                                 leader_worth=(0, 0, 50, 50, 300),
                                 chase_worth=(200, 50, 0, 100, 250), entry_die=50,
                                 entry_reach=100)


@pytest.mark.parametrize("game, card", [("cinq-mille", CARD), ("cinq-mille-exact", EXACT_CARD)])
def test_the_simulator_plays_the_same_keeps(cinq1500, game, card, monkeypatch):
    """`farkle simulate`'s card policy ranks keeps in its own loop
    (solver.sim.game_loop.keep_value): its card's chance as first player is the
    exact evaluation's within four standard errors, for a card whose keeps
    use every feature."""
    from solver.cards import store as card_store
    from solver.sim.simulate import simulate
    table = cinq1500 if game == "cinq-mille" else solve_game(get_rules(game, 1500))
    monkeypatch.setattr(card_store, "card_for", lambda rules: (card, None, {}))
    result = simulate(table.rules, "card", "optimal", 40000, seed=3, solution=table)
    exact = card_seat_values(table, card)[0]
    assert abs(result.win_rate_a - exact) <= 4 * result.stderr, (result.win_rate_a, exact)


def test_a_keep_after_which_the_card_banks_is_worth_more():
    """With 100 set aside, a 1 and a 5 among four dice: keeping the 1 leaves
    200 with three dice (below the bank at 450), keeping both 250 with two
    (the bank at 200). Ranked by points and dice left they tie (100 + 100,
    150 + 50) and the tie goes to more dice; a keep that banks worth 50
    more takes both."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("cinq-mille")
    options = keeps(rules, counts_of([1, 5, 2, 3]))
    chosen = {worth: sorted(card_keep(dataclasses.replace(CARD, bank_keep_worth=worth)
                                      .compiled(rules), rules, 1000, [1000], 100, 4,
                                      options).dice)
              for worth in (0, 50)}
    assert chosen == {0: [1], 50: [1, 5]}
    assert "+ 50 for a keep after which you bank" in card_text(CARD, rules)


def test_the_simulator_ranks_keeps_as_the_card_does():
    """The simulator's card tables (solver.sim.policies.CardCache, read by
    solver.sim.game_loop.keep_value) pick, at every turn total and roll before
    the entry, from 750 and 850 and in the last 400 points to exactly
    1,500, against 750 and 1,000 (the player leads) and 1,300 (the other
    player is near the end), the keep solver.cards.card.keep_rank ranks first:
    the end rule, the late row (from 150 set aside), the leader's and the
    chase's rows, the entry's worths and where the most points count are
    written once, in solver.cards.card.keep_score and solver.cards.card.points_from."""
    from solver.cards.card import keep_rank, threshold_shift
    from solver.model.dice import keep_table
    from solver.model.turn_rules import TurnRules
    from solver.sim.game_loop import keep_value
    from solver.sim.policies import CardCache, TableStore, parse_policy
    rules = get_rules("cinq-mille-exact", 1500)
    table = solve_game(rules)
    cache, turn = CardCache(table, rules, EXACT_CARD), TurnRules.of(rules)
    compiled, dice = cache.card, keep_table(rules)
    store = TableStore(rules, 3, (parse_policy("card"),))
    space, T, checked = table.space, rules.target_units, 0
    for score, opponent in itertools.product([0, 15, 17, *range(T - 8, T)], (15, 20, 26)):
        m, w = space.index_of_score(score), space.index_of_score(opponent)
        cache.fill(store, 2, m, w)
        shift = threshold_shift(compiled, score, opponent, False)
        for n in range(1, rules.dice + 1):
            first = dice.keep_start[n]
            for r in range(len(dice.roll_prob[n])):
                ks = range(first[r], first[r + 1])
                if len(ks) < 2:
                    continue
                units, used, win = (dice.keep_units[n][ks], dice.keep_used[n][ks],
                                    dice.keep_win[n][ks])
                for t in range(T - score):
                    by_table = [keep_value(turn, store.V, store.V_late, 2, -1e300, 1e300,
                                           score, t, n, int(units[i]), int(used[i]),
                                           bool(win[i]), store.points_from[2],
                                           store.late_from[2]) for i in range(len(ks))]
                    by_card = [keep_rank(compiled, turn, shift, False, score, opponent, t,
                                         int(units[i]), dice_left(turn, n, int(used[i])),
                                         bool(win[i])) for i in range(len(ks))]
                    assert np.argmax(by_table) == np.argmax(by_card), (score, t, n, r)
                    checked += 1
    assert checked > 1000


@pytest.mark.parametrize("game", ["cinq-mille", "quinze-mille", "dix-mille"])
def test_a_card_s_own_decisions_price_it_at_its_sampled_loss(cinq1500, game):
    """regret_of, given the decisions a card met, chooses there as the card
    did (keeps, banks, takes; the last-cross rule in dix-mille): its
    estimate is the card's sampled loss. Another card chooses otherwise at
    some of them and is priced otherwise."""
    if game == "cinq-mille":
        solution, card = cinq1500, CARD
        other = dataclasses.replace(CARD, left_worth=(50,) * 5, bank=(300,) * 5)
    elif game == "quinze-mille":
        solution = solve_game(dataclasses.replace(get_rules("quinze-mille", 2000),
                                                  takeover_min=500))
        card, other = TAKE_CARDS[0], TAKE_CARDS[1]
    else:
        solution = solve_game(get_rules("dix-mille", 1000))
        card = Card("dix-mille", (300, 300, 400, 1000, 1000), open_at=350, take_at=700,
                    take_die=100, last_cross=1000)
        other = dataclasses.replace(card, last_cross=0)
    visits = []
    regret = card_regret(solution, card, games=500, seed=3, visits=visits)
    assert regret_of(solution, card, visits, 500) == pytest.approx(regret.loss()[0], abs=1e-12)
    assert {v.kind for v in visits} >= ({"bank", "keep"} if game == "cinq-mille"
                                        else {"bank", "take"})
    assert abs(regret_of(solution, other, visits, 500) - regret.loss()[0]) > 1e-4


def test_always_keep_everything_keeps_every_scoring_die():
    """The simple rule "always keep everything" keeps every scoring die of
    a roll, hot dice too (1 1 1 5 5: all five, 1,100), whatever rows of
    its own the card it takes its banks from ranks keeps by: a late row, the
    most points, the entry's worths (1 5 2 3 3: 1 5 at any total)."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("cinq-mille")
    card = dataclasses.replace(EXACT_CARD, game="cinq-mille", hot_dice_cost=100)
    rule = card_fit.simple_rules(rules, card)["always keep everything"].compiled(rules)
    for score, turn_total in ((0, 0), (1000, 0), (1000, 700), (4000, 300)):
        for roll, points in (([1, 1, 1, 5, 5], 1100), ([1, 5, 2, 3, 3], 150)):
            kept = card_keep(rule, rules, score, [1000], turn_total, 5,
                             keeps(rules, counts_of(roll)))
            assert kept.points == points, (score, turn_total, roll)


def test_the_simple_rules_sampled_agree_with_their_exact_losses(cinq1500):
    """``fit_cards.py --simple-only --sampled GAMES`` (for a game where one
    exact evaluation takes hours) stores each simple rule's sampled regret
    with its standard error: within four of them of the exact evaluation
    the same script makes otherwise."""
    exact = card_fit.measure_simple(cinq1500, CARD, 1e-12)
    sampled = card_fit.measure_simple(cinq1500, CARD, 1e-12, sampled=3000)
    assert set(sampled) == set(exact) == {"threshold:300", "bank once entered",
                                          "always keep everything"}
    for label, measured in sampled.items():
        assert measured["sampled_games"] == 3000 and "seats" not in measured
        assert abs(measured["loss"] - exact[label]["loss"]) <= 4 * measured["stderr"], label
        assert measured["stderr"] < 0.05 * exact[label]["loss"]


def test_a_search_checked_over_other_dice_gains_over_both(cinq1500):
    """The sampled search (``solver.cards.fit.screen``, run by ``screen_cards.py
    --check-seed`` and ``farkle card --fit --sampled``): a move is taken
    only where the first-order estimate drops over the decisions of both
    sets of games; from a poor card (bank at 300 with any dice) the search
    gains over each set."""
    solution = cinq1500
    start = Card("cinq-mille", (300,) * 5, open_at=750, left_worth=(50,) * 5)
    games = 300
    sets = []
    for seed in (3, 4):
        visits = []
        card_regret(solution, start, games, seed, visits)
        sets.append(visits)
    names = ["bank1", "bank2", "bank3", "bank4", "bank5", "left1", "left4", "left5"]
    searched, estimate = card_screen.search(solution, start, names, games, sets,
                                            lambda text: None)
    before = [regret_of(solution, start, visits, games) for visits in sets]
    after = [regret_of(solution, searched, visits, games) for visits in sets]
    assert searched != start
    assert estimate == pytest.approx(after[0], abs=1e-12)
    assert after[0] < before[0] - card_screen.MIN_GAIN
    assert after[1] < before[1]
    # A check where every gain is a loss: the same decisions, each choice's
    # value negated (a bank or a roll: what one gains, the other loses).
    # The bank rows move nothing then; unchecked, they move.
    banks = names[:5]
    mirrored = [visit._replace(values=tuple(-v for v in visit.values)) for visit in sets[0]]
    unchecked, _ = card_screen.search(solution, start, banks, games, sets[:1],
                                      lambda text: None)
    checked, _ = card_screen.search(solution, start, banks, games, [sets[0], mirrored],
                                    lambda text: None)
    assert unchecked != start and checked == start


def test_the_command_a_search_prints_sets_only_the_fields_the_card_holds():
    """A row the card lacks (near an end) reads as the bank row: a move of
    the bank row is not a move of it, and ``--set`` must not write it
    (``screen_cards.py`` prints the command with
    :func:`solver.cards.fit.stored.set_string`)."""
    from solver.cards.fit.stored import set_string
    rules = get_rules("cinq-mille")
    card = Card("cinq-mille", (300,) * 5, open_at=750, left_worth=(50,) * 5)
    moved = card_fit.put(card_fit.put(card, "bank4", 500), "late2", 100)
    assert set_string(card, moved, card_fit.fields_to_fit(rules)) == "bank4=500,late2=100"


def test_a_stored_card_s_command_is_the_one_its_options_name():
    """``scripts/fit_cards.py`` records with each card the command that
    fitted it (:meth:`solver.cards.fit.stored.FitOptions.command`): the
    options of a stored card's command name it again, word for word; and
    the options it refuses are refused before any search."""
    from solver.cards.fit.stored import FitOptions, parse_set
    from solver.cards.store import stored_cards
    from solver.model.errors import UsageError
    cards = stored_cards()
    options = FitOptions(rounds=0, tol=1e-8, from_stored=True,
                         changes=parse_set("bank5=5450,left4=175"), card_only=True)
    assert options.command("quinze-mille-free-keep") == \
        cards["quinze-mille-free-keep"]["loss"]["command"]
    options = FitOptions(rounds=2, tol=1e-8, fields="lead_most_points_from,most_points_from,"
                         "left1,left2,left3,left4,left5,bank_keep_worth".split(","),
                         from_stored=True, changes={"lead_most_points_from": 350},
                         card_only=True)
    assert options.command("cinq-mille") == cards["cinq-mille"]["loss"]["command"]
    simple = FitOptions(simple_only=True, resume=True, sampled=20000)
    assert simple.simple_command("dix-mille-free-keep") == \
        cards["dix-mille-free-keep"]["simple_command"]
    # farkle's: from another game's card, with a final round's fields.
    options = FitOptions(rounds=1, tol=1e-8, fit_target=2000, from_card="farkle-acg2017",
                         fields="past_lead,past_lead_all,bank3,bank4,bank5,bank6,race_within,"
                         "behind,gap_step,bank2,bank1".split(","),
                         changes=parse_set("past_lead=700,past_lead_all=2700,open_at=500"),
                         card_only=True)
    assert options.command("farkle") == cards["farkle"]["loss"]["command"]
    assert "--fit-floor -500" in FitOptions(fit_floor=-500).command("zilch")
    FitOptions(fit_floor=-500).check("zilch")
    # farkle-facebook's and zilch's: searched and measured over sampled games.
    sampled = FitOptions(rounds=4, sampled=8000, measure_games=50000,
                         from_card="farkle-acg2017", card_only=True)
    for game in ("farkle-facebook", "zilch"):
        assert sampled.command(game) == cards[game]["loss"]["command"]
    for refused in (FitOptions(sampled=100, fit_target=2000), FitOptions(sampled=-1),
                    FitOptions(sampled=100, measure_games=1), FitOptions(fields=["bank9"]),
                    FitOptions(changes={"nothing": 1}), FitOptions(fit_floor=-500),
                    FitOptions(from_card="pig"), FitOptions(fields=["past_lead"])):
        with pytest.raises(UsageError):
            refused.check("cinq-mille")
    with pytest.raises(UsageError, match="whole number"):
        parse_set("bank1=x")


def test_the_split_by_distance_is_the_card_s_regret_where_each_decision_was_met():
    """`card_regret` files each decision by both players' distances to the
    target as it samples: the split equals the regret of the card's choice
    at each decision met, priced again (`choices_at`) and filed by the
    scores it was met at, and adds up to the sampled loss."""
    from collections import defaultdict

    from solver.cards.regret import choices_at, distance_band, loss_by_distance
    rules = get_rules("cinq-mille")
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    solution = read_table(default_path(rules), rules, lazy_take=False)
    visits = []
    regret = card_regret(solution, CARD, 300, seed=3, visits=visits)
    again = defaultdict(float)
    for visit, score, opponent, choice in choices_at(solution, CARD, visits):
        again[distance_band(rules, rules.target_units - score),
              distance_band(rules, rules.target_units - opponent),
              visit.kind] += visit.regret(choice) / 300
    split = loss_by_distance(regret)
    assert {key for key, value in again.items() if value > 0} == \
        {key for key, value in split.items() if value > 0}
    for key, value in again.items():
        assert split.get(key, 0.0) == pytest.approx(value, abs=1e-12)
    # 5,000: within 1,000, within 3,000 and farther, each side.
    assert {mine for mine, _, _ in split} <= {1000, 3000, None}
    assert sum(split.values()) == pytest.approx(regret.loss()[0], rel=1e-9)


def test_the_split_by_distance_is_whole():
    """``where_cards_lose.py --by-distance`` (:func:`solver.cards.losses.
    where_card_loses`): the table's cells add up to the sampled loss (no
    cell or kind left out), and the exact loss beside it is the stored
    one."""
    from solver.cards.losses import where_card_loses
    from solver.cards.regret import KIND_LABELS
    from solver.cards.store import stored_cards
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    rules = get_rules("cinq-mille")
    solution = read_table(default_path(rules), rules, lazy_take=False)
    entry = stored_cards()["cinq-mille"]
    found = where_card_loses(solution, Card.from_dict(entry["card"]), entry, 300, 3,
                             distance=True)
    split = found.by_distance
    cells = [split.cell(mine, theirs, kind) for mine in split.bands for theirs in split.bands
             for kind in KIND_LABELS]
    # 5,000: within 1,000, within 3,000 and farther, each side.
    assert split.bands == [1000, 3000, None] and len(cells) == 27
    assert sum(cells) == pytest.approx(found.sampled, rel=1e-9)
    assert split.whole == pytest.approx(found.sampled, rel=1e-9)
    assert 0 < split.near < split.whole
    assert found.how == "stored"
    assert found.exact == entry["loss"]["loss"]


def test_the_card_then_the_table_exactly_agrees_with_its_sampled_loss():
    """``card_seat_values(..., table_within=X)``: the card until either
    player is within X of the target, the table from then on. At cinq-mille
    (the committed table, the stored card) with 3,000 it gives up what the
    card's sampled regret far from the end says (``Regret.
    loss_far_from_end``, an unbiased estimate where no score falls back:
    4,000 games, within four standard errors), less than the card alone;
    within the whole target it is the table itself."""
    from solver.cards.regret import NEAR_END
    from solver.cards.store import card_for
    from solver.tables.files import read_table
    from solver.tables.paths import default_path
    rules = get_rules("cinq-mille")
    table = read_table(default_path(rules), rules, lazy_take=False)
    card = card_for(rules)[0]
    then_table = 0.5 - card_seat_values(table, card, table_within=NEAR_END).mean()
    far, error = card_regret(table, card, 4000, seed=1).loss_far_from_end()
    assert abs(then_table - far) <= 4 * error
    assert then_table < 0.5 - card_seat_values(table, card).mean() - 0.004
    assert card_seat_values(table, card, table_within=rules.target) == pytest.approx(
        card_seat_values(table, None), abs=1e-12)


def test_the_card_then_the_table_with_take_over_and_falls():
    """The same at dix-mille to 1,000 (take-over, crosses and falls; the
    stored card): within the whole target the card's player takes over as
    the table does too, and its chances are the table's."""
    from solver.cards.store import card_for
    rules = get_rules("dix-mille", 1000)
    table = solve_game(rules)
    card = card_for(get_rules("dix-mille"))[0]
    assert card_seat_values(table, card, table_within=1000) == pytest.approx(
        card_seat_values(table, None), abs=1e-12)
    assert 0.5 - card_seat_values(table, card, table_within=500).mean() < \
        0.5 - card_seat_values(table, card).mean()


def test_a_card_searched_and_measured_over_sampled_games_is_stored_with_its_error(
        tmp_path, monkeypatch):
    """``scripts/fit_cards.py GAME --sampled N`` (farkle-facebook's and
    zilch's cards, whose exact evaluation at their own rules takes hours):
    the search scores its moves over sampled decisions at the game's own
    rules and the card is measured over ``measure_games`` games of other
    dice. On Pig (exact evaluation in a second) the stored loss is the
    exact one within four of its standard errors, each seat's within four
    of the seat's own, and the card's first line says it was sampled."""
    import json

    from solver.cards import store
    from solver.cards.fit import stored as fit_stored_module
    from solver.cards.fit.stored import FitOptions, fit_stored
    from solver.tables.load import load_table
    cards_file = tmp_path / "cards.json"
    # Without Pig's stored card, which the sampled one would have to beat.
    cards_file.write_text(json.dumps({name: entry for name, entry in
                                      store.stored_cards().items() if name != "pig"}))
    monkeypatch.setattr(store, "CARDS_FILE", cards_file)
    monkeypatch.setattr(fit_stored_module, "CARDS_FILE", cards_file)
    rules = get_rules("pig")
    options = FitOptions(sampled=400, rounds=1, measure_games=4000,
                         changes={"bank1": 15}, card_only=True)
    assert "--sampled 400 --measure-games 4000" in options.command("pig")
    fit_stored("pig", options)
    loss = store.stored_cards()["pig"]["loss"]
    assert loss["sampled_games"] == 4000 and loss["command"] == options.command("pig")
    card = Card.from_dict(store.stored_cards()["pig"]["card"])
    exact = card_seat_values(load_table(rules), card)
    assert 0 < loss["stderr"] < 0.002
    assert abs(loss["loss"] - (0.5 - exact.mean())) <= 4 * loss["stderr"]
    for seat, (estimate, value) in enumerate(zip(loss["seats"], exact)):
        assert abs(estimate - value) <= 4 * np.sqrt(2) * loss["stderr"], seat
    first_line = card_text(card, rules, loss).splitlines()[0]
    assert f"gives up {100 * loss['loss']:.2f} ± {100 * loss['stderr']:.2f} points" in \
        first_line and first_line.endswith("(sampled)")
