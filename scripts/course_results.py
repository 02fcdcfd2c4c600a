#!/usr/bin/env python3
"""Rewrites the measured tables of docs/course-results.md from arena's output directories.

Usage: course_results.py PAGE RESULTS_DIR

Reads RESULTS_DIR/<config>/pairs.csv (scope `all`) for every configs/course/<config>.yaml and
RESULTS_DIR/sweep-<size>/pairs.csv for the board-size sweep, and replaces the text between the
`<!-- table:begin -->`/`<!-- table:end -->` and `<!-- sweep:begin -->`/`<!-- sweep:end -->`
markers of PAGE (and `switch` for RESULTS_DIR/switch-<percent>); then every figure the prose
quotes, each written between `<!-- v:NAME -->` and `<!-- /v -->` (NAME a key of `figures`), so
the prose stays true with the tables. Standard library only.
"""

import csv
import math
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

# (config, published figure, published points of the first engine, published games)
# A published pair of numbers sums to the games played, as points do when a draw gives each side
# half: a figure is compared with arena's points (wins + draws/2), not its wins (see the page).
ROWS = [
    ("greedy_vs_random_available", "greedy 95,543 – random-available 4,457 (100,000 games, random boards)", 95543, 100000),
    ("greedy_vs_random_available_diagonal", "greedy 50,038 – random-available 49,962 (100,000 games, anti-diagonal board); 48–52 over 100", 50038, 100000),
    ("hybrid_vs_greedy", "hybrid 67 – greedy 33 (100 games)", 67, 100),
    ("hybrid_vs_hegemonic", "hybrid 72 – hegemonic 28 (100 games)", 72, 100),
    ("random_vs_random_available", "no figure", None, None),
    ("hegemonic_vs_greedy", "no figure", None, None),
    ("foresight_vs_greedy", "no figure", None, None),
]

SWEEP_SIZES = [8, 9, 10, 11, 12, 13]


def pair_row(directory):
    """The `all` row of DIR/pairs.csv as a dict, or None when the run is missing."""
    path = Path(directory) / "pairs.csv"
    if not path.exists():
        return None
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            if row["scope"] == "all":
                return row
    return None


def percent(part, whole, digits=2):
    """100 * part / whole, exact from the counts and rounded half up as a reader would
    (50.95 → 51.0, where a float prints 50.9), without the % sign."""
    value = Decimal(100 * part) / Decimal(whole)
    return str(value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def points_percent(row, digits=2):
    """The first engine's points (a draw is half) as a percentage of the games."""
    twice = 2 * int(row["wins_a"]) + int(row["draws"])
    return percent(twice, 2 * int(row["games"]), digits)


def score_of_elo(elo):
    return 100.0 / (1.0 + 10.0 ** (-elo / 400.0))


def fmt_elo(row):
    if not row["elo_diff"]:
        return "unbounded"
    low = row["ci_low"] or "−∞"
    high = row["ci_high"] or "+∞"
    return f"{float(row['elo_diff']):+.1f} [{low}, {high}]"


def fmt_score(row):
    """Score (%) with the 95% interval mapped from the Elo interval (pentanomial)."""
    score = points_percent(row)
    if row["ci_low"] and row["ci_high"]:
        low = score_of_elo(float(row["ci_low"]))
        high = score_of_elo(float(row["ci_high"]))
        return f"{score}% [{low:.2f}, {high:.2f}]"
    return f"{score}%"


def points(row):
    """The first engine's points per game (0..1) and their per-game variance (trinomial)."""
    n = int(row["games"])
    wins, draws = int(row["wins_a"]), int(row["draws"])
    mean = (wins + draws / 2) / n
    return mean, (wins + draws / 4) / n - mean * mean


def agreement(row, published, games):
    """Two-sample z-test of arena's points per game against the published share (5% level);
    the published figure's variance is binomial, as it gives no draws."""
    if published is None:
        return "—"
    n = int(row["games"])
    p_arena, var_arena = points(row)
    p_pub = published / games
    se = math.sqrt(var_arena / n + p_pub * (1 - p_pub) / games)
    z = (p_arena - p_pub) / se
    verdict = "yes" if abs(z) < 1.96 else "**no**"
    return f"{verdict}: {points_percent(row)}% vs {percent(published, games)}% (z = {z:+.2f})"


def table(results):
    lines = [
        "| figure as published | config | arena: W-D-L (first engine) | score, 95% interval | Elo difference, 95% interval | agrees? |",
        "|---|---|---|---|---|---|",
    ]
    for config, figure, wins, games in ROWS:
        row = pair_row(results / config)
        link = f"[{config}](../configs/course/{config}.yaml)"
        if row is None:
            lines.append(f"| {figure} | {link} | not run | | | |")
            continue
        wdl = f"{int(row['wins_a']):,}-{int(row['draws']):,}-{int(row['losses_a']):,} ({row['engine_a']} vs {row['engine_b']}, {int(row['games']):,} games)"
        lines.append(
            f"| {figure} | {link} | {wdl} | {fmt_score(row)} | {fmt_elo(row)} | {agreement(row, wins, games)} |"
        )
    return "\n".join(lines)


def sweep(results):
    lines = [
        "| size | games | greedy W-D-L | greedy wins | greedy points |",
        "|---|---|---|---|---|",
    ]
    for size in SWEEP_SIZES:
        row = pair_row(results / f"sweep-{size}")
        if row is None:
            lines.append(f"| {size}×{size} | not run | | | |")
            continue
        n = int(row["games"])
        wins = int(row["wins_a"])
        lines.append(
            f"| {size}×{size} | {n:,} | {wins:,}-{int(row['draws']):,}-{int(row['losses_a']):,} | {percent(wins, n)}% | {points_percent(row)}% |"
        )
    return "\n".join(lines)


SWITCH_PERCENTS = [50, 70, 80, 85, 90, 95]


def switch(results):
    lines = [
        "| hybrid switches to greedy below | games | hybrid W-D-L | hybrid points, 95% interval |",
        "|---|---|---|---|",
    ]
    for percent in SWITCH_PERCENTS:
        row = pair_row(results / f"switch-{percent}")
        label = f"{percent}% neutral" + (" (default)" if percent == 85 else "")
        if row is None:
            lines.append(f"| {label} | not run | | |")
            continue
        lines.append(
            f"| {label} | {int(row['games']):,} | {int(row['wins_a']):,}-{int(row['draws']):,}-{int(row['losses_a']):,} | {fmt_score(row)} |"
        )
    return "\n".join(lines)


def replace(text, marker, body):
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def z_of(row, published, games, wins_only=False):
    """The z of arena's points (or wins alone) per game against a published share."""
    n = int(row["games"])
    if wins_only:
        p = int(row["wins_a"]) / n
        var = p * (1 - p)
    else:
        p, var = points(row)
    p_pub = published / games
    return (p - p_pub) / math.sqrt(var / n + p_pub * (1 - p_pub) / games)


def figures(results):
    """Every figure the prose quotes, by name, from the same runs as the tables."""
    run = {config: pair_row(results / config) for config, *_ in ROWS}
    size = {n: pair_row(results / f"sweep-{n}") for n in SWEEP_SIZES}
    switch_at = {p: pair_row(results / f"switch-{p}") for p in SWITCH_PERCENTS}
    out = {}

    def put(name, row, text):
        if row is not None:
            out[name] = text(row)

    def pct(digits):
        return lambda row: f"{points_percent(row, digits)}%"

    def elo(digits):
        return lambda row: f"{float(row['elo_diff']):+.{digits}f}".replace("-", "−")

    def bound(key):
        return lambda row: f"{float(row[key]):.0f}".replace("-", "−")

    for config, *_ in ROWS:
        row = run[config]
        short = config.replace("_vs_", "-").replace("_", "-")
        for d in (1, 2):
            put(f"{short}.points{d}", row, pct(d))
        for d in (0, 1):
            put(f"{short}.elo{d}", row, elo(d))
        put(f"{short}.low", row, bound("ci_low"))
        put(f"{short}.high", row, bound("ci_high"))
        put(f"{short}.wins-losses", row, lambda r: f"{int(r['wins_a']):,}–{int(r['losses_a']):,}")
        put(f"{short}.draws", row, lambda r: f"{int(r['draws']):,}")
        put(f"{short}.wins-pct", row, lambda r: f"{percent(int(r['wins_a']), int(r['games']))}%")
    for n, row in size.items():
        put(f"sweep-{n}.points1", row, pct(1))
        put(f"sweep-{n}.points2", row, pct(2))
    for p, row in switch_at.items():
        put(f"switch-{p}.points1", row, pct(1))
    gvra = run["greedy_vs_random_available"]
    if gvra is not None:
        published, games = 95543, 100000
        out["greedy-random-available.z-wins"] = f"{abs(z_of(gvra, published, games, True)):.1f}"
        out["greedy-random-available.z-points"] = f"{abs(z_of(gvra, published, games)):.2f}"
    return out


def fill(text, values):
    """Rewrites each `<!-- v:NAME -->…<!-- /v -->` with its value; a name without a value (a run
    not made) keeps its text."""
    return re.sub(
        r"<!-- v:([\w.-]+) -->(.*?)<!-- /v -->",
        lambda m: f"<!-- v:{m[1]} -->{values.get(m[1], m[2])}<!-- /v -->",
        text,
    )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    page, results = Path(sys.argv[1]), Path(sys.argv[2])
    text = page.read_text()
    text = replace(text, "table", table(results))
    text = replace(text, "sweep", sweep(results))
    text = replace(text, "switch", switch(results))
    text = fill(text, figures(results))
    page.write_text(text)


if __name__ == "__main__":
    main()
