#!/usr/bin/env python3
"""Team cobalt, resubmitted: the capture of the move, ties to the pit furthest along."""

import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../engines/python"))
import random_engine as template  # noqa: E402


def choose_move(position, rng):
    moves = position.legal_moves()
    if not moves:
        return None

    def gain(move):
        trial = copy.deepcopy(position)
        trial.play(move)
        return sum(trial.scores) - sum(position.scores)

    return max(reversed(moves), key=gain)


template.choose_move = choose_move
template.main()
