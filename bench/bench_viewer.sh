#!/bin/bash
# The viewer's speed on this machine (issue 21's target: a 50,000-particle run of 500 frames opens
# in under 3 s and plays at 30 frames/s or more in headless Chromium): runs of that size in the
# talus-view format (tests/browser/make_fake_run.py: a randomly packed bed, and a lattice bed, each
# with a wave through it), served by `talus view`, opened and played by
# tests/browser/view_test.mjs three times each; prints the CPU model, the time talus view takes to
# check a run before serving, and the medians.
#
#   bench/bench_viewer.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
if [ ! -f "$build/viewer/index.html" ] || ! command -v node >/dev/null || [ ! -x /usr/bin/chromium ]; then
  echo "bench_viewer: skipped (needs the built viewer page, node and chromium)"
  exit 0
fi
tmp=$(mktemp -d /tmp/talus-bench-viewer.XXXXXX)
server_pid=
trap '[ -n "$server_pid" ] && kill -INT $server_pid 2>/dev/null; rm -rf "$tmp"' EXIT
echo "bench_viewer: CPU $(bash "$(dirname "$0")/cpu_model.sh")"
bench_one() { # LABEL [make_fake_run options]
  local label=$1
  shift
  rm -rf "$tmp/run" "$tmp/results.jsonl"
  /usr/bin/python3 "$repo/tests/browser/make_fake_run.py" --out "$tmp/run" --particles 50000 \
    --frames 500 "$@" >/dev/null || exit 1
  echo "bench_viewer: $label: 50,000 particles x 500 frames, $(du -sh "$tmp/run" | cut -f1)"
  local start url=
  start=$(date +%s%N)
  TALUS_VIEWER_DIR="$build/viewer" "$build/bin/talus" view "$tmp/run" >"$tmp/view.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 600); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$tmp/view.out" | head -1)
    [ -n "$url" ] && break
    sleep 0.02
  done
  [ -n "$url" ] || { echo "bench_viewer: talus view did not start: $(cat "$tmp/view.out")"; exit 1; }
  echo "bench_viewer: $label: talus view checked the run and served it after $(( ($(date +%s%N) - start) / 1000000 )) ms"
  for k in 1 2 3; do
    node "$repo/tests/browser/view_test.mjs" --url "$url" --screenshots "$tmp/shots" --name "b$k" \
      --play-seconds 3 >>"$tmp/results.jsonl" || { echo "bench_viewer: view_test failed"; exit 1; }
  done
  kill -INT "$server_pid"
  wait "$server_pid"
  server_pid=
  /usr/bin/python3 - "$tmp/results.jsonl" "$label" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
open_s = statistics.median(r["open_s"] for r in rows)
fps = statistics.median(r["avg_drawn_fps"] for r in rows)
load = [r.get("load_avg_1m") for r in rows]
print(f"bench_viewer: {sys.argv[2]}: open {open_s:.2f} s (target < 3 s), playback {fps:.1f} "
      f"frames/s drawn (target >= 30), medians of {len(rows)}; load average during the runs {load}")
PY
}
bench_one "random packing" --random-packing
bench_one "lattice"
