"""What the robot and particle environments share: a C++ batch of N instances (a "game": the
batch and the arrays it writes in place), seen as one Gymnasium environment (N = 1) or as a
vector environment (N instances, next-step autoreset). Bulldozing-v0, RoverSlope-v0 and
QuadrupedGranular-v0 differ only in their game, their spaces and the action's meaning."""

from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from .core import Env
from ._checks import is_int
from .shaping_strokes import _checked_action


def checked_threads(threads):
    """`threads` (an int >= 1), or for None the cores this process may use (at most 64);
    ValueError otherwise."""
    if threads is None:
        threads = min(len(os.sched_getaffinity(0)), 64)
    if not (is_int(threads) and threads >= 1):
        raise ValueError(f"threads: expected an int >= 1 or None, got {threads!r}")
    return int(threads)


class WorldLoader:
    """Builds the C++ world of an environment from make's keyword options and caches the last
    four (a settled bed takes seconds; environments made with equal options share one). Refuses,
    with ValueError naming the option: unknown options, `counts` that are not ints >= 1,
    `vectors` (name -> length) that are not that many finite numbers, `files` (name -> (what the
    file is, whether it is needed for these options)) that do not exist, and values the options
    class does not take. `check(options)` adds the environment's own checks; a RuntimeError from
    the world (a file it cannot read) becomes a ValueError prefixed with the id."""

    def __init__(self, env_id, defaults, counts, vectors, files, options_class, world_class,
                 check=None):
        self.env_id, self.defaults, self.counts = env_id, defaults, counts
        self.vectors, self.files = vectors, files
        self.options_class, self.world_class, self.check = options_class, world_class, check
        self._worlds = OrderedDict()

    def __call__(self, **options):
        env = self.env_id
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            raise ValueError(f"{env}: unknown options {unknown}; known: "
                             f"{', '.join(sorted(self.defaults))}")
        o = dict(self.defaults, **options)
        for name in self.counts:
            if not is_int(o[name]):
                raise ValueError(f"{env}: {name}: expected an int, got {o[name]!r}")
            if o[name] < 1:
                raise ValueError(f"{env}: {name}: expected >= 1, got {o[name]!r}")
        key = tuple(sorted((k, str(v)) for k, v in o.items()))
        if key in self._worlds:
            self._worlds.move_to_end(key)
            return self._worlds[key]
        if self.check is not None:
            self.check(o)
        for name, (what, needed) in self.files.items():
            if needed(o) and not os.path.isfile(str(o[name])):
                raise ValueError(f"{env}: {name}: {o[name]} does not exist (expected {what})")
        opts = self.options_class()
        for name, value in o.items():
            if name in self.vectors:
                try:
                    value = np.asarray(value, dtype=np.float64)
                except (TypeError, ValueError):
                    value = np.full(0, np.nan)  # refused just below, naming the option
                if value.shape != (self.vectors[name],) or not np.all(np.isfinite(value)):
                    raise ValueError(f"{env}: {name}: expected {self.vectors[name]} finite "
                                     f"numbers, got {o[name]!r}")
            try:
                setattr(opts, name, value)
            except TypeError as e:
                raise ValueError(f"{env}: {name}: {value!r} has the wrong type ({e})") from None
        try:
            world = self.world_class(opts)
        except RuntimeError as e:  # a file that cannot be read, a mesh that is not closed
            raise ValueError(f"{env}: {e}") from None
        self._worlds[key] = world
        while len(self._worlds) > 4:
            self._worlds.popitem(last=False)
        return world


class BatchGame:
    """A C++ batch (`self.batch`, with reset(seeds, *arrays), redraw(i, *arrays),
    step(actions, *arrays, rewards, terminated, truncated, threads) and info()) and its arrays.
    Subclasses set `self.batch`, `self.actions` and `self.arrays` (the observation arrays in the
    batch's argument order) and define observation(i=None)."""

    def allocate(self, num_envs, action_size):
        self.actions = np.zeros((num_envs, action_size), np.float64)
        self.rewards = np.zeros(num_envs, np.float64)
        self.terminated = np.zeros(num_envs, bool)
        self.truncated = np.zeros(num_envs, bool)

    def reset(self, seeds):
        self.batch.reset(np.ascontiguousarray(seeds, dtype=np.uint64), *self.arrays)

    def redraw(self, i):
        self.batch.redraw(i, *self.arrays)

    def step(self, threads):
        self.batch.step(self.actions, *self.arrays, self.rewards, self.terminated,
                        self.truncated, threads)

    def info(self, i=None):
        """The batch's info arrays, or instance i's as a dict of scalars (stop_reason only when
        the simulation cut the episode short)."""
        infos = self.batch.info()
        if i is None:  # every key an array of num_envs, the stop reasons (str) too
            return {k: v if isinstance(v, np.ndarray) else np.asarray(v, dtype=str)
                    for k, v in infos.items()}
        info = {k: (v[i].item() if isinstance(v, np.ndarray) else v[i]) for k, v in infos.items()}
        if info.get("stop_reason") == "":
            del info["stop_reason"]
        return info


class BatchEnv(Env):
    """One environment on a BatchGame of one instance. Subclasses set `self._game`,
    `self.action_space`, `self.observation_space`, `env_id`, `action_meaning` and `threads`."""

    env_id = "?"
    action_meaning = "the action"
    threads = 1

    def _configure(self, render_mode, threads):
        """Checks and sets render_mode (None or "rgb_array") and threads (checked_threads)."""
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.threads = checked_threads(threads)

    def _start(self):
        self._seeded = self._started = self._ended = False
        # Frames play at simulated speed: one per env step, whose length the options set (the
        # class's render_fps is that of the default options).
        self.metadata = dict(type(self).metadata, render_fps=1.0 / self._game.step_s)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"options: {self.env_id} takes no reset options, got {options!r}")
        g = self._game
        if seed is not None or not self._seeded:
            # The episodes' own generator (C++, shared with make_vec): the reset's seed, or a
            # draw of np_random the first time without one.
            first = int(seed) if seed is not None else int(self.np_random.integers(2**63))
            g.reset([first])
            self._seeded = True
        else:
            g.redraw(0)
        self._started, self._ended = True, False
        return g.observation(0), g.info(0)

    def step(self, action):
        if not self._started:
            raise RuntimeError(f"{self.env_id}: step() before reset(); call reset() first")
        if self._ended:
            raise RuntimeError(f"{self.env_id}: step() after the episode ended (terminated or "
                               "truncated); call reset() first")
        g = self._game
        g.actions[0] = _checked_action(action, self.action_space, self.action_space.shape,
                                       self.action_meaning)
        g.step(self.threads)
        terminated, truncated = bool(g.terminated[0]), bool(g.truncated[0])
        self._ended = terminated or truncated
        return g.observation(0), float(g.rewards[0]), terminated, truncated, g.info(0)


class BatchVectorEnvMixin:
    """reset and step of a vector environment on a BatchGame of num_envs instances (with
    _BatchVectorEnv's seeds, np_random and flags)."""

    env_id = "?"
    action_meaning = "the actions"

    def reset(self, *, seed=None, options=None):
        """(observations, infos). seed as ShapingTrench-v0's vector environment takes it."""
        if options:
            raise ValueError(f"options: {self.env_id} takes no reset options")
        g = self._game
        if seed is None and self._started:
            for i in range(self.num_envs):
                g.redraw(i)
        else:
            g.reset(self._seeds(seed))
        self._started = True
        return g.observation(), g.info()

    def step(self, actions):
        """(observations, rewards, terminations, truncations, infos)."""
        if not self._started:
            raise RuntimeError(f"{self.env_id} vector env: step() before reset()")
        g = self._game
        g.actions[:] = _checked_action(actions, self.action_space, self.action_space.shape,
                                       self.action_meaning)
        g.step(self.threads)
        return (g.observation(), g.rewards.copy(), g.terminated.copy(), g.truncated.copy(),
                g.info())
