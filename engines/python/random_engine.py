#!/usr/bin/env python3
"""A random legal mover for arena, in plain Python (standard library only).

Copy this file to start your own engine: it speaks the whole UGI profile of docs/protocol.md,
reads every position text and move of docs/games.md, and knows the rules well enough to list
the legal moves of Seven Colors, Amazons and Awale. Replace `choose_move` with your strategy.

Run it by hand to see the protocol:
    python3 engines/python/random_engine.py
    ugi
    setoption name UGI_Variant value awale
    position fen 4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture moves 3
    go movetime 100
"""

import random
import sys

GAMES = ["seven_colors", "amazons", "awale"]


# ---------------------------------------------------------------- Seven Colors
class SevenColors:
    """Rows top to bottom joined by '/', A..G neutral, 1/2 zones; side to move; plane|torus."""

    def __init__(self, fen):
        rows, side, topology = fen.split()
        self.rows = [list(r) for r in rows.split("/")]
        self.n = len(self.rows)
        self.side = side
        self.torus = topology == "torus"

    def neighbours(self, r, c):
        n = self.n
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if self.torus:
                yield rr % n, cc % n
            elif 0 <= rr < n and 0 <= cc < n:
                yield rr, cc

    def owned(self, side):
        return sum(row.count(side) for row in self.rows)

    def is_over(self):
        total = self.n * self.n
        if 2 * self.owned("1") > total or 2 * self.owned("2") > total:
            return True
        return not any(ch in "ABCDEFG" for row in self.rows for ch in row)

    def legal_moves(self):
        # Every colour is legal while the game goes on, even one that captures nothing.
        return [] if self.is_over() else list("ABCDEFG")

    def play(self, colour):
        stack = [(r, c) for r in range(self.n) for c in range(self.n) if self.rows[r][c] == self.side]
        while stack:
            r, c = stack.pop()
            for rr, cc in self.neighbours(r, c):
                if self.rows[rr][cc] == colour:
                    self.rows[rr][cc] = self.side
                    stack.append((rr, cc))
        self.side = "2" if self.side == "1" else "1"


# ---------------------------------------------------------------- Amazons
DIRECTIONS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]


class Amazons:
    """Rows top to bottom joined by '/', '.' empty, '#' hole, 'x' arrow, 1/2 queens; side.

    A vertex id is row * width + col. A move is 'src-dst-arrow'."""

    def __init__(self, fen):
        rows, side = fen.split()
        self.cells = [ch for row in rows.split("/") for ch in row]
        self.m = len(rows.split("/"))
        self.side = side

    def reach(self, v, vacated=None):
        """Vertices a queen on v can slide to (also the arrow targets from v)."""
        m = self.m
        r0, c0 = divmod(v, m)
        for dr, dc in DIRECTIONS:
            r, c = r0 + dr, c0 + dc
            while 0 <= r < m and 0 <= c < m:
                u = r * m + c
                if self.cells[u] != "." and u != vacated:
                    break
                yield u
                r, c = r + dr, c + dc

    def legal_moves(self):
        moves = []
        for q, ch in enumerate(self.cells):
            if ch != self.side:
                continue
            for to in self.reach(q):
                for arrow in self.reach(to, vacated=q):
                    moves.append("%d-%d-%d" % (q, to, arrow))
        return moves

    def play(self, move):
        src, dst, arrow = (int(x) for x in move.split("-"))
        self.cells[src] = "."
        self.cells[dst] = self.side
        self.cells[arrow] = "x"
        self.side = "2" if self.side == "1" else "1"


# ---------------------------------------------------------------- Awale
class Awale:
    """First row pits 1..n, '/', second row pits 1..n; scores 'c1,c2'; side; grand-slam rule.

    Pit indices 0..n-1 are the first player's, n..2n-1 the second's; a move is the pit number
    1..n on the mover's own row."""

    def __init__(self, fen):
        rows, scores, side, self.grand_slam = fen.split()
        first, second = rows.split("/")
        self.pits = [int(x) for x in first.split(",")] + [int(x) for x in second.split(",")]
        self.n = len(self.pits) // 2
        self.scores = [int(x) for x in scores.split(",")]
        self.side = side
        self.seen = {self.key()}
        self.repeated = False

    def key(self):
        return (self.side, tuple(self.scores), tuple(self.pits))

    def row(self, side):
        return range(0, self.n) if side == "1" else range(self.n, 2 * self.n)

    def other(self):
        return "2" if self.side == "1" else "1"

    def sow(self, i, capture_grand_slam):
        pits = list(self.pits)
        seeds, pits[i], j = pits[i], 0, i
        while seeds:
            j = (j + 1) % len(pits)
            if j != i:  # the origin pit is skipped on every lap
                pits[j] += 1
                seeds -= 1
        opponent = self.row(self.other())
        taken, k = [], j
        while k in opponent and pits[k] in (2, 3):
            taken.append(k)
            k -= 1
        captured = sum(pits[k] for k in taken)
        grand_slam = captured > 0 and captured == sum(pits[k] for k in opponent)
        if grand_slam and not capture_grand_slam:
            return pits, 0, True
        for k in taken:
            pits[k] = 0
        return pits, captured, grand_slam

    def candidates(self):
        own = self.row(self.side)
        starving = sum(self.pits[k] for k in self.row(self.other())) == 0
        return [i for i in own if self.pits[i] > 0 and (not starving or self.pits[i] >= own.stop - i)]

    def is_over(self):
        total = sum(self.pits) + sum(self.scores)
        a, b = self.scores
        return self.repeated or 2 * a > total or 2 * b > total or a == b == total / 2 or not self.candidates()

    def legal_moves(self):
        if self.is_over():
            return []
        pits = self.candidates()
        if self.grand_slam == "forbidden":
            allowed = [i for i in pits if not self.sow(i, True)[2]]
            pits = allowed or pits
        return [str(i % self.n + 1) for i in pits]

    def play(self, move):
        i = self.row(self.side)[int(move) - 1]
        self.pits, captured, _ = self.sow(i, self.grand_slam == "capture")
        self.scores[0 if self.side == "1" else 1] += captured
        self.side = self.other()
        if captured:
            self.seen = set()
        elif self.key() in self.seen:
            self.repeated = True
        self.seen.add(self.key())


RULES = {"seven_colors": SevenColors, "amazons": Amazons, "awale": Awale}


# ---------------------------------------------------------------- strategy
def choose_move(position, rng):
    """Your strategy goes here. Return a move text, or None to resign."""
    moves = position.legal_moves()
    return rng.choice(moves) if moves else None


# ---------------------------------------------------------------- protocol loop
def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    variant, seed, position = GAMES[0], 0, None
    played_start, played = None, []  # the start and moves that gave `position`
    rng = random.Random(seed)
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "ugi":
            send("id name python-random")
            send("id author arena template")
            send("option name UGI_Variant type combo default %s %s" % (GAMES[0], " ".join("var " + g for g in GAMES)))
            send("option name Seed type spin default 0 min 0 max 9223372036854775807")
            send("ugiok")
        elif command == "isready":
            send("readyok")
        elif command == "setoption" and "value" in words:
            at = words.index("value")
            name, value = " ".join(words[2:at]), " ".join(words[at + 1:])
            if name == "UGI_Variant" and value in RULES:
                variant = value
            elif name == "Seed":
                seed = int(value)
                rng = random.Random(seed)
        elif command == "uginewgame":
            rng, position = random.Random(seed), None
        elif command == "position" and len(words) > 2 and words[1] == "fen":
            # The position text is everything between 'fen' and 'moves' (it contains spaces).
            at = words.index("moves") if "moves" in words else len(words)
            start, moves = (variant, " ".join(words[2:at])), words[at + 1:]
            # The runner resends the whole game at every move: when this list extends the last
            # one from the same start, play only the new moves (O(n) a game instead of O(n^2)).
            # choose_move must then leave `position` as it found it.
            if position is None or start != played_start or moves[:len(played)] != played:
                position, played_start, played = RULES[variant](start[1]), start, []
            for move in moves[len(played):]:
                position.play(move)
            played = moves
        elif command == "go":
            move = choose_move(position, rng) if position else None
            send("bestmove " + (move or "resign"))
        elif command == "quit":
            break
        # Anything else (stop, debug, unknown commands) is ignored, as the protocol asks.


if __name__ == "__main__":
    main()
