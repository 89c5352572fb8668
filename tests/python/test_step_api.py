"""Each tier driven step by step from Python (issue 15): a scenario file loaded without running it,
bodies posed from Python at every step, and a snapshot (State.copy) that continues bit for bit
like the original, also with another workspace."""

import copy
import os
import pathlib

import numpy as np
import pytest

import talus

SCENARIOS = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "scenarios"


def pose(x, y, z):
    return talus.make_pose([x, y, z])


# ---------------------------------------------------------------- shaping

def blade_poses(model, x):
    """The shipped blade_push's blade at x, 2 cm deep; its post parked far from the sand."""
    return [pose(x, 0.15, 0.03 + 0.05), pose(0.45, 0.28, 1.0)]


def test_shaping_tools_posed_from_python_and_snapshot_restores_bit_for_bit():
    sc = talus.shaping.load(SCENARIOS / "shaping" / "blade_push.toml")
    model, state = sc.model, sc.initial_state()
    assert sc.name == "blade_push" and sc.steps > 0
    work = talus.shaping.Workspace()
    state.place_tools(model, blade_poses(model, 0.12))  # where the tools start, no sand moved
    start = state.heightmap.heights(model.heightmap).copy()
    x = 0.12
    for _ in range(10):
        x += 0.003
        report = talus.shaping.step(model, state, work, tool_poses=blade_poses(model, x))
    assert report.cells_in_contact > 0
    assert state.step == 10
    moved = state.heightmap.heights(model.heightmap)
    assert not np.array_equal(moved, start)  # the blade posed from Python pushed sand
    assert talus.shaping.sand_volume_m3(model.heightmap, state.heightmap) == pytest.approx(
        start.sum() * model.heightmap.cell_size_m ** 2, rel=1e-9)

    snapshot = state.copy()
    assert copy.deepcopy(state).step == state.step
    runs = []
    for s, w in ((state, work), (snapshot, talus.shaping.Workspace())):
        xs = x
        for _ in range(10):
            xs += 0.003
            talus.shaping.step(model, s, w, tool_poses=blade_poses(model, xs))
        runs.append(s.heightmap.heights(model.heightmap).copy())
    assert np.array_equal(runs[0], runs[1])
    assert state.time_s == snapshot.time_s


def test_shaping_tool_jumping_past_a_cell_stops_the_step():
    sc = talus.shaping.load(SCENARIOS / "shaping" / "blade_push.toml")
    model, state = sc.model, sc.initial_state()
    work = talus.shaping.Workspace()
    state.place_tools(model, blade_poses(model, 0.12))
    talus.shaping.step(model, state, work, tool_poses=blade_poses(model, 0.12))
    before = state.heightmap.heights(model.heightmap).copy()
    with pytest.raises(RuntimeError, match="moved .* more than one cell"):
        talus.shaping.step(model, state, work, tool_poses=blade_poses(model, 0.2))
    assert state.step == 1  # the refused step changed nothing
    assert np.array_equal(state.heightmap.heights(model.heightmap), before)
    with pytest.raises(ValueError, match="1 tool poses given for 2 tools"):
        talus.shaping.step(model, state, work, tool_poses=[pose(0.12, 0.15, 0.08)])
    with pytest.raises(ValueError, match="tool 0: pose is not a finite rigid transform"):
        talus.shaping.step(model, state, work,
                           tool_poses=[2.0 * pose(0.12, 0.15, 0.08), pose(0.45, 0.28, 1.0)])


def test_shaping_drivers_still_step_without_poses():
    sc = talus.shaping.load(SCENARIOS / "shaping" / "blade_push.toml")
    state = sc.initial_state()
    talus.shaping.step(sc.model, state, talus.shaping.Workspace())
    assert state.step == 1 and state.time_s == pytest.approx(sc.model.time_step_s)


def test_loader_refuses_another_tier_naming_the_key():
    with pytest.raises(talus.ScenarioError, match="scenario.tier"):
        talus.shaping.load(SCENARIOS / "scm" / "blade.toml")


# ---------------------------------------------------------------- particles

def small_particle_model():
    P = talus.particles
    model = P.Model()
    model.threads = 1
    model.set_box_container([0.0, -0.05, 0.0], [0.2, 0.05, 0.2])
    blade = talus.BoxShape([0.005, 0.04, 0.03])
    model.bodies = [talus.CoupledBody("blade", blade, [0.0, 0.0, 0.0])]
    bed = P.make_lattice_bed([0.0051, -0.0449, 0.0051], [0.1949, 0.0449, 0.03], radius_m=0.005)
    return model, bed


def particle_blade(k):
    """A blade lowered into the bed for 30 steps, then pushed along +x at 0.2 m/s."""
    z = max(0.06 - 0.0005 * k, 0.045)  # 1 ms steps: lowered at 0.5 m/s to 1.5 cm deep
    x = 0.04 + max(k - 30, 0) * 2e-4
    twist = talus.Twist(v_WBo=[0.2 if k >= 30 else 0.0, 0.0, -0.5 if k < 30 else 0.0])
    return [pose(x, 0.0, z)], [twist]


def test_particles_bodies_posed_from_python_and_snapshot_restores_bit_for_bit():
    P = talus.particles
    model, state = small_particle_model()
    work = P.Workspace()
    for k in range(60):
        poses, twists = particle_blade(k)
        wrenches = P.step(model, state, work, body_poses=poses, body_twists=twists)
    assert wrenches.shape == (1, 3, 3)
    assert wrenches[0, 0, 0] < 0.0  # the bed resists the push along +x
    assert np.array_equal(wrenches, state.wrenches)

    snapshot = state.copy()
    runs = []
    for s, w in ((state, work), (snapshot, P.Workspace())):
        for k in range(60, 90):
            poses, twists = particle_blade(k)
            P.step(model, s, w, body_poses=poses, body_twists=twists)
        runs.append((s.x_m, s.z_m, s.vx_m_per_s, s.wrenches, s.step))
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


def test_particle_arrays_are_safe_copies_written_by_assignment():
    P = talus.particles
    model, state = small_particle_model()
    work = P.Workspace()
    x = state.x_m
    x_before = x.copy()
    P.step(model, state, work, body_poses=[pose(0.1, 0.0, 0.5)])
    assert np.array_equal(x, x_before)  # a copy: the step did not change (or free) it
    w = state.wrenches
    P.step(model, state, work, body_poses=[pose(0.1, 0.0, 0.5)])
    assert w.shape == (1, 3, 3) and np.all(np.isfinite(w))
    x[0] = 0.1
    state.x_m = x  # written by assigning the whole array
    assert state.x_m[0] == np.float32(0.1)
    with pytest.raises(ValueError, match="x_m: expected a 1-D array of"):
        state.x_m = x[:3]
    with pytest.raises(ValueError, match="0 body poses given for 1 bodies"):
        P.step(model, state, work)


def test_particles_scenario_loader_gives_model_state_and_motions():
    P = talus.particles
    sc = P.load(SCENARIOS / "particles" / "blade_push.toml")
    assert sc.body_names == ["blade"]
    state = sc.initial_state()
    assert len(state) > 1000 and state.step == 0
    poses, twists = sc.body_motions(0.0)
    assert len(poses) == 1 and np.asarray(poses[0]).shape == (4, 4)
    depth = P.sky_depth(sc.model, state, [0.0, -0.1], [0.4, 0.1], 0.3, 40, 20, body_poses=poses)
    assert depth.shape == (20, 40) and depth.dtype == np.float32
    assert np.isfinite(depth).mean() > 0.7  # the bed (top at z = 0.08 m) fills most of the view
    assert 0.3 - 0.085 < depth[10, 35] < 0.3 - 0.07  # a pixel over the bed, away from the blade
    assert depth[np.isfinite(depth)].min() > 0.0


# ---------------------------------------------------------------- SCM

def test_scm_bodies_posed_from_python_and_snapshot_restores_bit_for_bit():
    scm = talus.scm
    sc = scm.load(SCENARIOS / "scm" / "plate_sinkage.toml")
    model = sc.model
    assert model.body_count == 0
    index = model.add_body("plate", talus.BoxShape([0.05, 0.05, 0.02]))
    assert index == 0
    state = sc.initial_state()
    work = scm.Workspace()
    cx, cy = 0.5 * (model.nx - 1) * model.cell_size_m, 0.5 * (model.ny - 1) * model.cell_size_m

    def plate(k):
        # the plate's bottom (0.02 m below its centre) enters the soil at step 3, 0.4 mm per step
        return [pose(cx + 0.001 * k, cy, 0.021 - 0.0004 * k)], [talus.Twist(v_WBo=[1.0, 0, -0.4])]

    for k in range(20):
        wrenches, report = scm.step(model, state, work, *plate(k))
    assert report["nodes_in_contact"] > 0
    assert wrenches.shape == (1, 3, 3) and wrenches[0, 0, 2] > 0.0  # the soil carries the plate

    snapshot = state.copy()
    runs = []
    for s, w in ((state, work), (snapshot, scm.Workspace())):
        for k in range(20, 40):
            wrenches, _ = scm.step(model, s, w, *plate(k))
        runs.append((s.heights(0, 0, model.nx, model.ny), s.sinkage(0, 0, model.nx, model.ny),
                     wrenches, s.step))
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


# ---------------------------------------------------------------- type stubs

def test_type_stubs_cover_every_public_name():
    """The build writes .pyi stubs (scripts/gen_stubs.py) that parse and name the whole API."""
    import ast
    stub_dir = pathlib.Path(talus.__file__).parent / "_talus"
    modules = {"__init__": talus._talus, "particles": talus.particles, "robots": talus.robots,
               "scm": talus.scm, "shaping": talus.shaping}
    for stub_name, module in modules.items():
        tree = ast.parse((stub_dir / f"{stub_name}.pyi").read_text())
        defined = {node.name for node in tree.body
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        defined |= {t.id for node in tree.body if isinstance(node, ast.AnnAssign)
                    for t in [node.target] if isinstance(t, ast.Name)}
        public = {n for n in vars(module) if not n.startswith("_")} - set(modules)
        assert public <= defined, f"{stub_name}.pyi lacks {sorted(public - defined)}"
    step = next(node for node in ast.parse((stub_dir / "particles.pyi").read_text()).body
                if isinstance(node, ast.FunctionDef) and node.name == "step")
    assert [a.arg for a in step.args.args] == ["model", "state", "workspace", "body_poses",
                                               "body_twists"]


def test_every_particle_model_field_a_scenario_sets_is_settable_and_checked():
    P = talus.particles
    model = P.Model()
    for name, good, bad in [("relaxation", 0.9, -1.0), ("warm_start", 0.5, -0.1),
                            ("contact_margin_m", 5e-4, -1.0),
                            ("max_pushout_speed_m_per_s", 0.3, -1.0),
                            ("overlap_tolerance", 0.1, -1.0), ("hash_table_factor", 3.0, 0.0)]:
        setattr(model, name, good)
        assert getattr(model, name) == good
        with pytest.raises(ValueError, match=name):
            setattr(model, name, bad)
        assert getattr(model, name) == good  # a refused value leaves the model as it was
    model.broadphase = P.Broadphase.linked_hash
    assert model.broadphase == P.Broadphase.linked_hash


# ---------------------------------------------------------------- robots on a tier

def test_robot_on_particles_snapshot_restores_robot_and_tier_bit_for_bit():
    P = talus.particles
    ball = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).parents[2])) \
        / "tests" / "data" / "robot" / "particle_ball.xml"
    robot = talus.RobotModel.load(ball)
    robot.qpos[2] = 0.03 + 0.005 + 0.03 + 0.01
    robot.forward()
    links = talus.resolve_coupling(robot, [talus.CouplingEntry(body="ball")])
    model = P.Model()
    model.threads = 1
    model.set_box_container([-0.06, -0.06, 0.0], [0.06, 0.06, 0.2])
    model.bodies = talus.tier_bodies(links)
    bed = P.make_lattice_bed([-0.0548, -0.0548, 0.0052], [0.0548, 0.0548, 0.03], radius_m=0.005)
    tier = P.ContactTier(model, bed)
    sim = talus.CoupledSim(robot, links, tier)
    sim.step(40)                      # the ball falls onto the bed
    snapshot = sim.snapshot()
    runs = []
    for _ in range(2):
        sim.step(60)                  # it lands and pushes particles
        runs.append((robot.qpos.copy(), robot.qvel.copy(), tier.state.z_m, sim.time_s))
        sim.restore(snapshot)
    assert sim.time_s == pytest.approx(0.04)
    for a, b in zip(*runs):
        assert np.array_equal(a, b)
    assert runs[0][0][2] < 0.075      # it did fall in the 60 steps: the runs compared motion


def test_a_tier_without_snapshots_says_so():
    class Ground(talus.ContactTier):
        def bodies(self):
            return []

        def step(self, dt_s, motions):
            return []

    with pytest.raises(RuntimeError, match="keeps no snapshots"):
        talus.CoupledSim(talus.RobotModel.load(
            pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
            / "tests" / "data" / "robot" / "particle_ball.xml"), [], Ground()).snapshot()


# ---------------------------------------------------------------- one timing (issue 15)
def test_scm_and_shaping_take_the_start_of_the_step_and_answer_at_its_end():
    """Poses are at the START of a step in every tier; SCM and shaping act where the body is at its
    end (pose advanced by the twist over the step): a plate 1 mm above the soil moving down at
    2 m/s for 1 ms is 1 mm deep at the end, so the soil carries it in this step; at rest it is
    not touched."""
    scm = talus.scm
    sc = scm.load(SCENARIOS / "scm" / "plate_sinkage.toml")
    model = sc.model
    model.add_body("plate", talus.BoxShape([0.05, 0.05, 0.02]))
    cx, cy = 0.5 * (model.nx - 1) * model.cell_size_m, 0.5 * (model.ny - 1) * model.cell_size_m
    surface = sc.initial_state().heights(0, 0, model.nx, model.ny)[0, 0]
    start = [pose(cx, cy, surface + 0.02 + 0.001)]  # the box's bottom 1 mm above the soil
    down = -0.002 / model.time_step_s
    wrenches, report = scm.step(model, sc.initial_state(), scm.Workspace(), start,
                                [talus.Twist(v_WBo=[0.0, 0.0, down])])
    assert report["nodes_in_contact"] > 0 and wrenches[0, 0, 2] > 0.0
    wrenches, report = scm.step(model, sc.initial_state(), scm.Workspace(), start)
    assert report["nodes_in_contact"] == 0 and wrenches[0, 0, 2] == 0.0

    sh = talus.shaping.load(SCENARIOS / "shaping" / "blade_push.toml")
    model, state = sh.model, sh.initial_state()
    state.place_tools(model, blade_poses(model, 0.12))
    before = state.heightmap.heights(model.heightmap).copy()
    speed = 0.003 / model.time_step_s  # one step carries the blades 3 mm along x
    twists = [talus.Twist(v_WBo=[speed, 0.0, 0.0])] * len(blade_poses(model, 0.12))
    talus.shaping.step(model, state, talus.shaping.Workspace(), tool_poses=blade_poses(model, 0.12),
                       tool_twists=twists)
    moved = sh.initial_state()
    moved.place_tools(model, blade_poses(model, 0.12))
    talus.shaping.step(model, moved, talus.shaping.Workspace(),
                       tool_poses=blade_poses(model, 0.123))
    np.testing.assert_array_equal(state.heightmap.heights(model.heightmap),
                                  moved.heightmap.heights(model.heightmap))
    assert not np.array_equal(state.heightmap.heights(model.heightmap), before)


# ---------------------------------------------------------------- robots and wrench submodules
def test_a_robots_scenario_loads_steps_from_python_and_restores_bit_for_bit(tmp_path):
    run = talus.robots.load(SCENARIOS / "robots" / "wheel_rig_scm.toml")
    assert run.name == "wheel_rig_scm" and run.terrain == "scm" and run.steps == 3000
    assert [l.name for l in run.links] == ["wheel"] and isinstance(run.tier, talus.ContactTier)
    assert run.prepare() == {}  # SCM soil has nothing to settle
    run.step(400)  # lands, then the drive schedule turns the wheel from 0.3 s
    assert run.sim.time_s == pytest.approx(0.4)
    assert run.sim.wrenches[0].f_W[2] > 100.0  # the soil carries the wheel
    snap = run.sim.snapshot()
    run.step(200)
    first = run.robot.qpos.copy()
    run.sim.restore(snap)
    run.step(200)
    np.testing.assert_array_equal(run.robot.qpos, first)
    bad = tmp_path / "bad.toml"
    bad.write_text((SCENARIOS / "robots" / "wheel_rig_scm.toml").read_text()
                   .replace('"../../', f'"{SCENARIOS.parent}/').replace("duration_s = 3.0",
                                                                        "duration_s = -1.0"))
    with pytest.raises(talus.ScenarioError, match=r"bad\.toml:\d+:\d+: simulation\.duration_s"):
        talus.robots.load(bad)


def test_the_wrench_submodule_names_the_wrench_tier():
    assert talus.wrench.Space is talus.WrenchSpace
    assert talus.wrench.SpaceTier is talus.WrenchSpaceTier
    assert talus.wrench.ContactStep is talus.WrenchContactStep
    assert talus.wrench.load_database is talus.load_wrench_database
