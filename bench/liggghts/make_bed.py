#!/usr/bin/python3
"""Initial positions of the LIGGGHTS comparison bed, shared by both codes.

50,000 spheres of radius 1 cm on a jittered simple-cubic lattice inside a vertical cylinder;
they fall and settle into a random packing about 4.5 times taller than wide. Writes a LIGGGHTS
data file (atom_style granular) and a CSV (x_m, y_m, z_m) for talus, so both codes start from
the same positions.
"""
import argparse

import numpy as np

from grains import cylinder_lattice, write_liggghts_data

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
points, per_layer, layers = cylinder_lattice(args.count, args.radius_m, args.spacing_m,
                                             args.cylinder_radius_m, rng)
top = points[:, 2].max() + 2.0 * args.radius_m
r = args.cylinder_radius_m
write_liggghts_data(args.data, "talus/LIGGGHTS comparison bed (bench/liggghts/make_bed.py)", points,
                    args.radius_m, args.density, (-r, -r, 0.0), (r, r, top * 1.05))
np.savetxt(args.csv, points, delimiter=",", header="x_m,y_m,z_m", comments="", fmt="%.7f")
print(f"{len(points)} particles, {per_layer} per layer, {layers} layers, top at {top:.3f} m")
