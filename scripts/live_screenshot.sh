#!/usr/bin/env bash
# Screenshots of a live page in headless Chromium (Debian package `chromium`), for a person to
# look at: the whole page and the `#projector` view. The page is drawn from the state at the
# time of the request, so a screenshot shows the run as it was then.
#
# Usage: scripts/live_screenshot.sh URL [SHOTS_DIR]
#   URL: what `arena run --serve` or `arena serve` printed (http://127.0.0.1:PORT/)
#   SHOTS_DIR: where the PNGs go (default: ./screenshots)
set -euo pipefail
url=${1:?usage: scripts/live_screenshot.sh URL [SHOTS_DIR]}
shots=${2:-screenshots}
mkdir -p "$shots"
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "no chromium: apt-get install -y chromium" >&2; exit 2; }
stamp=$(date +%H%M%S)

shoot() { # shoot NAME FRAGMENT WIDTH HEIGHT
  local profile
  profile=$(mktemp -d)
  # No virtual time budget: the page's update stream never ends, so the shot is taken at load.
  "$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
    --disable-background-networking --disable-component-update --hide-scrollbars \
    --timeout=15000 --user-data-dir="$profile" --screenshot="$shots/$1.png" \
    --window-size="$3,$4" "$url$2" >/dev/null 2>&1
  rm -rf "$profile"
  echo "$shots/$1.png"
}

shoot "live-$stamp" "" 1280 1400
shoot "live-projector-$stamp" "#projector" 1600 900
