"""ShapingTrench-v0: single-stroke trench shaping as a learning problem (paper 003 §4.1-4.3).

The blade stays at trench depth on the paper's binary map and takes one of four moves each step
(0 up, 1 down, 2 left, 3 right), digging the cell it enters. Observation: float32 (3, rows, cols),
the dug map, the goal map and the blade's cell (one-hot). Reward: the decrease of the L1 distance
between the dug map and the goal (the paper's reward: +1 a goal cell dug, 0 nothing new, -1 a cell
outside the goal dug) minus `step_cost`. Terminated when the dug map equals the goal; truncated
after `max_episode_steps` moves. Drawing episodes and stepping run in C++
(talus.shaping.TrenchEnvBatch, shaping/trench_env_batch.hpp): the environment is a batch of one,
make_vec's a batch of N, so the two give the same bits.
docs/envs.md describes the options and the goals.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _talus
from . import goals as _goals
from ._checks import is_int, is_real
from .core import Env
from .render import render_binary_trench, render_trench_heightmap
from .spaces import Box, Discrete

ACTIONS = ("up", "down", "left", "right")


class ShapingTrenchEnv(Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, goals="letters", step_cost=0.05, max_episode_steps=100, render_mode=None,
                 random_goal_cells=(4, 20), cell_px=32, backend="binary", bed=None):
        """goals: "letters" (a uniform letter A-Z per episode), a string of letters ("AST"),
        "random" (random single-stroke goals, `random_goal_cells` = (min, max) cells, at most 30),
        or one 0/1 goal map (rows, cols). A reset's options may name the episode's goal ("goal":
        a letter or a map) and start cell ("start": (row, col)); by default the blade starts where
        the optimal (A*) stroke starts. backend: "binary" (the paper's map) or "heightmap" (the
        blade pushed through sand by the shaping tier; `bed` a dict of TrenchHeightmapBed's
        fields, repose_angle_deg for its angle; docs/envs.md)."""
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        if not (is_int(cell_px) and 1 <= cell_px <= 256):
            raise ValueError(f"cell_px: expected an int in [1, 256] (pixels per map cell in "
                             f"render()), got {cell_px!r}")
        self.cell_px = int(cell_px)
        self._game = _TrenchGame(goals, step_cost, max_episode_steps, random_goal_cells, 1,
                                 backend, bed)
        self.step_cost, self.max_episode_steps = self._game.step_cost, self._game.max_episode_steps
        self.rows, self.cols = self._game.rows, self._game.cols
        self.observation_space = Box(0.0, 1.0, (3, self.rows, self.cols), np.float32)
        self.action_space = Discrete(4)
        self._seeded = False
        self._started = False
        self._ended = False
        self._names = ["custom"]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"goal", "start"})
        if unknown:
            raise ValueError(f"options: unknown keys {unknown}; expected 'goal' and/or 'start'")
        g = self._game
        # Malformed options are refused before the episode is drawn: the env stays as it was.
        chosen = g.chosen_goal(options)
        g.chosen_start(options)
        if chosen is not None:
            g.planned_start(chosen[1], options)
        if seed is not None or not self._seeded:
            # The episodes' own generator (C++, shared with make_vec): the reset's seed, or a draw
            # of np_random the first time without one.
            first = int(seed) if seed is not None else int(self.np_random.integers(2**63))
            g.batch.reset(np.array([first], np.uint64), g.obs)
            self._seeded = True
        elif "goal" not in options:  # options may still fix the drawn goal's start
            g.batch.redraw(0, g.obs[0])
        if options:
            try:
                g.set_episode(0, options, self)
            except ValueError:
                # A start off the goal drawn just now: a new episode was drawn, so the one before
                # is gone; the env needs a reset before it steps again.
                self._started = False
                raise
        self._started, self._ended = True, False
        return g.obs[0].copy(), self._info()

    def step(self, action):
        if not self._started:
            raise RuntimeError("ShapingTrench-v0: step() before reset(); call reset() first")
        if self._ended:
            raise RuntimeError("ShapingTrench-v0: step() after the episode ended (terminated or "
                               "truncated); call reset() first")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} ({type(action).__name__}) is not in the action "
                             f"space {self.action_space}: expected an int 0 (up), 1 (down), "
                             f"2 (left) or 3 (right)")
        g = self._game
        g.actions[0] = int(action)
        g.step(threads=1)
        terminated, truncated = bool(g.terminated[0]), bool(g.truncated[0])
        self._ended = terminated or truncated
        return g.obs[0].copy(), float(g.rewards[0]), terminated, truncated, self._info()

    def render(self):
        if self.render_mode is None or not self._started:
            return None
        dug, goal, blade = self._game.batch.episode(0)
        if self._game.bed is not None:
            return render_trench_heightmap(self._game.batch.sand_of(0), goal, blade,
                                           self._game.bed, max(2, self.cell_px // 4))
        return render_binary_trench(dug, goal, blade, self.cell_px)

    def _info(self):
        info = self._game.batch.info_of(0)
        info["goal_name"] = self._game.goal_name(info.pop("map_index"), self._game.custom[0])
        info["success"] = info["l1_to_goal"] == 0
        return info


class _TrenchGame:
    """The C++ batch behind ShapingTrench-v0 (one environment) and its vector form (N), with the
    arrays it writes in place."""

    def __init__(self, goals, step_cost, max_episode_steps, random_goal_cells, num_envs,
                 backend="binary", bed=None):
        if not (is_real(step_cost) and np.isfinite(step_cost) and step_cost >= 0):
            raise ValueError(f"step_cost: expected a number >= 0, got {step_cost!r}")
        if not (is_int(max_episode_steps) and max_episode_steps >= 1):
            raise ValueError(f"max_episode_steps: expected an int >= 1, got {max_episode_steps!r}")
        self.step_cost, self.max_episode_steps = float(step_cost), int(max_episode_steps)
        self.source, self.names = _goal_source(goals, random_goal_cells)
        self.rows, self.cols = self.source.rows, self.source.cols
        self.bed = _heightmap_bed(backend, bed)
        self.batch = _talus.shaping.TrenchEnvBatch(self.source, self.step_cost,
                                                   self.max_episode_steps, num_envs, self.bed)
        self.obs = np.zeros((num_envs, 3, self.rows, self.cols), np.float32)
        self.actions = np.zeros(num_envs, np.uint8)
        self.rewards = np.zeros(num_envs, np.float64)
        self.terminated = np.zeros(num_envs, bool)
        self.truncated = np.zeros(num_envs, bool)
        self.custom = ["custom"] * num_envs  # the name of a goal given in reset options
        self._plans = {}

    def step(self, threads):
        self.batch.step(self.actions, self.obs, self.rewards, self.terminated, self.truncated,
                        threads)

    def goal_name(self, map_index, custom):
        if map_index >= 0:
            return self.names[map_index]
        return "random" if self.names is None else custom

    def chosen_goal(self, options):
        """(name, goal map) of reset `options`' goal, or None without one; ValueError for a goal
        that is not a letter (7 x 7 maps) or a 0/1 map of this environment's size."""
        if "goal" not in options:
            return None
        chosen = options["goal"]
        if isinstance(chosen, str):
            if len(chosen) != 1 or chosen.upper() not in _goals.LETTERS:
                raise ValueError(f"options['goal']: expected one letter A-Z or a 0/1 map, got "
                                 f"{chosen!r}")
            if (self.rows, self.cols) != (7, 7):
                raise ValueError(f"options['goal']: the letters are 7 x 7 maps; this "
                                 f"environment's maps are {self.rows} x {self.cols}")
            return chosen.upper(), _goals.letter_goal(chosen)
        return "custom", _check_goal_map(chosen, (self.rows, self.cols))

    def chosen_start(self, options):
        """(row, col) of reset `options`' start, or None without one; ValueError for anything
        but two ints inside the map (whether it lies on the goal is checked with the goal)."""
        if "start" not in options:
            return None
        start = options["start"]
        try:
            cell = tuple(start)
        except TypeError:
            cell = ()
        if not (len(cell) == 2 and all(is_int(v) for v in cell)
                and 0 <= cell[0] < self.rows and 0 <= cell[1] < self.cols):
            raise ValueError(f"options['start']: expected a goal cell (row, col) of the "
                             f"{self.rows} x {self.cols} map, got {start!r}")
        return int(cell[0]), int(cell[1])

    def planned_start(self, goal, options):
        """(start, optimal steps) on `goal` from reset `options`' start, or from the A* plan's
        own start without one; ValueError for a start off the goal or a goal one stroke cannot
        dig."""
        start = self.chosen_start(options)
        if start is not None and not goal[start]:
            raise ValueError(f"options['start']: expected a goal cell (row, col) of the "
                             f"{self.rows} x {self.cols} map, got {options['start']!r}, which "
                             f"the goal does not dig")
        return self._optimal(goal, start)

    def set_episode(self, i, options, env):
        """Starts environment i on the goal and start of reset `options`."""
        chosen = self.chosen_goal(options)
        if chosen is None:
            _, goal, _ = self.batch.episode(i)
            name = self.goal_name(self.batch.info_of(i)["map_index"], self.custom[i])
        else:
            name, goal = chosen
        start, optimal_steps = self.planned_start(goal, options)
        self.batch.set_episode(i, goal, start[0], start[1], optimal_steps, self.obs[i])
        self.custom[i] = name

    def _optimal(self, goal, start):
        """(start, optimal steps) of the A* single stroke (from `start` when given)."""
        key = (goal.tobytes(), start)
        if key not in self._plans:
            plan = _talus.shaping.plan_single_stroke_trench(
                _talus.shaping.BinaryMap.from_rows(["".join("#" if v else "." for v in row)
                                                    for row in goal]),
                start=None if start is None else _talus.shaping.GridCell(*start))
            if not plan.found:
                raise ValueError(f"goal: one stroke cannot dig it ({plan.failure})")
            self._plans[key] = ((plan.start.row, plan.start.col), plan.steps)
        return self._plans[key]


def _heightmap_bed(backend, bed):
    """The TrenchHeightmapBed of the heightmap backend (None for the binary map)."""
    if backend == "binary":
        if bed is not None:
            raise ValueError("bed: only the heightmap backend has a sand bed (backend='heightmap')")
        return None
    if backend != "heightmap":
        raise ValueError(f"backend: expected 'binary' or 'heightmap', got {backend!r}")
    fields = dict(bed or {})
    if "repose_angle_deg" in fields:
        fields["repose_angle_rad"] = math.radians(fields.pop("repose_angle_deg"))
    known = {"cells_per_map_cell", "cell_size_m", "margin_cells", "sand_height_m",
             "trench_depth_m", "blade_thickness_m", "repose_angle_rad"}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(f"bed: unknown keys {unknown}; known: {', '.join(sorted(known))}, "
                         f"repose_angle_deg")
    return _talus.shaping.TrenchHeightmapBed(**fields)


def _goal_source(goals, random_goal_cells):
    """(TrenchGoalSource, the maps' names or None for random goals) of the `goals` option."""
    if isinstance(goals, str):
        if goals == "random":
            try:
                low, high = random_goal_cells
            except (TypeError, ValueError):
                low = high = None
            if not (is_int(low) and is_int(high)):
                raise ValueError(f"random_goal_cells: expected (min, max) cell counts, two ints, "
                                 f"got {random_goal_cells!r}")
            try:
                return _talus.shaping.TrenchGoalSource.random(7, 7, low, high), None
            except ValueError as e:
                raise ValueError(f"random_goal_cells: {e}") from None
        letters = _goals.LETTERS if goals == "letters" else goals.upper()
        if not goals or set(letters) - set(_goals.LETTERS):
            raise ValueError(f"goals: expected 'letters', 'random', letters A-Z or a 0/1 map, got "
                             f"{goals!r}")
        maps = [_goals.letter_goal(letter) for letter in letters]
        return _talus.shaping.TrenchGoalSource.of_maps(maps), list(letters)
    goal = _check_goal_map(goals, None)
    try:
        return _talus.shaping.TrenchGoalSource.of_maps([goal]), ["custom"]
    except ValueError as e:
        raise ValueError(f"goal: {e}") from None


def _check_goal_map(goal, shape):
    array = np.asarray(goal)
    if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"goal: expected a 2-D 0/1 map (rows, cols), got shape {array.shape}")
    if shape is not None and array.shape != shape:
        raise ValueError(f"goal: expected a {shape[0]} x {shape[1]} map (this environment's), got "
                         f"{array.shape[0]} x {array.shape[1]}")
    if not np.all((array == 0) | (array == 1)):
        raise ValueError("goal: expected cells of 0 or 1 only")
    if not array.any():
        raise ValueError("goal: the map has no cell to dig")
    return array.astype(np.uint8)
