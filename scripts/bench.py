#!/usr/bin/env python3
"""Benchmarks of arena's runner, run by scripts/bench.sh; writes BENCHMARKS.md.

Every figure is the median of RUNS runs. Timing lives here, never in the tests. The runner's
own CPU time and peak memory come from the `runner:` line `arena run` prints (getrusage of the
arena process alone, engines excluded).
"""

import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release")
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
CHAMPIONSHIP = os.environ.get("BENCH_CHAMPIONSHIP", "0") == "1"
# BENCH_ONLY=record_moves (or serve) runs only that section and prints it (BENCHMARKS.md is left
# alone).
ONLY = os.environ.get("BENCH_ONLY", "")

RUNNER = re.compile(
    r"runner: (\d+) games, (\d+) moves in ([\d.]+) s; runner CPU ([\d.]+) s \(([\d.]+) us a move\); peak RSS ([\d.]+) MiB"
)
# Everything of BENCHMARKS.md from this line on is written by hand or by other scripts.
KEEP_MARKER = "<!-- Below: measured by other scripts; kept as is by bench.py. -->"
PINGPONG = re.compile(r"pingpong: (\d+) round trips, ([\d.]+) us wall, ([\d.]+) us driver CPU")


def engine(name):
    return os.path.join(BIN, name)


def watch(url, stop):
    """A browser's share of the live page: the update stream, read until the run ends."""
    import urllib.request
    try:
        with urllib.request.urlopen(url + "api/events", timeout=30) as stream:
            while not stop.is_set() and stream.readline():
                pass
    except OSError:
        pass


def run_serving(command, watched):
    """Runs `command` (an `arena run … --serve 127.0.0.1:0`), with one update stream open from
    the printed URL on when `watched`; returns its stdout."""
    import threading
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout = []
    reader = threading.Thread(target=lambda: stdout.append(proc.stdout.read()))
    reader.start()
    stop = threading.Event()
    for line in proc.stderr:
        m = re.search(r"(http://\S+/)", line)
        if m:
            if watched:
                threading.Thread(target=watch, args=(m.group(1), stop), daemon=True).start()
            break
    # The rest of stderr (progress lines) is read so the run never blocks on a full pipe.
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    code = proc.wait()
    stop.set()
    reader.join()
    if code != 0:
        sys.exit("%s failed with %d" % (" ".join(command), code))
    return stdout[0]


def run_tournament(boards, engines, rounds, concurrency, time_control="{ depth: 1 }", extra="",
                   serve=None):
    """Runs one tournament in a fresh directory; returns the parsed runner line and games.
    `serve`: None (no live page), "alone" (`--serve`, nobody watching) or "watched" (one update
    stream open for the whole run)."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = [
            "seed: 11",
            "rounds: %d" % rounds,
            "concurrency: %d" % concurrency,
            "time_control: %s" % time_control,
            "boards:",
        ]
        lines += ["  - %s" % b for b in boards]
        lines.append("engines:")
        for e in engines:
            args = ", args: [%s]" % ", ".join("'%s'" % a for a in e[2]) if len(e) > 2 else ""
            lines.append("  - { name: %s, command: %s%s }" % (e[0], engine(e[1]), args))
        lines.append("output: %s" % os.path.join(tmp, "out"))
        lines.append(extra)
        config = os.path.join(tmp, "bench.yaml")
        with open(config, "w") as f:
            f.write("\n".join(lines) + "\n")
        start = time.monotonic()
        if serve is None:
            out = subprocess.run(
                [engine("arena"), "run", config], capture_output=True, text=True, check=True
            ).stdout
        else:
            out = run_serving([engine("arena"), "run", config, "--serve", "127.0.0.1:0"],
                              serve == "watched")
        wall = time.monotonic() - start
        m = RUNNER.search(out)
        if not m:
            sys.exit("no runner line in:\n" + out)
        with open(os.path.join(tmp, "out", "games.csv")) as f:
            games = list(csv.DictReader(f))
        moves_csv = os.path.join(tmp, "out", "moves.csv")
        moves_bytes = os.path.getsize(moves_csv) if os.path.exists(moves_csv) else 0
        return {
            "moves_bytes": moves_bytes,
            "games": int(m.group(1)),
            "moves": int(m.group(2)),
            "wall": wall,
            "cpu": float(m.group(4)),
            "cpu_us_move": float(m.group(5)),
            "rss": float(m.group(6)),
            "records": games,
        }


def median_of(f, runs=RUNS):
    results = [f() for _ in range(runs)]
    keys = [k for k in results[0] if k != "records"]
    merged = {k: statistics.median(r[k] for r in results) for k in keys}
    merged["records"] = results[0]["records"]
    return merged


def pingpong(rounds, position_bytes, reply_bytes):
    out = subprocess.run(
        [engine("pingpong"), "drive", str(rounds), str(position_bytes), str(reply_bytes)],
        capture_output=True, text=True, check=True,
    ).stdout
    m = PINGPONG.search(out)
    return {"wall_us": float(m.group(2)), "cpu_us": float(m.group(3))}


def mean_position_line(records):
    """Mean length of the `position` lines a runner sent in these games."""
    total, count = 0, 0
    for r in records:
        moves = r["moves"].split()
        base = len("position fen ") + len(r["start_fen"])
        length = base
        for k, mv in enumerate(moves):
            total += length
            count += 1
            length += len(mv) + (len(" moves ") if k == 0 else 1)
    return total / max(count, 1)


def marginal(boards, engines, rounds, few):
    """Games-alone cost a move: the wall of `rounds` rounds minus that of `few` rounds (start-up,
    handshakes, the final reports and the last game's quit cancel out), over the extra moves.
    Returns (µs a move for the games alone, µs a move for the whole command, full run)."""
    full = median_of(lambda: run_tournament(boards, engines, rounds, 1))
    short = median_of(lambda: run_tournament(boards, engines, few, 1))
    games = (full["wall"] - short["wall"]) * 1e6 / (full["moves"] - short["moves"])
    return games, full["wall"] * 1e6 / full["moves"], full


def criterion(bench):
    out = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", bench, "--", "--warm-up-time", "1", "--measurement-time", "2"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    rows, name = [], None
    for line in out.splitlines():
        head = line.split()
        if head and "/" in head[0] and not line.startswith(" "):
            name = head[0]
        # The first `time:` after a name is the measurement; `change:` lines repeat the word.
        if "time:" in line and name and "change" not in line:
            t = re.search(r"time:\s+\[[\d.]+ \S+ ([\d.]+ \S+) [\d.]+ \S+\]", line)
            rows.append([name, t.group(1) if t else "?", ""])
            name = None
        elif "thrpt:" in line and rows and rows[-1][2] == "":
            t = re.search(r"thrpt:\s+\[[\d.]+ \S+ ([\d.]+ \S+)", line)
            rows[-1][2] = t.group(1) if t else ""
    return rows


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def record_moves(say, floor=""):
    """Runner CPU a move without and with `record_moves`, runs interleaved in one session."""
    say("## Recording per-move engine info (`record_moves`)\n")
    if floor:
        say(floor)
    awale = "{ game: awale, pits: 6, random_opening_plies: 6 }"
    # `hostile --scores` answers the first legal move at once after an `info depth … score …
    # nodes … nps … pv …` line and an `info string` line: the info costs, nothing else.
    talkers = [("a", "hostile", ["--scores", "cp:10"]), ("b", "hostile", ["--scores", "cp:-10"])]
    off, on = [], []
    for _ in range(RUNS):
        off.append(run_tournament([awale], talkers, 150, 1))
        on.append(run_tournament([awale], talkers, 150, 1, extra="record_moves: true"))
    med = lambda runs, k: statistics.median(r[k] for r in runs)
    moves = med(on, "moves")
    say("Two engines that send two `info` lines and a `bestmove` at once, Awale 6, %d games, %d moves, "
        "concurrency 1; the %d runs of each variant interleaved.\n" % (med(on, "games"), moves, RUNS))
    say(table(["variant", "runner CPU µs a move", "wall µs a move", "moves.csv bytes a move"], [
        ["record_moves off", "%.1f" % med(off, "cpu_us_move"), "%.1f" % (med(off, "wall") * 1e6 / moves), "0"],
        ["record_moves on", "%.1f" % med(on, "cpu_us_move"), "%.1f" % (med(on, "wall") * 1e6 / moves),
         "%.0f" % (med(on, "moves_bytes") / moves)],
    ]))
    say("\nRecording costs %.1f µs of runner CPU a move: one `info` line kept as text, parsed at the "
        "`bestmove`, and its row written with the game.\n"
        % (med(on, "cpu_us_move") - med(off, "cpu_us_move")))


def live_page(say, floor=""):
    """Runner cost a move without the live page, with `--serve` and with one browser's update
    stream open; runs interleaved in one session."""
    say("## The live page (`--serve`)\n")
    if floor:
        say(floor)
    awale = "{ game: awale, pits: 6, random_opening_plies: 6 }"
    pair = [("a", "instant"), ("b", "instant")]
    runs = {"off": [], "alone": [], "watched": []}
    for _ in range(RUNS):
        for variant in runs:
            serve = None if variant == "off" else variant
            runs[variant].append(run_tournament([awale], pair, 150, 1, serve=serve))
    med = lambda variant, k: statistics.median(r[k] for r in runs[variant])
    moves = med("off", "moves")
    if not floor:
        line = mean_position_line(runs["off"][0]["records"])
        base = [pingpong(int(moves), int(line), len("bestmove 1") + 1) for _ in range(RUNS)]
        say("Pipe floor of this run: %.1f µs wall, %.1f µs CPU a round trip.\n"
            % (statistics.median(b["wall_us"] for b in base), statistics.median(b["cpu_us"] for b in base)))
    say("Two `instant` engines on Awale 6, %d games, %d moves, concurrency 1; the %d runs of each "
        "variant interleaved. Every run publishes its games in progress to `live.json` (4 writes a "
        "second at most); `--serve` adds the HTTP server, and `watched` one open update stream "
        "(what a browser holds) for the whole run.\n" % (med("off", "games"), moves, RUNS))
    rows = []
    for variant, label in (("off", "no --serve"), ("alone", "--serve, nobody watching"),
                           ("watched", "--serve, one browser connected")):
        wall = med(variant, "wall") * 1e6 / moves
        rows.append([label, "%.1f" % med(variant, "cpu_us_move"), "%.1f" % wall,
                     "%.3f×" % (wall / (med("off", "wall") * 1e6 / moves))])
    say(table(["variant", "runner CPU µs a move", "wall µs a move", "wall vs no --serve"], rows))
    say("\nTarget (issue 28): with one browser connected, at most 1.05× the wall a move of the run "
        "without `--serve`.\n")


def sandbox(say, floor=""):
    """Per-move wall and runner CPU, and engine start-up, with `sandbox: off` and `on`
    (suspend_idle included), runs interleaved in one session."""
    say("## The sandbox: per-move overhead and engine start-up (issue 24)\n")
    if floor:
        say(floor)
    awale = "{ game: awale, pits: 6, random_opening_plies: 6 }"
    pair = [("a", "instant"), ("b", "instant")]
    moves_off, moves_on, start_off, start_on = [], [], [], []
    for _ in range(RUNS):
        moves_off.append(run_tournament([awale], pair, 150, 1, extra="sandbox: off"))
        moves_on.append(run_tournament([awale], pair, 150, 1, extra="sandbox: on"))
        start_off.append(run_tournament([awale], pair, 50, 1, extra="sandbox: off\nrestart: per_game"))
        start_on.append(run_tournament([awale], pair, 50, 1, extra="sandbox: on\nrestart: per_game"))
    med = lambda runs, k: statistics.median(r[k] for r in runs)
    moves = med(moves_on, "moves")
    wall = lambda runs: med(runs, "wall") * 1e6 / med(runs, "moves")
    if not floor:
        line = mean_position_line(moves_on[0]["records"])
        base = [pingpong(int(moves), int(line), len("bestmove 1") + 1) for _ in range(RUNS)]
        say("Pipe floor of this run: %.1f µs wall, %.1f µs CPU a round trip.\n"
            % (statistics.median(b["wall_us"] for b in base), statistics.median(b["cpu_us"] for b in base)))
    say("Two `instant` engines on Awale 6, %d games, %d moves, concurrency 1, engines kept across games "
        "(`restart: on_failure`): what a move costs more is suspend_idle (an engine is stopped only once "
        "its opponent has thought 1 ms, so a fast opponent costs no signal). Then the same "
        "pair with `restart: per_game` over %d games: two engine start-ups a game, so the start-up cost is "
        "the difference of the wall a game over two. The runs of each variant interleaved.\n"
        % (med(moves_on, "games"), moves, med(start_on, "games")))
    off_w, on_w = wall(moves_off), wall(moves_on)
    say(table(["variant", "wall µs a move", "runner CPU µs a move"], [
        ["sandbox off", "%.1f" % off_w, "%.1f" % med(moves_off, "cpu_us_move")],
        ["sandbox on", "%.1f" % on_w, "%.1f" % med(moves_on, "cpu_us_move")],
        ["on / off", "%.2f×" % (on_w / off_w), "%.2f×" % (med(moves_on, "cpu_us_move") / med(moves_off, "cpu_us_move"))],
    ]))
    game = lambda runs: med(runs, "wall") * 1e3 / med(runs, "games")
    extra = (game(start_on) - game(start_off)) / 2
    say("\n" + table(["variant", "wall ms a game (2 start-ups)", "runner CPU µs a move"], [
        ["sandbox off, per_game", "%.2f" % game(start_off), "%.1f" % med(start_off, "cpu_us_move")],
        ["sandbox on, per_game", "%.2f" % game(start_on), "%.1f" % med(start_on, "cpu_us_move")],
    ]))
    say("\nThe sandbox adds %.2f ms to an engine's start-up (namespaces, the pids cgroup as root, the "
        "Landlock ruleset, the private directory made and removed) and %.1f%% to the wall time of a move "
        "(target ≤ 10%%).\n" % (extra, (on_w / off_w - 1) * 100))


def main():
    report = []
    cores = os.cpu_count()
    say = lambda text: (print(text, flush=True), report.append(text))
    if ONLY == "record_moves":
        record_moves(say)
        return
    if ONLY == "serve":
        live_page(say)
        return
    if ONLY == "sandbox":
        sandbox(say)
        return
    say("# Benchmarks\n")
    say("Measured by `scripts/bench.sh` on a %d-core machine (%s); every figure is the median of %d runs. "
        "Runner CPU (getrusage) and peak RSS (VmHWM) are the arena process's own, engines excluded.\n"
        % (cores, time.strftime("%Y-%m-%d"), RUNS))

    # Per-move overhead against the pipe floor.
    say("## Per-move overhead against the pipe floor\n")
    awale = "{ game: awale, pits: 6, random_opening_plies: 6 }"
    ov = median_of(lambda: run_tournament([awale], [("a", "instant"), ("b", "instant")], 150, 1))
    line = mean_position_line(ov["records"])
    base = [pingpong(int(ov["moves"]), int(line), len("bestmove 1") + 1) for _ in range(RUNS)]
    base_wall = statistics.median(b["wall_us"] for b in base)
    base_cpu = statistics.median(b["cpu_us"] for b in base)
    wall_move = ov["wall"] * 1e6 / ov["moves"]
    say("Two `instant` engines (first legal move at once) on Awale 6, %d games, %d moves, concurrency 1, "
        "against `pingpong`: the same number of round trips over pipes, a %.0f-byte `position` line, a `go` "
        "line and a one-line reply, and nothing else.\n" % (ov["games"], ov["moves"], line))
    say(table(["measure", "runner (µs a move)", "pipe floor (µs a round trip)", "ratio"], [
        ["wall time", "%.1f" % wall_move, "%.1f" % base_wall, "%.2f×" % (wall_move / base_wall)],
        ["own CPU", "%.1f" % ov["cpu_us_move"], "%.1f" % base_cpu, "%.2f×" % (ov["cpu_us_move"] / base_cpu)],
    ]))
    say("\nThe wall time per move also holds the engine's own work (parsing the position, replaying the "
        "moves, generating the legal moves), which the floor does not have.\n")
    # Every later figure is stated next to the floor of this same run: the floor itself moves
    # by tens of percent between runs on a shared 2-core VM.
    floor = "Pipe floor of this run: %.1f µs wall, %.1f µs CPU a round trip.\n" % (base_wall, base_cpu)

    # Issue 17's targets: engines that cost nothing, so the runner alone stands against the floor.
    say("## The runner alone against the floor\n")
    say("Engines that do no work: `pingpong engine A` answers `bestmove A` to every `go` without "
        "reading the position (any colour is legal in Seven Colors), on 10×10 random boards capped at "
        "300 plies; and `instant` on Awale 6 (which does parse and generate moves). Games alone: the "
        "wall of 100 rounds minus that of 10 rounds, over the extra moves; whole command: the wall of "
        "the 100-round run (start-up, handshakes, report.html and results.xlsx included) over its "
        "moves. The floor: `pingpong drive` with the same number of round trips and the run's mean "
        "`position` line, measured right after. Concurrency 1.\n")
    rows = []
    cases = [
        ("Seven Colors 10×10, 300 plies, `pingpong engine A`",
         "{ game: seven_colors, size: 10, layout: random, max_plies: 300 }",
         [("a", "pingpong", ["engine", "A"]), ("b", "pingpong", ["engine", "A"])]),
        ("Awale 6, `instant`", "{ game: awale, pits: 6 }",
         [("a", "instant"), ("b", "instant")]),
    ]
    for label, board, engines in cases:
        games_us, whole_us, full = marginal([board], engines, 100, 10)
        line = mean_position_line(full["records"])
        floor_runs = [pingpong(int(full["moves"]), int(line), len("bestmove A") + 1) for _ in range(RUNS)]
        floor_wall = statistics.median(b["wall_us"] for b in floor_runs)
        rows.append([label, int(full["moves"]), "%.0f" % line, "%.1f" % floor_wall,
                     "%.1f (%.2f×)" % (games_us, games_us / floor_wall),
                     "%.1f (%.2f×)" % (whole_us, whole_us / floor_wall),
                     "%.1f" % full["cpu_us_move"]])
    say(table(["case", "moves", "mean position line (bytes)", "floor wall (µs)",
               "games alone (µs a move)", "whole command (µs a move)", "runner CPU (µs a move)"], rows))
    say("\nTargets (issue 17): games alone ≤ 1.3× the floor, whole command ≤ 1.5×.\n")

    record_moves(say, floor)
    live_page(say, floor)
    sandbox(say, floor)

    # Throughput.
    say("## Throughput: Seven Colors 30×30, greedy vs random-available\n")
    say(floor)
    sc30 = "{ game: seven_colors, size: 30, layout: random }"
    ladder = [("greedy", "greedy"), ("random-available", "random-available")]
    rows = []
    for concurrency in (1, 2):
        for restart in ("on_failure", "per_game"):
            r = median_of(lambda: run_tournament([sc30], ladder, 50, concurrency, extra="restart: %s" % restart))
            rows.append([concurrency, "reused" if restart == "on_failure" else "restarted per game",
                         "%.1f" % (r["games"] / r["wall"]), "%.1f" % r["cpu_us_move"]])
    say(table(["concurrency", "engines", "games/s", "runner CPU µs a move"], rows))
    if CHAMPIONSHIP:
        championship = os.path.join(ROOT, "configs", "seven_colors_championship.yaml")
        rows = []
        for size in (10, 30):
            with open(championship) as f:
                text = f.read().replace("size: 10,", "size: %d," % size)
            with tempfile.TemporaryDirectory() as tmp:
                config = os.path.join(tmp, "championship.yaml")
                with open(config, "w") as f:
                    f.write(text)
                start = time.monotonic()
                out = subprocess.run([engine("arena"), "run", "--force", "--concurrency", str(cores),
                                      "--output", os.path.join(tmp, "out"), config],
                                     cwd=ROOT, check=True, capture_output=True, text=True).stdout
                wall = time.monotonic() - start
            m = RUNNER.search(out)
            rows.append(["%d×%d" % (size, size), m.group(1), m.group(2), "%.0f s" % wall,
                         "%.0f" % (int(m.group(1)) / wall), m.group(5)])
        say("\nThe course's championship (`configs/seven_colors_championship.yaml`: greedy vs "
            "random-available, 100,000 games, 10×10 as the course's figure needs), and the same on "
            "30×30; end to end at concurrency %d, one run each.\n" % cores)
        say(table(["board", "games", "moves", "wall", "games/s", "runner CPU µs a move"], rows))
        say("")
    else:
        say("\n(The 100,000-game championship runs with `BENCH_CHAMPIONSHIP=1 scripts/bench.sh`.)\n")

    # Scale with engines.
    say("## Scale: engines in a round robin\n")
    say(floor)
    tiny = "{ game: awale, pits: 3, seeds: 1 }"
    rows = []
    for n in (10, 50, 100):
        engines = [("e%d" % i, "instant") for i in range(n)]
        r = median_of(lambda: run_tournament([tiny], engines, 1, 2), runs=1 if n == 100 else RUNS)
        rows.append([n, r["games"], "%.1f" % r["wall"], "%.0f" % (r["games"] / r["wall"]),
                     "%.0f" % (r["cpu"] * 1e6 / r["games"]), "%.1f" % r["rss"]])
    say("Instant engines on a 3-pit, 1-seed Awale board (games of a few plies, so the per-game protocol "
        "dominates), concurrency 2.\n")
    say(table(["engines", "games", "wall s", "games/s", "runner CPU µs a game", "peak RSS MiB"], rows))

    # Scale with board size.
    say("\n## Scale: board size\n")
    say(floor)
    rows = []
    for size in (10, 30, 50, 100):
        b = "{ game: seven_colors, size: %d }" % size
        r = median_of(lambda: run_tournament([b], ladder, 5, 1))
        rows.append(["seven_colors %d×%d" % (size, size), r["moves"] // r["games"], "%.1f" % r["cpu_us_move"]])
    for width in (10, 20, 30):
        b = "{ game: amazons, width: %d }" % width
        r = median_of(lambda: run_tournament([b], [("a", "instant"), ("b", "instant")], 1, 1))
        rows.append(["amazons square %d" % width, r["moves"] // r["games"], "%.1f" % r["cpu_us_move"]])
    for pits in (6, 10, 20):
        b = "{ game: awale, pits: %d, random_opening_plies: 4 }" % pits
        r = median_of(lambda: run_tournament([b], [("a", "instant"), ("b", "instant")], 10, 1))
        rows.append(["awale %d pits" % pits, r["moves"] // r["games"], "%.1f" % r["cpu_us_move"]])
    say(table(["board", "plies a game", "runner CPU µs a move"], rows))

    # Memory.
    say("\n## Runner memory by concurrency\n")
    say(floor)
    rows = []
    sixteen = [("e%d" % i, "instant") for i in range(16)]
    for concurrency in (1, 8, 64):
        r = median_of(lambda: run_tournament(["{ game: awale, pits: 6 }"], sixteen, 1, concurrency))
        rows.append([concurrency, r["games"], "%.1f" % r["rss"]])
    say("16 instant engines, round robin on Awale 6 (each worker keeps its own engine processes).\n")
    say(table(["concurrency", "games", "peak RSS MiB"], rows))

    # Criterion.
    say("\n## Rules and ratings (criterion)\n")
    rows = criterion("rules") + criterion("ratings")
    say(table(["benchmark", "time", "throughput (plies/s)"], rows))
    say("\nRules: a whole random game per iteration, generating every legal move at every ply. Ratings: "
        "the joint fit with pair-clustered covariance.\n")
    say("\nReproduce: `scripts/bench.sh` (about 8 minutes on 2 cores; `BENCH_RUNS=1` for a quick look).")

    # Sections measured by other scripts follow the marker and are kept as they are.
    path = os.path.join(ROOT, "BENCHMARKS.md")
    kept = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if KEEP_MARKER in old:
            kept = "\n" + old[old.index(KEEP_MARKER):]
    with open(path, "w") as f:
        f.write("\n".join(report) + "\n" + kept)


if __name__ == "__main__":
    main()
