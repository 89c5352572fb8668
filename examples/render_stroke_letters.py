"""Draws ShapingStrokes-v0's 26 letter goals: each letter's strokes executed in order on the flat
bed by the environment itself, rendered (goal trenches outlined in red, the last stroke blue), in
one grid A-Z; prints each letter's stroke count and return.

    PYTHONPATH=build/python /usr/bin/python3 examples/render_stroke_letters.py out/letters.png
"""

import sys

import numpy as np

import talus
import talus.envs as E
from talus.agents.trench_eval import frame_grid


def main(out="stroke_letters.png"):
    env = E.make("ShapingStrokes-v0", render_mode="rgb_array", cell_px=6)
    frames = []
    for letter in E.shaping_strokes.LETTERS:
        env.reset(seed=0, options={"goal": letter})
        total, terminated = 0.0, False
        for stroke in env.goal_strokes:
            action = stroke * (2.0 / (env.bed.cells - 1)) - 1.0
            _, reward, terminated, _, _ = env.step(action)
            total += reward
        frames.append(env.render())
        print(f"{letter}: {len(env.goal_strokes)} strokes, return {total:.3f}, reached "
              f"{terminated}")
    talus.write_png(out, frame_grid(frames, columns=9),
                    "ShapingStrokes-v0: the 26 letter goals on the 32 x 32 bed (1 cm cells), "
                    "strokes pushed in order")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
