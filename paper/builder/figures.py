"""The paper's figures, drawn from what :mod:`solver.study.analysis` computed.

Each public function draws one figure, saves it under ``paper/figures/`` and
returns the Markdown that shows it with its caption. It first keeps the
figure's inputs, plain arrays and a few labels, in
``paper/cache/figures/NAME.npz``; so a figure can be redrawn from them
without the build, which takes many minutes and gigabytes to solve,
replay and simulate:

    python -m paper.builder.figures                   # every figure kept
    python -m paper.builder.figures win-probability   # these ones
    python -m paper.builder.figures --list            # what is kept

Drawing goes through :func:`render` alone, in the build and in a redraw
alike, so that the two give the same picture; how each kind of figure is
drawn from its inputs is :mod:`paper.builder.drawing`'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from paper.builder.drawing import DPI, DRAW, STYLE, has_entry

ROOT = Path(__file__).resolve().parents[2]
INPUTS = Path("cache") / "figures"
"""Where, under the build's output directory, a figure's inputs are kept."""


class Figures:
    """Figure numbers and files."""

    def __init__(self, out: Path):
        self.dir = out / "figures"
        self.inputs = out / INPUTS
        self.count = 0
        self.dir.mkdir(parents=True, exist_ok=True)
        import matplotlib
        matplotlib.use("Agg")

    def markdown(self, name: str, caption: str) -> str:
        self.count += 1
        label = f"Figure {self.count}"
        # The alt text is the label alone: the caption follows once.
        return f"![{label}](figures/{name}.png)\n\n*{label}. {caption}*\n"

    def save(self, fig, name: str, caption: str) -> str:
        """A figure drawn elsewhere: saved as it is (no inputs kept)."""
        import matplotlib.pyplot as plt
        fig.savefig(self.dir / f"{name}.png", dpi=DPI, bbox_inches="tight")
        plt.close(fig)
        return self.markdown(name, caption)

    def draw(self, kind: str, name: str, meta: dict, arrays: dict, caption: str) -> str:
        """Keep the inputs of figure ``name``, draw it, return its Markdown."""
        keep(self.inputs / f"{name}.npz", kind, meta, arrays)
        render(kind, meta, arrays, self.dir / f"{name}.png")
        return self.markdown(name, caption)


# ------------------------------------------------------------------ inputs

def keep(path: Path, kind: str, meta: dict, arrays: dict) -> None:
    """Arrays as they are, ``kind`` and ``meta`` (JSON) beside them: an
    ``.npz`` that loads without pickle."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, _kind=np.array(kind), _meta=np.array(json.dumps(meta)),
                        **{k: np.asarray(v) for k, v in arrays.items()})
    tmp.replace(path)


def load(path: Path) -> tuple[str, dict, dict]:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files if not k.startswith("_")}
        return str(data["_kind"]), json.loads(str(data["_meta"])), arrays


def render(kind: str, meta: dict, arrays: dict, png: Path) -> None:
    import matplotlib.pyplot as plt
    with plt.rc_context(STYLE):
        fig = DRAW[kind](meta, arrays)
        png.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(png, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


# ---------------------------------------------------------------- figures

def win_map(figs: Figures, games: list) -> str:
    """``games``: (label, unit, scores, W) with ``W[i, j]`` the mover at
    ``scores[i]`` against ``scores[j]``."""
    meta = {"games": [{"label": label, "unit": int(unit)} for label, unit, _, _ in games]}
    arrays = {}
    for k, (_, _, scores, W) in enumerate(games):
        arrays[f"scores_{k}"], arrays[f"W_{k}"] = np.asarray(scores), np.asarray(W)
    return figs.draw("win_map", "win-probability", meta, arrays,
                     "The chance that the player about to start a turn wins, against both "
                     "scores (no crosses; blank: scores between 0 and the entry); contours "
                     "at one quarter, one half and three quarters.")


def decision_intervals(figs: Figures, label: str, unit: int, situations, xlabel: str,
                       ylabel: str, dice_counts, name: str, caption: str) -> str:
    """One colour per score situation; per number of dice a vertical bar
    for each interval of totals where the answer is yes (a dot for a single
    total), and a cross at 0 where it is never yes."""
    meta = {"label": label, "unit": int(unit), "xlabel": xlabel, "ylabel": ylabel,
            "dice": [int(n) for n in dice_counts],
            "situations": [
                {"name": sit, "me": int(me), "opp": int(opp),
                 "rules": {str(n): {"top": None if r.top is None else int(r.top),
                                    "intervals": [[int(lo), int(hi)] for lo, hi in r.intervals]}
                           for n, r in rules.items()}}
                for sit, me, opp, rules in situations]}
    return figs.draw("decision_intervals", name, meta, {}, caption)


def bank_map(figs: Figures, key: str, label: str, unit: int, scores, smallest, every,
             note: str, percentile: int = 99, brief: bool = False) -> str:
    """``smallest[n][i, j]``: the smallest total banked (units, -1 never)
    with ``n`` dice, mover at ``scores[i]``, opponent at ``scores[j]``;
    ``scores`` are every k-th of ``every``, the scores a player can hold,
    and each of these is drawn with the value of the sample at or below it.
    ``brief``: the caption refers to the first such map's key."""
    ns = [int(n) for n in smallest if np.any(smallest[n] >= 0)]
    without = (", the row of a mover at 0 left out" if has_entry(np.asarray(every)) else "")
    meta = {"label": label, "unit": int(unit), "dice": ns, "percentile": percentile}
    arrays = {"scores": np.asarray(scores), "every": np.asarray(every),
              **{f"smallest_{n}": np.asarray(smallest[n]) for n in ns}}
    caption = (f"{label}: the smallest turn total banked, drawn as in the first such map"
               f"{f' ({note[2:]})' if note else ''}." if brief else
               f"{label}: the smallest turn total banked, against both scores, a panel "
               "per number of dice in hand (grey: never; blank: scores that cannot "
               "occur; each panel's colour scale to its "
               f"{percentile}th percentile{without}{note}).")
    return figs.draw("bank_map", f"bank-map-{key}", meta, arrays, caption)


def house_rules(figs: Figures, rows: list) -> str:
    """``rows``: (label, change in percentage points, text printed)."""
    meta = {"rows": [[label, float(d), text] for label, d, text in rows]}
    return figs.draw("house_rules", "house-rules", meta, {},
                     "What a house rule is worth to the first player: the change of the first "
                     "player's win probability against the game as played, each variant solved "
                     "at the game's own target (labels: the change in percentage points).")


def card_departures(figs: Figures, panels: list, caption: str, vmax: float = 0.5) -> str:
    """``panels``: (label, unit, scores, sample, share) per card, ``share[i,
    j]`` the share of decisions that differ with the card player at
    ``sample[i]`` and the opponent at ``sample[j]`` (units; NaN: none
    asked); each of ``scores`` is drawn with the sample at or below it."""
    meta = {"panels": [{"label": label, "unit": int(unit)} for label, unit, *_ in panels],
            "vmax": vmax}
    arrays = {}
    for k, (_, _, scores, sample, share) in enumerate(panels):
        arrays[f"scores_{k}"], arrays[f"sample_{k}"] = np.asarray(scores), np.asarray(sample)
        arrays[f"share_{k}"] = np.asarray(share)
    return figs.draw("card_departures", "card-departures", meta, arrays, caption)


# ----------------------------------------------------------------- redraw

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m paper.builder.figures",
        description="Redraw the paper's figures from the inputs the last build kept "
                    f"(OUT/{INPUTS}/NAME.npz) into OUT/figures/NAME.png.")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="figures to redraw, e.g. win-probability (default: every one kept)")
    parser.add_argument("--out", type=Path, default=ROOT / "paper",
                        help="the build's output directory (default: paper/)")
    parser.add_argument("--list", action="store_true", help="list the kept inputs, draw nothing")
    args = parser.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    kept = {path.stem: path for path in sorted((args.out / INPUTS).glob("*.npz"))}
    unknown = [name for name in args.names if name not in kept]
    if unknown or not kept:
        print(f"no inputs kept for {', '.join(unknown) or 'any figure'} in {args.out / INPUTS}: "
              "build the paper (python -m paper.builder) first", file=sys.stderr)
        return 2
    for name in args.names or kept:
        kind, meta, arrays = load(kept[name])
        if args.list:
            print(f"{name:32} {kind}")
            continue
        png = args.out / "figures" / f"{name}.png"
        render(kind, meta, arrays, png)
        print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
