"""Excavation-v0's baselines (paper 001 §III-C): the scripted scoop (talus.envs.ScriptedScoop)
and a uniformly random policy, one episode each from the same seed. Writes into OUT_DIR:

  excavation_scripted.png   the arm from the side and the tub from above at four times of the
                            scripted episode
  excavation_held.png       mass held in the bucket above the bed [kg] against simulated time
  excavation_force.png      the particles' force on the bucket [N] against simulated time
  excavation_baselines.csv  policy, return, mass held at the end, peak force, how it ended,
                            wall time

    PYTHONPATH=build/python /usr/bin/python3 examples/excavation_baselines.py OUT_DIR \
        [--particles N] [--radius R] [--seed S]

The defaults are the environment's (3,000 particles of 1.25 cm, 1 ms steps, 10 s episodes).
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
    if policy is not None:
        policy.reset()
    held, force, rewards, frames, start = [], [], [], [], time.perf_counter()
    while True:
        action = policy(obs) if policy is not None else env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        held.append(info["held_kg"])
        force.append(info["tool_force_N"])
        if len(rewards) in frames_at:
            frames.append(env.render())
        if len(rewards) % 50 == 0:
            print(f"  {len(rewards)} steps, {info['held_kg']:.2f} kg held", file=sys.stderr,
                  flush=True)
        if terminated or truncated:
            end = info.get("stop_reason") or ("terminated" if terminated else "time limit")
            return dict(rewards=rewards, held=held, force=force, info=info, frames=frames,
                        end=end, wall=time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--particles", type=int, default=3000)
    parser.add_argument("--radius", type=float, default=0.0125)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    env = E.make("Excavation-v0", render_mode="rgb_array", particle_count=args.particles,
                 particle_radius_m=args.radius)
    o = env.world.options
    dt = o.steps_per_action * o.time_step_s
    n_steps = round(o.episode_s / dt)
    keep = (1, round(1.5 / dt), round(4.0 / dt), n_steps)
    results = {}
    for name, policy in (("scripted", E.ScriptedScoop(bed_top_m=env.world.bed_top_m)),
                         ("random", None)):
        print(f"{name} policy:", file=sys.stderr)
        results[name] = play(env, policy, args.seed, keep if name == "scripted" else ())

    frames = results["scripted"]["frames"]
    gap = np.full((frames[0].shape[0], 10, 3), 255, np.uint8)
    strip = np.concatenate([part for f in frames for part in (f, gap)][:-1], axis=1)
    times = ", ".join(f"{k * dt:.1f}" for k in keep[:len(frames)])
    talus.write_png(args.out / "excavation_scripted.png", strip,
                    f"Excavation-v0, scripted scoop ({args.particles} particles of "
                    f"{args.radius * 100:.2f} cm) at t = {times} s: each panel the arm from the "
                    f"side (-y) and the 0.6 m x 0.6 m tub from above; bucket in blue")
    for key, title, label in (("held", "mass held above the bed", "mass [kg]"),
                              ("force", "force on the bucket", "mean force per step [N]")):
        series = [(name, [dt * (k + 1) for k in range(len(r[key]))], r[key])
                  for name, r in results.items()]
        talus.write_plot(args.out / f"excavation_{key}.png", series,
                         title=f"Excavation-v0: {title}, {args.particles} particles",
                         x_label="simulated time [s]", y_label=label)
    with open(args.out / "excavation_baselines.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy", "return", "held_kg", "held_particles", "peak_force_N", "end",
                    "wall_s", "env_steps_per_s"])
        for name, r in results.items():
            w.writerow([name, f"{sum(r['rewards']):.2f}", f"{r['info']['held_kg']:.3f}",
                        r["info"]["held_particles"], f"{max(r['force']):.0f}", r["end"],
                        f"{r['wall']:.1f}", f"{len(r['rewards']) / r['wall']:.1f}"])
    s, r = results["scripted"], results["random"]
    print(f"wrote {args.out}: scripted return {sum(s['rewards']):.1f} "
          f"({s['info']['held_kg']:.2f} kg held), random {sum(r['rewards']):.1f} "
          f"({r['info']['held_kg']:.2f} kg held)")


if __name__ == "__main__":
    main()
