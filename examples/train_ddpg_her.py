#!/usr/bin/python3
"""Trains DDPG + hindsight experience replay on ShapingStrokes-v0 (paper 003 §4.4-4.5:
multi-stroke trenching of letters) for the paper's budget of 10,000 episodes and evaluates it on
the 26 letters (docs/envs.md defines a correct stroke).

Usage: examples/train_ddpg_her.py OUT_DIR [--episodes N] [--seed S] [--threads T]
                                   [--critics 1|2] [--search-seeds K]
       examples/train_ddpg_her.py OUT_DIR --evaluate CHECKPOINT_OR_RUN [--search-seeds K]
                                   [--skip-as-trained]

Writes into OUT_DIR: checkpoint.pt (and checkpoint_<episodes>.pt every 2,500 episodes), log.csv,
learning_curve.png, learning_curve_wall.png, training.json, evaluation.csv and evaluation.png
(talus.agents.ddpg_her, talus.agents.stroke_eval) and evaluation.json. The evaluation acts with
the run's checkpoints as one ensemble (ddpg_her.run_checkpoints: Q is the mean over every
snapshot's critics; --evaluate takes a run's folder for that, or one checkpoint file to evaluate
it alone) and ddpg_her.EVALUATION_SEARCH, and stops when no stroke is worth its cost, once per
search seed 0 to K - 1 (the candidates are random: the letters counted vary with the seed); the
csv and the picture are seed 0's, the json has every seed's totals, their median and seed 0's
without the stop (--skip-as-trained leaves that one out: it costs as much as a search seed).
Needs Debian's python3-torch (scripts/install-deps.sh installs it) and
talus on PYTHONPATH (build/python).
"""

import argparse
import json
import pathlib
import sys

import numpy as np

import talus.envs as E
from talus.agents import ddpg_her, stroke_eval


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("out", type=pathlib.Path, help="output folder (created if missing)")
    parser.add_argument("--episodes", type=int, default=ddpg_her.DdpgHerConfig.total_episodes,
                        help="episodes to train for (the paper: 10,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--critics", type=int, choices=(1, 2),
                        default=ddpg_her.DdpgHerConfig.critics,
                        help="2: twin critics (clipped double Q; DdpgHerConfig.critics)")
    parser.add_argument("--evaluate", type=pathlib.Path, metavar="CHECKPOINT_OR_RUN",
                        help="only evaluate: a checkpoint file alone, or a training run's "
                             "folder (its checkpoints as one ensemble)")
    parser.add_argument("--search-seeds", type=int, default=5,
                        help="evaluations, one per seed of the policy's candidate search")
    parser.add_argument("--skip-as-trained", action="store_true",
                        help="leave out seed 0's evaluation without the stop (as trained)")
    args = parser.parse_args()
    if args.episodes <= 0 or args.threads <= 0 or args.search_seeds <= 0:
        parser.error("--episodes, --threads and --search-seeds must be positive")
    checkpoints = args.evaluate
    if checkpoints is not None:
        if checkpoints.is_dir():
            try:
                checkpoints = ddpg_her.run_checkpoints(checkpoints)
            except FileNotFoundError:
                parser.error(f"{checkpoints}: a folder without checkpoint.pt, not a training "
                             "run's")
        elif not checkpoints.is_file():
            parser.error(f"{checkpoints}: no such checkpoint or training run folder")
    args.out.mkdir(parents=True, exist_ok=True)
    if checkpoints is None:
        config = ddpg_her.DdpgHerConfig(total_episodes=args.episodes, seed=args.seed,
                                        threads=args.threads, critics=args.critics)

        def progress(episodes, total, wall_s):
            print(f"\r{episodes:>6} / {total} episodes, {wall_s:7.0f} s", end="", flush=True)

        result = ddpg_her.train(config, args.out, progress)
        print(f"\ntrained: {json.dumps(result)}")
        checkpoints = ddpg_her.run_checkpoints(args.out)
    evaluation = evaluate(checkpoints, args.search_seeds, args.out,
                          as_trained=not args.skip_as_trained)
    print(json.dumps(evaluation))
    (args.out / "evaluation.json").write_text(json.dumps(evaluation, indent=2))
    return 0


def evaluate(checkpoints, search_seeds, out, as_trained=True):
    """The letters with the evaluation's search and stop for each search seed (seed 0's rows and
    picture written into `out`), and with `as_trained` seed 0's without the stop (the protocol
    of the training). `checkpoints`: one checkpoint's path, or a list of them acting as one
    ensemble."""
    bed = E.make("ShapingStrokes-v0").bed
    per_seed = []
    for seed in range(search_seeds):
        policy = ddpg_her.load_policy(checkpoints, bed, seed=seed,
                                      stop_below_q=ddpg_her.EVALUATION_STOP_BELOW_Q,
                                      **ddpg_her.EVALUATION_SEARCH)
        rows, frames = stroke_eval.evaluate(policy)
        if seed == 0:
            stroke_eval.write_evaluation(rows, frames, out, "DDPG + HER on ShapingStrokes-v0")
            for r in rows:
                print(f"{r['letter']}: {r['strokes']} strokes for {r['goal_strokes']}, drawn "
                      f"{r['drawn']}, correct {r['correct_strokes']} "
                      f"{'ALL CORRECT' if r['all_correct'] else ''} IoU {r['iou']:.2f}")
        totals = stroke_eval.totals_of(rows)
        totals["letters_correct"] = "".join(r["letter"] for r in rows if r["all_correct"])
        print(f"search seed {seed}: {json.dumps(totals)}", flush=True)
        per_seed.append(totals)
    names = [checkpoints] if isinstance(checkpoints, pathlib.Path) else checkpoints
    evaluation = {"checkpoints": [str(p) for p in names], "search": ddpg_her.EVALUATION_SEARCH,
                  "stop_below_q": ddpg_her.EVALUATION_STOP_BELOW_Q, "per_search_seed": per_seed,
                  "median_all_strokes_correct": float(np.median(
                      [t["all_strokes_correct"] for t in per_seed]))}
    if as_trained:
        no_stop, _ = stroke_eval.evaluate(ddpg_her.load_policy(checkpoints, bed, seed=0,
                                                               **ddpg_her.EVALUATION_SEARCH))
        evaluation["seed_0_without_stop"] = stroke_eval.totals_of(no_stop)
    return evaluation


if __name__ == "__main__":
    sys.exit(main())
