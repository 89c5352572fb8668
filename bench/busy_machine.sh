#!/usr/bin/env bash
# Speed on a busy machine (issue 16): each scenario run with 1 thread on an idle machine, then
# with talus's default threads (adaptive, core/threads.hpp) and with a fixed --threads 2 while a
# second process keeps one core busy. Prints the CPU model and the median of REPEAT runs.
# Usage: bench/busy_machine.sh [REPEAT] (default 3); run it with nothing else of yours running.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-3}
talus=build/bin/talus
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; [ -n "${busy:-}" ] && kill "$busy" 2>/dev/null || true' EXIT
bash bench/cpu_model.sh
median_s() {  # median wall time of `repeat` runs of: talus run SCENARIO ARGS...
  local times=()
  for _ in $(seq "$repeat"); do
    rm -rf "$scratch/out"
    local start=$(date +%s%N)
    "$talus" run "$@" --out "$scratch/out" -q > /dev/null
    times+=($(( ($(date +%s%N) - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}
scenarios=(scenarios/shaping/wheel_trench.toml scenarios/shaping/blade_push.toml
           scenarios/particles/pile.toml scenarios/scm/single_wheel.toml)
declare -A idle
for s in "${scenarios[@]}"; do idle[$s]=$(median_s "$s" --threads 1); done
/usr/bin/python3 -c "while True: pass" & busy=$!
sleep 0.5
printf '%-40s %12s %14s %8s %16s %8s\n' scenario "1 thr idle" "default busy" ratio "--threads 2 busy" ratio
for s in "${scenarios[@]}"; do
  a=$(median_s "$s")
  f=$(median_s "$s" --threads 2)
  printf '%-40s %10s s %12s s %8.2f %14s s %8.2f\n' "$s" "${idle[$s]}" "$a" \
    "$(awk -v x="$a" -v y="${idle[$s]}" 'BEGIN {print x / y}')" "$f" "$(awk -v x="$f" -v y="${idle[$s]}" 'BEGIN {print x / y}')"
done
