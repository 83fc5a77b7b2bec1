"""Solved games as HDF5 files: their layout, where they live, making them
(solve, check, write) and loading one or solving it when missing.

Imports :mod:`solver.engine` and :mod:`solver.model`.
"""
