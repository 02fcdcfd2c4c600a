#!/usr/bin/env python3
"""Team basalt: two plies of lookahead (its capture minus the opponent's best reply)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../engines/python"))
import random_engine as template  # noqa: E402


def after(position, move):
    saved = (list(position.pits), list(position.scores), position.side, set(position.seen), position.repeated)
    position.play(move)
    return saved


def undo(position, saved):
    position.pits, position.scores, position.side, position.seen, position.repeated = saved


def value(position, move, depth):
    me = 0 if position.side == "1" else 1
    saved = after(position, move)
    gain = position.scores[me] - saved[1][me]
    if depth > 1:
        replies = position.legal_moves()
        if replies:
            gain -= max(value(position, r, depth - 1) for r in replies)
    undo(position, saved)
    return gain


def choose_move(position, rng):
    moves = position.legal_moves()
    if not moves:
        return None
    depth = 2 if "--lookahead" in sys.argv else 1
    scored = [(value(position, m, depth), m) for m in moves]
    best = max(v for v, _ in scored)
    return rng.choice([m for v, m in scored if v == best])


template.choose_move = choose_move
template.main()
