"""ShapingStrokes-v0 (issue 17): Gymnasium 1.x's goal-conditioned contract checked from its
documentation, the reward against the L1 decrease computed by hand, compute_reward for hindsight
replay, the vector env against single envs bit for bit, rendering and refusals."""

import numpy as np
import pytest

import talus
import talus.envs as E
from talus.envs import spaces

KEYS = ("observation", "achieved_goal", "desired_goal")


def action_of(stroke, cells=32):
    """The action in [-1, 1]^4 of a stroke (x0, y0, x1, y1) in bed cells."""
    return np.asarray(stroke, np.float64) * (2.0 / (cells - 1)) - 1.0


def rollout(env, seed, steps=6):
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    trace = [(obs, info["goal_name"])]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        trace.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            break
    return trace


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert all(np.array_equal(x[0][k], y[0][k]) for k in KEYS) and x[1:] == y[1:]


def test_the_env_keeps_gymnasiums_goal_conditioned_contract():
    env = E.make("ShapingStrokes-v0")
    assert env.spec.id == "ShapingStrokes-v0" and "ShapingStrokes-v0" in E.ids()
    space = env.observation_space
    assert isinstance(space, spaces.Dict) and tuple(space.keys()) == KEYS
    assert all(space[k].shape == (32, 32) and space[k].dtype == np.float32 for k in KEYS)
    assert env.action_space == spaces.Box(-1.0, 1.0, (4,), np.float32)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        assert obs in space and info["strokes"] == 0 and info["l1_fraction"] == 1.0
        assert np.all(obs["achieved_goal"] == np.float32(0.05))  # the flat bed
        while True:
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            assert obs in space and isinstance(reward, float)
            assert isinstance(terminated, bool) and isinstance(truncated, bool)
            assert np.array_equal(obs["observation"], obs["achieved_goal"])
            if terminated or truncated:
                break
        assert info["strokes"] == info["max_strokes"] == len(env.goal_strokes) + 2 or terminated
    assert space.sample() in space


def test_a_seed_reproduces_the_episode_and_another_seed_differs():
    env = E.make("ShapingStrokes-v0")
    same(rollout(env, 7), rollout(env, 7))
    same(rollout(env, 7), rollout(E.make("ShapingStrokes-v0"), 7))
    assert len({rollout(env, seed, 0)[0][1] for seed in range(12)}) > 4


def test_the_reward_is_the_l1_decrease_computed_by_hand_and_compute_reward_agrees():
    env = E.make("ShapingStrokes-v0", step_cost=0.03)
    obs, info = env.reset(seed=0, options={"goal": "T"})
    assert info["goal_name"] == "T"
    goal = obs["desired_goal"].astype(np.float64)
    flat = np.full_like(goal, 0.05)
    scale = np.abs(goal - flat).sum()
    # By hand: the same strokes on a HeightmapState of our own.
    bed = env.bed
    mine = talus.shaping.HeightmapState.flat(bed.heightmap, bed.sand_height_m)
    before = scale
    for k, stroke in enumerate(env.goal_strokes):
        prev = obs["achieved_goal"]
        obs, reward, terminated, truncated, info = env.step(action_of(stroke))
        talus.shaping.execute_stroke(bed, mine, stroke[None])
        after = np.abs(mine.heights(bed.heightmap) - goal).sum()
        assert reward == pytest.approx((before - after) / scale - 0.03, abs=1e-5)
        assert env.compute_reward(obs["achieved_goal"], obs["desired_goal"], info) == \
            pytest.approx(reward, abs=1e-5)
        assert np.array_equal(info["previous_achieved_goal"], prev)
        before = after
    assert terminated and not truncated and info["is_success"]
    assert info["l1_fraction"] == pytest.approx(0.0, abs=1e-12)
    # Vectorised over a batch, with info as a dict of arrays or a list of dicts.
    achieved = np.stack([obs["achieved_goal"], obs["desired_goal"]])
    desired = np.stack([obs["desired_goal"], obs["desired_goal"]])
    previous = np.stack([np.full_like(goal, 0.05, dtype=np.float32)] * 2)
    r = env.compute_reward(achieved, desired, {"previous_achieved_goal": previous})
    assert r.shape == (2,) and np.allclose(r, 1.0 - 0.03, atol=1e-5)
    r2 = env.compute_reward(achieved, desired, [{"previous_achieved_goal": p} for p in previous])
    assert np.array_equal(r, r2)
    with pytest.raises(ValueError, match="previous_achieved_goal"):
        env.compute_reward(achieved, desired, {})


def test_the_goal_can_be_strokes_and_bad_goals_are_refused():
    env = E.make("ShapingStrokes-v0")
    obs, info = env.reset(seed=1, options={"goal": [[5, 5, 20, 5]]})
    assert info["goal_name"] == "custom" and info["max_strokes"] == 3
    assert obs["desired_goal"][5, 12] < 0.05 - 0.005  # row j = 5, cell i = 12 on the trench
    for bad in ([[5, 5, 40, 5]], [[5, 5, 20]], "AB", "1", [[np.nan, 0, 1, 1]]):
        with pytest.raises(ValueError, match="options\\['goal'\\]"):
            env.reset(options={"goal": bad})
    with pytest.raises(ValueError, match="unknown keys"):
        env.reset(options={"start": (1, 1)})
    with pytest.raises(ValueError, match="unknown options"):
        E.make("ShapingStrokes-v0", depth=3)
    with pytest.raises(ValueError, match="trench_depth_m"):
        E.make("ShapingStrokes-v0", trench_depth_m=0.2)
    with pytest.raises(ValueError, match="goals"):
        E.make("ShapingStrokes-v0", goals="A1")


@pytest.mark.parametrize("action", [np.zeros(3), np.array([0, 0, 0, 1.5]),
                                    np.array([0, 0, 0, np.nan]), "left", np.zeros(4, bool),
                                    [0, 0, 0, 2]])
def test_a_bad_action_is_refused_naming_it_and_leaves_the_state_alone(action):
    env = E.make("ShapingStrokes-v0")
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(np.zeros(4))
    obs, _ = env.reset(seed=3)
    with pytest.raises(ValueError, match="not in the action space"):
        env.step(action)
    obs2, _, _, _, info = env.step(np.array([0.0, 0.0, 0.5, 0.5], np.float32))
    assert info["strokes"] == 1  # the refused action made no stroke


def test_stepping_after_the_end_needs_a_reset():
    env = E.make("ShapingStrokes-v0", goals="L")
    env.reset(seed=0)
    done = False
    while not done:
        _, _, te, tr, _ = env.step(np.array([0.9, 0.9, 0.95, 0.95]))
        done = te or tr
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(np.zeros(4))


def test_render_draws_the_sand_the_goal_and_the_stroke(tmp_path):
    env = E.make("ShapingStrokes-v0", render_mode="rgb_array", cell_px=6)
    env.reset(seed=0, options={"goal": "L"})
    first = env.render()
    assert first.shape == (192, 192, 3) and first.dtype == np.uint8
    red = (first[..., 0] == 200) & (first[..., 1] == 30)
    assert red.sum() > 50  # the goal's outline
    env.step(action_of(env.goal_strokes[0]))
    frame = env.render()
    blue = (frame[..., 0] == 40) & (frame[..., 2] == 200)
    assert blue.sum() > 50 and not np.array_equal(frame, first)
    talus.write_png(tmp_path / "f.png", frame, title="ShapingStrokes-v0")
    assert E.make("ShapingStrokes-v0").render() is None


@pytest.mark.parametrize("goals", ["letters", "random"])
def test_the_vector_env_equals_its_envs_stepped_one_by_one_bit_for_bit(goals):
    n, seed, steps = 3, 4, 14
    vec = E.make_vec("ShapingStrokes-v0", n, threads=2, goals=goals)
    singles = [E.make("ShapingStrokes-v0", goals=goals) for _ in range(n)]
    obs, infos = vec.reset(seed=seed)
    for i, env in enumerate(singles):
        o, _ = env.reset(seed=seed + i)
        assert all(np.array_equal(obs[k][i], o[k]) for k in KEYS)
    actions = np.random.default_rng(2).uniform(-1, 1, (steps, n, 4))
    ended, episodes_ended = [False] * n, 0
    for t in range(steps):
        obs, rewards, terminated, truncated, infos = vec.step(actions[t])
        for i, env in enumerate(singles):
            autoreset = ended[i]
            if autoreset:
                o, info = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, info = env.step(actions[t, i])
            ended[i] = te or tr
            episodes_ended += ended[i]
            assert all(np.array_equal(obs[k][i], o[k]) for k in KEYS), (t, i)
            assert (rewards[i], terminated[i], truncated[i]) == (r, te, tr), (t, i)
            assert infos["strokes"][i] == info["strokes"]
            if not autoreset:  # (an autoreset step's is the last episode's final sand)
                assert np.array_equal(infos["previous_achieved_goal"][i],
                                      info["previous_achieved_goal"])
    assert episodes_ended >= n  # the autoreset was exercised
    assert obs in vec.observation_space
    with pytest.raises(ValueError, match="not in the action space"):
        vec.step(np.zeros((n + 1, 4)))


def test_the_letter_goals_cover_the_alphabet_with_their_strokes():
    env = E.make("ShapingStrokes-v0")
    counts = {}
    for letter in E.shaping_strokes.LETTERS:
        _, info = env.reset(seed=0, options={"goal": letter})
        counts[letter] = len(env.goal_strokes)
        assert info["max_strokes"] == counts[letter] + 2
    assert len(counts) == 26 and counts["B"] == 6 and counts["X"] == 2 and counts["A"] == 3


class GoalReplay:
    """A policy that draws, for the letter whose goal it is given, the goal's strokes in order
    (optionally each reversed): every stroke correct by construction."""

    def __init__(self, letter, reverse=False, stop=False):
        env = E.make("ShapingStrokes-v0")
        env.reset(options={"goal": letter})
        strokes = env.goal_strokes[:, [2, 3, 0, 1]] if reverse else env.goal_strokes
        self.actions = [action_of(s) for s in strokes]
        self.stop = stop

    def __call__(self, obs):
        if self.actions:
            return self.actions.pop(0)
        return None if self.stop else np.array([0.9, 0.9, 0.95, 0.95])


def test_the_letter_evaluation_scores_strokes_by_their_ends_in_either_order():
    from talus.agents import stroke_eval
    row, frame = stroke_eval.play_letter(GoalReplay("T"), "T")
    assert row["all_correct"] and row["success"] and row["drawn"] == row["drawn_in_direction"] == 2
    assert row["iou"] == 1.0 and row["strokes"] == 2 and frame.dtype == np.uint8
    # Reversed strokes cut the same trenches: correct, not in their direction; the piles differ,
    # so the episode is not terminated and the stray strokes after them fail the letter.
    row, _ = stroke_eval.play_letter(GoalReplay("T", reverse=True), "T")
    assert row["drawn"] == 2 and row["drawn_in_direction"] == 0
    assert row["strokes"] == 4 and row["correct_strokes"] == 2 and not row["all_correct"]
    assert not row["stopped"]
    # A policy that says it is done (None) after its strokes ends the episode there.
    row, _ = stroke_eval.play_letter(GoalReplay("T", reverse=True, stop=True), "T")
    assert row["stopped"] and not row["success"] and row["strokes"] == 2 and row["all_correct"]
    row, _ = stroke_eval.play_letter(lambda obs: None, "T")
    assert row["stopped"] and row["strokes"] == row["drawn"] == 0 and row["l1_fraction"] == 1.0
    # One cell of tolerance at each end, no more.
    goal = np.array([[7.0, 27.0, 7.0, 3.0]])
    assert list(stroke_eval.stroke_correct([7.7, 26.4, 7.0, 2.1], goal)[0]) == [0]
    assert list(stroke_eval.stroke_correct([7.0, 3.0, 7.0, 27.0], goal)[0]) == [0]
    assert list(stroke_eval.stroke_correct([7.0, 3.0, 7.0, 27.0], goal)[1]) == []
    assert list(stroke_eval.stroke_correct([7.0, 27.0, 7.0, 1.9], goal)[0]) == []
    rows = [stroke_eval.play_letter(GoalReplay(x), x)[0] for x in "LX"]
    totals = stroke_eval.totals_of(rows)
    assert totals["all_strokes_correct"] == 2 and totals["goal_strokes_drawn"] == 4


@pytest.mark.parametrize("bad, message", [
    (dict(step_cost="x"), "step_cost: expected a number >= 0"),
    (dict(success_fraction=-1), "success_fraction: expected a number >= 0"),
    (dict(extra_strokes=1.5), "extra_strokes: expected an int >= 0"),
])
def test_rule_options_of_the_wrong_kind_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        E.make("ShapingStrokes-v0", **bad)
