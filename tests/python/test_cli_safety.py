"""The command line never loses a user's data (issue 16): --out is checked before the run, a
folder talus did not write is never written over, duplicate case names are refused, and a run
stopped by Ctrl-C, SIGTERM or SIGKILL leaves no partial folder behind (the next run removes what
a SIGKILL left)."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = os.environ.get("TALUS_CLI", "build/bin/talus")
SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))

# A shaping run of many cheap steps (progress is reported after each), long enough to be
# interrupted: a towed wheel over a coarse bed for 600 s of simulated time.
LONG_SHAPING = """
[scenario]
name = "long_tow"
tier = "shaping"

[heightmap]
size_m = [0.36, 0.20]
cell_size_m = 0.004
initial_height_m = 0.05
repose_angle_deg = 29.0

[[body]]
name = "wheel"
[body.shape]
kind = "wheel"
radius_m = 0.048
width_m = 0.050
[body.motion]
kind = "wheel_trench"
start_m = [0.07, 0.10]
heading_deg = 0.0
sinkage_m = 0.015
slip_ratio = 0.3
slip_angle_deg = 0.0
speed_m_per_s = 0.0001

[simulation]
time_step_s = 0.03
duration_s = DURATION
"""

# An SCM plate held for a long time: this run reports progress only at its end, so a signal is
# handled by the watcher's forced path (core/interrupt.hpp), not by the run unwinding.
LONG_PLATE = (SOURCE / "scenarios/scm/plate_sinkage.toml").read_text().replace(
    "hold_s = 0.5", "hold_s = 500.0")


def talus(*args, env=None, timeout=120):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=timeout)


def hidden_siblings(folder: Path):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def start_and_wait_for_temp(scenario: Path, out: Path, env=None):
    """Starts a run and returns once its temporary folder exists (the run is under way)."""
    proc = subprocess.Popen([CLI, "run", str(scenario), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not any(".tmp-" in n for n in hidden_siblings(out.parent)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no temporary folder appeared"
        time.sleep(0.05)
    time.sleep(0.5)  # well inside the run
    return proc


def test_the_issue_case_a_users_folder_is_refused_before_the_run_and_kept(tmp_path):
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "notes.txt").write_text("x")
    for flags in ([], ["--replace"]):
        r = talus("run", SOURCE / "scenarios/robots/rover_slope.toml", "--out", keep, *flags)
        assert r.returncode == 2, r.stderr
        assert "not a talus output" in r.stderr and str(keep) in r.stderr
        assert "wrote" not in r.stdout
    assert (keep / "notes.txt").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]


def test_out_naming_the_scenarios_own_folder_is_refused(tmp_path):
    folder = tmp_path / "robots"
    shutil.copytree(SOURCE / "scenarios/robots", folder)
    before = sorted(p.name for p in folder.iterdir())
    r = talus("run", folder / "rover_slope.toml", "--out", folder, "--replace")
    assert r.returncode == 2 and "not a talus output" in r.stderr, r.stderr
    assert sorted(p.name for p in folder.iterdir()) == before


def test_out_naming_a_file_or_a_link_is_refused_before_the_run(tmp_path):
    # The scenario's tier reader would refuse it (a negative cell size): the --out refusal coming
    # first shows the folder is checked before the tier reads, let alone runs, anything.
    scenario = tmp_path / "bad.toml"
    scenario.write_text(LONG_SHAPING.replace("DURATION", "600.0")
                        .replace("cell_size_m = 0.004", "cell_size_m = -1"))
    a_file = tmp_path / "results"
    a_file.write_text("mine")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for out, reason in ((a_file, "not a folder"), (tmp_path / "link", "symbolic link")):
        r = talus("run", scenario, "--out", out, "--replace")
        assert r.returncode == 2 and reason in r.stderr, r.stderr
        assert "cell_size_m" not in r.stderr
    assert a_file.read_text() == "mine"
    assert (tmp_path / "link").is_symlink() and list((tmp_path / "real").iterdir()) == []


def test_duplicate_case_names_are_refused_at_check(tmp_path):
    text = (SOURCE / "scenarios/wrench/quadruped.toml").read_text()
    text = text.replace('"../../', f'"{SOURCE}/')
    assert text.count('name = "trot"') == 1
    doubled = text.replace('name = "trot"', 'name = "push_front"')
    scenario = tmp_path / "quadruped.toml"
    scenario.write_text(doubled)
    r = talus("check", scenario)
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"quadruped\.toml:\d+:\d+: case\[1\]\.name: 'push_front' is already the name "
                     r"of case\[0\]", r.stderr), r.stderr
    scenario.write_text(text.replace('name = "trot"', 'name = "../trot"'))
    r = talus("check", scenario)
    assert r.returncode == 2 and "plain file name" in r.stderr, r.stderr
    scenario.write_text(text)
    assert talus("check", scenario).returncode == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_a_run_removes_the_partial_output(tmp_path, sig):
    scenario = tmp_path / "long.toml"
    scenario.write_text(LONG_SHAPING.replace("DURATION", "600.0"))
    out = tmp_path / "out"
    proc = start_and_wait_for_temp(scenario, out)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == -sig, stderr
    assert "partial output was removed" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.toml"]


def test_a_run_that_does_not_report_progress_is_still_cleaned_up_on_a_signal(tmp_path):
    scenario = tmp_path / "plate.toml"
    scenario.write_text(LONG_PLATE)
    out = tmp_path / "out"
    proc = start_and_wait_for_temp(scenario, out)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)  # the watcher acts after its 3 s grace period
    assert proc.returncode == -signal.SIGTERM
    # The run never unwound by itself (no progress call): the watcher removed the folder.
    assert "partial output was removed" not in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plate.toml"]


def test_the_next_run_removes_what_a_killed_run_left(tmp_path):
    scenario = tmp_path / "long.toml"
    scenario.write_text(LONG_SHAPING.replace("DURATION", "600.0"))
    proc = start_and_wait_for_temp(scenario, tmp_path / "out")
    proc.kill()
    proc.communicate(timeout=30)
    left = hidden_siblings(tmp_path)
    assert len(left) == 1 and f".tmp-{proc.pid}-" in left[0]
    short = tmp_path / "short.toml"
    short.write_text(LONG_SHAPING.replace("DURATION", "0.3"))
    r = talus("run", short, "--out", tmp_path / "other")
    assert r.returncode == 0, r.stderr
    assert hidden_siblings(tmp_path) == []
    assert (tmp_path / "other" / ".talus-output").exists()


def test_progress_lines_when_no_terminal_is_attached(tmp_path):
    scenario = tmp_path / "tow.toml"
    scenario.write_text(LONG_SHAPING.replace("DURATION", "30.0"))
    env = dict(os.environ, TALUS_PROGRESS_EVERY_S="0.05")
    r = talus("run", scenario, "--out", tmp_path / "out", env=env)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("progress:")]
    assert lines and "\r" not in r.stderr
    assert re.match(r"progress: +\d+%  step \d+/1000  t = [\d.]+ s  elapsed \d+ s  eta \d+ s$",
                    lines[0]), lines[0]
    r = talus("run", scenario, "--out", tmp_path / "quiet", "--quiet", env=env)
    assert r.returncode == 0 and "progress:" not in r.stderr
    env["TALUS_PROGRESS_EVERY_S"] = "soon"
    r = talus("run", scenario, "--out", tmp_path / "bad", env=env)
    assert r.returncode == 2 and "TALUS_PROGRESS_EVERY_S" in r.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def python_run(script: str, env_extra=None):
    """Starts /usr/bin/python3 running `script` with talus importable (the test's PYTHONPATH)."""
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def test_ctrl_c_stops_talus_run_scenario_and_removes_its_partial_output(tmp_path):
    scenario = tmp_path / "long.toml"
    scenario.write_text(LONG_SHAPING.replace("DURATION", "600.0"))
    out = tmp_path / "out"
    proc = python_run(f"import talus; talus.run_scenario({str(scenario)!r}, {str(out)!r})")
    deadline = time.monotonic() + 60
    while not any(".tmp-" in n for n in hidden_siblings(tmp_path)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no temporary folder appeared"
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    # Before, the run went on to its end (600 s simulated) and only then raised.
    _, stderr = proc.communicate(timeout=30)
    # Python ends of an uncaught KeyboardInterrupt by the signal itself.
    assert proc.returncode == -signal.SIGINT and "KeyboardInterrupt" in stderr, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.toml"]


def test_talus_run_scenario_takes_its_threads_as_talus_run_does(tmp_path):
    import talus
    scenario = tmp_path / "short.toml"
    scenario.write_text(LONG_SHAPING.replace("DURATION", "0.3"))
    # TALUS_THREADS is read (a bad value is named), and a bad threads argument is refused.
    proc = python_run(f"import talus; talus.run_scenario({str(scenario)!r}, "
                      f"{str(tmp_path / 'a')!r})", {"TALUS_THREADS": "lots"})
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "TALUS_THREADS: expected an integer" in stderr, stderr
    with pytest.raises(ValueError, match="threads must be 0"):
        talus.run_scenario(scenario, tmp_path / "b", threads=-1)
    summary = talus.run_scenario(scenario, tmp_path / "c", threads=1)
    assert summary["tier"] == "shaping"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c", "short.toml"]
