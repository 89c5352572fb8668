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
