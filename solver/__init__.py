"""farkle-solver: optimal two-player play of dix-mille, quinze-mille,
cinq-mille and Pig, by dynamic programming."""

__version__ = "0.1.0"
