"""The environment base class: Gymnasium 1.x's `Env` contract (reset, step, render, close,
np_random, metadata, spec, unwrapped). With a `gymnasium` module importable, talus's
environments subclass gymnasium.Env itself (`Env` below is then gymnasium.Env); otherwise
talus's own `TalusEnv` (talus/envs/_core_base.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._core_base import TalusEnv

try:
    from gymnasium import Env  # noqa: F401
except ImportError:
    Env = TalusEnv


@dataclass
class EnvSpec:
    """What `talus.envs.make` built an environment from."""
    id: str
    entry_point: object
    kwargs: dict = field(default_factory=dict)
    max_episode_steps: int | None = None
