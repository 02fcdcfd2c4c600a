#!/usr/bin/env python3
"""Writes a large PGN for measuring `arena ratings` (memory and time; see BENCHMARKS.md).

Usage: scripts/big_pgn.py PAIRS > big.pgn
       scripts/big_pgn.py PAIRS --csv > big.csv

PAIRS game pairs (two games each, the second with the players swapped, as cutechess-cli
`-repeat` writes them) between 10 engines on Awale: Event/Site/Round/White/Black/Result tags
and 8 to 16 plies of Awale move text (pit numbers), seeded so the file is the same every time.
With --csv, the same games as CSV rows in the columns arena's games.csv has for them
(game_id, round, board, game, pair, first, second, result, moves).
"""

import random
import sys


def main() -> None:
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 250_000
    csv = "--csv" in sys.argv[2:]
    rng = random.Random(20261125)
    engines = [f"engine{i}" for i in range(10)]
    out = sys.stdout
    write = out.write
    if csv:
        write("game_id,round,board,game,pair,first,second,result,moves\n")
    game_id = 0
    for pair in range(pairs):
        a, b = rng.sample(engines, 2)
        for white, black in ((a, b), (b, a)):
            result = rng.choice(("1-0", "0-1", "1/2-1/2"))
            plies = [str(rng.randint(1, 6)) for _ in range(rng.randint(8, 16))]
            if csv:
                write(
                    f"{game_id},{pair + 1},awale-6,awale,{pair},{white},{black},{result},"
                    f"{' '.join(plies)}\n"
                )
                game_id += 1
                continue
            moves = " ".join(
                f"{k // 2 + 1}. {m}" if k % 2 == 0 else m for k, m in enumerate(plies)
            )
            write(
                f'[Event "big"]\n[Site "awale-6"]\n[Round "{pair + 1}"]\n'
                f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
                f"{moves} {result}\n\n"
            )


if __name__ == "__main__":
    main()
