#!/usr/bin/python3
"""Writes robots/panda_bucket/bucket.obj: the excavator-like bucket of Excavation-v0 (paper 001
§III-C mounts "a tool rigidly attached that is similar in shape to an excavator bucket" on the
Panda's flange; that tool is not published, so talus ships this one, its own work, Apache-2.0).

Tool frame T = the Panda's flange frame: z_T along the flange's axis (away from the arm), origin
on the flange face. The bucket is a dustpan hanging below the flange: a floor 0.24 m long
(x_T in [0, 0.24]) and 0.20 m wide at z_T in [0.20, 0.22], a back wall at x_T in [-0.02, 0] from
the flange (z_T = 0, it is also the handle) down to the floor, and two side walls 0.14 m high.
The front (+x_T) and the side facing the flange are open: dragged along +x_T with its floor below
the bed's surface, it fills; tilted lip-up, it holds. Every wall is 2 cm thick (no particle of
radius >= 1 cm can tunnel through in one step at the arm's speeds).

Three disjoint closed prisms (the signed distance's sign comes from ray parity, so shells must not
overlap; the 3 mm gaps between floor and side walls are far narrower than a particle). Run it
again after a change; the test suite checks that the file loads as a closed mesh.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bulldozer_mesh import extrude, write_obj  # noqa: E402  (prisms, OBJ writer)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "robots", "panda_bucket", "bucket.obj")

LENGTH_M = 0.24  # floor length along x_T
WIDTH_M = 0.20  # inside width along y_T
FLOOR_Z_M = 0.22  # the floor's underside, below the flange along z_T
SIDE_TOP_Z_M = 0.08  # the side walls' top edge along z_T
WALL_M = 0.02  # thickness of every wall
GAP_M = 0.003  # between the floor and the side walls


def floor_and_back():
    """An L in the x-z plane (counter-clockwise with x to the right, z up): the back wall from
    the flange to the floor, and the floor."""
    t, d, length = WALL_M, FLOOR_Z_M, LENGTH_M
    profile = [(-t, 0.0), (0.0, 0.0), (0.0, d - t), (length, d - t), (length, d), (-t, d)]
    return profile, [[0, 1, 2, 5], [2, 3, 4, 5]]


def side_wall():
    t, d = WALL_M, FLOOR_Z_M
    return [(-t, SIDE_TOP_Z_M), (LENGTH_M, SIDE_TOP_Z_M), (LENGTH_M, d), (-t, d)], [[0, 1, 2, 3]]


def main():
    vertices, faces = [], []
    half = WIDTH_M / 2
    extrude(*floor_and_back(), -half, half, vertices, faces)
    extrude(*side_wall(), half + GAP_M, half + GAP_M + WALL_M, vertices, faces)
    extrude(*side_wall(), -half - GAP_M - WALL_M, -half - GAP_M, vertices, faces)
    write_obj(OUT, vertices, faces, [
        "talus bucket for Excavation-v0 (scripts/make_bucket_mesh.py)",
        "Tool frame = the Panda's flange frame: z along the flange axis, metres."])


if __name__ == "__main__":
    main()
