#!/usr/bin/python3
"""The talus side of the rotating-drum comparison (bench/liggghts/drum.sh), and its report.

`run`: the grains of make_drum.py settle for 0.5 s in the drum (drum.obj as a signed-distance
body) at rest, then the drum turns about +y at 2 pi / period rad/s; the grains' free surface is
measured at the three times LIGGGHTS dumps (1.5, 2.0 and 2.5 s), in both codes by the same rule:
the highest grain top in 12 mm bins across x, a least-squares line over the bins within half a
radius of the axis; the dynamic angle of repose is the mean of the three lines' angles. Prints
one JSON line (angles, profiles, wall times).

`report`: a table (drum.md) and, per rotation speed, a picture of both codes' surfaces.
"""
import argparse
import json
import math
import sys
import time

import numpy as np

from grains import add_solver_arguments, read_dump, solver_label, talus_state


def surface(x, z, r, radius_m, bin_m):
    """Bin centres, highest grain top per bin (nan where empty) and the fitted angle [deg]."""
    edges = np.arange(-radius_m, radius_m + 1e-12, bin_m)
    centres = 0.5 * (edges[1:] + edges[:-1])
    top = np.full(len(centres), np.nan)
    k = np.clip(np.searchsorted(edges, x) - 1, 0, len(centres) - 1)
    for b in range(len(centres)):
        if np.any(k == b):
            top[b] = np.max((z + r)[k == b])
    fit = (np.abs(centres) <= 0.5 * radius_m) & np.isfinite(top)
    slope = np.polyfit(centres[fit], top[fit], 1)[0]
    return centres, top, math.degrees(math.atan(slope))


def run(args):
    sys.path.insert(0, args.python)
    import talus
    P = talus.particles
    grains = np.loadtxt(args.csv, delimiter=",", skiprows=1)
    state = talus_state(P, grains, args.grain_radius_m, args.density)
    model = P.Model()
    model.time_step_s = args.dt
    model.iterations = args.iterations
    model.relaxation = args.relaxation
    model.friction = model.wall_friction = model.body_friction = 0.5
    model.rotation = True
    model.rolling_friction = args.rolling
    model.contact_margin_m = 0.1 * args.grain_radius_m
    model.threads = args.threads
    model.set_no_container()
    drum = talus.MeshShape(args.obj, args.sdf_cell_m)
    start = time.perf_counter()
    settle = P.Simulation(model, state)
    settle.add_body("drum", drum, talus.ConstantTwistDriver(np.eye(4), talus.Twist()))
    settle.check()
    settle.step(int(round(0.5 / args.dt)))
    spin = P.Simulation(model, settle.state)
    omega = 2.0 * math.pi / args.period_s
    spin.add_body("drum", drum, talus.ConstantTwistDriver(np.eye(4), talus.Twist(w_W=[0, omega, 0])))
    snapshots = []
    for steps in (1.0, 0.5, 0.5):
        spin.step(int(round(steps / args.dt)))
        s = spin.state
        snapshots.append(tuple(np.asarray(a, dtype=float) for a in (s.x_m, s.z_m, s.radius_m)))
    wall = time.perf_counter() - start
    out = dict(period_s=args.period_s, iterations=args.iterations,
               relaxation=args.relaxation, rolling_friction=args.rolling, talus_wall_s=wall,
               liggghts_wall_s=args.liggghts_wall_s)
    for code, snaps in (("talus", snapshots),
                        ("liggghts", [(d["x"], d["z"], d["radius"]) for d in
                                      (read_dump(f"{args.dump}_{k}.dump") for k in (1, 2, 3))])):
        fits = [surface(x, z, r, args.radius_m, 4 * args.grain_radius_m) for x, z, r in snaps]
        out[f"{code}_angle_deg"] = float(np.mean([f[2] for f in fits]))
        out[f"{code}_angles_deg"] = [f[2] for f in fits]
        out[f"{code}_profile"] = [fits[-1][0].tolist(), fits[-1][1].tolist()]
    print(json.dumps(out).replace("NaN", "null"))
    print(f"period {args.period_s:g} s: talus {out['talus_angle_deg']:.1f} deg ({wall:.1f} s), "
          f"LIGGGHTS {out['liggghts_angle_deg']:.1f} deg ({args.liggghts_wall_s:.1f} s)",
          file=sys.stderr)


def report(args):
    sys.path.insert(0, args.python)
    import talus
    rows = [json.loads(l) for l in open(args.results) if l.strip()]
    with open(args.table, "w") as f:
        f.write(f"CPU: {args.cpu}\n\n")
        f.write("talus: " + "; ".join(sorted({solver_label(d) for d in rows})) + "\n\n")
        f.write("| drum speed [rpm] | rolling friction | talus angle [deg] (1.5, 2.0, 2.5 s) "
                "| LIGGGHTS angle [deg] (1.5, 2.0, 2.5 s) | difference [deg] | talus wall [s] "
                "| LIGGGHTS wall [s] |\n|---|---|---|---|---|---|---|\n")
        for d in rows:
            t = ", ".join(f"{a:.1f}" for a in d["talus_angles_deg"])
            l = ", ".join(f"{a:.1f}" for a in d["liggghts_angles_deg"])
            f.write(f"| {60.0 / d['period_s']:.0f} | {d['rolling_friction']:g} | "
                    f"{d['talus_angle_deg']:.1f} ({t}) | {d['liggghts_angle_deg']:.1f} ({l}) | "
                    f"{d['talus_angle_deg'] - d['liggghts_angle_deg']:+.1f} | "
                    f"{d['talus_wall_s']:.1f} | {d['liggghts_wall_s']:.1f} |\n")
    for d in rows:
        rpm = 60.0 / d["period_s"]
        series = []
        for code, label in (("talus", f"talus [{solver_label(d)}]"), ("liggghts", "LIGGGHTS")):
            x, top = d[f"{code}_profile"]
            series.append((f"{label} ({d[f'{code}_angle_deg']:.1f} deg)", [1e3 * v for v in x],
                           [float("nan") if v is None else 1e3 * v for v in top]))
        talus.write_plot(f"{args.pictures}/drum_{rpm:.0f}rpm.png", series,
                         title=f"Rotating drum at {rpm:.0f} rpm: free surface at 2.5 s "
                               f"(rolling friction {d['rolling_friction']:g})",
                         x_label="x across the drum [mm]", y_label="highest grain top [mm]")


parser = argparse.ArgumentParser(description=__doc__)
sub = parser.add_subparsers(dest="command", required=True)
r = sub.add_parser("run")
r.add_argument("--python", required=True, help="build/python, where the talus module is")
r.add_argument("--csv", required=True)
r.add_argument("--obj", required=True)
r.add_argument("--dump", required=True, help="LIGGGHTS dump prefix (PREFIX_1..3.dump)")
r.add_argument("--liggghts-wall-s", type=float, required=True)
r.add_argument("--period-s", type=float, required=True)
r.add_argument("--rolling", type=float, required=True)
r.add_argument("--radius-m", type=float, default=0.08)
r.add_argument("--grain-radius-m", type=float, default=0.003)
r.add_argument("--density", type=float, default=2500.0)
r.add_argument("--sdf-cell-m", type=float, default=0.002)
r.add_argument("--dt", type=float, default=1e-3)
add_solver_arguments(r)
r.add_argument("--threads", type=int, default=2)
p = sub.add_parser("report")
p.add_argument("--python", required=True)
p.add_argument("--results", required=True)
p.add_argument("--table", required=True)
p.add_argument("--pictures", required=True)
p.add_argument("--cpu", default="")
args = parser.parse_args()
run(args) if args.command == "run" else report(args)
