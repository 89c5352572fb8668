#!/usr/bin/python3
"""Initial positions of the LIGGGHTS comparison bed, shared by both codes.

50,000 spheres of radius 1 cm on a jittered simple-cubic lattice inside a vertical cylinder;
they fall and settle into a random packing about 4.5 times taller than wide. Writes a LIGGGHTS
data file (atom_style granular) and a CSV (x_m, y_m, z_m) for talus, so both codes start from
the same positions.
"""
import argparse
import math

import numpy as np

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--count", type=int, default=50_000)
parser.add_argument("--radius-m", type=float, default=0.01)
parser.add_argument("--density", type=float, default=1631.0, help="kg/m^3 ('Beads', paper 000)")
parser.add_argument("--cylinder-radius-m", type=float, default=0.23)
parser.add_argument("--spacing-m", type=float, default=0.0215)
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--data", required=True, help="LIGGGHTS data file to write")
parser.add_argument("--csv", required=True, help="CSV of initial positions to write")
args = parser.parse_args()

rng = np.random.default_rng(args.seed)
s = args.spacing_m
jitter = 0.5 * (s - 2.0 * args.radius_m)  # keeps neighbours apart: gaps never close
reach = args.cylinder_radius_m - args.radius_m - jitter
n_side = int(math.floor(2.0 * reach / s)) + 1
offsets = (np.arange(n_side) - 0.5 * (n_side - 1)) * s
gx, gy = np.meshgrid(offsets, offsets)
layer = np.stack([gx.ravel(), gy.ravel()], axis=1)
layer = layer[np.hypot(layer[:, 0], layer[:, 1]) <= reach]
layers = math.ceil(args.count / len(layer))
points = []
for k in range(layers):
    z = args.radius_m + jitter + k * s
    points.append(np.column_stack([layer, np.full(len(layer), z)]))
points = np.concatenate(points)[: args.count]
points += rng.uniform(-jitter, jitter, size=points.shape)

top = points[:, 2].max() + 2.0 * args.radius_m
with open(args.data, "w") as f:
    f.write("talus/LIGGGHTS comparison bed (bench/liggghts/make_bed.py)\n\n")
    f.write(f"{len(points)} atoms\n1 atom types\n\n")
    r = args.cylinder_radius_m
    f.write(f"{-r:.6f} {r:.6f} xlo xhi\n{-r:.6f} {r:.6f} ylo yhi\n0 {top * 1.05:.6f} zlo zhi\n\n")
    f.write("Atoms\n\n")
    for i, (x, y, z) in enumerate(points, start=1):
        f.write(f"{i} 1 {2 * args.radius_m:.6f} {args.density:.3f} {x:.7f} {y:.7f} {z:.7f}\n")
np.savetxt(args.csv, points, delimiter=",", header="x_m,y_m,z_m", comments="", fmt="%.7f")
print(f"{len(points)} particles, {len(layer)} per layer, {layers} layers, top at {top:.3f} m")
