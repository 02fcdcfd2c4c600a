#!/usr/bin/env bash
# Reruns the course figures of docs/course-results.md and rewrites its measured tables:
# every configs/course/*.yaml, then the board-size sweep of greedy against random-available
# (10,000 games per size) and the hybrid's switch point against greedy, at concurrency =
# cores. About 4 to 6 minutes on 2 cores.
# Usage: scripts/course-results.sh [--skip-build]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--skip-build" ]; then
  cargo build --release --workspace
fi
arena=./target/release/arena
cores=$(nproc)
results=results/course

for config in configs/course/*.yaml; do
  name=$(basename "$config" .yaml)
  echo "== $name"
  "$arena" run --force --quiet --concurrency "$cores" --output "$results/$name" "$config"
done

# The sweep: the championship config at other sizes, 5,000 game pairs each.
sweep_dir=$(mktemp -d)
trap 'rm -rf "$sweep_dir"' EXIT
for size in 8 9 10 11 12 13; do
  echo "== sweep ${size}x${size}"
  sed -e "s/size: 10,/size: $size,/" -e "s/^rounds: .*/rounds: 5000/" \
    -e "s/^name: .*/name: course-sweep-$size/" \
    configs/course/greedy_vs_random_available.yaml >"$sweep_dir/sweep-$size.yaml"
  grep -q "size: $size," "$sweep_dir/sweep-$size.yaml"
  # Engine paths in the config are relative to this directory, where arena runs.
  "$arena" run --force --quiet --concurrency "$cores" --output "$results/sweep-$size" \
    "$sweep_dir/sweep-$size.yaml"
done

# The hybrid's switch point: hegemonic while more than P% of the board is neutral, against
# greedy, 1,000 game pairs each.
for percent in 50 70 80 85 90 95; do
  echo "== hybrid switching at ${percent}%"
  sed -e "s/^name: .*/name: course-switch-$percent/" \
    -e "s/{ name: hybrid, command: target\/release\/hybrid }/{ name: hybrid, command: target\/release\/hybrid, options: { SwitchPercent: $percent } }/" \
    configs/course/hybrid_vs_greedy.yaml >"$sweep_dir/switch-$percent.yaml"
  grep -q "SwitchPercent: $percent" "$sweep_dir/switch-$percent.yaml"
  "$arena" run --force --quiet --concurrency "$cores" --output "$results/switch-$percent" \
    "$sweep_dir/switch-$percent.yaml"
done

python3 scripts/course_results.py docs/course-results.md "$results"
echo "rewrote docs/course-results.md"
