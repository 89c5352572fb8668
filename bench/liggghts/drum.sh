#!/usr/bin/env bash
# The rotating drum, talus against LIGGGHTS (issue 19): about 1,000 spheres of radius 3 mm
# (2500 kg/m^3, friction 0.5 between grains and against the drum, rolling friction ROLLING,
# default 0.1) half fill a drum of radius 8 cm and length 4 cm turning about a horizontal axis at
# each speed in RPM (default "10 30"). Both codes start from the same grains and drum
# (make_drum.py: a signed-distance mesh for talus, an STL mesh wall for LIGGGHTS), rotate their
# grains with constant-torque rolling friction, and their free surfaces are measured by one rule
# (drum.py). Prints the CPU, writes WORK_DIR/drum.md (table) and drum_<rpm>rpm.png (surfaces).
#
#   bash bench/liggghts/drum.sh [BUILD_DIR] [WORK_DIR]
#
# Not part of `make bench`.
# TALUS_ITERATIONS and TALUS_RELAXATION set talus's sweeps and relaxation (defaults 8 and 1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/liggghts/common.sh
source "$here/common.sh"
comparison_setup drum.sh liggghts-drum "$@"
"$python" "$here/make_drum.py" --out .
rolling=${ROLLING:-0.1}
: > results.jsonl
for rpm in ${RPM:-10 30}; do
  period=$(echo "60 / $rpm" | bc -l)
  start=$(date +%s.%N)
  "${mpi[@]}" -np 2 liggghts -in "$here/drum.in" -var datafile drum.data -var stl drum.stl \
    -var rolling "$rolling" -var period "$period" -var settle_steps 10000 -var spin_steps 20000 \
    -var gap_steps 10000 -var dump "drum_$rpm" -log "log.drum_$rpm" > "drum_$rpm.out"
  lig_wall=$(echo "$(date +%s.%N) - $start" | bc)
  "$python" "$here/drum.py" run --python "$build/python" --csv drum.csv --obj drum.obj \
    --dump "drum_$rpm" --liggghts-wall-s "$lig_wall" --period-s "$period" --rolling "$rolling" \
    "${talus_solver[@]}" >> results.jsonl
done
"$python" "$here/drum.py" report --python "$build/python" --results results.jsonl --table drum.md \
  --pictures . --cpu "$cpu"
cat drum.md
echo "pictures: $work/drum_*rpm.png"
