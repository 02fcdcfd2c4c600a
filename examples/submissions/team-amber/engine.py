#!/usr/bin/env python3
"""Team amber: takes the move that captures the most seeds now (ties: at random).

Built on arena's Python template (engines/python/random_engine.py): only the strategy is new."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../engines/python"))
import random_engine as template  # noqa: E402


def captured(position, move):
    before = list(position.scores)
    saved = (list(position.pits), list(position.scores), position.side, set(position.seen), position.repeated)
    position.play(move)
    gain = sum(position.scores) - sum(before)
    position.pits, position.scores, position.side, position.seen, position.repeated = saved
    return gain


def choose_move(position, rng):
    moves = position.legal_moves()
    if not moves:
        return None
    best = max(captured(position, m) for m in moves)
    return rng.choice([m for m in moves if captured(position, m) == best])


template.choose_move = choose_move
template.main()
