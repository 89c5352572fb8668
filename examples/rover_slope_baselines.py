"""RoverSlope-v0's baselines (paper 002 Fig. 11): the scripted drive up the slope
(talus.envs.ScriptedRover, 2 rad/s with heading correction) and a uniformly random policy, one
episode each from the same seed. Writes into OUT_DIR:

  rover_slope_slip.png       the scripted drive's mean wheel slip against the chassis's x [m]
                             (docs/images/rover_slope_env_slip.png is a copy of it)
  rover_slope_baselines.csv  policy, return, steps, reached the goal, left the map, wall time

    PYTHONPATH=build/python /usr/bin/python3 examples/rover_slope_baselines.py OUT_DIR
"""

import csv
import pathlib
import sys
import time

import numpy as np

import talus
import talus.envs as E
from talus.envs.rover_slope import OBSERVATION_NAMES

SLIP = [OBSERVATION_NAMES.index(f"slip_{w}") for w in ("fl", "fr", "rl", "rr")]


def play(env, policy, seed):
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    total, xs, slips, start = 0.0, [], [], time.perf_counter()
    while True:
        action = policy(obs) if policy is not None else env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        xs.append(float(obs[0]))
        slips.append(float(np.mean(obs[SLIP])))
        if terminated or truncated:
            return total, info, xs, slips, time.perf_counter() - start


def main(out="rover_slope_baselines"):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = E.make("RoverSlope-v0")
    results = {name: play(env, policy, 0)
               for name, policy in (("scripted", E.ScriptedRover()), ("random", None))}
    _, _, xs, slips, _ = results["scripted"]
    talus.write_plot(out / "rover_slope_slip.png", [("mean wheel slip", xs, slips)],
                     title="RoverSlope-v0 scripted drive (2 rad/s), slope from x = 2 m",
                     x_label="chassis x [m]", y_label="slip 1 - v / (omega r)")
    with open(out / "rover_slope_baselines.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy", "return", "steps", "reached_goal", "left_map", "wall_s"])
        for name, (total, info, _xs, _slips, wall) in results.items():
            w.writerow([name, f"{total:.3f}", info["steps"], info["reached_goal"],
                        info["left_map"], f"{wall:.1f}"])
    s, r = results["scripted"], results["random"]
    print(f"wrote {out}: scripted return {s[0]:.2f} (goal reached: {s[1]['reached_goal']}), "
          f"random {r[0]:.2f} (goal reached: {r[1]['reached_goal']})")


if __name__ == "__main__":
    main(*sys.argv[1:])
