"""SCM soil tier from Python: build a map, add a driven body, step, read fields and wrenches."""

import math
from pathlib import Path

import numpy as np
import pytest

import talus

scm = talus.scm


def pressed_box_map(depth_m=0.003):
    soil = scm.named_soil("dry_sand")
    sm = scm.SoilMap(size_m=(0.4, 0.4), cell_size_m=0.01, soil=soil, method="border")
    X = np.eye(4)
    X[:3, 3] = (0.205, 0.205, 0.05 - depth_m)  # box faces midway between nodes: 10 x 10 nodes
    driver = talus.ConstantTwistDriver(X, talus.Twist())
    sm.add_body("box", talus.BoxShape((0.05, 0.05, 0.05)), driver)
    return sm, soil


def test_pressed_box_force_heights_and_volume():
    sm, soil = pressed_box_map()
    report = sm.step()
    assert report["nodes_in_contact"] == 100
    assert report["displaced_volume_m3"] == pytest.approx(100 * 0.003 * 1e-4, rel=1e-9)
    assert report["deposited_volume_m3"] == pytest.approx(report["displaced_volume_m3"], rel=1e-12)
    f = sm.forces
    assert f.shape == (1, 3)
    expected = 100 * 1e-4 * soil.bekker_k() * 0.003 ** soil.n
    assert f[0, 2] == pytest.approx(expected, rel=1e-9)
    h = sm.heights(0, 0, sm.nx, sm.ny)
    assert h.shape == (sm.ny, sm.nx)
    assert h[20, 20] == pytest.approx(-0.003)
    assert sm.sinkage(20, 20, 1, 1)[0, 0] == pytest.approx(0.003)
    # the berm: displaced soil sits around the box, volume conserved over the whole map
    assert h.sum() * 1e-4 == pytest.approx(0.0, abs=1e-12)
    assert h.max() > 0.0
    assert sm.tile_count >= 1 and sm.tile_bytes == sm.tile_count * 1024 * scm.bytes_per_node()


def test_moving_wheel_reports_flow_and_shear_force():
    soil = scm.named_soil("dry_sand")
    sm = scm.SoilMap(size_m=(1.0, 0.4), cell_size_m=0.01, soil=soil)
    # a cylinder turned to axis y, axle 1 cm below rest height, moving +x with 20 % slip
    r, v = 0.15, 0.5
    X = np.eye(4)
    X[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    X[:3, 3] = (0.3, 0.2, r - 0.01)
    driver = talus.ConstantTwistDriver(X, talus.Twist(w_W=(0, v / (0.8 * r), 0), v_WBo=(v, 0, 0)))
    sm.add_body("wheel", talus.CylinderShape(r, 0.05), driver, p_BR=(0, 0, 0))
    for _ in range(100):
        sm.step()
    assert sm.forces[0, 0] > 0.0  # slipping forward: the soil pushes the wheel forward
    assert sm.torques[0, 1] < 0.0  # and resists its spin
    np.testing.assert_allclose(sm.torque_points[0], X[:3, 3] + np.array([v * 0.1, 0, 0]), atol=1e-9)
    vel = sm.flow_velocity(0, 0, sm.nx, sm.ny)
    assert vel.shape == (sm.ny, sm.nx, 3)
    assert np.abs(vel).max() > 0.0
    assert sm.flow_depth(0, 0, sm.nx, sm.ny).max() > 0.0


def test_bad_input_messages():
    soil = scm.named_soil("dry_sand")
    soil.friction_angle_rad = math.radians(95)
    with pytest.raises(ValueError, match="friction_angle_deg"):
        soil.validate()
    with pytest.raises(ValueError, match="unknown soil 'mud'"):
        scm.named_soil("mud")
    with pytest.raises(ValueError, match="method"):
        scm.SoilMap((1, 1), 0.01, scm.named_soil("dry_sand"), method="magic")
    sm = scm.SoilMap((0.2, 0.2), 0.01, scm.named_soil("dry_sand"))
    with pytest.raises(ValueError, match="not inside the map"):
        sm.heights(0, 0, 100, 1)


def test_tile_views_share_memory_with_the_state():
    sm, _ = pressed_box_map()
    assert sm.tiles() == []
    with pytest.raises(KeyError, match="not allocated"):
        sm.tile_view("height_m", 0, 0)
    sm.step()
    tiles = sm.tiles()
    assert len(tiles) == sm.tile_count and [0, 0] in [list(t) for t in tiles]
    h = sm.tile_view("height_m", 0, 0)
    assert h.shape == (32, 32) and not h.flags.owndata
    # the same values as the dense copy of the tile's nodes (the map is 41 x 41 nodes)
    np.testing.assert_array_equal(h, sm.heights(0, 0, 32, 32))
    contact = sm.tile_view("in_contact", 0, 0)
    assert contact.dtype == np.uint8 and contact[20, 20] == 1
    assert sm.tile_view("plastic_sinkage_m", 0, 0)[20, 20] == pytest.approx(0.003)
    # the soil the body displaced lies loose around it: raised nodes carry a loose layer as thick
    # as their rise, and the pressed node none
    loose = sm.tile_view("loose_layer_m", 0, 0)
    heights = sm.heights(0, 0, 32, 32)
    raised = heights > 1e-9
    assert raised.any() and loose[20, 20] == 0.0
    np.testing.assert_allclose(loose[raised], heights[raised], rtol=0, atol=1e-12)
    # a view shows later steps (the step writes into the tile) ...
    before = h[20, 20]
    for _ in range(3):
        sm.step()
    np.testing.assert_array_equal(h, sm.heights(0, 0, 32, 32))
    # ... and writes through it reach the state
    h[5, 7] = 0.25
    assert sm.heights(7, 5, 1, 1)[0, 0] == 0.25
    assert before == pytest.approx(-0.003)
    with pytest.raises(KeyError, match="unknown field"):
        sm.tile_view("pressure", 0, 0)


def test_a_plates_heightmap_takes_in_every_node_the_flow_moved(tmp_path):
    # The flow fields deposit soil up to 0.4 m from the strip; the picture was cropped to 8 nodes
    # around the plate and cut the berms off at its edge (+7 mm there).
    shipped = Path(__file__).resolve().parents[2] / "scenarios" / "scm" / "strip_load.toml"
    scenario = tmp_path / "strip.toml"
    scenario.write_text(shipped.read_text().replace("hold_s = 0.6", "hold_s = 0.0"))
    talus.run_scenario(scenario, tmp_path / "out")
    heights = np.load(tmp_path / "out" / "heightmap_final.npy")
    assert heights.shape[1] > 40  # the strip and 8 nodes each side were 22
    # Two nodes of flat, untouched soil frame the picture on the sides within the map.
    assert np.abs(heights[:, :2]).max() < 1e-4 and np.abs(heights[:, -2:]).max() < 1e-4
    assert heights.max() > 1e-3  # the berms are in it
