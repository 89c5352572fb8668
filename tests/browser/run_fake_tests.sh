#!/bin/bash
# Browser tests of the talus view page on fake runs (no talus build needed):
# runs the format parser's unit tests (format_test.mjs), builds the viewer bundle into a
# temporary folder, writes fake run folders with make_fake_run.py, serves each with
# fake_server.py and checks it with view_test.mjs.
#
#   tests/browser/run_fake_tests.sh [SCREENSHOT_DIR]
#
# Needs node (20+), /usr/bin/python3, viewer/node_modules (npm ci in viewer/; installed here if missing)
# and Debian's chromium at /usr/bin/chromium. Prints one JSON line per case, then
# "N passed, N failed"; exits 1 if any case failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d /tmp/talus-view-test.XXXXXX)
shots=${1:-$tmp/screenshots}
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  rm -rf "$tmp/bundle" "$tmp/runs"
  [ "$shots" = "$tmp/screenshots" ] || rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -d "$repo/viewer/node_modules" ]; then
  (cd "$repo/viewer" && npm ci --no-audit --no-fund) || { echo "npm ci failed"; exit 1; }
fi
node "$repo/viewer/build.mjs" "$tmp/bundle" || { echo "building the viewer failed"; exit 1; }

fake() { /usr/bin/python3 "$here/make_fake_run.py" --out "$tmp/runs/$1" "${@:2}" >/dev/null || exit 1; }
fake particles --particles 20000 --frames 40
fake random_packing --particles 20000 --frames 10 --random-packing --radii
fake particles_quantised --particles 2001 --frames 12 --quantised --radii
fake heightmap_bodies --heightmap 121x61 --bodies --frames 30
fake robots --particles 3000 --heightmap 61x31 --bodies --frames 10 --tier robots
fake one_frame --particles 500 --frames 1
fake truncated_frame --particles 2000 --frames 10 --truncate-frame 5
fake missing_frame --heightmap 41x21 --bodies --frames 10 --missing-frame 4
fake truncated_first --particles 1000 --frames 3 --truncate-frame 0
mkdir -p "$tmp/runs/no_manifest/view"
fake bad_manifest --particles 100 --frames 2
sed -i 's/"version": 1/"version": 2/' "$tmp/runs/bad_manifest/view/manifest.json"

passed=0
failed=0
if node --test "$here/format_test.mjs" >"$tmp/format_test.out" 2>&1; then
  echo "format_test.mjs: $(grep -E '^# (pass|fail) ' "$tmp/format_test.out" | tr '\n' ' ')"
  passed=$((passed + 1))
else
  cat "$tmp/format_test.out"
  echo "FAIL format_test.mjs"
  failed=$((failed + 1))
fi

run_case() { # name query [view_test options]
  local name=$1 query=$2
  shift 2
  # The output file is emptied here, before the server starts: the cases of one run folder share
  # its name, and the background shell truncates it only when it gets to run, so under load the
  # loop below read the previous case's "serving" line and opened a closed port
  # (ERR_CONNECTION_REFUSED on particles ?cull=0 in a full ctest -j2).
  local out="$tmp/server_$name.out"
  : >"$out"
  /usr/bin/python3 "$here/fake_server.py" --bundle "$tmp/bundle" --run "$tmp/runs/$name" --port 0 >"$out" &
  server_pid=$!
  local url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^serving //p' "$out")
    [ -n "$url" ] && break
    sleep 0.05
  done
  if [ -z "$url" ]; then
    echo "FAIL $name: the fake server did not start"
    failed=$((failed + 1))
  elif node "$here/view_test.mjs" --url "$url$query" --screenshots "$shots" --name "$name${query:+_${query#?}}" "$@"; then
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
  kill "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=
}

# The query selects renderer options (see viewer/src/main.js); "" is the page's defaults.
run_case particles "" --play-seconds 2
run_case particles "?cull=0" --play-seconds 1
run_case particles "?particles=spheres" --play-seconds 1
run_case random_packing "" --play-seconds 1
run_case particles_quantised "" --play-seconds 1
run_case heightmap_bodies "" --play-seconds 2
run_case robots "" --play-seconds 1
run_case one_frame ""
run_case truncated_frame "" --expect-error
run_case missing_frame "" --expect-error
run_case truncated_first "" --expect-error
run_case no_manifest "" --expect-error
run_case bad_manifest "" --expect-error

echo "screenshots in $shots"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
