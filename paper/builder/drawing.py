"""How each kind of the paper's figures is drawn from its kept inputs
(:mod:`paper.builder.figures` keeps them and calls :data:`DRAW` through its
``render``): matplotlib alone, no solver.

Score axes run over the scores a player can hold (in points), so they end
where the scores end (a capped game stops at its cap); scores that cannot
occur (between 0 and the entry) are left blank and no contour is drawn
across them. A figure is drawn about as wide as the page shows it
(:data:`WIDTH`), so that its text prints near the sizes of :data:`STYLE`.
"""

from __future__ import annotations

import numpy as np

from paper.builder.format import points

WIDTH = 7.5
"""Inches of a full-width figure: a little over an A4 page's text width
(about 6.3 inches), so that the PDF shrinks it little and the fonts of
STYLE print at 7 points or more."""
PANEL = 2.6
"""Inches of a score map's panel at most (the square inside its axes)."""
TICKS = 0.5
"""Inches beside a score map's panel for its tick labels (and below it for
its title and tick labels)."""
DPI = 150
STYLE = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "xtick.labelsize": 8,
         "ytick.labelsize": 8, "legend.fontsize": 8, "figure.titlesize": 10,
         "figure.labelsize": 9}
ROUND_STEPS = [1, 2, 2.5, 5, 10]
"""Tick steps (times a power of ten): ticks at round points only."""
WIN_LEVELS = (0.25, 0.5, 0.75)
LABEL_AT = 0.45
"""Where along the diagonal the win map's contours are labelled (as a
share of the axis): in the middle, where the contours lie apart; they
bunch up near the end of the game."""
LABEL_MARGIN = (0.06, 0.85)
"""Contour labels stay within this share of each axis (not in the blank
band below the entry, nor in the top right corner)."""


def _thousands(ax, axes="xy", bins=4):
    """At most ``bins`` intervals, at round points, printed as points."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    for which in axes:
        axis = ax.xaxis if which == "x" else ax.yaxis
        axis.set_major_locator(MaxNLocator(bins, steps=ROUND_STEPS, integer=True))
        axis.set_major_formatter(FuncFormatter(lambda v, _: points(v)))


def _score_grid(scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` over ``scores`` (units) spread on every unit score up to
    the largest, NaN between (scores that cannot occur)."""
    size = int(scores[-1]) + 1
    grid = np.full((size, size), np.nan)
    grid[np.ix_(scores, scores)] = values
    return grid


def _mesh(ax, unit: int, grid: np.ndarray, **kw):
    """``grid`` (mover's score down the rows) over both scores; the axis
    labels are the figure's (:func:`_score_labels`)."""
    edges = (np.arange(grid.shape[0] + 1) - 0.5) * unit
    im = ax.pcolormesh(edges, edges, np.ma.masked_invalid(grid), **kw)
    ax.set_aspect("equal")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(edges[0], edges[-1])
    _thousands(ax)
    return im


def _score_labels(fig, mover: str = "mover's score") -> None:
    """One axis label a side for all panels: each panel keeps its ticks
    (the targets differ), the words need not be repeated."""
    fig.supxlabel("opponent's score")
    fig.supylabel(mover)


def _title(ax, label: str) -> None:
    """A panel's title: a long one (a model named after the game) on two
    lines, not over the next panel's."""
    ax.set_title(label.replace(" (", "\n(") if len(label) > 26 else label)


def _grid(n: int, most: int = 3):
    """Rows and columns of ``n`` square panels: at most ``most`` a row, and
    four as two by two rather than three and one."""
    cols = 2 if n == 4 else min(most, n)
    return -(-n // cols), cols


def _map_size(rows: int, cols: int, aside: float = 0.0, below: float = 0.0):
    """Width and height of ``rows`` by ``cols`` square panels each with
    ``aside`` inches at its side (a colour bar, tick labels) besides
    TICKS, and ``below`` inches of colour bar under or over all of them:
    as wide as WIDTH allows and no taller than the panels need, so that no
    gap opens between the rows."""
    room = TICKS + aside
    width = min(WIDTH, cols * (PANEL + room) + 0.3)        # 0.3: the figure's y label
    side = (width - 0.3) / cols - room
    return width, rows * (side + TICKS) + 0.35 + below


def _spare_colour_bar(fig, im, axes, n: int, label: str, ticks=None):
    """A colour bar for every panel: lying in the empty slots of the last
    row when there are two or more, else standing at the right."""
    spare = list(axes.flat)[n:]
    if len(spare) >= 2:
        # One slot over the empty ones, the bar lying in its middle.
        spec = spare[0].get_subplotspec()
        row, first = spec.rowspan.start, spec.colspan.start
        for ax in spare:
            ax.remove()
        holder = fig.add_subplot(spec.get_gridspec()[row, first:])
        holder.axis("off")
        cax = holder.inset_axes([0.1, 0.5, 0.8, 0.07])
        bar = fig.colorbar(im, cax=cax, orientation="horizontal", ticks=ticks)
        bar.set_label(label)
        return bar
    for ax in spare:
        ax.axis("off")
    bar = fig.colorbar(im, ax=[ax for ax in axes.flat if ax.axison], shrink=0.6, aspect=30,
                       ticks=ticks)
    bar.set_label(label)
    return bar


# ---------------------------------------------------------------- win map

def _draw_win_map(meta: dict, arrays: dict):
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
    games = meta["games"]
    rows, cols = _grid(len(games))
    spare = rows * cols - len(games) >= 2
    fig, axes = plt.subplots(rows, cols, figsize=_map_size(rows, cols, 0 if spare else 0.9 / cols),
                             squeeze=False, layout="constrained")
    contours = []
    for k, (ax, game) in enumerate(zip(axes.flat, games)):
        grid = _score_grid(arrays[f"scores_{k}"], arrays[f"W_{k}"])
        im = _mesh(ax, game["unit"], grid, vmin=0, vmax=1, cmap="RdBu_r")
        # Contours only inside the scores that occur: the masked band between
        # 0 and the entry cuts them, instead of a line drawn across it.
        xs = np.arange(grid.shape[0]) * game["unit"]
        cs = ax.contour(xs, xs, np.ma.masked_invalid(grid), levels=list(WIN_LEVELS),
                        colors="k", linewidths=0.7)
        contours.append((ax, cs, xs[-1]))
        _title(ax, game["label"])
    bar = _spare_colour_bar(fig, im, axes, len(games), "probability that the mover wins",
                            ticks=[0, *WIN_LEVELS, 1])
    bar.formatter = FuncFormatter(lambda v, _: f"{v:g}")     # as the contours' labels
    bar.update_ticks()
    _score_labels(fig)
    # Inline labels cut their gap in screen space: place them once the
    # layout has settled the panels' size.
    fig.draw_without_rendering()
    for ax, cs, top in contours:
        _label_contours(ax, cs, top)
    return fig


def _label_contours(ax, cs, top: float) -> None:
    """One label per level, where its contour crosses the anti-diagonal at
    LABEL_AT of the axis (the point nearest it within LABEL_MARGIN): apart
    from each other and from the corners where the contours bunch up."""
    lo, hi = LABEL_MARGIN[0] * top, LABEL_MARGIN[1] * top
    at = []
    for path in cs.get_paths():
        xy = path.vertices
        inside = xy[np.all((xy >= lo) & (xy <= hi), axis=1)]
        if len(inside):
            at.append(tuple(inside[np.argmin(np.abs(inside.sum(axis=1) / 2 - LABEL_AT * top))]))
    if at:
        ax.clabel(cs, manual=at, inline=True, inline_spacing=3, fontsize=7.5,
                  fmt=lambda v: f"{v:g}")


# ---------------------------------------------------- decision intervals

def _draw_decision_intervals(meta: dict, arrays: dict):
    import matplotlib.pyplot as plt
    unit, situations = meta["unit"], meta["situations"]
    # Only the dice where some situation asks the question: a column
    # without any mark says nothing (e.g. all dice in hand, never asked).
    dice = [n for n in meta["dice"]
            if any((s["rules"].get(str(n)) or {}).get("top") is not None for s in situations)]
    fig, ax = plt.subplots(figsize=(WIDTH * 0.8, 3.9), layout="constrained")
    k = len(situations)
    width = min(0.14, 0.8 / max(k, 1))
    for i, sit in enumerate(situations):
        colour = f"C{i}"
        dx = (i - (k - 1) / 2) * width
        # Every situation in the legend, drawn or not.
        ax.plot([], [], "-", color=colour, linewidth=3,
                label=f"{sit['name']}: {points(sit['me'])} vs {points(sit['opp'])}")
        for n in dice:
            rule = sit["rules"].get(str(n))
            if rule is None or rule["top"] is None:
                continue
            if not rule["intervals"]:
                ax.plot(n + dx, 0, "x", color=colour, markersize=7, markeredgewidth=1.5)
                continue
            for lo, hi in rule["intervals"]:
                ax.plot([n + dx, n + dx], [lo * unit, hi * unit], "-", color=colour,
                        linewidth=3, solid_capstyle="butt")
                ax.plot(n + dx, lo * unit, "o", color=colour, markersize=3.5)
    ax.set_xlabel(meta["xlabel"])
    ax.set_ylabel(meta["ylabel"])
    ax.set_xticks(dice)
    if dice:
        ax.set_xlim(dice[0] - 0.5, dice[-1] + 0.5)
    ax.set_ylim(bottom=-0.04 * ax.get_ylim()[1])
    _thousands(ax, "y", bins=8)
    ax.grid(axis="y", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    # Below the plot, not over the bars and not beside them (that would
    # narrow the plot on a full-width page).
    fig.legend(loc="outside lower center", ncols=2 if k > 3 else k, frameon=False,
               handlelength=1.5, columnspacing=1.5)
    ax.set_title(meta["label"])
    return fig


# --------------------------------------------------------------- bank map

def has_entry(every: np.ndarray) -> bool:
    """Whether the scores a player can hold jump from 0 to an entry."""
    return len(every) > 1 and every[1] > every[0] + 1


def _draw_bank_map(meta: dict, arrays: dict):
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator, MultipleLocator
    unit, ns = meta["unit"], meta["dice"]
    rows, cols = _grid(len(ns))
    # Tick labels at the left only (TICKS once a row, not once a panel); a
    # colour bar with its labels (0.75 inches) beside each panel.
    aside = 0.75 - TICKS * (cols - 1) / cols
    fig, axes = plt.subplots(rows, cols, figsize=_map_size(rows, cols, aside, below=0.3),
                             squeeze=False, layout="constrained")
    every = arrays["every"]
    stand_in = np.searchsorted(arrays["scores"], every, side="right") - 1
    entry = has_entry(every)
    for k, (ax, n) in enumerate(zip(axes.flat, ns)):
        values = arrays[f"smallest_{n}"][np.ix_(stand_in, stand_in)].astype(float) * unit
        grid = _score_grid(every, values)
        _mesh(ax, unit, np.where(grid < 0, 1.0, np.nan), vmin=0, vmax=1, cmap="Greys",
              alpha=0.35)
        # Its own scale: the totals with one die and with five lie far
        # apart, and one scale for both leaves the few dice flat. Where the
        # game has an entry, the row of a mover at 0 (who must bank the
        # entry at least) would stretch it as far: it goes past the scale.
        body = grid[1:] if entry else grid
        banked = body[body >= 0] if np.any(body >= 0) else grid[grid >= 0]
        lo = float(banked.min())
        hi = max(float(np.percentile(banked, meta["percentile"])), lo + unit)
        im = _mesh(ax, unit, np.where(grid >= 0, grid, np.nan), vmin=lo, vmax=hi,
                   cmap="viridis")
        # Beside the panel as drawn (square), not beside its grid cell.
        cax = ax.inset_axes([1.04, 0.0, 0.06, 1.0])
        bar = fig.colorbar(im, cax=cax, extend="max" if np.nanmax(grid) > hi else "neither")
        # Ticks at totals a turn can have: every unit when there are few.
        bar.locator = (MultipleLocator(unit) if hi - lo <= 6 * unit else
                       MaxNLocator(6, steps=ROUND_STEPS, integer=True))
        bar.formatter = FuncFormatter(lambda v, _: points(v))
        bar.update_ticks()
        ax.set_title(f"{n} {'die' if n == 1 else 'dice'} in hand")
        # The panels of one game have the same axes: tick labels at the
        # outer edges only leave the room to each panel's colour bar.
        ax.tick_params(labelleft=k % cols == 0, labelbottom=k + cols >= len(ns))
    for ax in list(axes.flat)[len(ns):]:
        ax.axis("off")
    # A gap after each colour bar, so that its labels are not read as the
    # next panel's axis.
    fig.get_layout_engine().set(wspace=0.08)
    _score_labels(fig)
    fig.suptitle(f"{meta['label']}: smallest turn total banked (points)")
    return fig


# ------------------------------------------------------------ house rules

def _draw_house_rules(meta: dict, arrays: dict):
    import matplotlib.pyplot as plt
    rows = meta["rows"]
    fig, ax = plt.subplots(figsize=(WIDTH, 0.3 * len(rows) + 0.9), layout="constrained")
    deltas = [d for _, d, _ in rows]
    ax.barh(range(len(rows)), deltas, height=0.7,
            color=["C3" if d < 0 else "C0" for d in deltas])
    span = max(abs(d) for d in deltas) if deltas else 1.0
    for i, (_, d, text) in enumerate(rows):
        ax.text(d + (0.02 if d >= 0 else -0.02) * span, i, text, va="center",
                ha="left" if d >= 0 else "right", fontsize=8)
    ax.set_yticks(range(len(rows)), [label for label, _, _ in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(-1.3 * span, 1.3 * span)
    ax.axvline(0, color="k", linewidth=0.7)
    ax.grid(axis="x", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel("change of the first player's win probability (percentage points)")
    return fig


# ------------------------------------------------------- card departures

def _draw_card_departures(meta: dict, arrays: dict):
    import matplotlib.pyplot as plt
    panels = meta["panels"]
    rows, cols = _grid(len(panels))
    fig, axes = plt.subplots(rows, cols, figsize=_map_size(rows, cols, below=0.8),
                             squeeze=False, layout="constrained")
    for k, (ax, panel) in enumerate(zip(axes.flat, panels)):
        scores, sample = arrays[f"scores_{k}"], arrays[f"sample_{k}"]
        nearest = np.searchsorted(sample, scores, side="right") - 1
        share = arrays[f"share_{k}"][np.ix_(nearest, nearest)]
        # One scale for all: the same measure, and the cards are compared.
        im = _mesh(ax, panel["unit"], _score_grid(scores, share), vmin=0, vmax=meta["vmax"],
                   cmap="magma_r")
        _title(ax, panel["label"])
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    # Over the panels: all columns are taken, and a bar at the side would
    # narrow them.
    bar = fig.colorbar(im, ax=[ax for ax in axes.flat if ax.axison], location="top",
                       shrink=0.5, aspect=35, pad=0.02)
    bar.set_label("share of decisions that differ")
    _score_labels(fig, "card player's score")
    return fig


DRAW = {"win_map": _draw_win_map, "decision_intervals": _draw_decision_intervals,
        "bank_map": _draw_bank_map, "house_rules": _draw_house_rules,
        "card_departures": _draw_card_departures}
