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
# The learning environments: the optimal stroke of a letter played in ShapingTrench-v0.
mkdir -p "$out/envs"
echo "== talus.envs ShapingTrench-v0 -> $out/envs/shaping_trench_A.png"
if ! PYTHONPATH="$(dirname "$talus")/../python" /usr/bin/python3 examples/render_trench_episode.py \
     A "$out/envs/shaping_trench_A.png"; then
  echo "   FAILED: examples/render_trench_episode.py" >&2
  status=1
fi
# The shipped DQN (data/agents/dqn_trench.pt) evaluated on the 26 letters.
echo "== DQN on ShapingTrench-v0 (data/agents/dqn_trench.pt) -> $out/envs/dqn_trench"
if ! PYTHONPATH="$(dirname "$talus")/../python" /usr/bin/python3 examples/train_dqn_trench.py \
     "$out/envs/dqn_trench" --evaluate data/agents/dqn_trench.pt | tail -1; then
  echo "   FAILED: examples/train_dqn_trench.py --evaluate" >&2
  status=1
fi
# The same stroke of T on the heightmap backend: the blade pushed through sand.
echo "== talus.envs ShapingTrench-v0, heightmap backend -> $out/envs/shaping_trench_T_heightmap.png"
if ! PYTHONPATH="$(dirname "$talus")/../python" /usr/bin/python3 examples/render_trench_episode.py \
     T "$out/envs/shaping_trench_T_heightmap.png" heightmap; then
  echo "   FAILED: examples/render_trench_episode.py (heightmap)" >&2
  status=1
fi
# ShapingStrokes-v0: the 26 letter goals drawn stroke by stroke by the environment.
echo "== talus.envs ShapingStrokes-v0 -> $out/envs/shaping_strokes_letters.png"
if ! PYTHONPATH="$(dirname "$talus")/../python" /usr/bin/python3 examples/render_stroke_letters.py \
     "$out/envs/shaping_strokes_letters.png" | tail -1; then
  echo "   FAILED: examples/render_stroke_letters.py" >&2
  status=1
fi
# The shipped DDPG + HER agent (data/agents/ddpg_her_strokes.pt) evaluated on the 26 letters.
echo "== DDPG + HER on ShapingStrokes-v0 (data/agents/ddpg_her_strokes.pt) -> $out/envs/ddpg_her"
if ! PYTHONPATH="$(dirname "$talus")/../python" /usr/bin/python3 examples/train_ddpg_her.py \
     "$out/envs/ddpg_her" --evaluate data/agents/ddpg_her_strokes.pt | tail -1; then
  echo "   FAILED: examples/train_ddpg_her.py --evaluate" >&2
  status=1
fi
echo "Outputs are in $out/ (open the .png files; summary.json holds each run's key figures)."
exit $status
