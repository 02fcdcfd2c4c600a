#!/usr/bin/env bash
# Screenshots of OUTPUT_DIR/report.html in headless Chromium (Debian package `chromium`), for
# a person to look at: the standings, crosstable, terminations, game list, and the game viewer
# for one embedded game of each board at the start, after the first ply, mid-game and at the
# end, through the page's `#game=ID&ply=N&solo=viewer` fragment (which shows the viewer
# alone). PNGs go to OUTPUT_DIR/screenshots/ (or $SHOTS).
#
# Usage: scripts/screenshot.sh OUTPUT_DIR   (needs python3 to pick the games)
set -euo pipefail
dir=${1:?usage: scripts/screenshot.sh OUTPUT_DIR}
report="$(cd "$dir" && pwd)/report.html"
[ -f "$report" ] || { echo "$report: no such file (run arena run or arena report first)" >&2; exit 2; }
shots=${SHOTS:-$dir/screenshots}
mkdir -p "$shots"
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "no chromium: apt-get install -y chromium" >&2; exit 2; }

shoot() { # shoot NAME FRAGMENT WIDTH HEIGHT
  local profile
  profile=$(mktemp -d)
  "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --virtual-time-budget=3000 --user-data-dir="$profile" \
    --screenshot="$shots/$1.png" --window-size="$3,$4" "file://$report$2" >/dev/null 2>&1
  rm -rf "$profile"
  echo "$shots/$1.png"
}

shoot standings "#solo=standings" 1200 1400
shoot config "#solo=config" 1200 800
shoot crosstable "#solo=crosstable" 1200 700
shoot boards "#solo=boards" 1200 1400
shoot terminations "#solo=terminations" 1200 900
shoot time "#solo=time" 1200 600
shoot games "#solo=list" 1200 800
# One embedded game per board (per skeleton): "game id plies" lines from the page's data.
python3 - "$report" <<'PY' | while read -r game id plies; do
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
data = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
seen = set()
for g in json.loads(data.group(1).replace("<\\/", "</")):
    if g["k"] not in seen and len(g["m"]) >= 2:
        seen.add(g["k"])
        print(g["g"], g["id"], len(g["m"]))
PY
  for ply in 0 1 $((plies / 2)) "$plies"; do
    shoot "viewer-$game-$id-ply$ply" "#game=$id&ply=$ply&solo=viewer" 900 1100
  done
done
