"""Strategy cards' banks (solver.cards.card): the thresholds and their rows, the
finish, what a bank may offer the next player and leave to go, on the
last cross and where no one may take over; each rule checked at a
position where it decides, through the card's decisions in points
(solver.cards.sheet)."""

from __future__ import annotations

import dataclasses

from solver.cards.record import Card
from solver.cards.sheet import card_bank
from solver.cards.text import card_text
from solver.model.rules import get_rules
from solver.model.states import Line


def test_to_an_exact_target_the_card_leaves_enough_to_go():
    """quinze-mille's optimal player at 14,600 against 12,000 banks with 2
    dice from 100 to 200 only, leaving 200 to 300 to make exactly (its
    table, BENCHMARKS.md): a remainder of 50 or 100 wants a lone 5 or 1 with
    the other dice blank. A card with ``leave_at_least`` 200 banks 200 there
    and rolls on at 250 and 300; without it, it banks all three."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (200,) * 6, open_at=500, leave_at_least=200)
    compiled, plain = card.compiled(rules), dataclasses.replace(card, leave_at_least=0).compiled(
        rules)
    assert [card_bank(compiled, rules, 14600, [12000], turn, 2) for turn in (200, 250, 300)] \
        == [True, False, False]
    assert [card_bank(plain, rules, 14600, [12000], turn, 2) for turn in (200, 250, 300)] \
        == [True, True, True]
    assert "never bank leaving less than 200 to 15,000" in card_text(card, rules)


def test_past_a_cap_the_card_rolls_on_for_the_win():
    """cinq-mille-last1000 against 3,000, 1,000 set aside with 2 dice (its
    committed table: `farkle advise cinq-mille-last1000 --me 3800 --opp 3000
    --turn 1000 --dice 2`): a bank stops at 4,000 either way; at 3,800 a
    roll wins 71.90% against the bank's 68.62% (200 to go), at 3,500 the
    bank's 68.62% beats the roll's 64.41% (500 to go). With
    ``leave_at_least`` 500 the card does both; without, it banks both."""
    rules = get_rules("cinq-mille-last1000")
    plain = Card("cinq-mille-last1000", (150, 200, 450, 800, 2950), open_at=750)
    card = dataclasses.replace(plain, leave_at_least=500)
    for each, banks in ((card, [False, True]), (plain, [True, True])):
        assert [card_bank(each.compiled(rules), rules, me, [3000], 1000, 2)
                for me in (3800, 3500)] == banks
    assert "never bank leaving less than 500 to 5,000" in card_text(card, rules)


def test_the_finish_applies_with_few_dice_in_hand():
    """quinze-mille's optimal player at 14,500 against 10,000 banks 200 or
    250 with 1 to 3 dice in hand (leaving 300 or 250 to make exactly;
    ``farkle advise quinze-mille --me 14500 --opp 10000 --turn 200 --dice
    3``: bank 94.74%, roll 94.19%), while a card banking at 400 with 3
    dice would roll on. With ``finish_within`` 300 and ``finish_dice`` 3
    the card banks there with 3 dice but not with 4 or 5 (against 14,000
    optimal play rolls on with 5: 66.23% against 66.16%), and never below
    ``leave_at_least``."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (250, 200, 400, 2550, 2750, 7500), open_at=500,
                leave_at_least=200, finish_within=300, finish_dice=3)
    compiled = card.compiled(rules)
    banks = {(turn, dice): card_bank(compiled, rules, 14500, [10000], turn, dice)
             for turn in (150, 200, 250, 350) for dice in (3, 4, 5)}
    assert banks == {(150, 3): False, (200, 3): True, (250, 3): True, (350, 3): False,
                     (150, 4): False, (200, 4): False, (250, 4): False, (350, 4): False,
                     (150, 5): False, (200, 5): False, (250, 5): False, (350, 5): False}
    any_dice = dataclasses.replace(card, finish_dice=0).compiled(rules)
    assert card_bank(any_dice, rules, 14500, [10000], 200, 5)
    assert "or bank whatever leaves 300 or less to 15,000, with 3 dice or fewer" \
        in card_text(card, rules)


def test_the_finish_may_want_enough_left_to_go():
    """cinq-mille-exact at 4,600 against 4,300 with 3 dice (its table,
    `farkle advise cinq-mille-exact --me 4600 --opp 4300 --turn 200 --dice
    3`): with 200 set aside, the bank, leaving 200, wins 78.31% against the
    roll's 75.73%; with 300 set aside, leaving 100, the roll wins, 82.52%
    against 81.24%. A finish from 150 to 200 left banks the first and
    not the second; with more than 3 dice, neither; and near the other
    player's end it may yield."""
    rules = get_rules("cinq-mille-exact")
    card = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750,
                finish_within=200, finish_from=150, finish_dice=3)
    compiled = card.compiled(rules)
    assert card_bank(compiled, rules, 4600, [4300], 200, 3)
    assert not card_bank(compiled, rules, 4600, [4300], 300, 3)
    assert not card_bank(compiled, rules, 4600, [4300], 200, 4)
    unbounded = dataclasses.replace(card, finish_from=0).compiled(rules)
    assert card_bank(unbounded, rules, 4600, [4300], 300, 3)
    assert "or bank whatever leaves between 150 and 200 to 5,000, with 3 dice or fewer" \
        in card_text(card, rules)
    # Against 4,750 the roll wins, 43.85% against 40.02% (`--opp 4750`):
    # the other player may finish before the 200 left is made.
    yielding = dataclasses.replace(card, finish_yields_within=250)
    assert card_bank(compiled, rules, 4600, [4750], 200, 3)
    assert not card_bank(yielding.compiled(rules), rules, 4600, [4750], 200, 3)
    assert card_bank(yielding.compiled(rules), rules, 4600, [4300], 200, 3)
    assert "with 3 dice or fewer, unless the other player is within 250 of it\n" \
        in card_text(yielding, rules)


def test_the_card_offers_no_finish_to_the_other_player():
    """quinze-mille, 200 set aside with 3 dice (its table: `farkle advise
    quinze-mille --me ME --opp OPP --turn 200 --dice 3`):

    - at 14,600 against 14,700, banking wins 39.20%, rolling on 50.23%
      (the other player takes the offer at 14,900 and needs a 1 of 3
      dice); with 1 die the bank wins 45.77%, the roll 41.26%;
    - at 14,550 against 14,500 the bank wins 55.41%, the roll 51.25% (the
      bank leaves 250 to go; taking over leaves them 300);
    - at 14,000 against 14,700 the roll wins 30.07%, the bank 23.53%;
    - at 14,600 against 10,000 the bank wins 95.62%, the roll 94.32%.

    The finish (300 or less left, 3 dice or fewer) comes before the offer
    rule (3 dice or more, not within 400), and yields where the offer
    brings the other player within 100: the card plays each as optimal
    play does. Without the exception the finish banks at 14,600 against
    14,700. An exception as wide as the offer rule is the offer rule
    first, the order of the cards fitted before the exception."""
    rules = get_rules("quinze-mille")
    plain = Card("quinze-mille", (250, 200, 200, 1750, 3150, 7500), open_at=500,
                 finish_within=300, finish_dice=3, offer_within=400, offer_dice=3)
    card = dataclasses.replace(plain, finish_unless_within=100)
    compiled = card.compiled(rules)
    assert card_bank(plain.compiled(rules), rules, 14600, [14700], 200, 3)
    assert not card_bank(compiled, rules, 14600, [14700], 200, 3)
    assert card_bank(compiled, rules, 14600, [14700], 200, 1)
    assert card_bank(compiled, rules, 14550, [14500], 200, 3)
    assert not card_bank(compiled, rules, 14000, [14700], 200, 3)
    assert card_bank(compiled, rules, 14600, [10000], 200, 3)
    text = card_text(card, rules)
    assert "unless, with 3 dice or more, the other player, taking over, would be within 100 " \
        "of it" in text
    assert "else, with 3 dice or more, never bank if the other player, taking over, would " \
        "be within 400 of 15,000" in text
    # An exception as wide as the offer rule is the old order, the offer rule
    # first: no bank at 14,550 against 14,500, and the card says it so.
    old_order = dataclasses.replace(plain, finish_unless_within=400)
    assert not card_bank(old_order.compiled(rules), rules, 14550, [14500], 200, 3)
    assert "  with 3 dice or more, never bank if the other player, taking over, would be " \
        "within 400 of 15,000\n  or bank whatever leaves 300 or less to 15,000, with 3 dice " \
        "or fewer\n" in card_text(old_order, rules)


def test_with_two_dice_the_card_offers_no_finish_either():
    """quinze-mille at 13,000, 300 set aside (its table: `farkle advise
    quinze-mille --me 13000 --opp OPP --turn 300 --dice N`): against 14,600
    with 2 dice the roll wins 22.68%, the bank 20.08% (the other player
    would take over at 14,900); against 14,000 the bank wins, 33.13%
    against 32.62%; against 14,600 with 1 die the bank wins, 22.91% against
    22.90% (a lone die's offer is seldom taken). A card whose offer rule
    holds from 3 dice, within 2,600, and with 2 dice within 100, plays
    each as optimal play does; without the second window it banks the
    first."""
    rules = get_rules("quinze-mille")
    plain = Card("quinze-mille", (250, 250, 400, 2300, 3150, 7500), open_at=500,
                 offer_within=2600, offer_dice=3)
    card = dataclasses.replace(plain, offer_fewer_within=100)
    compiled = card.compiled(rules)
    assert card_bank(plain.compiled(rules), rules, 13000, [14600], 300, 2)
    assert not card_bank(compiled, rules, 13000, [14600], 300, 2)
    assert card_bank(compiled, rules, 13000, [14000], 300, 2)
    assert card_bank(compiled, rules, 13000, [14600], 300, 1)
    assert "  with 3 dice or more, never bank if the other player, taking over, would be " \
        "within 2,600 of 15,000 (with 2 dice, within 100)\n" in card_text(card, rules)
    alone = dataclasses.replace(card, offer_within=0)
    assert not card_bank(alone.compiled(rules), rules, 13000, [14600], 300, 2)
    assert "  with 2 dice, never bank if the other player, taking over, would be within 100 " \
        "of 15,000\n" in card_text(alone, rules)


def test_on_the_last_cross_the_card_offers_more_dice():
    """dix-mille at 9,650 against 9,700, 150 set aside with 3 dice (its
    table: `farkle advise dix-mille --me 9650 --opp 9700 --turn 150 --dice 3
    --crosses C [--previous 9400]`): on the last cross (2 crosses, 9,400
    before the last bank) the bank wins, 49.01% against 48.70% (a zero turn
    would fall back to 9,400 as well); with no cross the roll wins, 49.33%
    against 49.01% (the other player would take over at 9,850). The card
    whose offer rules hold from 4 dice on the last cross (3 elsewhere)
    plays both as optimal play does: the bank leaves 200 to go, its
    finish; without the field it rolls on the last cross too."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 2750, 5000), open_at=350, last_cross=200,
                 finish_within=300, leave_at_least=200, offer_within=2800, offer_dice=3,
                 offer_fewer_within=100, finish_unless_within=250)
    card = dataclasses.replace(plain, last_cross_offer_dice=4)
    last_cross = Line(9650, crosses=2, previous=9400)
    assert card_bank(card.compiled(rules), rules, last_cross, [9700], 150, 3)
    assert not card_bank(card.compiled(rules), rules, Line(9650), [9700], 150, 3)
    assert not card_bank(plain.compiled(rules), rules, last_cross, [9700], 150, 3)
    assert "  on your last cross: take 200 off, and count the offer rules below from 4 " \
        "dice, not 3\n" in card_text(card, rules)
    assert "count the offer rules" not in card_text(plain, rules)


def test_with_a_cross_the_card_finishes_sooner():
    """dix-mille at 9,500 against 9,000 (its table: `farkle advise dix-mille
    --me 9500 --opp 9000 --crosses C --previous 9000 --turn T --dice N`):
    with 250 set aside and 4 dice (leaving 250) the roll wins with no cross,
    68.80% against 68.55%, the bank with one cross, 68.55% against 66.88%;
    with 350 and 2 dice (leaving 150) the roll wins with no cross, 65.52%
    against 64.83%, the bank with one cross, 64.83% against 62.80%: a zero
    turn would cost a cross too. The card with the finish for 3 dice or
    fewer (any with a cross) and 150 to leave with two dice and a cross
    plays the four as optimal play does; a fallen player (previous score
    equal to the score) has no fall ahead and plays as with no cross."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 2750, 5000), open_at=350, finish_within=300,
                 finish_dice=3, leave_at_least=200, lone_die_leaves=150)
    card = dataclasses.replace(plain, crossed_finish_dice=5, crossed_two_dice_leaves=150)
    compiled = card.compiled(rules)
    crossed, fallen = Line(9500, crosses=1, previous=9000), Line(9500, crosses=1, previous=9500)
    for line, banks in ((Line(9500), False), (crossed, True), (fallen, False)):
        assert card_bank(compiled, rules, line, [9000], 250, 4) == banks
        assert card_bank(compiled, rules, line, [9000], 350, 2) == banks
        assert not card_bank(plain.compiled(rules), rules, line, [9000], 350, 2)
    assert "(150 with one die; with a cross, 150 with two)" in card_text(card, rules)
    assert "300 or less to 10,000, with 3 dice or fewer (any dice with a cross)" in card_text(card, rules)
    assert "with a cross" not in card_text(plain, rules)


def test_a_big_turn_total_banks_even_leaving_little_to_go():
    """quinze-mille at 13,000 against 12,000 (its table: `farkle advise
    quinze-mille --me 13000 --opp 12000 --turn 1850 --dice 1`): banking
    1,850 with 1 die, which leaves 150 to go, wins 74.90% against 62.39%
    for a roll; at 14,500 with 350 (`--me 14500 --opp 12000 --turn 350
    --dice 1`) the roll wins, 82.80% against 78.04%. ``leave_at_least``
    200 alone rolls on both times; with ``leave_unless`` 1,500 the card
    banks the first and rolls on the second."""
    rules = get_rules("quinze-mille")
    strict = Card("quinze-mille", (250, 200, 400, 1750, 3150, 7500), open_at=500,
                  leave_at_least=200)
    card = dataclasses.replace(strict, leave_unless=1500)
    assert not card_bank(strict.compiled(rules), rules, 13000, [12000], 1850, 1)
    assert card_bank(card.compiled(rules), rules, 13000, [12000], 1850, 1)
    assert not card_bank(card.compiled(rules), rules, 14500, [12000], 350, 1)
    assert "never bank leaving less than 200 to 15,000 with less than 1,500 set aside" \
        in card_text(card, rules)


def test_a_lone_die_may_bank_leaving_less_to_go():
    """dix-mille at 9,500 against 9,000 with 350 set aside, which a bank
    leaves 150 short (its table: `farkle advise dix-mille --me 9500 --opp
    9000 --turn 350 --dice 1`): with one die the bank wins, 64.83% against
    62.34% for a roll; with two (`--dice 2`) the roll, 65.52% against
    64.83%. ``leave_at_least`` 200 rolls on both; with ``lone_die_leaves``
    150 the card banks the lone die and still rolls the two."""
    rules = get_rules("dix-mille")
    strict = Card("dix-mille", (200, 200, 250, 2750, 5000), open_at=350, leave_at_least=200)
    card = dataclasses.replace(strict, lone_die_leaves=150)
    assert not card_bank(strict.compiled(rules), rules, 9500, [9000], 350, 1)
    assert card_bank(card.compiled(rules), rules, 9500, [9000], 350, 1)
    assert not card_bank(card.compiled(rules), rules, 9500, [9000], 350, 2)
    assert "never bank leaving less than 200 (150 with one die) to 10,000" in card_text(card, rules)
    assert "with one die" not in card_text(strict, rules)
    assert "  with one die, never bank leaving less than 150 to 10,000\n" in \
        card_text(dataclasses.replace(card, leave_at_least=0), rules)


def test_near_the_other_player_s_end_the_card_banks_by_a_row_of_its_own():
    """cinq-mille-exact at 4,000 against 4,600 (its table: `farkle advise
    cinq-mille-exact --me 4000 --opp 4600 --turn 250 --dice 2`): rolling on
    wins 23.81%, banking 250 with 2 dice 19.97%; against 3,000 (`--opp
    3000`) the bank wins, 85.80% against 84.45%. A card that banks 200 with
    2 dice banks both; with a row of 300 once the other player is within
    500 of 5,000 it rolls on against 4,600 and still banks against 3,000."""
    rules = get_rules("cinq-mille-exact")
    plain = Card("cinq-mille-exact", (150, 200, 550, 800, 2100), open_at=750)
    card = dataclasses.replace(plain, chase_within=500,
                               chase_bank=(250, 300, 550, 800, 2100))
    assert card_bank(plain.compiled(rules), rules, 4000, [4600], 250, 2)
    assert not card_bank(card.compiled(rules), rules, 4000, [4600], 250, 2)
    assert card_bank(card.compiled(rules), rules, 4000, [3000], 250, 2)
    assert "the other player within 500 of 5,000: bank at 2: 300 | 1: 250\n" in card_text(card, rules)


def test_near_its_own_end_the_card_banks_by_a_row_of_its_own():
    """cinq-mille-exact at 4,350 against 4,000 with 400 set aside and 3
    dice (its table: `farkle advise cinq-mille-exact --me 4350 --opp 4000
    --turn 400 --dice 3`): banking wins 80.50%, rolling on 77.85%. A card
    that banks at 550 with 3 dice rolls on; with a row of 400 once the
    player is within 800 of 5,000 it banks, and 1,000 from it (at 4,000)
    it still rolls on."""
    rules = get_rules("cinq-mille-exact")
    plain = Card("cinq-mille-exact", (150, 200, 550, 800, 1900), open_at=750)
    card = dataclasses.replace(plain, home_within=800, home_bank=(150, 150, 400, 550, 600))
    assert not card_bank(plain.compiled(rules), rules, 4350, [4000], 400, 3)
    assert card_bank(card.compiled(rules), rules, 4350, [4000], 400, 3)
    assert not card_bank(card.compiled(rules), rules, 4000, [4000], 400, 3)
    assert "  yourself within 800 of 5,000: bank at 5: 600 | 4: 550 | 3: 400 | 2: 150\n" \
        in card_text(card, rules)
    # Where the row near the other player's end applies too, it decides.
    chasing = dataclasses.replace(card, chase_within=300, chase_bank=plain.bank)
    assert not card_bank(chasing.compiled(rules), rules, 4350, [4750], 400, 3)
    assert "  else, yourself within 800" in card_text(chasing, rules)


def test_far_behind_the_card_banks_by_that_row_too():
    """quinze-mille at 3,000 against 6,000 (its table: `farkle advise
    quinze-mille --me 3000 --opp 6000 --turn 800 --dice 3`): rolling on
    wins 26.21%, banking 800 with 3 dice 25.86%; against 3,500 (`--opp
    3500`) the bank wins, 50.58% against 49.50%. With the row's 3 dice at
    2,000 for a lead of 2,000 or more, the card rolls on against 6,000 and
    banks against 3,500."""
    rules = get_rules("quinze-mille")
    card = Card("quinze-mille", (250, 200, 400, 2000, 3150, 7500), open_at=500,
                chase_behind=2000, chase_bank=(250, 200, 2000, 2000, 3150, 7500))
    compiled = card.compiled(rules)
    assert not card_bank(compiled, rules, 3000, [6000], 800, 3)
    assert card_bank(compiled, rules, 3000, [3500], 800, 3)
    assert "trailing by 2,000 or more: bank at 3: 2,000\n" in card_text(card, rules)


def test_the_card_banks_what_leaves_five_hundred_or_fifteen_hundred():
    """dix-mille against 8,000 with 3 dice (its table: `farkle advise
    dix-mille --me S --opp 8000 --turn T --dice N`): at 9,300 with 200 set
    aside the bank (to 9,500, 500 to go: three 5s make it) wins 75.24%, the
    roll 74.29%; at 8,300 with 200 (1,500 to go: a straight) the bank,
    57.10% against 55.80%; at 9,250 with 200 (to 9,450) the roll, 73.23%
    against 72.36%; at 9,300 with 200 and 4 dice the roll, 75.53% against
    75.24%. A card that banks 3 dice from 250 and whatever leaves 500 or
    1,500 with 3 dice or fewer does the same; without the rule it rolls
    all four."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350)
    card = dataclasses.replace(plain, five_hundreds_within=1500, five_hundreds_dice=3)
    cases = [(9300, 200, 3), (8300, 200, 3), (9250, 200, 3), (9300, 200, 4)]
    assert [card_bank(card.compiled(rules), rules, me, [8000], t, n) for me, t, n in cases] \
        == [True, True, False, False]
    assert [card_bank(plain.compiled(rules), rules, me, [8000], t, n) for me, t, n in cases] \
        == [False, False, False, False]
    assert "  or bank whatever leaves 500 or 1,500 to 10,000 with 3 dice or fewer " \
        "(three 5s, a straight)" in card_text(card, rules)


def test_with_two_dice_the_card_may_offer_fifty_to_go_but_not_a_hundred():
    """dix-mille at 9,300 with 2 dice (its table: `farkle advise dix-mille
    --me 9300 --opp OPP --turn T --dice 2`): against 9,550 with 400 set
    aside (the taker would need 50) the bank wins 50.18%, the roll 50.04%;
    against 9,600 with 300 (they would need 100: a 1, or two 5s) the roll,
    44.81% against 39.27%. A card whose two-dice offer window is exactly
    100 does the same; one within 100 rolls both."""
    rules = get_rules("dix-mille")
    plain = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350, offer_within=4300,
                 offer_dice=3, offer_fewer_within=100)
    card = dataclasses.replace(plain, offer_fewer_from=100)
    cases = [([9550], 400), ([9600], 300)]
    assert [card_bank(card.compiled(rules), rules, 9300, opp, t, 2) for opp, t in cases] \
        == [True, False]
    assert [card_bank(plain.compiled(rules), rules, 9300, opp, t, 2) for opp, t in cases] \
        == [False, False]
    assert "(with 2 dice, exactly 100)" in card_text(card, rules)


def test_where_the_other_player_may_not_take_over_the_card_banks_by_a_row_of_its_own():
    """quinze-mille-free-keep with 1,500 set aside and 4 dice (its table:
    `farkle advise quinze-mille-free-keep --me 3000 --opp 4000 --turn 1500
    --dice 4`): at 3,000 against 4,000, who may not take over (short of
    5,000), banking wins 52.88%, rolling on 52.12%; at 6,000 against 7,000
    (`--me 6000 --opp 7000`) rolling on wins 47.76%, banking 45.82%. A card
    that banks at 2,300 with 4 dice rolls on at both; with a row of 1,000
    where the other player may not take over it banks the first and still
    rolls on at the second."""
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 2300, 4650, 7500), open_at=500)
    card = dataclasses.replace(plain, safe_bank=(250, 200, 400, 1000, 2600, 7500))
    assert not card_bank(plain.compiled(rules), rules, 3000, [4000], 1500, 4)
    assert card_bank(card.compiled(rules), rules, 3000, [4000], 1500, 4)
    assert not card_bank(card.compiled(rules), rules, 6000, [7000], 1500, 4)
    assert "  the other player short of 5,000 (no take-over): bank at 5: 2,600 | 4: 1,000\n" \
        in card_text(card, rules)
    # Where any entered player may take over, the row is for one not entered.
    dix = get_rules("dix-mille")
    entered = Card("dix-mille", (200, 0, 250, 1950, 5000), open_at=350,
                   safe_bank=(200, 0, 250, 1000, 5000))
    assert "  the other player not entered (no take-over): bank at 4: 1,000\n" \
        in card_text(entered, dix)
    assert card_bank(entered.compiled(dix), dix, 2000, [0], 1000, 4)
    assert not card_bank(entered.compiled(dix), dix, 2000, [350], 1000, 4)
    # Where nobody may ever take over, the row is the usual one.
    cinq = get_rules("cinq-mille")
    both = Card("cinq-mille", (200, 250, 550, 800, 2150), open_at=750,
                safe_bank=(200, 250, 550, 300, 2150))
    assert not card_bank(both.compiled(cinq), cinq, 3000, [3000], 500, 4)
    assert "take-over" not in card_text(both, cinq)


def test_the_card_does_not_offer_a_leader_a_take_over():
    """quinze-mille-free-keep with 1,000 set aside and 3 dice (its table:
    `farkle advise quinze-mille-free-keep --me 5000 --opp 7000 --turn 1000
    --dice 3`): against 7,000, who leads and may take over, rolling on
    wins 31.67%, banking 31.36%; level at 5,000 banking wins, 56.24%
    against 55.92%; at 2,000 against 4,000, who may not take over, banking
    wins, 35.16% against 33.67%. A card that banks from 400 with 3 dice
    banks all three; one that offers a leader by 1,000 or more nothing
    from 550 to 2,950 rolls on against 7,000 alone, and banks the 500 of
    three 5s there."""
    rules = get_rules("quinze-mille-free-keep")
    plain = Card("quinze-mille-free-keep", (250, 200, 400, 2300, 4650, 7500), open_at=500,
                 offer_dice=3)
    card = dataclasses.replace(plain, lead_offer_behind=1000, lead_offer_from=550,
                               lead_offer_to=2950, lead_offer_far=2500)
    for me, other in ((5000, 7000), (5000, 5000), (2000, 4000)):
        assert card_bank(plain.compiled(rules), rules, me, [other], 1000, 3)
    assert not card_bank(card.compiled(rules), rules, 5000, [7000], 1000, 3)
    assert card_bank(card.compiled(rules), rules, 5000, [5000], 1000, 3)
    assert card_bank(card.compiled(rules), rules, 2000, [4000], 1000, 3)
    assert card_bank(card.compiled(rules), rules, 5000, [7000], 500, 3)
    # Near the other player's end the card's other rules decide.
    assert card_bank(card.compiled(rules), rules, 11000, [13000], 1000, 3)
    assert "with 3 dice or more, never bank from 550 to 2,950 if the other player leads by " \
        "1,000 or more with more than 2,500 to go and may take over" in card_text(card, rules)
    # Beside the offer rule, one clause of it.
    both = dataclasses.replace(card, offer_within=1800)
    assert "would be within 1,800 of 15,000, nor from 550 to 2,950 if they lead by 1,000 " \
        "or more with more than 2,500 to go\n" in card_text(both, rules)
