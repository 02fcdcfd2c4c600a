#!/usr/bin/env python3
"""Where a move's time goes: CPU per move of the runner and of each engine, user and kernel,
and context switches (pipe wake-ups) per move, from `perf` (issue 17).

Usage: profile_move.py CONFIG [ARENA]   (ARENA default target/release/arena)

Runs `arena run --force CONFIG` twice: under `perf record -F 2999` (samples per process and
user/kernel, turned into µs a move: samples / 2999 Hz / moves) and under `perf stat -e
context-switches` (every process of the run). Prints a markdown table. Needs perf and
permission to use it (root, or kernel.perf_event_paranoid <= 1).
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

HZ = 2999
RUNNER = re.compile(r"runner: (\d+) games, (\d+) moves in ([\d.]+) s")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    config = sys.argv[1]
    arena = sys.argv[2] if len(sys.argv) > 2 else "target/release/arena"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        out = subprocess.run(["perf", "record", "-q", "-F", str(HZ), "-o", data, "--",
                              arena, "run", "--force", config],
                             capture_output=True, text=True, check=True).stdout
        games, moves, wall = RUNNER.search(out).groups()
        moves = int(moves)
        report = subprocess.run(["perf", "report", "-i", data, "-q", "--stdio", "-g", "none",
                                 "--sort", "comm,dso", "-F", "sample,comm,dso"],
                                capture_output=True, text=True, check=True).stdout
        stat = subprocess.run(["perf", "stat", "-x", ",", "-e", "context-switches", "--",
                               arena, "run", "-q", "--force", config],
                              capture_output=True, text=True, check=True).stderr
    cpu = collections.defaultdict(lambda: [0, 0])
    for line in report.splitlines():
        parts = line.split()
        if len(parts) < 3 or not parts[0].isdigit():
            continue
        samples, comm, dso = int(parts[0]), parts[1], " ".join(parts[2:])
        cpu[comm][1 if "kernel" in dso else 0] += samples
    switches = next(int(l.split(",")[0]) for l in stat.splitlines() if "context-switches" in l)
    us = lambda samples: samples / HZ * 1e6 / moves
    print("%s games, %d moves, %s s wall (under perf)\n" % (games, moves, wall))
    print("| process | user µs a move | kernel µs a move |")
    print("|---|---|---|")
    total = [0, 0]
    for comm, (user, kernel) in sorted(cpu.items(), key=lambda kv: -sum(kv[1])):
        print("| %s | %.1f | %.1f |" % (comm, us(user), us(kernel)))
        total[0] += user
        total[1] += kernel
    print("| all | %.1f | %.1f |" % (us(total[0]), us(total[1])))
    print("\nContext switches (every process of the run): %.2f a move" % (switches / moves))


if __name__ == "__main__":
    main()
