"""Trains TD3 (talus.agents.td3) on a reduced Bulldozing-v0 and compares it with a uniformly
random policy, as paper 001's Fig. 8 shows TD3's return rising above the initial random policy's
against wall time. Writes into OUT_DIR: train_log.csv, learning_curve.png (return per episode),
learning_curve_wall.png (its moving mean against wall time), checkpoint.pt, config.json and
evaluation.csv (the trained policy without noise and the random policy, 5 episodes each).

    PYTHONPATH=build/python /usr/bin/python3 examples/train_td3_bulldozing.py OUT_DIR \
        [--minutes 20] [--steps 40000]

The reduced task (REDUCED below, docs/envs.md): 1,000 particles of 4 cm at a 2 ms step in a heap
around (-0.3, 0) m, the bulldozer starting behind it at x in [-2.8, -2.4] m, |y| <= 0.3 m, heading
within 0.5 rad of +x, 15 s episodes: a task a few thousand steps of TD3 can learn on 2 cores.
"""

import argparse
import csv
import math
import os
import pathlib
import sys

# OpenBLAS's own threads and torch's OpenMP threads took turns badly on 2 cores: a TD3 update of
# an earlier, larger network took 335 ms with OpenBLAS on 2 threads and 168 ms on 1 (torch on 2).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import torch

from talus.agents import td3

REDUCED = dict(particle_count=1000, particle_radius_m=0.04, time_step_s=0.002,
               steps_per_action=50, episode_s=15.0, heap_centre_m=(-0.3, 0.0),
               heap_offset_m=0.2, start_lo_m=(-2.8, -0.3), start_hi_m=(-2.4, 0.3),
               start_yaw_max_rad=0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--steps", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = td3.Td3Config(env_options=REDUCED, total_steps=args.steps,
                           wall_budget_s=60.0 * args.minutes, seed=args.seed)

    def progress(step, total, episodes, ret, wall):
        print(f"  step {step}/{total}, episode {episodes}, return {ret:.1f}, {wall:.0f} s",
              file=sys.stderr, flush=True)

    agent, log = td3.train(config, args.out, progress)
    log.write_curve(args.out / "learning_curve.png", "TD3 on reduced Bulldozing-v0", window=10)
    options = None

    def trained(obs):
        nonlocal options
        if options is None:
            import talus.envs as E
            options = E.make("Bulldozing-v0", **REDUCED).world.options
        return np.clip(agent.act(*td3.preprocess(obs, options)), -1, 1).astype(np.float32)

    seeds = range(1000, 1005)
    with torch.no_grad():
        rows = {"td3": td3.evaluate(trained, REDUCED, seeds),
                "random": td3.evaluate(None, REDUCED, seeds)}
    with open(args.out / "evaluation.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy", "seed", "return", "particles_in_goal"])
        for name, results in rows.items():
            for seed, (ret, inside) in zip(seeds, results):
                w.writerow([name, seed, f"{ret:.2f}", inside])
    means = {name: float(np.mean([r for r, _ in results])) for name, results in rows.items()}
    wall = float(log.rows[-1]["wall_s"]) if log.rows else math.nan
    print(f"wrote {args.out}: {len(log.rows)} episodes in {wall:.0f} s; mean return over 5 "
          f"episodes: TD3 {means['td3']:.1f}, random {means['random']:.1f}")


if __name__ == "__main__":
    main()
