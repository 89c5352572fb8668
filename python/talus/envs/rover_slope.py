"""RoverSlope-v0: drive the four-wheel rover up the sand slope of paper 002 §4.3 (Fig. 11) on
talus's SCM soil tier.

The robots-tier scenario scenarios/robots/rover_slope_env.toml (rover_slope.toml on a map 3 m
wide: 1.55 m of flat dry sand, then a 15 degree slope; the 100 kg rover of robots/rover/rover.xml
with wheels of 0.25 m) is loaded once
per environment; each episode starts from its first state with the rover turned by a seeded
heading offset (uniform within +-0.1 rad). The action is the four wheel speeds (front left,
front right, rear left, rear right) in [-1, 1] times max_wheel_speed_rad_per_s (3 rad/s), held
for one step of 0.1 s. The observation (24 float32) is the chassis pose, its twist, and per wheel
the slip, the sinkage and the joint speed (talus.robots.RoverEnvBatch's layout, OBSERVATION_NAMES).
The reward is the chassis's progress along x [m] minus energy_weight (1e-3 per J) times the
wheels' mechanical energy. Terminated when the chassis reaches goal_x_m (3.5 m, up the slope) or
tips over 1 rad or drives off the soil map; truncated after 20 s. Stepping runs in C++; docs/envs.md has the details.
"""

from __future__ import annotations

import os

import numpy as np

from .. import _talus
from ._batch_env import BatchEnv, BatchGame
from .spaces import Box

SCENARIO = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                        "scenarios", "robots", "rover_slope_env.toml")

OPTIONS = dict(scenario=SCENARIO, control_period_s=0.1, max_wheel_speed_rad_per_s=3.0,
               episode_s=20.0, goal_x_m=3.5, energy_weight=1e-3, max_heading_offset_rad=0.1,
               max_tilt_rad=1.0)

WHEELS = ("fl", "fr", "rl", "rr")
OBSERVATION_NAMES = (["x_m", "y_m", "z_m", "roll_rad", "pitch_rad", "yaw_rad",
                      "vx_m_per_s", "vy_m_per_s", "vz_m_per_s",
                      "wx_rad_per_s", "wy_rad_per_s", "wz_rad_per_s"]
                     + [f"slip_{w}" for w in WHEELS] + [f"sinkage_{w}_m" for w in WHEELS]
                     + [f"wheel_speed_{w}_rad_per_s" for w in WHEELS])


class _RoverGame(BatchGame):
    """The C++ batch behind RoverSlope-v0 (one environment) and its vector form (N)."""

    def __init__(self, num_envs, **options):
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"RoverSlope-v0: unknown options {unknown}; known: "
                             f"{', '.join(sorted(OPTIONS))}")
        o = dict(OPTIONS, **options)
        for name, value in o.items():
            if name != "scenario" and not (isinstance(value, (int, float, np.floating))
                                           and not isinstance(value, bool)):
                raise ValueError(f"RoverSlope-v0: {name}: expected a number, got {value!r}")
        if not os.path.isfile(str(o["scenario"])):
            raise ValueError(f"RoverSlope-v0: scenario: {o['scenario']} does not exist (expected "
                             f"a robots-tier scenario on SCM soil)")
        self.options = o
        self.step_s = float(o["control_period_s"])  # simulated time of one env step
        self.batch = _talus.robots.RoverEnvBatch(
            str(o["scenario"]), num_envs, float(o["control_period_s"]),
            float(o["max_wheel_speed_rad_per_s"]), float(o["episode_s"]), float(o["goal_x_m"]),
            float(o["energy_weight"]), float(o["max_heading_offset_rad"]),
            float(o["max_tilt_rad"]))
        self.obs = np.zeros((num_envs, _talus.robots.ROVER_OBSERVATION_SIZE), np.float32)
        self.arrays = (self.obs,)
        self.allocate(num_envs, 4)

    def observation(self, i=None):
        return self.obs.copy() if i is None else self.obs[i].copy()


def observation_space(batch=None):
    lead = () if batch is None else (batch,)
    n = _talus.robots.ROVER_OBSERVATION_SIZE
    return Box(-np.inf, np.inf, lead + (n,), np.float32)


class RoverSlopeEnv(BatchEnv):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}
    env_id = "RoverSlope-v0"
    action_meaning = "wheel speeds fl, fr, rl, rr"

    def __init__(self, render_mode=None, threads=None, **options):
        """options: see OPTIONS (docs/envs.md); threads: for the soil step, whose four wheels run
        side by side (default: the cores this process may use; results do not depend on it)."""
        self._configure(render_mode, threads)
        self._game = _RoverGame(1, **options)
        self.observation_space = observation_space()
        self.action_space = Box(-1.0, 1.0, (4,), np.float32)
        self._start()

    def render(self):
        """With render_mode="rgb_array": the rover from the side (240 x 480, 100 pixels per
        metre, centred on the chassis), over the undisturbed surface through its y."""
        if self.render_mode is None or not self._started:
            return None
        from .render import render_side_view
        batch = self._game.batch
        x, y, z = (float(v) for v in self._game.obs[0][:3])
        return render_side_view(batch.side_view(0), x, px_per_m=100, z_min_m=z - 0.9,
                                ground_z=lambda u: batch.surface_z(0, u, y))


class ScriptedRover:
    """RoverSlope-v0's scripted baseline: drive up the slope at the paper's 2 rad/s (action 2/3 of
    3 rad/s), steering back to heading 0 by turning the left wheels faster than the right when the
    rover points left (yaw > 0), and the other way round."""

    def __init__(self, speed=2.0 / 3.0, gain=2.0):
        self.speed, self.gain = speed, gain

    def __call__(self, observation):
        yaw = float(observation[5])
        turn = float(np.clip(self.gain * yaw, -0.3, 0.3))
        left, right = self.speed + turn, self.speed - turn
        return np.clip(np.array([left, right, left, right], np.float32), -1.0, 1.0)

