"""talus.envs.check_env and check_vector_env (talus/envs/env_checker.py): every registered
environment keeps Gymnasium 1.x's contract as the checker reads it from Gymnasium's documentation
(spaces and metadata, reset's and step's return types, observations of the space's dtype and shape,
seeded resets and rollouts replayed bit for bit, reset() without a seed not reseeding, an
rgb_array frame, close twice), and every vector form equals its single environments stepped one by
one with next-step autoreset. A checker that never fails proves nothing, so small hand-made
environments, each breaking one part of the contract, must make it fail with a message naming
that part. Small options keep each environment quick (the whole file runs in seconds)."""

import numpy as np
import pytest

import talus.envs as E
from talus.envs import Env, spaces
from talus.envs.env_checker import EnvCheckError

# Options that make each registered environment quick to check; an id not listed here is built
# with its defaults (add the small options of a new environment here).
SMALL = {
    "Excavation-v0": dict(particle_count=600, particle_radius_m=0.02, time_step_s=2e-3,
                          steps_per_action=25, episode_s=2.0),
    "Bulldozing-v0": dict(particle_count=600, particle_radius_m=0.04, time_step_s=2e-3,
                          steps_per_action=50, episode_s=30.0),
    "RoverSlope-v0": dict(episode_s=1.0),
    "QuadrupedGranular-v0": dict(episode_s=0.1),
}

# The vector forms are checked with short episodes, so that the autoreset happens.
SHORT = {
    "Excavation-v0": dict(particle_count=600, particle_radius_m=0.02, time_step_s=2e-3,
                          steps_per_action=25, episode_s=0.15),
    "Bulldozing-v0": dict(SMALL["Bulldozing-v0"], episode_s=0.3),
    "RoverSlope-v0": dict(episode_s=0.3),
    "QuadrupedGranular-v0": dict(episode_s=0.03),
    "ShapingTrench-v0": dict(max_episode_steps=4),
}

@pytest.mark.parametrize("env_id", E.ids())
def test_every_registered_environment_passes_the_checker(env_id):
    env = E.make(env_id, render_mode="rgb_array", **SMALL.get(env_id, {}))
    report = E.check_env(env, seed=3, steps=10)
    assert report["frame_shape"] is not None  # render() was checked


@pytest.mark.parametrize("env_id", E.ids())
def test_every_vector_form_equals_its_single_environments(env_id):
    options = SHORT.get(env_id, SMALL.get(env_id, {}))
    try:
        vec = E.make_vec(env_id, 3, threads=2, **options)
    except ValueError as e:
        if "no vector form" not in str(e):
            raise
        pytest.skip(f"{env_id} has no vector form")

    report = E.check_vector_env(vec, lambda: E.make(env_id, **options), seed=5, steps=10)
    assert report["episodes_ended"] > 0  # the autoreset was compared


class Walker(Env):
    """The smallest environment keeping the contract: a point on [-1, 1]^2 walking towards a
    goal (Dict observations, Box actions, seeded episodes of at most 4 steps, an rgb_array
    frame). The broken environments below each change one thing."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, render_mode="rgb_array"):
        self.render_mode = render_mode
        box = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = spaces.Dict({"position": box, "goal": box})
        self.action_space = spaces.Box(-1.0, 1.0, (2,), np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position = self.np_random.uniform(-1, 1, 2).astype(np.float32)
        self.goal = self.np_random.uniform(-1, 1, 2).astype(np.float32)
        self.steps = 0
        return self._obs(), {"distance": self._distance()}

    def step(self, action):
        self.position = np.clip(self.position + 0.5 * action, -1, 1).astype(np.float32)
        self.steps += 1
        distance = self._distance()
        return self._obs(), -distance, distance < 0.2, self.steps >= 4, {"distance": distance}

    def render(self):
        frame = np.zeros((16, 16, 3), np.uint8)
        i, j = ((self.position + 1) * 7.5).astype(int)
        frame[j, i] = 255
        return frame

    def _obs(self):
        return {"position": self.position.copy(), "goal": self.goal.copy()}

    def _distance(self):
        return float(np.linalg.norm(self.position - self.goal))


class OutsideSpace(Walker):
    def step(self, action):
        obs, *rest = super().step(action)
        obs["position"] = obs["position"] + 5
        return (obs, *rest)


class WrongDtype(Walker):
    def _obs(self):
        return {k: v.astype(np.float64) for k, v in super()._obs().items()}


class MissingKey(Walker):
    def _obs(self):
        return {"position": self.position.copy()}


class NanObservation(Walker):
    def __init__(self):
        super().__init__()
        box = spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.observation_space = spaces.Dict({"position": box, "goal": box})

    def step(self, action):
        obs, *rest = super().step(action)
        obs["goal"][1] = np.nan
        return (obs, *rest)


class ObservationSpaceNotASpace(Walker):
    def __init__(self):
        super().__init__()
        self.observation_space = (self.action_space, self.action_space)


class ResetReturnsObservationOnly(Walker):
    def reset(self, *, seed=None, options=None):
        return super().reset(seed=seed, options=options)[0]


class StepReturnsFour(Walker):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, terminated or truncated, info  # the old done API


class IntTerminated(Walker):
    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs, reward, int(terminated), truncated, info


class NanReward(Walker):
    def step(self, action):
        obs, reward, *rest = super().step(action)
        return (obs, float("nan"), *rest)


class ArrayReward(Walker):
    def step(self, action):
        obs, reward, *rest = super().step(action)
        return (obs, np.array([reward]), *rest)


class InfoNotDict(Walker):
    def step(self, action):
        *rest, info = super().step(action)
        return (*rest, None)


class UnseededReset(Walker):
    """Draws the goal from fresh entropy whatever the seed."""

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        self.goal = np.random.default_rng().uniform(-1, 1, 2).astype(np.float32)
        return self._obs(), info


class OwnGeneratorNotNpRandom(Walker):
    """Seeds a generator of its own and never calls super().reset(seed=seed)."""

    def reset(self, *, seed=None, options=None):
        rng = np.random.default_rng(seed)
        self.position = rng.uniform(-1, 1, 2).astype(np.float32)
        self.goal = rng.uniform(-1, 1, 2).astype(np.float32)
        self.steps = 0
        return self._obs(), {}


class ReseedsNpRandomWithoutSeed(Walker):
    def reset(self, *, seed=None, options=None):
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        return super().reset(seed=seed, options=options)


class RedrawsFromEntropyWithoutSeed(Walker):
    """Keeps np_random but draws an unseeded reset's goal from fresh entropy."""

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        if seed is None:
            self.goal = np.random.default_rng().uniform(-1, 1, 2).astype(np.float32)
        return self._obs(), info


class NoOptions(Walker):
    def reset(self, *, seed=None):
        return super().reset(seed=seed)


class NoisyStep(Walker):
    def step(self, action):
        obs, reward, *rest = super().step(action)
        return (obs, reward + np.random.default_rng().normal(), *rest)


class SharedBuffer(Walker):
    """Hands out the same arrays every step, written in place."""

    def _obs(self):
        if not hasattr(self, "_buffer"):
            self._buffer = {"position": np.zeros(2, np.float32), "goal": np.zeros(2, np.float32)}
        self._buffer["position"][:] = self.position
        self._buffer["goal"][:] = self.goal
        return self._buffer


class FourChannelFrame(Walker):
    def render(self):
        return np.zeros((16, 16, 4), np.uint8)


class FloatFrame(Walker):
    def render(self):
        return np.zeros((16, 16, 3))


class NoRenderFps(Walker):
    metadata = {"render_modes": ["rgb_array"]}


class NoRenderModes(Walker):
    metadata = {"render_fps": 10}


class UnseededBox(spaces.Box):
    def sample(self, mask=None):
        return np.random.default_rng().uniform(-1, 1, self.shape).astype(self.dtype)


class UnseededActionSpace(Walker):
    def __init__(self):
        super().__init__()
        self.action_space = UnseededBox(-1.0, 1.0, (2,), np.float32)


class CloseOnce(Walker):
    def close(self):
        if getattr(self, "closed", False):
            raise RuntimeError("already closed")
        self.closed = True


def test_a_small_environment_keeping_the_contract_passes():
    report = E.check_env(Walker(), steps=12)
    assert report["episodes_ended"] >= 3 and report["frame_shape"] == (16, 16, 3)


BROKEN = [
    (OutsideSpace, r"step 0's observation\['position'\] is outside the space .* not in "
                   r"\[-1\.0, 1\.0\]"),
    (WrongDtype, r"reset\(seed=0, options=None\)'s observation\['position'\] has dtype float64, "
                 r"expected the space's float32"),
    (MissingKey, r"reset\(seed=0, options=None\)'s observation has keys \['position'\], "
                 r"expected the Dict space's \['goal', 'position'\]"),
    (NanObservation, r"step 0's observation\['goal'\] is not finite: 1 element\(s\) nan or inf"),
    (ObservationSpaceNotASpace, r"observation_space must be a talus.envs.spaces .* got tuple"),
    (ResetReturnsObservationOnly, r"reset\(seed=0, options=None\) must return a 2-tuple "
                                  r"\(observation, info\), got dict"),
    (StepReturnsFour, r"step 0: step\(\) must return a 5-tuple .* got tuple of 4"),
    (IntTerminated, r"step 0: terminated must be a bool \(python or numpy\), got int 0"),
    (NanReward, r"step 0: the reward must be finite, got nan"),
    (ArrayReward, r"step 0: the reward must be a float .* got ndarray float64 \(1,\)"),
    (InfoNotDict, r"step 0: info must be a dict, got NoneType"),
    (UnseededReset, r"the observations of reset\(seed=0\) twice differ: value\['goal'\]"),
    (OwnGeneratorNotNpRandom, r"np_random_seed after reset\(seed=0\) is \d+, expected 0 "
                              r"\(does reset call super\(\).reset\(seed=seed\)\?\)"),
    (ReseedsNpRandomWithoutSeed, r"reset\(\) without a seed changed np_random_seed from 0"),
    (RedrawsFromEntropyWithoutSeed, r"reset\(\) without a seed must not reseed: .* differ: "
                                    r"value\[0\]\['goal'\]"),
    (NoOptions, r"reset must take the keyword argument 'options'"),
    (NoisyStep, r"two rollouts from reset\(seed=0\) .*: step 0's rewards differ"),
    (SharedBuffer, r"step 0's observation shares memory with the previous observation "
                   r"\(\['position'\]\)"),
    (FourChannelFrame, r"render\(\) after reset .* H x W x 3 uint8 ndarray, got ndarray uint8 "
                       r"\(16, 16, 4\)"),
    (FloatFrame, r"render\(\) after reset .* got ndarray float64 \(16, 16, 3\)"),
    (NoRenderFps, r"metadata\['render_fps'\] must be a number > 0 .* got None"),
    (NoRenderModes, r"metadata must hold 'render_modes'"),
    (UnseededActionSpace, r"action_space.sample\(\) after action_space.seed\(0\) twice differ"),
    (CloseOnce, r"close\(\) a second time raised RuntimeError: already closed"),
]


@pytest.mark.parametrize("env_class, match", BROKEN, ids=[c.__name__ for c, _ in BROKEN])
def test_a_broken_environment_fails_naming_what_is_broken(env_class, match):
    with pytest.raises(EnvCheckError, match=f"^check_env\\({env_class.__name__}\\): {match}"):
        E.check_env(env_class())
    assert issubclass(EnvCheckError, AssertionError)


class WalkerVector:
    """Walkers stepped in a loop as a vector environment with Gymnasium's next-step autoreset;
    reset(seed=s) seeds instance i with s + seed_step * i. same_step: reset an ended episode at
    once (Gymnasium's same-step mode) while declaring next-step."""

    metadata = {"autoreset_mode": "NextStep"}

    def __init__(self, n, seed_step=1, same_step=False, batch_shape=None):
        self.num_envs, self.seed_step, self.same_step = n, seed_step, same_step
        self.envs = [Walker() for _ in range(n)]
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        box = spaces.Box(-1.0, 1.0, batch_shape or (n, 2), np.float32)
        self.observation_space = spaces.Dict({"position": box, "goal": box})
        self.action_space = spaces.Box(-1.0, 1.0, (n, 2), np.float32)

    def reset(self, *, seed=None, options=None):
        self.ended = np.zeros(self.num_envs, bool)
        seeds = [None if seed is None else seed + self.seed_step * i for i in range(self.num_envs)]
        return self._stack([env.reset(seed=s)[0] for env, s in zip(self.envs, seeds)]), {}

    def step(self, actions):
        obs, rewards = [], np.zeros(self.num_envs)
        terminated, truncated = np.zeros(self.num_envs, bool), np.zeros(self.num_envs, bool)
        for i, env in enumerate(self.envs):
            if self.ended[i]:
                obs.append(env.reset()[0])
                continue
            o, rewards[i], terminated[i], truncated[i], _ = env.step(actions[i])
            if self.same_step and (terminated[i] or truncated[i]):
                o, _ = env.reset()
            obs.append(o)
        self.ended = (terminated | truncated) & (not self.same_step)
        return self._stack(obs), rewards, terminated, truncated, {}

    def close(self):
        pass

    @staticmethod
    def _stack(obs):
        return {k: np.stack([o[k] for o in obs]) for k in ("position", "goal")}


def test_a_small_vector_environment_keeping_the_contract_passes():
    report = E.check_vector_env(WalkerVector(3), Walker, steps=12)
    assert report["episodes_ended"] >= 6


@pytest.mark.parametrize("vec, match", [
    (WalkerVector(3, seed_step=0), r"instance 1 of reset\(seed=0\) and a single environment's "
                                   r"reset\(seed=1\): the observations differ"),
    (WalkerVector(3, same_step=True), r"step \d, instance \d and its single environment: the "
                                      r"observations differ"),
    (WalkerVector(3, batch_shape=(2, 3)), r"observation_space\['position'\] .* must be the single "
                                          r"space .* stacked 3 times"),
], ids=["same-seeds", "same-step-autoreset", "wrong-batch-space"])
def test_a_broken_vector_environment_fails_naming_what_is_broken(vec, match):
    with pytest.raises(EnvCheckError, match=f"^check_vector_env\\(WalkerVector\\): {match}"):
        E.check_vector_env(vec, Walker, steps=12)
