"""Wrench-space bindings: databases (shipped, built in Python, saved and loaded), W(theta) in both
forms, and a MuJoCo foot standing on a medium through the wrench-space contact step."""

import os
import pathlib

import numpy as np
import pytest

import talus

SOURCE_DIR = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
FOOT = SOURCE_DIR / "robots" / "paper_foot" / "paper_foot.xml"


def synthetic_database(force_N=200.0):
    """26 cube directions, wrenches opposing motion, growing with depth (4 depths x 3 tilts)."""
    directions = []
    for x in (-1, 0, 1):
        for z in (-1, 0, 1):
            for w in (-1, 0, 1):
                if (x, z, w) != (0, 0, 0):
                    v = np.array([x, z, w], float)
                    directions.append(v / np.linalg.norm(v))
    directions = np.array(directions)
    configurations = np.array([[d, t] for d in (0.0, -0.02, -0.04, -0.06) for t in (-0.3, 0.0, 0.3)])
    surface = -directions * np.array([1.0, 1.0, 0.1]) + np.array([0.0, 0.33, 0.0])
    db = talus.WrenchDatabase()
    db.configurations = configurations
    db.velocity_directions = directions
    db.velocity_scale = np.array([0.02, 0.02, 0.3])
    db.wrenches = np.array([force_N * (-d / 0.06) * surface for d, _ in configurations])
    db.medium = talus.Medium("synthetic", 0.004, 2600.0, 0.6, "test_wrench.py")
    return db


def test_shipped_databases_load_and_their_interpolant_reproduces_the_training_wrenches():
    for medium in ("pebbles", "sand"):
        db = talus.load_wrench_database(SOURCE_DIR / "data" / "wrench" / f"{medium}.h5")
        assert db.medium.name == medium
        assert db.wrench_dimension == 3 and db.direction_count == 26
        w = db.wrenches
        assert w.shape == (db.configuration_count, 26, 3)
        space = talus.WrenchSpace(db)
        for j in range(db.configuration_count):
            d, t = db.configurations[j]
            np.testing.assert_allclose(space.predict_wrenches(d, t), w[j], atol=1e-6 * max(1.0, np.abs(w).max()))
            if d < 0:
                hull = space.feasible_set(d, t)
                assert np.all(hull["A"] @ w[j].T <= hull["b"][:, None] + 1e-6)
        c = space.concavity()
        assert 0.0 <= c["mean"] <= c["worst"]
        assert space.cross_validation(5)["relative_rms"] > 0.0
        # Depths of the foot's lowest point, tilts out to a foot lying on its side.
        assert db.depth_at == "lowest_point" and db.foot_radius_m == 0.04
        assert space.tilt_range[0] == pytest.approx(-np.pi / 2, abs=1e-6)
        assert space.tilt_range[1] == pytest.approx(np.pi / 2, abs=1e-6)


def test_database_round_trip_and_bad_shapes(tmp_path):
    db = synthetic_database()
    db.save(tmp_path / "w.h5")
    back = talus.load_wrench_database(tmp_path / "w.h5")
    np.testing.assert_array_equal(back.wrenches, db.wrenches)
    assert back.medium.source == "test_wrench.py"
    db.wrenches = db.wrenches[:, :25, :]
    with pytest.raises(talus.WrenchDatabaseError, match="wrenches"):
        db.save(tmp_path / "bad.h5")
    space = talus.WrenchSpace(tmp_path / "w.h5")
    space.predict_wrenches(-0.5, 0.0)  # far below the sampled depths: clamped and counted
    assert space.clamped_queries == 1
    assert space.contains(-0.04, 0.0, np.zeros(3))


def test_the_depth_reference_round_trips_and_is_checked(tmp_path):
    db = synthetic_database()
    assert db.depth_at == "bottom_centre" and db.foot_radius_m == 0.0
    db.depth_at = "lowest_point"
    with pytest.raises(talus.WrenchDatabaseError, match="foot_radius_m"):
        db.save(tmp_path / "no_radius.h5")
    db.foot_radius_m = 0.04
    db.save(tmp_path / "lowest.h5")
    back = talus.load_wrench_database(tmp_path / "lowest.h5")
    assert back.depth_at == "lowest_point" and back.foot_radius_m == 0.04
    with pytest.raises(ValueError, match="depth_at"):
        db.depth_at = "middle"


def test_string_attributes_written_by_h5py_are_read(tmp_path):
    # h5py writes str attributes as variable-length UTF-8 strings, which were refused with
    # "depth_reference: cannot read" (HDF5 will not convert UTF-8 to ASCII).
    h5py = pytest.importorskip("h5py")
    db = synthetic_database()
    db.save(tmp_path / "w.h5")
    with h5py.File(tmp_path / "w.h5", "r+") as f:
        f.attrs["depth_reference"] = "lowest_point"
        f.attrs["foot_radius_m"] = 0.04
        f["medium"].attrs["name"] = "sable fin"
        f["medium"].attrs["source"] = "h5py, UTF-8: \u00e9"
        f["medium"].attrs.create("note", "x")  # an attribute talus does not read is left alone
    back = talus.load_wrench_database(tmp_path / "w.h5")
    assert back.depth_at == "lowest_point"
    assert back.medium.name == "sable fin"
    assert back.medium.source == "h5py, UTF-8: \u00e9"
    with h5py.File(tmp_path / "w.h5", "r+") as f:
        f.attrs["depth_reference"] = "bottom"
    with pytest.raises(talus.WrenchDatabaseError, match="depth_reference"):
        talus.load_wrench_database(tmp_path / "w.h5")
    # The components' names must name the wrenches' columns.
    with h5py.File(tmp_path / "w.h5", "r+") as f:
        f.attrs["depth_reference"] = "lowest_point"
        f.attrs["wrench_components"] = "f_x,f_y"
    with pytest.raises(talus.WrenchDatabaseError,
                       match=r'wrench_components: "f_x,f_y", expected "f_x,f_z,tau_y" for wrenches '
                             r'of 3 components'):
        talus.load_wrench_database(tmp_path / "w.h5")


def test_a_medium_and_a_slope_that_cannot_be_are_value_errors():
    for args, field in ((("x", -0.001, 2000.0, 0.5), "grain_radius_m"),
                        (("x", float("nan"), 2000.0, 0.5), "grain_radius_m"),
                        (("x", 0.001, 0.0, 0.5), "density_kg_m3"),
                        (("x", 0.001, 2000.0, -0.1), "friction"), (("", 0.001, 2000.0, 0.5), "name")):
        with pytest.raises(ValueError, match=r"Medium: medium\." + field):
            talus.Medium(*args)
    robot = talus.RobotModel.load(FOOT)
    space = talus.WrenchSpace(synthetic_database())
    for slope in (float("nan"), 1.6):
        with pytest.raises(ValueError, match="slope"):
            talus.WrenchContactStep(robot, space, [("foot", "bottom", [14.714, 14.714, 0.122])],
                                    slope_rad=slope)


def test_a_foot_on_its_side_rests_on_its_rim_with_lowest_point_data():
    """With depths of the lowest point, a foot lying on its side touches while its bottom centre is
    above the surface; with the paper's bottom-centre depths it would fall through unnoticed."""
    db = synthetic_database()
    db.configurations = np.array([[d, t] for d in (0.0, -0.02, -0.04, -0.06) for t in (0.0, 0.8, 1.5707963)])
    db.depth_at = "lowest_point"
    db.foot_radius_m = 0.04
    robot = talus.RobotModel.load(FOOT)
    robot.qpos[1] = 0.045  # joint z: the bottom centre 4.5 cm up ...
    robot.qpos[2] = np.pi / 2  # ... joint ry: lying on its side, its rim 5 mm above the surface
    step = talus.WrenchContactStep(robot, talus.WrenchSpace(db), [("foot", "bottom", np.array([14.714, 14.714, 0.122]))])
    for _ in range(1500):
        step.step()
    foot = step.feet[0]
    assert foot["in_contact"]
    assert foot["depth_m"] > 0.0  # the bottom centre stays above the surface
    assert -0.06 < foot["configuration_depth_m"] < 0.0
    phi = min(abs(foot["tilt_rad"]), np.pi / 2)  # the paper's clamp to [-pi/2, pi/2]
    assert foot["configuration_depth_m"] == pytest.approx(foot["depth_m"] - 0.04 * np.sin(phi))
    assert foot["wrench_W"][1] == pytest.approx(7.357 * 9.81, abs=0.5)
    assert abs(robot.qvel[1]) < 1e-3


def test_foot_stands_on_the_medium_carrying_its_weight():
    robot = talus.RobotModel.load(FOOT)
    robot.qpos[1] = 0.005  # joint z: the bottom 5 mm above the surface
    space = talus.WrenchSpace(synthetic_database())
    step = talus.WrenchContactStep(robot, space, [("foot", "bottom", np.array([14.714, 14.714, 0.122]))])
    for _ in range(1500):
        step.step()
    foot = step.feet[0]
    assert foot["in_contact"]
    assert -0.06 < foot["depth_m"] < 0.0
    assert foot["wrench_W"][1] == pytest.approx(7.357 * 9.81, abs=0.5)
    assert abs(robot.qvel[1]) < 1e-3


FREE_FOOT = SOURCE_DIR / "robots" / "paper_foot" / "paper_foot_free.xml"


def sim_link(robot):
    return talus.resolve_coupling(
        robot, [talus.CouplingEntry(body="foot", shape=talus.CylinderShape(0.04, 0.25), X_BS=np.eye(4))])[0]


def coupled_free_foot(space):
    """The free foot (2.575 kg) 5 mm above the medium, coupled through talus.WrenchSpaceTier: its
    frame S is the body frame (origin at the bottom centre, z up the foot), so X_BF is identity."""
    robot = talus.RobotModel.load(FREE_FOOT)
    robot.qpos[2] = 0.005
    robot.forward()
    links = [sim_link(robot)]
    A = talus.planar_inverse_inertia(robot, links[0])
    body = talus.tier_bodies(links)[0]
    tier = talus.WrenchSpaceTier(space, [(body, np.eye(4), np.diag([5.15, 5.15, 0.0427]), A)])
    return robot, tier, talus.CoupledSim(robot, links, tier)


def test_a_free_foot_coupled_to_the_wrench_space_tier_comes_to_rest_carrying_its_weight():
    space = talus.WrenchSpace(synthetic_database())
    robot, tier, sim = coupled_free_foot(space)
    sim.step(1500)
    foot = tier.feet[0]
    assert foot["in_contact"] and -0.06 < foot["depth_m"] < 0.0
    assert foot["wrench_W"][1] == pytest.approx(2.57495 * 9.81, abs=1e-6)
    assert np.max(np.abs(robot.qvel)) < 1e-9
    assert tier.clamped_queries == 0 and tier.contact_queries > 1000
    # The free body's inverse inertia at its bottom centre (its centre of mass 0.25 m up): the
    # inverse of [[m, 0, m l], [0, m, 0], [m l, 0, I + m l^2]] with I = 0.02135 kg m^2.
    m, l, i = 2.57495, 0.25, 0.02135
    expected = np.linalg.inv(np.array([[m, 0, m * l], [0, m, 0], [m * l, 0, i + m * l * l]]))
    np.testing.assert_allclose(talus.planar_inverse_inertia(robot, sim_link(robot)), expected,
                               rtol=1e-9, atol=1e-12)


def test_a_coupled_wrench_space_run_restores_bit_for_bit():
    space = talus.WrenchSpace(synthetic_database())
    robot, tier, sim = coupled_free_foot(space)
    robot.qvel[0] = 0.3  # sliding sideways as it lands
    sim.step(30)
    snap = sim.snapshot()
    sim.step(100)
    first = (robot.qpos.copy(), tier.feet[0]["wrench_W"].copy())
    sim.restore(snap)
    sim.step(100)
    np.testing.assert_array_equal(robot.qpos, first[0])
    np.testing.assert_array_equal(tier.feet[0]["wrench_W"], first[1])


def test_the_implicit_step_and_its_robot_restore_bit_for_bit():
    robot = talus.RobotModel.load(FOOT)
    robot.qpos[1] = 0.005
    robot.qvel[0] = 0.2  # landing while sliding
    space = talus.WrenchSpace(synthetic_database())
    step = talus.WrenchContactStep(robot, space, [("foot", "bottom", np.array([14.714, 14.714, 0.122]))])
    for _ in range(40):
        step.step()
    saved_robot, saved_step = robot.snapshot(), step.snapshot()
    for _ in range(60):
        step.step()
    first = (robot.qpos.copy(), step.feet[0]["wrench_W"].copy(), step.steps)
    robot.restore(saved_robot)
    step.restore(saved_step)
    for _ in range(60):
        step.step()
    np.testing.assert_array_equal(robot.qpos, first[0])
    np.testing.assert_array_equal(step.feet[0]["wrench_W"], first[1])
    assert step.steps == first[2] == 100


def test_the_wrench_space_tier_steps_from_python_and_restores_bit_for_bit():
    """A tier stepped without a robot: the foot pressed 1 cm into the synthetic medium and sliding
    sideways meets a wrench opposing the slide and carrying it; a snapshot replays it."""
    space = talus.wrench.Space(synthetic_database())
    body = talus.CoupledBody("foot", talus.CylinderShape(0.04, 0.25))
    inverse = np.diag([1 / 2.575, 1 / 2.575, 1 / 0.02])
    tier = talus.wrench.SpaceTier(space, [(body, np.eye(4), np.diag([5.15, 5.15, 0.0427]), inverse)])
    pose = talus.make_pose([0.0, 0.0, -0.01])
    sliding = [talus.Twist(v_WBo=[0.2, 0.0, 0.0])]
    w = tier.advance(0.001, [pose], sliding)
    assert w.shape == (1, 3, 3) and w[0, 0, 0] < 0.0 and w[0, 0, 2] > 0.0
    snap = tier.snapshot()
    first = [tier.advance(0.001, [pose], sliding) for _ in range(5)]
    tier.restore(snap)
    second = [tier.advance(0.001, [pose], sliding) for _ in range(5)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert tier.contact_queries == 6  # the counters are part of the restored state


def test_foot_accuracy_beds_are_their_databases_acquisition_beds():
    # docs/wrench_space.md §8 compares the wrench-space step against a particle bed like the one
    # its database was acquired in (grains, rotation included, bed, solver and settling): a
    # scenario that drifted from its acquisition would compare against another medium.
    import tomllib
    for scenario, acquisition in (("foot_accuracy.toml", "pebbles.toml"),
                                  ("foot_accuracy_sand.toml", "sand.toml")):
        with open(SOURCE_DIR / "scenarios" / "wrench" / scenario, "rb") as f:
            run = tomllib.load(f)
        with open(SOURCE_DIR / "data" / "wrench" / acquisition, "rb") as f:
            acquired = tomllib.load(f)
        assert run["wrench_space"]["database"].endswith(acquisition.replace(".toml", ".h5"))
        for table in ("medium", "particles", "bed", "container", "solver", "settle", "foot"):
            assert run[table] == acquired[table], (scenario, table)
        assert run["simulation"]["time_step_s"] == acquired["simulation"]["time_step_s"]


def test_the_shipped_foot_drop_behaves_as_paper_000_fig_9_describes(tmp_path):
    # Paper 000 §IV-C2: dropped upright on flat ground the foot "remains erect"; on slightly
    # sloped ground it "begins to tip, but ultimately is able to balance"; tilted by 0.2 rad it
    # "tips over and eventually stops on a flat surface". Issue 20 also asks that no contact query
    # leaves the data (clamped) and that each case's summary says whether the foot came to rest.
    import json
    import subprocess
    cli = os.environ.get("TALUS_CLI", "build/bin/talus")
    r = subprocess.run([cli, "run", str(SOURCE_DIR / "scenarios/wrench/foot_drop.toml"), "--out",
                        str(tmp_path / "o"), "-q"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    cases = {c["name"]: c for c in json.loads((tmp_path / "o" / "summary.json").read_text())["cases"]}
    assert sorted(cases) == ["tilted_flat", "upright_flat", "upright_slope"]
    for name, case in cases.items():
        assert case["clamped_queries"] == 0, (name, case["clamped_queries"])
        assert case["body"]["at_rest"], (name, case["body"])
        assert case["feet"]["bottom"]["final_in_contact"], name
    # Erect: the pitch never leaves a few hundredths of a radian.
    assert cases["upright_flat"]["body"]["max_abs_pitch_rad"] < 0.05, cases["upright_flat"]["body"]
    # Balances on the 0.1 rad slope: it tips a little, then comes back (shipped: tips to 0.0060
    # rad, ends at 0.0007 rad).
    slope = cases["upright_slope"]["body"]
    assert slope["max_abs_pitch_rad"] < 0.05, slope
    assert abs(slope["final_pitch_rad"]) < 0.5 * slope["max_abs_pitch_rad"], slope
    # Tips over from 0.2 rad: it ends far past its starting tilt, and at rest (above).
    tilted = cases["tilted_flat"]["body"]
    assert tilted["final_pitch_rad"] > 0.8, tilted
