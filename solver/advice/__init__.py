"""Answers at the table: bank or roll, which dice to keep, take over or
not, from a table or, for more players than a table holds, from the
race-of-duels model.

Imports :mod:`solver.tables` and below.
"""
