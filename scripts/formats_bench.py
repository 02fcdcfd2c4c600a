#!/usr/bin/env python3
"""Ranking quality of the Swiss and knockout formats against a long round robin (issue 26).

A field of N engines at graded strengths (alphabeta at depths 1-5, mcts at 1000 and 2000
playouts, greedy, random; several copies of a strength when N needs them) in a shuffled config
order (so the seeded order knows nothing of the strengths) plays, on Awale 6 with random
openings:
  - a round robin of RR_ROUNDS game pairs per engine pair: its Elo ranking is the true order;
  - per seed, a Swiss of 5, 7 and 9 rounds (one run extended round by round: raising `rounds`
    appends) and a knockout (1 game pair a match, up to 3 tie-break pairs).
For each, the games played, Spearman's rho between its final order and the round robin's
(ranks averaged over ties, for a knockout's engines out in the same round), and how often an
engine of the strongest class finishes first. Prints a Markdown section; with --write, puts it
in BENCHMARKS.md (replacing an earlier one).

Usage: scripts/formats_bench.py [--sizes 16,32] [--seeds 3] [--rr-rounds 2] [--write]
Needs `cargo build --release -p arena -p arena-engines --bins`.
"""

import argparse
import csv
import math
import os
import random
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release")
TITLE = "## Swiss and knockout: ranking quality against a round robin (issue 26)"
# Strongest first: (class name, binary, time control depth).
CLASSES = [
    ("ab5", "alphabeta", 5),
    ("ab4", "alphabeta", 4),
    ("ab3", "alphabeta", 3),
    ("ab2", "alphabeta", 2),
    ("mcts2k", "mcts", 2),
    ("ab1", "alphabeta", 1),
    ("mcts1k", "mcts", 1),
    ("greedy", "greedy", 1),
    ("random", "random", 1),
]


def field(n):
    """N engines: class c gets the engines i with floor(i * classes / n) == c."""
    engines = []
    for i in range(n):
        name, binary, depth = CLASSES[i * len(CLASSES) // n]
        engines.append(("%s_%d" % (name, i), binary, depth, name))
    return engines


def write_config(path, out, engines, seed, format_lines, rounds=None):
    lines = [
        "seed: %d" % seed,
        "concurrency: %d" % CONCURRENCY,
        "time_control: { depth: 1 }",
        "boards:",
        "  - { game: awale, pits: 6, random_opening_plies: 4 }",
    ]
    lines += format_lines
    if rounds is not None:
        lines.append("rounds: %d" % rounds)
    lines.append("engines:")
    for name, binary, depth, _ in engines:
        lines.append(
            "  - { name: %s, command: %s, time_control: { depth: %d } }"
            % (name, os.path.join(BIN, binary), depth)
        )
    lines.append("output: %s" % out)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run(config):
    subprocess.run([os.path.join(BIN, "arena"), "run", "-q", config], check=True,
                   stdout=subprocess.DEVNULL)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def games(out):
    return len(rows(os.path.join(out, "games.csv")))


def ranks(order_groups, names):
    """Average ranks (1 = best) from groups of tied names, best group first."""
    rank, at = {}, 1
    for group in order_groups:
        mean = at + (len(group) - 1) / 2
        for name in group:
            rank[name] = mean
        at += len(group)
    return [rank[n] for n in names]


def spearman(x, y):
    """Pearson correlation of two rank lists (Spearman's rho with ties averaged)."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y))
    vx = math.sqrt(sum((a - mx) ** 2 for a in x))
    vy = math.sqrt(sum((b - my) ** 2 for b in y))
    return cov / (vx * vy)


def knockout_groups(out):
    """Knockout order: champion, then by the round lost in (later first), ties grouped."""
    lost, last = {}, 0
    for r in rows(os.path.join(out, "knockout.csv")):
        rnd = int(r["round"])
        last = max(last, rnd)
        for side in ("engine_a", "engine_b"):
            if r[side]:
                lost[r[side]] = rnd if r[side] != r["winner"] else rnd + 1
    by = {}
    for name, rnd in lost.items():
        by.setdefault(rnd, []).append(name)
    return [by[k] for k in sorted(by, reverse=True)]


def measure(n, seeds, rr_rounds):
    engines = field(n)
    names = [e[0] for e in engines]
    klass = {e[0]: e[3] for e in engines}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        rr_out = os.path.join(tmp, "rr")
        cfg = os.path.join(tmp, "rr.yaml")
        write_config(cfg, rr_out, engines, 1, [], rounds=rr_rounds)
        start = time.monotonic()
        run(cfg)
        rr_wall = time.monotonic() - start
        rr_games = games(rr_out)
        truth_rows = [r for r in rows(os.path.join(rr_out, "ratings.csv")) if r["scope"] == "all"]
        truth_rows.sort(key=lambda r: int(r["rank"]))
        truth = ranks([[r["engine"]] for r in truth_rows], names)
        # The strongest class: the highest mean Elo in the round robin (not assumed).
        elos = {}
        for r in truth_rows:
            elos.setdefault(klass[r["engine"]], []).append(float(r["elo"]))
        top_class = max(elos, key=lambda c: sum(elos[c]) / len(elos[c]))
        for seed in range(1, seeds + 1):
            shuffled = engines[:]
            random.Random(seed).shuffle(shuffled)
            out = os.path.join(tmp, "swiss%d" % seed)
            cfg = os.path.join(tmp, "swiss%d.yaml" % seed)
            for rounds in (5, 7, 9):
                write_config(cfg, out, shuffled, seed, ["format: swiss"], rounds=rounds)
                run(cfg)
                table = rows(os.path.join(out, "swiss_standings.csv"))
                got = ranks([[r["engine"]] for r in table], names)
                results.setdefault("swiss %d rounds" % rounds, []).append(
                    (games(out), spearman(truth, got), klass[table[0]["engine"]] == top_class)
                )
            out = os.path.join(tmp, "ko%d" % seed)
            cfg = os.path.join(tmp, "ko%d.yaml" % seed)
            write_config(cfg, out, shuffled, seed, ["format: knockout"])
            run(cfg)
            groups = knockout_groups(out)
            got = ranks(groups, names)
            results.setdefault("knockout", []).append(
                (games(out), spearman(truth, got), klass[groups[0][0]] == top_class)
            )
    return rr_games, rr_wall, results, top_class


def main():
    global CONCURRENCY
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,32")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rr-rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    CONCURRENCY = args.concurrency
    lines = [
        TITLE,
        "",
        "Measured by `scripts/formats_bench.py --sizes %s --seeds %d --rr-rounds %d` (%s). "
        "Fields of graded strengths (%s; copies of a strength where N needs them), in a "
        "shuffled config order per seed, on Awale 6 with 4 random opening plies. True order: "
        "the Elo ranking of a round robin of %d game pairs per engine pair. rho: Spearman "
        "correlation with it (a knockout's engines out in the same round share their rank); "
        "top first: how often an engine of the strongest class (highest mean Elo in the round robin) finishes first. Mean over "
        "%d seeds (min-max of rho in brackets)."
        % (args.sizes, args.seeds, args.rr_rounds, time.strftime("%Y-%m-%d"),
           ", ".join(c[0] for c in CLASSES), args.rr_rounds, args.seeds),
        "",
        "| N | format | games | % of the round robin's | rho | top first |",
        "|---|---|---|---|---|---|",
    ]
    for n in [int(s) for s in args.sizes.split(",")]:
        rr_games, rr_wall, results, top = measure(n, args.seeds, args.rr_rounds)
        lines.append(
            "| %d | round robin ×%d (strongest class: %s) | %d | 100%% | 1 | – |"
            % (n, args.rr_rounds, top, rr_games)
        )
        for label, runs in results.items():
            mean_games = sum(r[0] for r in runs) / len(runs)
            rhos = [r[1] for r in runs]
            lines.append(
                "| %d | %s | %.0f | %.1f%% | %.3f (%.3f–%.3f) | %d/%d |"
                % (n, label, mean_games, 100 * mean_games / rr_games, sum(rhos) / len(rhos),
                   min(rhos), max(rhos), sum(r[2] for r in runs), len(runs))
            )
        print("\n".join(lines), flush=True)
    section = "\n".join(lines) + "\n"
    print(section)
    if args.write:
        path = os.path.join(ROOT, "BENCHMARKS.md")
        text = open(path).read()
        if TITLE in text:
            before, rest = text.split(TITLE, 1)
            after = rest.split("\n## ", 1)
            text = before + section + ("\n## " + after[1] if len(after) > 1 else "")
        else:
            text = text.rstrip("\n") + "\n\n" + section
        open(path, "w").write(text)


if __name__ == "__main__":
    main()
