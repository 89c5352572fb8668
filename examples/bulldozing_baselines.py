"""Bulldozing-v0's baselines (paper 001 §III-A): the scripted push (talus.envs.ScriptedBulldozer)
and a uniformly random policy, one episode each from the same seed. Writes into OUT_DIR:

  bulldozing_scripted.png  the arena from above at four times of the scripted episode
  bulldozing_reward.png    the reward per step [paper 001's score] against simulated time, both
  bulldozing_baselines.csv policy, return, particles in the goal box at the end, wall time

    PYTHONPATH=build/python /usr/bin/python3 examples/bulldozing_baselines.py OUT_DIR \
        [--particles N] [--radius R] [--time-step DT] [--vehicle kinematic|dynamic]

The defaults are the environment's (10,000 particles of 2 cm, 1 ms steps); `make demo` runs a
reduced heap (--particles 2000 --radius 0.034 --time-step 0.002) to stay within its time.
"""

import argparse
import csv
import pathlib
import sys
import time

import numpy as np

import talus
import talus.envs as E


def play(env, policy, seed, frames_at=()):
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    rewards, frames, start = [], [], time.perf_counter()
    while True:
        action = policy(obs) if policy is not None else env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if len(rewards) in frames_at:
            frames.append(env.render())
        if len(rewards) % 100 == 0:
            print(f"  {len(rewards)} steps, {info['particles_in_goal']} particles in the goal",
                  file=sys.stderr, flush=True)
        if terminated or truncated:
            return rewards, info, frames, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--particles", type=int, default=10000)
    parser.add_argument("--radius", type=float, default=0.02)
    parser.add_argument("--time-step", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vehicle", choices=("kinematic", "dynamic"), default="kinematic",
                        help="paper 001's kinematic bulldozer or the MuJoCo one that feels the "
                             "particles (file names then end in _dynamic)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    steps = max(1, round(0.1 / args.time_step))
    env = E.make("Bulldozing-v0", render_mode="rgb_array", particle_count=args.particles,
                 particle_radius_m=args.radius, time_step_s=args.time_step,
                 steps_per_action=steps, vehicle=args.vehicle)
    tag = "" if args.vehicle == "kinematic" else "_dynamic"
    dt = steps * args.time_step
    n_steps = round(env.world.options.episode_s / dt)
    keep = (1, n_steps // 3, 2 * n_steps // 3, n_steps)
    results = {}
    for name, policy in (("scripted", E.ScriptedBulldozer()), ("random", None)):
        print(f"{name} policy:", file=sys.stderr)
        results[name] = play(env, policy, args.seed, keep if name == "scripted" else ())

    frames = results["scripted"][2]
    gap = np.full((frames[0].shape[0], 6, 3), 255, np.uint8)
    strip = np.concatenate([part for f in frames for part in (f, gap)][:-1], axis=1)
    talus.write_png(args.out / f"bulldozing_scripted{tag}.png", strip,
                    f"Bulldozing-v0, scripted push, {args.vehicle} bulldozer ({args.particles} particles of "
                    f"{args.radius * 100:.1f} cm): the 8 m x 4 m arena from above at "
                    f"t = {', '.join(f'{k * dt:.0f}' for k in keep)} s; goal box in green, "
                    f"heading in blue")
    series = []
    for name, (rewards, *_rest) in results.items():
        t = [dt * (k + 1) for k in range(len(rewards))]
        series.append((name, t, rewards))
    talus.write_plot(args.out / f"bulldozing_reward{tag}.png", series,
                     title=f"Bulldozing-v0: reward per step, {args.particles} particles, {args.vehicle}",
                     x_label="simulated time [s]", y_label="reward per step")
    with open(args.out / f"bulldozing_baselines{tag}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy", "return", "particles_in_goal", "particles", "wall_s",
                    "env_steps_per_s"])
        for name, (rewards, info, _frames, wall) in results.items():
            w.writerow([name, f"{sum(rewards):.1f}", info["particles_in_goal"], args.particles,
                        f"{wall:.1f}", f"{len(rewards) / wall:.2f}"])
    s, r = results["scripted"], results["random"]
    print(f"wrote {args.out}: scripted return {sum(s[0]):.0f} ({s[1]['particles_in_goal']} in "
          f"goal), random {sum(r[0]):.0f} ({r[1]['particles_in_goal']} in goal)")


if __name__ == "__main__":
    main()
