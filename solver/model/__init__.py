"""The games as data: rules and house rules, the dice, player states and
the turn rules (what a keep, a bank, a zero turn and a fall do).

The lowest layer: imports nothing of the package.
"""
