"""talus.envs (issue 17): the Gymnasium 1.x contract checked from its documentation, and
ShapingTrench-v0's dynamics, reward, goals, rendering and refusals."""

import math

import numpy as np
import pytest

import talus
import talus.envs as E
from talus.envs import spaces

ACTION = {"up": 0, "down": 1, "left": 2, "right": 3}


def rollout(env, seed, steps=30):
    """Observations, rewards and flags of an episode from reset(seed) with actions drawn from the
    action space seeded alike."""
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    trace = [(obs.copy(), info["goal_name"])]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        trace.append((obs.copy(), reward, terminated, truncated))
        if terminated or truncated:
            break
    return trace


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert np.array_equal(x[0], y[0]) and x[1:] == y[1:]


def test_the_env_keeps_gymnasiums_contract():
    env = E.make("ShapingTrench-v0")
    assert env.spec.id == "ShapingTrench-v0" and env.unwrapped is env
    assert env.metadata["render_modes"] == ["rgb_array"]
    space = env.observation_space
    assert space.shape == (3, 7, 7) and space.dtype == np.float32
    assert env.action_space == spaces.Discrete(4)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        assert isinstance(info, dict) and obs in space and obs.dtype == np.float32
        for _ in range(20):
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            assert obs in space and isinstance(reward, float)
            assert isinstance(terminated, bool) and isinstance(truncated, bool)
            if terminated or truncated:
                break
    assert isinstance(env.np_random, np.random.Generator)
    env.close()


def test_a_seed_reproduces_the_episode_and_another_seed_differs():
    env = E.make("ShapingTrench-v0")
    same(rollout(env, 7), rollout(env, 7))
    same(rollout(env, 7), rollout(E.make("ShapingTrench-v0"), 7))
    goals = {rollout(env, seed, 1)[0][1] for seed in range(20)}
    assert len(goals) > 5  # seeds pick different letters


def test_spaces_sample_what_they_contain():
    box = spaces.Box(-1.0, 2.0, (3, 4), np.float32, seed=1)
    discrete = spaces.Discrete(5, seed=2, start=1)
    both = spaces.Dict({"a": box, "b": discrete}, seed=3)
    for _ in range(50):
        assert box.sample() in box and box.sample().dtype == np.float32
        assert discrete.sample() in discrete
        assert both.sample() in both
    assert np.array_equal(spaces.Box(0, 1, (2,), seed=4).sample(),
                          spaces.Box(0, 1, (2,), seed=4).sample())
    assert not box.contains(np.full((3, 4), 3.0, np.float32))
    assert not box.contains(np.zeros((4, 3), np.float32))
    assert 0 not in discrete and 5 in discrete and 6 not in discrete and 1.0 not in discrete
    assert {"a": box.sample()} not in both



def test_unbounded_boxes_sample_as_gymnasium_documents():
    # Normal where unbounded, low + exponential / high - exponential where half bounded.
    box = spaces.Box(np.array([-np.inf, 2.0, -np.inf, 0.0]), np.array([np.inf, np.inf, 5.0, 1.0]),
                     seed=7)
    draws = np.array([box.sample() for _ in range(4000)])
    assert np.all(np.isfinite(draws)) and all(d in box for d in draws[:50])
    assert abs(draws[:, 0].mean()) < 0.1 and abs(draws[:, 0].std() - 1.0) < 0.1
    assert draws[:, 1].min() >= 2.0 and abs(draws[:, 1].mean() - 3.0) < 0.1
    assert draws[:, 2].max() <= 5.0 and abs(draws[:, 2].mean() - 4.0) < 0.1
    assert 0.0 <= draws[:, 3].min() and draws[:, 3].max() <= 1.0

def test_the_reward_is_the_l1_decrease_computed_by_hand():
    goal = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]], np.uint8)
    env = E.make("ShapingTrench-v0", goals=goal, step_cost=0.25)
    obs, info = env.reset(seed=0, options={"start": (0, 0)})
    assert info["l1_to_goal"] == 2 and info["optimal_steps"] == 2
    assert np.array_equal(obs[1], goal) and obs[2, 0, 0] == 1.0 and obs[2].sum() == 1.0

    def l1(dug):
        return int(np.abs(dug.astype(int) - goal).sum())

    dug = obs[0].copy()
    for action, expected_decrease in ((ACTION["right"], -1), (ACTION["left"], 0),
                                      (ACTION["down"], 1)):
        before = l1(dug)
        obs, reward, terminated, _, info = env.step(action)
        dug = obs[0].copy()
        assert before - l1(dug) == expected_decrease
        assert reward == pytest.approx(expected_decrease - 0.25)
    assert not terminated  # (0, 1) was dug outside the goal: it can no longer be reached
    assert info["dug_outside"] == 1


@pytest.mark.parametrize("letter", list(E.goals.LETTERS))
def test_the_optimal_plan_replayed_terminates_in_its_step_count(letter):
    env = E.make("ShapingTrench-v0")
    _, info = env.reset(seed=0, options={"goal": letter})
    plan = talus.shaping.plan_single_stroke_trench(talus.shaping.letter_map(letter),
                                                   start=talus.shaping.GridCell(*info["start"]))
    assert plan.steps == info["optimal_steps"]
    total = 0.0
    for k, name in enumerate(plan.actions):
        _, reward, terminated, truncated, info = env.step(ACTION[name])
        total += reward
        assert terminated == (k + 1 == plan.steps) and not truncated
    assert info["success"]
    assert total == pytest.approx(E.goals.letter_goal(letter).sum() - 1 - 0.05 * plan.steps)


def test_an_episode_is_truncated_at_its_step_limit():
    env = E.make("ShapingTrench-v0", max_episode_steps=3)
    env.reset(seed=0, options={"goal": "L", "start": (0, 0)})
    flags = [env.step(ACTION["right"])[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(0)


def test_random_goals_are_single_strokes_from_their_start():
    env = E.make("ShapingTrench-v0", goals="random", random_goal_cells=(5, 9))
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        goal = obs[1].astype(np.uint8)
        assert info["goal_name"] == "random" and 5 <= goal.sum() <= 9
        assert goal[info["start"]] and obs[2][info["start"]] == 1.0
        plan = talus.shaping.plan_single_stroke_trench(
            talus.shaping.BinaryMap.from_rows(["".join("#" if v else "." for v in row)
                                               for row in goal]),
            start=talus.shaping.GridCell(*info["start"]))
        assert plan.found and plan.steps == info["optimal_steps"]
    with pytest.raises(ValueError, match="random_goal_cells: .*got 4 and 31"):
        E.make("ShapingTrench-v0", goals="random", random_goal_cells=(4, 31))


def test_a_start_option_alone_keeps_drawing_new_goals():
    env = E.make("ShapingTrench-v0", goals="LT")
    env.reset(seed=2)
    names = {env.reset(options={"start": (0, 0)})[1]["goal_name"] for _ in range(20)}
    assert names == {"L", "T"}  # both letters have (0, 0) as a goal cell


def test_render_draws_the_map_with_the_goal_and_the_blade():
    env = E.make("ShapingTrench-v0", render_mode="rgb_array")
    env.reset(seed=0, options={"goal": "T", "start": (0, 0)})
    image = env.render()
    assert image.shape == (224, 224, 3) and image.dtype == np.uint8
    blade = np.all(image == [40, 80, 200], axis=-1)
    assert blade[8:24, 8:24].all() and blade.sum() == 16 * 16  # the blade's cell only
    assert np.all(image == [200, 30, 30], axis=-1).any()  # the goal's outline
    assert E.make("ShapingTrench-v0").render() is None  # no render_mode


@pytest.mark.parametrize("action", [1.5, "up", np.array([1]), math.nan, 4, -1, True, None])
def test_a_bad_action_is_refused_naming_it_and_leaves_the_state_alone(action):
    env = E.make("ShapingTrench-v0")
    env.reset(seed=1, options={"goal": "T", "start": (0, 0)})
    before = env.step(ACTION["right"])
    with pytest.raises(ValueError, match=r"action .* is not in the action space Discrete\(4\)"):
        env.step(action)
    after = env.step(ACTION["left"])
    assert after[4]["steps"] == before[4]["steps"] + 1


def test_bad_ids_options_and_goals_are_refused_with_what_was_expected():
    with pytest.raises(ValueError, match="known ids: .*ShapingStrokes-v0, ShapingTrench-v0"):
        E.make("ShapingTrench-v9")
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        E.make("ShapingTrench-v0").step(0)
    env = E.make("ShapingTrench-v0")
    with pytest.raises(ValueError, match="expected a 7 x 7 map"):
        env.reset(options={"goal": np.ones((5, 5), np.uint8)})
    with pytest.raises(ValueError, match="cells of 0 or 1"):
        env.reset(options={"goal": np.full((7, 7), 2)})
    with pytest.raises(ValueError, match="unknown keys"):
        env.reset(options={"letter": "A"})
    with pytest.raises(ValueError, match="expected a goal cell"):
        env.reset(options={"goal": "T", "start": (6, 0)})
    with pytest.raises(ValueError, match="goals: expected"):
        E.make("ShapingTrench-v0", goals="A1")
    with pytest.raises(ValueError, match="one stroke cannot dig it"):
        E.make("ShapingTrench-v0", goals=np.eye(3, dtype=np.uint8)).reset(seed=0)


def test_a_reset_with_bad_options_leaves_the_episode_as_it_was():
    env = E.make("ShapingTrench-v0")
    env.reset(seed=0)
    env.step(ACTION["down"])
    before = env._info()
    for start in ((0, 0, 0), (0,), "ab", None, (0.5, 1), (True, 1), (9, 0)):
        with pytest.raises(ValueError, match=r"options\['start'\]: expected a goal cell"):
            env.reset(options={"start": start})
        assert env._info() == before, start  # refused before a new episode was drawn
    with pytest.raises(ValueError, match=r"options\['start'\]: .* which the goal does not dig"):
        env.reset(options={"goal": "T", "start": (6, 0)})
    assert env._info() == before
    env.step(ACTION["down"])  # the episode goes on
    # A start off the goal drawn by this reset: the episode before is gone, so the env asks for a
    # reset rather than stepping an episode whose observation the caller never got.
    while True:
        try:
            env.reset(options={"start": (0, 0)})
        except ValueError:
            break
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.step(0)


def test_write_png_writes_a_frame_with_its_title_and_refuses_other_arrays(tmp_path):
    env = E.make("ShapingTrench-v0", render_mode="rgb_array")
    env.reset(seed=0)
    talus.write_png(tmp_path / "frame.png", env.render(), "a frame")
    data = (tmp_path / "frame.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (224, 224 + 20)  # the title band above the frame
    with pytest.raises(ValueError, match="H x W x 3 uint8"):
        talus.write_png(tmp_path / "bad.png", np.zeros((4, 4)))


def test_with_gymnasium_importable_the_envs_subclass_its_env_and_use_its_spaces(tmp_path):
    """A stand-in `gymnasium` package (Gymnasium is not installable here) whose Env and spaces are
    marked subclasses: talus.envs must build on them."""
    import os
    import subprocess
    import sys
    fake = tmp_path / "gymnasium"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "from talus.envs._core_base import TalusEnv as _Base\n"
        "class Env(_Base):\n    stand_in = True\n"
        "from . import spaces\n")
    (fake / "spaces.py").write_text(
        "from talus.envs import _spaces as _s\n"
        "class Space(_s.Space): pass\n"
        "class Box(_s.Box): pass\n"
        "class Discrete(_s.Discrete): pass\n"
        "class MultiDiscrete(_s.MultiDiscrete): pass\n"
        "class Dict(_s.Dict): pass\n")
    script = (
        "import talus.envs as E\n"
        "import gymnasium\n"
        "env = E.make('ShapingTrench-v0')\n"
        "assert isinstance(env, gymnasium.Env) and env.stand_in\n"
        "assert type(env.action_space) is gymnasium.spaces.Discrete\n"
        "assert type(env.observation_space) is gymnasium.spaces.Box\n"
        "obs, info = env.reset(seed=0)\n"
        "assert obs in env.observation_space\n"
        "env.step(env.action_space.sample())\n"
        "print('ok')\n")
    paths = [str(tmp_path)] + [p for p in sys.path if p]
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(paths)))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


@pytest.mark.parametrize("goals", ["letters", "random"])
def test_the_vector_env_equals_its_envs_stepped_one_by_one_bit_for_bit(goals):
    """make_vec with seed s against N single envs seeded s + i, with Gymnasium's next-step
    autoreset emulated by hand: after an episode ends, the next step resets that env and reports
    reward 0 and no end flags."""
    n, seed, steps = 6, 11, 150
    vec = E.make_vec("ShapingTrench-v0", n, threads=2, goals=goals, max_episode_steps=30)
    singles = [E.make("ShapingTrench-v0", goals=goals, max_episode_steps=30) for _ in range(n)]
    obs, infos = vec.reset(seed=seed)
    ended = [False] * n
    for i, env in enumerate(singles):
        o, info = env.reset(seed=seed + i)
        assert np.array_equal(obs[i], o) and infos["optimal_steps"][i] == info["optimal_steps"]
    actions = np.random.default_rng(3).integers(0, 4, size=(steps, n))
    episodes_ended = 0
    for k in range(steps):
        obs, rewards, terminated, truncated, infos = vec.step(actions[k])
        for i, env in enumerate(singles):
            if ended[i]:
                o, info = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, info = env.step(int(actions[k, i]))
            ended[i] = te or tr
            episodes_ended += ended[i]
            assert np.array_equal(obs[i], o), (k, i)
            assert (rewards[i], terminated[i], truncated[i]) == (r, te, tr), (k, i)
            assert infos["steps"][i] == info["steps"] and infos["l1_to_goal"][i] == info["l1_to_goal"]
    assert episodes_ended > n  # the autoreset was exercised


def test_the_vector_env_gives_the_same_bits_on_any_thread_count():
    runs = []
    for threads in (1, 2, 3):
        vec = E.make_vec("ShapingTrench-v0", 200, threads=threads)
        vec.reset(seed=5)
        rng = np.random.default_rng(9)
        trace = [vec.step(rng.integers(0, 4, size=200))[:4] for _ in range(40)]
        runs.append(trace)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_the_vector_env_keeps_its_spaces_and_refuses_bad_actions():
    vec = E.make_vec("ShapingTrench-v0", 4)
    assert vec.observation_space.shape == (4, 3, 7, 7)
    assert vec.single_action_space == spaces.Discrete(4)
    assert vec.action_space.sample() in vec.action_space
    assert vec.metadata["autoreset_mode"] == "NextStep"
    with pytest.raises(RuntimeError, match="before reset"):
        vec.step(np.zeros(4, np.int64))
    obs, infos = vec.reset(seed=0)
    assert obs in vec.observation_space and infos["optimal_steps"].shape == (4,)
    for bad in (np.zeros(3, np.int64), np.full(4, 4), np.zeros(4) + 0.5, "up"):
        with pytest.raises(ValueError, match="actions: expected 4 ints in 0-3"):
            vec.step(bad)
    with pytest.raises(ValueError, match="no vector form"):
        E.make_vec("Nothing-v0", 2)


def test_the_heightmap_backend_keeps_the_contract_and_digs_through_sand():
    """backend="heightmap": the same spaces and episodes, the blade pushed through sand by the
    shaping tier; L's A* stroke digs it (no backtracking: nothing falls back), the reward sums to
    the L1 decrease less the step costs, and the picture is the sand."""
    env = E.make("ShapingTrench-v0", backend="heightmap", render_mode="rgb_array", cell_px=16)
    obs, info = env.reset(seed=0, options={"goal": "L"})
    assert obs in env.observation_space and info["steps"] == 0
    plan = talus.shaping.plan_single_stroke_trench(
        talus.shaping.letter_map("L"), start=talus.shaping.GridCell(*info["start"]))
    total, cells = 0.0, int(obs[1].sum())
    for name in plan.actions:
        obs, reward, terminated, truncated, info = env.step(ACTION[name])
        assert obs in env.observation_space
        total += reward
    assert terminated and info["success"] and np.array_equal(obs[0], obs[1])
    assert total == pytest.approx(cells - 1 - 0.05 * plan.steps)
    frame = env.render()
    assert frame.shape == (32 * 4, 32 * 4, 3) and frame.dtype == np.uint8
    brown = frame[..., 0] < 180  # trench floor and shaded walls
    assert brown.sum() > 500
    sand = env._game.batch.sand_of(0)
    assert sand.shape == (32, 32) and sand.min() < 0.05 - 0.005 and sand.max() > 0.05
    # The vector form steps the same sand.
    vec = E.make_vec("ShapingTrench-v0", 2, threads=2, backend="heightmap")
    vobs, _ = vec.reset(seed=0)
    single = E.make("ShapingTrench-v0", backend="heightmap")
    sobs, _ = single.reset(seed=0)
    assert np.array_equal(vobs[0], sobs)
    for a in (0, 1, 2, 3, 3):
        vobs, *_ = vec.step(np.array([a, a]))
        sobs, *_ = single.step(a)
        assert np.array_equal(vobs[0], sobs)


def test_a_bad_backend_or_bed_is_refused():
    with pytest.raises(ValueError, match="backend: expected 'binary' or 'heightmap'"):
        E.make("ShapingTrench-v0", backend="particles")
    with pytest.raises(ValueError, match="unknown keys \\['depth'\\]"):
        E.make("ShapingTrench-v0", backend="heightmap", bed={"depth": 0.01})
    with pytest.raises(ValueError, match="trench_depth_m"):
        E.make("ShapingTrench-v0", backend="heightmap", bed={"trench_depth_m": 0.5})
    with pytest.raises(ValueError, match="only the heightmap backend"):
        E.make("ShapingTrench-v0", bed={"cell_size_m": 0.01})


def test_seeds_counts_and_options_are_refused_by_name():
    with pytest.raises(ValueError, match=r"ShapingTrench-v0: unknown options \['foo'\]; known: "
                                         r"backend, .*step_cost"):
        E.make("ShapingTrench-v0", foo=1)
    with pytest.raises(ValueError, match=r"unknown options \['foo'\]"):
        E.make_vec("ShapingTrench-v0", 2, foo=1)
    for bad in (dict(step_cost="0.1"), dict(max_episode_steps=True)):
        with pytest.raises(ValueError, match=f"{next(iter(bad))}: expected"):
            E.make("ShapingTrench-v0", **bad)
    with pytest.raises(ValueError, match="num_envs: expected an int >= 1, got True"):
        E.make_vec("ShapingTrench-v0", True)
    with pytest.raises(ValueError, match="threads: expected an int >= 1 or None, got True"):
        E.make_vec("ShapingTrench-v0", 2, threads=True)
    # Seeds: ints in [0, 2**64 - 1] (the episodes' generator is 64-bit), in a list too.
    env = E.make("ShapingTrench-v0")
    env.reset(seed=2**64 - 1)
    for seed in (2**64, -1, True, 1.5):
        with pytest.raises(ValueError, match=r"seed: expected an int in \[0, 2\*\*64 - 1\]"):
            env.reset(seed=seed)
    vec = E.make_vec("ShapingTrench-v0", 4, threads=1)
    vec.reset(seed=2**64 - 4)
    with pytest.raises(ValueError, match=r"seed: .*\(with 4 instances: seed \+ 3 too\)"):
        vec.reset(seed=2**64 - 3)
    for seeds, where in (([0.5, 1, 2, 3], 0), ([0, -1, 2, 3], 1), ([0, 1, None, 3], 2)):
        with pytest.raises(ValueError, match=rf"seed\[{where}\]: expected an int"):
            vec.reset(seed=seeds)
    with pytest.raises(ValueError, match="seed: expected an int or 4 ints"):
        vec.reset(seed=[0, 1])


def test_a_dict_space_is_a_mapping_of_its_subspaces():
    box = spaces.Box(0.0, 1.0, (2,), np.float32)
    space = spaces.Dict({"position": box, "goal": spaces.Discrete(3)})
    assert list(space) == ["position", "goal"] and len(space) == 2
    assert list(space.keys()) == ["position", "goal"]
    assert list(space.values())[0] == box
    assert dict(space.items())["goal"] == spaces.Discrete(3)


def test_trench_options_of_the_wrong_kind_are_named():
    for bad, message in ((dict(cell_px=0), "cell_px: expected an int in"),
                         (dict(goals="random", random_goal_cells=5), "random_goal_cells: expected"),
                         (dict(goals="random", random_goal_cells="ab"),
                          "random_goal_cells: expected")):
        with pytest.raises(ValueError, match=message):
            E.make("ShapingTrench-v0", **bad)


def test_a_box_prints_its_bounds_and_says_whether_it_is_bounded():
    box = spaces.Box(np.array([0.0, -5.0]), np.array([1.0, 5.0]))
    assert repr(box) == "Box([ 0. -5.], [1. 5.], (2,), float32)"
    assert repr(spaces.Box(-1.0, 1.0, (3,))) == "Box(-1.0, 1.0, (3,), float32)"
    assert box.is_bounded() and box.is_bounded("below")
    half = spaces.Box(np.array([0.0, -np.inf]), np.array([1.0, 5.0]))
    assert not half.is_bounded() and half.is_bounded("above") and not half.is_bounded("below")


def test_a_vector_env_has_gymnasiums_vector_attributes():
    vec = E.make_vec("ShapingTrench-v0", 2, threads=1, max_episode_steps=50)
    assert vec.render_mode is None and vec.render() is None
    assert vec.spec.id == "ShapingTrench-v0" and vec.spec.kwargs == {"max_episode_steps": 50}
    assert not vec.closed
    vec.close()
    assert vec.closed
