#!/usr/bin/python3
"""Bed height and packing fraction of a settled bed in a vertical cylinder, computed the same way
for LIGGGHTS (a 'custom' dump with columns id x y z radius) and talus (CSV x_m,y_m,z_m,radius_m).

Bed height: the 99th percentile of the particles' top points (z + r), so that a few particles
resting on the surface do not count. Packing fraction: the volume of the spheres whose tops lie
below that height over the cylinder's volume up to it.
"""
import argparse
import math

import numpy as np

from grains import read_dump


def read(path):
    if path.endswith(".csv"):
        data = np.loadtxt(path, delimiter=",", skiprows=1)
        return data[:, 2], data[:, 3]
    dump = read_dump(path)
    return dump["z"], dump["radius"]


parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("file")
parser.add_argument("--cylinder-radius-m", type=float, default=0.23)
args = parser.parse_args()
z, r = read(args.file)
height = float(np.percentile(z + r, 99.0))
below = z + r <= height
volume = float(np.sum(4.0 / 3.0 * math.pi * r[below] ** 3))
packing = volume / (math.pi * args.cylinder_radius_m**2 * height)
print(f"bed_height_m={height:.4f} packing_fraction={packing:.4f} particles={len(z)}")
