"""Vector environments: N instances stepped in one C++ call (talus.envs.make_vec), with Gymnasium
1.x's VectorEnv interface and its default autoreset mode, next-step: an instance whose episode
ends at one step is reset at its next step (its action there is ignored; it reports reward 0, not
terminated, not truncated, and the first observation of the new episode)."""

from __future__ import annotations

import numpy as np

from ._batch_env import BatchVectorEnvMixin, checked_threads
from ._checks import is_int
from .shaping_strokes import _StrokeGame, _checked_action
from .shaping_trench import _TrenchGame
from .spaces import Box, Dict, Discrete, MultiDiscrete
from ._spaces import _generator, checked_episode_seed


class _BatchVectorEnv:
    """What the vector environments share: the instance and thread counts, np_random, the seeds
    of a reset (an int s gives instance i the seed s + i, as Gymnasium's vector environments
    do), close and unwrapped."""

    metadata = {"autoreset_mode": "NextStep", "render_modes": []}
    render_mode = None  # a vector environment draws no frames (render() returns None)
    spec = None  # make_vec sets the id and options
    closed = False

    def __init__(self, num_envs, threads):
        if not (is_int(num_envs) and num_envs >= 1):
            raise ValueError(f"num_envs: expected an int >= 1, got {num_envs!r}")
        self.num_envs, self.threads = int(num_envs), checked_threads(threads)
        self._np_random = None
        self._started = False

    @property
    def np_random(self):
        if self._np_random is None:
            self._np_random, _ = _generator(None)
        return self._np_random

    def _seeds(self, seed):
        """The per-instance seeds (uint64) of reset(seed=...)."""
        if seed is None:
            return self.np_random.integers(2**63, size=self.num_envs, dtype=np.uint64)
        if is_int(seed):
            first = checked_episode_seed(seed, count=self.num_envs)
            self._np_random, _ = _generator(first)
            return np.array([first + i for i in range(self.num_envs)], dtype=np.uint64)
        try:
            listed = list(seed)
        except TypeError:
            listed = None
        if listed is None or len(listed) != self.num_envs:
            raise ValueError(f"seed: expected an int or {self.num_envs} ints, got {seed!r}")
        return np.array([checked_episode_seed(s, f"seed[{i}]") for i, s in enumerate(listed)],
                        dtype=np.uint64)

    def close(self):
        self.closed = True

    def render(self):
        return None

    @property
    def unwrapped(self):
        return self


class ShapingTrenchVectorEnv(_BatchVectorEnv):
    """`num_envs` ShapingTrench-v0 environments (same options as the single one, render aside).
    reset(seed=s) seeds instance i with s + i, as Gymnasium's vector environments do, so instance
    i replays ShapingTrench-v0 reset with seed s + i, bit for bit."""

    def __init__(self, num_envs, threads=None, goals="letters", step_cost=0.05,
                 max_episode_steps=100, random_goal_cells=(4, 20), backend="binary", bed=None):
        super().__init__(num_envs, threads)
        self._game = _TrenchGame(goals, step_cost, max_episode_steps, random_goal_cells,
                                 self.num_envs, backend, bed)
        rows, cols = self._game.rows, self._game.cols
        self.single_observation_space = Box(0.0, 1.0, (3, rows, cols), np.float32)
        self.single_action_space = Discrete(4)
        self.observation_space = Box(0.0, 1.0, (self.num_envs, 3, rows, cols), np.float32)
        self.action_space = MultiDiscrete(np.full(self.num_envs, 4))

    def reset(self, *, seed=None, options=None):
        """(observations (num_envs, 3, rows, cols), infos: dict of per-instance arrays). seed: an
        int s (instance i gets s + i), a list of num_envs ints, or None (the first reset draws the
        seeds from np_random; later ones continue each instance's episodes)."""
        if options:
            raise ValueError("options: the vector environment takes none (reset one instance "
                             "through a single ShapingTrench-v0 instead)")
        g = self._game
        if seed is None and self._started:
            for i in range(self.num_envs):
                g.batch.redraw(i, g.obs[i])
        else:
            g.batch.reset(self._seeds(seed), g.obs)
        g.custom = ["custom"] * self.num_envs
        self._started = True
        return g.obs.copy(), self._infos()

    def step(self, actions):
        """(observations, rewards, terminations, truncations, infos), arrays of num_envs."""
        if not self._started:
            raise RuntimeError("ShapingTrench-v0 vector env: step() before reset()")
        a = np.asarray(actions)
        if (a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer)
                or np.any(a < 0) or np.any(a > 3)):
            raise ValueError(f"actions: expected {self.num_envs} ints in 0-3 (the action space "
                             f"{self.action_space}), got {actions!r}")
        g = self._game
        g.actions[:] = a
        g.step(self.threads)
        return (g.obs.copy(), g.rewards.copy(), g.terminated.copy(), g.truncated.copy(),
                self._infos())

    def _infos(self):
        infos = self._game.batch.info()
        infos["success"] = infos["l1_to_goal"] == 0
        return infos


class ShapingStrokesVectorEnv(_BatchVectorEnv):
    """`num_envs` ShapingStrokes-v0 environments (same options as the single one, render aside),
    stepped in one C++ call on `threads` threads. Observations are a dict of batches
    (num_envs, cells, cells); infos a dict of per-instance arrays, with
    `previous_achieved_goal` (num_envs, cells, cells) for compute_reward."""

    def __init__(self, num_envs, threads=None, **options):
        super().__init__(num_envs, threads)
        self._game = _StrokeGame(self.num_envs, **options)
        self.bed = self._game.bed
        self.single_observation_space = self._game.single_observation_space()
        self.single_action_space = Box(-1.0, 1.0, (4,), np.float32)
        c = self.bed.cells
        box = self.single_observation_space["observation"]
        batch = Box(float(box.low.min()), float(box.high.max()), (self.num_envs, c, c),
                    np.float32)
        self.observation_space = Dict({"observation": batch, "achieved_goal": batch,
                                       "desired_goal": batch})
        self.action_space = Box(-1.0, 1.0, (self.num_envs, 4), np.float32)
        self._previous = np.zeros_like(self._game.achieved)
        self._ended = np.zeros(self.num_envs, bool)

    def reset(self, *, seed=None, options=None):
        """(observations: dict of (num_envs, cells, cells), infos). seed as ShapingTrench-v0's
        vector environment takes it."""
        if options:
            raise ValueError("options: the vector environment takes none (reset one instance "
                             "through a single ShapingStrokes-v0 instead)")
        g = self._game
        if seed is None and self._started:
            for i in range(self.num_envs):
                g.batch.redraw(i, g.achieved[i], g.desired[i])
        else:
            g.batch.reset(self._seeds(seed), g.achieved, g.desired)
        g.names = [None] * self.num_envs
        self._previous[:] = g.achieved
        self._ended = np.zeros(self.num_envs, bool)
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions):
        """(observations, rewards, terminations, truncations, infos); actions (num_envs, 4)."""
        if not self._started:
            raise RuntimeError("ShapingStrokes-v0 vector env: step() before reset()")
        g = self._game
        g.actions[:] = _checked_action(actions, self.action_space, (self.num_envs, 4))
        # Instances that ended at the last step are reset by this one (next-step autoreset):
        # their previous map is the new episode's start, as a single env's reset() reports.
        restarting = self._ended.copy()
        self._previous[:] = g.achieved
        g.step(self.threads)
        self._previous[restarting] = g.achieved[restarting]
        self._ended = g.terminated | g.truncated
        return (self._observations(), g.rewards.copy(), g.terminated.copy(), g.truncated.copy(),
                self._infos())

    def compute_reward(self, achieved_goal, desired_goal, info):
        """ShapingStrokes-v0's compute_reward (the same for every instance)."""
        return self._game.compute_reward(achieved_goal, desired_goal, info)

    def goal_strokes(self, i):
        """Instance i's goal strokes, rows (x0, y0, x1, y1) in bed cells."""
        return self._game.batch.goal_of(i).strokes

    def _observations(self):
        g = self._game
        return {"observation": g.achieved.copy(), "achieved_goal": g.achieved.copy(),
                "desired_goal": g.desired.copy()}

    def _infos(self):
        g = self._game
        infos = g.batch.info()
        infos["is_success"] = infos["l1_fraction"] <= g.success_fraction
        infos["previous_achieved_goal"] = self._previous.copy()
        return infos


class BulldozingVectorEnv(BatchVectorEnvMixin, _BatchVectorEnv):
    """`num_envs` Bulldozing-v0 environments (same options as the single one, render aside),
    stepped in one C++ call: with at least as many instances as threads, one thread per instance;
    otherwise instance after instance with every thread on the particle step (the same bits).
    Observations are a dict of batches: ego (num_envs, 36, 36), sky (num_envs, 36, 72), pose
    (num_envs, 3)."""

    env_id = "Bulldozing-v0"
    action_meaning = "forward, yaw rate per instance"

    def __init__(self, num_envs, threads=None, **options):
        super().__init__(num_envs, threads)
        from .bulldozing import _BulldozingGame, observation_space
        self._game = _BulldozingGame(self.num_envs, **options)
        self.world = self._game.world
        self.single_observation_space = observation_space(self.world)
        self.single_action_space = Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = observation_space(self.world, self.num_envs)
        self.action_space = Box(-1.0, 1.0, (self.num_envs, 2), np.float32)


class ExcavationVectorEnv(BatchVectorEnvMixin, _BatchVectorEnv):
    """`num_envs` Excavation-v0 environments (same options as the single one, render aside),
    stepped in one C++ call: with at least as many instances as threads, one thread per instance;
    otherwise instance after instance with every thread on the particle step (the same bits).
    Observations are a dict of batches: joint_pos, joint_vel (num_envs, 7), tool_pose
    (num_envs, 7), tool_wrench (num_envs, 6), sky (num_envs, 32, 32)."""

    env_id = "Excavation-v0"
    action_meaning = "joint velocities per instance"

    def __init__(self, num_envs, threads=None, **options):
        super().__init__(num_envs, threads)
        from .excavation import _ExcavationGame, observation_space
        self._game = _ExcavationGame(self.num_envs, **options)
        self.world = self._game.world
        self.single_observation_space = observation_space(self.world)
        self.single_action_space = Box(-1.0, 1.0, (7,), np.float32)
        self.observation_space = observation_space(self.world, self.num_envs)
        self.action_space = Box(-1.0, 1.0, (self.num_envs, 7), np.float32)


class RoverSlopeVectorEnv(BatchVectorEnvMixin, _BatchVectorEnv):
    """`num_envs` RoverSlope-v0 environments (same options as the single one) stepped in one C++
    call, one thread per instance. Observations are (num_envs, 24) float32."""

    env_id = "RoverSlope-v0"
    action_meaning = "wheel speeds per instance"

    def __init__(self, num_envs, threads=None, **options):
        super().__init__(num_envs, threads)
        from .rover_slope import _RoverGame, observation_space
        self._game = _RoverGame(self.num_envs, **options)
        self.single_observation_space = observation_space()
        self.single_action_space = Box(-1.0, 1.0, (4,), np.float32)
        self.observation_space = observation_space(self.num_envs)
        self.action_space = Box(-1.0, 1.0, (self.num_envs, 4), np.float32)


class QuadrupedGranularVectorEnv(BatchVectorEnvMixin, _BatchVectorEnv):
    """`num_envs` QuadrupedGranular-v0 environments (same options as the single one) stepped in
    one C++ call, instances split evenly over the threads. Observations are (num_envs, 34)."""

    env_id = "QuadrupedGranular-v0"
    action_meaning = "joint position targets per instance"

    def __init__(self, num_envs, threads=None, **options):
        super().__init__(num_envs, threads)
        from .quadruped_granular import _QuadrupedGame
        self._game = _QuadrupedGame(self.num_envs, **options)
        j = self._game.joints
        self.single_observation_space = self._game.observation_space()
        self.single_action_space = Box(-1.0, 1.0, (j,), np.float32)
        self.observation_space = self._game.observation_space(self.num_envs)
        self.action_space = Box(-1.0, 1.0, (self.num_envs, j), np.float32)
