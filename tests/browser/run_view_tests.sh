#!/bin/bash
# Browser tests of `talus view` on real runs: runs one shipped scenario of each kind of scene
# (the particle pile, the shaping trench, the rover on SCM soil, the quadruped on the wrench
# tier), serves each with `talus view` and checks the page in headless Chromium with
# view_test.mjs (not blank, seeking changes the picture; open time and frame rate reported).
# Then a run whose first frame is cut short after the server started: the page must show the
# error. Screenshots go to SCREENSHOT_DIR for a person to look at.
#
#   tests/browser/run_view_tests.sh TALUS_BINARY VIEWER_BUNDLE_DIR SCREENSHOT_DIR
#
# Needs node (20+), viewer/node_modules (npm ci in viewer/, done by the build) and Debian's
# chromium. Prints one JSON line per case, then "N passed, N failed"; exits 1 if any failed.
set -u
talus=$1
bundle=$2
shots=$3
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d /tmp/talus-view-runs.XXXXXX)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill -INT "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$shots"

passed=0
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# view NAME RUN_DIR [view_test options]: serves RUN_DIR with talus view and checks the page.
# BEFORE_OPEN, when set, is run after the server has started and before the page opens; QUERY,
# when set, is added to the page's address.
view() {
  local name=$1 run_dir=$2
  shift 2
  local out="$tmp/view_$name.out"
  TALUS_VIEWER_DIR="$bundle" "$talus" view "$run_dir" >"$out" 2>&1 &
  server_pid=$!
  local url=
  for _ in $(seq 200); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$out" | head -1)
    [ -n "$url" ] && break
    sleep 0.05
  done
  if [ -z "$url" ]; then
    fail "$name: talus view did not start: $(cat "$out")"
  else
    [ -n "${BEFORE_OPEN:-}" ] && eval "$BEFORE_OPEN"
    if node "$here/view_test.mjs" --url "$url${QUERY:-}" --screenshots "$shots" --name "$name" "$@"; then
      passed=$((passed + 1))
    else
      fail "$name"
    fi
  fi
  kill -INT "$server_pid" 2>/dev/null
  wait "$server_pid"
  local code=$?
  server_pid=
  if [ "$code" -ne 0 ]; then fail "$name: talus view ended with exit code $code after Ctrl-C"; fi
}

for scenario in particles/pile shaping/trench_letter_A robots/rover_slope wrench/quadruped; do
  name=$(basename "$scenario")
  if ! "$talus" run "$repo/scenarios/$scenario.toml" --out "$tmp/runs/$name" -q >/dev/null; then
    fail "talus run $scenario"
    continue
  fi
  view "$name" "$tmp/runs/$name" --play-seconds 2
done

# Another case of the quadruped's run, chosen by the page's case selector (?case=).
if [ -d "$tmp/runs/quadruped" ]; then
  QUERY='?case=slope_drop_sand' view quadruped_slope_drop_sand "$tmp/runs/quadruped" \
    --play-seconds 1 --expect-title slope_drop_sand
fi

# A frame cut short while the page is being served (the run folder changed under the server):
# the page names the frame instead of drawing a blank canvas.
if [ -d "$tmp/runs/pile" ]; then
  cp -r "$tmp/runs/pile" "$tmp/runs/pile_cut"
  BEFORE_OPEN='head -c 100 "$tmp/runs/pile_cut/view/frames/000000.tvf" > "$tmp/cut.tvf" && mv "$tmp/cut.tvf" "$tmp/runs/pile_cut/view/frames/000000.tvf"' \
    view pile_cut "$tmp/runs/pile_cut" --expect-error
fi

echo "screenshots in $shots"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq 6 ]
