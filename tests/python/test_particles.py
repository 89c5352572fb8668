"""Particle tier from Python: beds, a model with a container and a driven body, steps, and the
float32 state arrays and body wrenches as numpy copies, written by assignment."""

import numpy as np
import pytest

import talus

P = talus.particles


def small_sim(friction=0.5, sort_every_steps=0):
    model = P.Model()
    model.time_step_s = 1e-3
    model.sort_every_steps = sort_every_steps
    model.friction = model.wall_friction = model.body_friction = friction
    model.threads = 1
    model.set_box_container([0.0, -0.05, 0.0], [0.2, 0.05, 0.2])
    bed = P.make_lattice_bed([0.0051, -0.0449, 0.0051], [0.1949, 0.0449, 0.04], radius_m=0.005)
    return P.Simulation(model, bed)


def test_random_bed_is_seeded_and_has_no_overlap():
    a = P.make_random_bed([-0.05, -0.05, 0.0], [0.05, 0.05, 0.1], count=300, radius_m=0.005, seed=4)
    b = P.make_random_bed([-0.05, -0.05, 0.0], [0.05, 0.05, 0.1], count=300, radius_m=0.005, seed=4)
    assert len(a) == 300
    sa, sb = P.Simulation(P.Model(), a), P.Simulation(P.Model(), b)
    assert np.array_equal(sa.x_m, sb.x_m)
    pts = np.stack([sa.x_m, sa.y_m, sa.z_m], axis=1).astype(np.float64)
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2) + np.eye(300)
    assert d.min() >= 0.01 - 1e-6


def test_positions_are_float32_copies_written_by_assignment():
    sim = small_sim()
    x = sim.x_m
    assert x.dtype == np.float32 and x.shape == (len(sim.state),)
    assert not np.shares_memory(x, sim.x_m)  # a copy: a step never frees or changes it
    x[0] += 0.001
    assert sim.x_m[0] != x[0]
    sim.x_m = x                              # assigning the whole array writes the state
    assert sim.x_m[0] == x[0]
    z0 = sim.z_m
    sim.step(20)
    z = sim.z_m
    assert z.dtype == np.float32
    assert z.mean() < z0.mean()             # the lattice settled under gravity
    assert sim.time_s == pytest.approx(0.02)


def test_positions_written_between_steps_are_seen():
    # The step keeps a Verlet neighbour list between steps; a position written between steps
    # must still make contacts at once, exactly as without the list.
    results = []
    for skin in (0.3, 0.0):
        model = P.Model()
        model.gravity_m_per_s2 = [0.0, 0.0, 0.0]
        model.neighbour_skin_radii = skin
        model.set_box_container([0.0, 0.0, 0.0], [0.1, 0.1, 0.1])
        state = P.State()
        state.add([0.03, 0.05, 0.05], [0, 0, 0], 0.005, 1e-3)
        state.add([0.07, 0.05, 0.05], [0, 0, 0], 0.005, 1e-3)
        sim = P.Simulation(model, state)
        sim.step(3)
        x = sim.x_m
        x[1] = 0.038                        # 2 mm into particle 0
        sim.x_m = x
        sim.step(1)
        assert sim.x_m[0] < 0.03 and sim.x_m[1] > 0.038
        results.append(sim.x_m)
    assert np.array_equal(results[0], results[1])


def test_driven_blade_feels_the_bed_and_wrenches_are_copies():
    sim = small_sim()
    sim.settle(kinetic_energy_per_particle_J=1e-8, max_steps=1500)
    t0 = sim.time_s
    # A blade lowered from above into the bed, then pushed along +x.
    poses = [talus.make_pose([0.04, 0.0, 0.09]), talus.make_pose([0.04, 0.0, 0.045]),
             talus.make_pose([0.12, 0.0, 0.045])]
    blade = talus.WaypointDriver([t0, t0 + 0.1, t0 + 0.5], poses)
    index = sim.add_body("blade", talus.BoxShape([0.005, 0.04, 0.03]), blade)
    assert index == 0
    sim.check()
    fx = []
    for _ in range(45):
        sim.step(10)
        w = sim.wrenches
        assert w.shape == (1, 3, 3) and w.dtype == np.float64
        assert not np.shares_memory(w, sim.wrenches)  # the next step reassigns the C++ vector
        fx.append(w[0, 0, 0])
    assert np.mean(fx[20:]) < -0.01      # the bed resists the push along +x: f_x < 0


def test_bad_input_is_refused_naming_the_particle():
    model = P.Model()
    model.set_box_container([0, 0, 0], [0.1, 0.1, 0.1])
    state = P.State()
    state.add([0.05, 0.05, 0.05], [0, 0, 0], 0.005, 1e-3)
    state.add([0.5, 0.05, 0.05], [0, 0, 0], 0.005, 1e-3)   # outside the box
    with pytest.raises(ValueError, match="particle 1"):
        P.Simulation(model, state).check()


def test_state_saves_and_loads(tmp_path):
    sim = small_sim()
    sim.step(5)
    path = tmp_path / "bed.tps"
    sim.state.save(path)
    loaded = P.load_state(path)
    again = P.Simulation(sim.model, loaded)
    assert np.array_equal(again.z_m, sim.z_m) and loaded.step == 5
    path.write_bytes(b"garbage")
    with pytest.raises(RuntimeError, match="not a talus particle state file"):
        P.load_state(path)


def test_sky_depth_refuses_a_camera_at_or_below_the_floor():
    sim = small_sim()
    depth = P.sky_depth(sim.model, sim.state, [0.0, -0.05], [0.2, 0.05], 0.3, 20, 10)
    assert np.isfinite(depth).any()  # above the bed: the particles are seen
    for z in (0.0, -1.0):
        with pytest.raises(ValueError, match=r"z_camera_m = .* not above the container's floor"):
            P.sky_depth(sim.model, sim.state, [0.0, -0.05], [0.2, 0.05], z, 20, 10)


def test_a_sorting_model_keeps_identities_with_the_particles():
    # Model.sort_every_steps puts the particles in spatial order every so many steps; State.id
    # names each particle across the sorts, and a state file holds them in identity order.
    plain, sorting = small_sim(), small_sim(sort_every_steps=10)
    order = np.random.default_rng(3).permutation(len(plain.state))  # a bed in no order
    for sim in (plain, sorting):
        for name in ("x_m", "y_m", "z_m"):
            setattr(sim, name, getattr(sim, name)[order])
    assert np.array_equal(sorting.id, np.arange(len(sorting.state)))
    with pytest.raises(ValueError, match="sort_every_steps"):
        P.Model().sort_every_steps = -1
    plain.step(30)
    sorting.step(30)
    ids = sorting.id
    assert ids.dtype == np.uint32 and not np.array_equal(ids, np.arange(len(ids)))
    z_by_id = np.empty_like(sorting.z_m)
    z_by_id[ids] = sorting.z_m
    np.testing.assert_allclose(z_by_id, plain.z_m, atol=1e-6)
