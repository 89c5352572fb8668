"""DDPG with hindsight experience replay for ShapingStrokes-v0 (paper 003 §4.4-4.5 trains DDPG +
HER on trenched letters and reports 2 of 26 letters correct after 10,000 episodes).

DDPG (Lillicrap et al. 2016): a deterministic actor a = pi(s, g) in [-1, 1]^4 and a critic Q(s, g,
a), each with a target copy updated by Polyak averaging; the critic regresses the one-step TD
target, the actor ascends Q(s, g, pi(s, g)). HER (Andrychowicz et al. 2017, "future" strategy):
each sampled transition's goal is replaced, with probability 1 - 1/(1 + k), by the sand the same
episode reached at a later step, and its reward recomputed with the environment's
compute_reward; a relabelled transition that reaches its goal ends there, as the environment
would.

What differs from a generic DDPG, and why (docs/envs.md has the measurements):
- both networks see the maps as images relative to the flat bed (in trench depths: the sand, the
  goal and their difference) with two coordinate channels, so a convolution can say *where* a
  trench is still to dig;
- the critic sees the action as an image too, the stroke rasterised as a soft line with soft
  blobs at its two ends (differentiable in the end points), so "does this stroke lie on an undug
  goal trench, pushing the right way" is a local, convolutional question rather than one a dense
  layer must learn from four numbers;
- the actor is a keypoint network (KeypointActor), and the policy is the stroke the critic rates
  highest among the actor's, perturbations of it and uniform strokes, refined once around the
  winner (Agent.act): the reward has a mode per goal stroke and nothing in between, and gradient
  ascent on a good critic (DDPG's actor step) stalls between modes. The actor is still trained by
  DDPG's deterministic policy gradient and is the search's centre;
- the evaluation (EVALUATION_SEARCH) searches wider, refines by the cross-entropy method and
  then slides each end of the stroke along it (Agent._slide_ends), and the policy may stop
  (load_policy's stop_below_q): the environment runs each letter to its stroke count plus two,
  and strokes past a drawn letter are stray ones;
- two critics (clipped double Q) train, and the evaluation scores strokes by the mean Q of the
  critics of every checkpoint the run wrote (a snapshot ensemble, run_checkpoints): averaging
  critics that peak spuriously in different places leaves the peaks they share.
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
class DdpgHerConfig:
    env_id: str = "ShapingStrokes-v0"
    goals: str = "letters"           # the environment's goals option
    num_envs: int = 16               # environments stepped together
    total_episodes: int = 10_000     # the paper's budget
    gamma: float = 0.5
    actor_lr: float = 3e-4
    critic_lr: float = 1e-3
    batch_size: int = 128
    replay_episodes: int = 10_000    # episodes kept
    her_k: int = 4                   # relabelled : original = k : 1 ("future")
    updates_per_step: int = 4        # gradient steps per vector step (of num_envs strokes)
    learning_starts: int = 200       # episodes before the first gradient step
    polyak: float = 0.95             # target = polyak * target + (1 - polyak) * online
    noise_std: float = 0.05          # Gaussian exploration noise, in action units (1 cell: 0.065)
    random_eps: float = 0.1          # probability of a uniform random stroke
    actor: str = "keypoints"         # "keypoints" (KeypointActor) or "dense" (Actor)
    actor_channels: int = 16         # the keypoint actor's convolutions
    candidates: int = 256            # strokes the critic chooses among when acting (0: the actor)
    candidate_noise: float = 0.05    # spread of the candidates around the actor's stroke
    refine_candidates: int = 64      # a second search around the first's best (<= 1: none)
    refine_noise: float = 0.015      # its spread (a quarter cell)
    cem_iterations: int = 0          # > 0: refine by the cross-entropy method instead (Agent.act)
    cem_samples: int = 128           # strokes drawn per CEM iteration
    cem_elites: int = 16             # the best of them, whose mean and spread the next draws use
    cem_noise: float = 0.05          # the first draws' spread (0.8 cell)
    end_slide_cells: float = 0.0     # > 0: then slide each end along the stroke by up to this
    end_slide_step_cells: float = 0.25  # many cells, in these steps (Agent._slide_ends)
    critics: int = 2                 # twin critics: the smaller Q as the target and as the
                                     # search's score in training (clipped double Q, Fujimoto
                                     # et al. 2018); 1: one critic
    channels: int = 16
    hidden: int = 256
    line_sigma_cells: float = 1.0    # width of the critic's rasterised stroke
    checkpoint_every: int = 2_500    # episodes between checkpoints (checkpoint_<episodes>.pt)
    seed: int = 0
    threads: int = 1                 # torch's and the vector environment's (a second thread did
                                     # not speed the small convolutions up on 2 cores)


def relief(maps, bed):
    """Heights [m] as trench depths relative to the flat bed (0 flat, -1 on a trench floor)."""
    return (maps - bed.sand_height_m) / bed.trench_depth_m


class MapEncoder(nn.Module):
    """Strided 3x3 convolutions from (channels_in, cells, cells) down to a vector."""

    def __init__(self, channels_in, cells, channels):
        super().__init__()
        layers, c, size = [], channels_in, cells
        for c_out in (channels, channels, 2 * channels):  # 16 x 16, 8 x 8, 4 x 4
            layers += [nn.Conv2d(c, c_out, 3, stride=2, padding=1), nn.ReLU()]
            c, size = c_out, (size + 1) // 2
        self.conv = nn.Sequential(*layers, nn.Flatten())
        self.out_features = c * size * size

    def forward(self, x):
        return self.conv(x)


def coordinate_grid(cells):
    """(2, cells, cells): the action coordinate (-1 to 1) of each cell's i and j, indexed [j, i]."""
    axis = torch.linspace(-1.0, 1.0, cells)
    jj, ii = torch.meshgrid(axis, axis, indexing="ij")
    return torch.stack([ii, jj])


def map_channels(sand, goal, coords):
    """(batch, 5, cells, cells): sand, goal and goal - sand (reliefs) and the coordinates."""
    b = sand.shape[0]
    return torch.cat([sand[:, None], goal[:, None], (goal - sand)[:, None],
                      coords[None].expand(b, -1, -1, -1)], dim=1)


def stroke_channels(action, coords, sigma):
    """(batch, 3, cells, cells): the stroke of each action (batch, 4) as a soft line
    exp(-d^2 / 2 sigma^2) (d the distance to the segment) and soft blobs at its start and end;
    sigma in action units. Differentiable in the action."""
    p = coords[None]                                        # (1, 2, H, W)
    a = action[:, 0:2, None, None]                          # (B, 2, 1, 1)
    b = action[:, 2:4, None, None]
    ab = b - a
    t = (((p - a) * ab).sum(1, keepdim=True) / (ab * ab).sum(1, keepdim=True).clamp_min(1e-6))
    closest = a + t.clamp(0.0, 1.0) * ab
    two_s2 = 2.0 * sigma * sigma

    def blob(q):
        return torch.exp(-((p - q) ** 2).sum(1, keepdim=True) / two_s2)

    return torch.cat([blob(closest), blob(a), blob(b)], dim=1)


class KeypointActor(nn.Module):
    """pi(s, g) as two keypoints: a strided convolution to half the map's resolution, then
    convolutions dilated 1, 2, 4 and 8 (a receptive field of the whole map) give a heatmap for the
    stroke's start and one for its end; each end is the heatmap's soft-argmax, the
    softmax-weighted mean of the coordinates of its cells (Levine et al. 2016's spatial softmax),
    so the action lies in [-1, 1]^4 without a squashing function and "where" is read off the map
    rather than regressed through a dense layer."""

    def __init__(self, cells, channels):
        super().__init__()
        self.register_buffer("coords", coordinate_grid(cells))
        half = (cells + 1) // 2
        centres = nn.functional.avg_pool2d(coordinate_grid(cells)[None], 2, ceil_mode=True)[0]
        self.register_buffer("half_coords", centres.reshape(2, half * half))
        layers, c = [nn.Conv2d(5, channels, 3, stride=2, padding=1), nn.ReLU()], channels
        for d in (1, 2, 4, 8):
            layers += [nn.Conv2d(c, c, 3, padding=d, dilation=d), nn.ReLU()]
        self.net = nn.Sequential(*layers, nn.Conv2d(c, 2, 1))

    def forward(self, sand, goal):
        logits = self.net(map_channels(sand, goal, self.coords))  # (B, 2, H/2, W/2)
        weights = torch.softmax(logits.flatten(2), dim=-1)         # (B, 2, H * W / 4)
        xy = weights @ self.half_coords.T                          # (B, 2 ends, 2 coords)
        return xy.reshape(-1, 4)


class Actor(nn.Module):
    """pi(s, g) regressed by a dense head on the map encoder, squashed by tanh (the plain DDPG
    actor, config.actor = "dense")."""

    def __init__(self, cells, channels, hidden):
        super().__init__()
        self.register_buffer("coords", coordinate_grid(cells))
        self.encoder = MapEncoder(5, cells, channels)
        self.head = nn.Sequential(nn.Linear(self.encoder.out_features, hidden), nn.ReLU(),
                                  nn.Linear(hidden, 4), nn.Tanh())

    def forward(self, sand, goal):
        return self.head(self.encoder(map_channels(sand, goal, self.coords)))


def make_actor(config, cells):
    if config.actor == "keypoints":
        return KeypointActor(cells, config.actor_channels)
    if config.actor == "dense":
        return Actor(cells, config.channels, config.hidden)
    raise ValueError(f"actor: expected 'keypoints' or 'dense', got {config.actor!r}")


class Critic(nn.Module):
    def __init__(self, cells, channels, hidden, sigma):
        super().__init__()
        self.register_buffer("coords", coordinate_grid(cells))
        self.sigma = sigma
        self.encoder = MapEncoder(8, cells, channels)
        self.head = nn.Sequential(nn.Linear(self.encoder.out_features + 4, hidden), nn.ReLU(),
                                  nn.Linear(hidden, 1))

    def forward(self, sand, goal, action):
        return self.value(self.inputs(sand, goal, action), action)

    def inputs(self, sand, goal, action):
        """The encoder's input images: the maps and the rasterised strokes. They depend on the
        bed's size and the line's width only, not on the weights, so critics that share those
        can share these (Agent.q)."""
        return torch.cat([map_channels(sand, goal, self.coords),
                          stroke_channels(action, self.coords, self.sigma)], dim=1)

    def value(self, inputs, action):
        """Q from the input images (inputs()) and the strokes."""
        return self.head(torch.cat([self.encoder(inputs), action], dim=1)).squeeze(1)


def new_critic(config, cells):
    """A critic with `config`'s sizes for a bed of `cells` (untrained weights)."""
    sigma = config.line_sigma_cells * 2.0 / (cells - 1)  # cells to action units
    return Critic(cells, config.channels, config.hidden, sigma)


def critic_values(critics, s, g, a):
    """Each critic's Q of strokes a in states (s, g). Critics of the same bed and line width
    share one rasterisation of their inputs (Critic.inputs, a third of a critic's call on 1,024
    strokes): the same values as calling each critic, computed once for an ensemble's eight."""
    shared = {}
    values = []
    for critic in critics:
        if not isinstance(critic, Critic):
            values.append(critic(s, g, a))
            continue
        key = (critic.sigma, tuple(critic.coords.shape))
        if key not in shared:
            shared[key] = critic.inputs(s, g, a)
        values.append(critic.value(shared[key], a))
    return values


class EpisodeReplay:
    """Whole episodes (the reliefs the sand went through, the actions, the goal) in preallocated
    arrays, sampled as transitions with HER's "future" relabelling."""

    def __init__(self, episodes, max_length, cells, rng):
        self.sand = np.zeros((episodes, max_length + 1, cells, cells), np.float32)
        self.goal = np.zeros((episodes, cells, cells), np.float32)
        self.action = np.zeros((episodes, max_length, 4), np.float32)
        self.length = np.zeros(episodes, np.int64)
        self.capacity, self.count, self.head, self.rng = episodes, 0, 0, rng

    def add(self, sand, actions, goal):
        """sand: (T + 1, cells, cells) reliefs, actions (T, 4), goal (cells, cells)."""
        k, t = self.head, len(actions)
        self.sand[k, :t + 1], self.action[k, :t], self.goal[k] = sand, actions, goal
        self.length[k] = t
        self.head = (self.head + 1) % self.capacity
        self.count = min(self.count + 1, self.capacity)

    def sample(self, batch, her_k):
        """(sand, action, next sand, goal) arrays of `batch` transitions, a fraction
        her_k / (her_k + 1) with the goal replaced by a later sand of the same episode."""
        ep = self.rng.integers(0, self.count, batch)
        length = self.length[ep]
        t = (self.rng.random(batch) * length).astype(np.int64)
        goal = self.goal[ep].copy()
        relabel = self.rng.random(batch) < her_k / (her_k + 1.0)
        future = t + 1 + (self.rng.random(batch) * (length - t)).astype(np.int64)
        goal[relabel] = self.sand[ep[relabel], future[relabel]]
        return self.sand[ep, t], self.action[ep, t], self.sand[ep, t + 1], goal


def reward_and_done(game, sand, next_sand, goal):
    """The environment's compute_reward and termination (`game`: its _StrokeGame) for
    transitions held as reliefs, converted back to heights."""
    bed = game.bed

    def heights(x):
        return np.asarray(x, np.float64) * bed.trench_depth_m + bed.sand_height_m

    achieved, desired = heights(next_sand), heights(goal)
    reward = game.compute_reward(achieved, desired, {"previous_achieved_goal": heights(sand)})
    return reward.astype(np.float32), game.is_success(achieved, desired).astype(np.float32)


class Agent:
    """The networks (actor, one or two critics, their target copies) and their optimisers."""

    def __init__(self, config, cells):
        if config.critics not in (1, 2):
            raise ValueError(f"DdpgHerConfig.critics: expected 1 or 2, got {config.critics}")
        self.config = config
        # Made in this order (actor, critic, their targets, then the twin's) so that one critic
        # draws the same initial weights from a seed as before twin critics existed.
        self.actor = make_actor(config, cells)
        self.critics = [self._new_critic(cells)]
        self.actor_target = make_actor(config, cells)
        self.critic_targets = [self._new_critic(cells)]
        for _ in range(1, config.critics):
            self.critics.append(self._new_critic(cells))
            self.critic_targets.append(self._new_critic(cells))
        self.actor_target.load_state_dict(self.actor.state_dict())
        for critic, target in zip(self.critics, self.critic_targets):
            target.load_state_dict(critic.state_dict())
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=config.actor_lr)
        self.critic_opts = [torch.optim.Adam(c.parameters(), lr=config.critic_lr)
                            for c in self.critics]
        # How q() combines the critics: "min" (clipped double Q: training, and one checkpoint
        # acting alone) or "mean" (an ensemble of checkpoints acting together, load_policy).
        self.q_reduction = "min"

    def _new_critic(self, cells):
        return new_critic(self.config, cells)

    @property
    def critic(self):
        """The first critic: the one the actor's gradient follows."""
        return self.critics[0]

    @critic.setter
    def critic(self, network):
        self.critics[0] = network

    def q(self, s, g, a):
        """Q of strokes a in states (s, g) over the critics (one critic: its Q): the smallest
        (q_reduction "min": with twin critics a stroke scores high only where both agree) or the
        mean ("mean": an ensemble's critics average out each other's spurious peaks)."""
        qs = torch.stack(critic_values(self.critics, s, g, a))
        return qs.mean(0) if self.q_reduction == "mean" else qs.min(0).values

    def act(self, sand, goal, generator=None, with_q=False):
        """The policy's strokes for a batch of reliefs: the actor's, or with config.candidates
        > 0 the best under the critic of the actor's stroke, candidates/8 perturbations of it
        (standard deviation candidate_noise) and the rest uniform in [-1, 1]^4 (drawn from
        `generator`, a torch.Generator: deterministic for a seeded one), refined around the
        winner. With `with_q`, also the critic's Q of each chosen stroke."""
        c = self.config
        with torch.no_grad():
            s, g = torch.from_numpy(sand), torch.from_numpy(goal)
            best = self.actor(s, g)
            if c.candidates > 0:
                best = self._search(s, g, best, generator)
            if not with_q:
                return best.numpy()
            return best.numpy(), self.q(s, g, best).numpy()

    def _search(self, s, g, mu, generator):
        c = self.config
        b, k = mu.shape[0], c.candidates
        near = max(1, k // 8)
        noise = torch.randn((b, near - 1, 4), generator=generator) * c.candidate_noise
        uniform = torch.rand((b, k - near, 4), generator=generator) * 2.0 - 1.0
        cand = torch.cat([mu[:, None], (mu[:, None] + noise).clamp(-1, 1), uniform], dim=1)
        best = self._best(s, g, cand)
        if c.cem_iterations > 0:
            best = self._cross_entropy(s, g, best, generator)
            return self._slide_ends(s, g, best) if c.end_slide_cells > 0 else best
        if c.refine_candidates <= 1:
            return best
        # A second, finer search around the first's winner (the ends of a correct stroke must
        # lie within a cell, 0.065 action units, of the goal's).
        k = c.refine_candidates
        fine = (best[:, None] + torch.randn((b, k - 1, 4), generator=generator)
                * c.refine_noise).clamp(-1, 1)
        return self._best(s, g, torch.cat([best[:, None], fine], dim=1))

    def _cross_entropy(self, s, g, start, generator):
        """The cross-entropy method (Rubinstein 1999; QT-Opt, Kalashnikov et al. 2018, maximises
        its critic this way) started at `start`: each iteration draws cem_samples strokes from a
        normal distribution per coordinate, keeps the cem_elites with the highest Q (the
        distribution's mean among them) and refits mean and spread to them. The result is the
        last elites' mean: the argmax of one draw picks the critic's noise as often as its mode,
        where a mean over the best strokes averages that noise out."""
        c = self.config
        b = start.shape[0]
        mean, spread = start, torch.full_like(start, c.cem_noise)
        rows = torch.arange(b)[:, None]
        for _ in range(c.cem_iterations):
            draws = mean[:, None] + spread[:, None] * torch.randn(
                (b, c.cem_samples, 4), generator=generator)
            strokes = torch.cat([mean[:, None], draws.clamp(-1, 1)], dim=1)
            elites = strokes[rows, self._q(s, g, strokes).topk(c.cem_elites, dim=1).indices]
            mean, spread = elites.mean(1), elites.std(1).clamp_min(0.003)
        return mean

    def _slide_ends(self, s, g, strokes):
        """Each stroke with its start and its end moved along the stroke's own line, each by
        every multiple of end_slide_step_cells up to end_slide_cells either way (a grid of both
        offsets; clamped to the bed), the one with the highest Q. The random search and the CEM
        perturb all four coordinates alike and place a stroke across a goal trench to a fraction
        of a cell, its ends along it less well (docs/envs.md): this search is along that one
        direction per end."""
        c = self.config
        cells = s.shape[-1]
        n = int(round(c.end_slide_cells / c.end_slide_step_cells))
        offsets = (torch.arange(-n, n + 1, dtype=strokes.dtype) * c.end_slide_step_cells
                   * 2.0 / (cells - 1))  # cells to action units
        back, ahead = (o.reshape(-1) for o in torch.meshgrid(offsets, offsets, indexing="ij"))
        start, end = strokes[:, :2], strokes[:, 2:]
        along = end - start
        along = along / along.norm(dim=1, keepdim=True).clamp_min(1e-6)
        cand = torch.cat([start[:, None] - back[None, :, None] * along[:, None],
                          end[:, None] + ahead[None, :, None] * along[:, None]], dim=2)
        return self._best(s, g, cand.clamp(-1, 1))

    def _q(self, s, g, cand):
        """The critic's Q (b, k) of the candidates (b, k, 4) for each of the b states."""
        b, k = cand.shape[:2]
        return self.q(s[:, None].expand(-1, k, -1, -1).reshape(b * k, *s.shape[1:]),
                      g[:, None].expand(-1, k, -1, -1).reshape(b * k, *g.shape[1:]),
                      cand.reshape(b * k, 4)).reshape(b, k)

    def _best(self, s, g, cand):
        """The candidate (b, k, 4) with the highest Q for each of the b states."""
        return cand[torch.arange(cand.shape[0]), self._q(s, g, cand).argmax(1)]

    def update(self, sand, action, next_sand, goal, reward, done):
        """One gradient step of the critics and the actor; returns (critic loss, mean Q of pi).
        The target is r + gamma Q'(s2, pi'(s2)), with twin critics the smaller of the two
        target critics' Q; each critic regresses on it, the actor ascends the first critic."""
        c = self.config
        s, a, s2, g = (torch.from_numpy(x) for x in (sand, action, next_sand, goal))
        r, d = torch.from_numpy(reward), torch.from_numpy(done)
        with torch.no_grad():
            a2 = self.actor_target(s2, g)
            q2 = torch.stack([t(s2, g, a2) for t in self.critic_targets]).min(0).values
            y = r + c.gamma * (1.0 - d) * q2
        critic_loss = 0.0
        for critic, opt in zip(self.critics, self.critic_opts):
            loss = nn.functional.mse_loss(critic(s, g, a), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            critic_loss += float(loss) / len(self.critics)
        q = self.critic(s, g, self.actor(s, g))
        actor_loss = -q.mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        with torch.no_grad():
            pairs = [(self.actor, self.actor_target)] + list(zip(self.critics,
                                                                 self.critic_targets))
            for net, target in pairs:
                for p, tp in zip(net.parameters(), target.parameters()):
                    tp.mul_(c.polyak).add_((1.0 - c.polyak) * p)
        return critic_loss, float(q.mean())


def train(config: DdpgHerConfig, out_dir, progress=None):
    """Trains DDPG + HER for config.total_episodes episodes and writes into `out_dir` (created if
    missing): checkpoint.pt, log.csv (one row per episode), learning_curve.png and
    learning_curve_wall.png, training.json. `progress(episodes, total, wall_s)` is called after
    each vector step that finished an episode. Returns a dict of what was measured."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    keep_freed_memory()
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    rng = np.random.default_rng(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    env = E.make_vec(config.env_id, config.num_envs, threads=config.threads, goals=config.goals)
    bed, game = env.bed, env._game
    cells, n = bed.cells, config.num_envs
    max_length = game.max_episode_strokes
    agent = Agent(config, cells)
    memory = EpisodeReplay(config.replay_episodes, max_length, cells, rng)
    log = EpisodeLog(out / "log.csv")

    obs, _ = env.reset(seed=config.seed)
    trajectories = [[relief(obs["achieved_goal"][i], bed)] for i in range(n)]
    actions_taken = [[] for _ in range(n)]
    ep_return = np.zeros(n)
    ended = np.zeros(n, bool)
    episodes, env_steps, updates, losses, q_values = 0, 0, 0, [], []
    start = time.perf_counter()
    while episodes < config.total_episodes:
        sand = relief(obs["achieved_goal"], bed).astype(np.float32)
        goal = relief(obs["desired_goal"], bed).astype(np.float32)
        action = agent.act(sand, goal, generator)
        action = np.clip(action + config.noise_std * rng.standard_normal(action.shape), -1, 1)
        random = rng.random(n) < config.random_eps
        action[random] = rng.uniform(-1, 1, (int(random.sum()), 4))
        obs, reward, terminated, truncated, info = env.step(action.astype(np.float64))
        for i in range(n):
            if ended[i]:  # an autoreset step: the new episode's first sand
                trajectories[i] = [relief(obs["achieved_goal"][i], bed)]
                actions_taken[i] = []
                continue
            trajectories[i].append(relief(obs["achieved_goal"][i], bed))
            actions_taken[i].append(action[i])
            ep_return[i] += reward[i]
            env_steps += 1
        ended = terminated | truncated
        before = episodes
        for i in np.flatnonzero(ended):
            memory.add(np.stack(trajectories[i]), np.stack(actions_taken[i]),
                       relief(obs["desired_goal"][i], bed))
            log.add(env_steps=env_steps, wall_s=round(time.perf_counter() - start, 3),
                    goal=game.goal_name(i, int(info["letter_index"][i])),
                    **{"return": round(float(ep_return[i]), 4)},
                    length=int(info["strokes"][i]), success=int(bool(info["is_success"][i])),
                    epsilon=config.random_eps, loss=round(losses[-1], 6) if losses else "")
            ep_return[i] = 0.0
            episodes += 1
        if memory.count >= config.learning_starts:
            for _ in range(config.updates_per_step):
                s, a, s2, g = memory.sample(config.batch_size, config.her_k)
                r, d = reward_and_done(game, s, s2, g)
                loss, q = agent.update(s, a, s2, g, r, d)
                losses.append(loss)
                q_values.append(q)
                updates += 1
        every = config.checkpoint_every
        if every > 0 and episodes // every > before // every and episodes < config.total_episodes:
            save_checkpoint(out / f"checkpoint_{episodes // every * every}.pt", agent, config,
                            cells)
        if progress and ended.any():
            progress(episodes, config.total_episodes, time.perf_counter() - start)
    wall = time.perf_counter() - start
    log.close()
    env.close()
    save_checkpoint(out / "checkpoint.pt", agent, config, cells)
    log.write_curve(out / "learning_curve.png", f"DDPG + HER on {config.env_id}")
    window = max(1, min(200, len(losses) // 4))  # updates averaged at the start and the end
    result = {"episodes": episodes, "env_steps": env_steps, "updates": updates, "wall_s": wall,
              "loss_window": window,
              "critic_loss_first": float(np.mean(losses[:window])) if losses else None,
              "critic_loss_last": float(np.mean(losses[-window:])) if losses else None,
              "q_last": float(np.mean(q_values[-window:])) if q_values else None}
    (out / "training.json").write_text(json.dumps(
        {"config": dataclasses.asdict(config), "result": result}, indent=2))
    return result


def save_checkpoint(path, agent, config, cells):
    """The actor, the critics ("critic", and "critic2" with twin critics), config and grid."""
    data = {"actor": agent.actor.state_dict(), "config": dataclasses.asdict(config),
            "cells": cells}
    for k, critic in enumerate(agent.critics):
        data["critic" if k == 0 else f"critic{k + 1}"] = critic.state_dict()
    torch.save(data, path)


# The search the evaluation acts with (docs/envs.md): four times the training's uniform
# candidates, refined by the cross-entropy method, then each end slid along the stroke by up to
# two cells (Agent._slide_ends); the policy stops when its best stroke's Q is below zero (see
# load_policy).
EVALUATION_SEARCH = {"candidates": 1024, "cem_iterations": 3, "cem_samples": 128,
                     "cem_elites": 16, "cem_noise": 0.05, "end_slide_cells": 2.0,
                     "end_slide_step_cells": 0.25}
EVALUATION_STOP_BELOW_Q = 0.0


def saved_config(checkpoint):
    """A checkpoint's DdpgHerConfig (one saved before twin critics existed had one critic)."""
    return DdpgHerConfig(**{"critics": 1, **checkpoint["config"]})


def run_checkpoints(out_dir):
    """The checkpoints one training run wrote into `out_dir` (train()), in the order an ensemble
    loads them: checkpoint.pt (the end of the run) first, then checkpoint_<episodes>.pt from the
    latest to the earliest."""
    out = pathlib.Path(out_dir)
    last = out / "checkpoint.pt"
    if not last.is_file():
        raise FileNotFoundError(f"{last}: no such checkpoint (not a training run's folder?)")
    earlier = {int(p.stem[len("checkpoint_"):]): p for p in out.glob("checkpoint_*.pt")
               if p.stem[len("checkpoint_"):].isdigit()}
    return [last] + [earlier[episodes] for episodes in sorted(earlier, reverse=True)]


def load_policy(path, bed, seed=0, stop_below_q=None, **search):
    """The policy of a checkpoint as a function of one observation dict (or a batch of them) to
    the stroke action(s) in [-1, 1]^4, choosing as in training without the exploration noise
    (Agent.act; the candidates drawn from a generator seeded with `seed`, so a sequence of calls
    is reproducible); `bed` is the environment's (env.bed). `search` overrides the checkpoint's
    search settings (DdpgHerConfig's candidates, refine_*, cem_*).

    `path` is a checkpoint, or a sequence of checkpoints acting as one ensemble (e.g.
    run_checkpoints(out_dir): the snapshots of one training run): the first one's actor is the
    search's centre and its configuration the search's, and every stroke is scored by the mean Q
    over all their critics (Agent.q_reduction "mean"; one checkpoint alone keeps the smallest Q
    of its critics, as in its training). docs/envs.md measures what the snapshots add.

    With `stop_below_q` a number, the agent may end its episode: when the critic's Q of the
    stroke it chose is below that number the policy returns None (for a batch: that row NaN).
    Q is the discounted return the critic expects from the stroke on, and stopping returns 0 from
    then on, so with stop_below_q = 0 the agent stops when it expects no stroke to gain more than
    it costs (the environment's step cost)."""
    keep_freed_memory()
    paths = [path] if isinstance(path, (str, pathlib.Path)) else list(path)
    if not paths:
        raise ValueError("load_policy: expected a checkpoint or a non-empty list of them")
    checkpoints = [torch.load(p, map_location="cpu") for p in paths]
    data = checkpoints[0]
    unknown = set(search) - {f.name for f in dataclasses.fields(DdpgHerConfig)}
    if unknown:
        raise ValueError(f"load_policy: unknown search settings {sorted(unknown)}")
    config = dataclasses.replace(saved_config(data), **search)
    agent = Agent(config, data["cells"])
    agent.actor.load_state_dict(data["actor"])
    agent.actor.eval()
    agent.critics = []
    for p, saved in zip(paths, checkpoints):
        if saved["cells"] != data["cells"]:
            raise ValueError(f"load_policy: {p} is for a {saved['cells']}-cell bed, "
                             f"{paths[0]} for {data['cells']} cells")
        own = saved_config(saved)
        for k in range(own.critics):
            critic = new_critic(own, saved["cells"])
            critic.load_state_dict(saved["critic" if k == 0 else f"critic{k + 1}"])
            critic.eval()
            agent.critics.append(critic)
    if len(paths) > 1:
        agent.q_reduction = "mean"
    generator = torch.Generator().manual_seed(seed)

    def policy(obs):
        sand = relief(np.asarray(obs["achieved_goal"], np.float32), bed).astype(np.float32)
        goal = relief(np.asarray(obs["desired_goal"], np.float32), bed).astype(np.float32)
        single = sand.ndim == 2
        a, q = agent.act(sand[None] if single else sand, goal[None] if single else goal,
                         generator, with_q=True)
        if stop_below_q is not None:
            a[q < stop_below_q] = np.nan
        if single:
            return None if np.isnan(a[0, 0]) else a[0]
        return a

    policy.config = config
    policy.agent = agent
    return policy
