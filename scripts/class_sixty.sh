#!/usr/bin/env bash
# A class of 60 teams, to measure a championship at the size docs/class.md estimates: 20 copies
# each of the example teams' random, capture-greedy and 2-ply Python bots (examples/submissions),
# anonymized and in the sandbox, graded against random, greedy and alphabeta. Prints check's
# estimate, then the run's own figures and how many teams reached each level. A fixed salt
# (a kept pseudonyms.csv) fixes the pseudonyms, hence the engine seeds and the games.
#
# Usage: scripts/class_sixty.sh [DIR]   (after `cargo build --release --workspace`; DIR default /tmp/class-sixty)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/class-sixty}
rm -rf "$dir" && mkdir -p "$dir/subs"
ex=$root/examples/submissions
for i in $(seq -w 1 60); do
  team=$dir/subs/team-$i
  mkdir -p "$team"
  case $((10#$i % 3)) in
    0) cp "$ex/team-basalt/bot.py" "$team/bot.py"; cp "$ex/team-basalt/arena.yaml" "$team/arena.yaml" ;;
    1) cp "$ex/team-amber/engine.py" "$team/engine.py" ;;
    2) cp "$root/engines/python/random_engine.py" "$team/engine.py" ;;
  esac
done
# The bots import arena's Python template by a path relative to the example folder.
sed -i "s#\"../../../engines/python\"#\"$root/engines/python\"#" "$dir"/subs/*/*.py
sed -e "s#submissions: ../examples/submissions#submissions: $dir/subs#" \
    -e "s#^output: .*#output: $dir/out\nanonymize: true#" \
    -e "s#target/release/#$root/target/release/#g" \
    -e "s#read: \[engines/python\]#read: [$root/engines/python]#" \
    "$root/configs/class_championship.yaml" > "$dir/class60.yaml"
mkdir -p "$dir/out"
printf 'salt,%s\n' "$(printf '5a%.0s' $(seq 32))" > "$dir/out/pseudonyms.csv"
arena=$root/target/release/arena
"$arena" check "$dir/class60.yaml" | grep -E 'found|class of 60|estimated time'
/usr/bin/time -f '%e s wall' "$arena" run "$dir/class60.yaml" --force 2>&1 | grep -E '^[0-9]+ games:|^runner:| s wall'
echo "levels:"; cut -d, -f8 "$dir/out/teams.csv" | tail -n +2 | sort | uniq -c
