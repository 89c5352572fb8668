#!/usr/bin/python3
"""The talus side of the angle-of-repose comparison (bench/liggghts/repose.sh), and its report.

`run`: loads the column written by make_pile.py, settles it in a vertical cylinder with rotating
grains of the given rolling friction, removes the cylinder (a box floor 0.5 m wide takes its
place), lets the pile form, and prints one JSON line: the talus angle of repose and pile height,
the LIGGGHTS dump's angle and height measured by the same function
(talus.particles.Simulation.repose_angle_deg: the highest particle top per ring about the pile
axis, a least-squares line over the flank), and both codes' wall times.

`report`: reads those lines and writes a table (repose.md) and, per rolling friction, a picture
of both codes' pile profiles (repose_mu_r_<value>.png).
"""
import argparse
import json
import sys
import time

import numpy as np

from grains import add_solver_arguments, read_dump, solver_label, talus_state


def model(P, args, container):
    m = P.Model()
    m.time_step_s = args.dt
    m.iterations = args.iterations
    m.relaxation = args.relaxation
    m.friction = m.wall_friction = m.body_friction = 0.5
    m.rotation = True
    m.rolling_friction = args.rolling
    m.contact_margin_m = 0.1 * args.radius_m
    m.expected_speed_m_per_s = 2.5  # the column's top falls 0.2 m: 2 m/s
    m.threads = args.threads
    container(m)
    return m


def profile(x, y, z, r, ring_m):
    """Highest particle top per ring about the pile's axis (its centroid), ring centres [m]."""
    rho = np.hypot(x - x.mean(), y - y.mean())
    rings = (rho / ring_m).astype(int)
    top = np.full(rings.max() + 1, -np.inf)
    np.maximum.at(top, rings, z + r)
    top[np.isinf(top)] = np.nan  # an empty ring: a gap in the line
    return (np.arange(len(top)) + 0.5) * ring_m, top


def run(args):
    sys.path.insert(0, args.python)
    import talus
    P = talus.particles
    column = np.loadtxt(args.csv, delimiter=",", skiprows=1)
    state = talus_state(P, column, args.radius_m, args.density)
    height = column[:, 2].max() + 2 * args.radius_m
    in_column = model(P, args, lambda m: m.set_cylinder_container(args.column_radius_m, 0.0,
                                                                  4.0 * height))
    start = time.perf_counter()
    sim = P.Simulation(in_column, state)
    sim.check()
    sim.step(int(round(args.settle_s / args.dt)))
    w = args.floor_half_width_m
    on_floor = model(P, args, lambda m: m.set_box_container([-w, -w, 0.0], [w, w, 4.0 * height]))
    pile = P.Simulation(on_floor, sim.state)
    pile.step(int(round(args.collapse_s / args.dt)))
    talus_wall = time.perf_counter() - start
    talus_angle = pile.repose_angle_deg()
    s = pile.state
    x, y, z, r = (np.asarray(a, dtype=float) for a in (s.x_m, s.y_m, s.z_m, s.radius_m))
    talus_height = float((z + r).max())
    dump = read_dump(args.dump)
    lig_xyz, lig_r = np.column_stack([dump["x"], dump["y"], dump["z"]]), dump["radius"]
    lig = P.Simulation(on_floor, talus_state(P, lig_xyz, args.radius_m, args.density))
    out = dict(rolling_friction=args.rolling, iterations=args.iterations,
               relaxation=args.relaxation, talus_angle_deg=talus_angle,
               talus_height_m=talus_height, talus_wall_s=talus_wall,
               liggghts_angle_deg=lig.repose_angle_deg(),
               liggghts_height_m=float((lig_xyz[:, 2] + lig_r).max()),
               liggghts_wall_s=args.liggghts_wall_s, simulated_s=args.settle_s + args.collapse_s,
               talus_profile=[a.tolist() for a in profile(x, y, z, r, 4 * args.radius_m)],
               liggghts_profile=[a.tolist() for a in profile(lig_xyz[:, 0], lig_xyz[:, 1],
                                                             lig_xyz[:, 2], lig_r,
                                                             4 * args.radius_m)])
    print(json.dumps(out).replace("NaN", "null"))
    print(f"rolling friction {args.rolling:g}: talus {talus_angle:.1f} deg ({talus_wall:.1f} s), "
          f"LIGGGHTS {out['liggghts_angle_deg']:.1f} deg ({args.liggghts_wall_s:.1f} s)",
          file=sys.stderr)


def report(args):
    sys.path.insert(0, args.python)
    import talus
    rows = [json.loads(l) for l in open(args.results) if l.strip()]
    with open(args.table, "w") as f:
        f.write(f"CPU: {args.cpu}\n\n")
        f.write("talus: " + "; ".join(sorted({solver_label(d) for d in rows})) + "\n\n")
        f.write("| rolling friction | talus angle [deg] | LIGGGHTS angle [deg] | difference [deg] "
                "| talus pile height [mm] | LIGGGHTS pile height [mm] | talus wall [s] "
                "| LIGGGHTS wall [s] |\n|---|---|---|---|---|---|---|---|\n")
        for d in rows:
            f.write(f"| {d['rolling_friction']:g} | {d['talus_angle_deg']:.1f} | "
                    f"{d['liggghts_angle_deg']:.1f} | "
                    f"{d['talus_angle_deg'] - d['liggghts_angle_deg']:+.1f} | "
                    f"{1e3 * d['talus_height_m']:.1f} | {1e3 * d['liggghts_height_m']:.1f} | "
                    f"{d['talus_wall_s']:.1f} | {d['liggghts_wall_s']:.1f} |\n")
    # One picture per rolling friction: both codes' pile profiles (talus's plotter, core/plot.hpp).
    for d in rows:
        series = []
        for key, label in (("talus_profile", f"talus [{solver_label(d)}]"), ("liggghts_profile", "LIGGGHTS")):
            rho, top = d[key]
            series.append((f"{label} ({d[key.split('_')[0] + '_angle_deg']:.1f} deg)",
                           [1e3 * x for x in rho],
                           [float("nan") if z is None else 1e3 * z for z in top]))
        talus.write_plot(f"{args.pictures}/repose_mu_r_{d['rolling_friction']:g}.png", series,
                         title=f"Pile profile, rolling friction {d['rolling_friction']:g} "
                               f"(3,000 spheres, r = 3 mm)",
                         x_label="distance from the pile axis [mm]",
                         y_label="highest grain top in the ring [mm]")


parser = argparse.ArgumentParser(description=__doc__)
sub = parser.add_subparsers(dest="command", required=True)
r = sub.add_parser("run")
r.add_argument("--python", required=True, help="build/python, where the talus module is")
r.add_argument("--csv", required=True)
r.add_argument("--dump", required=True, help="LIGGGHTS's final positions")
r.add_argument("--liggghts-wall-s", type=float, required=True)
r.add_argument("--rolling", type=float, required=True)
r.add_argument("--radius-m", type=float, default=0.003)
r.add_argument("--density", type=float, default=2500.0)
r.add_argument("--column-radius-m", type=float, default=0.04)
r.add_argument("--floor-half-width-m", type=float, default=0.25)
r.add_argument("--settle-s", type=float, default=0.5)
r.add_argument("--collapse-s", type=float, default=2.0)
r.add_argument("--dt", type=float, default=1e-3)
add_solver_arguments(r)
r.add_argument("--threads", type=int, default=2)
p = sub.add_parser("report")
p.add_argument("--results", required=True)
p.add_argument("--table", required=True)
p.add_argument("--pictures", required=True, help="folder for repose_mu_r_<value>.png")
p.add_argument("--python", required=True, help="build/python, where the talus module is")
p.add_argument("--cpu", default="")
args = parser.parse_args()
run(args) if args.command == "run" else report(args)
