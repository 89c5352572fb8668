"""check_env and check_vector_env: an environment checked against Gymnasium 1.x's contract, as
Gymnasium documents it for `gymnasium.utils.env_checker.check_env`, `Env.reset`, `Env.step`,
`Env.render` and its spaces (written for talus from that documentation; Gymnasium is not
installable on talus's build machines).

    import talus.envs as E
    E.check_env(E.make("ShapingTrench-v0", render_mode="rgb_array"))
    E.check_vector_env(E.make_vec("RoverSlope-v0", 3), lambda: E.make("RoverSlope-v0"))

A broken part of the contract raises `EnvCheckError`, a subclass of AssertionError, whose message
starts with the call that was checked and the environment's id (or class) and names what was
wrong: the call, the value (its type, dtype, shape or the element out of bounds) and what was
expected. An exception the environment itself raises inside a checked call is re-raised as
EnvCheckError naming that call, with the original as its cause. The checks are stricter than
Gymnasium's in one way: what Gymnasium only warns about (an observation of the wrong dtype, or not
in its space, or not finite) is an error here, because talus's environments promise it.
"""

from __future__ import annotations

import copy
import inspect
import math

import numpy as np

from . import _spaces
from . import spaces as _public


class EnvCheckError(AssertionError):
    """An environment broke Gymnasium's contract; the message names the call and the problem."""


def _kinds(name):
    """The space classes called `name`: talus's own and, when a `gymnasium` module is
    importable, gymnasium's (talus.envs.spaces names those then)."""
    own = getattr(_spaces, name)
    public = getattr(_public, name, own)
    return (own,) if public is own else (own, public)


def _is(space, name):
    return isinstance(space, _kinds(name))


def _describe(x):
    """A short description of a value's type for messages: ndarray float64 (3, 2), tuple of 4."""
    if isinstance(x, np.ndarray):
        return f"ndarray {x.dtype} {x.shape}"
    if isinstance(x, np.generic):
        return f"numpy {type(x).__name__} {x!r}"
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of {len(x)}"
    if isinstance(x, dict):
        return f"dict with keys {sorted(map(str, x))}"
    return f"{type(x).__name__} {x!r}"[:120]


def _name(env):
    spec = getattr(env, "spec", None)
    if spec is not None and getattr(spec, "id", None):
        return spec.id
    return getattr(env, "env_id", None) or type(env).__name__


class _Checker:
    """Raises EnvCheckError with the message prefixed by what is being checked."""

    def __init__(self, prefix):
        self.prefix = prefix

    def fail(self, message):
        raise EnvCheckError(f"{self.prefix}: {message}")

    def require(self, condition, message):
        if not condition:
            self.fail(message)

    def call(self, what, fn, *args, **kwargs):
        """fn(*args, **kwargs), an exception in it re-raised as EnvCheckError naming `what`."""
        try:
            return fn(*args, **kwargs)
        except EnvCheckError:
            raise
        except Exception as e:
            raise EnvCheckError(f"{self.prefix}: {what} raised {type(e).__name__}: {e}") from e

    # The values an environment returns.

    def value_in(self, value, space, where):
        """`value` is an element of `space`, with its exact type: a Box holds ndarrays of its
        dtype and shape, finite when floating; a Discrete a (numpy) int; a MultiDiscrete an
        integer ndarray; a Dict a dict of its keys, each checked recursively."""
        if _is(space, "Dict"):
            self.require(isinstance(value, dict),
                         f"{where} must be a dict for the Dict space {space}, got "
                         f"{_describe(value)}")
            self.require(set(value) == set(space.spaces),
                         f"{where} has keys {sorted(map(str, value))}, expected the Dict space's "
                         f"{sorted(map(str, space.spaces))}")
            for key, sub in space.spaces.items():
                self.value_in(value[key], sub, f"{where}[{key!r}]")
        elif _is(space, "Box"):
            ok = isinstance(value, np.ndarray) or (space.shape == ()
                                                   and isinstance(value, np.generic))
            self.require(ok, f"{where} must be a numpy ndarray for the space {space}, got "
                             f"{_describe(value)}")
            self.require(value.dtype == space.dtype,
                         f"{where} has dtype {value.dtype}, expected the space's {space.dtype} "
                         f"(space {space})")
            self.require(value.shape == space.shape,
                         f"{where} has shape {value.shape}, expected the space's {space.shape}")
            if np.issubdtype(value.dtype, np.floating):
                bad = ~np.isfinite(value)
                if np.any(bad):
                    i = tuple(int(k) for k in np.argwhere(bad)[0])
                    self.fail(f"{where} is not finite: {int(bad.sum())} element(s) nan or inf, "
                              f"first at index {i}: {np.asarray(value)[i].item()!r}")
            out = (value < space.low) | (value > space.high)
            if np.any(out):
                i = tuple(int(k) for k in np.argwhere(out)[0])
                self.fail(f"{where} is outside the space {space}: element {i} = "
                          f"{np.asarray(value)[i].item()!r} not in [{space.low[i].item()!r}, "
                          f"{space.high[i].item()!r}]")
        elif _is(space, "Discrete"):
            self.require(isinstance(value, (int, np.integer))
                         and not isinstance(value, (bool, np.bool_)),
                         f"{where} must be an int or numpy integer for {space}, got "
                         f"{_describe(value)}")
        elif _is(space, "MultiDiscrete"):
            self.require(isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.integer)
                         and value.shape == space.shape,
                         f"{where} must be an integer ndarray of shape {space.shape} for {space}, "
                         f"got {_describe(value)}")
        contained = self.call(f"{space}.contains({where})", space.contains, value)
        self.require(contained, f"{where} is not in the space {space}: {_describe(value)}")

    def space(self, space, what):
        self.require(_is(space, "Space"),
                     f"{what} must be a talus.envs.spaces (or gymnasium.spaces) Space, got "
                     f"{_describe(space)}")
        if _is(space, "Dict"):
            for key, sub in space.spaces.items():
                self.space(sub, f"{what}[{key!r}]")
        elif _is(space, "Box"):
            self.require(space.dtype is not None and space.low.shape == space.shape
                         and space.high.shape == space.shape,
                         f"{what} {space}: low {space.low.shape} and high {space.high.shape} must "
                         f"have the space's shape {space.shape}")

    def reset(self, env, space, **kwargs):
        call = "reset(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
        result = self.call(call, env.reset, **kwargs)
        self.require(isinstance(result, tuple) and len(result) == 2,
                     f"{call} must return a 2-tuple (observation, info), got "
                     f"{_describe(result)}")
        obs, info = result
        self.require(isinstance(info, dict), f"{call}'s info must be a dict, got "
                                             f"{_describe(info)}")
        self.value_in(obs, space, f"{call}'s observation")
        return obs, info

    def step(self, env, space, action, k):
        call = f"step {k}"
        result = self.call(f"{call} (action {action!r})", env.step, action)
        self.require(isinstance(result, tuple) and len(result) == 5,
                     f"{call}: step() must return a 5-tuple (observation, reward, terminated, "
                     f"truncated, info), got {_describe(result)}")
        obs, reward, terminated, truncated, info = result
        self.value_in(obs, space, f"{call}'s observation")
        self.require(isinstance(reward, (int, float, np.integer, np.floating))
                     and not isinstance(reward, (bool, np.bool_)),
                     f"{call}: the reward must be a float (python or numpy; an int is allowed), "
                     f"got {_describe(reward)}")
        self.require(math.isfinite(float(reward)), f"{call}: the reward must be finite, got "
                                                   f"{reward!r}")
        for flag, value in (("terminated", terminated), ("truncated", truncated)):
            self.require(isinstance(value, (bool, np.bool_)),
                         f"{call}: {flag} must be a bool (python or numpy), got "
                         f"{_describe(value)}")
        self.require(isinstance(info, dict), f"{call}: info must be a dict, got "
                                             f"{_describe(info)}")
        return obs, reward, bool(terminated), bool(truncated), info

    def fresh(self, new, old, what):
        """`new` shares no memory with `old` (an environment must not hand out a buffer it will
        write again: an agent keeping the earlier observation would see it change)."""
        shared = _shared(new, old)
        self.require(shared is None,
                     f"{what} shares memory with the previous observation{shared}: return a copy "
                     f"of the environment's buffer")

    def same(self, a, b, what):
        difference = _difference(a, b)
        self.require(difference is None, f"{what} differ: {difference}")

    def frame(self, env, when):
        frame = self.call(f"render() {when}", env.render)
        self.require(isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
                     and frame.shape[0] > 0 and frame.shape[1] > 0 and frame.dtype == np.uint8,
                     f"render() {when} with render_mode='rgb_array' must return an H x W x 3 "
                     f"uint8 ndarray, got {_describe(frame)}")
        return frame.shape


def _shared(a, b, path=""):
    """The path of an array in `a` sharing memory with one at the same path in `b`, else None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key in b:
                found = _shared(a[key], b[key], f"{path}[{key!r}]")
                if found is not None:
                    return found
        return None
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.shares_memory(a, b):
        return f" ({path})" if path else ""
    return None


def _difference(a, b, path="value"):
    """Where `a` and `b` differ, bit for bit and type for type (recursively through dicts,
    tuples and lists), as a sentence; None when they are the same."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return f"{path}: {_describe(a)} vs {_describe(b)}"
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(map(str, a))} vs {sorted(map(str, b))}"
        for key in a:
            found = _difference(a[key], b[key], f"{path}[{key!r}]")
            if found is not None:
                return found
        return None
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            return f"{path}: {_describe(a)} vs {_describe(b)}"
        for k, (x, y) in enumerate(zip(a, b)):
            found = _difference(x, y, f"{path}[{k}]")
            if found is not None:
                return found
        return None
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or (
                a.dtype != b.dtype or a.shape != b.shape):
            return f"{path}: {_describe(a)} vs {_describe(b)}"
        if a.dtype.hasobject:
            for k, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
                found = _difference(x, y, f"{path}.flat[{k}]")
                if found is not None:
                    return found
            return None
        rows = max(a.size, 1)
        bits_a = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(rows, -1)
        bits_b = np.ascontiguousarray(b).reshape(-1).view(np.uint8).reshape(rows, -1)
        differ = np.any(bits_a != bits_b, axis=1) if a.size else np.zeros(0, bool)
        if not differ.any():
            return None
        first = np.unravel_index(int(np.argmax(differ)), a.shape)
        return (f"{path}: {int(differ.sum())} of {a.size} elements differ, first at "
                f"{tuple(int(k) for k in first)}: {a[first].item()!r} vs {b[first].item()!r}")
    if type(a) is not type(b):
        return f"{path}: {_describe(a)} vs {_describe(b)}"
    if isinstance(a, (float, complex, np.generic)):
        same = np.asarray(a).tobytes() == np.asarray(b).tobytes()
    else:
        try:
            same = bool(a == b)
        except Exception:
            same = repr(a) == repr(b)
    return None if same else f"{path}: {a!r} vs {b!r}"


def _unequal(a, b):
    """Where the arrays `a` (of the vector info) and `b` (of the single info) differ, in
    values (not types: the two may hold one value as int64 and int)."""
    differ = np.asarray(a != b) if a.shape == b.shape and a.size > 1 else np.zeros(0, bool)
    if differ.any():
        first = tuple(int(k) for k in np.argwhere(differ)[0])
        return (f"{int(differ.sum())} of {a.size} elements, first at {first}: vector "
                f"{a[first].item()!r}, single {b[first].item()!r}")
    return f"vector {a!r}, single {b!r}"[:300]


def _accepts(fn, name):
    """Whether `fn` takes the keyword argument `name` (by name or through **kwargs)."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True  # a builtin without a signature: the call itself will tell
    return name in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _generator_state(c, env, what):
    rng = c.call(f"np_random {what}", lambda: getattr(env, "unwrapped", env).np_random)
    c.require(isinstance(rng, np.random.Generator),
              f"np_random {what} must be a numpy.random.Generator, got {_describe(rng)}")
    return copy.deepcopy(rng.bit_generator.state)


def _check_metadata(c, env):
    metadata = getattr(env, "metadata", None)
    c.require(isinstance(metadata, dict), f"metadata must be a dict, got {_describe(metadata)}")
    c.require("render_modes" in metadata, "metadata must hold 'render_modes' (the render modes "
                                          "the environment supports, [] for none)")
    modes = metadata["render_modes"]
    c.require(isinstance(modes, (list, tuple)) and all(isinstance(m, str) for m in modes),
              f"metadata['render_modes'] must be a list of strings, got {_describe(modes)}")
    render_mode = getattr(env, "render_mode", None)
    c.require(render_mode is None or render_mode in modes,
              f"render_mode {render_mode!r} is not one of metadata['render_modes'] {list(modes)}")
    if modes:
        fps = metadata.get("render_fps")
        c.require(isinstance(fps, (int, float, np.integer, np.floating))
                  and not isinstance(fps, bool) and math.isfinite(fps) and fps > 0,
                  f"metadata['render_fps'] must be a number > 0 when render modes {list(modes)} "
                  f"are declared (recorded videos play at it), got {fps!r}")


def _check_action_space(c, space, seed):
    """sample() is in the space, with its dtype; seeding reproduces the samples bit for bit."""
    for k in range(5):
        sample = c.call(f"action_space.sample() ({k})", space.sample)
        c.value_in(sample, space, f"action_space.sample() ({k})")
    draws = []
    for _ in range(2):
        c.call(f"action_space.seed({seed})", space.seed, seed)
        draws.append([space.sample() for _ in range(3)])
    c.same(draws[0], draws[1], f"action_space.sample() after action_space.seed({seed}) twice")


def _rollout(c, env, seed, steps, render):
    """The trace of reset(seed) and `steps` steps of actions drawn from the action space seeded
    alike; an ended episode is followed by reset() without a seed. Returns (trace, episodes
    ended, the frame's shape)."""
    space = env.observation_space
    obs, info = c.reset(env, space, seed=seed)
    c.call(f"action_space.seed({seed})", env.action_space.seed, seed)
    trace = [("reset", copy.deepcopy(obs), copy.deepcopy(info))]
    shape = c.frame(env, "after reset") if render else None
    previous, ended = obs, 0
    for k in range(steps):
        action = env.action_space.sample()
        obs, reward, terminated, truncated, info = c.step(env, space, action, k)
        c.fresh(obs, previous, f"step {k}'s observation")
        trace.append((f"step {k}", copy.deepcopy(obs), reward, terminated, truncated,
                      copy.deepcopy(info)))
        if render and k == steps - 1:
            c.frame(env, f"after step {k}")
        previous = obs
        if terminated or truncated:
            ended += 1
            obs, info = c.reset(env, space)
            c.fresh(obs, previous, f"reset() after step {k}: the observation")
            trace.append((f"reset() after step {k}", copy.deepcopy(obs), copy.deepcopy(info)))
            previous = obs
    return trace, ended, shape


def _same_traces(c, a, b, what):
    c.require(len(a) == len(b), f"{what}: one has {len(a)} entries, the other {len(b)}")
    for x, y in zip(a, b):
        c.require(x[0] == y[0], f"{what}: {x[0]} in one, {y[0]} in the other (the episodes end "
                                f"at different steps)")
        names = (("observation", "info") if len(x) == 3 else
                 ("observation", "reward", "terminated", "truncated", "info"))
        for name, u, v in zip(names, x[1:], y[1:]):
            c.same(u, v, f"{what}: {x[0]}'s {name}s")


def check_env(env, seed=0, steps=10, skip_render=False, skip_close=False):
    """Checks that `env` keeps Gymnasium 1.x's Env contract; raises EnvCheckError (an
    AssertionError) naming the first problem. Returns {"steps", "episodes_ended",
    "frame_shape"} of the checked rollout.

    seed: the seed of the resets (seed and seed + 1 are used) and of the action space.
    steps: how many steps each of the two seeded rollouts takes (actions sampled from the action
        space seeded with `seed`; an episode that ends is followed by reset() without a seed).
        Keep it small for slow environments; the rollout runs twice.
    skip_render: do not call render() (with render_mode "rgb_array" it is checked to return an
        H x W x 3 uint8 frame after reset and after the last step).
    skip_close: do not call close(); by default it is called twice at the end (the second must
        not fail), so the environment is closed when check_env returns.

    Checked, in order:
    - observation_space and action_space are talus.envs.spaces (or gymnasium.spaces) spaces;
      metadata is a dict with 'render_modes', render_mode is None or one of them, and
      'render_fps' is a number > 0 when any render mode is declared;
    - action_space.sample() is in the space with its dtype, and seeding the space reproduces
      its samples bit for bit;
    - reset accepts the keywords seed and options; reset(seed=seed, options=None) returns
      (observation, info dict) with the observation in observation_space, of the space's exact
      dtype and shape, finite, recursively through Dict spaces; np_random is then a numpy
      Generator (and np_random_seed, where the environment has it, equals the seed);
    - reset(seed=seed) again gives the same observation bit for bit and the same np_random
      state (the environment calls super().reset(seed=seed)); options={} is accepted and
      changes nothing; reset(seed=seed + 1) reseeds np_random;
    - reset() without a seed after reset(seed=seed) does not reseed: twice from the same seeded
      reset, it gives the same observation and np_random state (and np_random_seed stays);
    - step(action) returns a 5-tuple: the observation in the space (as for reset) and not
      sharing memory with the previous one, a finite python or numpy float (or int) reward,
      terminated and truncated python or numpy bools, an info dict;
    - two rollouts of `steps` steps from reset(seed=seed) with the action space seeded alike
      give the same observations, rewards, flags and infos, bit for bit;
    - render() (render_mode "rgb_array", unless skip_render) and close() twice.
    """
    c = _Checker(f"check_env({_name(env)})")
    for attribute in ("observation_space", "action_space"):
        c.require(hasattr(env, attribute), f"the environment has no {attribute}")
        c.space(getattr(env, attribute), attribute)
    _check_metadata(c, env)
    _check_action_space(c, env.action_space, seed)

    for keyword in ("seed", "options"):
        c.require(_accepts(env.reset, keyword),
                  f"reset must take the keyword argument {keyword!r} (Gymnasium's "
                  f"reset(*, seed=None, options=None)), its signature is "
                  f"{inspect.signature(env.reset)}")
    space = env.observation_space
    first = copy.deepcopy(c.reset(env, space, seed=seed, options=None)[0])
    state = _generator_state(c, env, f"after reset(seed={seed})")
    unwrapped = getattr(env, "unwrapped", env)
    has_seed = hasattr(unwrapped, "np_random_seed")  # Gymnasium 1.x's
    if has_seed:
        c.require(unwrapped.np_random_seed == seed,
                  f"np_random_seed after reset(seed={seed}) is {unwrapped.np_random_seed!r}, "
                  f"expected {seed} (does reset call super().reset(seed=seed)?)")
    again = copy.deepcopy(c.reset(env, space, seed=seed)[0])
    c.same(first, again, f"the observations of reset(seed={seed}) twice")
    c.same(state, _generator_state(c, env, f"after reset(seed={seed})"),
           f"np_random's states after reset(seed={seed}) twice (does reset call "
           f"super().reset(seed=seed)?)")
    with_options, _ = c.reset(env, space, seed=seed, options={})
    c.same(first, with_options, f"the observations of reset(seed={seed}) and "
                                f"reset(seed={seed}, options={{}})")
    c.reset(env, space, seed=seed + 1)
    c.require(_difference(state, _generator_state(c, env, f"after reset(seed={seed + 1})"))
              is not None,
              f"np_random is the same after reset(seed={seed}) and reset(seed={seed + 1}): the "
              f"seed is ignored (does reset call super().reset(seed=seed)?)")

    unseeded = []
    for _ in range(2):
        c.reset(env, space, seed=seed)
        obs = copy.deepcopy(c.reset(env, space)[0])
        unseeded.append((obs, _generator_state(c, env, f"after reset(seed={seed}), reset()")))
        if has_seed:
            c.require(unwrapped.np_random_seed == seed,
                      f"reset() without a seed changed np_random_seed from {seed} to "
                      f"{unwrapped.np_random_seed!r}: it must not reseed")
    c.same(unseeded[0], unseeded[1],
           f"reset() without a seed must not reseed: after reset(seed={seed}) twice, the "
           f"(observation, np_random state) of the following reset()s")

    render = not skip_render and getattr(env, "render_mode", None) == "rgb_array"
    trace, ended, shape = _rollout(c, env, seed, steps, render)
    replay, _, _ = _rollout(c, env, seed, steps, render)
    _same_traces(c, trace, replay, f"two rollouts from reset(seed={seed}) with the action space "
                                   f"seeded {seed}")

    if not skip_close:
        c.call("close()", env.close)
        c.call("close() a second time", env.close)
    return {"steps": steps, "episodes_ended": ended, "frame_shape": shape}


def _index(batch, i):
    """Instance i of a batched value (an ndarray's row, or a dict of them)."""
    if isinstance(batch, dict):
        return {k: _index(v, i) for k, v in batch.items()}
    return batch[i]


def _check_batched(c, batch, single, n, what):
    """`batch` is `single` stacked `n` times (Gymnasium's batch_space): Box -> Box of shape
    (n, *shape) with the bounds repeated; Discrete -> MultiDiscrete of n; Dict -> Dict of the
    batched subspaces."""
    if _is(single, "Dict"):
        c.require(_is(batch, "Dict") and set(batch.spaces) == set(single.spaces),
                  f"{what} {batch} must be a Dict of the single space's keys "
                  f"{sorted(map(str, single.spaces))}")
        for key, sub in single.spaces.items():
            _check_batched(c, batch.spaces[key], sub, n, f"{what}[{key!r}]")
    elif _is(single, "Box"):
        ok = (_is(batch, "Box") and batch.shape == (n,) + single.shape
              and batch.dtype == single.dtype
              and np.array_equal(batch.low, np.broadcast_to(single.low, batch.shape))
              and np.array_equal(batch.high, np.broadcast_to(single.high, batch.shape)))
        c.require(ok, f"{what} {batch} must be the single space {single} stacked {n} times "
                      f"(shape {(n,) + single.shape}, dtype {single.dtype}, the same bounds)")
    elif _is(single, "Discrete"):
        ok = (_is(batch, "MultiDiscrete") and batch.shape == (n,)
              and np.all(batch.nvec == single.n) and np.all(batch.start == single.start))
        c.require(ok, f"{what} {batch} must be MultiDiscrete of {n} x {single.n} (start "
                      f"{single.start}) for the single space {single}")
    else:
        c.fail(f"{what}: batching {single} is not supported by check_vector_env")


def check_vector_env(vec_env, make_single, seed=0, steps=10, skip_close=False):
    """Checks that the vector environment `vec_env` keeps Gymnasium 1.x's VectorEnv contract with
    next-step autoreset and that its instances are the single environments `make_single()`
    builds, bit for bit; raises EnvCheckError (an AssertionError) naming the first problem.
    Returns {"steps", "episodes_ended"} (episodes ended over all instances: choose options with
    short episodes for the autoreset to be exercised).

    make_single: a callable returning a new single environment made with the same options.
    seed: reset(seed=seed) must seed instance i with seed + i, as Gymnasium's vector
        environments do; the batched action space is seeded with it.
    steps: how many batched steps to compare.
    skip_close: by default vec_env.close() is called twice at the end (and the single
        environments made here are closed).

    Checked: num_envs is an int >= 1; single_observation_space and single_action_space are
    spaces equal to the single environment's; observation_space and action_space are them
    batched (Box stacked, Discrete as MultiDiscrete, Dict recursively); metadata's
    'autoreset_mode' is next-step (absent means next-step, Gymnasium 1.x's default); reset
    returns (batched observations in the space, info dict), the same bit for bit twice, and
    instance i equals a single environment's reset(seed=seed + i); step returns batched
    observations, rewards (float ndarray (n,)), terminations and truncations (bool ndarrays
    (n,)) and an info dict; every step equals the single environments stepped in a loop with
    the batched action's rows: observation, reward and flags bit for bit, and the info's entries
    the vector info has for every instance; an instance whose episode ended at one step is, at
    the next, reset without a seed (reward 0, not terminated, not truncated), Gymnasium's
    next-step autoreset."""
    c = _Checker(f"check_vector_env({_name(vec_env)})")
    n = getattr(vec_env, "num_envs", None)
    c.require(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1,
              f"num_envs must be an int >= 1, got {_describe(n)}")
    n = int(n)
    for attribute in ("single_observation_space", "single_action_space", "observation_space",
                      "action_space"):
        c.require(hasattr(vec_env, attribute), f"the vector environment has no {attribute}")
        c.space(getattr(vec_env, attribute), attribute)
    _check_batched(c, vec_env.observation_space, vec_env.single_observation_space, n,
                   "observation_space")
    _check_batched(c, vec_env.action_space, vec_env.single_action_space, n, "action_space")
    metadata = getattr(vec_env, "metadata", {})
    c.require(isinstance(metadata, dict), f"metadata must be a dict, got {_describe(metadata)}")
    mode = metadata.get("autoreset_mode", "NextStep")
    mode = getattr(mode, "value", mode)  # gymnasium.vector.AutoresetMode.NEXT_STEP
    c.require(mode == "NextStep", f"metadata['autoreset_mode'] is {mode!r}: check_vector_env "
                                  f"compares next-step autoreset ('NextStep') only")

    singles = [make_single() for _ in range(n)]
    for i, env in enumerate(singles):
        c.require(env.observation_space == vec_env.single_observation_space
                  and env.action_space == vec_env.single_action_space,
                  f"make_single()'s spaces ({env.observation_space}, {env.action_space}) differ "
                  f"from single_observation_space {vec_env.single_observation_space} and "
                  f"single_action_space {vec_env.single_action_space}")
    single = _Checker(f"{c.prefix}: single environment")

    obs, infos = c.reset(vec_env, vec_env.observation_space, seed=seed)
    obs = copy.deepcopy(obs)
    again, _ = c.reset(vec_env, vec_env.observation_space, seed=seed)
    c.same(obs, again, f"the observations of reset(seed={seed}) twice")
    for i, env in enumerate(singles):
        o, info = single.reset(env, env.observation_space, seed=seed + i)
        c.same(_index(again, i), o, f"instance {i} of reset(seed={seed}) and a single "
                                    f"environment's reset(seed={seed + i}): the observations")
    c.call(f"action_space.seed({seed})", vec_env.action_space.seed, seed)
    ended = [False] * n
    episodes = 0
    previous = again
    for k in range(steps):
        actions = vec_env.action_space.sample()
        call = f"step {k}"
        result = c.call(f"{call} (actions {actions!r})", vec_env.step, actions)
        c.require(isinstance(result, tuple) and len(result) == 5,
                  f"{call}: step() must return a 5-tuple (observations, rewards, terminations, "
                  f"truncations, infos), got {_describe(result)}")
        obs, rewards, terminations, truncations, infos = result
        c.value_in(obs, vec_env.observation_space, f"{call}'s observations")
        c.fresh(obs, previous, f"{call}'s observations")
        previous = obs
        c.require(isinstance(rewards, np.ndarray) and rewards.shape == (n,)
                  and (np.issubdtype(rewards.dtype, np.floating)
                       or np.issubdtype(rewards.dtype, np.integer)),
                  f"{call}: rewards must be a float ndarray ({n},), got {_describe(rewards)}")
        for flag, value in (("terminations", terminations), ("truncations", truncations)):
            c.require(isinstance(value, np.ndarray) and value.shape == (n,)
                      and value.dtype == np.bool_,
                      f"{call}: {flag} must be a bool ndarray ({n},), got {_describe(value)}")
        c.require(isinstance(infos, dict), f"{call}: infos must be a dict, got "
                                           f"{_describe(infos)}")
        for i, env in enumerate(singles):
            what = f"{call}, instance {i} and its single environment"
            if ended[i]:
                o, info = single.reset(env, env.observation_space)
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, info = single.step(env, env.observation_space,
                                                 _index(actions, i), k)
            episodes += te or tr
            c.same(_index(obs, i), o, f"{what}: the observations")
            c.same(np.float64(rewards[i]), np.float64(r), f"{what}: the rewards")
            c.same((bool(terminations[i]), bool(truncations[i])), (te, tr),
                   f"{what}: (terminated, truncated)"
                   + (" (next-step autoreset: the step after an episode ends resets it, with "
                      "reward 0 and no flags)" if ended[i] else ""))
            for key, value in info.items():
                batch = infos.get(key)
                mask = infos.get(f"_{key}")
                if (isinstance(batch, np.ndarray) and batch.shape[:1] == (n,)
                        and (mask is None or bool(mask[i]))
                        and not np.array_equal(batch[i], np.asarray(value))):
                    c.fail(f"{what}: info[{key!r}] differs: "
                           f"{_unequal(batch[i], np.asarray(value))}")
            ended[i] = te or tr
    if not skip_close:
        c.call("close()", vec_env.close)
        c.call("close() a second time", vec_env.close)
        for env in singles:
            env.close()
    return {"steps": steps, "episodes_ended": episodes}
