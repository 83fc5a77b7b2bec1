"""The paper's figures, drawn from what :mod:`solver.study.analysis` computed.

Each function draws one figure, saves it under ``paper/figures/`` and
returns the Markdown that shows it with its caption. Score axes run over the
scores a player can hold (in points), so they end where the scores end (a
capped game stops at its cap); scores that cannot occur (between 0 and the
entry) are left blank and no contour is drawn across them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paper.builder.format import points


class Figures:
    """Figure numbers and files."""

    def __init__(self, out: Path):
        self.dir = out / "figures"
        self.count = 0
        self.dir.mkdir(parents=True, exist_ok=True)
        import matplotlib
        matplotlib.use("Agg")

    def save(self, fig, name: str, caption: str) -> str:
        import matplotlib.pyplot as plt
        self.count += 1
        label = f"Figure {self.count}"
        fig.savefig(self.dir / f"{name}.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        return f"![{label}. {caption}](figures/{name}.png)\n\n*{label}. {caption}*\n"


def _thousands(ax, axes="xy", bins=4):
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    fmt = FuncFormatter(lambda v, _: points(v))
    for which in axes:
        axis = ax.xaxis if which == "x" else ax.yaxis
        axis.set_major_locator(MaxNLocator(bins, integer=True))
        axis.set_major_formatter(fmt)


def _score_grid(scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` over ``scores`` (units) spread on every unit score up to
    the largest, NaN between (scores that cannot occur)."""
    size = int(scores[-1]) + 1
    grid = np.full((size, size), np.nan)
    grid[np.ix_(scores, scores)] = values
    return grid


def _mesh(ax, unit: int, grid: np.ndarray, **kw):
    edges = (np.arange(grid.shape[0] + 1) - 0.5) * unit
    im = ax.pcolormesh(edges, edges, np.ma.masked_invalid(grid), **kw)
    ax.set_xlabel("opponent's score")
    ax.set_ylabel("mover's score")
    ax.set_aspect("equal")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(edges[0], edges[-1])
    _thousands(ax)
    return im


def win_map(figs: Figures, games: list) -> str:
    """``games``: (label, unit, scores, W) with ``W[i, j]`` the mover at
    ``scores[i]`` against ``scores[j]``."""
    import matplotlib.pyplot as plt
    cols = min(3, len(games))
    rows = -(-len(games) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.3 * cols, 4.0 * rows), squeeze=False,
                             layout="constrained")
    for ax, (label, unit, scores, W) in zip(axes.flat, games):
        grid = _score_grid(scores, W)
        im = _mesh(ax, unit, grid, vmin=0, vmax=1, cmap="RdBu_r")
        # Contours only inside the scores that occur: the masked band between
        # 0 and the entry cuts them, instead of a line drawn across it.
        xs = np.arange(grid.shape[0]) * unit
        cs = ax.contour(xs, xs, np.ma.masked_invalid(grid), levels=[0.25, 0.5, 0.75],
                        colors="k", linewidths=0.7)
        ax.clabel(cs, fontsize=7)
        ax.set_title(label, fontsize=9)
    for ax in list(axes.flat)[len(games):]:
        ax.axis("off")
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability that the mover wins")
    return figs.save(fig, "win-probability",
                     "Probability that the player about to start a turn wins, against the "
                     "scores of both players (no crosses on either line where the game has "
                     "crosses; blank: scores that cannot occur, between 0 and the entry); "
                     "contours at one quarter, one half and three quarters.")


def decision_intervals(figs: Figures, label: str, unit: int, situations, xlabel: str,
                       ylabel: str, dice_counts, name: str, caption: str) -> str:
    """One colour per score situation; per number of dice a vertical bar
    for each interval of totals where the answer is yes (a dot for a single
    total), and a cross at 0 where it is never yes."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.2, 3.8), layout="constrained")
    k = len(situations)
    for i, (sit, me, opp, rules) in enumerate(situations):
        colour = f"C{i}"
        dx = (i - (k - 1) / 2) * 0.12
        first = True
        for n in dice_counts:
            rule = rules.get(n)
            if rule is None or rule.top is None:
                continue
            tag = f"{sit}: {points(me)} vs {points(opp)}" if first else None
            first = False
            if not rule.intervals:
                ax.plot(n + dx, 0, "x", color=colour, markersize=7, label=tag)
                continue
            for lo, hi in rule.intervals:
                ax.plot([n + dx, n + dx], [lo * unit, hi * unit], "-", color=colour,
                        linewidth=3, solid_capstyle="butt", label=tag)
                ax.plot(n + dx, lo * unit, "o", color=colour, markersize=3.5)
                tag = None
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xticks(list(dice_counts))
    ax.set_ylim(bottom=-0.04 * ax.get_ylim()[1])
    _thousands(ax, "y", bins=6)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(label, fontsize=9)
    return figs.save(fig, name, caption)


def bank_map(figs: Figures, key: str, label: str, unit: int, scores, smallest, every,
             note: str, percentile: int = 99) -> str:
    """``smallest[n][i, j]``: the smallest total banked (units, -1 never)
    with ``n`` dice, mover at ``scores[i]``, opponent at ``scores[j]``;
    ``scores`` are every k-th of ``every``, the scores a player can hold,
    and each of these is drawn with the value of the sample at or below it."""
    import matplotlib.pyplot as plt
    ns = [n for n in smallest if np.any(smallest[n] >= 0)]
    cols = min(3, len(ns))
    rows = -(-len(ns) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 3.7 * rows), squeeze=False,
                             layout="constrained")
    finite = np.concatenate([smallest[n][smallest[n] >= 0] for n in ns]) * unit
    vmax = float(np.percentile(finite, percentile)) if len(finite) else 1.0
    stand_in = np.searchsorted(scores, every, side="right") - 1
    for ax, n in zip(axes.flat, ns):
        values = smallest[n][np.ix_(stand_in, stand_in)].astype(float) * unit
        grid = _score_grid(np.asarray(every), values)
        _mesh(ax, unit, np.where(grid < 0, 1.0, np.nan), vmin=0, vmax=1, cmap="Greys",
              alpha=0.35)
        im = _mesh(ax, unit, np.where(grid >= 0, grid, np.nan), vmin=0, vmax=vmax,
                   cmap="viridis")
        ax.set_title(f"{n} {'die' if n == 1 else 'dice'} in hand", fontsize=9)
    for ax in list(axes.flat)[len(ns):]:
        ax.axis("off")
    fig.colorbar(im, ax=axes, shrink=0.8, label="smallest turn total banked (points)")
    fig.suptitle(label, fontsize=10)
    return figs.save(fig, f"bank-map-{key}",
                     f"{label}: the smallest turn total at which optimal play banks, against "
                     "both scores, one panel per number of dice in hand (grey: never banks "
                     "with that many dice; blank: scores that cannot occur; the colour scale "
                     f"stops at the {percentile}th percentile{note}).")


def house_rules(figs: Figures, rows: list) -> str:
    """``rows``: (label, change in percentage points, text printed)."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.0, 0.42 * len(rows) + 1.0), layout="constrained")
    deltas = [d for _, d, _ in rows]
    ax.barh(range(len(rows)), deltas, color=["C3" if d < 0 else "C0" for d in deltas])
    span = max(abs(d) for d in deltas) if deltas else 1.0
    for i, (_, d, text) in enumerate(rows):
        ax.text(d + (0.02 if d >= 0 else -0.02) * span, i, text, va="center",
                ha="left" if d >= 0 else "right", fontsize=7)
    ax.set_yticks(range(len(rows)), [label for label, _, _ in rows], fontsize=7)
    ax.set_xlim(-1.35 * span, 1.35 * span)
    ax.invert_yaxis()
    ax.axvline(0, color="k", linewidth=0.7)
    ax.set_xlabel("change of the first player's win probability (percentage points)")
    return figs.save(fig, "house-rules",
                     "What a house rule is worth to the first player: the change of the first "
                     "player's win probability against the game as played, each variant solved "
                     "exactly at the game's own target (labels: the change in percentage "
                     "points).")
