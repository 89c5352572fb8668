"""QuadrupedGranular-v0: the planar quadruped walking on granular media through the wrench-space
contact step (paper 000 §III-C, §IV-C3-4).

The quadruped of robots/quadruped/quadruped.xml (torso and four legs of hip, knee and ankle in
the x-z plane; masses times 0.25, as scenarios/wrench/quadruped.toml) stands on flat ground of
a medium whose feasible wrench spaces come from a database (`medium`: "pebbles" or "sand",
data/wrench). The action is the 12 leg joints' position targets in [-1, 1] times
max_joint_target_rad (0.5 rad) about the standing pose, held for 10 ms (10 steps of 1 ms). The
observation (float32) is the torso's x, z, pitch and their rates, the 12 joint positions and
speeds, and each foot's depth below the surface (negative: in the grains). The reward is the
torso's progress along x [m] minus effort_weight (1e-4) times sum(torque^2) dt. Terminated on a
fall (|pitch| > 0.8 rad or the torso below 0.45 m); truncated after 10 s or when the wrench step
fails (info["stop_reason"]). render_mode="rgb_array" draws it from the side. Stepping runs in C++
(talus.QuadrupedEnvBatch); docs/envs.md.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .. import _talus
from ._batch_env import BatchEnv, BatchGame
from .spaces import Box

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
MEDIA = {"pebbles": os.path.join(DATA, "data", "wrench", "pebbles.h5"),
         "sand": os.path.join(DATA, "data", "wrench", "sand.h5")}

OPTIONS = dict(medium="pebbles", model=os.path.join(DATA, "robots", "quadruped", "quadruped.xml"),
               control_period_s=0.01, max_joint_target_rad=0.5, episode_s=10.0,
               effort_weight=1e-4, initial_joint_noise_rad=0.02, fall_pitch_rad=0.8,
               fall_height_m=0.45, mass_scale=0.25)


class _QuadrupedGame(BatchGame):
    """The C++ batch behind QuadrupedGranular-v0 (one environment) and its vector form (N)."""

    def __init__(self, num_envs, **options):
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"QuadrupedGranular-v0: unknown options {unknown}; known: "
                             f"{', '.join(sorted(OPTIONS))}")
        o = dict(OPTIONS, **options)
        if o["medium"] not in MEDIA:
            raise ValueError(f"QuadrupedGranular-v0: medium: expected one of {sorted(MEDIA)}, "
                             f"got {o['medium']!r}")
        for name, value in o.items():
            if name not in ("medium", "model") and not (
                    isinstance(value, (int, float, np.floating)) and not isinstance(value, bool)):
                raise ValueError(f"QuadrupedGranular-v0: {name}: expected a number, got "
                                 f"{value!r}")
        if not os.path.isfile(str(o["model"])):
            raise ValueError(f"QuadrupedGranular-v0: model: {o['model']} does not exist (expected "
                             f"the planar quadruped's MJCF)")
        self.options = o
        self.step_s = float(o["control_period_s"])  # simulated time of one env step
        self.batch = _talus.QuadrupedEnvBatch(
            str(o["model"]), MEDIA[o["medium"]], num_envs, float(o["control_period_s"]),
            float(o["max_joint_target_rad"]), float(o["episode_s"]), float(o["effort_weight"]),
            float(o["initial_joint_noise_rad"]), float(o["fall_pitch_rad"]),
            float(o["fall_height_m"]), float(o["mass_scale"]))
        self.joints = len(self.batch.actuator_names)
        self.obs = np.zeros((num_envs, self.batch.observation_size), np.float32)
        self.arrays = (self.obs,)
        self.allocate(num_envs, self.joints)

    def observation(self, i=None):
        return self.obs.copy() if i is None else self.obs[i].copy()

    def observation_space(self, batch=None):
        lead = () if batch is None else (batch,)
        return Box(-np.inf, np.inf, lead + (self.batch.observation_size,), np.float32)

    def observation_names(self):
        joints = self.batch.actuator_names
        return (["x_m", "z_m", "pitch_rad", "vx_m_per_s", "vz_m_per_s", "pitch_rate_rad_per_s"]
                + [f"{j}_rad" for j in joints] + [f"{j}_rad_per_s" for j in joints]
                + [f"{f}_depth_m" for f in ("fl", "fr", "hl", "hr")])


class QuadrupedGranularEnv(BatchEnv):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 100}
    env_id = "QuadrupedGranular-v0"
    action_meaning = "joint position targets"

    def __init__(self, render_mode=None, **options):
        """options: see OPTIONS (docs/envs.md)."""
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self._game = _QuadrupedGame(1, **options)
        self.observation_space = self._game.observation_space()
        self.action_space = Box(-1.0, 1.0, (self._game.joints,), np.float32)
        self.observation_names = self._game.observation_names()
        self.actuator_names = list(self._game.batch.actuator_names)
        self._start()

    def render(self):
        """With render_mode="rgb_array": the robot from the side (240 x 480, 160 pixels per
        metre, centred on the torso), the ground's ticks every 0.5 m."""
        if self.render_mode is None or not self._started:
            return None
        from .render import render_side_view
        segments = self._game.batch.stick_figure(0)
        return render_side_view(segments, float(self._game.obs[0][0]))


class ScriptedTrot:
    """QuadrupedGranular-v0's scripted baseline: the trot of scenarios/wrench/quadruped.toml
    (diagonal pairs fl+hr and fr+hl half a period apart at 1.5 Hz: hip 0.15 rad, knee 0.25 rad
    a quarter period ahead, ankle the opposite of both), as joint targets. It keeps its own clock
    of control_period_s per call."""

    def __init__(self, actuator_names, control_period_s=0.01, frequency_hz=1.5,
                 max_joint_target_rad=0.5):
        self.names = list(actuator_names)
        self.dt, self.f, self.scale = control_period_s, frequency_hz, max_joint_target_rad
        self.reset()

    def reset(self):
        self.t = 0.0

    def __call__(self, observation):
        self.t += self.dt
        w = 2.0 * math.pi * self.f * self.t
        targets = np.zeros(len(self.names))
        for k, name in enumerate(self.names):
            leg, joint = name.split("_")
            phase = 0.0 if leg in ("fl", "hr") else math.pi
            hip = 0.15 * math.sin(w + phase)
            knee = 0.25 * math.sin(w + phase - math.pi / 2)
            targets[k] = {"hip": hip, "knee": knee, "ankle": -hip - knee}[joint]
        return np.clip(targets / self.scale, -1.0, 1.0).astype(np.float32)
