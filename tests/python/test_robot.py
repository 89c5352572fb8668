"""Robot bindings: load a MuJoCo model, couple it to a tier written in Python, step, read states."""

import os
import pathlib

import numpy as np
import pytest

import talus
from sanitizers import whole_episode_physics
from shipped_variants import variant

SOURCE_DIR = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
ROVER = SOURCE_DIR / "robots" / "rover" / "rover.xml"
BODIES = SOURCE_DIR / "tests" / "data" / "robot" / "bodies.xml"


class SpringGround(talus.ContactTier):
    """Linear spring-damper half-space z <= 0 touching each body's sphere at its lowest point."""

    def __init__(self, bodies, k, c):
        super().__init__()
        self._bodies, self.k, self.c = bodies, k, c
        self.impulse = np.zeros(3)

    def bodies(self):
        return self._bodies

    def step(self, dt_s, motions):
        out = []
        for body, m in zip(self._bodies, motions):
            X = m.X_WB
            w = talus.Wrench(p_W=X[:3, :3] @ body.p_BR + X[:3, 3])
            p = X[:3, 3] - np.array([0.0, 0.0, body.shape.radius_m])
            depth = -p[2]
            if depth > 0:
                vz = (m.V_WB.v_WBo + np.cross(m.V_WB.w_W, p - X[:3, 3]))[2]
                w.add_force_at(np.array([0.0, 0.0, max(0.0, self.k * depth - self.c * vz)]), p)
            self.impulse += dt_s * np.asarray(w.f_W)
            out.append(w)
        return out


class BrokenGround(talus.ContactTier):
    """Pushes each body up with `force_n` from step `at_step` on (NaN or absurdly large)."""

    def __init__(self, bodies, force_n, at_step):
        super().__init__()
        self._bodies, self.force_n, self.at_step, self.steps = bodies, force_n, at_step, 0

    def bodies(self):
        return self._bodies

    def step(self, dt_s, motions):
        self.steps += 1
        out = []
        for m in motions:
            w = talus.Wrench(p_W=m.X_WB[:3, 3])
            if self.steps >= self.at_step:
                w.add_force_at(np.array([0.0, 0.0, self.force_n]), m.X_WB[:3, 3])
            out.append(w)
        return out


@pytest.mark.parametrize("force_n,expected", [
    (float("nan"), r"the terrain's wrench on link 'ball' is not finite \(f_W = \(0, 0, nan\) N"),
    (1e16, r"MuJoCo's acceleration of the robot became NaN, infinite or huge \(mjWARN_BADQACC"),
])
def test_a_tier_step_that_breaks_the_robot_raises_instead_of_starting_over(
        force_n, expected, tmp_path, monkeypatch, capfd):
    # MuJoCo resets a robot whose acceleration is NaN or huge and steps on from its start: a run
    # went on with its clock set back to 0. The coupled step now raises, naming the time.
    monkeypatch.chdir(tmp_path)
    robot = talus.RobotModel.load(BODIES)
    links = talus.resolve_coupling(robot, [talus.CouplingEntry(body="ball")])
    sim = talus.CoupledSim(robot, links, BrokenGround(talus.tier_bodies(links), force_n, 50))
    sim.step(49)
    with pytest.raises(RuntimeError, match=r"the tier step from t = 0\.0490 s: " + expected):
        sim.step(1)
    # MuJoCo's own warning goes to stderr, not into MUJOCO_LOG.TXT in the user's folder nor onto
    # stdout (its default handler does both).
    out, err = capfd.readouterr()
    assert list(tmp_path.iterdir()) == []
    assert "MuJoCo warning" not in out
    if force_n > 1.0:
        assert "MuJoCo warning: Nan, Inf or huge value in QACC" in err


def test_rover_loads_with_names_mass_and_state_views():
    rover = talus.RobotModel.load(ROVER)
    assert rover.actuator_names == ["wheel_fl", "wheel_fr", "wheel_rl", "wheel_rr"]
    assert "chassis" in rover.body_names
    assert rover.total_mass_kg == pytest.approx(100.0)
    qpos = rover.qpos
    assert qpos.shape == (11,) and rover.qvel.shape == (10,) and rover.ctrl.shape == (4,)
    assert qpos[2] == pytest.approx(0.31)
    rover.step(100)  # MuJoCo alone: no terrain, the rover falls
    assert np.shares_memory(qpos, rover.qpos) and qpos[2] < 0.31
    assert rover.time_s == pytest.approx(0.1)
    rover.reset()
    assert rover.qpos[2] == pytest.approx(0.31)


def test_bad_files_and_names_are_reported():
    with pytest.raises(talus.RobotError, match=r"unknown_element.xml:5: MuJoCo rejected"):
        talus.RobotModel.load(SOURCE_DIR / "tests" / "data" / "robot" / "unknown_element.xml")
    rover = talus.RobotModel.load(ROVER)
    with pytest.raises(talus.RobotError, match="chassis, wheel_fl, wheel_fr"):
        talus.resolve_coupling(rover, [talus.CouplingEntry(body="wheel")])


def test_ball_coupled_to_a_python_tier_lands_and_conserves_momentum():
    robot = talus.RobotModel.load(BODIES)
    robot.qpos[2] = 0.15  # 5 cm above the ground
    links = talus.resolve_coupling(robot, [talus.CouplingEntry(body="ball")])
    assert isinstance(links[0].shape, talus.SphereShape)
    tier = SpringGround(talus.tier_bodies(links), k=1e5, c=300.0)
    sim = talus.CoupledSim(robot, links, tier, mujoco_steps_per_tier_step=2)
    assert sim.tier_time_step_s == pytest.approx(0.002)
    sim.step(1000)
    assert sim.time_s == pytest.approx(2.0)
    m = 10.0
    dp = m * robot.qvel[:3]
    np.testing.assert_allclose(dp, tier.impulse + m * np.array([0, 0, -9.81]) * sim.time_s, atol=1e-9)
    assert robot.qpos[2] == pytest.approx(0.1 - m * 9.81 / 1e5, abs=1e-5)  # resting on the spring
    assert sim.wrenches[0].f_W[2] == pytest.approx(m * 9.81, rel=1e-3)


PARTICLE_BALL = SOURCE_DIR / "tests" / "data" / "robot" / "particle_ball.xml"


def test_ball_coupled_two_way_to_particles_is_carried_and_pushes_them():
    """A 50 g ball (r = 3 cm) lands on a settled bed of 5 mm particles: the particle tier carries
    it, the ball's momentum change is the particles' impulse plus gravity's, and the particles it
    landed on were pushed (they gained downward momentum on impact)."""
    P = talus.particles
    robot = talus.RobotModel.load(PARTICLE_BALL)
    robot.qpos[2] = 0.03 + 0.005 + 0.03 + 0.01  # 1 cm above the bed's top
    robot.forward()
    links = talus.resolve_coupling(robot, [talus.CouplingEntry(body="ball")])
    model = P.Model()
    model.time_step_s = 1e-3
    model.iterations = 8
    model.friction = model.wall_friction = model.body_friction = 0.5
    # Paper 001's grains (the C++ twin of this test, test_robot_particles.cpp, runs rotating ones
    # too: they let the ball settle three radii deep).
    model.rotation = False
    model.threads = 1
    model.set_box_container([-0.06, -0.06, 0.0], [0.06, 0.06, 0.2])
    model.bodies = talus.tier_bodies(links)
    bed = P.make_lattice_bed([-0.0548, -0.0548, 0.0052], [0.0548, 0.0548, 0.03], radius_m=0.005,
                             spacing_factor=1.05, jitter=0.8, seed=3)
    tier = P.ContactTier(model, bed)
    assert [b.name for b in tier.bodies()] == ["ball"]
    steps, _, _ = tier.settle([robot.body_pose("ball")], kinetic_energy_per_particle_J=1e-9,
                              max_steps=300)
    assert steps <= 300
    surface = P.free_surface_z_m(tier.state)

    sim = talus.CoupledSim(robot, links, tier)
    m, impulse, min_vz = 0.05, np.zeros(3), 0.0
    for _ in range(400):
        sim.step()
        impulse += np.asarray(sim.wrenches[0].f_W) * sim.tier_time_step_s
        min_vz = min(min_vz, float(np.min(tier.state.vz_m_per_s)))
    dp = m * robot.qvel[:3]
    np.testing.assert_allclose(dp, impulse + m * np.array([0.0, 0.0, -9.81]) * sim.time_s,
                               atol=1e-9)
    # At rest on the surface: the ball rocks a little in the bed after landing, so allow it
    # another 0.4 s (the exact bits of the settling differ between builds: -O1 under the
    # sanitizers left it at 0.03 m/s after 0.4 s).
    sim.step(400)
    assert abs(robot.qvel[2]) < 0.02
    assert robot.qpos[2] - 0.03 == pytest.approx(surface, abs=0.01)
    assert min_vz < -0.05                                         # the landing pushed particles


@whole_episode_physics
def test_the_shipped_wheel_on_particles_drives_as_docs_rover_md_reports(tmp_path):
    # docs/rover.md's table of rover_particles had kept the figures of paper 001's grains after
    # rotating grains became the default; this pins the shipped run's to the table (rotating:
    # slip 15.8 %, sinkage 30.3 mm, drive torque 15.4 N m) with room for another CPU's rounding
    # (a znver1 machine, AVX2 only, gave 22.7 %, 30.5 mm and 17.7 N m: docs/rover.md).
    import json
    import subprocess
    cli = os.environ.get("TALUS_CLI", "build/bin/talus")
    r = subprocess.run([cli, "run", str(SOURCE_DIR / "scenarios/robots/rover_particles.toml"),
                        "--out", str(tmp_path / "o"), "-q", "-j1"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    steady = json.loads((tmp_path / "o" / "summary.json").read_text())["result"]["steady"]
    assert 0.12 < steady["mean_slip"] < 0.25, steady
    assert 0.025 < steady["mean_sinkage_m"]["wheel"] < 0.036, steady
    assert 12.0 < steady["mean_drive_torque_Nm"] < 19.0, steady


def _run_rover_slope(tmp_path, name, edits=()):
    """Runs scenarios/robots/rover_slope.toml (with text replacements `edits`) and returns its
    summary's result."""
    import json
    import subprocess
    scenario = variant(tmp_path, "scenarios/robots/rover_slope.toml", name=name + ".toml",
                       also=edits)
    cli = os.environ.get("TALUS_CLI", "build/bin/talus")
    r = subprocess.run([cli, "run", str(scenario), "--out", str(tmp_path / name), "-q"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / name / "summary.json").read_text())
    assert "warning" not in r.stderr, r.stderr  # the soil's flow stays off the map's edges
    return summary["result"]


def _mean_slip(result, lo_m, hi_m):
    bins = [b["mean_slip"] for b in result["slip_by_distance"]
            if b["from_m"] >= lo_m - 1e-9 and b["to_m"] <= hi_m + 1e-9]
    assert bins, (lo_m, hi_m)
    return float(np.mean(bins))


@whole_episode_physics
def test_the_rover_on_the_flow_fields_slips_more_on_the_slope_in_two_steps(tmp_path):
    # Paper 002 Fig. 11's shape on the shipped scenario (the flow fields, 4 ms soil steps):
    # ~10 % on the flat, a step when the front wheels reach the slope at ~1.55 m of driven
    # distance, a second rise when all four are on it (docs/rover.md: 6-7 %, 22 %, 37 %).
    result = _run_rover_slope(tmp_path, "fields")
    flat = _mean_slip(result, 0.3, 1.4)
    front_on_slope = _mean_slip(result, 1.7, 2.3)
    all_on_slope = _mean_slip(result, 2.5, 2.8)
    assert 0.02 < flat < 0.12, result["slip_by_distance"]
    assert front_on_slope > flat + 0.08, result["slip_by_distance"]
    assert all_on_slope > front_on_slope + 0.08, result["slip_by_distance"]
    assert result["driven_distance_m"] > 2.7


@whole_episode_physics
def test_softer_loosened_soil_raises_the_climbs_slip_not_the_flats(tmp_path):
    # docs/rover.md, Strain softening (sweeps/rover_slope_softening.toml): a residual friction
    # angle of 16 deg instead of the shipped 24 deg lifts the slip with all four wheels on the
    # slope (they grip soil the front wheels failed) from ~37 % to ~60 %, while the front wheels
    # on fresh soil, alone on the slope or on the flat, slip as before.
    shipped = _run_rover_slope(tmp_path, "residual_24")
    softer = _run_rover_slope(tmp_path, "residual_16", [(
        'preset = "dry_sand"', 'preset = "dry_sand"\nresidual_friction_angle_deg = 16.0')])
    assert _mean_slip(softer, 2.5, 2.7) > _mean_slip(shipped, 2.5, 2.7) + 0.15
    assert abs(_mean_slip(softer, 0.3, 0.8) - _mean_slip(shipped, 0.3, 0.8)) < 0.005
    assert abs(_mean_slip(softer, 1.7, 2.3) - _mean_slip(shipped, 1.7, 2.3)) < 0.01


@whole_episode_physics
def test_the_rovers_4_ms_soil_step_drives_as_2_ms_steps_do(tmp_path):
    # rover_slope couples the soil every 4 ms (half the run time of 2 ms steps); this pins the
    # claim in the scenario and docs/rover.md that the slip per 0.1 m bin stays within 1.5 points
    # of the 2 ms run's, on the flat and with the front wheels on the slope (4 s of the drive).
    short = [("duration_s = 8.0", "duration_s = 5.0")]
    four = _run_rover_slope(tmp_path, "four_ms", short)
    two = _run_rover_slope(tmp_path, "two_ms", short + [("mujoco_steps_per_tier_step = 4",
                                                         "mujoco_steps_per_tier_step = 2")])
    assert abs(four["driven_distance_m"] - two["driven_distance_m"]) < 0.02
    bins_four = {round(b["from_m"], 1): b["mean_slip"] for b in four["slip_by_distance"]}
    bins_two = {round(b["from_m"], 1): b["mean_slip"] for b in two["slip_by_distance"]}
    compared = [d for d in bins_four if d in bins_two and d >= 0.3]  # past the spin-up's swings
    assert len(compared) >= 15
    for d in compared:
        assert abs(bins_four[d] - bins_two[d]) < 0.015, (d, bins_four[d], bins_two[d])
