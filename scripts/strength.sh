#!/usr/bin/env bash
# Plays every strength match of configs/strength/ with the release engines and prints, per
# match, the two-engine summary line (Elo +/- 95% interval, LOS, pentanomial) and the
# terminations. Takes about half an hour on 2 cores (concurrency 1, so timing stays honest).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --workspace --quiet
for config in configs/strength/*.yaml; do
  name=$(basename "$config" .yaml)
  echo "== $name: $(head -1 "$config" | sed 's/^# //')"
  ./target/release/arena run "$config" --force 2>/dev/null | grep -E " vs |games:|^ +[12] "
done
