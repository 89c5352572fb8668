"""One schema for every tier (issue 15): the time step is [simulation] time_step_s everywhere, and
a shipped scenario written with an old key exits 2 at check naming the key, its line and the new
key."""

import json
import math
import os
import re
import subprocess
from pathlib import Path

import pytest

CLI = os.environ.get("TALUS_CLI", "build/bin/talus")
SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def old_style(tmp_path, shipped, section):
    """The shipped scenario with its time step moved back from [simulation] into `section`."""
    text = (SOURCE / shipped).read_text().replace('"../../', f'"{SOURCE}/')
    line = re.search(r"^time_step_s = .*$", text, re.M).group(0)
    text = text.replace(line + "\n", "", 1).replace(f"[{section}]\n", f"[{section}]\n{line}\n", 1)
    path = tmp_path / "old.toml"
    path.write_text(text)
    return path, text.splitlines().index(line) + 1


@pytest.mark.parametrize("shipped,section", [
    ("scenarios/particles/pile.toml", "solver"),
    ("scenarios/robots/rover_slope.toml", "robot"),
    ("scenarios/robots/rover_particles.toml", "solver"),
    ("scenarios/wrench/acquire_demo.toml", "solver"),
    ("scenarios/wrench/foot_accuracy.toml", "solver"),
])
def test_an_old_time_step_key_exits_2_naming_the_new_one(tmp_path, shipped, section):
    path, line = old_style(tmp_path, shipped, section)
    r = subprocess.run([CLI, "check", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"old.toml:{line}:15: {section}.time_step_s: moved to [simulation] time_step_s "
            "(one key for every tier)") in r.stderr, r.stderr


BLADE = SOURCE / "scenarios/terrain/blade_push.toml"


@pytest.mark.parametrize("tier", ["shaping", "scm", "particles"])
def test_the_terrain_blade_file_checks_on_every_ground_tier(tier):
    r = subprocess.run([CLI, "check", str(BLADE), "--tier", tier], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"({tier} scenario 'blade_push'" in r.stdout, r.stdout


def test_an_unknown_tier_option_exits_2_listing_the_tiers():
    r = subprocess.run([CLI, "check", str(BLADE), "--tier", "gravel"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "gravel" in r.stderr and "scm" in r.stderr and "particles" in r.stderr, r.stderr


def test_another_tier_for_a_file_without_terrain_names_its_own_tier():
    wrench = SOURCE / "scenarios/wrench/foot_accuracy.toml"
    r = subprocess.run([CLI, "check", str(wrench), "--tier", "particles"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "foot_accuracy.toml:" in r.stderr and "scenario.tier" in r.stderr, r.stderr
    assert "this is a 'wrench' scenario" in r.stderr and "[terrain]" in r.stderr, r.stderr
    same = subprocess.run([CLI, "check", str(wrench), "--tier", "wrench"], capture_output=True,
                          text=True, timeout=60)
    assert same.returncode == 0, same.stderr


def test_the_terrain_blade_file_runs_on_scm_and_reports_the_blades_resistance(tmp_path):
    r = subprocess.run([CLI, "run", str(BLADE), "--tier", "scm", "--out", str(tmp_path / "o"),
                        "-q"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["tier"] == "scm"
    fx, _, fz = summary["result"]["bodies"][0]["mean_force_second_half_N"]
    # The sand resists the push along +x and carries the blade's bottom: 5 cm deep, 18 cm wide.
    assert -200.0 < fx < -20.0 and fz > 0.0, (fx, fz)
    assert 0.02 < summary["result"]["hill_peak_above_base_m"] < 0.1


def test_each_ground_submodule_loads_the_terrain_file_as_its_own_tier():
    import talus
    shaping = talus.shaping.load(str(BLADE))
    scm = talus.scm.load(str(BLADE))
    particles = talus.particles.load(str(BLADE))
    assert shaping.model.heightmap.nx == 120
    assert scm.model.nx == 121
    assert abs(particles.model.friction - math.tan(math.radians(28.0))) < 1e-12
    assert len(particles.initial_state().x_m) > 10000


def test_the_scm_load_of_the_terrain_file_has_its_blade_and_drives_it():
    # As the particle tier's Scenario does: the file's [[body]] is in the model, with its motions.
    import talus
    scm = talus.scm.load(str(BLADE))
    assert scm.body_names == ["blade"] and scm.model.body_count == 1
    model, state, work = scm.model, scm.initial_state(), talus.scm.Workspace()
    dt = model.time_step_s
    for k in range(400):  # lowered 5 cm into the sand by 0.3 s, then pushed along +x
        poses, twists = scm.body_motions(k * dt)
        assert len(poses) == 1 and len(twists) == 1
        wrenches, report = talus.scm.step(model, state, work, poses, twists)
    assert report["nodes_in_contact"] > 0
    assert wrenches[0, 0, 2] > 0.0 and wrenches[0, 0, 0] < 0.0, wrenches[0]  # carried, resisted
    assert talus.scm.load(SOURCE / "scenarios/scm/plate_sinkage.toml").body_motions(0.0) == ([], [])


def test_run_scenario_runs_a_terrain_file_on_the_tier_given(tmp_path):
    import talus
    summary = talus.run_scenario(BLADE, tmp_path / "scm", tier="scm")
    assert summary["tier"] == "scm" and summary["scenario"] == "blade_push"
    assert talus.check_scenario(BLADE, tier="shaping")["tier"] == "shaping"
