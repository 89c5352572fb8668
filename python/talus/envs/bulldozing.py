"""Bulldozing-v0: push a heap of particles into a goal box with a toy bulldozer (paper 001
§III-A, GranularGym's bulldozing task), on talus's particle tier.

A closed 8 m x 4 m arena holds a heap of 10,000 particles of radius 2 cm around (-2, 0) m; the goal
box is x in [1, 3] m, y in [-1, 1] m. The action is the paper's track steering, a Box [-1, 1]^2:
forward speed (times max_speed_m_per_s) and yaw rate (times max_yaw_rate_rad_per_s). One step is
0.1 s of simulation (100 particle steps of 1 ms); an episode lasts 60 s (600 steps, then
truncated). The observation is the paper's: an ego depth camera (36 x 36, perspective, on the cab
looking ahead), a sky depth camera (36 x 72, orthographic over the whole arena) and the pose
(x, y, yaw). The reward per step is the paper's: (1/n) sum over particles of 100 for a particle in
the goal box, otherwise minus its distance to the box [m]. The bulldozer is kinematic, as in the
paper (it follows the command exactly and stops at the walls), or with vehicle="dynamic" a MuJoCo
body on driven wheels that feels the particles' reaction. Stepping runs in C++
(talus.particles.BulldozingEnvBatch); docs/envs.md has the details.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .. import _talus
from ._batch_env import BatchEnv, BatchGame, WorldLoader
from .spaces import Box, Dict

MESH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                    "bulldozer.obj")
VEHICLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                       "robots", "bulldozer", "bulldozer_dynamic.xml")

# Options (keyword arguments of make) and their defaults: the fields of
# talus.particles.BulldozingOptions (particles/bulldozing_world.hpp) that a user may set.
OPTIONS = dict(particle_count=10000, particle_radius_m=0.02, density_kg_per_m3=1631.0,
               friction=0.5, rotation=False, rolling_friction=0.0, heap_slope_deg=25.0, time_step_s=1e-3, steps_per_action=100,
               iterations=3, neighbour_skin_radii=0.6, episode_s=60.0, max_speed_m_per_s=1.0, max_yaw_rate_rad_per_s=1.5,
               heap_offset_m=0.25, mesh_path=MESH, mesh_sdf_cell_m=0.02, ego_width_px=36,
               ego_height_px=36, sky_width_px=72, sky_height_px=36, heap_centre_m=(-2.0, 0.0),
               start_lo_m=(0.2, -1.2), start_hi_m=(0.8, 1.2), start_yaw_max_rad=math.pi,
               vehicle="kinematic", vehicle_mjcf_path=VEHICLE)

def _check_vehicle(o):
    if o["vehicle"] not in ("kinematic", "dynamic"):
        raise ValueError(f"Bulldozing-v0: vehicle: expected 'kinematic' or 'dynamic', got "
                         f"{o['vehicle']!r}")


# The (cached) talus.particles.BulldozingWorld of make's options, refusing bad ones by name.
bulldozing_world = WorldLoader(
    "Bulldozing-v0", OPTIONS,
    counts=("particle_count", "steps_per_action", "iterations", "ego_width_px", "ego_height_px",
            "sky_width_px", "sky_height_px"),
    vectors={"heap_centre_m": 2, "start_lo_m": 2, "start_hi_m": 2},
    files={"mesh_path": ("a closed OBJ or STL mesh of the bulldozer", lambda o: True),
           "vehicle_mjcf_path": ("the dynamic bulldozer's MJCF",
                                 lambda o: o["vehicle"] == "dynamic")},
    options_class=_talus.particles.BulldozingOptions,
    world_class=_talus.particles.BulldozingWorld, check=_check_vehicle)


def observation_space(world, batch=None):
    """Bulldozing-v0's Dict observation space (of one environment, or of `batch` of them)."""
    o = world.options
    lead = () if batch is None else (batch,)
    half_l, half_w = 4.0, 2.0
    return Dict({
        "ego": Box(0.0, o.ego_max_range_m, lead + (o.ego_height_px, o.ego_width_px), np.float32),
        "sky": Box(0.0, o.sky_camera_z_m, lead + (o.sky_height_px, o.sky_width_px), np.float32),
        "pose": Box(np.tile(np.array([-half_l, -half_w, -math.pi], np.float32), lead + (1,)),
                    np.tile(np.array([half_l, half_w, math.pi], np.float32), lead + (1,)),
                    lead + (3,), np.float32),
    })


class _BulldozingGame(BatchGame):
    """The C++ batch behind Bulldozing-v0 (one environment) and its vector form (N), with the
    arrays it writes in place."""

    def __init__(self, num_envs, **options):
        self.world = bulldozing_world(**options)
        o = self.world.options
        self.step_s = o.time_step_s * o.steps_per_action  # simulated time of one env step
        self.batch = _talus.particles.BulldozingEnvBatch(self.world, num_envs)
        self.ego = np.zeros((num_envs, o.ego_height_px, o.ego_width_px), np.float32)
        self.sky = np.zeros((num_envs, o.sky_height_px, o.sky_width_px), np.float32)
        self.pose = np.zeros((num_envs, 3), np.float32)
        self.arrays = (self.ego, self.sky, self.pose)
        self.allocate(num_envs, 2)

    def observation(self, i=None):
        if i is None:
            return {"ego": self.ego.copy(), "sky": self.sky.copy(), "pose": self.pose.copy()}
        return {"ego": self.ego[i].copy(), "sky": self.sky[i].copy(), "pose": self.pose[i].copy()}


class BulldozingEnv(BatchEnv):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}
    env_id = "Bulldozing-v0"
    action_meaning = "forward, yaw rate"

    def __init__(self, render_mode=None, threads=None, **options):
        """options: see OPTIONS (docs/envs.md); threads: for the particle step (default: the cores
        this process may use; results do not depend on it)."""
        self._configure(render_mode, threads)
        self._game = _BulldozingGame(1, **options)
        self.world = self._game.world
        self.observation_space = observation_space(self.world)
        self.action_space = Box(-1.0, 1.0, (2,), np.float32)
        self._start()

    def render(self):
        if self.render_mode is None or not self._started:
            return None
        from .render import render_bulldozing
        return render_bulldozing(self._game.batch, 0, self.world.options)

    def particle_positions(self):
        """The particles' centres [m], (n, 3) float32 (for analysis and pictures)."""
        return self._game.batch.particle_positions(0)


class ScriptedBulldozer:
    """Bulldozing-v0's scripted baseline: push straight into the goal box, lane after lane. It
    drives round the heap to a point behind it on the lane, pushes along +x until its centre is
    push_past_m past the goal box's near edge (the sand heaped before the scoop then lies in the
    box), backs out along the lane, and takes the next lane (y = 0, +-0.4,
    +-0.8 m about the heap's centre). It reads only the pose of the observation; the heap's and
    the goal's places come from the environment's options (privileged knowledge a learner does
    not have)."""

    LANES_M = (0.0, 0.4, -0.4, 0.8, -0.8)

    def __init__(self, heap_centre_m=(-2.0, 0.0), goal_x_m=(1.0, 3.0), behind_m=1.4,
                 push_past_m=-0.2):
        self.heap_x, self.heap_y = heap_centre_m
        self.goal_x = goal_x_m
        self.push_past_m = push_past_m
        self.behind_m = behind_m
        self.reset()

    def reset(self):
        self.lane, self.phase, self.waypoint = 0, "around", 0

    def __call__(self, observation):
        x, y, yaw = (float(v) for v in observation["pose"])
        lane_y = self.heap_y + self.LANES_M[self.lane % len(self.LANES_M)]
        start_x = self.heap_x - self.behind_m
        if self.phase == "around":
            # Round the heap along the arena's side (the lane's side), then behind it.
            side = 1.4 if lane_y >= self.heap_y else -1.4
            waypoints = ((self.heap_x + 1.6, side), (start_x, side))
            while self.waypoint < len(waypoints):
                tx, ty = waypoints[self.waypoint]
                if math.hypot(tx - x, ty - y) > 0.3:
                    return self._go_to(x, y, yaw, tx, ty)
                self.waypoint += 1
            self.phase = "line_up"
        if self.phase == "line_up":
            if math.hypot(x - start_x, y - lane_y) > 0.15:
                return self._go_to(x, y, yaw, start_x, lane_y)
            if abs(_angle(yaw)) > 0.1:
                return np.array([0.0, np.clip(-2.0 * _angle(yaw), -1, 1)], np.float32)
            self.phase = "push"
        if self.phase == "push":
            if x < self.goal_x[0] + self.push_past_m:
                return np.array([1.0, np.clip(-1.5 * (y - lane_y) - 1.5 * _angle(yaw), -1, 1)],
                                np.float32)
            self.phase = "back"
        if self.phase == "back":
            if x > start_x + 0.2:
                return np.array([-1.0, np.clip(1.5 * (y - lane_y) - 1.5 * _angle(yaw), -1, 1)],
                                np.float32)
            self.lane += 1
            self.phase = "line_up"
            return self(observation)
        return np.zeros(2, np.float32)

    @staticmethod
    def _go_to(x, y, yaw, tx, ty):
        error = _angle(math.atan2(ty - y, tx - x) - yaw)
        forward = max(0.0, math.cos(error)) if abs(error) < 1.0 else 0.0
        return np.array([forward, np.clip(2.0 * error, -1.0, 1.0)], np.float32)


def _angle(a):
    return (a + math.pi) % (2.0 * math.pi) - math.pi
