"""Excavation-v0 (issue 18, paper 001 §III-C): the Gymnasium contract and the observation's
meaning, seeded replay on any thread count, the scripted scoop lifting particles (the held load's
weight read back from the tool wrench), the force limit, refusals. A small bed (600 particles of
2 cm, 2 ms steps) keeps the tests quick; the physics is the same code as the default's."""

import math

import numpy as np
import pytest

import talus.envs as E
from talus.envs import spaces
from talus.envs.excavation import panda_flange_pose

from sanitizers import whole_episode_physics

SMALL = dict(particle_count=600, particle_radius_m=0.02, time_step_s=2e-3, steps_per_action=25,
             episode_s=8.0)


def scoop(env, seed, steps=None):
    """Runs the scripted scoop from reset(seed); returns the last observation and info, the
    rewards and whether the episode terminated."""
    obs, info = env.reset(seed=seed)
    policy = E.ScriptedScoop(bed_top_m=env.world.bed_top_m)
    rewards, terminated = [], False
    for _ in range(steps or 10**6):
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        rewards.append(reward)
        if terminated or truncated:
            break
    return obs, info, rewards, terminated


def test_the_observation_is_the_papers_and_means_what_it_says():
    env = E.make("Excavation-v0", render_mode="rgb_array", **SMALL)
    assert "Excavation-v0" in E.ids() and env.spec.id == "Excavation-v0"
    space = env.observation_space
    assert set(space.keys()) == {"joint_pos", "joint_vel", "tool_pose", "tool_wrench", "sky"}
    assert space["sky"].shape == (32, 32) and space["tool_wrench"].shape == (6,)
    assert env.action_space == spaces.Box(-1.0, 1.0, (7,), np.float32)
    obs, info = env.reset(seed=4)
    assert obs in space and info["steps"] == 0 and info["held_kg"] == 0.0
    # The tool pose is the flange's pose from the Panda's DH table at the observed joints.
    T = panda_flange_pose(obs["joint_pos"].astype(np.float64))
    assert np.allclose(obs["tool_pose"][:3], T[:3, 3], atol=1e-5)
    w, x, y, z = obs["tool_pose"][3:]
    assert math.isclose(w * w + x * x + y * y + z * z, 1.0, abs_tol=1e-5)
    assert abs(T[2, 2] + 1.0) < 0.01  # the flange points down at the start
    # The sky camera (1.5 m up) sees the bed everywhere in the tub, and the bucket above it.
    height = 1.5 - obs["sky"][2:30, 2:30]
    assert height.min() > 0.05 and abs(np.median(height) - env.world.bed_top_m) < 0.05
    assert height.max() > env.world.bed_top_m + 0.1
    action = np.zeros(7, np.float32)
    action[0] = 0.5
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs in space and isinstance(reward, float) and not terminated and not truncated
    assert obs["joint_vel"][0] == pytest.approx(0.5) and info["sim_time_s"] == pytest.approx(0.05)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_a_seed_replays_the_episode_bit_for_bit_on_any_thread_count():
    def run(threads):
        env = E.make("Excavation-v0", threads=threads, **SMALL)
        obs, info, rewards, _ = scoop(env, seed=9, steps=40)
        return obs, rewards

    one, two = run(1), run(2)
    assert one[1] == two[1]
    for key in one[0]:
        assert np.array_equal(one[0][key], two[0][key]), key
    other = E.make("Excavation-v0", **SMALL)
    a, _ = other.reset(seed=9)
    b, _ = other.reset(seed=10)
    assert not np.array_equal(a["joint_pos"], b["joint_pos"])  # the start is drawn per seed


@whole_episode_physics  # 32 s of CI's sanitized run
def test_the_scripted_scoop_lifts_particles_and_the_tool_feels_their_weight():
    env = E.make("Excavation-v0", **SMALL)
    obs, info, rewards, terminated = scoop(env, seed=1)
    assert not terminated and info["steps"] == env._game.batch.max_steps
    assert info["held_particles"] >= 3
    # The reward is the held mass plus a tenth of the mass in the bucket.
    assert rewards[-1] == pytest.approx(info["held_kg"] + 0.1 * info["in_bucket_kg"])
    # Held still, the bucket carries the held particles' weight (and nothing else touches it).
    assert obs["tool_wrench"][2] == pytest.approx(-9.81 * info["held_kg"], rel=0.05)
    assert abs(obs["tool_wrench"][0]) < 0.05 * abs(obs["tool_wrench"][2])
    # A random policy holds nothing.
    random_env = E.make("Excavation-v0", **SMALL)
    random_env.reset(seed=1)
    random_env.action_space.seed(1)
    random_return = 0.0
    for _ in range(80):
        _, reward, terminated, truncated, _ = random_env.step(random_env.action_space.sample())
        random_return += reward
        if terminated or truncated:
            break
    assert sum(rewards) > 10 * max(random_return, 0.1)


def test_the_force_limit_terminates_the_episode_and_says_so():
    env = E.make("Excavation-v0", **dict(SMALL, force_limit_N=40.0))
    obs, info, rewards, terminated = scoop(env, seed=1)
    assert terminated and "force_limit_N = 40 N" in info["stop_reason"]
    assert np.linalg.norm(obs["tool_wrench"][:3]) > 40.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(7, np.float32))


def test_bad_actions_are_refused_and_the_episode_is_unchanged():
    env = E.make("Excavation-v0", **SMALL)
    obs, _ = env.reset(seed=2)
    for bad in (np.zeros(6), np.full(7, np.nan), np.full(7, 1.5)):
        with pytest.raises(ValueError, match="joint velocities"):
            env.step(bad)
    after, *_ = env.step(np.zeros(7, np.float32))
    assert np.array_equal(after["joint_pos"], obs["joint_pos"])


@pytest.mark.parametrize("options, message", [
    (dict(particle_radius_m=0.0), "particle_radius_m"),
    (dict(particle_count=0), "particle_count"),
    (dict(bucket_mesh_path="/no/such/bucket.obj"), "bucket_mesh_path"),
    (dict(start_joint_rad=(0.0,) * 6), "start_joint_rad"),
    (dict(start_joint_rad=(0.0, 0.0, 0.0, 0.5, 0.0, 1.0, 0.0)), "start_joint_rad"),
    (dict(force_limit_N=-5.0), "force_limit_N"),
    (dict(rolling_friction=0.1), "rolling_friction"),
    (dict(shovel=True), "unknown options"),
])
def test_bad_options_are_refused_naming_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        E.make("Excavation-v0", **dict(SMALL, **options))


def test_a_bucket_mesh_that_is_not_closed_or_an_arm_that_is_not_7_joints_is_refused(tmp_path):
    open_mesh = tmp_path / "open_bucket.obj"
    open_mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\n")
    with pytest.raises(ValueError, match="open_bucket.obj"):
        E.make("Excavation-v0", **dict(SMALL, bucket_mesh_path=str(open_mesh)))
    arm = tmp_path / "two_joints.xml"
    joint = '<joint type="hinge" limited="true" range="-1 1"/><geom size="0.1"/>'
    arm.write_text(f'<mujoco><worldbody><body name="a">{joint}<body name="flange">{joint}'
                   '</body></body></worldbody></mujoco>')
    with pytest.raises(ValueError, match="7 hinge joints"):
        E.make("Excavation-v0", **dict(SMALL, arm_path=str(arm)))
