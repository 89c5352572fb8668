"""talus sweep over MPI (issue 22): `mpirun -np 2` gives the same results as the runs done one by
one with `talus run`; killing a rank mid-sweep and starting again finishes every run exactly once;
damaged or foreign files are refused and left alone; a rank that cannot reach the output folder
stops the sweep before any run, leaving nothing; talus.sweep.load reads the results."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from talus import sweep

CLI = str(Path(os.environ.get("TALUS_CLI", "build/bin/talus")).resolve())
SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PLATE = SOURCE / "scenarios/scm/plate_sinkage.toml"
MPIRUN = shutil.which("mpirun")


def mpi_env():
    env = dict(os.environ)
    # CI runs as root; OpenMPI refuses that unless told. The sanitizer build preloads ASan into
    # the interpreter: mpirun itself must not get it (the talus binary carries its own).
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", TALUS_THREADS="1")
    env.pop("LD_PRELOAD", None)
    return env


def write_sweep(path: Path, grid: str, extra: str = "") -> Path:
    path.write_text(f'[sweep]\nname = "{path.stem}"\nscenario = "{PLATE}"\n{extra}\n[grid]\n{grid}')
    return path


def talus_sweep(sweep_file, out, ranks=2, **kwargs):
    command = [CLI, "sweep", str(sweep_file), "--out", str(out), "-q"]
    if ranks > 1:
        assert MPIRUN, "mpirun not found: scripts/install-deps.sh installs openmpi-bin"
        command = [MPIRUN, "-np", str(ranks)] + command
    return subprocess.run(command, env=mpi_env(), capture_output=True, text=True, timeout=300,
                          **kwargs)


def without_timings(summary):
    """The summary without wall-clock times, the scenario's path (they differ run to run) and the
    description (a sweep's run names the values the sweep set in it)."""
    if isinstance(summary, dict):
        return {k: without_timings(v) for k, v in summary.items()
                if "wall" not in k and k not in ("file", "description")}
    return summary


GRID = '"soil.preset" = ["dry_sand", "lunar_regolith"]\n"experiment.load_n" = [250.0, 800.0]\n'


def test_mpirun_sweep_equals_the_runs_done_one_by_one(tmp_path):
    out = tmp_path / "sweep"
    done = talus_sweep(write_sweep(tmp_path / "plates.toml", GRID), out)
    assert done.returncode == 0, done.stderr + done.stdout
    results = sweep.load(out)
    assert [r.id for r in results] == ["r0000", "r0001", "r0002", "r0003"]
    assert results.planned == ["r0000", "r0001", "r0002", "r0003"]
    assert {r.rank for r in results} <= {0, 1}
    base = PLATE.read_text()
    for run in results:
        scenario = base.replace('preset = "dry_sand"', f'preset = "{run.parameters["soil.preset"]}"')
        scenario = scenario.replace("load_n = 500.0", f'load_n = {run.parameters["experiment.load_n"]}')
        one = tmp_path / f"{run.id}.toml"
        one.write_text(scenario)
        alone = tmp_path / f"alone_{run.id}"
        subprocess.run([CLI, "run", str(one), "--out", str(alone), "-q"], check=True,
                       env=mpi_env(), capture_output=True)
        summary = json.loads((alone / "summary.json").read_text())
        assert without_timings(run.summary) == without_timings(summary), run.id
        assert run.summary["description"] == (
            f'{summary["description"]} (sweep plates, run {run.id}: soil.preset='
            f'{run.parameters["soil.preset"]}, experiment.load_n={run.parameters["experiment.load_n"]})')
        logged = np.genfromtxt(alone / "plate.csv", delimiter=",", names=True)
        for column in logged.dtype.names:
            np.testing.assert_array_equal(run.logs["plate"][column], logged[column])
        np.testing.assert_array_equal(run.arrays["heightmap_final"],
                                      np.load(alone / "heightmap_final.npy"))
        # The run's own folder is what `talus run` writes.
        assert (out / "runs" / run.id / "plate.csv").read_text() == (alone / "plate.csv").read_text()
    table = results.table()
    np.testing.assert_array_equal(table["experiment.load_n"], [250.0, 800.0, 250.0, 800.0])
    assert list(table["soil.preset"]) == ["dry_sand", "dry_sand", "lunar_regolith", "lunar_regolith"]
    assert np.all(np.diff(table["summary.result.sinkage_m"][:2]) > 0)


def rank_pid(rank: int, out: Path):
    """The pid of the talus process of `rank` writing `out` (from /proc/<pid>/environ)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if (cmdline and cmdline[0].endswith(b"talus") and str(out).encode() in cmdline
                and f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ):
            return int(proc.name)
    return None


@pytest.mark.parametrize("victim", [1, 0])
def test_a_sweep_killed_mid_run_and_started_again_finishes_every_run_once(tmp_path, victim):
    # Six runs of about half a second each: the plate held under its load for 3 s.
    loads = ", ".join(str(x) for x in [200.0, 300.0, 400.0, 500.0, 600.0, 700.0])
    sweep_file = write_sweep(tmp_path / "held.toml", f'"experiment.load_n" = [{loads}]\n'
                             '"experiment.hold_s" = [3.0]\n')
    out = tmp_path / "sweep"
    job = subprocess.Popen([MPIRUN, "-np", "2", CLI, "sweep", str(sweep_file), "--out", str(out),
                            "-q"], env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "results").glob("r*.h5"))) < 2:
        time.sleep(0.05)
    pid = rank_pid(victim, out)
    assert pid is not None, "rank not found"
    os.kill(pid, signal.SIGKILL)
    job.communicate(timeout=120)
    assert job.returncode != 0
    finished_before = len(list((out / "results").glob("r*.h5")))
    assert 2 <= finished_before < 6

    again = talus_sweep(sweep_file, out)
    assert again.returncode == 0, again.stderr
    results = sweep.load(out)
    assert [r.id for r in results] == [f"r{i:04d}" for i in range(6)]  # each exactly once
    assert sorted(p.name for p in (out / "results").iterdir()) == [f"r{i:04d}.h5" for i in range(6)]
    assert sorted(p.name for p in (out / "runs").iterdir()) == [f"r{i:04d}" for i in range(6)]
    # The same numbers as a sweep never interrupted, on one process.
    reference = tmp_path / "reference"
    assert talus_sweep(sweep_file, reference, ranks=1).returncode == 0
    for a, b in zip(results, sweep.load(reference)):
        assert without_timings(a.summary) == without_timings(b.summary)


def test_ctrl_c_keeps_the_finished_runs_and_removes_the_one_in_progress(tmp_path):
    loads = ", ".join(str(x) for x in [200.0, 300.0, 400.0, 500.0, 600.0])
    sweep_file = write_sweep(tmp_path / "held.toml", f'"experiment.load_n" = [{loads}]\n'
                             '"experiment.hold_s" = [3.0]\n')
    out = tmp_path / "sweep"
    job = subprocess.Popen([CLI, "sweep", str(sweep_file), "--out", str(out), "-q"],
                           env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "results").glob("r*.h5"))) < 2:
        time.sleep(0.02)
    job.send_signal(signal.SIGINT)
    _, stderr = job.communicate(timeout=60)
    # The plate rig reports no progress until its end: the run in progress unwinds then, or (when
    # that takes longer than the 3 s grace, as under the sanitizers) the signal watcher removes
    # its temporary folder and ends the process itself, without the message.
    assert job.returncode == -signal.SIGINT, stderr
    kept = sorted(p.stem for p in (out / "results").glob("r*.h5"))
    assert 2 <= len(kept) < 5
    assert set(kept) <= {p.name for p in (out / "runs").iterdir()}
    assert sweep.load(out).planned == [f"r{i:04d}" for i in range(5)]
    again = talus_sweep(sweep_file, out, ranks=1)
    assert again.returncode == 0, again.stderr
    assert [r.id for r in sweep.load(out)] == [f"r{i:04d}" for i in range(5)]
    # Nothing half-written is left once the sweep finished.
    for folder in (out, out / "results", out / "runs"):
        assert [p.name for p in folder.iterdir() if p.name.startswith(".")] in (
            [], [".talus-sweep.json"]), folder


def test_damaged_or_foreign_results_are_refused_and_left_alone(tmp_path):
    sweep_file = write_sweep(tmp_path / "small.toml", '"experiment.load_n" = [250.0]\n')
    out = tmp_path / "sweep"
    assert talus_sweep(sweep_file, out, ranks=1).returncode == 0
    (out / "sweep.h5").write_bytes(b"\x89HDF\r\n\x1a\n truncated")
    refused = talus_sweep(sweep_file, out)
    assert refused.returncode == 2
    assert "sweep.h5: cannot be read as HDF5" in refused.stderr
    assert (out / "sweep.h5").read_bytes() == b"\x89HDF\r\n\x1a\n truncated"
    with pytest.raises(ValueError, match="cannot be read as HDF5"):
        sweep.load(out)
    (out / "sweep.h5").unlink()
    result = out / "results" / "r0000.h5"
    result.write_bytes(result.read_bytes()[:100])  # a result damaged behind talus's back
    refused = talus_sweep(sweep_file, out, ranks=1)
    assert refused.returncode == 2 and "r0000.h5: cannot be read as HDF5" in refused.stderr


def test_a_file_of_the_users_in_a_run_folder_is_refused_before_any_run(tmp_path):
    # It failed the run when the run started ("not empty") and replaced its error in sweep.csv.
    sweep_file = write_sweep(tmp_path / "small.toml", '"experiment.load_n" = [250.0, 500.0]\n')
    out = tmp_path / "sweep"
    assert talus_sweep(sweep_file, out, ranks=1).returncode == 0
    mine = out / "runs" / "r0001" / "notes.txt"
    mine.write_text("mine")
    for flags in ([], ["--retry-failed"], ["--replace"]):
        refused = subprocess.run([CLI, "sweep", str(sweep_file), "--out", str(out), "-q", *flags],
                                 env=mpi_env(), capture_output=True, text=True, timeout=300)
        assert refused.returncode == 2, (flags, refused.stderr)
        assert "r0001: holds a file talus did not write ('notes.txt')" in refused.stderr, flags
    assert mine.read_text() == "mine"


def test_bad_sweep_files_are_refused_before_any_run(tmp_path):
    out = tmp_path / "sweep"
    unknown = talus_sweep(write_sweep(tmp_path / "typo.toml", '"experiment.lod_n" = [1.0]\n'), out)
    assert unknown.returncode == 2
    assert f"{tmp_path}/typo.toml:6:23: experiment.lod_n: unknown key" in unknown.stderr
    wrong = talus_sweep(write_sweep(tmp_path / "type.toml", '"experiment.load_n" = ["x"]\n'), out)
    assert wrong.returncode == 2
    assert f"{tmp_path}/type.toml:6:24: experiment.load_n: expected a number" in wrong.stderr
    empty = talus_sweep(write_sweep(tmp_path / "empty.toml", '"experiment.load_n" = []\n'), out)
    assert empty.returncode == 2 and "expected a non-empty array" in empty.stderr
    assert not out.exists()


def test_a_rank_that_cannot_reach_the_output_folder_stops_the_sweep_leaving_nothing(tmp_path):
    # Rank 1 starts in another folder, so the relative --out is not the folder rank 0 made (as a
    # node without the shared file system would see it).
    sweep_file = write_sweep(tmp_path / "small.toml", '"experiment.load_n" = [250.0]\n')
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    command = [CLI, "sweep", str(sweep_file), "--out", "sweep", "-q"]
    done = subprocess.run([MPIRUN, "-np", "1", "-wdir", str(here)] + command +
                          [":", "-np", "1", "-wdir", str(there)] + command,
                          env=mpi_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "not every rank can use the output folder sweep" in done.stderr
    assert "rank 1: cannot read sweep/.talus-sweep-probe" in done.stderr
    assert list(here.iterdir()) == [] and list(there.iterdir()) == []


def test_per_case_results_are_columns_of_the_table_and_keys_of_plots(tmp_path):
    # foot_drop keeps its results in a "cases" array: sweep.csv, table() and the plots had none
    # of them ("a misspelt key?" for cases.0.body.final_pitch_rad).
    foot_drop = SOURCE / "scenarios/wrench/foot_drop.toml"
    sweep_file = tmp_path / "drop.toml"
    sweep_file.write_text(f'[sweep]\nname = "drop"\nscenario = "{foot_drop}"\n[grid]\n'
                          '"simulation.duration_s" = [0.2, 0.3]\n[[plot]]\nname = "travel"\n'
                          'x = "simulation.duration_s"\ny = ["cases.tilted_flat.body.travel_m", '
                          '"cases.0.body.travel_m"]\n')
    out = tmp_path / "sweep"
    done = talus_sweep(sweep_file, out, ranks=1)
    assert done.returncode == 0, done.stderr
    assert "misspelt" not in done.stderr
    header = (out / "sweep.csv").read_text().splitlines()[0].split(",")
    assert "summary.cases.tilted_flat.body.travel_m" in header
    assert "summary.cases.upright_flat.feet.bottom.final_depth_m" in header
    table = sweep.load(out).table()
    travel = table["summary.cases.tilted_flat.body.travel_m"]
    assert travel.dtype == np.float64 and np.all(travel > 0.0)
    assert (out / "travel.png").is_file()


def test_load_refuses_a_file_that_is_not_a_sweeps(tmp_path):
    import h5py

    with h5py.File(tmp_path / "other.h5", "w") as f:
        f["x"] = [1.0]
    with pytest.raises(ValueError, match="not a talus sweep file"):
        sweep.load(tmp_path / "other.h5")
    with pytest.raises(FileNotFoundError):
        sweep.load(tmp_path / "missing")
