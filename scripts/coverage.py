#!/usr/bin/env python3
"""Coverage of arena's rating intervals: how often the interval holds the true Elo.

Draws round robins of engines with known Elo from a Bradley-Terry model with draws, a
first-player advantage and a per-opening bias shared by both legs of a game pair, writes them
as a games.csv, rates them with `arena ratings`, and counts how often each engine's interval
(ratings.csv, scope `board:<replicate>`) holds its true rating. With `--repeats K` every game
pair is written K times with the same moves (deterministic engines replaying it), which arena
must count once.

Model, per game with the first player F and the second S, opening bias b (shared by the pair):
  expected score of F:  s = 1 / (1 + 10^(-(elo_F - elo_S + advantage + b) / 400))
  draw probability:     d = 2 * draw * min(s, 1 - s)   (so win = s - d/2 >= 0)
The truth an interval is checked against is what the fit estimates: the Bradley-Terry ratings
(half-point scores, mean 0) that fit the *expected* score of every engine pair, averaged over
both colours and over the opening bias. With a first-player advantage and opening biases, that
is a little closer to 0 than the generating Elo (the logistic curve is flatter away from an even
game), so checking against the generating Elo would count a correct interval as a miss once the
intervals are narrow (100 pairs a match). Standard library only.

Usage: scripts/coverage.py [--arena PATH] [--replicates N] [--pairs 5,20,100]
       [--repeats 1,2,5] [--engines 6] [--seed S] [--markdown]
Each replicate is a board of its own (arena fits every board scope apart), so one
`arena ratings` call rates all replicates of a cell.
"""

import argparse
import csv
import math
import os
import random
import subprocess
import sys
import tempfile


def logistic(elo_diff):
    return 1.0 / (1.0 + 10 ** (-elo_diff / 400.0))


def expected_pair_score(diff, advantage, bias):
    """A's expected points a game over a colour-swapped pair against an engine `diff` Elo
    below it, the opening bias integrated out (midpoint rule over +-6 sd)."""
    if bias <= 0:
        return 0.5 * (logistic(diff + advantage) + 1.0 - logistic(-diff + advantage))
    steps, total, weight = 241, 0.0, 0.0
    for k in range(steps):
        z = -6.0 + 12.0 * (k + 0.5) / steps
        w = math.exp(-0.5 * z * z)
        b = z * bias
        total += w * 0.5 * (logistic(diff + advantage + b) + 1.0 - logistic(-diff + advantage + b))
        weight += w
    return total / weight


def estimand(elo, advantage, bias):
    """The mean-0 Bradley-Terry ratings that fit the expected pair scores of a round robin
    (every pair equally often): what arena's joint fit converges to with infinitely many games."""
    n = len(elo)
    p = [[expected_pair_score(elo[a] - elo[b], advantage, bias) if a != b else 0.5
          for b in range(n)] for a in range(n)]
    r = [0.0] * n
    for _ in range(500):
        grad = [sum(p[a][b] - logistic(r[a] - r[b]) for b in range(n) if b != a) for a in range(n)]
        # Ascent in Elo units; the curvature is at most (n-1)/4 per logistic unit.
        r = [r[a] + grad[a] * 4.0 / (n - 1) * 400.0 / math.log(10) for a in range(n)]
        mean = sum(r) / n
        r = [x - mean for x in r]
    return r


def simulate(rng, engines, pairs, repeats, replicates, spread, advantage, bias, draw):
    """Rows of a games.csv and the true Elo of each (replicate, engine)."""
    rows, truth = [], {}
    game_id = pair_id = 0
    for rep in range(replicates):
        board = "rep%d" % rep
        elo = [rng.gauss(0.0, spread) for _ in range(engines)]
        target = estimand(elo, advantage, bias)
        for e in range(engines):
            truth[(board, "e%d" % e)] = target[e]
        distinct = []
        for a in range(engines):
            for b in range(a + 1, engines):
                for _ in range(pairs):
                    opening = rng.gauss(0.0, bias)
                    legs = []
                    for first, second in ((a, b), (b, a)):
                        s = 1.0 / (1.0 + 10 ** (-(elo[first] - elo[second] + advantage + opening) / 400.0))
                        d = 2.0 * draw * min(s, 1.0 - s)
                        u = rng.random()
                        result = "1-0" if u < s - d / 2 else ("1/2-1/2" if u < s + d / 2 else "0-1")
                        legs.append((first, second, result))
                    distinct.append(legs)
        for copy in range(repeats):
            for k, legs in enumerate(distinct):
                for leg, (first, second, result) in enumerate(legs):
                    rows.append({
                        "game_id": game_id, "round": 1, "board": board, "game": "sim",
                        "pair": pair_id, "first": "e%d" % first, "second": "e%d" % second,
                        "result": result, "start_fen": "opening%d" % k,
                        "moves": "m%d-%d" % (k, leg),
                    })
                    game_id += 1
                pair_id += 1
    return rows, truth


def cell(arena, rng, args, pairs, repeats):
    """Coverage (fraction) and count of intervals of one (pairs, repeats) cell."""
    rows, truth = simulate(rng, args.engines, pairs, repeats, args.replicates, args.spread,
                           args.advantage, args.bias, args.draw)
    with tempfile.TemporaryDirectory() as tmp:
        games = os.path.join(tmp, "games.csv")
        with open(games, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            writer.writeheader()
            writer.writerows(rows)
        out = os.path.join(tmp, "out")
        subprocess.run([arena, "ratings", games, "--output", out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        hit = total = 0
        with open(os.path.join(out, "ratings.csv"), newline="") as f:
            for r in csv.DictReader(f):
                if not r["scope"].startswith("board:"):
                    continue
                key = (r["scope"][len("board:"):], r["engine"])
                low = float(r["ci_low"]) if r["ci_low"] else -math.inf
                high = float(r["ci_high"]) if r["ci_high"] else math.inf
                total += 1
                hit += low <= truth[key] <= high
    return hit / total, total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--arena", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "arena"))
    p.add_argument("--replicates", type=int, default=200)
    p.add_argument("--pairs", default="5,20,100")
    p.add_argument("--repeats", default="1,2,5")
    p.add_argument("--engines", type=int, default=6)
    p.add_argument("--spread", type=float, default=100.0, help="sd of the true Elo")
    p.add_argument("--advantage", type=float, default=40.0, help="first-player advantage (Elo)")
    p.add_argument("--bias", type=float, default=60.0, help="sd of the per-opening bias (Elo)")
    p.add_argument("--draw", type=float, default=0.3, help="draw propensity in [0, 1]")
    p.add_argument("--seed", type=int, default=27)
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = p.parse_args()
    rng = random.Random(args.seed)
    pairs_list = [int(x) for x in args.pairs.split(",")]
    repeats_list = [int(x) for x in args.repeats.split(",")]
    results = {}
    for pairs in pairs_list:
        for repeats in repeats_list:
            results[(pairs, repeats)] = cell(args.arena, rng, args, pairs, repeats)
            cov, n = results[(pairs, repeats)]
            print("pairs %d repeats x%d: coverage %.1f%% of %d intervals" % (pairs, repeats, 100 * cov, n),
                  file=sys.stderr)
    if args.markdown:
        print("| pairs a match | " + " | ".join("x%d" % r for r in repeats_list) + " |")
        print("|---|" + "---|" * len(repeats_list))
        for pairs in pairs_list:
            print("| %d | " % pairs + " | ".join("%.1f%%" % (100 * results[(pairs, r)][0]) for r in repeats_list) + " |")
    else:
        for (pairs, repeats), (cov, n) in results.items():
            print("%d,%d,%.4f,%d" % (pairs, repeats, cov, n))


if __name__ == "__main__":
    main()
