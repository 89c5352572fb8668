"""ShapingTrench-v0: single-stroke trench shaping as a learning problem (paper 003 §4.1-4.3).

The blade stays at trench depth on the paper's binary map and takes one of four moves each step
(0 up, 1 down, 2 left, 3 right), digging the cell it enters. Observation: float32 (3, rows, cols),
the dug map, the goal map and the blade's cell (one-hot). Reward: the decrease of the L1 distance
between the dug map and the goal (the paper's reward: +1 a goal cell dug, 0 nothing new, -1 a cell
outside the goal dug) minus `step_cost`. Terminated when the dug map equals the goal; truncated
after `max_episode_steps` moves. The stepping runs in C++ (talus.shaping.TrenchEpisode).
docs/envs.md describes the options and the goals.
"""

from __future__ import annotations

import numpy as np

from .. import _talus
from . import goals as _goals
from .core import Env
from .render import render_binary_trench
from .spaces import Box, Discrete

ACTIONS = ("up", "down", "left", "right")


class ShapingTrenchEnv(Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, goals="letters", step_cost=0.05, max_episode_steps=100, render_mode=None,
                 random_goal_cells=(4, 20), cell_px=32):
        """goals: "letters" (a uniform letter A-Z per episode), a string of letters ("AST"),
        "random" (random single-stroke goals, `random_goal_cells` = (min, max) cells), or one 0/1
        goal map (rows, cols). A reset's options may name the episode's goal ("goal": a letter or
        a map) and start cell ("start": (row, col)); by default the blade starts where the
        optimal (A*) stroke starts."""
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        if not (np.isfinite(step_cost) and step_cost >= 0):
            raise ValueError(f"step_cost: expected a number >= 0, got {step_cost!r}")
        if not (isinstance(max_episode_steps, (int, np.integer)) and max_episode_steps >= 1):
            raise ValueError(f"max_episode_steps: expected an int >= 1, got {max_episode_steps!r}")
        self.render_mode = render_mode
        self.step_cost = float(step_cost)
        self.max_episode_steps = int(max_episode_steps)
        self.cell_px = int(cell_px)
        self._goal_mode, self._letters, self._fixed_goal = self._read_goals(goals)
        self._random_cells = tuple(int(n) for n in random_goal_cells)
        rows, cols = (7, 7) if self._fixed_goal is None else self._fixed_goal.shape
        if self._goal_mode == "random":
            _goals.random_single_stroke_goal(np.random.default_rng(0), rows, cols,
                                             *self._random_cells)  # checks the cell range now
        self.rows, self.cols = rows, cols
        self.observation_space = Box(0.0, 1.0, (3, rows, cols), np.float32)
        self.action_space = Discrete(4)
        self._episode = None
        self._ended = False
        self._info = {}
        self._obs = np.zeros((3, rows, cols), dtype=np.float32)
        self._plans = {}  # (goal bytes, start) -> optimal steps

    # ------------------------------------------------------------------ goals
    @staticmethod
    def _read_goals(goals):
        if isinstance(goals, str):
            if goals == "letters":
                return "letters", _goals.LETTERS, None
            if goals == "random":
                return "random", "", None
            unknown = sorted(set(goals.upper()) - set(_goals.LETTERS))
            if not goals or unknown:
                raise ValueError(f"goals: expected 'letters', 'random', letters A-Z or a 0/1 map, "
                                 f"got {goals!r}")
            return "letters", goals.upper(), None
        return "fixed", "", _check_goal_map(goals, None)

    def _choose_goal(self, options):
        if "goal" in options:
            chosen = options["goal"]
            if isinstance(chosen, str):
                if len(chosen) != 1 or chosen.upper() not in _goals.LETTERS:
                    raise ValueError(f"options['goal']: expected one letter A-Z or a 0/1 map, got "
                                     f"{chosen!r}")
                if (self.rows, self.cols) != (7, 7):
                    raise ValueError(f"options['goal']: the letters are 7 x 7 maps; this "
                                     f"environment's maps are {self.rows} x {self.cols}")
                return chosen.upper(), _goals.letter_goal(chosen), None
            return "custom", _check_goal_map(chosen, (self.rows, self.cols)), None
        if self._goal_mode == "letters":
            letter = self._letters[int(self.np_random.integers(len(self._letters)))]
            return letter, _goals.letter_goal(letter), None
        if self._goal_mode == "random":
            goal, start = _goals.random_single_stroke_goal(self.np_random, self.rows, self.cols,
                                                           *self._random_cells)
            return "random", goal, start
        return "custom", self._fixed_goal, None

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

    # ------------------------------------------------------------------ the contract
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"goal", "start"})
        if unknown:
            raise ValueError(f"options: unknown keys {unknown}; expected 'goal' and/or 'start'")
        name, goal, start = self._choose_goal(options)
        if "start" in options:
            start = tuple(int(v) for v in options["start"])
            if not (0 <= start[0] < self.rows and 0 <= start[1] < self.cols) or not goal[start]:
                raise ValueError(f"options['start']: expected a goal cell (row, col) of the "
                                 f"{self.rows} x {self.cols} map, got {options['start']!r}")
        start, optimal_steps = self._optimal(goal, start)
        self._episode = _talus.shaping.TrenchEpisode(goal, *start)
        self._ended = False
        self._info = {"goal_name": name, "start": start, "optimal_steps": optimal_steps}
        return self._observe(), self._step_info()

    def step(self, action):
        if self._episode is None:
            raise RuntimeError("ShapingTrench-v0: step() before reset(); call reset() first")
        if self._ended:
            raise RuntimeError("ShapingTrench-v0: step() after the episode ended (terminated or "
                               "truncated); call reset() first")
        move = self._check_action(action)
        l1_decrease, _, reached = self._episode.step(move)
        terminated = bool(reached)
        truncated = not terminated and self._episode.steps >= self.max_episode_steps
        self._ended = terminated or truncated
        reward = float(l1_decrease) - self.step_cost
        return self._observe(), reward, terminated, truncated, self._step_info()

    def render(self):
        if self.render_mode is None or self._episode is None:
            return None
        return render_binary_trench(self._episode.dug, self._episode.goal, self._episode.blade,
                                    self.cell_px)

    # ------------------------------------------------------------------ helpers
    def _check_action(self, action):
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} ({type(action).__name__}) is not in the action "
                             f"space {self.action_space}: expected an int 0 (up), 1 (down), "
                             f"2 (left) or 3 (right)")
        return int(action)

    def _observe(self):
        self._episode.observe(self._obs)
        return self._obs.copy()

    def _step_info(self):
        e = self._episode
        return dict(self._info, steps=e.steps, l1_to_goal=e.l1_to_goal,
                    dug_outside=e.dug_outside, success=e.l1_to_goal == 0)


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
