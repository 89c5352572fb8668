"""talus's own environment base class, with Gymnasium 1.x's `Env` interface (used when no
`gymnasium` module is importable; talus.envs.core chooses)."""

from __future__ import annotations

from ._spaces import _generator, checked_episode_seed


class TalusEnv:
    """A Markov decision process with Gymnasium's interface: `reset(seed=None, options=None)`
    returns (observation, info); `step(action)` returns (observation, reward, terminated,
    truncated, info)."""

    metadata = {"render_modes": []}
    render_mode = None
    spec = None
    action_space = None
    observation_space = None
    _np_random = None
    _np_random_seed = None

    def step(self, action):
        raise NotImplementedError

    def reset(self, *, seed=None, options=None):
        """Reseeds the environment's generator when `seed` is given (subclasses call this first,
        as Gymnasium's do)."""
        if seed is not None:
            self._np_random, self._np_random_seed = _generator(checked_episode_seed(seed))

    def render(self):
        raise NotImplementedError

    def close(self):
        pass

    @property
    def np_random(self):
        """The environment's numpy Generator (seeded from fresh entropy on first use)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = _generator(None)
        return self._np_random

    @np_random.setter
    def np_random(self, value):
        self._np_random = value
        self._np_random_seed = -1

    @property
    def np_random_seed(self):
        if self._np_random is None:
            self._np_random, self._np_random_seed = _generator(None)
        return self._np_random_seed

    @property
    def unwrapped(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()
        return False

    def __str__(self):
        return f"<{type(self).__name__}<{self.spec.id if self.spec else ''}>>"
