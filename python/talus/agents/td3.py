"""TD3 for Bulldozing-v0 (paper 001 §III-A trains TD3 on its bulldozing task, Fig. 8: return
against wall time rising above the initial random policy's).

TD3 (Fujimoto et al. 2018): a deterministic actor a = pi(s) in [-1, 1]^2 and two critics
Q1, Q2(s, a) with target copies updated by Polyak averaging; the critics regress
r + gamma min(Q1', Q2')(s', pi'(s') + clipped noise) (clipped double Q with target policy
smoothing), the actor ascends Q1(s, pi(s)) every `policy_delay` critic steps. Exploration adds
Gaussian noise to the actor's action; the first `learning_starts` steps are uniform.

Each network sees the paper's observation: the sky depth image as heights above the floor
(metres, (36, 72)), the ego depth image (metres / its range, (36, 36)), each through its own small
CNN, and the pose as (x / 4, y / 2, cos yaw, sin yaw).
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
import time

import numpy as np
import torch
from torch import nn

import talus.envs as E
from .allocator import keep_freed_memory
from .training_log import EpisodeLog


@dataclasses.dataclass
class Td3Config:
    env_options: dict = dataclasses.field(default_factory=dict)  # Bulldozing-v0's options
    total_steps: int = 20_000        # env steps
    wall_budget_s: float = 1e9       # stop after this much wall time
    gamma: float = 0.98
    tau: float = 0.005               # target <- tau online + (1 - tau) target
    actor_lr: float = 3e-4
    critic_lr: float = 3e-4
    batch_size: int = 128
    replay_size: int = 25_000        # transitions kept
    learning_starts: int = 1_000     # uniform random actions before the first update
    exploration_std: float = 0.3
    policy_noise: float = 0.2
    noise_clip: float = 0.5
    policy_delay: int = 2
    seed: int = 0
    threads: int = 2                 # torch's
    # The particle step's: 1, since OpenMP threads that spin-wait after each particle step take
    # the cores from torch's update (measured: 2.5 env steps/s with 2 and 2, see docs/envs.md).
    env_threads: int = 1


def _conv(in_channels):
    # The images are averaged over 4 x 4 pixels first (sky 9 x 18, ego 9 x 9) and see one 3 x 3
    # convolution of 8 channels: with the full images and three convolutions of 16-32 channels an
    # update (batch 128) took 264 ms on 2 cores with Debian's CPU torch, this one 30 ms.
    return nn.Sequential(nn.AvgPool2d(4), nn.Conv2d(in_channels, 8, 3, padding=1), nn.ReLU(),
                         nn.Flatten())


class Encoder(nn.Module):
    """The two depth images and the pose as one feature vector."""

    def __init__(self, sky_shape, ego_shape):
        super().__init__()
        self.sky, self.ego = _conv(1), _conv(1)
        with torch.no_grad():
            n_sky = self.sky(torch.zeros(1, 1, *sky_shape)).shape[1]
            n_ego = self.ego(torch.zeros(1, 1, *ego_shape)).shape[1]
        self.sky_fc, self.ego_fc = nn.Linear(n_sky, 64), nn.Linear(n_ego, 32)
        self.size = 64 + 32 + 4

    def forward(self, sky, ego, pose):
        return torch.cat([torch.relu(self.sky_fc(self.sky(sky.unsqueeze(1)))),
                          torch.relu(self.ego_fc(self.ego(ego.unsqueeze(1)))), pose], dim=1)


class Actor(nn.Module):
    def __init__(self, sky_shape, ego_shape):
        super().__init__()
        self.encoder = Encoder(sky_shape, ego_shape)
        self.head = nn.Sequential(nn.Linear(self.encoder.size, 256), nn.ReLU(),
                                  nn.Linear(256, 2), nn.Tanh())

    def forward(self, sky, ego, pose):
        return self.head(self.encoder(sky, ego, pose))


class Critic(nn.Module):
    def __init__(self, sky_shape, ego_shape):
        super().__init__()
        self.encoder = Encoder(sky_shape, ego_shape)
        self.head = nn.Sequential(nn.Linear(self.encoder.size + 2, 256), nn.ReLU(),
                                  nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))

    def forward(self, sky, ego, pose, action):
        return self.head(torch.cat([self.encoder(sky, ego, pose), action], dim=1)).squeeze(1)


def preprocess(obs, options):
    """(sky heights [m], ego depth / range, pose features) as float32 arrays."""
    sky = np.clip(options.sky_camera_z_m - obs["sky"], 0.0, None).astype(np.float32)
    ego = (obs["ego"] / options.ego_max_range_m).astype(np.float32)
    x, y, yaw = (float(v) for v in obs["pose"])
    pose = np.array([x / 4.0, y / 2.0, math.cos(yaw), math.sin(yaw)], np.float32)
    return sky, ego, pose


class Replay:
    def __init__(self, size, sky_shape, ego_shape):
        self.sky = np.zeros((size, *sky_shape), np.float16)
        self.ego = np.zeros((size, *ego_shape), np.float16)
        self.pose = np.zeros((size, 4), np.float32)
        self.action = np.zeros((size, 2), np.float32)
        self.reward = np.zeros(size, np.float32)
        self.done = np.zeros(size, np.float32)
        self.next = np.zeros(size, np.int64)  # index of the next observation's row
        self.size, self.count, self.head = size, 0, 0

    def add_observation(self, sky, ego, pose):
        i = self.head
        self.sky[i], self.ego[i], self.pose[i] = sky, ego, pose
        self.head = (self.head + 1) % self.size
        self.count = min(self.count + 1, self.size)
        return i

    def sample(self, rows, rng, batch):
        """rows: (obs row, next row, action, reward, done) tuples kept by the trainer."""
        pick = rng.integers(len(rows), size=batch)
        chosen = [rows[k] for k in pick]
        i = np.array([c[0] for c in chosen])
        j = np.array([c[1] for c in chosen])

        def t(a):
            return torch.as_tensor(np.asarray(a, dtype=np.float32))
        return (t(self.sky[i]), t(self.ego[i]), t(self.pose[i]),
                t(np.array([c[2] for c in chosen])), t(np.array([c[3] for c in chosen])),
                t(np.array([c[4] for c in chosen])), t(self.sky[j]), t(self.ego[j]),
                t(self.pose[j]))


class Td3Agent:
    def __init__(self, config, sky_shape, ego_shape):
        torch.manual_seed(config.seed)
        self.config = config
        self.actor = Actor(sky_shape, ego_shape)
        self.actor_target = Actor(sky_shape, ego_shape)
        self.actor_target.load_state_dict(self.actor.state_dict())
        self.critics = nn.ModuleList([Critic(sky_shape, ego_shape) for _ in range(2)])
        self.critics_target = nn.ModuleList([Critic(sky_shape, ego_shape) for _ in range(2)])
        self.critics_target.load_state_dict(self.critics.state_dict())
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=config.actor_lr)
        self.critic_opt = torch.optim.Adam(self.critics.parameters(), lr=config.critic_lr)
        self.updates = 0

    def act(self, sky, ego, pose):
        with torch.no_grad():
            a = self.actor(torch.as_tensor(sky)[None], torch.as_tensor(ego)[None],
                           torch.as_tensor(pose)[None])
        return a[0].numpy()

    def update(self, batch):
        c = self.config
        sky, ego, pose, action, reward, done, sky2, ego2, pose2 = batch
        with torch.no_grad():
            noise = (torch.randn_like(action) * c.policy_noise).clamp(-c.noise_clip, c.noise_clip)
            next_action = (self.actor_target(sky2, ego2, pose2) + noise).clamp(-1.0, 1.0)
            q_next = torch.min(self.critics_target[0](sky2, ego2, pose2, next_action),
                               self.critics_target[1](sky2, ego2, pose2, next_action))
            target = reward + c.gamma * (1.0 - done) * q_next
        loss = sum(((q(sky, ego, pose, action) - target) ** 2).mean() for q in self.critics)
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()
        self.updates += 1
        if self.updates % c.policy_delay == 0:
            actor_loss = -self.critics[0](sky, ego, pose, self.actor(sky, ego, pose)).mean()
            self.actor_opt.zero_grad()
            actor_loss.backward()
            self.actor_opt.step()
            with torch.no_grad():
                for net, target_net in ((self.actor, self.actor_target),
                                        (self.critics, self.critics_target)):
                    for p, tp in zip(net.parameters(), target_net.parameters()):
                        tp.mul_(1.0 - c.tau).add_(c.tau * p)
        return float(loss)


def train(config: Td3Config, out_dir, progress=None):
    """Trains TD3 on Bulldozing-v0 with config.env_options; writes train_log.csv, the learning
    curves, checkpoint.pt and config.json into out_dir; returns the agent and the episode log."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    keep_freed_memory()
    torch.set_num_threads(config.threads)
    env = E.make("Bulldozing-v0", threads=config.env_threads, **config.env_options)
    options = env.world.options
    sky_shape = env.observation_space["sky"].shape
    ego_shape = env.observation_space["ego"].shape
    agent = Td3Agent(config, sky_shape, ego_shape)
    # Observation rows outlive their transitions by at most one per episode: twice the room.
    replay = Replay(2 * config.replay_size, sky_shape, ego_shape)
    rows = []  # transitions (row, next row, action, reward, done), oldest dropped
    rng = np.random.default_rng(config.seed)
    log = EpisodeLog(out / "train_log.csv")
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
    start = time.perf_counter()
    obs, _ = env.reset(seed=config.seed)
    row = replay.add_observation(*preprocess(obs, options))
    episode_return, length, loss, episode_seed = 0.0, 0, float("nan"), config.seed
    for step in range(config.total_steps):
        if step < config.learning_starts:
            action = rng.uniform(-1.0, 1.0, 2).astype(np.float32)
        else:
            action = agent.act(*preprocess(obs, options))
            action = np.clip(action + rng.normal(0.0, config.exploration_std, 2), -1, 1)
            action = action.astype(np.float32)
        obs, reward, terminated, truncated, info = env.step(action)
        next_row = replay.add_observation(*preprocess(obs, options))
        rows.append((row, next_row, action, reward, float(terminated)))
        if len(rows) > config.replay_size:
            rows.pop(0)
        row = next_row
        episode_return += reward
        length += 1
        if step >= config.learning_starts:
            loss = agent.update(replay.sample(rows, rng, config.batch_size))
        if terminated or truncated:
            wall = time.perf_counter() - start
            log.add(env_steps=step + 1, wall_s=f"{wall:.1f}", goal=info["particles_in_goal"],
                    **{"return": f"{episode_return:.2f}"}, length=length,
                    success=int(info["particles_in_goal"] > 0), loss=f"{loss:.4g}")
            if progress:
                progress(step + 1, config.total_steps, len(log.rows), episode_return, wall)
            episode_seed += 1
            obs, _ = env.reset(seed=episode_seed)
            row = replay.add_observation(*preprocess(obs, options))
            episode_return, length = 0.0, 0
            if wall > config.wall_budget_s:
                break
    log.close()
    torch.save({"actor": agent.actor.state_dict(), "config": dataclasses.asdict(config),
                "sky_shape": sky_shape, "ego_shape": ego_shape}, out / "checkpoint.pt")
    return agent, log


def evaluate(policy, env_options, seeds, threads=2):
    """Returns and particles in the goal of `policy` (obs -> action; None: uniform random) over
    one episode per seed."""
    env = E.make("Bulldozing-v0", threads=threads, **env_options)
    results = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        env.action_space.seed(seed)
        total = 0.0
        while True:
            action = policy(obs) if policy is not None else env.action_space.sample()
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            if terminated or truncated:
                break
        results.append((total, info["particles_in_goal"]))
    return results
