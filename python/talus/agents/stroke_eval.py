"""Evaluation of a ShapingStrokes-v0 policy over the 26 letters (issue 17), with the definition of
a correct stroke fixed before training (docs/envs.md):

- a stroke the agent made is **correct** when each of its two ends lies within one cell (Euclidean
  distance <= 1 cell) of the corresponding end of one of the goal's strokes, the ends taken in
  either order (a push from a to b and one from b to a cut the same trench);
- a goal stroke is **drawn** when some stroke of the episode is correct for it;
- a letter is **correct** (every stroke correct) when every goal stroke is drawn and every stroke
  the agent made is correct.

Per letter the deterministic policy plays one episode, until the environment terminates it (the
sand within its success fraction of the goal), truncates it (at the letter's stroke count plus
two) or the policy stops: a policy may return None instead of a stroke to say the letter is
finished (the DDPG agent does when it expects no stroke to pay for itself, ddpg_her.load_policy).
The table also gives the strokes drawn in the goal's own direction, the final L1 distance as a
fraction of the goal's, and the intersection over union of the trench cells (deeper than half the
trench depth) of the final sand and the goal."""

from __future__ import annotations

import csv
import pathlib
import string

import numpy as np

import talus
import talus.envs as E
from .trench_eval import frame_grid


def stroke_correct(stroke, goal_strokes, tolerance_cells=1.0):
    """The indices of the goal strokes `stroke` (x0, y0, x1, y1 in cells) is correct for."""
    s = np.asarray(stroke, np.float64)
    g = np.asarray(goal_strokes, np.float64)
    same = (np.hypot(*(g[:, 0:2] - s[0:2]).T) <= tolerance_cells) & \
        (np.hypot(*(g[:, 2:4] - s[2:4]).T) <= tolerance_cells)
    swapped = (np.hypot(*(g[:, 0:2] - s[2:4]).T) <= tolerance_cells) & \
        (np.hypot(*(g[:, 2:4] - s[0:2]).T) <= tolerance_cells)
    return np.flatnonzero(same | swapped), np.flatnonzero(same)


def score_strokes(strokes, goal_strokes):
    """(goal strokes drawn, goal strokes drawn in their own direction, agent strokes correct)."""
    drawn, directed, correct = set(), set(), 0
    for s in strokes:
        any_order, same_order = stroke_correct(s, goal_strokes)
        drawn.update(int(k) for k in any_order)
        directed.update(int(k) for k in same_order)
        correct += bool(len(any_order))
    return len(drawn), len(directed), correct


def play_letter(policy, letter, **options):
    """One deterministic episode on `letter`; returns its row and its last frame."""
    env = E.make("ShapingStrokes-v0", goals=letter, render_mode="rgb_array", **options)
    obs, info = env.reset(seed=0)
    goal_strokes = env.goal_strokes
    strokes, terminated, truncated, stopped = [], False, False, False
    while not (terminated or truncated or stopped):
        action = policy(obs)
        stopped = action is None
        if not stopped:
            obs, _, terminated, truncated, info = env.step(np.asarray(action, np.float64))
            strokes.append(info["last_stroke"])
    drawn, directed, correct = score_strokes(strokes, goal_strokes)
    bed = env.bed
    level = bed.sand_height_m - 0.5 * bed.trench_depth_m
    dug, goal = obs["achieved_goal"] < level, obs["desired_goal"] < level
    iou = float((dug & goal).sum() / max(1, (dug | goal).sum()))
    frame = env.render()
    env.close()
    row = {"letter": letter, "goal_strokes": len(goal_strokes), "strokes": len(strokes),
           "drawn": drawn, "drawn_in_direction": directed, "correct_strokes": correct,
           "all_correct": bool(drawn == len(goal_strokes) and correct == len(strokes)),
           "l1_fraction": round(float(info["l1_fraction"]), 4), "iou": round(iou, 4),
           "success": bool(terminated), "stopped": stopped}
    return row, frame


def evaluate(policy, letters=string.ascii_uppercase, **options):
    """Rows (one per letter) and frames of `policy` on ShapingStrokes-v0."""
    rows, frames = [], []
    for letter in letters:
        row, frame = play_letter(policy, letter, **options)
        rows.append(row)
        frames.append(frame)
    return rows, frames


def totals_of(rows):
    return {"letters": len(rows), "all_strokes_correct": sum(r["all_correct"] for r in rows),
            "at_least_one_stroke_drawn": sum(r["drawn"] > 0 for r in rows),
            "goal_strokes": sum(r["goal_strokes"] for r in rows),
            "goal_strokes_drawn": sum(r["drawn"] for r in rows),
            "terminated_success": sum(r["success"] for r in rows),
            "stopped": sum(r["stopped"] for r in rows),
            "mean_iou": round(float(np.mean([r["iou"] for r in rows])), 4)}


def write_evaluation(rows, frames, out_dir, title):
    """evaluation.csv, evaluation.png (the final sand, A-Z left to right, top to bottom; goal
    trenches outlined in red, the last stroke blue; a green frame round each letter with every
    stroke correct, red round the others) and the totals as a dict."""
    out = pathlib.Path(out_dir)
    with open(out / "evaluation.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    totals = totals_of(rows)
    talus.write_png(out / "evaluation.png",
                    frame_grid(frames, passed=[r["all_correct"] for r in rows]),
                    f"{title}: final sand A-Z (goal trenches outlined red, last stroke blue); "
                    f"every stroke correct (green frame) on {totals['all_strokes_correct']} of "
                    f"{totals['letters']}, not (red frame) on the rest")
    return totals
