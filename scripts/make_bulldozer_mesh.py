#!/usr/bin/python3
"""Writes robots/bulldozer/bulldozer.obj: the toy bulldozer of Bulldozing-v0 (paper 001 §III-A
drives "a tracked vehicle with a scoop rigidly attached to the front, modeled after a toy bulldozer
STL file"; that file is not published, so talus ships this one, its own work, under Apache-2.0).

Body frame B: x forward, y left, z up, origin on the ground under the middle of the tracks. Three
closed shells, each a polygon in the x-z plane extruded along y (so every cap is split into convex
pieces by hand below):
  - chassis and cab, 0.5 m wide: tracks and engine deck 0.55 m long, 0.25 m high, a cab on top;
  - scoop, 0.7 m wide: a 3 cm thick plate curved in an arc, concave towards +x, from its lip 1 cm
    above the ground up to 0.30 m;
  - two push arms joining the scoop to the chassis (so the body is one rigid part as drawn).
Run it again after a change; the test suite checks that the file loads as a closed mesh.
"""

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "robots", "bulldozer", "bulldozer.obj")


def extrude(profile, convex_pieces, y0, y1, vertices, faces):
    """Adds the prism of `profile` (list of (x, z), counter-clockwise seen from -y) between y0 and
    y1: side quads between consecutive points and both caps from `convex_pieces` (index lists
    into profile, each a convex polygon with the same winding)."""
    base = len(vertices)
    n = len(profile)
    for x, z in profile:
        vertices.append((x, y0, z))
    for x, z in profile:
        vertices.append((x, y1, z))
    for i in range(n):
        j = (i + 1) % n
        a, b, c, d = base + i, base + j, base + n + j, base + n + i
        faces.append((a, b, c))
        faces.append((a, c, d))
    for piece in convex_pieces:
        for k in range(1, len(piece) - 1):
            i0, i1, i2 = piece[0], piece[k], piece[k + 1]
            faces.append((base + i0, base + i2, base + i1))          # y0 cap, facing -y
            faces.append((base + n + i0, base + n + i1, base + n + i2))  # y1 cap, facing +y


def chassis():
    # Counter-clockwise seen from -y (x to the right, z up).
    profile = [(-0.35, 0.02), (0.20, 0.02), (0.20, 0.25), (0.0, 0.25), (-0.05, 0.45),
               (-0.25, 0.45), (-0.30, 0.25), (-0.35, 0.25)]
    pieces = [[0, 1, 2, 3, 6, 7], [3, 4, 5, 6]]
    return profile, pieces


def scoop(segments=8, thickness=0.03):
    # The concave face is an arc from the lip (0.42, 0.01) to the top (0.40, 0.30) bulging back
    # to x = 0.30 at mid height; the back face is the same arc moved 3 cm towards -x.
    front = []
    for k in range(segments + 1):
        s = k / segments
        z = 0.01 + 0.29 * s
        x = 0.42 - 0.02 * s - 0.12 * math.sin(math.pi * s)
        front.append((x, z))
    back = [(x - thickness, z) for x, z in front]
    profile = back + front[::-1]  # up the back, down the front: counter-clockwise from -y
    m = len(front)
    pieces = []
    for k in range(segments):
        # back k, back k+1, front k+1, front k as indices of profile
        pieces.append([k, k + 1, 2 * m - 2 - k, 2 * m - 1 - k])
    return profile, pieces


def arm():
    profile = [(0.19, 0.08), (0.33, 0.08), (0.33, 0.14), (0.19, 0.14)]
    return profile, [[0, 1, 2, 3]]


def main():
    vertices, faces = [], []
    extrude(*chassis(), -0.25, 0.25, vertices, faces)
    extrude(*scoop(), -0.35, 0.35, vertices, faces)
    extrude(*arm(), 0.26, 0.31, vertices, faces)
    extrude(*arm(), -0.31, -0.26, vertices, faces)
    write_obj(OUT, vertices, faces, [
        "talus toy bulldozer for Bulldozing-v0 (scripts/make_bulldozer_mesh.py)",
        "Body frame: x forward, y left, z up, metres; origin on the ground."])


def write_obj(path, vertices, faces, comments):
    """Writes an OBJ file: the comment lines, talus's copyright line, vertices, 1-based faces."""
    with open(path, "w") as f:
        f.write("# %s\n" % comments[0])
        f.write("# Copyright 2026 the talus authors. Licensed under the Apache License 2.0.\n")
        for line in comments[1:]:
            f.write("# %s\n" % line)
        for v in vertices:
            f.write("v %.6f %.6f %.6f\n" % v)
        for a, b, c in faces:
            f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


if __name__ == "__main__":
    main()
