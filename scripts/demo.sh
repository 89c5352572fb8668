#!/usr/bin/env bash
# Runs every shipped scenario with the talus CLI and lists what each wrote.
# Usage: scripts/demo.sh path/to/talus OUT_DIR
set -euo pipefail
talus=$1
out=$2
mkdir -p "$out"
status=0
# run SCENARIO DEST [talus run options]
run() {
  local scenario=$1 dest=$2
  shift 2
  echo "== $scenario $* -> $dest"
  local start elapsed_ms
  start=$(date +%s%N)
  if "$talus" run "$scenario" --out "$dest" --replace "$@"; then
    elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '   done in %d.%03d s: %s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000)) "$(ls "$dest" | tr '\n' ' ')"
  else
    echo "   FAILED: $scenario $*" >&2
    status=1
  fi
}
for scenario in $(find scenarios -name '*.toml' | sort); do
  tier=$(basename "$(dirname "$scenario")")
  name=$(basename "$scenario" .toml)
  if [ "$tier" = terrain ]; then
    # A [terrain] file runs unchanged on each tier that simulates the ground itself.
    for ground in shaping scm particles; do
      run "$scenario" "$out/terrain/${name}_$ground" --tier "$ground"
    done
  else
    run "$scenario" "$out/$tier/$name"
  fi
done
# Parameter sweeps (sweeps/*.toml, `talus sweep`): on 2 ranks under mpirun when OpenMPI is
# installed (allowed as root, as in CI containers), else on this process.
launcher=()
if command -v mpirun >/dev/null; then
  launcher=(mpirun -np 2)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
fi
for sweep_file in $(find sweeps -name '*.toml' | sort); do
  dest="$out/sweeps/$(basename "$sweep_file" .toml)"
  echo "== ${launcher[*]} talus sweep $sweep_file -> $dest"
  if "${launcher[@]}" "$talus" sweep "$sweep_file" --out "$dest" --replace -q; then
    echo "   $(ls "$dest" | tr '\n' ' ')"
  else
    echo "   FAILED: talus sweep $sweep_file" >&2
    status=1
  fi
done
# example TITLE DEST SCRIPT [ARGS]: a Python example of the learning environments, its last line
# of output shown (pipefail keeps its exit status).
example() {
  local title=$1 dest=$2 script=$3
  shift 3
  echo "== $title -> $dest"
  if ! PYTHONPATH="$(dirname "$talus")/../python" /usr/bin/python3 "examples/$script" "$@" |
       tail -1; then
    echo "   FAILED: examples/$script $*" >&2
    status=1
  fi
}
mkdir -p "$out/envs"
# The optimal stroke of a letter played in ShapingTrench-v0, on the binary map and in sand.
example "talus.envs ShapingTrench-v0" "$out/envs/shaping_trench_A.png" render_trench_episode.py \
  A "$out/envs/shaping_trench_A.png"
example "talus.envs ShapingTrench-v0, heightmap backend" \
  "$out/envs/shaping_trench_T_heightmap.png" render_trench_episode.py \
  T "$out/envs/shaping_trench_T_heightmap.png" heightmap
# The shipped DQN (data/agents/dqn_trench.pt) evaluated on the 26 letters.
example "DQN on ShapingTrench-v0 (data/agents/dqn_trench.pt)" "$out/envs/dqn_trench" \
  train_dqn_trench.py "$out/envs/dqn_trench" --evaluate data/agents/dqn_trench.pt
# ShapingStrokes-v0: the 26 letter goals drawn stroke by stroke by the environment.
example "talus.envs ShapingStrokes-v0" "$out/envs/shaping_strokes_letters.png" \
  render_stroke_letters.py "$out/envs/shaping_strokes_letters.png"
# The shipped DDPG + HER agent (data/agents/ddpg_her_strokes/, a run's four checkpoints acting
# as one ensemble) evaluated on the 26 letters, one search seed (docs/envs.md gives ten).
example "DDPG + HER on ShapingStrokes-v0 (data/agents/ddpg_her_strokes)" "$out/envs/ddpg_her" \
  train_ddpg_her.py "$out/envs/ddpg_her" --evaluate data/agents/ddpg_her_strokes --search-seeds 1 \
  --skip-as-trained
# Bulldozing-v0 (particles): the scripted push against a random policy, on a reduced heap.
example "talus.envs Bulldozing-v0 baselines" "$out/envs/bulldozing" bulldozing_baselines.py \
  "$out/envs/bulldozing" --particles 2000 --radius 0.034 --time-step 0.002
example "talus.envs Bulldozing-v0 baselines, dynamic bulldozer" "$out/envs/bulldozing" \
  bulldozing_baselines.py "$out/envs/bulldozing" --particles 2000 --radius 0.034 \
  --time-step 0.002 --vehicle dynamic
# RoverSlope-v0 (SCM): the scripted drive up the slope against a random policy.
example "talus.envs RoverSlope-v0 baselines" "$out/envs/rover_slope" rover_slope_baselines.py \
  "$out/envs/rover_slope"
# QuadrupedGranular-v0 (wrench spaces): the scripted trot, standing still and a random policy.
example "talus.envs QuadrupedGranular-v0 baselines" "$out/envs/quadruped" quadruped_baselines.py \
  "$out/envs/quadruped"
# Excavation-v0 (particles, paper 001 §III-C): the scripted scoop against a random policy.
example "talus.envs Excavation-v0 baselines" "$out/envs/excavation" excavation_baselines.py \
  "$out/envs/excavation"
# A video of a run (talus run --video: its frames drawn and encoded by ffmpeg).
if command -v ffmpeg >/dev/null; then
  run scenarios/robots/rover_slope.toml "$out/videos/rover_slope" --video -q
fi
echo "Outputs are in $out/ (open the .png files; summary.json holds each run's key figures)."
echo "Watch any run in a web browser: $talus view $out/robots/rover_slope (docs/viewer.md)."
exit $status
