#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, with clang) and runs each for SECONDS (default 30) from
# its seed corpus in fuzz/corpus/<target>/, in libFuzzer's fork mode so that one crash does not
# end the search, as many targets at once as there are cores. New inputs go to a scratch corpus
# in the build folder (the repository's corpus is only read). Every crashing input is kept in
# build-fuzz/artifacts/ and run again to see where it crashed:
#   - in talus's code (or with no library frame on top): the script fails. Turn the input into a
#     regression test (tests/data/fuzz/) and add it to the seed corpus;
#   - inside Debian's libhdf5 (its own parser overflows, or runs past the timeout, on some
#     corrupted files, with no talus frame between the failure and the HDF5 call;
#     scripts/fuzz_crash_site.sh decides): listed as a third-party crash, not a failure.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
build=build-fuzz
CXX=clang++ cmake -S fuzz -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j2 -- --no-print-directory
rm -rf "$build/artifacts"
mkdir -p "$build/artifacts"
# A malloc that fails returns NULL (as it does outside the sanitizer) rather than aborting: HDF5
# asks for huge buffers on corrupted files and must take its own error path. Leaks inside libhdf5
# on its error paths are suppressed (fuzz/lsan.supp).
export ASAN_OPTIONS=allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp
targets=(scenario mesh particle_state wrench_database)
# One libFuzzer worker per target (-fork=1): the targets run side by side, one per core, each for
# SECONDS as before (one after the other they left all cores but one idle).
jobs=$(nproc)
fuzz_target() {
  local target=$1 work="$build/corpus/$1"
  mkdir -p "$work"
  "$build/fuzz_$target" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=4000000 \
    -artifact_prefix="$build/artifacts/${target}-" "$work" "fuzz/corpus/$target" \
    > "$build/fuzz_$target.log" 2>&1 || true
}
running=()
for target in "${targets[@]}"; do
  if [ "${#running[@]}" -ge "$jobs" ]; then
    wait "${running[0]}"
    running=("${running[@]:1}")
  fi
  fuzz_target "$target" &
  running+=($!)
done
wait
status=0
for target in "${targets[@]}"; do
  echo "== fuzz_$target for $seconds s"
  grep -E "^#[0-9]+: cov" "$build/fuzz_$target.log" | tail -n 1 || true
  for input in "$build/artifacts/${target}-"*; do
    [ -e "$input" ] || continue
    report=$("$build/fuzz_$target" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=4000000 \
             "$input" 2>&1 || true)
    if grep -q "^Executed " <<< "$report" && ! grep -qE "ERROR|SUMMARY" <<< "$report"; then
      echo "   no longer fails: $input"
      continue
    fi
    site=$(bash scripts/fuzz_crash_site.sh <<< "$report")
    if [ "$site" = libhdf5 ]; then
      echo "   third-party crash inside libhdf5: $input"
    else
      grep -E 'ERROR|SUMMARY|^ +#[0-9]+ ' <<< "$report" | head -n 20 || true
      echo "   FAILED: fuzz_$target crashed in talus's code on $input" >&2
      status=1
    fi
  done
done
exit $status
