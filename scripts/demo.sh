#!/usr/bin/env bash
# Runs every shipped scenario with the talus CLI and lists what each wrote.
# Usage: scripts/demo.sh path/to/talus OUT_DIR
set -euo pipefail
talus=$1
out=$2
mkdir -p "$out"
status=0
for scenario in $(find scenarios -name '*.toml' | sort); do
  tier=$(basename "$(dirname "$scenario")")
  name=$(basename "$scenario" .toml)
  dest="$out/$tier/$name"
  echo "== $scenario -> $dest"
  start=$(date +%s%N)
  if "$talus" run "$scenario" --out "$dest" --replace; then
    elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '   done in %d.%03d s: %s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000)) "$(ls "$dest" | tr '\n' ' ')"
  else
    echo "   FAILED: $scenario" >&2
    status=1
  fi
done
echo "Outputs are in $out/ (open the .png files; summary.json holds each run's key figures)."
exit $status
