"""Vector environments: N instances stepped in one C++ call (talus.envs.make_vec), with Gymnasium
1.x's VectorEnv interface and its default autoreset mode, next-step: an instance whose episode
ends at one step is reset at its next step (its action there is ignored; it reports reward 0, not
terminated, not truncated, and the first observation of the new episode)."""

from __future__ import annotations

import os

import numpy as np

from .shaping_trench import _TrenchGame
from .spaces import Box, Discrete, MultiDiscrete
from ._spaces import _generator


class ShapingTrenchVectorEnv:
    """`num_envs` ShapingTrench-v0 environments (same options as the single one, render aside).
    reset(seed=s) seeds instance i with s + i, as Gymnasium's vector environments do, so instance
    i replays ShapingTrench-v0 reset with seed s + i, bit for bit."""

    metadata = {"autoreset_mode": "NextStep", "render_modes": []}

    def __init__(self, num_envs, threads=None, goals="letters", step_cost=0.05,
                 max_episode_steps=100, random_goal_cells=(4, 20)):
        if not (isinstance(num_envs, (int, np.integer)) and num_envs >= 1):
            raise ValueError(f"num_envs: expected an int >= 1, got {num_envs!r}")
        if threads is None:
            threads = min(len(os.sched_getaffinity(0)), 64)
        if not (isinstance(threads, (int, np.integer)) and threads >= 1):
            raise ValueError(f"threads: expected an int >= 1 or None, got {threads!r}")
        self.num_envs, self.threads = int(num_envs), int(threads)
        self._game = _TrenchGame(goals, step_cost, max_episode_steps, random_goal_cells,
                                 self.num_envs)
        rows, cols = self._game.rows, self._game.cols
        self.single_observation_space = Box(0.0, 1.0, (3, rows, cols), np.float32)
        self.single_action_space = Discrete(4)
        self.observation_space = Box(0.0, 1.0, (self.num_envs, 3, rows, cols), np.float32)
        self.action_space = MultiDiscrete(np.full(self.num_envs, 4))
        self._np_random = None
        self._started = False

    @property
    def np_random(self):
        if self._np_random is None:
            self._np_random, _ = _generator(None)
        return self._np_random

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
            if seed is None:
                seeds = self.np_random.integers(2**63, size=self.num_envs, dtype=np.uint64)
            elif isinstance(seed, (int, np.integer)):
                self._np_random, _ = _generator(int(seed))
                seeds = int(seed) + np.arange(self.num_envs, dtype=np.uint64)
            else:
                seeds = np.asarray(seed, dtype=np.uint64)
                if seeds.shape != (self.num_envs,):
                    raise ValueError(f"seed: expected an int or {self.num_envs} ints, got "
                                     f"{seed!r}")
            g.batch.reset(np.ascontiguousarray(seeds, dtype=np.uint64), g.obs)
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

    def close(self):
        pass

    @property
    def unwrapped(self):
        return self
