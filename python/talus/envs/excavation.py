"""Excavation-v0: scoop particles out of a tub with a bucket on a 7-joint arm (paper 001 §III-C,
GranularGym's excavation task), on talus's particle tier.

The arm has the kinematics of the Franka Emika Panda the paper drives (robots/panda_bucket, MJCF
from the manufacturer's published Denavit-Hartenberg parameters) and carries a bucket on its
flange. A 0.6 m x 0.6 m tub in front of it holds 3,000 particles of radius 1.25 cm (a bed about
15 cm deep). The action is the paper's: joint velocities, a Box [-1, 1]^7 times
max_joint_speed_rad_per_s; the arm is kinematic, as in the paper (the angles integrate the
command exactly and stop at the joints' ranges). One step is 0.05 s of simulation (50 particle
steps of 1 ms); an episode lasts 10 s (200 steps, then truncated). The observation (Dict):
joint_pos (7) [rad], joint_vel (7) [rad/s], tool_pose (position [m], quaternion w, x, y, z),
tool_wrench (the particles' force [N] and torque about the tool origin [N m] on the bucket, in
the world frame, averaged over the step) and the sky depth camera over the tub (32 x 32 [m]).
The reward per step is the mass [kg] held in the bucket wholly above the settled bed's top, plus
shaping_weight (0.1) times the mass inside the bucket anywhere. The episode terminates when the
particles' force on the bucket, averaged over the step, exceeds force_limit_N (2,500 N; the
paper's proposed mitigation for the Panda's low force) or the bucket reaches below the floor. Stepping runs in C++
(talus.robots.ExcavationEnvBatch); docs/envs.md has the details.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .. import _talus
from ._batch_env import BatchEnv, BatchGame, WorldLoader
from .spaces import Box, Dict

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
ARM = os.path.join(_DATA, "robots", "panda_bucket", "panda_bucket.xml")
BUCKET = os.path.join(_DATA, "robots", "panda_bucket", "bucket.obj")

# Options (keyword arguments of make) and their defaults: the fields of
# talus.robots.ExcavationOptions (robot/excavation_world.hpp) that a user may set.
OPTIONS = dict(arm_path=ARM, bucket_mesh_path=BUCKET, bucket_sdf_cell_m=0.01, particle_count=3000,
               particle_radius_m=0.0125, density_kg_per_m3=1631.0, friction=0.5, rotation=False,
               rolling_friction=0.0,
               time_step_s=1e-3, steps_per_action=50, iterations=3, neighbour_skin_radii=0.6,
               episode_s=10.0, max_joint_speed_rad_per_s=1.0,
               start_joint_rad=(0.0, -0.41, 0.0, -2.42, 0.0, 2.01, 0.0), start_noise_rad=0.05,
               tub_lo_m=(0.25, -0.3), tub_hi_m=(0.85, 0.3), tub_wall_height_m=0.2,
               shaping_weight=0.1, force_limit_N=2500.0, sky_width_px=32, sky_height_px=32,
               sky_camera_z_m=1.5)

STATE_NAMES = ([f"joint_pos[{j}]" for j in range(7)] + [f"joint_vel[{j}]" for j in range(7)]
               + ["tool_x", "tool_y", "tool_z", "tool_qw", "tool_qx", "tool_qy", "tool_qz",
                  "force_x", "force_y", "force_z", "torque_x", "torque_y", "torque_z"])

# The (cached) talus.robots.ExcavationWorld of make's options, refusing bad ones by name.
excavation_world = WorldLoader(
    "Excavation-v0", OPTIONS,
    counts=("particle_count", "steps_per_action", "iterations", "sky_width_px", "sky_height_px"),
    vectors={"start_joint_rad": 7, "tub_lo_m": 2, "tub_hi_m": 2},
    files={"arm_path": ("the arm's MJCF file", lambda o: True),
           "bucket_mesh_path": ("a closed OBJ or STL mesh of the bucket", lambda o: True)},
    options_class=_talus.robots.ExcavationOptions, world_class=_talus.robots.ExcavationWorld)


def observation_space(world, batch=None):
    """Excavation-v0's Dict observation space (of one environment, or of `batch` of them)."""
    o = world.options
    lead = () if batch is None else (batch,)
    lo, hi = np.asarray(world.joint_lo_rad, np.float32), np.asarray(world.joint_hi_rad, np.float32)
    speed = np.float32(o.max_joint_speed_rad_per_s)
    inf = np.float32(np.inf)

    def box(low, high, size):
        low = np.broadcast_to(np.asarray(low, np.float32), lead + (size,))
        high = np.broadcast_to(np.asarray(high, np.float32), lead + (size,))
        return Box(low, high, lead + (size,), np.float32)

    reach = 2.0  # the tool stays within the arm's reach (1.2 m) of its base
    return Dict({
        "joint_pos": box(lo, hi, 7),
        "joint_vel": box(-speed, speed, 7),
        "tool_pose": box([-reach] * 3 + [-1.0] * 4, [reach] * 3 + [1.0] * 4, 7),
        "tool_wrench": box(-inf, inf, 6),
        "sky": Box(0.0, o.sky_camera_z_m, lead + (o.sky_height_px, o.sky_width_px), np.float32),
    })


class _ExcavationGame(BatchGame):
    """The C++ batch behind Excavation-v0 (one environment) and its vector form (N), with the
    arrays it writes in place."""

    def __init__(self, num_envs, **options):
        self.world = excavation_world(**options)
        o = self.world.options
        self.step_s = o.time_step_s * o.steps_per_action  # simulated time of one env step
        self.batch = _talus.robots.ExcavationEnvBatch(self.world, num_envs)
        self.state = np.zeros((num_envs, _talus.robots.EXCAVATION_STATE_SIZE), np.float32)
        self.sky = np.zeros((num_envs, o.sky_height_px, o.sky_width_px), np.float32)
        self.arrays = (self.state, self.sky)
        self.allocate(num_envs, 7)

    def observation(self, i=None):
        s = self.state if i is None else self.state[i]
        sky = self.sky if i is None else self.sky[i]
        return {"joint_pos": s[..., 0:7].copy(), "joint_vel": s[..., 7:14].copy(),
                "tool_pose": s[..., 14:21].copy(), "tool_wrench": s[..., 21:27].copy(),
                "sky": sky.copy()}


class ExcavationEnv(BatchEnv):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}
    env_id = "Excavation-v0"
    action_meaning = "joint velocities"

    def __init__(self, render_mode=None, threads=None, **options):
        """options: see OPTIONS (docs/envs.md); threads: for the particle step (default: the cores
        this process may use; results do not depend on it)."""
        self._configure(render_mode, threads)
        self._game = _ExcavationGame(1, **options)
        self.world = self._game.world
        self.observation_space = observation_space(self.world)
        self.action_space = Box(-1.0, 1.0, (7,), np.float32)
        self._start()

    def render(self):
        if self.render_mode is None or not self._started:
            return None
        from .render import render_excavation
        return render_excavation(self._game.batch, 0, self.world)

    def particle_positions(self):
        """The particles' centres [m], (n, 3) float32 (for analysis and pictures)."""
        return self._game.batch.particle_positions(0)


# The Panda's modified Denavit-Hartenberg table (robots/panda_bucket/panda_bucket.xml's header):
# a_{i-1} [m], d_i [m], alpha_{i-1} [rad], and the flange's offset along z_7 [m].
PANDA_MDH = ((0.0, 0.333, 0.0), (0.0, 0.0, -math.pi / 2), (0.0, 0.316, math.pi / 2),
             (0.0825, 0.0, math.pi / 2), (-0.0825, 0.384, -math.pi / 2), (0.0, 0.0, math.pi / 2),
             (0.088, 0.0, math.pi / 2))
PANDA_FLANGE_M = 0.107


def panda_flange_pose(q):
    """The flange's pose (4 x 4, world frame) at joint angles q from the DH table (Craig's
    convention: frame i = RotX(alpha) TransX(a) RotZ(q_i) TransZ(d))."""
    T = np.eye(4)
    for (a, d, alpha), qi in zip(PANDA_MDH, q):
        ca, sa, cq, sq = math.cos(alpha), math.sin(alpha), math.cos(qi), math.sin(qi)
        T = T @ np.array([[cq, -sq, 0.0, a],
                          [sq * ca, cq * ca, -sa, -d * sa],
                          [sq * sa, cq * sa, ca, d * ca],
                          [0.0, 0.0, 0.0, 1.0]])
    flange = np.eye(4)
    flange[2, 3] = PANDA_FLANGE_M
    return T @ flange


class ScriptedScoop:
    """Excavation-v0's scripted baseline: scoop and lift. A resolved-rate controller (joint speeds
    = the damped pseudo-inverse of the flange's Jacobian, from the DH table, times a Cartesian
    velocity towards the phase's target) takes the bucket, level, down to dig_depth_m below the
    bed's top, drags it along +x through the bed (it fills through its open front), tilts its lip
    up by tilt_rad, lifts it and holds it. It reads only joint_pos from the observation; the bed's
    height and the tub's place come from the environment's options (privileged knowledge a learner
    does not have)."""

    FLOOR_BELOW_FLANGE_M = 0.22  # the bucket's underside along z_T (bucket.obj)

    def __init__(self, bed_top_m=0.15, start_x_m=0.40, end_x_m=0.58, dig_depth_m=0.05,
                 lift_z_m=0.55, tilt_rad=0.6, dig_tilt_rad=0.5, max_joint_speed_rad_per_s=1.0, speed_m_per_s=0.12):
        self.bed_top_m, self.start_x, self.end_x = bed_top_m, start_x_m, end_x_m
        self.dig_z = bed_top_m - dig_depth_m + self.FLOOR_BELOW_FLANGE_M
        self.lift_z, self.tilt = lift_z_m, tilt_rad
        self.dig_tilt = dig_tilt_rad
        self.max_speed = max_joint_speed_rad_per_s
        self.speed = speed_m_per_s
        self.reset()

    def reset(self):
        self.phase = "above"

    def _targets(self):
        return {"above": ((self.start_x, 0.0, self.dig_z + 0.08), -self.dig_tilt),
                "dig": ((self.start_x + 0.04, 0.0, self.dig_z + 0.03), -self.dig_tilt),
                "drag": ((self.end_x, 0.0, self.dig_z), 0.0),
                "tilt": ((self.end_x, 0.0, self.dig_z + 0.02), self.tilt),
                "lift": ((self.end_x - 0.05, 0.0, self.lift_z), self.tilt),
                "hold": ((self.end_x - 0.05, 0.0, self.lift_z), self.tilt)}[self.phase]

    def __call__(self, observation):
        q = np.asarray(observation["joint_pos"], np.float64)
        target, tilt = self._targets()
        T = panda_flange_pose(q)
        p, R = T[:3, 3], T[:3, :3]
        # Level bucket: x_T along +x_W, z_T down; tilting turns it about y_T, lip (+x_T) up.
        c, s = math.cos(tilt), math.sin(tilt)
        R_goal = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]]) @ np.array(
            [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
        error_p = np.asarray(target) - p
        error_R = 0.5 * sum(np.cross(R[:, k], R_goal[:, k]) for k in range(3))
        if np.linalg.norm(error_p) < 0.01 and np.linalg.norm(error_R) < 0.03:
            order = ["above", "dig", "drag", "tilt", "lift", "hold"]
            self.phase = order[min(order.index(self.phase) + 1, len(order) - 1)]
        v = 3.0 * error_p
        v *= min(1.0, self.speed / max(np.linalg.norm(v), 1e-9))
        w = 3.0 * error_R
        J = self._jacobian(q, T)
        twist = np.concatenate([v, w])
        qdot = J.T @ np.linalg.solve(J @ J.T + 1e-4 * np.eye(6), twist)
        action = qdot / self.max_speed
        return (action / max(1.0, np.abs(action).max())).astype(np.float32)

    @staticmethod
    def _jacobian(q, T):
        """The flange's geometric Jacobian (linear; angular) by finite differences of the DH
        pose."""
        J = np.zeros((6, 7))
        h = 1e-6
        for j in range(7):
            dq = np.array(q)
            dq[j] += h
            Tj = panda_flange_pose(dq)
            J[:3, j] = (Tj[:3, 3] - T[:3, 3]) / h
            dR = Tj[:3, :3] @ T[:3, :3].T
            J[3:, j] = np.array([dR[2, 1] - dR[1, 2], dR[0, 2] - dR[2, 0],
                                 dR[1, 0] - dR[0, 1]]) / (2 * h)
        return J
