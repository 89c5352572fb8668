#!/usr/bin/python3
"""Trains DDPG + hindsight experience replay on ShapingStrokes-v0 (paper 003 §4.4-4.5:
multi-stroke trenching of letters) for the paper's budget of 10,000 episodes and evaluates it on
the 26 letters (docs/envs.md defines a correct stroke).

Usage: examples/train_ddpg_her.py OUT_DIR [--episodes N] [--seed S] [--threads T]
       examples/train_ddpg_her.py OUT_DIR --evaluate CHECKPOINT

Writes into OUT_DIR: checkpoint.pt, log.csv, learning_curve.png, learning_curve_wall.png,
training.json, evaluation.csv and evaluation.png (talus.agents.ddpg_her,
talus.agents.stroke_eval). Needs Debian's python3-torch (scripts/install-deps.sh installs it) and
talus on PYTHONPATH (build/python).
"""

import argparse
import json
import pathlib
import sys

import talus.envs as E
from talus.agents import ddpg_her, stroke_eval


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("out", type=pathlib.Path, help="output folder (created if missing)")
    parser.add_argument("--episodes", type=int, default=ddpg_her.DdpgHerConfig.total_episodes,
                        help="episodes to train for (the paper: 10,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--evaluate", type=pathlib.Path, metavar="CHECKPOINT",
                        help="only evaluate this checkpoint")
    args = parser.parse_args()
    if args.episodes <= 0 or args.threads <= 0:
        parser.error("--episodes and --threads must be positive")
    args.out.mkdir(parents=True, exist_ok=True)
    checkpoint = args.evaluate
    if checkpoint is None:
        config = ddpg_her.DdpgHerConfig(total_episodes=args.episodes, seed=args.seed,
                                        threads=args.threads)

        def progress(episodes, total, wall_s):
            print(f"\r{episodes:>6} / {total} episodes, {wall_s:7.0f} s", end="", flush=True)

        result = ddpg_her.train(config, args.out, progress)
        print(f"\ntrained: {json.dumps(result)}")
        checkpoint = args.out / "checkpoint.pt"
    elif not checkpoint.is_file():
        parser.error(f"{checkpoint}: no such checkpoint")
    policy = ddpg_her.load_policy(checkpoint, E.make("ShapingStrokes-v0").bed)
    rows, frames = stroke_eval.evaluate(policy)
    totals = stroke_eval.write_evaluation(rows, frames, args.out, "DDPG + HER on ShapingStrokes-v0")
    for r in rows:
        print(f"{r['letter']}: {r['strokes']} strokes for {r['goal_strokes']}, drawn "
              f"{r['drawn']}, correct {r['correct_strokes']} "
              f"{'ALL CORRECT' if r['all_correct'] else ''} IoU {r['iou']:.2f}")
    print(json.dumps(totals))
    (args.out / "evaluation.json").write_text(json.dumps(totals, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
