#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A person's view of the report: run the wakeup-fastpath experiment, write its HTML report and
# take a headless Chromium screenshot of it (and of a timeline SVG). Installs Debian's chromium
# when it is missing (needs root). Not part of CI; run it by hand and look at the PNGs.
#
#   tests/browser/screenshot.sh BUILD/schedlab [OUT_DIR]   (OUT_DIR default: build/)
set -eu
bin=$(realpath "$1"); out=$(realpath -m "${2:-build}")
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$bin" experiment "$src/scenarios/wakeup-fastpath.toml" --runs 5 --json "$work/exp.json" >/dev/null
"$bin" report "$work/exp.json" -o "$out/report.html"
"$bin" timeline "$work/exp.json" --config Cookie --from 1s --to 1.03s -o "$out/timeline.svg"
shot() {  # page, png, size
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot="$2" \
    --window-size="$3" "file://$1" 2>/dev/null
}
shot "$out/report.html" "$out/report-screenshot.png" 1400,3000
shot "$out/timeline.svg" "$out/timeline-screenshot.png" 1240,420
echo "wrote $out/report-screenshot.png and $out/timeline-screenshot.png"
