"""talus's own observation and action spaces, with Gymnasium 1.x's interface (gymnasium.spaces.Box,
Discrete, Dict): `seed`, `sample`, `contains` (and `in`), `shape`, `dtype`, `np_random`.

Gymnasium itself is not installable on talus's build machines; talus.envs.spaces names these, or
gymnasium.spaces' classes when a `gymnasium` module is importable.
"""

from __future__ import annotations

import numpy as np

from ._checks import is_int


def _generator(seed):
    """A numpy Generator seeded as gymnasium.utils.seeding.np_random seeds one (PCG64 over a
    SeedSequence of `seed`; fresh entropy for None)."""
    if seed is not None and not (isinstance(seed, (int, np.integer)) and seed >= 0):
        raise ValueError(f"seed: expected None or an int >= 0, got {seed!r}")
    seq = np.random.SeedSequence(None if seed is None else int(seed))
    return np.random.Generator(np.random.PCG64(seq)), int(seq.entropy)


def checked_episode_seed(seed, what="seed", count=1):
    """`seed` as the episodes' generator takes it (an int, not a bool, with seed + count - 1 in
    [0, 2**64 - 1]: the C++ episodes draw from a 64-bit seed); ValueError naming `what`."""
    if not (is_int(seed) and 0 <= seed and seed + count - 1 <= 2**64 - 1):
        span = "" if count == 1 else f" (with {count} instances: seed + {count - 1} too)"
        raise ValueError(f"{what}: expected an int in [0, 2**64 - 1]{span}, got {seed!r}")
    return int(seed)


class Space:
    """A set of values, with a random generator for sampling it."""

    def __init__(self, shape=None, dtype=None, seed=None):
        self._shape = None if shape is None else tuple(int(n) for n in shape)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self._np_random = None
        if seed is not None:
            self.seed(seed)

    @property
    def shape(self):
        return self._shape

    @property
    def np_random(self):
        if self._np_random is None:
            self.seed()
        return self._np_random

    def seed(self, seed=None):
        """Seeds the space's generator; returns [the seed used]."""
        self._np_random, used = _generator(seed)
        return [used]

    def sample(self, mask=None):
        raise NotImplementedError

    def contains(self, x):
        raise NotImplementedError

    def __contains__(self, x):
        return self.contains(x)


class Box(Space):
    """A box of R^shape: low <= x <= high elementwise, of one dtype."""

    def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
        dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low) if np.ndim(low) else np.shape(high)
        shape = tuple(int(n) for n in shape)
        self.low = np.full(shape, low, dtype=dtype) if np.ndim(low) == 0 else np.asarray(low, dtype)
        self.high = (np.full(shape, high, dtype=dtype) if np.ndim(high) == 0
                     else np.asarray(high, dtype))
        if self.low.shape != shape or self.high.shape != shape:
            raise ValueError(f"Box: low {self.low.shape} and high {self.high.shape} must have shape "
                             f"{shape}")
        if np.any(self.low > self.high):
            raise ValueError("Box: low must not exceed high")
        super().__init__(shape, dtype, seed)

    def sample(self, mask=None):
        if mask is not None:
            raise ValueError("Box.sample: masks are not supported")
        if np.issubdtype(self.dtype, np.integer):
            return self.np_random.integers(self.low, self.high, endpoint=True,
                                           dtype=self.dtype)
        # As Gymnasium documents Box.sample: uniform where both bounds are finite, low plus an
        # exponential draw where only low is, high minus one where only high is, a standard
        # normal where neither is.
        low = self.low.astype(np.float64)
        high = self.high.astype(np.float64)
        below, above = np.isfinite(low), np.isfinite(high)
        if np.all(below & above):  # the common case: one uniform draw per element
            return self.np_random.uniform(low, high).astype(self.dtype)
        shape = self.shape
        uniform = self.np_random.uniform(np.where(below & above, low, 0.0),
                                         np.where(below & above, high, 1.0), shape)
        exponential = self.np_random.exponential(1.0, shape)
        normal = self.np_random.normal(0.0, 1.0, shape)
        x = np.where(below & above, uniform,
                     np.where(below, low + exponential,
                              np.where(above, high - exponential, normal)))
        return x.astype(self.dtype)

    def contains(self, x):
        if not isinstance(x, np.ndarray):
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (TypeError, ValueError):
                return False
        return bool(x.shape == self.shape and np.can_cast(x.dtype, self.dtype)
                    and np.all(x >= self.low) and np.all(x <= self.high))

    def is_bounded(self, manner="both"):
        """Whether every element is bounded below ("below"), above ("above") or both."""
        below, above = bool(np.all(np.isfinite(self.low))), bool(np.all(np.isfinite(self.high)))
        if manner not in ("both", "below", "above"):
            raise ValueError(f"manner: expected 'both', 'below' or 'above', got {manner!r}")
        return {"both": below and above, "below": below, "above": above}[manner]

    def __repr__(self):
        # A bound the same for every element as one number (as Gymnasium prints it), else whole.
        def bound(a):
            return a.flat[0] if a.size and np.all(a == a.flat[0]) else a

        return f"Box({bound(self.low)}, {bound(self.high)}, {self.shape}, {self.dtype})"

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape
                and self.dtype == other.dtype and np.array_equal(self.low, other.low)
                and np.array_equal(self.high, other.high))


class Discrete(Space):
    """The integers start, start + 1, ..., start + n - 1 (an int64 scalar)."""

    def __init__(self, n, seed=None, start=0):
        if int(n) < 1:
            raise ValueError(f"Discrete: n must be >= 1, got {n}")
        self.n = np.int64(n)
        self.start = np.int64(start)
        super().__init__((), np.int64, seed)

    def sample(self, mask=None):
        if mask is not None:
            allowed = np.flatnonzero(np.asarray(mask, dtype=np.int8))
            if allowed.size == 0:
                return self.start
            return np.int64(self.start + self.np_random.choice(allowed))
        return np.int64(self.start + self.np_random.integers(self.n))

    def contains(self, x):
        if isinstance(x, (bool, np.bool_)):
            return False
        if isinstance(x, (int, np.integer)):
            value = int(x)
        elif isinstance(x, np.ndarray) and x.shape == () and np.issubdtype(x.dtype, np.integer):
            value = int(x)
        else:
            return False
        return bool(self.start <= value < self.start + self.n)

    def __repr__(self):
        return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"

    def __eq__(self, other):
        return isinstance(other, Discrete) and self.n == other.n and self.start == other.start


class MultiDiscrete(Space):
    """Integer vectors: x[i] in start[i], ..., start[i] + nvec[i] - 1 (int64); the batched action
    space of a vector environment of Discrete actions."""

    def __init__(self, nvec, dtype=np.int64, seed=None, start=None):
        self.nvec = np.asarray(nvec, dtype=dtype)
        if self.nvec.ndim == 0 or np.any(self.nvec < 1):
            raise ValueError(f"MultiDiscrete: nvec must be an array of ints >= 1, got {nvec!r}")
        self.start = (np.zeros_like(self.nvec) if start is None
                      else np.asarray(start, dtype=dtype))
        super().__init__(self.nvec.shape, dtype, seed)

    def sample(self, mask=None):
        if mask is not None:
            raise ValueError("MultiDiscrete.sample: masks are not supported")
        return (self.start + self.np_random.integers(self.nvec)).astype(self.dtype)

    def contains(self, x):
        if isinstance(x, (list, tuple)):
            x = np.asarray(x)
        if not isinstance(x, np.ndarray) or x.shape != self.shape:
            return False
        if not np.issubdtype(x.dtype, np.integer):
            return False
        return bool(np.all(x >= self.start) and np.all(x < self.start + self.nvec))

    def __repr__(self):
        return f"MultiDiscrete({self.nvec})"

    def __eq__(self, other):
        return (isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)
                and np.array_equal(self.start, other.start))


class Dict(Space):
    """A dictionary of named spaces; samples and elements are dicts with the same keys."""

    def __init__(self, spaces, seed=None):
        self.spaces = dict(spaces)
        super().__init__(None, None, None)
        if seed is not None:
            self.seed(seed)

    def seed(self, seed=None):
        used = super().seed(seed)
        # Each subspace from its own draw of this space's generator: reproducible as a whole.
        for space in self.spaces.values():
            used += space.seed(int(self._np_random.integers(2**31)))
        return used

    def sample(self, mask=None):
        if self._np_random is None:
            self.seed()
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x):
        return (isinstance(x, dict) and x.keys() == self.spaces.keys()
                and all(s.contains(x[k]) for k, s in self.spaces.items()))

    def __getitem__(self, key):
        return self.spaces[key]

    def keys(self):
        return self.spaces.keys()

    def values(self):
        return self.spaces.values()

    def items(self):
        return self.spaces.items()

    def __iter__(self):  # over the keys, as gymnasium.spaces.Dict (not __getitem__(0), (1), ...)
        return iter(self.spaces)

    def __len__(self):
        return len(self.spaces)

    def __repr__(self):
        return "Dict(" + ", ".join(f"{k!r}: {s}" for k, s in self.spaces.items()) + ")"

    def __eq__(self, other):
        return isinstance(other, Dict) and self.spaces == other.spaces
