"""The paper's part on fair starts, from ``paper/fair_start.json`` (what
``scripts/measure_fair_start.py`` measured: each game solved with the
second seat's rules changed, :mod:`solver.study.fair_start`)."""

from __future__ import annotations

from paper.builder.format import table
from solver.study.fair_start_survey import nearest_half

MECHANISMS = {"second_entry": "the second player enters lower",
              "first_bank_bonus": "a head start counted once entered",
              "last_turn": "the second player's last turn"}


def fair_start_text(N, tabs, data: dict | None, labels: dict[str, str]) -> str:
    if not data:
        return ("`paper/fair_start.json` is missing: run `python scripts/measure_fair_start.py`, "
                "then rebuild.")
    def name(r):
        """The table's label, or the game searched without its crosses."""
        if r.get("without_crosses"):
            return r["game"] + " (without crosses)"
        return labels.get(r["game"], r["game"])
    rows = []
    for r in data["games"]:
        key = f"fair/{r['game']}"
        cells = [name(r)]
        for field, kind in (("second_entry", "pts"), ("first_bank_bonus", "pts")):
            if field not in r:
                cells.append("none")
                continue
            value = r[field]["best"]
            share = r[field]["shares"][str(value)]
            cells.append(f"{N(f'{key}/{field}', value, kind)}: "
                         f"{N(f'{key}/{field}/share', share, 'p4')}")
        cells.append(N(f"{key}/last_turn", r["last_turn"], "p4"))
        mechanism, value, share = nearest_half(r)
        cells.append(MECHANISMS[mechanism])
        rows.append(cells)
    ref = tabs.peek()
    caption = tabs.caption(
        "The first player's share (wins plus half the draws) under each fair start, with the "
        "second player's entry and first-bank bonus (points) nearest one half, and the "
        "mechanism nearest one half, each game solved as its table is.")
    lead = (
        "A table can give the second player something other than points. Three changes to "
        "the second seat's rules were solved: a lower entry; a first bank that counts a few "
        "points more (a head start counted once entered); or one last turn once the first "
        "player reaches the target, where passing wins and equalling draws (half a win "
        f"each). {ref} gives the first player's share under each, in steps of the unit.")
    crossed = [r for r in data["games"] if r.get("with_crosses")]
    for r in crossed:
        model = r["with_crosses"]
        what = MECHANISMS[model["mechanism"]] + (
            "" if model["value"] is None else
            " (" + N(f"fair/{r['game']}/{model['mechanism']}", model["value"], "pts") + ")")
        lead += (f" {r['game']} was searched without its crosses (a solve of two seats with "
                 "the memory model takes much longer than one without); with the memory "
                 f"model only {what} was solved: it gives the first player "
                 + N(f"fair/{r['game']}/with_crosses", model["share"], "p4") + ".")

    over = [r for r in data["games"]
            if r["last_turn"] < 0.5 and nearest_half(r)[0] != "last_turn"]
    comment = []
    if over:
        low = min(r["last_turn"] for r in over)
        comment.append(
            "The last turn turns the advantage round in " + ", ".join(name(r) for r in over)
            + " (the first player's share falls as low as "
            + N("fair/last_turn/lowest", low, "p4") + "): the second player gains more than "
            "moving first was worth.")
    worst_bonus = max(abs(r["first_bank_bonus"]["shares"][str(r["first_bank_bonus"]["best"])]
                          - 0.5) for r in data["games"])
    comment.append(
        "A bonus on the second player's first bank, one number on the score sheet, brings "
        "every game within " + N("fair/bonus/worst", worst_bonus, "p4") + " of one half at "
        "the step of the unit.")
    short = [r for r in data["games"] if "second_entry" in r
             and r["second_entry"]["best"] == r["unit"]
             and r["second_entry"]["shares"][str(r["unit"])] > 0.5]
    if short:
        comment.append(
            "A lower entry is not enough in " + ", ".join(name(r) for r in short)
            + ": even an entry of one unit leaves the first player ahead.")
    return (lead + "\n\n" + table(
        ["game", "second entry: share", "first-bank bonus: share", "last turn",
         "nearest one half"],
        rows, "lrrrl") + "\n\n" + caption + "\n\n" + " ".join(comment))
