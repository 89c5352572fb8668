#!/usr/bin/python3
"""Initial positions of the angle-of-repose comparison (bench/liggghts/repose.sh), shared by both
codes: spheres on a jittered simple-cubic lattice filling a vertical cylinder (the column that is
lifted away to let the grains form a pile). Writes a LIGGGHTS data file (atom_style granular)
and a CSV (x_m, y_m, z_m) for talus.
"""
import argparse
import math

import numpy as np

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--count", type=int, default=3000)
parser.add_argument("--radius-m", type=float, default=0.003)
parser.add_argument("--density", type=float, default=2500.0, help="kg/m^3 (glass beads)")
parser.add_argument("--column-radius-m", type=float, default=0.04)
parser.add_argument("--spacing-m", type=float, default=0.0066)
parser.add_argument("--floor-half-width-m", type=float, default=0.25,
                    help="the floor's side walls stand at +-this [m], as talus's box container")
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--data", required=True, help="LIGGGHTS data file to write")
parser.add_argument("--csv", required=True, help="CSV of initial positions to write")
args = parser.parse_args()

rng = np.random.default_rng(args.seed)
s = args.spacing_m
jitter = 0.5 * (s - 2.0 * args.radius_m)  # neighbours never touch at the start
reach = args.column_radius_m - args.radius_m - jitter
n_side = int(math.floor(2.0 * reach / s)) + 1
offsets = (np.arange(n_side) - 0.5 * (n_side - 1)) * s
gx, gy = np.meshgrid(offsets, offsets)
layer = np.stack([gx.ravel(), gy.ravel()], axis=1)
layer = layer[np.hypot(layer[:, 0], layer[:, 1]) <= reach]
layers = math.ceil(args.count / len(layer))
points = np.concatenate([
    np.column_stack([layer, np.full(len(layer), args.radius_m + jitter + k * s)])
    for k in range(layers)])[: args.count]
points += rng.uniform(-jitter, jitter, size=points.shape)

top = points[:, 2].max() + 2.0 * args.radius_m
w = args.floor_half_width_m + 0.01  # the domain reaches past the side walls (pile.in)
with open(args.data, "w") as f:
    f.write("talus/LIGGGHTS angle-of-repose column (bench/liggghts/make_pile.py)\n\n")
    f.write(f"{len(points)} atoms\n1 atom types\n\n")
    f.write(f"{-w:.6f} {w:.6f} xlo xhi\n{-w:.6f} {w:.6f} ylo yhi\n0 {top * 1.1:.6f} zlo zhi\n\n")
    f.write("Atoms\n\n")
    for i, (x, y, z) in enumerate(points, start=1):
        f.write(f"{i} 1 {2 * args.radius_m:.6f} {args.density:.3f} {x:.7f} {y:.7f} {z:.7f}\n")
np.savetxt(args.csv, points, delimiter=",", header="x_m,y_m,z_m", comments="", fmt="%.7f")
print(f"{len(points)} particles, {len(layer)} per layer, {layers} layers, top at {top:.3f} m")
