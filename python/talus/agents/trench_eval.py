"""Evaluation of a ShapingTrench-v0 policy over the 26 letters (issue 17): per letter the greedy
policy plays one episode from the letter's default start (where the A* stroke starts) and the
table records its steps against the A* optimum, whether it dug the goal exactly, and the
intersection over union of the dug and the goal cells. One picture holds every letter's final map
(the goal outlined), so a person sees at a glance which letters the agent digs."""

from __future__ import annotations

import csv
import pathlib
import string

import numpy as np

import talus
import talus.envs as E


def play_letter(policy, letter, max_steps=100):
    """One greedy episode on `letter`; returns its row and its last frame."""
    env = E.make("ShapingTrench-v0", goals=letter, render_mode="rgb_array",
                 max_episode_steps=max_steps)
    obs, info = env.reset(seed=0)
    optimal = int(info["optimal_steps"])
    steps, terminated, truncated = 0, False, False
    while not (terminated or truncated):
        obs, _, terminated, truncated, info = env.step(policy(obs))
        steps += 1
    dug, goal = obs[0] > 0.5, obs[1] > 0.5
    iou = float((dug & goal).sum() / max(1, (dug | goal).sum()))
    frame = env.render()
    env.close()
    row = {"letter": letter, "steps": steps, "optimal_steps": optimal,
           "success": bool(terminated), "optimal": bool(terminated and steps == optimal),
           "iou": round(iou, 4), "dug_outside": int(info["dug_outside"])}
    return row, frame


def evaluate(policy, letters=string.ascii_uppercase):
    """Rows (one per letter) and frames of `policy` on ShapingTrench-v0."""
    rows, frames = [], []
    for letter in letters:
        row, frame = play_letter(policy, letter)
        rows.append(row)
        frames.append(frame)
    return rows, frames


PASSED_RGB = (0, 150, 60)  # green frame: the letter counts
FAILED_RGB = (210, 30, 30)  # red frame: it does not


def frame_grid(frames, columns=7, gap_px=6, passed=None, border_px=4):
    """The frames side by side in rows of `columns`, white gaps between them. With `passed` (one
    bool per frame), each frame sits in a `border_px` frame, green where the letter counts and
    red where it does not, so that a person sees the verdict beside the sand that earned it."""
    h, w, _ = frames[0].shape
    b = border_px if passed is not None else 0
    if passed is not None and len(passed) != len(frames):
        raise ValueError(f"frame_grid: {len(passed)} verdicts for {len(frames)} frames")
    cell_h, cell_w = h + 2 * b, w + 2 * b
    rows = (len(frames) + columns - 1) // columns
    grid = np.full((rows * (cell_h + gap_px) + gap_px, columns * (cell_w + gap_px) + gap_px, 3),
                   255, np.uint8)
    for k, f in enumerate(frames):
        r, c = divmod(k, columns)
        y, x = gap_px + r * (cell_h + gap_px), gap_px + c * (cell_w + gap_px)
        if passed is not None:
            grid[y:y + cell_h, x:x + cell_w] = PASSED_RGB if passed[k] else FAILED_RGB
        grid[y + b:y + b + h, x + b:x + b + w] = f
    return grid


def write_evaluation(rows, frames, out_dir, title):
    """evaluation.csv, evaluation.png (the final maps, A-Z left to right, top to bottom, in a green
    frame where the letter was dug in the A* step count, red where not) and the totals as a
    dict."""
    out = pathlib.Path(out_dir)
    with open(out / "evaluation.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    totals = {"letters": len(rows), "dug_exactly": sum(r["success"] for r in rows),
              "optimal": sum(r["optimal"] for r in rows),
              "mean_iou": round(float(np.mean([r["iou"] for r in rows])), 4)}
    talus.write_png(out / "evaluation.png",
                    frame_grid(frames, passed=[r["optimal"] for r in rows]),
                    f"{title}: final maps A-Z (goal outlined in red); optimal (green frame) on "
                    f"{totals['optimal']} of {totals['letters']}, not (red frame) on the rest")
    return totals
