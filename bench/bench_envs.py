"""Environment steps per second through Python (talus.envs), as a learner sees them: one
ShapingTrench-v0 stepped in a loop, and make_vec of 1024 instances on 1 and 2 threads (the
observation batch copied out every step, as returned); ShapingStrokes-v0 (32 x 32, letters, random
strokes) alone and as make_vec of 64 on 1 and 2 threads; Bulldozing-v0 at 10,000 and 50,000
particles (one env step = 0.1 s simulated), its heap at rest and being pushed; RoverSlope-v0
alone (its first 40 steps on the flat, and a whole scripted episode up the slope) and as make_vec
of 4 on 1 and 2 threads; QuadrupedGranular-v0 at a 10 ms and a 1 ms control
period, alone and as make_vec of 16. Prints the CPU model and the median of 3
runs of each. Run by `make bench` after the C++ benchmarks (which time the C++ step alone).

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_envs.py
"""

import os
import statistics
import subprocess
import time

import numpy as np

import talus.envs as E


def cpu_model():
    """The CPU as bench/cpu_model.sh prints it (model name, x86 family, model and stepping, cores):
    a VM's bare "AMD EPYC" does not tell the machine types apart."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpu_model.sh")
    return subprocess.run(["bash", script], capture_output=True, text=True,
                          check=True).stdout.strip()


def single_env_rate(steps=200_000):
    env = E.make("ShapingTrench-v0")
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, size=steps).tolist()
    start = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def vector_env_rate(threads, num_envs=1024, steps=300):
    vec = E.make_vec("ShapingTrench-v0", num_envs, threads=threads)
    vec.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, size=(steps, num_envs))
    start = time.perf_counter()
    for k in range(steps):
        vec.step(actions[k])
    return steps * num_envs / (time.perf_counter() - start)


def strokes_rate(threads, num_envs=64, steps=20):
    """Strokes per second of ShapingStrokes-v0: one env (threads None) or make_vec."""
    rng = np.random.default_rng(0)
    if threads is None:
        env = E.make("ShapingStrokes-v0")
        env.reset(seed=0)
        actions = rng.uniform(-1, 1, (steps * 8, 4))
        start = time.perf_counter()
        for a in actions:
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()
        return len(actions) / (time.perf_counter() - start)
    vec = E.make_vec("ShapingStrokes-v0", num_envs, threads=threads)
    vec.reset(seed=0)
    actions = rng.uniform(-1, 1, (steps, num_envs, 4))
    start = time.perf_counter()
    for k in range(steps):
        vec.step(actions[k])
    return steps * num_envs / (time.perf_counter() - start)


def bulldozing_rate(particles, pushing, threads=2, steps=30, vehicle="kinematic", **options):
    """Env steps per second of Bulldozing-v0 (one env, the particle step on `threads`, the
    kinematic or the dynamic vehicle): the scripted push from its first push into the heap
    (pushing) or standing still (a heap at rest), after the steps that bring it there."""
    env = E.make("Bulldozing-v0", particle_count=particles, threads=threads, vehicle=vehicle,
                 **options)
    policy = E.ScriptedBulldozer()
    obs, _ = env.reset(seed=0)
    for _ in range(600 if pushing else 0):  # round the heap to its first push
        obs, _, _, _, info = env.step(policy(obs))
        if policy.phase == "push" and info["body_force_N"] > 0:
            break
    still = np.zeros(2, np.float32)
    start = time.perf_counter()
    for _ in range(steps):
        obs, *_ = env.step(policy(obs) if pushing else still)
    return steps / (time.perf_counter() - start)


def rover_rate(num_envs, threads, steps=40):
    """Env steps per second of RoverSlope-v0 driving straight at 2 rad/s: one env (num_envs
    None) or make_vec."""
    action = np.full(4, 2.0 / 3.0, np.float32)
    if num_envs is None:
        env = E.make("RoverSlope-v0")
        env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(steps):
            env.step(action)
        return steps / (time.perf_counter() - start)
    vec = E.make_vec("RoverSlope-v0", num_envs, threads=threads)
    vec.reset(seed=0)
    actions = np.tile(action, (num_envs, 1))
    start = time.perf_counter()
    for _ in range(steps):
        vec.step(actions)
    return steps * num_envs / (time.perf_counter() - start)


def rover_episode_rate():
    """Env steps per second of one RoverSlope-v0 episode under talus.envs.ScriptedRover, from
    reset(seed=0) to its end (the goal, 1.5 m up the slope): rover_rate times the first 40 steps,
    on the flat, where the soil step is cheapest; the deep ruts at the end of the climb cost two to
    three times as much per step (docs/envs.md), so this is the rate a learner's episodes see."""
    env = E.make("RoverSlope-v0")
    policy = E.ScriptedRover()
    obs, _ = env.reset(seed=0)
    steps, done = 0, False
    start = time.perf_counter()
    while not done:
        obs, _, terminated, truncated, _ = env.step(policy(obs))
        steps, done = steps + 1, terminated or truncated
    return steps / (time.perf_counter() - start)


def quadruped_rate(num_envs, threads, control_period_s, steps=300):
    """Env steps per second of QuadrupedGranular-v0 (pebbles) under the scripted trot: one env
    (num_envs None) or make_vec, at the given control period."""
    if num_envs is None:
        env = E.make("QuadrupedGranular-v0", control_period_s=control_period_s)
        trot = E.ScriptedTrot(env.actuator_names, control_period_s)
        obs, _ = env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(steps):
            obs, *_ = env.step(trot(obs))
        return steps / (time.perf_counter() - start)
    vec = E.make_vec("QuadrupedGranular-v0", num_envs, threads=threads,
                     control_period_s=control_period_s)
    trot = E.ScriptedTrot(E.make("QuadrupedGranular-v0").actuator_names, control_period_s)
    obs, _ = vec.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        action = trot(None)
        obs, *_ = vec.step(np.tile(action, (num_envs, 1)))
    return steps * num_envs / (time.perf_counter() - start)


def excavation_rate(digging, threads=2, steps=30):
    """Env steps per second of Excavation-v0 with its defaults (one env, the particle step on
    `threads`): the scripted scoop from the moment its bucket enters the bed (digging, about
    1.2 s in) or the arm still over the bed at rest."""
    env = E.make("Excavation-v0", threads=threads)
    policy = E.ScriptedScoop(bed_top_m=env.world.bed_top_m)
    obs, _ = env.reset(seed=0)
    for _ in range(24 if digging else 0):
        obs, *_ = env.step(policy(obs))
    still = np.zeros(7, np.float32)
    start = time.perf_counter()
    for _ in range(steps):
        obs, *_ = env.step(policy(obs) if digging else still)
    return steps / (time.perf_counter() - start)


def main():
    print(f"talus.envs through Python on {cpu_model()} (median of 3 runs, env steps per second)")
    rows = [("ShapingTrench-v0, one env", single_env_rate)]
    rows += [(f"ShapingTrench-v0, make_vec 1024 envs, {t} thread{'s' * (t > 1)}",
              lambda t=t: vector_env_rate(t)) for t in (1, 2)]
    for name, run in rows:
        rates = [run() for _ in range(3)]
        print(f"  {name:52s} {statistics.median(rates) / 1e6:8.3f} M/s")
    strokes = [("ShapingStrokes-v0 32 x 32, one env", lambda: strokes_rate(None))]
    strokes += [(f"ShapingStrokes-v0 32 x 32, make_vec 64 envs, {t} thread{'s' * (t > 1)}",
                 lambda t=t: strokes_rate(t)) for t in (1, 2)]
    for name, run in strokes:
        rates = [run() for _ in range(3)]
        print(f"  {name:52s} {statistics.median(rates):8.0f} strokes/s")
    rover = [("RoverSlope-v0, one env (first 40 steps, flat)", lambda: rover_rate(None, 1)),
             ("RoverSlope-v0, one env, scripted episode to the goal", rover_episode_rate)]
    rover += [(f"RoverSlope-v0, make_vec 4 envs, {t} thread{'s' * (t > 1)}",
               lambda t=t: rover_rate(4, t)) for t in (1, 2)]
    for name, run in rover:
        rate = statistics.median([run() for _ in range(3)])
        print(f"  {name:52s} {rate:8.1f} env steps/s = {rate / 10:.1f} x real time")
    for period in (0.01, 0.001):
        quad = [(f"QuadrupedGranular-v0 {period * 1e3:g} ms, one env",
                 lambda p=period: quadruped_rate(None, 1, p))]
        quad += [(f"QuadrupedGranular-v0 {period * 1e3:g} ms, make_vec 16, {t} thread"
                  f"{'s' * (t > 1)}", lambda t=t, p=period: quadruped_rate(16, t, p))
                 for t in (1, 2)]
        for name, run in quad:
            rate = statistics.median([run() for _ in range(3)])
            print(f"  {name:52s} {rate:8.0f} env steps/s")
    for digging in (False, True):
        name = f"Excavation-v0 3000 particles, 2 threads, {'digging' if digging else 'at rest'}"
        rate = statistics.median([excavation_rate(digging) for _ in range(3)])
        print(f"  {name:52s} {rate:8.2f} env steps/s = {rate / 20:.2f} x real time")
    for particles in (10_000, 50_000):
        for pushing in (False, True):
            name = (f"Bulldozing-v0 {particles} particles, 2 threads, "
                    f"{'pushing' if pushing else 'heap at rest'}")
            rates = [bulldozing_rate(particles, pushing) for _ in range(3)]
            rate = statistics.median(rates)
            print(f"  {name:52s} {rate:8.2f} env steps/s = {rate / 10:.2f} x real time")
    for pushing in (False, True):
        name = (f"Bulldozing-v0 10000 particles, dynamic vehicle, "
                f"{'pushing' if pushing else 'at rest'}")
        rate = statistics.median([bulldozing_rate(10_000, pushing, vehicle="dynamic")
                                  for _ in range(3)])
        print(f"  {name:52s} {rate:8.2f} env steps/s = {rate / 10:.2f} x real time")


if __name__ == "__main__":
    main()
