#!/usr/bin/env python3
"""Engine CPU per move with and without the incremental `position` of the engine loop (issue 17).

Feeds an engine one recorded random game the way the runner does (`position fen S moves m1..mk`
then `go depth 1`, for k = 0..n-1) and reads the engine's user+system CPU from wait4. The "full"
run sends `uginewgame` before every `position`, which empties the cache and so costs exactly the
old full replay; the "incremental" run does not. The engine's answers are ignored.

Usage (after `cargo build --profile test --example random_game` and building the engine):
    python3 scripts/engine_position_cpu.py target/debug/random
    python3 scripts/engine_position_cpu.py "python3 engines/python/random_engine.py"
"""

import os
import subprocess
import sys

GAME_BIN = os.environ.get("RANDOM_GAME", "target/debug/examples/random_game")
BOARDS = [("seven_colors", "{game: seven_colors, size: 30, layout: random}"),
          ("amazons", "{game: amazons, shape: square, width: 20}"),
          ("awale", "{game: awale, pits: 10}")]


def cpu_per_move(engine, variant, fen, moves, forget):
    lines = ["ugi", "setoption name UGI_Variant value " + variant, "uginewgame"]
    for k in range(len(moves)):
        if forget:
            lines.append("uginewgame")
        lines.append("position fen %s moves %s" % (fen, " ".join(moves[:k])) if k else "position fen " + fen)
        lines.append("go depth 1")
    lines.append("quit")
    p = subprocess.Popen(engine.split(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(("\n".join(lines) + "\n").encode())
    p.stdin.close()
    _, _, usage = os.wait4(p.pid, 0)
    return (usage.ru_utime + usage.ru_stime) / len(moves) * 1e6


def main():
    engine = sys.argv[1]
    for variant, board in BOARDS:
        out = subprocess.run([GAME_BIN, board], capture_output=True, text=True, check=True).stdout
        fen, moves = out.splitlines()[0], out.splitlines()[1].split()
        full = cpu_per_move(engine, variant, fen, moves, True)
        incremental = cpu_per_move(engine, variant, fen, moves, False)
        print("%-12s plies=%4d  full=%9.1f us/move  incremental=%8.1f us/move  ratio=%.1fx"
              % (variant, len(moves), full, incremental, full / incremental))


if __name__ == "__main__":
    main()
