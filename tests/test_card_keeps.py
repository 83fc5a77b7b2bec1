"""Strategy cards' keeps and take-overs (solver.cards.card): the worths of dice
left and their rows, the most points, the end near an exact target,
before the entry; which offers the card takes over, a lone die's
thresholds; each rule checked at a position where it decides."""

from __future__ import annotations

import dataclasses

from solver.cards.record import Card
from solver.cards.text import card_text
from solver.model.rules import get_rules
from solver.model.states import Line


def test_the_most_points_come_later_when_chasing_and_sooner_when_leading():
    """cinq-mille-exact's table (`farkle advise cinq-mille-exact --me 3000
    --opp 4600 --turn 700 --roll 1 5 2 2 3`): with the other player within
    500 of the end and 700 set aside, keeping the 1 alone (4 dice left)
    wins 13.87%, 1 5 (3 dice) 11.83%, so the most points from 600 costs
    there; leading 3,000 to 2,000 with 450 set aside (`--opp 2000 --turn
    450`), 1 5 then the bank wins 87.70%, the 1 alone 87.16%, so a leader
    wants the most points before 600."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("cinq-mille-exact")
    card = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), behind=50, gap_step=500,
                chase_within=500, chase_bank=(300, 350, 700, 3200, 3700), open_at=750,
                left_worth=(100, 50, 100, 200, 250), most_points_from=600,
                bank_keep_worth=25)
    fitted = dataclasses.replace(card, chase_most_points_from=2000, lead_most_points_from=250)

    def kept(card, opponent, turn_total):
        options = list(keeps(rules, counts_of([1, 5, 2, 2, 3])))
        return sorted(card_keep(card.compiled(rules), rules, 3000, [opponent], turn_total, 5,
                                options).dice)
    assert kept(card, 4600, 700) == [1, 5] and kept(fitted, 4600, 700) == [1]
    assert kept(card, 2000, 450) == [1] and kept(fitted, 2000, 450) == [1, 5]
    # Behind and not chased, the 600 stands (3,000 against 3,500, 450 set aside).
    assert kept(fitted, 3500, 450) == kept(card, 3500, 450) == [1]
    assert "with 600 or more set aside: the most points (2,000 if the other player is " \
        "within 500 of 5,000, else 250 if you lead)." in card_text(fitted, rules)
    # From the target on is never: no turn total gets there.
    never = dataclasses.replace(fitted, chase_most_points_from=5000)
    assert kept(never, 4600, 700) == [1]
    assert "the most points (never if the other player is within 500 of 5,000, else 250 " \
        "if you lead)." in card_text(never, rules)


def test_near_an_exact_target_the_card_keeps_what_leaves_a_good_remainder():
    """cinq-mille-exact at 4,700 against 4,000, nothing set aside (its
    committed table: `farkle advise cinq-mille-exact --me 4700 --opp 4000
    --roll 1 1 2 3 4`): keeping 1 1 (100 to go, 3 dice) wins 89.75%, a lone 1
    (200 to go, 4 dice) 88.37%; after 1 5 5 2 3 the lone 1 is best (88.37%),
    then 1 5 5 (87.93%), 5 5 (85.82%), 1 5 (85.71%) and 5 (85.22%): a
    remainder of 50 or 150 wants a 5. Ranked by points and dice left the
    card takes the lone 1 both times; with the end rule (within 500: 50 a
    die, 100 off a remainder that needs a 5) it takes the best keep both
    times, and ranks the second roll's keeps as the table does."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("cinq-mille-exact")
    usual = Card("cinq-mille-exact", (200, 250, 550, 800, 2100), open_at=750,
                 left_worth=(100, 50, 100, 200, 250))
    ended = dataclasses.replace(usual, end_within=500, end_die=50, odd_fifty=100)

    def ranked(card, roll):
        options = list(keeps(rules, counts_of(roll)))
        order = []
        while options:
            best = card_keep(card.compiled(rules), rules, 4700, [4000], 0, 5, options)
            order.append(sorted(best.dice))
            options.remove(best)
        return order
    assert ranked(usual, [1, 1, 2, 3, 4])[0] == [1]
    assert ranked(ended, [1, 1, 2, 3, 4])[0] == [1, 1]
    assert ranked(ended, [1, 5, 5, 2, 3]) == [[1], [1, 5, 5], [5, 5], [1, 5], [5]]
    text = card_text(ended, rules)
    assert "leaving 500 or less to 5,000: the points + 50 a die left to roll, 100 less if " \
        "that needs a 5 (50, 150, ...)." in text
    # In a game to at least the target the rule does nothing.
    at_least = get_rules("cinq-mille")
    assert ended.compiled(at_least).end_within == 0


def test_a_lone_die_offered_is_taken_from_its_own_threshold():
    """quinze-mille-free-keep at 9,000 against 9,000 (its table: `farkle
    advise quinze-mille-free-keep --me 9000 --opp 9000 --offer 1500,1`):
    a fresh turn wins 53.69%; one die offered with 1,500 wins 52.72% and
    with 2,000 53.38%, with 3,000 53.82%; two dice with 1,000 55.80%. A line
    through the offers of more dice (1,000 less 150 a die) takes the lone
    die from 850; with ``take_one_at`` 3,000 the card takes it as optimal
    play does, and the other offers as before."""
    from solver.cards.sheet import card_take
    rules = get_rules("quinze-mille-free-keep")
    line = Card("quinze-mille-free-keep", (250,) * 6, open_at=500, take_at=1000, take_die=150)
    card = dataclasses.replace(line, take_one_at=3000)
    offers = [(1500, 1), (2000, 1), (3000, 1), (1000, 2)]
    assert [card_take(card.compiled(rules), rules, 9000, [9000], *o) for o in offers] \
        == [False, False, True, True]
    assert [card_take(line.compiled(rules), rules, 9000, [9000], *o) for o in offers] \
        == [True, True, True, True]
    assert "Take over: when the total + 150 per die offered is 1,000 or more; one die: " \
        "from 3,000." in card_text(card, rules)


def test_near_the_end_the_card_takes_an_offer_that_finishes():
    """dix-mille at 9,650 (its table: `farkle advise dix-mille --me 9650
    --opp OPP --offer T,N`): against 9,800, two dice offered with 250
    (100 left, a lone 1 finishes it): the take wins 50.08%, a fresh turn
    40.04%; against 9,750, three dice with 150 (200 left): the take,
    46.92% against 43.59%; two dice with 150: the fresh turn, 43.59%
    against 40.97%. A card that takes an offer leaving 100, or up to 200
    with 3 dice or more, does the same; the line through the offers (800,
    150 a die) takes none of them."""
    from solver.cards.sheet import card_take
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 200, 250, 2750, 5000), open_at=350, take_at=800,
                 take_die=150)
    card = dataclasses.replace(plain, take_finish_within=200, take_finish_dice=3)
    cases = [([9800], (250, 2)), ([9750], (150, 3)), ([9750], (150, 2))]
    assert [card_take(card.compiled(rules), rules, 9650, opp, *o) for opp, o in cases] \
        == [True, True, False]
    assert [card_take(plain.compiled(rules), rules, 9650, opp, *o) for opp, o in cases] \
        == [False, False, False]
    assert "; and any offer that leaves 100 to 10,000 (up to 200 with 3 dice or more)." \
        in card_text(card, rules)


def test_behind_the_card_takes_a_lone_die_sooner():
    """quinze-mille at 12,000, one die offered with 1,100 (its table:
    `farkle advise quinze-mille --me 12000 --opp OPP --offer 1100,1`):
    against 13,500 the take wins 32.84%, a fresh turn 32.02%; against
    12,500 the fresh turn wins, 46.60% against 45.35% (and with 1,700
    offered the take, 47.21%). A card that takes one die from 1,700, from
    1,100 when behind by 1,000 or more, does the same; without the second
    threshold it refuses the first."""
    from solver.cards.sheet import card_take
    rules = get_rules("quinze-mille")
    plain = Card("quinze-mille", (300,) * 6, open_at=500, take_at=950, take_die=150,
                 take_one_at=1700)
    card = dataclasses.replace(plain, take_one_behind=1100, take_one_behind_by=1000)
    cases = [([13500], (1100, 1)), ([12500], (1100, 1)), ([12500], (1700, 1))]
    assert [card_take(card.compiled(rules), rules, 12000, opp, *o) for opp, o in cases] \
        == [True, False, True]
    assert [card_take(plain.compiled(rules), rules, 12000, opp, *o) for opp, o in cases] \
        == [False, False, True]
    assert "one die: from 1,700, from 1,100 when behind by 1,000 or more." \
        in card_text(card, rules)


def test_a_big_keep_of_hot_dice_that_must_be_rolled_counts_less():
    """dix-mille-free-keep at 5,000 each, 3 3 3 3 1 thrown (its table:
    `farkle advise dix-mille-free-keep --me 5000 --opp 5000 --roll 3 3 3 3
    1`): 3 3 3 3 (3,000) then a bank wins 77.23%, all five (3,100, hot dice
    that must be rolled) 67.63%; 1 1 1 5 5 thrown, 1 1 1 5 (1,050) then a
    bank wins 63.88%, all five 61.36%. A card whose dice left are worth
    more than the points (five dice 250, one 125) keeps all five both
    times; counting a hot-dice keep 100 less per 1,000 from 1,500, it keeps
    3 3 3 3 and still all of 1 1 1 5 5 (below 1,500)."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("dix-mille-free-keep")
    plain = Card("dix-mille-free-keep", (200, 150, 500, 4100, 5000), open_at=350,
                 left_worth=(125, 75, 100, 225, 250), bank_keep_worth=50)
    card = dataclasses.replace(plain, hot_dice_from=1500, hot_dice_cost=100)

    def kept(c, roll):
        return card_keep(c.compiled(rules), rules, 5000, [5000], 0, 5,
                         keeps(rules, counts_of(roll))).points
    assert [kept(plain, [3, 3, 3, 3, 1]), kept(plain, [1, 1, 1, 5, 5])] == [3100, 1100]
    assert [kept(card, [3, 3, 3, 3, 1]), kept(card, [1, 1, 1, 5, 5])] == [3000, 1100]
    assert "a keep of every die (all 5 to roll again) that brings the turn total to 1,500 " \
        "or more: 100 less per 1,000 of the turn total it brings." in card_text(card, rules)
    assert "a keep of every die (all 5 to roll again): 100 less per 1,000 of the turn total " \
        "it brings." in card_text(dataclasses.replace(card, hot_dice_from=0), rules)
    # Where hot dice may be banked, the rule does nothing.
    assert card.compiled(get_rules("cinq-mille")).hot_dice == 0


def test_once_points_are_set_aside_the_dice_left_are_worth_another_row():
    """quinze-mille-free-keep at 5,000 each, 1 5 5 2 3 thrown with 5 dice
    (its table: `farkle advise quinze-mille-free-keep --me 5000 --opp 5000
    --turn T --dice 5 --roll 1 5 5 2 3`): with 500 set aside, 1 5 5 (two
    dice left) then a bank wins 55.63%, the 1 alone then a roll 54.52%;
    with 100 set aside the 1 alone wins, 51.09% against 50.74%. A card
    whose two dice left are worth 50 and four 175 keeps the 1 both times;
    worth 150 from 350 set aside, it keeps 1 5 5 with 500."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 3100, 6650, 7500), open_at=500,
                 left_worth=(100, 50, 50, 175, 350, 200))
    card = dataclasses.replace(plain, late_from=350, late_worth=(200, 150, 100, 175, 300, 300))

    def kept(c, turn_total):
        return card_keep(c.compiled(rules), rules, 5000, [5000], turn_total, 5,
                         keeps(rules, counts_of([1, 5, 5, 2, 3]))).points
    assert [kept(plain, 100), kept(plain, 500)] == [100, 100]
    assert [kept(card, 100), kept(card, 500)] == [100, 200]
    assert "  from 350 set aside: 6: 300 | 5: 300 | 3: 100 | 2: 150 | 1: 200." \
        in card_text(card, rules)
    # A late row like the usual one, or from no total, is no row.
    assert dataclasses.replace(card, late_worth=plain.left_worth).in_play().late_worth == ()
    assert dataclasses.replace(card, late_from=0).in_play() == plain


def test_leaving_little_to_go_counts_beyond_the_dice():
    """cinq-mille-exact at 4,400 against 4,000 with 150 set aside, after
    1 1 2 with 3 dice (its table: `farkle advise cinq-mille-exact --me 4400
    --opp 4000 --turn 150 --dice 3 --roll 1 1 2`): keeping 1 1 (250 to go,
    one die) wins 80.50%, a lone 1 (350 to go, two dice) 72.49%. With the
    end rule within 250 (50 a die, 100 less where what is left needs a 5)
    1 1 counts 200 + 50 - 100 = 150, the lone 1 as usual 100 + 50 for two
    dice + 25 for the bank after it = 175; worth 100 more, 1 1 comes first."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps
    rules = get_rules("cinq-mille-exact")
    card = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750,
                left_worth=(100, 50, 100, 200, 250), bank_keep_worth=25, end_within=250,
                end_die=50, odd_fifty=100)
    options = list(keeps(rules, counts_of([1, 1, 2])))

    def kept(card):
        return sorted(card_keep(card.compiled(rules), rules, 4400, [4000], 150, 3, options).dice)
    assert kept(card) == [1]
    bonus = dataclasses.replace(card, end_bonus=100)
    assert kept(bonus) == [1, 1]
    assert "leaving 250 or less to 5,000: the points + 100 + 50 a die left to roll, 100 less " \
        "if that needs a 5 (50, 150, ...)." \
        in card_text(bonus, rules)


def test_the_card_takes_a_lone_die_sooner_from_a_player_near_the_end():
    """dix-mille at 7,000, one die offered with 1,000 (its table: `farkle
    advise dix-mille --me 7000 --opp OPP --offer 1000,1`): from a player at
    8,700 the take wins 29.53%, a fresh turn 28.45%; from one at 5,000 the
    fresh turn, 72.98% against 72.76%. A card that takes a lone die from
    1,200, or from 700 where its maker is within 1,300 of 10,000, does the
    same; without the second threshold it refuses both."""
    from solver.cards.sheet import card_take
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350, take_at=800,
                 take_die=150, take_one_at=1200, chase_within=1300)
    card = dataclasses.replace(plain, take_one_chasing=700)
    cases = [[8700], [5000]]
    assert [card_take(card.compiled(rules), rules, 7000, opp, 1000, 1) for opp in cases] \
        == [True, False]
    assert [card_take(plain.compiled(rules), rules, 7000, opp, 1000, 1) for opp in cases] \
        == [False, False]
    assert "from 700 if they are within 1,300 of 10,000" in card_text(card, rules)


def test_on_the_last_cross_the_card_takes_over_later():
    """dix-mille at 5,000 against 6,000, two dice offered with 650 (its
    table: `farkle advise dix-mille --me 5000 --opp 6000 --offer 650,2
    --crosses C --previous 4000`): with no cross the take wins 41.76%, a
    fresh turn 40.96%; on the last cross (two crosses, a fall to 4,000
    ahead) the fresh turn, 39.68% against 38.16%. A card that takes from
    800 (the total + 150 a die), 200 more on the last cross, does the
    same; without the shift it takes both."""
    from solver.cards.sheet import card_take
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350, take_at=800,
                 take_die=150)
    card = dataclasses.replace(plain, last_cross_take_more=200)
    lines = [Line(5000), Line(5000, crosses=2, previous=4000)]
    assert [card_take(card.compiled(rules), rules, me, [6000], 650, 2) for me in lines] \
        == [True, False]
    assert [card_take(plain.compiled(rules), rules, me, [6000], 650, 2) for me in lines] \
        == [True, True]
    assert "on your last cross: take over only from 200 more" in card_text(card, rules)


def test_before_the_entry_the_card_counts_the_dice_more_and_the_entry_too():
    """dix-mille-free-keep at 0 all, 100 set aside, 1 5 2 3 thrown (`farkle
    advise dix-mille-free-keep --me 0 --opp 0 --turn 100 --dice 4 --roll 1
    5 2 3`): the 1 alone wins 50.50%, 1 5 50.30%. Ranked by the usual
    worths (two dice 75, three 100) the card keeps 1 5; with 50 more a die
    short of the entry, the 1; entered, 1 5 still. quinze-mille-free-keep
    at 0 all, 1 2 3 4 4 4 thrown: 1 4 4 4 (500, then a bank) wins 52.81%,
    the 1 alone 51.10%; with 25 more a die short of the entry the card
    would keep the 1, with 125 more for the keep that reaches it 1 4 4 4."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps

    def kept(card, rules, score, turn_total, roll):
        return card_keep(card.compiled(rules), rules, score, [0], turn_total, len(roll),
                         keeps(rules, counts_of(roll))).points
    dix = get_rules("dix-mille-free-keep")
    plain = Card("dix-mille-free-keep", (150, 150, 500, 3400, 5000), open_at=350,
                 left_worth=(125, 75, 100, 225, 275))
    card = dataclasses.replace(plain, entry_die=50)
    assert [kept(c, dix, 0, 100, [1, 5, 2, 3]) for c in (plain, card)] == [150, 100]
    assert kept(card, dix, 1000, 100, [1, 5, 2, 3]) == 150
    assert "(before you enter, + 50 a die while short of 350)" in card_text(card, dix)
    quinze = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 4000, 5450, 7500), open_at=500,
                 left_worth=(100, 50, 50, 175, 350, 200), entry_die=25)
    card = dataclasses.replace(plain, entry_reach=125)
    assert [kept(c, quinze, 0, 0, [1, 2, 3, 4, 4, 4]) for c in (plain, card)] == [100, 500]
    assert "(before you enter, + 25 a die while short of 500, + 125 for the keep that " \
        "reaches it)" in card_text(card, quinze)


def test_a_leader_keeps_the_points_where_a_trailing_player_keeps_the_dice():
    """quinze-mille-free-keep, 1 3 3 3 2 4 thrown at a turn's start (`farkle
    advise quinze-mille-free-keep --me ME --opp OPP --turn 0 --dice 6 --roll
    1 3 3 3 2 4`): at 9,000 against 6,000 1 3 3 3, then a bank, wins 85.94%,
    the 1 alone 85.61%; at 3,000 against 6,000 the 1 alone, 19.07% against
    19.05%. Two dice left worth 50, five 350, the card keeps the 1 (400 + 50
    against 100 + 350, the more dice); two dice worth 75 to a leader, 1 3 3
    3 at 9,000 and the 1 still at 3,000."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps

    def kept(card, me, opponent):
        return card_keep(card.compiled(rules), rules, me, [opponent], 0, 6,
                         keeps(rules, counts_of([1, 3, 3, 3, 2, 4]))).points
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 4000, 5450, 7500), open_at=500,
                 left_worth=(100, 50, 75, 175, 350, 200))
    card = dataclasses.replace(plain, leader_worth=(100, 75, 75, 175, 350, 200))
    assert [kept(plain, 9000, 6000), kept(plain, 3000, 6000)] == [100, 100]
    assert [kept(card, 9000, 6000), kept(card, 3000, 6000)] == [400, 100]
    assert "1: 100 (if you lead, 2: 75)" in card_text(card, rules)
    assert card.in_play().leader_worth and not \
        dataclasses.replace(card, leader_worth=plain.left_worth).in_play().leader_worth


def test_near_the_other_player_s_end_the_card_keeps_by_a_row_of_its_own():
    """quinze-mille-free-keep at 13,650 against 14,500, 500 set aside, 1 1 5
    5 2 3 thrown (`farkle advise quinze-mille-free-keep --me 13650 --opp
    14500 --turn 500 --dice 6 --roll 1 1 5 5 2 3`): the 1 alone wins 36.36%,
    1 1 5 5 then a bank 29.43%. By the late row (two dice 100, five 275) the
    card keeps 1 1 5 5 (300 + 100 against 100 + 275); by a row of its own
    once the other player is within 1,200 of 15,000 (two dice 0, five 350),
    the 1; against 12,000 the late row still holds."""
    from solver.cards.sheet import card_keep
    from solver.model.dice import counts_of, keeps

    def kept(card, opponent):
        return card_keep(card.compiled(rules), rules, 13650, [opponent], 500, 6,
                         keeps(rules, counts_of([1, 1, 5, 5, 2, 3]))).points
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 4000, 5450, 7500), open_at=500,
                 chase_within=1200, left_worth=(100, 50, 75, 175, 350, 200), late_from=400,
                 late_worth=(75, 100, 100, 175, 275, 300))
    card = dataclasses.replace(plain, chase_worth=(75, 0, 0, 175, 350, 300),
                               chase_bank=(400, 200, 400, 4000, 5450, 7500))
    assert [kept(plain, 14500), kept(plain, 12000)] == [300, 300]
    assert [kept(card, 14500), kept(card, 12000)] == [100, 300]
    text = card_text(card, rules)
    assert "  the other player within 1,200 of 15,000: bank at 1: 400; keep by dice left " \
        "worth 6: 300 | 5: 350 | 4: 175 | 3: 0 | 2: 0 | 1: 75, in place of the worths below" \
        in text
    # Without a bank row of its own there, on a line of its own.
    alone = card_text(dataclasses.replace(card, chase_bank=()), rules)
    assert "  the other player within 1,200 of 15,000: dice left worth 6: 300 | 5: 350 | 4: " \
        "175 | 3: 0 | 2: 0 | 1: 75, in place of the worths above" in alone


def test_far_from_the_end_a_trailing_player_takes_a_lone_die_no_sooner():
    """dix-mille-free-keep, one die offered with 1,100 (`farkle advise
    dix-mille-free-keep --me ME --opp OPP --offer 1100,1`): at 3,000
    against 4,000 the fresh turn wins, 40.38% against 40.09%; at 7,000
    against 8,000 the take, 31.82% against 30.94%. A card that takes one
    die from 1,400, from 1,000 when behind by 500 or more, takes both;
    with that rule only where the leader is within 3,000 of 10,000, the
    second alone."""
    from solver.cards.sheet import card_take
    rules = get_rules("dix-mille-free-keep")
    plain = Card("dix-mille-free-keep", (150, 150, 500, 3400, 5000), open_at=350,
                 take_at=850, take_die=150, take_one_at=1400, take_one_behind=1000,
                 take_one_behind_by=500)
    card = dataclasses.replace(plain, take_one_behind_within=3000)
    cases = [(3000, 4000), (7000, 8000)]
    assert [card_take(plain.compiled(rules), rules, me, [opp], 1100, 1)
            for me, opp in cases] == [True, True]
    assert [card_take(card.compiled(rules), rules, me, [opp], 1100, 1)
            for me, opp in cases] == [False, True]
    assert "from 1,000 when behind by 500 or more and they are within 3,000 of 10,000" \
        in card_text(card, rules)
