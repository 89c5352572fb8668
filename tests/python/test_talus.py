"""Python module tests: the same objects as the C++ API; arrays are numpy views without copies."""

import json
import math
import os
import pathlib

import numpy as np
import pytest

import talus

SOURCE_DIR = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def small_model(**kw):
    args = dict(nx=30, ny=20, cell_size_m=0.01, repose_angle_deg=30.0, tolerance_m=1e-10)
    args.update(kw)
    return talus.shaping.HeightmapModel(**args)


def test_heights_are_a_writable_view_without_copy():
    model = small_model()
    state = talus.shaping.HeightmapState.flat(model, 0.05)
    h = state.heights(model)
    assert h.shape == (20, 30) and h.dtype == np.float64
    h[5, 7] = 0.2
    again = state.heights(model)
    assert again[5, 7] == 0.2                      # the write reached the C++ state
    assert np.shares_memory(h, again)              # both views share the same buffer
    assert not h.flags["OWNDATA"]


def test_erosion_brings_a_spike_to_repose_and_conserves_volume():
    model = small_model()
    state = talus.shaping.HeightmapState.flat(model, 0.05)
    state.heights(model)[10, 15] += 0.1
    v0 = talus.shaping.sand_volume_m3(model, state)
    result = talus.shaping.erode_to_steady_state(model, state)
    assert result.converged
    assert result.updates > 1
    assert talus.shaping.max_repose_excess(model, state) <= 1e-9
    assert abs(talus.shaping.sand_volume_m3(model, state) - v0) / v0 < 1e-12
    h = state.heights(model)
    assert h.max() < 0.15 and h.max() > 0.05


def test_bad_model_arguments_raise_with_the_field_name():
    with pytest.raises(ValueError, match="cell_size_m"):
        talus.shaping.HeightmapModel(nx=10, ny=10, cell_size_m=-1.0, repose_angle_deg=30.0)
    # Named in the unit the caller used, degrees.
    with pytest.raises(ValueError, match=r"repose_angle_deg must be in \(0, 90\) \[deg\], got 95"):
        talus.shaping.HeightmapModel(nx=10, ny=10, cell_size_m=0.01, repose_angle_deg=95.0)


def test_a_flat_state_needs_a_finite_height():
    model = small_model()
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="height_m must be finite"):
            talus.shaping.HeightmapState.flat(model, bad)


def test_letter_map_takes_one_letter_and_lists_the_letters_otherwise():
    lower, upper = talus.shaping.letter_map("s"), talus.shaping.letter_map("S")
    assert (lower.rows, lower.cols, lower.count()) == (upper.rows, upper.cols, upper.count())
    for bad in ("SS", ""):
        with pytest.raises(ValueError, match="expected one letter.*available: A, B"):
            talus.shaping.letter_map(bad)


def test_cell_zero_centre_is_the_grids_x0_y0():
    # One convention with SCM's nodes: cell (i, j) is centred at (x0_m + i h, y0_m + j h).
    model = small_model(x0_m=-0.1, y0_m=0.2)
    assert (model.x0_m, model.y0_m) == (-0.1, 0.2)
    assert (small_model().x0_m, small_model().y0_m) == (0.0, 0.0)
    with pytest.raises(ValueError, match="x0_m"):
        small_model(x0_m=float("nan"))


def test_shapes_and_drivers():
    wheel = talus.wheel_with_grouser_fraction(0.048, 0.05, 12, 0.005, 0.1)
    assert talus.grouser_volume_fraction(wheel) == pytest.approx(0.1, rel=1e-9)
    ball = talus.SphereShape(0.1)
    assert talus.signed_distance(ball, np.array([0.3, 0.0, 0.0])) == pytest.approx(0.2)
    X = talus.make_pose(np.array([1.0, 2.0, 0.5]))
    assert talus.lowest_point_z(ball, X, 1.0, 2.0) == pytest.approx(0.4)
    assert math.isinf(talus.lowest_point_z(ball, X, 5.0, 2.0))
    d = talus.WaypointDriver([0.0, 2.0], [talus.make_pose(np.zeros(3)), talus.make_pose(np.array([2.0, 0, 0]))])
    assert talus.pose_at(d, 1.0)[0, 3] == pytest.approx(1.0)
    assert talus.twist_at(d, 1.0).v_WBo[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="waypoint 1"):
        talus.WaypointDriver([0.0, 0.0], [talus.make_pose(np.zeros(3))] * 2)


def test_step_a_blade_through_sand():
    model = small_model(nx=40, ny=20, tolerance_m=1e-8)
    blade = talus.BoxShape(np.array([0.003, 0.04, 0.05]))
    start = talus.make_pose(np.array([0.1, 0.1, 0.09]))
    driver = talus.ConstantTwistDriver(start, talus.Twist(v_WBo=np.array([0.1, 0.0, 0.0])))
    sim = talus.shaping.Model(model, [talus.shaping.Tool("blade", blade, driver)], 0.05)
    state = talus.shaping.State(sim, talus.shaping.HeightmapState.flat(model, 0.05))
    work = talus.shaping.Workspace()
    v0 = talus.shaping.sand_volume_m3(model, state.heightmap)
    reports = [talus.shaping.step(sim, state, work) for _ in range(10)]
    assert state.step == 10 and state.time_s == pytest.approx(0.5)
    assert all(r.erosion_converged for r in reports)
    assert sum(r.displaced_volume_m3 for r in reports) > 0
    assert abs(talus.shaping.sand_volume_m3(model, state.heightmap) - v0) / v0 < 1e-12
    h = state.heightmap.heights(model)
    assert h[10, 12] == pytest.approx(0.04, abs=1e-9)   # trench behind the blade, at its depth


def test_straight_push_primitive():
    model = small_model(nx=60, ny=40, cell_size_m=0.005, tolerance_m=1e-9)
    state = talus.shaping.HeightmapState.flat(model, 0.05)
    push = talus.shaping.StraightPush(np.array([0.06, 0.1]), np.array([0.2, 0.1]), bottom_z_m=0.04, blade_width_m=0.05)
    report = talus.shaping.execute_straight_push(model, state, push)
    assert report.erosion_converged
    assert state.heights(model)[20, 25] == pytest.approx(0.04, abs=1e-6)


def test_planner_matches_exhaustive_search_and_counts_nodes():
    goal = talus.shaping.BinaryMap.from_rows(["###", "#.#", "#.#"])
    plan = talus.shaping.plan_single_stroke_trench(goal)
    assert plan.found
    assert plan.steps == talus.shaping.exhaustive_min_steps(goal)
    assert len(plan.actions) == plan.steps
    assert plan.nodes_expanded > 0
    s = talus.shaping.letter_map("S")
    paper = talus.shaping.plan_single_stroke_trench(s, talus.shaping.TrenchHeuristic.CellsRemaining)
    ours = talus.shaping.plan_single_stroke_trench(s, talus.shaping.TrenchHeuristic.PathCover)
    assert ours.steps == paper.steps
    assert ours.nodes_expanded < paper.nodes_expanded


def test_run_scenario_and_bad_scenario(tmp_path):
    scenario = SOURCE_DIR / "scenarios" / "shaping" / "trench_letter_T.toml"
    info = talus.check_scenario(scenario)
    assert info["tier"] == "shaping"
    summary = talus.run_scenario(scenario, tmp_path / "out")
    assert summary["planner"]["steps"] > 0
    assert summary["volume_relative_error"] < 1e-9
    on_disk = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert on_disk["steps"] == summary["steps"]
    heights = np.load(tmp_path / "out" / "heightmap_final.npy")
    assert heights.shape == (summary["grid"]["ny"], summary["grid"]["nx"])
    bad = tmp_path / "bad.toml"
    bad.write_text(scenario.read_text().replace("repose_angle_deg = 29.0", "repose_angle_deg = 100.0"))
    with pytest.raises(talus.ScenarioError, match=r"bad\.toml:\d+:\d+: heightmap\.repose_angle_deg"):
        talus.check_scenario(bad)


def test_write_plot_draws_a_chart_and_refuses_series_of_unequal_length(tmp_path):
    talus.write_plot(tmp_path / "chart.png", [("return", [0.0, 1.0, 2.0], [1.0, 3.0, 2.0])],
                     title="a chart", x_label="episode", y_label="return", width_px=400,
                     height_px=300)
    data = (tmp_path / "chart.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 400 and int.from_bytes(data[20:24], "big") == 300
    with pytest.raises(RuntimeError, match="series 0 \\('a'\\) has 2 x values but 1 y values"):
        talus.write_plot(tmp_path / "bad.png", [("a", [0.0, 1.0], [1.0])])
    assert not (tmp_path / "bad.png").exists()
