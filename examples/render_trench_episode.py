"""Plays the optimal (A*) single stroke of a letter in talus.envs' ShapingTrench-v0 and writes a
strip of rendered frames (the start, every quarter of the stroke, the end) as one PNG; with
`heightmap` as third argument on the heightmap backend (the blade pushed through sand).

    PYTHONPATH=build/python /usr/bin/python3 examples/render_trench_episode.py A out/trench_A.png
    PYTHONPATH=build/python /usr/bin/python3 examples/render_trench_episode.py T out/T.png heightmap
"""

import sys

import numpy as np

import talus
import talus.envs as E

ACTION = {"up": 0, "down": 1, "left": 2, "right": 3}


def main(letter="A", out="trench.png", backend="binary"):
    env = E.make("ShapingTrench-v0", render_mode="rgb_array", backend=backend)
    _, info = env.reset(seed=0, options={"goal": letter})
    plan = talus.shaping.plan_single_stroke_trench(talus.shaping.letter_map(letter),
                                                   start=talus.shaping.GridCell(*info["start"]))
    keep = {0, plan.steps} | {plan.steps * q // 4 for q in (1, 2, 3)}
    frames, total = [env.render()], 0.0
    for k, name in enumerate(plan.actions, start=1):
        _, reward, terminated, _, info = env.step(ACTION[name])
        total += reward
        if k in keep:
            frames.append(env.render())
    gap = np.full((frames[0].shape[0], 8, 3), 255, np.uint8)
    strip = np.concatenate([part for f in frames for part in (f, gap)][:-1], axis=1)
    talus.write_png(out, strip, f"ShapingTrench-v0 ({backend}), letter {letter}: the optimal stroke "
                                f"of {plan.steps} steps at moves {sorted(keep)}; return "
                                f"{total:.2f}, reached: {terminated}")
    print(f"wrote {out}: {len(frames)} frames, {plan.steps} steps, return {total:.2f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
