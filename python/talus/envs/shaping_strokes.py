"""ShapingStrokes-v0: multi-stroke trench shaping as a goal-conditioned learning problem (paper 003
§4.4-4.5).

An action (x0, y0, x1, y1) in [-1, 1]^4 is one straight stroke across the sand bed; the sand-shaping
tier executes it (the blade lowered to the trench depth at the start, pushed to the end, lifted;
erosion to steady state). The observation is Gymnasium's goal-conditioned Dict: `observation` and
`achieved_goal` (the sand's heightmap) and `desired_goal` (the goal's), float32 heights [m] indexed
[j, i] (j along y). The reward is the paper's, the decrease of the L1 distance to the goal, as a
fraction of the goal's distance from the flat bed, minus `step_cost`; `compute_reward` gives the
same for any (achieved, desired) pair, vectorised, for hindsight replay. Stepping runs in C++
(talus.shaping.StrokeEnvBatch): the environment is a batch of one, make_vec's a batch of N.
docs/envs.md describes the options, the goals and the definition of a correct stroke.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _talus
from ._checks import is_int, is_real
from .core import Env
from .render import render_stroke_bed
from .spaces import Box, Dict

LETTERS = _talus.shaping.stroke_letter_names()

# ShapingStrokes-v0's options and their defaults (docs/envs.md): the goals, the bed and blade
# (shaping/stroke_env.hpp explains the choice of depth and width), the rules.
OPTIONS = dict(goals="letters", random_strokes=(1, 3), cells=32, cell_size_m=0.01,
               sand_height_m=0.05, trench_depth_m=0.006, blade_width_m=0.03,
               blade_thickness_m=0.015, repose_angle_deg=30.0, step_cost=0.02, extra_strokes=2,
               success_fraction=0.1)


class ShapingStrokesEnv(Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(self, render_mode=None, cell_px=8, **options):
        """options (docs/envs.md), defaults in OPTIONS: goals: "letters" (a uniform letter A-Z per
        episode), a string of letters ("XZ"), or "random" (`random_strokes` = (min, max) random
        strokes per goal); the bed (cells, cell_size_m, sand_height_m, trench_depth_m,
        blade_width_m, blade_thickness_m, repose_angle_deg); the rules (step_cost, extra_strokes,
        success_fraction). A reset's options may name the episode's goal ("goal": a letter, or
        strokes as rows (x0, y0, x1, y1) in bed cells)."""
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.cell_px = int(cell_px)
        self._game = _StrokeGame(1, **options)
        self.bed = self._game.bed
        self.step_cost = self._game.step_cost
        self.observation_space = self._game.single_observation_space()
        self.action_space = Box(-1.0, 1.0, (4,), np.float32)
        self._seeded = self._started = self._ended = False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"goal"})
        if unknown:
            raise ValueError(f"options: unknown keys {unknown}; expected 'goal'")
        g = self._game
        if seed is not None or not self._seeded:
            g.batch.reset(np.array([self._first_seed(seed)], np.uint64), g.achieved, g.desired)
            self._seeded = True
        elif "goal" not in options:
            g.batch.redraw(0, g.achieved[0], g.desired[0])
        g.names[0] = None
        if "goal" in options:
            g.set_goal(0, options["goal"])
        self._previous = g.achieved[0].copy()
        self._started, self._ended = True, False
        return self._observation(), self._info()

    def _first_seed(self, seed):
        # The episodes' own generator (C++, shared with make_vec): the reset's seed, or a draw of
        # np_random the first time without one.
        return int(seed) if seed is not None else int(self.np_random.integers(2**63))

    def step(self, action):
        if not self._started:
            raise RuntimeError("ShapingStrokes-v0: step() before reset(); call reset() first")
        if self._ended:
            raise RuntimeError("ShapingStrokes-v0: step() after the episode ended (terminated or "
                               "truncated); call reset() first")
        checked = _checked_action(action, self.action_space)
        g = self._game
        self._previous = g.achieved[0].copy()
        g.actions[0] = checked
        g.step(threads=1)
        terminated, truncated = bool(g.terminated[0]), bool(g.truncated[0])
        self._ended = terminated or truncated
        return self._observation(), float(g.rewards[0]), terminated, truncated, self._info()

    def compute_reward(self, achieved_goal, desired_goal, info):
        """The reward of reaching `achieved_goal` from info's `previous_achieved_goal` when the
        goal is `desired_goal`, for single maps or batches (..., cells, cells) (docs/envs.md)."""
        return self._game.compute_reward(achieved_goal, desired_goal, info)

    @property
    def goal_strokes(self):
        """The episode's goal strokes, rows (x0, y0, x1, y1) in bed cells."""
        return self._game.batch.goal_of(0).strokes

    def render(self):
        if self.render_mode is None or not self._started:
            return None
        g = self._game
        info = g.batch.info_of(0)
        stroke = info["last_stroke"] if info["strokes"] > 0 else None
        return render_stroke_bed(g.batch.sand_of(0), g.batch.goal_of(0).heights(g.bed.cells),
                                 g.bed, stroke, self.cell_px)

    def _observation(self):
        g = self._game
        return {"observation": g.achieved[0].copy(), "achieved_goal": g.achieved[0].copy(),
                "desired_goal": g.desired[0].copy()}

    def _info(self):
        g = self._game
        info = g.batch.info_of(0)
        info["goal_name"] = g.goal_name(0, info.pop("letter_index"))
        info["is_success"] = info["l1_fraction"] <= g.success_fraction  # the C++ step's rule
        info["previous_achieved_goal"] = self._previous
        return info


class _StrokeGame:
    """The C++ batch behind ShapingStrokes-v0 (one environment) and its vector form (N), with
    the arrays it writes in place."""

    def __init__(self, num_envs, **options):
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"ShapingStrokes-v0: unknown options {unknown}; known: "
                             f"{', '.join(sorted(OPTIONS))}")
        o = dict(OPTIONS, **options)
        goals, cells, repose_angle_deg = o["goals"], o["cells"], o["repose_angle_deg"]
        if not (isinstance(repose_angle_deg, (int, float)) and 0 < repose_angle_deg < 90):
            raise ValueError(f"repose_angle_deg: expected a number in (0, 90), got "
                             f"{repose_angle_deg!r}")
        if not (isinstance(cells, (int, np.integer)) and 14 <= cells <= 1024):
            raise ValueError(f"cells: expected an int in [14, 1024], got {cells!r}")
        self.bed = _talus.shaping.StrokeBed(int(cells), o["cell_size_m"], o["sand_height_m"],
                                            o["trench_depth_m"], o["blade_width_m"],
                                            o["blade_thickness_m"],
                                            math.radians(repose_angle_deg))
        for name in ("step_cost", "success_fraction"):
            if not (is_real(o[name]) and np.isfinite(o[name]) and o[name] >= 0):
                raise ValueError(f"{name}: expected a number >= 0, got {o[name]!r}")
        extra = o["extra_strokes"]
        if not (is_int(extra) and extra >= 0):
            raise ValueError(f"extra_strokes: expected an int >= 0, got {extra!r}")
        self.step_cost, self.success_fraction = float(o["step_cost"]), float(o["success_fraction"])
        self.source, self.letters = _goal_source(goals, self.bed, o["random_strokes"])
        most = (max(len(_talus.shaping.letter_strokes(x, self.bed.cells)) for x in self.letters)
                if self.letters else int(o["random_strokes"][1]))
        self.max_episode_strokes = most + int(o["extra_strokes"])  # the longest episode
        self.batch = _talus.shaping.StrokeEnvBatch(self.bed, self.source, self.step_cost,
                                                   int(o["extra_strokes"]), self.success_fraction,
                                                   num_envs)
        c = self.bed.cells
        self.achieved = np.zeros((num_envs, c, c), np.float32)
        self.desired = np.zeros((num_envs, c, c), np.float32)
        self.actions = np.zeros((num_envs, 4), np.float64)
        self.rewards = np.zeros(num_envs, np.float64)
        self.terminated = np.zeros(num_envs, bool)
        self.truncated = np.zeros(num_envs, bool)
        self.names = [None] * num_envs  # the name of a goal given in reset options

    def single_observation_space(self):
        """Heights between 0 and the highest cone the sand the blade can reach could pile into
        (volume cells^2 * cell^2 * depth at the angle of repose): a bound, not a typical value."""
        b = self.bed
        volume = (b.cells * b.cell_size_m) ** 2 * b.trench_depth_m
        cone = (3.0 * volume * math.tan(b.repose_angle_rad) ** 2 / math.pi) ** (1.0 / 3.0)
        box = Box(0.0, b.sand_height_m + cone, (b.cells, b.cells), np.float32)
        return Dict({"observation": box, "achieved_goal": box, "desired_goal": box})

    def step(self, threads):
        self.batch.step(self.actions, self.achieved, self.desired, self.rewards, self.terminated,
                        self.truncated, threads)

    def goal_name(self, i, letter_index):
        if self.names[i] is not None:
            return self.names[i]
        return "random" if letter_index < 0 else self.letters[letter_index]

    def set_goal(self, i, chosen):
        """Starts environment i on the goal of reset options: a letter or stroke rows."""
        if isinstance(chosen, str):
            if len(chosen) != 1 or chosen.upper() not in LETTERS:
                raise ValueError(f"options['goal']: expected one letter A-Z or stroke rows "
                                 f"(x0, y0, x1, y1), got {chosen!r}")
            name = chosen.upper()
            strokes = _talus.shaping.letter_strokes(name, self.bed.cells)
            index = self.letters.find(name) if self.letters else -1
        else:
            strokes = np.asarray(chosen, dtype=np.float64)
            c = self.bed.cells
            if (strokes.ndim != 2 or strokes.shape[1] != 4 or len(strokes) < 1
                    or not np.all(np.isfinite(strokes)) or np.any(strokes < 0)
                    or np.any(strokes > c - 1)):
                raise ValueError(f"options['goal']: expected stroke rows (x0, y0, x1, y1) in bed "
                                 f"cells [0, {c - 1}], got {chosen!r}")
            name, index = "custom", -1
        goal = _talus.shaping.StrokeGoal(self.bed, strokes, index)
        self.batch.set_goal(i, goal, self.achieved[i], self.desired[i])
        self.names[i] = name

    def compute_reward(self, achieved_goal, desired_goal, info):
        achieved = np.asarray(achieved_goal, dtype=np.float64)
        desired = np.asarray(desired_goal, dtype=np.float64)
        previous = np.asarray(_previous_of(info), dtype=np.float64)
        if not (achieved.shape == desired.shape == previous.shape and achieved.ndim >= 2):
            raise ValueError(f"compute_reward: achieved_goal {achieved.shape}, desired_goal "
                             f"{desired.shape} and info['previous_achieved_goal'] "
                             f"{previous.shape} must be maps of one shape (..., cells, cells)")
        before = _l1(previous, desired)
        return (before - _l1(achieved, desired)) / self._scale(desired) - self.step_cost

    def is_success(self, achieved_goal, desired_goal):
        """Whether the sand is within success_fraction of the goal (the episode's termination),
        vectorised like compute_reward: for hindsight replay's relabelled goals."""
        achieved = np.asarray(achieved_goal, dtype=np.float64)
        desired = np.asarray(desired_goal, dtype=np.float64)
        return _l1(achieved, desired) <= self.success_fraction * self._scale(desired)

    def _scale(self, desired):
        """A goal's L1 distance from the flat bed (the reward's unit). A flat desired goal
        (possible only for a relabelled one) is measured against one cell dug to the trench
        depth, so the fraction stays finite."""
        return np.maximum(_l1(desired, self.bed.sand_height_m), self.bed.trench_depth_m)


def _l1(a, b):
    """The L1 distance of maps over their last two axes (in height: the cell area cancels)."""
    return np.abs(a - b).sum(axis=(-2, -1))


def _checked_action(action, space, shape=(4,), meaning="x0, y0, x1, y1 per stroke"):
    """The action as float64 after checking it: real numbers (a float or integer dtype, not bool),
    the shape, finite, in [-1, 1]. float64 arrays are accepted though the space's dtype is
    float32 (what numpy and most agents produce); anything else raises ValueError naming the
    action and the space."""
    try:
        a = np.asarray(action)
        ok = (a.shape == shape and a.dtype != bool
              and (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)))
        a = a.astype(np.float64) if ok else None
    except (TypeError, ValueError):
        ok = False
    if not ok or not np.all(np.isfinite(a)) or np.any(np.abs(a) > 1.0):
        raise ValueError(f"action {action!r} is not in the action space {space}: expected "
                         f"{shape} real numbers ({meaning}) in [-1, 1]")
    return a


def _previous_of(info):
    """info['previous_achieved_goal'] from a dict (of one map or a batch) or a sequence of
    dicts (one per transition, as hindsight replay buffers keep them)."""
    if isinstance(info, dict):
        if "previous_achieved_goal" not in info:
            raise ValueError("compute_reward: info must hold 'previous_achieved_goal' (the "
                             "step's info has it)")
        return info["previous_achieved_goal"]
    try:
        return np.stack([_previous_of(i) for i in info])
    except TypeError:
        raise ValueError("compute_reward: info must be a dict or a sequence of dicts holding "
                         "'previous_achieved_goal'") from None


def _goal_source(goals, bed, random_strokes):
    """(StrokeGoalSource, its letters: '' for random goals) of the `goals` option."""
    if not isinstance(goals, str) or not goals:
        raise ValueError(f"goals: expected 'letters', 'random' or letters A-Z, got {goals!r}")
    if goals == "random":
        low, high = (int(n) for n in random_strokes)
        try:
            return _talus.shaping.StrokeGoalSource.random(bed, low, high), ""
        except ValueError as e:
            raise ValueError(f"random_strokes: {e}") from None
    letters = LETTERS if goals == "letters" else goals.upper()
    if set(letters) - set(LETTERS):
        raise ValueError(f"goals: expected 'letters', 'random' or letters A-Z, got {goals!r}")
    return _talus.shaping.StrokeGoalSource.of_letters(bed, letters), letters
