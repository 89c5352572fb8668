"""DQN for ShapingTrench-v0 (paper 003 §4.1-4.3 poses single-stroke trenching with four discrete
moves; the paper trains a DQN on it). Double DQN (the online network picks the next action, the
target network values it), a replay memory, a target network copied every `target_every`
updates, a Huber loss and a small CNN over the environment's (3, rows, cols) observation (the dug
map, the goal, the blade). Experience comes from `talus.envs.make_vec` (one C++ call per step of
all environments); each vector step is followed by one gradient step.

Why these choices: the observation is a small image whose meaning is local (which neighbour of
the blade is an undug goal cell), so two 3x3 convolutions see it; double DQN because plain DQN's
max over noisy estimates overvalues moves that wander; Huber because the reward's scale (+1 per
goal cell, -1 outside) makes early TD errors large.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time

import numpy as np
import torch
from torch import nn

import talus.envs as E
from .allocator import keep_freed_memory
from .training_log import EpisodeLog


@dataclasses.dataclass
class DqnConfig:
    env_id: str = "ShapingTrench-v0"
    goals: str = "letters"           # the environment's goals option
    num_envs: int = 16               # environments stepped together
    total_env_steps: int = 600_000   # summed over the environments
    gamma: float = 0.97
    learning_rate: float = 5e-4
    batch_size: int = 128
    replay_size: int = 200_000
    learning_starts: int = 5_000     # env steps before the first gradient step
    target_every: int = 1_000        # gradient steps between target-network copies
    epsilon_start: float = 1.0
    epsilon_end: float = 0.02
    epsilon_fraction: float = 0.5    # of total_env_steps over which epsilon falls linearly
    channels: int = 32
    hidden: int = 128
    seed: int = 0
    threads: int = 1                 # torch's and the vector environment's


class QNetwork(nn.Module):
    """Q(s, .) for the (3, rows, cols) observation: two 3x3 convolutions keeping the map's size,
    a hidden layer, one output per move."""

    def __init__(self, obs_shape, actions, channels=32, hidden=128):
        super().__init__()
        c, h, w = obs_shape
        self.body = nn.Sequential(
            nn.Conv2d(c, channels // 2, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels // 2, channels, 3, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(channels * h * w, hidden), nn.ReLU(),
            nn.Linear(hidden, actions))

    def forward(self, obs):
        return self.body(obs)


class ReplayMemory:
    """A ring of transitions in preallocated numpy arrays."""

    def __init__(self, size, obs_shape, rng):
        self.obs = np.zeros((size, *obs_shape), np.float32)
        self.next_obs = np.zeros((size, *obs_shape), np.float32)
        self.action = np.zeros(size, np.int64)
        self.reward = np.zeros(size, np.float32)
        self.done = np.zeros(size, np.float32)  # terminated (not truncated): no bootstrap
        self.size, self.count, self.head, self.rng = size, 0, 0, rng

    def add(self, obs, action, reward, next_obs, terminated):
        n = len(action)
        idx = (self.head + np.arange(n)) % self.size
        self.obs[idx], self.next_obs[idx] = obs, next_obs
        self.action[idx], self.reward[idx], self.done[idx] = action, reward, terminated
        self.head = (self.head + n) % self.size
        self.count = min(self.count + n, self.size)

    def sample(self, batch):
        idx = self.rng.integers(0, self.count, batch)
        return (torch.from_numpy(self.obs[idx]), torch.from_numpy(self.action[idx]),
                torch.from_numpy(self.reward[idx]), torch.from_numpy(self.next_obs[idx]),
                torch.from_numpy(self.done[idx]))


def epsilon_at(config, env_steps):
    span = max(1.0, config.epsilon_fraction * config.total_env_steps)
    frac = min(1.0, env_steps / span)
    return config.epsilon_start + frac * (config.epsilon_end - config.epsilon_start)


def td_loss(online, target, batch, gamma):
    """Double-DQN Huber loss of a sampled batch."""
    obs, action, reward, next_obs, done = batch
    q = online(obs).gather(1, action[:, None]).squeeze(1)
    with torch.no_grad():
        best = online(next_obs).argmax(1, keepdim=True)
        q_next = target(next_obs).gather(1, best).squeeze(1)
        y = reward + gamma * (1.0 - done) * q_next
    return nn.functional.smooth_l1_loss(q, y)


def train(config: DqnConfig, out_dir, progress=None):
    """Trains a DQN and writes into `out_dir` (created if missing): checkpoint.pt (the network and
    the config), log.csv (one row per finished episode), learning_curve.png and
    learning_curve_wall.png. `progress(env_steps, total, episodes)` is called now and then.
    Returns a dict of what was measured (episodes, wall time, losses at the start and end)."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(config.seed)
    keep_freed_memory()
    torch.set_num_threads(config.threads)
    rng = np.random.default_rng(config.seed)
    env = E.make_vec(config.env_id, config.num_envs, threads=config.threads, goals=config.goals)
    obs_shape = env.single_observation_space.shape
    actions = int(env.single_action_space.n)
    online = QNetwork(obs_shape, actions, config.channels, config.hidden)
    target = QNetwork(obs_shape, actions, config.channels, config.hidden)
    target.load_state_dict(online.state_dict())
    optimiser = torch.optim.Adam(online.parameters(), lr=config.learning_rate)
    memory = ReplayMemory(config.replay_size, obs_shape, rng)
    log = EpisodeLog(out / "log.csv")

    obs, _ = env.reset(seed=config.seed)
    ended = np.zeros(config.num_envs, bool)  # the next step of these is an autoreset
    ep_return = np.zeros(config.num_envs)
    ep_length = np.zeros(config.num_envs, np.int64)
    env_steps, vector_steps, updates, losses = 0, 0, 0, []
    start = time.perf_counter()
    while env_steps < config.total_env_steps:
        eps = epsilon_at(config, env_steps)
        with torch.no_grad():
            greedy = online(torch.from_numpy(obs)).argmax(1).numpy()
        explore = rng.random(config.num_envs) < eps
        action = np.where(explore, rng.integers(0, actions, config.num_envs), greedy)
        next_obs, reward, terminated, truncated, info = env.step(action)
        live = ~ended  # an autoreset step carries no transition
        memory.add(obs[live], action[live], reward[live], next_obs[live], terminated[live])
        ep_return[live] += reward[live]
        ep_length[live] += 1
        env_steps += int(live.sum())
        ended = terminated | truncated
        for i in np.flatnonzero(ended):
            log.add(env_steps=env_steps, wall_s=round(time.perf_counter() - start, 3),
                    goal=int(info["map_index"][i]), **{"return": round(float(ep_return[i]), 4)},
                    length=int(ep_length[i]), success=int(bool(info["success"][i])),
                    epsilon=round(eps, 4), loss=round(losses[-1], 6) if losses else "")
            ep_return[i], ep_length[i] = 0.0, 0
        obs = next_obs
        vector_steps += 1
        if env_steps >= config.learning_starts:
            loss = td_loss(online, target, memory.sample(config.batch_size), config.gamma)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(float(loss))
            updates += 1
            if updates % config.target_every == 0:
                target.load_state_dict(online.state_dict())
        if progress and vector_steps % 500 == 0:
            progress(env_steps, config.total_env_steps, len(log.rows))
    wall = time.perf_counter() - start
    log.close()
    env.close()
    save_checkpoint(out / "checkpoint.pt", online, config, obs_shape, actions)
    log.write_curve(out / "learning_curve.png", f"DQN on {config.env_id}")
    first = float(np.mean(losses[:200])) if losses else float("nan")
    last = float(np.mean(losses[-200:])) if losses else float("nan")
    result = {"episodes": len(log.rows), "env_steps": env_steps, "updates": updates,
              "wall_s": wall, "loss_first_200": first, "loss_last_200": last}
    (out / "training.json").write_text(json.dumps(
        {"config": dataclasses.asdict(config), "result": result}, indent=2))
    return result


def save_checkpoint(path, network, config, obs_shape, actions):
    torch.save({"state_dict": network.state_dict(), "config": dataclasses.asdict(config),
                "obs_shape": list(obs_shape), "actions": actions}, path)


def load_policy(path):
    """The greedy policy of a checkpoint: a function from one observation (or a batch) to the
    move(s) with the highest Q."""
    keep_freed_memory()
    data = torch.load(path, map_location="cpu")
    config = DqnConfig(**data["config"])
    net = QNetwork(tuple(data["obs_shape"]), data["actions"], config.channels, config.hidden)
    net.load_state_dict(data["state_dict"])
    net.eval()

    def policy(obs):
        batch = np.asarray(obs, np.float32)
        single = batch.ndim == 3
        with torch.no_grad():
            a = net(torch.from_numpy(batch[None] if single else batch)).argmax(1).numpy()
        return int(a[0]) if single else a

    policy.config = config
    return policy
