"""QuadrupedGranular-v0 (issue 18, paper 000): the Gymnasium contract, seeded replay, the vector
env against single envs, the scripted trot walking forward, a failing wrench step ending the
episode with its reason, refusals."""

import numpy as np
import pytest

import talus.envs as E


def test_the_env_keeps_gymnasiums_contract():
    env = E.make("QuadrupedGranular-v0", episode_s=0.2)
    assert env.observation_space.shape == (34,) and len(env.observation_names) == 34
    assert env.action_space.shape == (12,) and env.actuator_names[0] == "fl_hip"
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space and info["steps"] == 0
    assert obs[1] == pytest.approx(0.7926, abs=1e-3)  # the torso's height (quadruped.xml)
    n = 0
    while True:
        obs, reward, terminated, truncated, info = env.step(np.zeros(12, np.float32))
        n += 1
        assert isinstance(reward, float) and np.all(np.isfinite(obs))
        if terminated or truncated:
            break
    assert truncated and not terminated and n == 20


def test_a_seed_replays_the_episode_bit_for_bit_and_seeds_differ():
    def run(seed):
        env = E.make("QuadrupedGranular-v0", episode_s=0.1)
        obs, _ = env.reset(seed=seed)
        env.action_space.seed(seed)
        trace = [obs]
        for _ in range(5):
            obs, r, *_ = env.step(env.action_space.sample() * 0.2)
            trace += [obs, np.array([r])]
        return np.concatenate(trace)
    assert np.array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))


def test_the_vector_env_equals_its_envs_stepped_one_by_one():
    vec = E.make_vec("QuadrupedGranular-v0", 3, threads=2, episode_s=0.05)
    obs, _ = vec.reset(seed=2)
    singles = [E.make("QuadrupedGranular-v0", episode_s=0.05) for _ in range(3)]
    for i, env in enumerate(singles):
        assert np.array_equal(env.reset(seed=2 + i)[0], obs[i])
    rng = np.random.default_rng(1)
    for _ in range(7):  # past the 5-step episodes: next-step autoreset
        actions = (0.2 * rng.uniform(-1, 1, (3, 12))).astype(np.float32)
        obs, rewards, term, trunc, _ = vec.step(actions)
        for i, env in enumerate(singles):
            if env._ended:
                o, _ = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, _ = env.step(actions[i])
            assert np.array_equal(obs[i], o) and rewards[i] == r
            assert term[i] == te and trunc[i] == tr


def test_the_scripted_trot_walks_forward_without_falling():
    env = E.make("QuadrupedGranular-v0", medium="pebbles", episode_s=4.0)
    policy = E.ScriptedTrot(env.actuator_names)
    obs, _ = env.reset(seed=0)
    ret = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        ret += reward
        if terminated or truncated:
            break
    assert truncated and not info["fell"] and "stop_reason" not in info
    assert obs[0] > 0.5 and ret > 0.3, (obs[0], ret)


@pytest.mark.parametrize("medium, policy", [("pebbles", "random"), ("sand", "trot")])
def test_a_foot_sinking_below_the_data_truncates_the_episode_with_its_reason(medium, policy):
    # Uniform random targets stamp a foot below the pebbles' data; in sand (data to 6 cm deep)
    # the trotting quadruped's feet sink below it within 0.3 s (docs/envs.md).
    env = E.make("QuadrupedGranular-v0", medium=medium)
    trot = E.ScriptedTrot(env.actuator_names)
    obs, _ = env.reset(seed=0)
    env.action_space.seed(0)
    while True:
        action = env.action_space.sample() if policy == "random" else trot(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert truncated and not terminated and info["steps"] < 100
    assert "below the wrench-space data's deepest" in info["stop_reason"]
    assert np.all(np.isfinite(obs)) and np.isfinite(reward)


@pytest.mark.parametrize("options, match", [
    (dict(medium="mud"), "medium"),
    (dict(control_period_s=0.0), "control_period_s"),
    (dict(max_joint_target_rad="big"), "max_joint_target_rad"),
    (dict(model="/nonexistent.xml"), "model"),
    (dict(wind=1.0), "unknown options"),
])
def test_bad_options_are_refused_naming_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        E.make("QuadrupedGranular-v0", **options)


def test_a_bad_action_is_refused_naming_the_space():
    env = E.make("QuadrupedGranular-v0", episode_s=0.1)
    env.reset(seed=0)
    for action in (np.zeros(11), np.full(12, 2.0), np.full(12, np.nan)):
        with pytest.raises(ValueError, match="action space"):
            env.step(action)


def test_render_draws_the_quadruped_from_the_side():
    env = E.make("QuadrupedGranular-v0", render_mode="rgb_array", episode_s=0.1)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (240, 480, 3)
    robot_rows = np.nonzero(np.all(frame == [30, 50, 110], axis=-1))[0]
    # The torso stands 0.79 m up: at 160 px/m over a ground 0.3 m above the bottom edge, the
    # robot spans rows from about 240 - 1.09 * 160 = 66 down to the ground's row 192.
    assert robot_rows.min() < 80 and robot_rows.max() > 180
    with pytest.raises(ValueError, match="render_mode"):
        E.make("QuadrupedGranular-v0", render_mode="human")


def test_render_fps_follows_the_control_period():
    # One frame per env step at simulated speed: the class's 100 fps is the default 10 ms period's.
    assert E.make("QuadrupedGranular-v0").metadata["render_fps"] == pytest.approx(100.0)
    env = E.make("QuadrupedGranular-v0", control_period_s=0.02)
    assert env.metadata["render_fps"] == pytest.approx(50.0)
    assert type(env).metadata["render_fps"] == 100  # the class's own is left alone
