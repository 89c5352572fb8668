#!/usr/bin/env bash
# talus's particle tier against LIGGGHTS (Hertz-Mindlin DEM) on the same physical bed: 50,000
# spheres of radius 1 cm, density 1631 kg/m^3, friction 0.577 ('Beads', paper 000), settled at rest
# in a vertical cylinder of radius 0.23 m (a bed about 4.5 times taller than wide).
#
#   bash bench/liggghts/compare.sh [BUILD_DIR] [WORK_DIR]
#
# COUNT and CYLINDER_RADIUS_M (defaults 50000 and 0.23) choose another column of the same grains
# (COUNT=6000 CYLINDER_RADIUS_M=0.12: a column about 55 grains deep, docs/particles.md §5b).
#
# Installs LIGGGHTS from Debian if missing, writes the shared initial positions, settles the bed
# in each code (LIGGGHTS's settled restart is cached in WORK_DIR: settling takes tens of minutes),
# times each code on the bed at rest and prints simulated seconds per wall second, their ratio,
# and each bed's height and packing fraction. Not part of `make bench` (it takes too long).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build}"
build="$(cd "$build" && pwd)"  # absolute: the script works inside WORK_DIR
work="${2:-$build/liggghts}"
python=/usr/bin/python3
mkdir -p "$work"
work="$(cd "$work" && pwd)"

if ! command -v liggghts > /dev/null; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends liggghts
fi
mpi=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)

cd "$work"
count=${COUNT:-50000}
cylinder=${CYLINDER_RADIUS_M:-0.23}
bed="bed_n${count}_r${cylinder}"  # the shared initial positions of this column, cached
[ -f "$bed.csv" ] || "$python" "$here/make_bed.py" --count "$count" --cylinder-radius-m "$cylinder" \
  --data "$bed.data" --csv "$bed.csv"

# Rolling friction of both codes' rotating grains (constant torque: LIGGGHTS's rolling_friction
# cdt, talus's implicit form); TALUS_ROTATION=0 runs paper 001's non-rotating grains on the talus
# side instead (LIGGGHTS's grains always rotate; give ROLLING=0 there).
rolling=${ROLLING:-0.1}
talus_grains=(--rolling-friction "$rolling")
[ "${TALUS_ROTATION:-1}" = 0 ] && talus_grains=(--no-rotation)
lig_steps=${LIGGGHTS_SETTLE_STEPS:-40000}
restart="${bed}_rolling$rolling.restart"
if [ ! -f "$restart" ]; then
  echo "LIGGGHTS: settling ($lig_steps steps of 2.5e-5 s on 2 processes; this takes a while)"
  "${mpi[@]}" -np 2 liggghts -in "$here/settle.in" -var datafile "$bed.data" -var restart "$restart" \
    -var settle_steps "$lig_steps" -var dump "${bed}_rolling$rolling.dump" -var rolling "$rolling" -var cylinder_radius "$cylinder" \
    -log log.settle > settle.out
fi

lig_rate() {  # processes steps -> simulated seconds per wall second, median of 3 runs
  local r
  for r in 1 2 3; do
    "${mpi[@]}" -np "$1" liggghts -in "$here/time.in" -var restart "$restart" -var steps "$2" \
      -var rolling "$rolling" -var cylinder_radius "$cylinder" \
      -log "log.time$1.$r" > "time$1.$r.out"
    awk -v steps="$2" '/^Loop time of/ {printf "%.6f\n", steps * 2.5e-5 / $4}' "log.time$1.$r"
  done | sort -g | sed -n 2p
}
timed_steps=${LIGGGHTS_TIMED_STEPS:-400}
lig1=$(lig_rate 1 "$timed_steps")
lig2=$(lig_rate 2 "$timed_steps")
lig_stats=$("$python" "$here/bed_stats.py" "${bed}_rolling$rolling.dump" --cylinder-radius-m "$cylinder")

# talus: 2.5 s of settling at dt 1e-3 s, then timed at rest, 4 sweeps throughout, contact margin
# 0.1 radius. The margin keeps the contacts of touching neighbours (gap just above zero) in the
# list, and with them their warm-start impulses: without it the 4-sweep bed compacted to 6 % below
# LIGGGHTS's height (docs/particles.md §5b). dt 1e-3 s is the largest step that keeps this bed at
# rest (1.25e-3 s let it compact 1.6 % in 0.5 s). TALUS_SETTLE_ITERATIONS sweeps per step while
# settling (default: TALUS_ITERATIONS): rotating grains settle with 4 sweeps into a bed denser than
# LIGGGHTS's, with 32 or 64 to within 1.3 % on a 6,000-grain column; whether the timed run's 4
# sweeps then hold that bed is what talus_settled.csv shows (it is written after the timed run;
# docs/particles.md §5b: the 64-sweep bed did not hold).
talus_line=$("$build/bin/talus_particle_bed" --in "$bed.csv" --out talus_settled.csv --threads 2 \
  --cylinder-radius-m "$cylinder" \
  --settle-s "${TALUS_SETTLE_S:-2.5}" --settle-dt 1e-3 --iterations "${TALUS_ITERATIONS:-4}" \
  --settle-iterations "${TALUS_SETTLE_ITERATIONS:-${TALUS_ITERATIONS:-4}}" \
  --contact-margin-radii "${TALUS_MARGIN_RADII:-0.1}" --relaxation "${TALUS_RELAXATION:-1}" --dt "${TALUS_DT:-1e-3}" \
  --time-s "${TALUS_TIME_S:-0.5}" --repeats "${TALUS_REPEATS:-3}" "${talus_grains[@]}" \
  2> talus_settle.log)
talus_rate=$(sed -E 's/.*sim_s_per_wall_s=([0-9.e+-]+).*/\1/' <<< "$talus_line")
talus_stats=$("$python" "$here/bed_stats.py" talus_settled.csv --cylinder-radius-m "$cylinder")

echo "CPU: $(bash "$here/../cpu_model.sh")"
echo "grains: rolling friction $rolling (talus: ${talus_grains[*]})"
echo "LIGGGHTS 1 process : $lig1 simulated s per wall s"
echo "LIGGGHTS 2 processes: $lig2 simulated s per wall s"
echo "LIGGGHTS bed        : $lig_stats"
echo "talus 2 threads     : $talus_rate simulated s per wall s ($talus_line)"
echo "talus bed           : $talus_stats"
awk -v t="$talus_rate" -v l="$lig2" 'BEGIN {printf "ratio talus / LIGGGHTS (2 cores): %.1f\n", t / l}'
