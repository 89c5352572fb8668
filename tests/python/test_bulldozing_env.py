"""Bulldozing-v0 (issue 18, paper 001 §III-A): the Gymnasium contract, seeded replay on any thread
count, the vector env against single envs, the scripted push filling the goal box, refusals.
A small heap (600 particles of 4 cm, 2 ms steps) keeps the tests quick; the physics is the same
code as the default's."""

import math

import numpy as np
import pytest

import talus.envs as E
from talus.envs import spaces

from sanitizers import whole_episode_physics

SMALL = dict(particle_count=600, particle_radius_m=0.04, time_step_s=2e-3, steps_per_action=50,
             episode_s=30.0)


def rollout(env, seed, steps):
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    trace = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        trace.append((obs, reward, terminated, truncated))
    return trace


def same(a, b):
    def flat(t):
        out = []
        for item in t:
            obs = item if isinstance(item, dict) else item[0]
            out += [obs["ego"], obs["sky"], obs["pose"]]
            if not isinstance(item, dict):
                out += [np.array(item[1:])]
        return out
    for x, y in zip(flat(a), flat(b), strict=True):
        assert np.array_equal(x, y)


def test_the_env_keeps_gymnasiums_contract_and_the_papers_observation():
    env = E.make("Bulldozing-v0", render_mode="rgb_array", **SMALL)
    assert "Bulldozing-v0" in E.ids() and env.spec.id == "Bulldozing-v0"
    space = env.observation_space
    assert isinstance(space, spaces.Dict)
    assert space["ego"].shape == (36, 36) and space["sky"].shape == (36, 72)
    assert space["pose"].shape == (3,) and space["ego"].dtype == np.float32
    assert env.action_space == spaces.Box(-1.0, 1.0, (2,), np.float32)
    obs, info = env.reset(seed=3)
    assert obs in space and info["steps"] == 0 and info["sim_time_s"] == 0.0
    # The sky camera sees the heap around (-2, 0) m and bare floor at the goal box.
    sky = obs["sky"]
    heap_col, goal_col = int((-2 + 4) / 8 * 72), int((2 + 4) / 8 * 72)
    assert sky[18, heap_col] < 1.5 - 0.15 and sky[18, goal_col] == pytest.approx(1.5, abs=1e-4)
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert obs in space and isinstance(reward, float) and reward < 0
        assert isinstance(terminated, bool) and isinstance(truncated, bool)
    assert info["steps"] == 3 and info["sim_time_s"] == pytest.approx(0.3)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (160, 320, 3)
    assert np.any(np.all(frame == [40, 170, 60], axis=-1))  # the goal box's outline


def test_the_ego_camera_moves_with_the_bulldozer_and_sees_the_floor_ahead():
    env = E.make("Bulldozing-v0", **SMALL)
    obs, _ = env.reset(seed=0)
    # Below the horizon the camera sees the floor (or the scoop) within its range.
    assert np.all(obs["ego"][30:, :] < 6.0)
    before = obs["pose"].copy()
    obs, *_ = env.step(np.array([1.0, 0.0], np.float32))
    moved = obs["pose"][:2] - before[:2]
    heading = np.array([math.cos(before[2]), math.sin(before[2])])
    # 0.1 s at 1 m/s along the heading, unless a wall stopped it.
    assert np.linalg.norm(moved) <= 0.1 + 1e-5
    assert np.dot(moved, heading) > 0.0 or np.linalg.norm(moved) < 1e-6


def test_a_seed_replays_the_episode_bit_for_bit_on_one_and_two_threads():
    a = rollout(E.make("Bulldozing-v0", threads=1, **SMALL), 11, 4)
    b = rollout(E.make("Bulldozing-v0", threads=2, **SMALL), 11, 4)
    same(a, b)
    c = rollout(E.make("Bulldozing-v0", threads=1, **SMALL), 12, 1)
    assert not np.array_equal(a[0]["pose"], c[0]["pose"])


def test_rotating_grains_are_an_option_that_keeps_the_contract_and_changes_the_heap():
    # Paper 001's grains by default; rotation=True (with rolling friction) is another heap.
    rotating = dict(SMALL, rotation=True, rolling_friction=0.2)
    E.check_env(E.make("Bulldozing-v0", **rotating), seed=2, steps=4)
    a = rollout(E.make("Bulldozing-v0", threads=1, **rotating), 11, 4)
    b = rollout(E.make("Bulldozing-v0", threads=2, **rotating), 11, 4)
    same(a, b)
    paper = rollout(E.make("Bulldozing-v0", threads=1, **SMALL), 11, 4)
    assert not np.array_equal(a[-1][0]["sky"], paper[-1][0]["sky"])


def test_the_dynamic_vehicle_keeps_the_contract_replays_and_vectorises():
    # The MuJoCo bulldozer (vehicle="dynamic"): the same contract, the same bits on 1 and 2
    # threads, and its vector form equal to single environments; it moves, not teleports.
    dynamic = dict(SMALL, vehicle="dynamic")
    E.check_env(E.make("Bulldozing-v0", render_mode="rgb_array", **dynamic), seed=2, steps=6)
    a = rollout(E.make("Bulldozing-v0", threads=1, **dynamic), 11, 6)
    b = rollout(E.make("Bulldozing-v0", threads=2, **dynamic), 11, 6)
    same(a, b)
    assert not np.array_equal(a[0]["pose"], a[-1][0]["pose"])
    vec = E.make_vec("Bulldozing-v0", 2, threads=2, **dict(dynamic, episode_s=0.3))
    E.check_vector_env(vec, lambda: E.make("Bulldozing-v0", **dict(dynamic, episode_s=0.3)),
                       seed=4, steps=5)


def test_the_vector_env_equals_its_envs_stepped_one_by_one():
    vec = E.make_vec("Bulldozing-v0", 3, threads=2, **SMALL)
    obs, infos = vec.reset(seed=5)
    assert obs["ego"].shape == (3, 36, 36) and obs in vec.observation_space
    singles = [E.make("Bulldozing-v0", threads=1, **SMALL) for _ in range(3)]
    for i, env in enumerate(singles):
        first = env.reset(seed=5 + i)[0]
        assert all(np.array_equal(obs[key][i], first[key]) for key in ("ego", "sky", "pose"))
    rng = np.random.default_rng(0)
    for _ in range(3):
        actions = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
        obs, rewards, term, trunc, infos = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, te, tr, _ = env.step(actions[i])
            for key in ("ego", "sky", "pose"):
                assert np.array_equal(obs[key][i], o[key])
            assert rewards[i] == r and term[i] == te and trunc[i] == tr


def test_the_vector_env_autoresets_at_the_next_step_after_truncation():
    vec = E.make_vec("Bulldozing-v0", 2, threads=1, **dict(SMALL, episode_s=0.2))
    vec.reset(seed=1)
    zero = np.zeros((2, 2), np.float32)
    vec.step(zero)
    _, _, _, trunc, infos = vec.step(zero)
    assert trunc.all() and (infos["steps"] == 2).all()
    _, rewards, term, trunc, infos = vec.step(zero)
    assert not trunc.any() and not term.any() and (rewards == 0).all()
    assert (infos["steps"] == 0).all()


@whole_episode_physics  # 51 s of CI's sanitized run
def test_the_scripted_push_fills_the_goal_box_and_the_reward_rises():
    env = E.make("Bulldozing-v0", **SMALL)
    policy = E.ScriptedBulldozer()
    obs, info = env.reset(seed=2)
    rewards, in_goal = [], []
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        rewards.append(reward)
        in_goal.append(info["particles_in_goal"])
        if terminated or truncated:
            break
    assert in_goal[0] == 0 and max(in_goal) > 60, max(in_goal)
    assert np.mean(rewards[-20:]) > np.mean(rewards[:20]) + 5.0


def test_a_random_policy_leaves_the_heap_out_of_the_goal():
    env = E.make("Bulldozing-v0", **SMALL)
    env.reset(seed=2)
    env.action_space.seed(2)
    for _ in range(60):
        *_, info = env.step(env.action_space.sample())
    assert info["particles_in_goal"] < 30


@pytest.mark.parametrize("action", [np.array([0.0, 2.0]), np.array([np.nan, 0.0]),
                                    np.zeros(3), "forward", np.array([True, False])])
def test_a_bad_action_is_refused_naming_the_space_and_leaves_the_state_alone(action):
    env = E.make("Bulldozing-v0", **SMALL)
    obs, _ = env.reset(seed=4)
    with pytest.raises(ValueError, match="action space"):
        env.step(action)
    after, *_ = env.step(np.zeros(2, np.float32))
    fresh = E.make("Bulldozing-v0", **SMALL)
    fresh.reset(seed=4)
    expected, *_ = fresh.step(np.zeros(2, np.float32))
    assert np.array_equal(after["sky"], expected["sky"])


@pytest.mark.parametrize("options, match", [
    (dict(particle_count=-5), "particle_count"),
    (dict(particle_count=2.5), "particle_count"),
    (dict(particle_radius_m=0.0), "particle_radius_m"),
    (dict(time_step_s=-1e-3), "time_step_s"),
    (dict(mesh_path="/nonexistent/dozer.obj"), "mesh_path"),
    (dict(colour="red"), "unknown options"),
    (dict(vehicle="hovercraft"), "vehicle"),
    (dict(rotation=True, rolling_friction=-0.1), "rolling_friction"),
    (dict(rolling_friction=0.1), "rolling_friction"),
    (dict(heap_centre_m=(1.0, 2.0, 3.0)), "heap_centre_m"),
    (dict(start_lo_m="ab"), "start_lo_m"),
    (dict(vehicle="dynamic", vehicle_mjcf_path="/nonexistent/dozer.xml"), "vehicle_mjcf_path"),
])
def test_bad_options_are_refused_at_make_naming_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        E.make("Bulldozing-v0", **dict(SMALL, **options))


def test_a_mesh_that_is_not_closed_is_refused(tmp_path):
    open_mesh = tmp_path / "open.obj"
    open_mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\n")
    with pytest.raises(ValueError, match="open.obj"):
        E.make("Bulldozing-v0", **dict(SMALL, mesh_path=str(open_mesh)))


def test_the_heap_and_the_start_can_be_placed_for_curricula():
    env = E.make("Bulldozing-v0", **dict(SMALL, heap_centre_m=(0.5, 0.5), heap_offset_m=0.0,
                                         start_lo_m=(-3.0, 0.0), start_hi_m=(-3.0, 0.0),
                                         start_yaw_max_rad=0.0))
    obs, _ = env.reset(seed=8)
    assert np.array_equal(obs["pose"], np.array([-3.0, 0.0, 0.0], np.float32))
    centre = env.particle_positions()[:, :2].mean(axis=0)
    assert np.allclose(centre, [0.5, 0.5], atol=0.05)
    with pytest.raises(ValueError, match="heap_centre_m"):
        E.make("Bulldozing-v0", **dict(SMALL, heap_centre_m=(1.0, 2.0, 3.0)))
    with pytest.raises(ValueError, match="start_yaw_max_rad"):
        E.make("Bulldozing-v0", **dict(SMALL, start_yaw_max_rad=4.0))


def test_render_fps_is_one_frame_per_env_step_at_simulated_speed():
    env = E.make("Bulldozing-v0", threads=1, **SMALL)  # 50 steps of 2 ms: 0.1 s per env step
    assert env.metadata["render_fps"] == pytest.approx(10.0)
    fast = E.make("Bulldozing-v0", threads=1, **dict(SMALL, steps_per_action=25))
    assert fast.metadata["render_fps"] == pytest.approx(20.0)


def test_a_start_box_beyond_the_arena_is_refused_at_make():
    # x in [-4, 4] m, y in [-2, 2] m, less the bulldozer's reach: a start at the wall put the pose
    # outside the observation space and threw the bulldozer against the wall at the first step.
    for lo, hi in (((10.0, 10.0), (11.0, 11.0)), ((3.9, 1.9), (3.95, 1.95))):
        with pytest.raises(ValueError, match=r"start_lo_m/start_hi_m: expected a box inside "
                                             r"the arena"):
            E.make("Bulldozing-v0", threads=1, start_lo_m=lo, start_hi_m=hi, **SMALL)


def test_a_heap_centre_beyond_the_arena_is_named():
    with pytest.raises(ValueError, match=r"heap_centre_m: expected a point inside the arena"):
        E.make("Bulldozing-v0", threads=1, heap_centre_m=(100.0, 0.0), **SMALL)
