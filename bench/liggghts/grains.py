"""What the LIGGGHTS comparison scripts share (make_bed.py, make_pile.py, make_drum.py,
bed_stats.py, repose.py, drum.py): the jittered lattice of grains in a vertical cylinder, the
LIGGGHTS data file both codes start from, reading a LIGGGHTS dump, a talus State of grains, and
the talus solver settings the pile and the drum take and report.
"""
import math

import numpy as np


def cylinder_lattice(count, radius_m, spacing_m, cylinder_radius_m, rng):
    """`count` grain centres on a simple-cubic lattice filling a vertical cylinder about the z
    axis from the floor up, each jittered by at most half the gap between neighbours (so that
    no two touch at the start)."""
    s = spacing_m
    jitter = 0.5 * (s - 2.0 * radius_m)
    reach = cylinder_radius_m - radius_m - jitter
    n_side = int(math.floor(2.0 * reach / s)) + 1
    offsets = (np.arange(n_side) - 0.5 * (n_side - 1)) * s
    gx, gy = np.meshgrid(offsets, offsets)
    layer = np.stack([gx.ravel(), gy.ravel()], axis=1)
    layer = layer[np.hypot(layer[:, 0], layer[:, 1]) <= reach]
    layers = math.ceil(count / len(layer))
    points = np.concatenate([
        np.column_stack([layer, np.full(len(layer), radius_m + jitter + k * s)])
        for k in range(layers)])[:count]
    points += rng.uniform(-jitter, jitter, size=points.shape)
    return points, len(layer), layers


def write_liggghts_data(path, title, points, radius_m, density, lo, hi):
    """A LIGGGHTS data file (atom_style granular) of equal grains in the box [lo, hi]."""
    with open(path, "w") as f:
        f.write(f"{title}\n\n{len(points)} atoms\n1 atom types\n\n")
        for axis, name in enumerate("xyz"):
            f.write(f"{lo[axis]:.6f} {hi[axis]:.6f} {name}lo {name}hi\n")
        f.write("\nAtoms\n\n")
        for i, (x, y, z) in enumerate(points, start=1):
            f.write(f"{i} 1 {2 * radius_m:.6f} {density:.3f} {x:.7f} {y:.7f} {z:.7f}\n")


def read_dump(path):
    """A LIGGGHTS 'custom' dump's columns by name (id, x, y, z, radius), as float arrays."""
    with open(path) as f:
        lines = f.readlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS")) + 1
    cols = lines[start - 1].split()[2:]
    data = np.loadtxt(lines[start:])
    return {name: data[:, k] for k, name in enumerate(cols)}


def talus_state(P, positions, radius_m, density):
    """A talus.particles.State of equal grains at rest at `positions`."""
    state = P.State()
    mass = density * 4.0 / 3.0 * math.pi * radius_m ** 3
    for p in positions:
        state.add(p, [0.0, 0.0, 0.0], radius_m, mass)
    return state


def add_solver_arguments(parser):
    """talus's sweeps and relaxation for repose.py and drum.py run (defaults: the settings of
    docs/particles.md §7's tables)."""
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--relaxation", type=float, default=1.0,
                        help="the contact updates' relaxation, in (0, 2) (docs/particles.md §2)")


def solver_label(row):
    """"N sweeps, relaxation W" of one result row (rows written before the row carried them:
    add_solver_arguments' defaults)."""
    return f"{row.get('iterations', 8)} sweeps, relaxation {row.get('relaxation', 1.0):g}"
