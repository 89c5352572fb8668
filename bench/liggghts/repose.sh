#!/usr/bin/env bash
# The static pile's angle of repose, talus against LIGGGHTS (issue 19): 3,000 spheres of radius
# 3 mm (density 2500 kg/m^3, friction 0.5 between grains and against the floor) settle in a
# vertical cylinder of radius 4 cm; the cylinder is removed and they spread into a pile for 2 s.
# Both codes start from the same positions (make_pile.py), rotate their grains and use constant-
# torque rolling friction (LIGGGHTS's rolling_friction cdt; talus's implicit form), at each
# rolling friction in ROLLING (default "0 0.05 0.1 0.2 0.5"). The pile is measured by one function for
# both (repose.py). Prints the CPU, writes WORK_DIR/repose.md (table) and repose_mu_r_*.png
# (profiles).
#
#   bash bench/liggghts/repose.sh [BUILD_DIR] [WORK_DIR]
#
# Not part of `make bench`: LIGGGHTS needs minutes per pile.
# TALUS_ITERATIONS and TALUS_RELAXATION set talus's sweeps and relaxation (defaults 8 and 1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/liggghts/common.sh
source "$here/common.sh"
comparison_setup repose.sh liggghts-repose "$@"
"$python" "$here/make_pile.py" --data pile.data --csv pile.csv
: > results.jsonl
for rolling in ${ROLLING:-0 0.05 0.1 0.2 0.5}; do
  start=$(date +%s.%N)
  "${mpi[@]}" -np 2 liggghts -in "$here/pile.in" -var datafile pile.data -var rolling "$rolling" \
    -var column_radius 0.04 -var half_width 0.25 -var settle_steps 10000 -var collapse_steps 40000 \
    -var dump "pile_$rolling.dump" -log "log.pile_$rolling" > "pile_$rolling.out"
  lig_wall=$(echo "$(date +%s.%N) - $start" | bc)
  "$python" "$here/repose.py" run --python "$build/python" --csv pile.csv \
    --dump "pile_$rolling.dump" --liggghts-wall-s "$lig_wall" --rolling "$rolling" "${talus_solver[@]}" >> results.jsonl
done
"$python" "$here/repose.py" report --results results.jsonl --table repose.md --pictures . \
  --python "$build/python" --cpu "$cpu"
cat repose.md
echo "pictures: $work/repose_mu_r_*.png"
