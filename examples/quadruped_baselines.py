"""QuadrupedGranular-v0's baselines (paper 000): the scripted trot (talus.envs.ScriptedTrot),
standing still (all targets 0) and a uniformly random policy, one episode each on pebbles from
the same seed. Writes into OUT_DIR:

  quadruped_travel.png       the torso's x [m] against simulated time, each policy
  quadruped_baselines.csv    policy, return, steps, final x, fell, why the episode stopped early

    PYTHONPATH=build/python /usr/bin/python3 examples/quadruped_baselines.py OUT_DIR
"""

import csv
import pathlib
import sys

import numpy as np

import talus
import talus.envs as E


def play(env, policy, seed):
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    total, t, xs = 0.0, [], []
    while True:
        action = policy(obs) if policy is not None else env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        t.append(info["sim_time_s"])
        xs.append(float(obs[0]))
        if terminated or truncated:
            return total, info, t, xs


def main(out="quadruped_baselines"):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = E.make("QuadrupedGranular-v0")
    policies = (("trot", E.ScriptedTrot(env.actuator_names)),
                ("stand", lambda obs: np.zeros(12, np.float32)), ("random", None))
    results = {name: play(env, policy, 0) for name, policy in policies}
    talus.write_plot(out / "quadruped_travel.png",
                     [(name, r[2], r[3]) for name, r in results.items()],
                     title="QuadrupedGranular-v0 on pebbles: torso x against time",
                     x_label="simulated time [s]", y_label="torso x [m]")
    with open(out / "quadruped_baselines.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy", "return", "steps", "final_x_m", "fell", "stop_reason"])
        for name, (total, info, _t, xs) in results.items():
            w.writerow([name, f"{total:.3f}", info["steps"], f"{xs[-1]:.3f}", info["fell"],
                        info.get("stop_reason", "")])
    summary = ", ".join(f"{name} {r[0]:.2f}" for name, r in results.items())
    print(f"wrote {out}: returns {summary}")


if __name__ == "__main__":
    main(*sys.argv[1:])
