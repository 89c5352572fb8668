"""Runs whose physics blows up stop with exit code 1 naming the step and the quantity, and never
report garbage as success (issue 16: a wheel sunk 2,362,509 m, a rover that drove 8,718 m in 4 s
and a plate under 1e30 N all exited 0). What ran up to the last good step is kept for a look."""

import json
import os
import re
import subprocess

import pytest

from shipped_variants import variant

CLI = os.environ.get("TALUS_CLI", "build/bin/talus")


def run(scenario, out):
    return subprocess.run([CLI, "run", str(scenario), "--out", str(out)], capture_output=True,
                          text=True, timeout=300)



def test_an_scm_wheel_with_a_far_too_long_step_stops_and_keeps_what_ran(tmp_path):
    scenario = variant(tmp_path, "scenarios/scm/single_wheel.toml", "time_step_s = 0.001",
                       "time_step_s = 0.3")
    r = run(scenario, tmp_path / "out")
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"variant\.toml: step 1 \(t = 0\.3000 s\): the wheel would sink [\d.]+ m, "
                     r"more than its diameter \(0\.5 m\)", r.stderr), r.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "the wheel would sink" in summary["stopped"]
    assert (tmp_path / "out" / "heightmap_final.png").exists()


def test_an_scm_plate_under_1e30_newtons_stops_before_it_is_buried(tmp_path):
    scenario = variant(tmp_path, "scenarios/scm/plate_sinkage.toml", "load_n = 500.0",
                       "load_n = 1e30")
    r = run(scenario, tmp_path / "out")
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"step \d+ \(t = [\d.]+ s\): the plate would sink [\d.]+ m, more than its "
                     r"width \(0\.2 m\)", r.stderr), r.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    sinkage = [float(l.split(",")[3]) for l in
               (tmp_path / "out" / "plate.csv").read_text().splitlines()[1:]]
    assert max(sinkage) <= 0.2 and summary["result"]["sinkage_m"] <= 0.2


def test_a_rover_on_a_diverging_soil_step_stops_when_it_leaves_the_map(tmp_path):
    scenario = variant(tmp_path, "scenarios/robots/rover_slope.toml",
                       "mujoco_steps_per_tier_step = 4", "mujoco_steps_per_tier_step = 50")
    r = run(scenario, tmp_path / "out")
    assert r.returncode == 1, r.stdout + r.stderr
    # Either the run sees a link off the map after a step, or SCM refuses a step whose end pose
    # (where the soil answers) is off it; both name the step and the wheel.
    stop = (r"variant\.toml: step \d+ \(t = [\d.]+ s\): link 'wheel_\w+' at \([-\d.]+, "
            r"[-\d.]+\) m left the terrain|variant\.toml: the coupled step \d+ \(from t = [\d.]+ s\) "
            r"failed: body 'wheel_\w+' spans .* outside the map")
    assert re.search(stop, r.stderr), r.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert re.search(stop, summary["stopped"])
    rows = (tmp_path / "out" / "drive.csv").read_text().splitlines()
    assert len(rows) > 2 and (tmp_path / "out" / "ruts.png").exists()
    # The samples end at or before the bad step's time, which the message names.
    stopped_at = float(re.search(r"\((?:from )?t = ([\d.]+) s\)", summary["stopped"]).group(1))
    assert float(rows[-1].split(",")[0]) <= stopped_at + 1e-9
    # The summary counts the good steps, not the planned ones (it said 160 of 160).
    assert summary["planned_steps"] == 160 and 0 < summary["steps"] < 160, summary["steps"]
    assert summary["simulated_s"] == pytest.approx(summary["steps"] * 0.05), summary


def test_a_shaping_tool_jumping_cells_is_refused_at_check(tmp_path):
    scenario = variant(tmp_path, "scenarios/shaping/blade_push.toml", "time_step_s = 0.04",
                       "time_step_s = 1.8")
    r = subprocess.run([CLI, "check", str(scenario)], capture_output=True, text=True)
    assert r.returncode == 2
    assert re.search(r"simulation\.time_step_s: tool 'blade' moves up to 0\.09 m per step", r.stderr)


def test_check_warns_of_a_step_beyond_the_rigs_stability_limit(tmp_path):
    for step, warned in (("0.001", False), ("0.3", True)):
        scenario = variant(tmp_path, "scenarios/scm/single_wheel.toml", "time_step_s = 0.001",
                           f"time_step_s = {step}")
        r = subprocess.run([CLI, "check", str(scenario)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        found = re.search(r"warning: .*variant\.toml:\d+:\d+: simulation\.time_step_s: 0\.3 s is "
                          r"beyond the rig's stability limit of about 0\.0477 s", r.stderr)
        assert bool(found) == warned, r.stderr
