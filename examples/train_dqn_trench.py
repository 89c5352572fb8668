#!/usr/bin/python3
"""Trains a DQN on ShapingTrench-v0 (paper 003 §4.1-4.3: single-stroke trenching with four moves)
and evaluates it on the 26 letters against the A* optimum.

Usage: examples/train_dqn_trench.py OUT_DIR [--steps N] [--seed S] [--threads T]
       examples/train_dqn_trench.py OUT_DIR --evaluate CHECKPOINT

Writes into OUT_DIR: checkpoint.pt, log.csv, learning_curve.png, learning_curve_wall.png,
training.json, evaluation.csv and evaluation.png (talus.agents.dqn, talus.agents.trench_eval).
Needs Debian's python3-torch (scripts/install-deps.sh installs it) and talus on PYTHONPATH
(build/python).
"""

import argparse
import json
import pathlib
import sys

from talus.agents import dqn, trench_eval


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("out", type=pathlib.Path, help="output folder (created if missing)")
    parser.add_argument("--steps", type=int, default=dqn.DqnConfig.total_env_steps,
                        help="environment steps to train for")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--evaluate", type=pathlib.Path, metavar="CHECKPOINT",
                        help="only evaluate this checkpoint")
    args = parser.parse_args()
    if args.steps <= 0 or args.threads <= 0:
        parser.error("--steps and --threads must be positive")
    args.out.mkdir(parents=True, exist_ok=True)
    checkpoint = args.evaluate
    if checkpoint is None:
        config = dqn.DqnConfig(total_env_steps=args.steps, seed=args.seed, threads=args.threads)

        def progress(done, total, episodes):
            print(f"\r{done:>9} / {total} env steps, {episodes} episodes", end="", flush=True)

        result = dqn.train(config, args.out, progress)
        print(f"\ntrained: {json.dumps(result)}")
        checkpoint = args.out / "checkpoint.pt"
    elif not checkpoint.is_file():
        parser.error(f"{checkpoint}: no such checkpoint")
    rows, frames = trench_eval.evaluate(dqn.load_policy(checkpoint))
    totals = trench_eval.write_evaluation(rows, frames, args.out, "DQN on ShapingTrench-v0")
    for r in rows:
        print(f"{r['letter']}: {r['steps']:>3} steps (A* {r['optimal_steps']:>2}) "
              f"{'optimal' if r['optimal'] else 'dug' if r['success'] else 'FAILED'} "
              f"IoU {r['iou']:.2f}")
    print(json.dumps(totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
