#!/usr/bin/env bash
# Regenerates the shipped wrench-space databases (data/wrench/<medium>.h5) with the particle tier,
# as sweeps (data/wrench/<medium>.sweep.toml: the acquisition of data/wrench/<medium>.toml split
# into one run per tilt, merged at the end). Builds first. Runs under `mpirun -np RANKS` (default
# 2; RANKS=1 runs on this process). A sweep killed part way is finished by running this again (only
# the unfinished tilts run); FRESH=1 starts each medium afresh. Each medium's sweep folder
# (out/wrench-data/<medium>/: the runs' pictures and tables, database.json with the merged
# database's concavity and cross validation) is kept.
# Usage: [RANKS=N] [FRESH=1] scripts/regenerate-wrench-data.sh [medium ...]
#        (default: every data/wrench/*.sweep.toml)
set -euo pipefail
cd "$(dirname "$0")/.."
make build
ranks=${RANKS:-2}
media=("$@")
if [ ${#media[@]} -eq 0 ]; then
  for spec in data/wrench/*.sweep.toml; do media+=("$(basename "$spec" .sweep.toml)"); done
fi
launcher=()
if [ "$ranks" -gt 1 ]; then
  launcher=(mpirun -np "$ranks")
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers run as root
fi
fresh=()
if [ "${FRESH:-0}" = 1 ]; then fresh=(--replace); fi
for medium in "${media[@]}"; do
  echo "== data/wrench/$medium.sweep.toml on $ranks rank(s)"
  start=$(date +%s)
  "${launcher[@]}" build/bin/talus sweep "data/wrench/$medium.sweep.toml" \
    --out "out/wrench-data/$medium" "${fresh[@]}"
  # Replace the shipped file only with a complete one: copy beside it, then rename.
  cp "out/wrench-data/$medium/database.h5" "data/wrench/.$medium.h5.tmp"
  mv "data/wrench/.$medium.h5.tmp" "data/wrench/$medium.h5"
  echo "   data/wrench/$medium.h5 ($(stat -c %s "data/wrench/$medium.h5") bytes, $(( $(date +%s) - start )) s)"
done
