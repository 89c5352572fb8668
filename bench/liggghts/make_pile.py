#!/usr/bin/python3
"""Initial positions of the angle-of-repose comparison (bench/liggghts/repose.sh), shared by both
codes: spheres on a jittered simple-cubic lattice filling a vertical cylinder (the column that is
lifted away to let the grains form a pile). Writes a LIGGGHTS data file (atom_style granular)
and a CSV (x_m, y_m, z_m) for talus.
"""
import argparse

import numpy as np

from grains import cylinder_lattice, write_liggghts_data

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
points, per_layer, layers = cylinder_lattice(args.count, args.radius_m, args.spacing_m,
                                             args.column_radius_m, rng)
top = points[:, 2].max() + 2.0 * args.radius_m
w = args.floor_half_width_m + 0.01  # the domain reaches past the side walls (pile.in)
write_liggghts_data(args.data, "talus/LIGGGHTS angle-of-repose column (bench/liggghts/make_pile.py)",
                    points, args.radius_m, args.density, (-w, -w, 0.0), (w, w, top * 1.1))
np.savetxt(args.csv, points, delimiter=",", header="x_m,y_m,z_m", comments="", fmt="%.7f")
print(f"{len(points)} particles, {per_layer} per layer, {layers} layers, top at {top:.3f} m")
