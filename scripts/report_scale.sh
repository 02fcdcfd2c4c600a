#!/usr/bin/env bash
# Scale check of report.html (issue 13): plays ROUNDS game pairs of the Seven Colors
# championship (30x30, greedy vs random-available), replicates those games into a
# 100,000-game games.csv (fresh game and pair ids, same boards and moves), then times
# `arena report` on it and measures the page's size and its load time in headless Chromium
# (the page writes the milliseconds from navigation to a ready viewer into
# <body data-ready-ms>).
#
# Usage: scripts/report_scale.sh [OUT_DIR] [ROUNDS]   (release build; python3, chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/arena-report-scale}
rounds=${2:-250}
target=100000
mkdir -p "$out"
sed "s/^rounds: .*/rounds: $rounds/" configs/seven_colors_championship.yaml >"$out/champ.yaml"
./target/release/arena run "$out/champ.yaml" --output "$out/run" --force -q
python3 - "$out/run/games.csv" "$target" <<'PY'
import csv, sys
src, target = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(src, newline="")))
with open(src, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    for i in range(target):
        r = dict(rows[i % len(rows)])
        r["game_id"], r["pair"], r["round"] = i, i // 2, i // 2 + 1
        w.writerow(r)
PY
ls -l "$out/run/games.csv"
/usr/bin/time -f "arena report: %e s wall, %M KiB peak RSS" \
  ./target/release/arena report "$out/run"
ls -l "$out/run/report.html" "$out/run/results.xlsx"
chrome=$(command -v chromium || command -v chromium-browser)
profile=$(mktemp -d)
start=$(date +%s.%N)
"$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --dump-dom "file://$(cd "$out/run" && pwd)/report.html" \
  2>/dev/null | grep -o 'data-ready-ms="[0-9]*"'
end=$(date +%s.%N)
rm -rf "$profile"
echo "chromium --dump-dom wall: $(echo "$end - $start" | bc) s (includes browser start)"
