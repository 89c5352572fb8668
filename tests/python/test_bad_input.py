"""Inputs that used to crash talus (issue 16) are refused with exit code 2 naming the file, line
and key: step counts that overflowed, beds and grids larger than memory, a device or a folder as
the scenario file, and Python setters that took values the file reader refuses."""

import math
import os
import re
import subprocess
from pathlib import Path

import pytest

import talus
from shipped_variants import variant

CLI = os.environ.get("TALUS_CLI", "build/bin/talus")
SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def check(path):
    return subprocess.run([CLI, "check", str(path)], capture_output=True, text=True, timeout=60)



@pytest.mark.parametrize("shipped,old", [
    ("scenarios/scm/single_wheel.toml", "time_step_s = 0.001"),
    ("scenarios/scm/plate_sinkage.toml", "time_step_s = 0.001"),
    ("scenarios/shaping/blade_push.toml", "time_step_s = 0.04"),
    ("scenarios/particles/pile.toml", "time_step_s = 0.001"),
])
def test_a_time_step_of_1e_300_is_refused_at_check_not_overflowed(tmp_path, shipped, old):
    r = check(variant(tmp_path, shipped, old, "time_step_s = 1e-300"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"variant\.toml:\d+:\d+: [a-z_.]+: .* steps, more than the 1e\+09 a run may "
                     r"take", r.stderr), r.stderr
    assert "-9223372036854775808" not in r.stdout


def test_a_duration_too_long_for_the_robot_step_is_refused(tmp_path):
    r = check(variant(tmp_path, "scenarios/robots/rover_slope.toml", "duration_s = 8.0",
                      "duration_s = 1e300"))
    assert r.returncode == 2 and "simulation.duration_s" in r.stderr, r.stderr


def test_beds_and_grids_larger_than_memory_are_refused_by_an_estimate(tmp_path):
    pile = "scenarios/particles/pile.toml"
    bed = ("lo_m = [-0.04, -0.04, 0.01]\nhi_m = [0.04, 0.04, 0.55]\ncylinder_radius_m = 0.04\n"
           "count = 2500")
    lattice = variant(tmp_path, pile, 'kind = "random"\n' + bed,
                      'kind = "lattice"\nlo_m = [-5, -5, 0.0]\nhi_m = [5, 5, 10]', "lattice.toml")
    r = check(lattice)
    assert r.returncode == 2, r.stderr
    assert re.search(r"lattice\.toml:\d+:\d+: bed\.hi_m: the lattice bed's 1\.84e\+09 particles "
                     r"would take about [\d.e+]+ GiB of memory", r.stderr), r.stderr
    random = variant(tmp_path, pile, bed,
                     "lo_m = [-50, -50, 0.0]\nhi_m = [50, 50, 100]\ncount = 100000000",
                     "random.toml")
    r = check(random)
    assert r.returncode == 2 and "bed.count: a random bed of 100000000 particles" in r.stderr
    rover = variant(tmp_path, "scenarios/robots/rover_slope.toml", "size_m = [5.8, 2.0]",
                    "size_m = [100000.0, 100000.0]")
    r = check(rover)
    assert r.returncode == 2, r.stderr
    assert "grid.size_m: a base terrain of 5e+06 x 5e+06 nodes" in r.stderr


def test_a_device_or_a_folder_is_not_a_scenario_file(tmp_path):
    r = check("/dev/zero")
    assert r.returncode == 2 and "/dev/zero: is not a regular file" in r.stderr, r.stderr
    r = check(tmp_path)
    assert r.returncode == 2 and f"{tmp_path}: is a folder" in r.stderr, r.stderr
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(17 << 20)
    r = check(big)
    assert r.returncode == 2 and "at most 16 MiB" in r.stderr, r.stderr


BAD_PARTICLE_MODEL_VALUES = {
    "threads": [100000, -1],
    "time_step_s": [0.0, -1e-3, math.nan, math.inf],
    "iterations": [0],
    "baumgarte": [-0.1, 1.5],
    "friction": [-1.0, math.nan],
    "wall_friction": [-1.0],
    "body_friction": [math.inf],
    "expected_speed_m_per_s": [0.0],
    "max_kinetic_energy_J": [0.0, math.nan],
    "periodic_axis": [3, -2],
    "neighbour_skin_radii": [-0.5],
    "relaxation": [0.0, 2.0, math.nan],
    "gravity_m_per_s2": [[0.0, 0.0, math.nan]],
}


@pytest.mark.parametrize("field", sorted(BAD_PARTICLE_MODEL_VALUES))
def test_particle_model_setters_refuse_what_the_file_reader_refuses(field):
    model = talus.particles.Model()
    before = getattr(model, field)
    for value in BAD_PARTICLE_MODEL_VALUES[field]:
        with pytest.raises(ValueError, match=field):
            setattr(model, field, value)
        after = getattr(model, field)
        assert (after == before).all() if hasattr(after, "all") else after == before
    model.threads = 2  # a good value is stored
    assert model.threads == 2


def test_threads_100000_no_longer_reaches_the_step():
    model = talus.particles.Model()
    with pytest.raises(ValueError, match=r"threads = 100000 is not in \[0, 1024\]"):
        model.threads = 100000


@pytest.mark.parametrize("old,new,expected", [
    ('chassis = "chassis"', 'chassis = "frame"',
     r"report\.chassis: .*rover\.xml: no body named 'frame'; the model's bodies are: world, "
     r"chassis"),
    ('chassis = "chassis"', 'chassis = "wheel_fl"',
     r"report: .*body 'wheel_fl' has no free joint or slide joints"),
    ('wheel_joints = ["wheel_fl"', 'wheel_joints = ["axle"',
     r"report\.wheel_joints: 'axle' is not a hinge joint of the model; its hinges are: wheel_fl"),
    ("position_m = [0.0, 0.0, 0.31]", "position_m = [40.0, 0.0, 0.31]",
     r"robot\.position_m: coupled body 'wheel_fl' starts at \(40\.45, 0\.4\) m, off the terrain"),
])
def test_check_refuses_robot_names_and_placements_the_run_would_refuse(tmp_path, old, new,
                                                                       expected):
    r = check(variant(tmp_path, "scenarios/robots/rover_slope.toml", old, new))
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"variant\.toml:\d+:\d+: " + expected, r.stderr), r.stderr


def test_check_refuses_a_foot_too_wide_for_the_acquisition_bed(tmp_path):
    r = check(variant(tmp_path, "scenarios/wrench/acquire_demo.toml", "radius_m = 0.025",
                      "radius_m = 0.07"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"variant\.toml:\d+:\d+: grid: run \(configuration \d+: .*\): the "
                     r"foot \(its part in the sand\) reaches the container's side wall.*the "
                     r"foot's size and place are \[foot\]", r.stderr), r.stderr


@pytest.mark.parametrize("old,new,expected", [
    # A repeated configuration was refused by the database after every run had been measured.
    ("tilts_rad = [-0.3, 0.0, 0.3]", "tilts_rad = [-0.3, 0.0, 0.3, 0.3]",
     r":60:13: grid\.tilts_rad: 0\.3 is listed twice \(values 3 and 4\)"),
    ("depths_m = [0.0, -0.02]", "depths_m = [0.0, -0.02, -0.02]",
     r":59:12: grid\.depths_m: -0\.02 is listed twice \(values 2 and 3\)"),
    ("directions = 26", "directions = 27", r":61:14: grid\.directions: 27: expected 26 or 58"),
    ("filter_window_s = 0.08", "filter_window_s = 0.3",
     r":56:\d+: path\.filter_window_s: foot path: filter_window_s = 0\.3 is not in \(0, 0\.4 "),
])
def test_check_refuses_an_acquisition_grid_the_database_could_not_hold(tmp_path, old, new,
                                                                       expected):
    r = check(variant(tmp_path, "scenarios/wrench/acquire_demo.toml", old, new))
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"variant\.toml" + expected, r.stderr), r.stderr


def test_thread_settings_are_checked(tmp_path):
    scenario = SOURCE / "scenarios/shaping/blade_push.toml"
    for args, env in ((["--threads", "0"], {}), (["--threads", "2000"], {}),
                      ([], {"TALUS_THREADS": "many"}), ([], {"TALUS_THREADS": "0"})):
        r = subprocess.run([CLI, "run", str(scenario), "--out", str(tmp_path / "o"), *args],
                           capture_output=True, text=True, env=dict(os.environ, **env))
        assert r.returncode == 2, (args, env, r.stderr)
        assert ("--threads" in r.stderr) or ("TALUS_THREADS" in r.stderr), r.stderr
        assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("old,new,expected", [
    ('body = "foot"', 'body = "foot"\n[robot.coupling.shape]\nkind = "box"\nsize_m = [0.08, 0.08, 0.5]',
     r"robot\.coupling\[0\]: link 'foot' is a box; a foot on the wrench-space terrain is a "
     r"cylinder or capsule"),
    ("granular_inertia = [5.15, 5.15, 0.0427]", "granular_inertia = [5.15, -5.15, 0.0427]",
     r"wrench_space\.granular_inertia: element 1: expected a number >= 0"),
    ("pebbles_nonrotating.h5", "nothing.h5", r"wrench_space\.database: .*nothing\.h5: no such file"),
    ("slope_rad = 0.0", "slope_rad = 0.0\nfriction = 0.5", r"wrench_space\.friction: unknown key; expected one of: database, granular_inertia, slope_rad, "
     r"terrain_points_m"),
])
def test_check_refuses_bad_wrench_space_terrains(tmp_path, old, new, expected):
    r = check(variant(tmp_path, "scenarios/robots/foot_drop_wrench.toml", old, new))
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"variant\.toml:\d+:\d+: " + expected, r.stderr), r.stderr


def test_bad_wrench_space_queries_are_value_errors_naming_what_was_expected():
    space = talus.WrenchSpace(talus.load_wrench_database(
        Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).parents[2])) / "data/wrench/pebbles.h5"))
    with pytest.raises(talus.WrenchRegressionError, match=r"theta \(nan, 0.2\) is not finite"):
        space.predict_wrenches(math.nan, 0.2)
    for folds in (0, 1000):
        with pytest.raises(ValueError, match=rf"{folds} folds for \d+ configurations "
                                             r"\(need 2 <= folds <= n\)"):
            space.cross_validation(folds)
    assert issubclass(talus.wrench.RegressionError, ValueError)


def test_a_heightmap_state_of_another_grid_is_a_value_error():
    small = talus.shaping.HeightmapModel(nx=10, ny=10, cell_size_m=0.01, repose_angle_deg=30.0)
    wide = talus.shaping.HeightmapModel(nx=12, ny=10, cell_size_m=0.01, repose_angle_deg=30.0)
    state = talus.shaping.HeightmapState.flat(small, 0.05)
    with pytest.raises(ValueError, match="100 cells does not match its model's grid of 12 x 10"):
        state.heights(wide)


def test_a_particle_container_is_checked_when_it_is_set_and_a_bad_one_not_kept():
    model = talus.particles.Model()
    model.set_box_container([0.0, 0.0, 0.0], [0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match=r"container\.box lo \(0\.2, 0, 0\) is not below hi"):
        model.set_box_container([0.2, 0.0, 0.0], [0.0, 0.1, 0.1])
    with pytest.raises(ValueError, match=r"particle model: container"):
        model.set_cylinder_container(-0.1, 0.0, 0.1, [0.0, 0.0])
    # The first box is still the container: a particle dropped in it comes to rest on its floor.
    state = talus.particles.State()
    state.add([0.05, 0.05, 0.05], [0, 0, 0], 0.005, 1e-3)
    sim = talus.particles.Simulation(model, state)
    sim.step(500)
    assert abs(sim.z_m[0] - 0.005) < 1e-3, sim.z_m[0]


def test_two_scm_bodies_of_one_name_are_refused():
    soil_map = talus.scm.SoilMap(size_m=(1.0, 0.4), cell_size_m=0.02,
                                 soil=talus.scm.named_soil("dry_sand"))
    driver = talus.ConstantTwistDriver(talus.make_pose([0.5, 0.2, 0.2]), talus.Twist())
    soil_map.add_body("wheel", talus.SphereShape(0.1), driver)
    with pytest.raises(ValueError, match=r"bodies\[1\]: the name 'wheel' is already the name of "
                                         r"bodies\[0\]"):
        soil_map.add_body("wheel", talus.SphereShape(0.1), driver)
    assert soil_map.model.body_count == 1


@pytest.mark.parametrize("value", ["0.0", "2.0", "-0.5"])
def test_check_refuses_a_relaxation_outside_the_range_where_the_sweeps_converge(tmp_path, value):
    # Over-relaxation converges for omega in (0, 2) (docs/particles.md §2); 1.9 is accepted.
    path = variant(tmp_path, "scenarios/particles/column_at_rest.toml", "baumgarte = 0.2",
                   f"baumgarte = 0.2\nrelaxation = {value}")
    r = check(path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert re.search(r"variant\.toml:\d+:\d+: solver\.relaxation.*\(0, 2\)", r.stderr), r.stderr
    good = variant(tmp_path, "scenarios/particles/column_at_rest.toml", "baumgarte = 0.2",
                   "baumgarte = 0.2\nrelaxation = 1.9", name="good.toml")
    r = check(good)
    assert r.returncode == 0, r.stderr
