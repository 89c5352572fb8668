#!/usr/bin/env bash
# Regenerates the shipped wrench-space databases (data/wrench/<medium>.h5) from their acquisition
# scenarios (data/wrench/<medium>.toml) with the particle tier. Builds first. Each medium's run
# folder (pictures, runs.csv, summary.json with the concavity and cross-validation tables) is kept
# in out/wrench-data/<medium>/.
# Usage: scripts/regenerate-wrench-data.sh [medium ...]   (default: every data/wrench/*.toml)
set -euo pipefail
cd "$(dirname "$0")/.."
make build
media=("$@")
if [ ${#media[@]} -eq 0 ]; then
  for spec in data/wrench/*.toml; do media+=("$(basename "$spec" .toml)"); done
fi
for medium in "${media[@]}"; do
  echo "== data/wrench/$medium.toml"
  build/bin/talus run "data/wrench/$medium.toml" --out "out/wrench-data/$medium" --replace
  # Replace the shipped file only with a complete one: copy beside it, then rename.
  cp "out/wrench-data/$medium/database.h5" "data/wrench/.$medium.h5.tmp"
  mv "data/wrench/.$medium.h5.tmp" "data/wrench/$medium.h5"
  echo "   data/wrench/$medium.h5 ($(stat -c %s "data/wrench/$medium.h5") bytes)"
done
