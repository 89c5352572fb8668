"""RoverSlope-v0 (issue 18, paper 002 Fig. 11): the Gymnasium contract, seeded replay, the vector
env against single envs, the scripted drive climbing the slope with rising slip, refusals."""

import os

import numpy as np
import pytest

import talus.envs as E
from talus.envs.rover_slope import OBSERVATION_NAMES

from sanitizers import whole_episode_physics

SOURCE = os.environ.get("TALUS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def test_the_env_keeps_gymnasiums_contract():
    env = E.make("RoverSlope-v0", episode_s=1.0)
    assert env.spec.id == "RoverSlope-v0" and env.observation_space.shape == (24,)
    assert len(OBSERVATION_NAMES) == 24
    assert env.action_space.shape == (4,) and env.action_space.dtype == np.float32
    obs, info = env.reset(seed=1)
    assert obs in env.observation_space and info["steps"] == 0
    assert abs(obs[OBSERVATION_NAMES.index("yaw_rad")]) <= 0.1  # the seeded heading offset
    steps = 0
    env.action_space.seed(1)
    while True:
        # Forward only: backwards, the map's edge 0.9 m behind ends the episode (terminated).
        obs, reward, terminated, truncated, info = env.step(np.abs(env.action_space.sample()))
        steps += 1
        assert obs.dtype == np.float32 and np.all(np.isfinite(obs)) and isinstance(reward, float)
        if terminated or truncated:
            break
    assert truncated and steps == 10 and info["sim_time_s"] == pytest.approx(1.0)
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(np.zeros(4, np.float32))


def rollout(seed, steps=5, **make_args):
    """Observations and rewards of `steps` steps at rising wheel speeds from reset(seed)."""
    env = E.make("RoverSlope-v0", episode_s=1.0, **make_args)
    obs, _ = env.reset(seed=seed)
    trace = [obs]
    for k in range(steps):
        obs, r, *_ = env.step(np.full(4, 0.4 + 0.05 * k, np.float32))
        trace += [obs, np.array([r])]
    return np.concatenate(trace)


def test_a_seed_replays_the_episode_bit_for_bit():
    assert np.array_equal(rollout(3), rollout(3))
    assert not np.array_equal(rollout(3), rollout(4))


def test_one_env_gives_the_same_bits_on_one_and_two_threads():
    # Two threads run the soil step's four wheels side by side (scm_step.cpp, for_each_box).
    assert np.array_equal(rollout(5, steps=8, threads=1), rollout(5, steps=8, threads=2))
    with pytest.raises(ValueError, match="threads"):
        E.make("RoverSlope-v0", threads=0)


def test_the_vector_env_equals_its_envs_stepped_one_by_one():
    vec = E.make_vec("RoverSlope-v0", 3, threads=2, episode_s=0.5)
    obs, _ = vec.reset(seed=7)
    singles = [E.make("RoverSlope-v0", episode_s=0.5) for _ in range(3)]
    for i, env in enumerate(singles):
        assert np.array_equal(env.reset(seed=7 + i)[0], obs[i])
    rng = np.random.default_rng(0)
    for _ in range(6):  # past the end of the 5-step episodes: next-step autoreset
        actions = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
        obs, rewards, term, trunc, _ = vec.step(actions)
        for i, env in enumerate(singles):
            if env._ended:
                o, _ = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, _ = env.step(actions[i])
            assert np.array_equal(obs[i], o) and rewards[i] == r
            assert term[i] == te and trunc[i] == tr


@whole_episode_physics  # 20 s of CI's sanitized run
def test_the_scripted_drive_climbs_the_slope_and_its_slip_rises():
    env = E.make("RoverSlope-v0")
    policy = E.ScriptedRover()
    obs, _ = env.reset(seed=0)
    slip_flat, slip_slope, ret = [], [], 0.0
    slip = [OBSERVATION_NAMES.index(f"slip_{w}") for w in ("fl", "fr", "rl", "rr")]
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        ret += reward
        x = obs[0]
        if 0.8 < x < 1.4:
            slip_flat.append(obs[slip].mean())
        if 2.8 < x < 3.3:
            slip_slope.append(obs[slip].mean())
        if terminated or truncated:
            break
    assert info["reached_goal"] and terminated, info
    assert np.mean(slip_slope) > np.mean(slip_flat) + 0.3
    assert 2.0 < ret < 3.5  # about the 3.5 m of progress, less the energy


def test_a_random_policy_does_not_reach_the_slope_top():
    env = E.make("RoverSlope-v0", episode_s=5.0)
    env.reset(seed=0)
    env.action_space.seed(0)
    while True:
        obs, _, terminated, truncated, info = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    assert not info["reached_goal"] and obs[0] < 1.5


@pytest.mark.parametrize("action", [np.zeros(3), np.array([0, 0, 0, np.nan]),
                                    np.array([1.5, 0, 0, 0]), "go"])
def test_a_bad_action_is_refused_and_leaves_the_episode_alone(action):
    env = E.make("RoverSlope-v0", episode_s=1.0)
    obs, _ = env.reset(seed=2)
    with pytest.raises(ValueError, match="action space"):
        env.step(action)
    after, *_ = env.step(np.ones(4, np.float32))
    fresh = E.make("RoverSlope-v0", episode_s=1.0)
    fresh.reset(seed=2)
    expected, *_ = fresh.step(np.ones(4, np.float32))
    assert np.array_equal(after, expected)


@pytest.mark.parametrize("options, match", [
    (dict(max_wheel_speed_rad_per_s=-1.0), "max_wheel_speed_rad_per_s"),
    (dict(episode_s="long"), "episode_s"),
    (dict(energy_weight=float("nan")), "energy_weight"),
    (dict(scenario="/nonexistent.toml"), "scenario"),
    (dict(gravity=1.0), "unknown options"),
])
def test_bad_options_are_refused_naming_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        E.make("RoverSlope-v0", **options)


def test_a_scenario_not_on_scm_soil_is_refused():
    particles = os.path.join(SOURCE, "scenarios", "robots", "rover_particles.toml")
    with pytest.raises(ValueError, match="SCM soil"):
        E.make("RoverSlope-v0", scenario=particles)


def test_driving_off_the_soil_map_ends_the_episode_as_terminal():
    env = E.make("RoverSlope-v0")
    env.reset(seed=0)
    for _ in range(100):  # backwards: the map ends 0.9 m behind the start
        obs, _, terminated, truncated, info = env.step(-np.ones(4, np.float32))
        if terminated or truncated:
            break
    assert terminated and not truncated and info["left_map"] and not info["reached_goal"]
    assert "stop_reason" not in info and np.all(np.isfinite(obs))


def test_render_draws_the_rover_from_the_side_over_the_slope():
    env = E.make("RoverSlope-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (240, 480, 3)
    robot = np.all(frame == [30, 50, 110], axis=-1)
    ground = np.all(frame == [170, 150, 120], axis=-1)
    assert robot.sum() > 200 and ground.sum() > 0.2 * frame.shape[0] * frame.shape[1]
    assert E.make("RoverSlope-v0").render() is None


def test_render_fps_follows_the_control_period():
    env = E.make("RoverSlope-v0", control_period_s=0.05)
    assert env.metadata["render_fps"] == pytest.approx(20.0)
