"""The solvers: the turn DP (numpy and compiled), the two-player and
N-player level solvers, equilibria, the crosses memory model, convergence,
and a solved game in memory.

Imports only :mod:`solver.model`.
"""
