#!/usr/bin/env bash
# Builds in release and runs every benchmark of arena (runner overhead against the pipe floor,
# throughput, scaling, memory, rules and ratings), writing a fresh BENCHMARKS.md.
# BENCH_RUNS=N sets the runs per figure (default 3); BENCH_ONLY=sandbox (or record_moves) runs
# and prints that section alone; BENCH_CHAMPIONSHIP=1 adds the
# 100,000-game Seven Colors championship.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --workspace --quiet
python3 scripts/bench.py
