"""The learning agents (talus.agents): a seconds-long training run per agent that must lower its
loss, write its checkpoint, log and learning curves, and reload into a policy that acts as the
trained network does; and the letter evaluation's table on a policy whose result is known."""

import csv

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # scripts/install-deps.sh installs python3-torch

import talus  # noqa: E402
import talus.envs as E  # noqa: E402
from talus.agents import dqn, trench_eval  # noqa: E402


def training_log(out, result):
    """The files every agent's training writes, each non-empty; its log.csv rows, one per
    episode."""
    for name in ("checkpoint.pt", "log.csv", "learning_curve.png", "learning_curve_wall.png",
                 "training.json"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == result["episodes"] > 0
    return rows


def test_dqn_training_lowers_its_loss_and_its_checkpoint_reloads(tmp_path):
    config = dqn.DqnConfig(num_envs=8, total_env_steps=6000, learning_starts=500, batch_size=64,
                           replay_size=10_000, target_every=200, epsilon_fraction=0.5, seed=3)
    result = dqn.train(config, tmp_path)
    assert result["env_steps"] >= 6000 and result["updates"] > 500
    assert result["loss_last_200"] < result["loss_first_200"], result
    rows = training_log(tmp_path, result)
    assert all(1 <= int(r["length"]) <= 100 for r in rows)

    policy = dqn.load_policy(tmp_path / "checkpoint.pt")
    saved = torch.load(tmp_path / "checkpoint.pt")
    net = dqn.QNetwork(tuple(saved["obs_shape"]), saved["actions"], config.channels, config.hidden)
    net.load_state_dict(saved["state_dict"])
    env = E.make("ShapingTrench-v0")
    obs, _ = env.reset(seed=1)
    batch = np.stack([obs, env.observation_space.sample()])
    expected = net(torch.from_numpy(batch)).argmax(1).numpy()
    np.testing.assert_array_equal(policy(batch), expected)
    assert policy(obs) == int(expected[0])


ACTION = {"up": 0, "down": 1, "left": 2, "right": 3}


class AStarReplay:
    """A policy that replays, for the letter whose goal map it sees, the A* stroke from the
    environment's start: optimal on every letter by construction."""

    def __init__(self):
        self.moves = []

    def __call__(self, obs):
        if not self.moves:
            goal = obs[1] > 0.5
            start = tuple(int(v) for v in np.argwhere(obs[2] > 0.5)[0])
            rows = ["".join("#" if v else "." for v in row) for row in goal]
            plan = talus.shaping.plan_single_stroke_trench(
                talus.shaping.BinaryMap.from_rows(rows), start=talus.shaping.GridCell(*start))
            self.moves = [ACTION[name] for name in plan.actions]
        return self.moves.pop(0)


def test_letter_evaluation_counts_optimal_letters_and_their_overlap():
    rows, frames = trench_eval.evaluate(AStarReplay(), letters="LTX")
    assert [r["letter"] for r in rows] == ["L", "T", "X"]
    assert all(r["optimal"] and r["success"] and r["iou"] == 1.0 for r in rows), rows
    assert [r["optimal_steps"] for r in rows] == [r["steps"] for r in rows]

    rows, frames = trench_eval.evaluate(lambda obs: ACTION["up"], letters="LX")
    assert not any(r["optimal"] or r["success"] for r in rows)
    assert all(0.0 < r["iou"] < 1.0 for r in rows)  # only the start column was dug
    assert len(frames) == 2 and frames[0].dtype == np.uint8
    grid = trench_eval.frame_grid(frames, columns=2)
    h, w, _ = frames[0].shape
    assert grid.shape == (h + 12, 2 * (w + 6) + 6, 3)
    # The verdicts as frames: green round the first letter, red round the second, the maps
    # inside untouched.
    framed = trench_eval.frame_grid(frames, columns=2, passed=[True, False], border_px=4)
    assert framed.shape == (h + 8 + 12, 2 * (w + 8 + 6) + 6, 3)
    assert tuple(framed[6, 6]) == trench_eval.PASSED_RGB
    assert tuple(framed[6 + h + 7, 6 + w + 8 + 6]) == trench_eval.FAILED_RGB
    np.testing.assert_array_equal(framed[10:10 + h, 10:10 + w], frames[0])
    np.testing.assert_array_equal(framed[10:10 + h, 6 + w + 8 + 6 + 4:][:, :w], frames[1])
    with pytest.raises(ValueError, match="1 verdicts for 2 frames"):
        trench_eval.frame_grid(frames, passed=[True])


def test_the_shipped_dqn_digs_at_least_20_letters_in_the_astar_step_count():
    """data/agents/dqn_trench.pt, the run docs/envs.md reports (21 of 26 there)."""
    import os
    import pathlib
    source = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
    policy = dqn.load_policy(source / "data" / "agents" / "dqn_trench.pt")
    rows, _ = trench_eval.evaluate(policy)
    assert sum(r["optimal"] for r in rows) >= 20, rows


def test_ddpg_her_training_runs_relabels_and_its_checkpoint_reloads(tmp_path):
    from talus.agents import ddpg_her
    config = ddpg_her.DdpgHerConfig(num_envs=4, total_episodes=24, learning_starts=8,
                                    batch_size=16, updates_per_step=2, candidates=16, seed=2)
    result = ddpg_her.train(config, tmp_path)
    assert result["episodes"] >= 24 and result["updates"] > 10
    assert result["critic_loss_last"] < result["critic_loss_first"], result
    rows = training_log(tmp_path, result)
    assert all(1 <= int(r["length"]) <= 8 and r["goal"] in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
               for r in rows)
    env = E.make("ShapingStrokes-v0")
    obs, _ = env.reset(seed=1)
    # The reloaded policy chooses as the checkpoint's networks do, built here on their own from
    # the saved weights (same candidates: same seed), and again the same for the same seed.
    first = ddpg_her.load_policy(tmp_path / "checkpoint.pt", env.bed, seed=5)(obs)
    again = ddpg_her.load_policy(tmp_path / "checkpoint.pt", env.bed, seed=5)(obs)
    saved = torch.load(tmp_path / "checkpoint.pt")
    agent = ddpg_her.Agent(ddpg_her.DdpgHerConfig(**saved["config"]), saved["cells"])
    agent.actor.load_state_dict(saved["actor"])
    agent.actor.eval()
    assert len(agent.critics) == 2  # the default: twin critics
    for critic, key in zip(agent.critics, ("critic", "critic2")):
        critic.load_state_dict(saved[key])
        critic.eval()
    sand = ddpg_her.relief(obs["achieved_goal"], env.bed).astype(np.float32)[None]
    goal = ddpg_her.relief(obs["desired_goal"], env.bed).astype(np.float32)[None]
    expected = agent.act(sand, goal, torch.Generator().manual_seed(5))[0]
    assert first.shape == (4,) and np.all(np.abs(first) <= 1)
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(first, again)
    env.step(first)


class Bowl(torch.nn.Module):
    """A critic whose Q is minus the squared distance of the stroke to `best`."""

    def __init__(self, best):
        super().__init__()
        self.best = torch.tensor(best)

    def forward(self, sand, goal, action):
        return -((action - self.best) ** 2).sum(1)


def test_the_cross_entropy_search_climbs_to_the_critics_maximum():
    from talus.agents import ddpg_her
    best = [0.3, -0.2, 0.5, 0.1]
    agent = ddpg_her.Agent(ddpg_her.DdpgHerConfig(cem_iterations=3, critics=1), 32)
    agent.critic = Bowl(best)
    sand = torch.zeros((2, 32, 32))
    # Starts 0.05-0.06 off in three coordinates; three iterations end within 0.005 of the top.
    start = torch.tensor([best, best]) + torch.tensor([[0.06, -0.06, 0.06, 0.0],
                                                      [0.0, 0.05, -0.05, 0.05]])
    found = agent._cross_entropy(sand, sand, start, torch.Generator().manual_seed(0))
    assert (found - torch.tensor(best)).abs().max() < 0.005, found
    # act() runs the CEM after its candidates and gives each stroke's Q with it.
    strokes, q = agent.act(sand.numpy(), sand.numpy(), torch.Generator().manual_seed(0),
                           with_q=True)
    assert strokes.shape == (2, 4) and np.allclose(q, -((strokes - best) ** 2).sum(1))
    agent.config.cem_iterations = 0
    plain = agent.act(sand.numpy(), sand.numpy(), torch.Generator().manual_seed(0))
    assert (((strokes - best) ** 2).sum(1) < ((plain - best) ** 2).sum(1)).all()


def test_the_end_slide_moves_each_end_along_the_stroke_only():
    """Agent._slide_ends: start and end slide along the stroke's own line, on a grid of quarter
    cells up to end_slide_cells either way, to the offsets the critic rates highest; the line
    itself does not move, however the critic rates strokes off it."""
    from talus.agents import ddpg_her
    cell = 2.0 / 31.0  # action units per cell on the 32 x 32 bed
    config = ddpg_her.DdpgHerConfig(cem_iterations=3, end_slide_cells=2.0,
                                    end_slide_step_cells=0.25, critics=1)
    agent = ddpg_her.Agent(config, 32)
    agent.critic = Bowl([-0.5 - 1.5 * cell, 0.1, 0.5 + 0.75 * cell, 0.1])  # above the line
    sand = torch.zeros((1, 32, 32))
    stroke = torch.tensor([[-0.5, 0.0, 0.5, 0.0]])
    slid = agent._slide_ends(sand, sand, stroke)[0]
    assert slid[1] == 0.0 and slid[3] == 0.0, slid  # still on y = 0
    assert abs(slid[0] - (-0.5 - 1.5 * cell)) < 1e-6 and abs(slid[2] - (0.5 + 0.75 * cell)) < 1e-6
    # Beyond the slide's reach it stops at end_slide_cells.
    agent.critic = Bowl([-0.5 - 5 * cell, 0.0, 1.5, 0.0])
    slid = agent._slide_ends(sand, sand, stroke)[0]
    assert abs(slid[0] - (-0.5 - 2 * cell)) < 1e-6 and abs(slid[2] - (0.5 + 2 * cell)) < 1e-6
    # Near the bed's edge the slid end is clamped to it (-1), not left outside.
    agent.critic = Bowl([-1.5, 0.0, 0.5, 0.0])
    slid = agent._slide_ends(sand, sand, torch.tensor([[-0.95, 0.0, 0.5, 0.0]]))[0]
    assert slid[0] == -1.0 and abs(slid[2] - 0.5) < 1e-6, slid
    # In act(), it follows the CEM only when end_slide_cells > 0 (same candidates: same seed).
    with_slide = agent.act(sand.numpy(), sand.numpy(), torch.Generator().manual_seed(0))
    agent.config.end_slide_cells = 0.0
    without = agent.act(sand.numpy(), sand.numpy(), torch.Generator().manual_seed(0))
    assert not np.array_equal(with_slide, without)


def test_the_policy_stops_when_no_stroke_is_worth_its_cost(tmp_path):
    """load_policy's stop: None (a batch: NaN rows) when the chosen stroke's Q is below the
    threshold, the stroke otherwise; unknown search settings are refused."""
    from talus.agents import ddpg_her
    env = E.make("ShapingStrokes-v0")
    obs, _ = env.reset(seed=0, options={"goal": "L"})
    agent = ddpg_her.Agent(ddpg_her.DdpgHerConfig(critics=1), 32)
    ddpg_her.save_checkpoint(tmp_path / "agent.pt", agent, agent.config, 32)
    for threshold, expect_stop in ((None, False), (-10.0, False), (0.5, True)):
        policy = ddpg_her.load_policy(tmp_path / "agent.pt", env.bed, stop_below_q=threshold,
                                      candidates=64, cem_iterations=2)
        policy.agent.critic = Bowl([0.0, 0.0, 0.0, 0.0])  # Q <= 0, 0 only at the centre
        single = policy(obs)
        batch = policy({k: np.stack([v, v]) for k, v in obs.items()})
        if expect_stop:
            assert single is None and np.isnan(batch).all()
        else:
            assert single.shape == (4,) and np.isfinite(batch).all()
            assert policy.config.candidates == 64 and policy.config.cem_iterations == 2
    with pytest.raises(ValueError, match="unknown search settings"):
        ddpg_her.load_policy(tmp_path / "agent.pt", env.bed, candiates=64)


def test_twin_critics_score_by_the_smaller_q_and_reload_from_their_checkpoint(tmp_path):
    from talus.agents import ddpg_her
    config = ddpg_her.DdpgHerConfig(num_envs=4, total_episodes=16, learning_starts=8,
                                    batch_size=16, updates_per_step=2, candidates=16, seed=3,
                                    critics=2)
    result = ddpg_her.train(config, tmp_path)
    assert result["updates"] > 4
    saved = torch.load(tmp_path / "checkpoint.pt")
    assert {"critic", "critic2"} <= set(saved)
    env = E.make("ShapingStrokes-v0")
    policy = ddpg_her.load_policy(tmp_path / "checkpoint.pt", env.bed, seed=1)
    agent = policy.agent
    assert len(agent.critics) == 2
    for k, key in enumerate(("critic", "critic2")):
        for name, value in agent.critics[k].state_dict().items():
            torch.testing.assert_close(value, saved[key][name], rtol=0, atol=0)
    # Two critics with different peaks: a stroke's score is the smaller Q, so the search picks
    # where both are high (between the peaks), not either critic's own peak.
    agent.critics = [Bowl([-0.4, 0.0, 0.4, 0.0]), Bowl([-0.4, 0.2, 0.4, 0.2])]
    strokes = torch.tensor([[-0.4, 0.0, 0.4, 0.0], [-0.4, 0.2, 0.4, 0.2], [-0.4, 0.1, 0.4, 0.1]])
    s = torch.zeros((3, env.bed.cells, env.bed.cells))
    torch.testing.assert_close(agent.q(s, s, strokes), torch.tensor([-0.08, -0.08, -0.02]))
    torch.testing.assert_close(agent._best(s[:1], s[:1], strokes[None]), strokes[2:3])
    with pytest.raises(ValueError, match="critics"):
        ddpg_her.Agent(ddpg_her.DdpgHerConfig(critics=3), 8)


def test_a_runs_checkpoints_act_as_one_ensemble_scored_by_the_mean_q(tmp_path):
    """run_checkpoints lists a run's checkpoints (the last first); load_policy of that list
    searches around the last actor and scores strokes by the mean Q over every checkpoint's
    critics; a checkpoint saved before twin critics existed loads with its one critic."""
    from talus.agents import ddpg_her
    config = ddpg_her.DdpgHerConfig(num_envs=4, total_episodes=16, learning_starts=4,
                                    batch_size=16, updates_per_step=2, candidates=16, seed=4,
                                    checkpoint_every=8)
    ddpg_her.train(config, tmp_path)
    (tmp_path / "checkpoint_notes.pt").write_text("not a snapshot")  # ignored: no episode count
    paths = ddpg_her.run_checkpoints(tmp_path)
    assert [p.name for p in paths] == ["checkpoint.pt", "checkpoint_8.pt"]
    env = E.make("ShapingStrokes-v0")
    policy = ddpg_her.load_policy(paths, env.bed, seed=1)
    agent = policy.agent
    assert agent.q_reduction == "mean" and len(agent.critics) == 4
    saved = [torch.load(p) for p in paths]
    keys = [(0, "critic"), (0, "critic2"), (1, "critic"), (1, "critic2")]
    for critic, (k, key) in zip(agent.critics, keys):
        for name, value in critic.state_dict().items():
            torch.testing.assert_close(value, saved[k][key][name], rtol=0, atol=0)
    for name, value in agent.actor.state_dict().items():
        torch.testing.assert_close(value, saved[0]["actor"][name], rtol=0, atol=0)
    # Critics peaking in different places: the mean is highest between their peaks, and a
    # stroke only one critic rates high scores below one both rate moderately.
    agent.critics = [Bowl([-0.4, 0.0, 0.4, 0.0]), Bowl([-0.4, 0.2, 0.4, 0.2])]
    strokes = torch.tensor([[-0.4, 0.0, 0.4, 0.0], [-0.4, 0.1, 0.4, 0.1]])
    s = torch.zeros((2, env.bed.cells, env.bed.cells))
    torch.testing.assert_close(agent.q(s, s, strokes), torch.tensor([-0.04, -0.02]))
    # Critics of one bed and line width share one rasterisation of their inputs: the same bits
    # as each critic called on its own (other modules are called as they are).
    cells = env.bed.cells
    critics = [ddpg_her.Critic(cells, 16, 256, width / (cells - 1)) for width in (2.0, 4.0, 2.0)]
    critics.append(Bowl([0.0, 0.0, 0.0, 0.0]))
    sand = torch.rand((5, cells, cells), generator=torch.Generator().manual_seed(2))
    moves = torch.rand((5, 4), generator=torch.Generator().manual_seed(3)) * 2.0 - 1.0
    with torch.no_grad():
        shared = ddpg_her.critic_values(critics, sand, sand.flip(1), moves)
        for critic, value in zip(critics, shared):
            assert torch.equal(value, critic(sand, sand.flip(1), moves))
    # One checkpoint alone keeps its training's rule; an old one-critic checkpoint loads as one.
    assert ddpg_her.load_policy(paths[0], env.bed).agent.q_reduction == "min"
    old = dict(saved[1])
    old["config"] = {k: v for k, v in old["config"].items() if k != "critics"}
    del old["critic2"]
    torch.save(old, tmp_path / "old.pt")
    mixed = ddpg_her.load_policy([paths[0], tmp_path / "old.pt"], env.bed).agent
    assert len(mixed.critics) == 3 and mixed.q_reduction == "mean"
    # Bad input: no checkpoint, a folder that is no run, checkpoints for different beds.
    with pytest.raises(ValueError, match="non-empty"):
        ddpg_her.load_policy([], env.bed)
    with pytest.raises(FileNotFoundError, match="checkpoint.pt"):
        ddpg_her.run_checkpoints(tmp_path / "nowhere")
    other = dict(saved[1], cells=16)
    torch.save(other, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="16-cell bed"):
        ddpg_her.load_policy([paths[0], tmp_path / "other.pt"], env.bed)


def test_train_ddpg_her_refuses_what_it_cannot_evaluate(tmp_path):
    """examples/train_ddpg_her.py --evaluate: a missing path, or a folder that is not a training
    run's, stops with exit 2 naming it, before anything is written."""
    import os
    import pathlib
    import subprocess
    import sys
    source = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
    (tmp_path / "empty").mkdir()
    for target, says in ((tmp_path / "missing.pt", "no such checkpoint or training run folder"),
                         (tmp_path / "empty", "without checkpoint.pt")):
        run = subprocess.run([sys.executable, str(source / "examples" / "train_ddpg_her.py"),
                              str(tmp_path / "out"), "--evaluate", str(target)],
                             capture_output=True, text=True)
        assert run.returncode == 2 and str(target) in run.stderr and says in run.stderr, run
    assert not (tmp_path / "out").exists()


def test_keep_freed_memory_keeps_a_freed_block_for_reuse():
    """Run in a fresh interpreter (the setting is process-wide): a 64 MiB block, written and
    freed, stays in the process (its resident size keeps it) for the next allocation, where
    glibc's default unmaps it on free and maps and zeroes fresh pages for the next."""
    import subprocess
    import sys
    script = """
import os, sys
import numpy as np
from talus.agents.allocator import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory() and keep_freed_memory()
def resident_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
before = resident_mib()
block = np.ones(64 << 18, np.float32)  # 64 MiB, every page written
del block
print(resident_mib() - before)
"""
    kept_mib = {mode: float(subprocess.run([sys.executable, "-c", script, mode], check=True,
                                           capture_output=True, text=True).stdout)
                for mode in ("keep", "default")}
    assert kept_mib["keep"] > 60, kept_mib
    assert kept_mib["default"] < 4, kept_mib


def test_hindsight_relabelling_rewards_reaching_the_relabelled_goal():
    """A relabelled transition whose goal is the sand the stroke made earns the whole goal
    (1 - step cost) and ends there; compute_reward on reliefs equals the environment's."""
    from talus.agents import ddpg_her
    env = E.make("ShapingStrokes-v0")
    obs, _ = env.reset(seed=0, options={"goal": "L"})
    bed = env.bed
    before = obs["achieved_goal"]
    obs, reward, *_ , info = env.step(np.array([-0.5, -0.5, 0.5, -0.5]))
    memory = ddpg_her.EpisodeReplay(4, 3, 32, np.random.default_rng(0))
    sand = np.stack([ddpg_her.relief(before, bed), ddpg_her.relief(obs["achieved_goal"], bed)])
    memory.add(sand, np.array([[-0.5, -0.5, 0.5, -0.5]]), ddpg_her.relief(obs["desired_goal"], bed))
    s, a, s2, g = memory.sample(64, her_k=4)
    relabelled = np.array([np.array_equal(x, s2[0]) for x in g])
    assert 0 < relabelled.sum() < 64  # about 4 in 5
    r, done = ddpg_her.reward_and_done(env._game, s, s2, g)
    assert np.allclose(r[relabelled], 1.0 - env.step_cost, atol=1e-5)
    assert np.all(done[relabelled] == 1.0)
    original = ~relabelled
    assert np.allclose(r[original], reward, atol=1e-5) and np.all(done[original] == 0.0)
    assert np.allclose(r[original], env.compute_reward(obs["achieved_goal"], obs["desired_goal"],
                                                       info), atol=1e-5)


def test_the_shipped_ddpg_her_agent_draws_the_letters_docs_envs_md_reports():
    """data/agents/ddpg_her_strokes/ (a run's four checkpoints as one ensemble) with the
    evaluation's search and stop, search seed 0, on the first eight letters A-H (the candidates
    are drawn letter after letter from one generator, so these are the first eight rows of the
    26-letter run docs/envs.md reports: C, F and H with every stroke correct, 26 of their 32
    goal strokes drawn, mean IoU 0.70; a little room for another CPU's rounding of the critics).
    Eight letters, not 26, keep the test near 30 s (eight critics score every candidate)."""
    import os
    import pathlib
    from talus.agents import ddpg_her, stroke_eval
    source = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
    env = E.make("ShapingStrokes-v0")
    paths = ddpg_her.run_checkpoints(source / "data" / "agents" / "ddpg_her_strokes")
    assert len(paths) == 4
    policy = ddpg_her.load_policy(paths, env.bed, stop_below_q=ddpg_her.EVALUATION_STOP_BELOW_Q,
                                  **ddpg_her.EVALUATION_SEARCH)
    rows, _ = stroke_eval.evaluate(policy, letters="ABCDEFGH")
    totals = stroke_eval.totals_of(rows)
    assert totals["all_strokes_correct"] >= 3, totals
    assert totals["goal_strokes_drawn"] >= 24, totals
    assert totals["at_least_one_stroke_drawn"] == 8, totals
    assert totals["mean_iou"] >= 0.68, totals


def test_td3_fits_its_critics_to_a_fixed_batch_and_acts_in_the_box():
    import torch
    from talus.agents import td3
    torch.manual_seed(0)
    agent = td3.Td3Agent(td3.Td3Config(policy_delay=1, critic_lr=1e-3), (36, 72), (36, 36))
    n = 32
    gen = torch.Generator().manual_seed(1)

    def rand(*shape):
        return torch.rand(*shape, generator=gen)
    batch = (rand(n, 36, 72), rand(n, 36, 36), rand(n, 4), rand(n, 2) * 2 - 1, rand(n) * 10,
             torch.ones(n), rand(n, 36, 72), rand(n, 36, 36), rand(n, 4))
    first = agent.update(batch)
    for _ in range(150):
        last = agent.update(batch)
    assert last < 0.2 * first, (first, last)  # terminal rewards: the critics regress them
    action = agent.act(batch[0][0].numpy(), batch[1][0].numpy(), batch[2][0].numpy())
    assert action.shape == (2,) and np.all(np.abs(action) <= 1.0)


def test_td3_training_writes_its_log_curve_and_checkpoint(tmp_path):
    from talus.agents import td3
    options = dict(particle_count=200, particle_radius_m=0.05, time_step_s=0.004,
                   steps_per_action=25, episode_s=1.0)
    config = td3.Td3Config(env_options=options, total_steps=25, learning_starts=15,
                           batch_size=8, replay_size=100)
    agent, log = td3.train(config, tmp_path)
    assert len(log.rows) == 2 and (tmp_path / "checkpoint.pt").is_file()
    assert (tmp_path / "train_log.csv").read_text().count("\n") == 3
    log.write_curve(tmp_path / "curve.png", "TD3", window=2)
    assert (tmp_path / "curve_wall.png").is_file()
    results = td3.evaluate(None, options, [0, 1], threads=1)
    assert len(results) == 2 and all(np.isfinite(r) for r, _ in results)
