"""talus.envs: learning environments on talus's tiers, with Gymnasium 1.x's contract.

    env = talus.envs.make("ShapingTrench-v0", render_mode="rgb_array")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

`make(id, **options)` builds an environment, `make_vec(id, num_envs)` a vector of them stepped in
one C++ call, `ids()` lists them. The spaces (`talus.envs.spaces`:
Box, Discrete, Dict) and the base class (`talus.envs.Env`) follow Gymnasium's documented interface;
when a `gymnasium` module is importable they are gymnasium's own. docs/envs.md describes each
environment.
"""

from __future__ import annotations

import inspect

from .core import EnvSpec
from . import goals  # noqa: F401
from . import spaces  # noqa: F401
from .core import Env  # noqa: F401
from .record_video import RecordVideo  # noqa: F401
from .env_checker import check_env, check_vector_env  # noqa: F401

_REGISTRY = {}


def register(env_id, entry_point, max_episode_steps=None, **defaults):
    """Adds an environment id: `entry_point` is the class (or a callable) that `make` calls with
    the id's defaults updated by make's options."""
    _REGISTRY[env_id] = EnvSpec(env_id, entry_point, dict(defaults), max_episode_steps)


def ids():
    """The registered environment ids, sorted."""
    return sorted(_REGISTRY)


def make(env_id, **options):
    """A new environment of the registered id `env_id`, built with `options` (keyword arguments of
    its class). An unknown id raises ValueError listing the known ones."""
    if env_id not in _REGISTRY:
        raise ValueError(f"unknown environment id {env_id!r}; known ids: {', '.join(ids())}")
    spec = _REGISTRY[env_id]
    kwargs = dict(spec.kwargs, **options)
    _refuse_unknown_options(env_id, spec.entry_point, kwargs)
    env = spec.entry_point(**kwargs)
    env.spec = EnvSpec(env_id, spec.entry_point, kwargs,
                       kwargs.get("max_episode_steps", spec.max_episode_steps))
    return env


def make_vec(env_id, num_envs, threads=None, **options):
    """`num_envs` instances of `env_id` stepped together in one C++ call on `threads` threads
    (default: the cores this process may use), with Gymnasium's next-step autoreset; `options`
    as for make. docs/envs.md."""
    if env_id not in _VECTOR:
        raise ValueError(f"no vector form of {env_id!r}; vector ids: {', '.join(sorted(_VECTOR))}")
    _refuse_unknown_options(env_id, _VECTOR[env_id], options, ("num_envs", "threads"))
    vec = _VECTOR[env_id](num_envs, threads=threads, **options)
    vec.spec = EnvSpec(env_id, _VECTOR[env_id], dict(options), None)
    return vec


def _refuse_unknown_options(env_id, entry_point, options, own=()):
    """ValueError listing the known options when `options` names one the environment's class
    does not take (a class taking **options checks its own, with the same message)."""
    params = inspect.signature(entry_point).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return
    known = sorted(k for k in params if k not in own)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"{env_id}: unknown options {unknown}; known: {', '.join(known)}")


from .shaping_trench import ShapingTrenchEnv  # noqa: E402
from .shaping_strokes import ShapingStrokesEnv  # noqa: E402
from .bulldozing import BulldozingEnv, ScriptedBulldozer  # noqa: E402,F401
from .quadruped_granular import QuadrupedGranularEnv, ScriptedTrot  # noqa: E402,F401
from .rover_slope import RoverSlopeEnv, ScriptedRover  # noqa: E402,F401
from .excavation import ExcavationEnv, ScriptedScoop  # noqa: E402,F401
from .vector import (BulldozingVectorEnv, ExcavationVectorEnv,  # noqa: E402
                     QuadrupedGranularVectorEnv,
                     RoverSlopeVectorEnv, ShapingStrokesVectorEnv, ShapingTrenchVectorEnv)

register("ShapingTrench-v0", ShapingTrenchEnv, max_episode_steps=100)
register("ShapingStrokes-v0", ShapingStrokesEnv)
register("Bulldozing-v0", BulldozingEnv)
register("RoverSlope-v0", RoverSlopeEnv)
register("QuadrupedGranular-v0", QuadrupedGranularEnv)
register("Excavation-v0", ExcavationEnv)
_VECTOR = {"RoverSlope-v0": RoverSlopeVectorEnv,
           "QuadrupedGranular-v0": QuadrupedGranularVectorEnv,
           "ShapingTrench-v0": ShapingTrenchVectorEnv,
           "ShapingStrokes-v0": ShapingStrokesVectorEnv,
           "Bulldozing-v0": BulldozingVectorEnv,
           "Excavation-v0": ExcavationVectorEnv}
