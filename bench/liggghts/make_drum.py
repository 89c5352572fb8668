#!/usr/bin/python3
"""The rotating-drum comparison's geometry and grains (bench/liggghts/drum.sh), shared by both
codes: a drum of inner radius R and inner length L about the y axis, centred at the origin, as
(1) drum.obj, a closed two-shell mesh (the outer surface and the cavity's, walls `--wall-m`
thick) for talus's signed-distance body, and (2) drum.stl, the cavity's surface (the inner wall
and both end caps) for LIGGGHTS's mesh wall; and the grains on a jittered simple-cubic lattice
filling the drum's lower half (drum.data for LIGGGHTS, drum.csv for talus).
"""
import argparse
import math

import numpy as np

from grains import write_liggghts_data

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--radius-m", type=float, default=0.08, help="inner radius R [m]")
parser.add_argument("--length-m", type=float, default=0.04, help="inner length L along y [m]")
parser.add_argument("--wall-m", type=float, default=0.01)
parser.add_argument("--segments", type=int, default=96)
parser.add_argument("--grain-radius-m", type=float, default=0.003)
parser.add_argument("--density", type=float, default=2500.0)
parser.add_argument("--spacing-m", type=float, default=0.0066)
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--out", default=".")
args = parser.parse_args()


def closed_cylinder(radius, half_length, segments, inward):
    """Triangles of a closed cylinder about y (side and two caps), outward normals unless
    `inward` (the cavity's surface, seen from the drum's material)."""
    a = np.linspace(0.0, 2.0 * math.pi, segments, endpoint=False)
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)  # (x, z)
    tris = []
    for k in range(segments):
        x0, z0 = ring[k]
        x1, z1 = ring[(k + 1) % segments]
        lo0, lo1 = (x0, -half_length, z0), (x1, -half_length, z1)
        hi0, hi1 = (x0, half_length, z0), (x1, half_length, z1)
        tris += [(lo0, hi1, lo1), (lo0, hi0, hi1)]  # side
        tris += [((0.0, -half_length, 0.0), lo0, lo1), ((0.0, half_length, 0.0), hi1, hi0)]
    tris = np.array(tris)
    # Orient every triangle's normal away from the axis (caps: away from the centre).
    out = []
    for t in tris:
        n = np.cross(t[1] - t[0], t[2] - t[0])
        c = t.mean(axis=0)
        away = np.array([c[0], c[1] if abs(abs(c[1]) - half_length) < 1e-12 else 0.0, c[2]])
        flip = (np.dot(n, away) < 0) != inward
        out.append(t[[0, 2, 1]] if flip else t)
    return np.array(out)


R, L, w = args.radius_m, args.length_m, args.wall_m
outer = closed_cylinder(R + w, 0.5 * L + w, args.segments, inward=False)
inner = closed_cylinder(R, 0.5 * L, args.segments, inward=True)
with open(f"{args.out}/drum.obj", "w") as f:
    f.write("# talus drum: outer shell and cavity (bench/liggghts/make_drum.py), metres\n")
    for t in np.concatenate([outer, inner]):
        for v in t:
            f.write(f"v {v[0]:.7f} {v[1]:.7f} {v[2]:.7f}\n")
    for k in range(len(outer) + len(inner)):
        f.write(f"f {3 * k + 1} {3 * k + 2} {3 * k + 3}\n")
with open(f"{args.out}/drum.stl", "w") as f:
    f.write("solid drum\n")
    for t in inner:
        n = np.cross(t[1] - t[0], t[2] - t[0])
        n /= np.linalg.norm(n)
        f.write(f" facet normal {-n[0]:.6f} {-n[1]:.6f} {-n[2]:.6f}\n  outer loop\n")
        for v in t:
            f.write(f"   vertex {v[0]:.7f} {v[1]:.7f} {v[2]:.7f}\n")
        f.write("  endloop\n endfacet\n")
    f.write("endsolid drum\n")

rng = np.random.default_rng(args.seed)
r, s = args.grain_radius_m, args.spacing_m
jitter = 0.5 * (s - 2.0 * r)
reach = R - r - jitter - 0.001
xs = np.arange(-reach, reach + 1e-12, s)
ys = np.arange(-0.5 * L + r + jitter + 0.001, 0.5 * L - r - jitter - 0.001 + 1e-12, s)
zs = np.arange(-reach, -r, s)
g = np.array([(x, y, z) for x in xs for y in ys for z in zs if math.hypot(x, z) <= reach])
g += rng.uniform(-jitter, jitter, size=g.shape)
e = R + w + 0.01
write_liggghts_data(f"{args.out}/drum.data",
                    "talus/LIGGGHTS rotating drum grains (bench/liggghts/make_drum.py)", g, r,
                    args.density, (-e, -e, -e), (e, e, e))
np.savetxt(f"{args.out}/drum.csv", g, delimiter=",", header="x_m,y_m,z_m", comments="",
           fmt="%.7f")
print(f"{len(g)} grains in a drum of radius {R} m, length {L} m")
