#!/usr/bin/env bash
# Runs every fuzz target of tests/fuzz.rs with a fixed budget of cases (default 20,000 each;
# pass another number as $1). Failures are minimised by proptest and saved in
# tests/fuzz.proptest-regressions, which every later `cargo test` replays first: commit that
# file to keep the crash as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
PROPTEST_CASES="${1:-20000}" cargo test --release --test fuzz -- --test-threads 2
