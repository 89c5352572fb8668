# Shared set-up of repose.sh and drum.sh (sourced): the build and work folders as absolute paths,
# LIGGGHTS present (refused with exit 2 otherwise), the MPI launcher, and the CPU printed.
# Sets: build, work, python, mpi, cpu and talus_solver (the --iterations and --relaxation that
# repose.py and drum.py run with, from TALUS_ITERATIONS and TALUS_RELAXATION, defaults 8 and 1);
# changes into the work folder.
# Usage: comparison_setup SCRIPT_NAME DEFAULT_WORK_SUBFOLDER [BUILD_DIR] [WORK_DIR]
comparison_setup() {
  local name=$1 subfolder=$2
  build="$(cd "${3:-build}" && pwd)"
  work="${4:-$build/$subfolder}"
  python=/usr/bin/python3
  mkdir -p "$work"
  work="$(cd "$work" && pwd)"
  command -v liggghts > /dev/null || {
    echo "$name: LIGGGHTS is not installed (apt-get install liggghts)" >&2
    exit 2
  }
  mpi=(mpirun --oversubscribe)
  [ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
  cpu=$(bash "$(dirname "${BASH_SOURCE[0]}")/../cpu_model.sh")
  echo "CPU: $cpu"
  talus_solver=(--iterations "${TALUS_ITERATIONS:-8}" --relaxation "${TALUS_RELAXATION:-1}")
  cd "$work"
}
