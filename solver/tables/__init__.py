"""Solved games as HDF5 files: their layout, where they live, making them
(solve, check, write) and loading one or solving it when missing; and the
machine a measurement ran on.

Imports :mod:`solver.engine` and :mod:`solver.model`.
"""
