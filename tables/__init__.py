"""The solved games, one HDF5 file each (installed as package data)."""
