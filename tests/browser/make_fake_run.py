#!/usr/bin/python3
"""Writes a fake talus run folder in the talus-view format v1, for testing the viewer page.

  make_fake_run.py --out DIR [--particles N] [--frames F] [--dt S] [--heightmap NXxNY]
                   [--bodies] [--quantised] [--radii] [--random-packing]
                   [--truncate-frame K] [--missing-frame K] [--tier TIER] [--seed S]

writes DIR/view/manifest.json, DIR/view/frames/NNNNNN.tvf (and DIR/view/radii.f32 with
--radii) and DIR/summary_plot.png. The particles are a bed of spheres with a travelling wave
through it; the heightmap is rutted by a wheel driving along x, with berms beside the rut; the
bodies are one of each shape kind (box, sphere, cylinder, capsule, plane, mesh).
--truncate-frame and --missing-frame make a broken run (the page must show an error).
Python standard library only.
"""

import argparse
import json
import math
import os
import random
import struct
import sys
import zlib
from array import array

LITTLE = sys.byteorder == "little"


def f32(values):
    a = array("f", values)
    if not LITTLE:
        a.byteswap()
    return a.tobytes()


def u16(values):
    a = array("H", values)
    if not LITTLE:
        a.byteswap()
    return a.tobytes()


def qmul(a, b):
    """Quaternion product a*b, both (w, x, y, z)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def qaxis(axis, angle):
    x, y, z = axis
    s = math.sin(angle / 2)
    return (math.cos(angle / 2), x * s, y * s, z * s)


def write_png(path, width, height):
    """A small colourful plot-like PNG (a sine curve on a white background)."""
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            curve = height / 2 - (height / 3) * math.sin(2 * math.pi * x / width * 2)
            if abs(y - curve) < 1.5:
                row += bytes((40, 90, 200))
            elif y % 20 == 0 or x % 40 == 0:
                row += bytes((225, 225, 225))
            else:
                row += bytes((255, 255, 255))
        rows.append(bytes(row))

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 6))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


class ParticleBed:
    """n spheres in a box-shaped bed; a travelling wave moves them on circles (like water waves),
    with an amplitude that decays with depth and swells and ebbs with time."""

    def __init__(self, n, radius, rng, extent, random_packing=False, mean_radius=None):
        self.n = n
        lx, ly = extent
        spacing = 2.05 * radius
        per_x = max(1, int(lx / spacing))
        per_y = max(1, int(ly / spacing))
        self.base = []
        if random_packing:
            # Uniformly random centres at the number density of a packing of solid fraction 0.55
            # (overlaps allowed): more gaps than a real packing, so a harder case for the viewer's
            # skipping of buried particles.
            volume = n * (4 / 3) * math.pi * (mean_radius or radius) ** 3
            depth = volume / 0.55 / (per_x * spacing * per_y * spacing)
            for _ in range(n):
                self.base.append((rng.uniform(radius, per_x * spacing - radius),
                                  rng.uniform(radius, per_y * spacing - radius) - ly / 2,
                                  rng.uniform(radius, max(depth, 2 * radius))))
        for i in range(0 if random_packing else n):
            layer, rest = divmod(i, per_x * per_y)
            iy, ix = divmod(rest, per_x)
            self.base.append(((ix + 0.5) * spacing + rng.uniform(-0.1, 0.1) * radius,
                              (iy + 0.5) * spacing - ly / 2 + rng.uniform(-0.1, 0.1) * radius,
                              (layer + 0.5) * spacing))
        self.top = max(b[2] for b in self.base)
        self.k = 2 * math.pi / max(lx / 2, 1e-3)
        self.omega = 2 * math.pi * 0.5
        self.amp = 0.6 * spacing
        decay = max(self.top / 2, spacing)
        # Per particle: cos and sin of its phase k*x, and the depth factor; the per-frame work is
        # then products and sums only (angle-addition), which keeps 50,000 x 500 affordable.
        self.c = [math.cos(self.k * b[0]) for b in self.base]
        self.s = [math.sin(self.k * b[0]) for b in self.base]
        self.f = [math.exp(-(self.top - b[2]) / decay) for b in self.base]
        self.radius = radius

    def frame(self, t):
        swell = 0.55 + 0.45 * math.sin(0.7 * t)
        a = self.amp * swell
        ct = math.cos(self.omega * t)
        st = math.sin(self.omega * t)
        xs = []
        speeds = []
        # cos(kx - wt) = c*ct + s*st, sin(kx - wt) = s*ct - c*st
        for (bx, by, bz), c, s, f in zip(self.base, self.c, self.s, self.f):
            af = a * f
            xs.append(bx + af * (c * ct + s * st))
            xs.append(by)
            xs.append(bz + af * (s * ct - c * st))
            speeds.append(af * self.omega)
        return xs, speeds


def quantise(xs):
    """lo, step (3 each) and uint16 codes of xyz triples, position = lo + q*step."""
    lo, step = [], []
    for a in range(3):
        col = xs[a::3]
        l, h = min(col), max(col)
        lo.append(l)
        step.append((h - l) / 65535 if h > l else 1.0)
    lx, ly, lz = lo
    sx, sy, sz = (1 / s for s in step)
    q = []
    for i in range(0, len(xs), 3):
        q.append(min(65535, int((xs[i] - lx) * sx + 0.5)))
        q.append(min(65535, int((xs[i + 1] - ly) * sy + 0.5)))
        q.append(min(65535, int((xs[i + 2] - lz) * sz + 0.5)))
    return lo, step, q


class Terrain:
    """A gently rolling surface rutted by a wheel driving along +x, with berms beside the rut."""

    def __init__(self, nx, ny, cell, origin):
        self.nx, self.ny, self.cell, self.origin = nx, ny, cell, origin
        self.base = [0.01 * math.sin(0.9 * (origin[0] + ix * cell) * 6) * math.cos((origin[1] + iy * cell) * 5)
                     for iy in range(ny) for ix in range(nx)]
        self.width = 0.1
        self.depth = 0.03

    def heights(self, wheel_x):
        nx, cell = self.nx, self.cell
        x0, y0 = self.origin
        out = list(self.base)
        half = self.width / 2
        for iy in range(self.ny):
            dy = abs(y0 + iy * cell)
            if dy > half + self.width:
                continue
            for ix in range(nx):
                x = x0 + ix * cell
                if x > wheel_x:
                    break
                # Fade the rut in over the last wheel radius, where the wheel sits now.
                fade = min(1.0, (wheel_x - x) / 0.08)
                if dy < half:
                    out[iy * nx + ix] -= fade * self.depth * (1 - (dy / half) ** 2)
                else:
                    u = (dy - half) / self.width
                    out[iy * nx + ix] += fade * 0.45 * self.depth * math.sin(math.pi * u)
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--particles", type=int, default=0, help="particle count (0: none)")
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--dt", type=float, default=0.02, help="simulated seconds between frames")
    ap.add_argument("--heightmap", default=None, help="NXxNY, e.g. 120x60")
    ap.add_argument("--bodies", action="store_true", help="one body of each shape kind")
    ap.add_argument("--quantised", action="store_true", help="uint16 quantised particle positions")
    ap.add_argument("--radii", action="store_true", help="varied radii, in view/radii.f32")
    ap.add_argument("--random-packing", action="store_true", help="random particle centres instead of a lattice")
    ap.add_argument("--truncate-frame", type=int, default=None, help="cut this frame file in half")
    ap.add_argument("--missing-frame", type=int, default=None, help="do not write this frame file")
    ap.add_argument("--tier", default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.frames < 1:
        ap.error("--frames must be >= 1")

    rng = random.Random(args.seed)
    frames_dir = os.path.join(args.out, "view", "frames")
    os.makedirs(frames_dir, exist_ok=True)
    for name in os.listdir(frames_dir):
        os.remove(os.path.join(frames_dir, name))

    n = args.particles
    radius = 0.004
    radii_file = None
    mean_radius = radius
    if n and args.radii:
        radii = [radius * rng.uniform(0.6, 1.0) for _ in range(n)]
        mean_radius = sum(radii) / n
        radii_file = "view/radii.f32"
        with open(os.path.join(args.out, radii_file), "wb") as f:
            f.write(f32(radii))
    bed = ParticleBed(n, radius, rng, (0.6, 0.3), args.random_packing, mean_radius) if n else None

    terrain = None
    if args.heightmap:
        nx, ny = (int(v) for v in args.heightmap.lower().split("x"))
        cell = 0.8 / (nx - 1)
        terrain = Terrain(nx, ny, cell, (-0.1, -cell * (ny - 1) / 2))

    bodies = []
    if args.bodies:
        tet = [0.0, 0.0, 0.06, 0.05, 0.0, -0.02, -0.03, 0.045, -0.02, -0.03, -0.045, -0.02]
        bodies = [
            {"name": "wheel", "colour": [0.25, 0.25, 0.28], "shape": {"kind": "cylinder", "radius_m": 0.08, "length_m": 0.08}},
            {"name": "chassis", "colour": [0.85, 0.45, 0.15], "shape": {"kind": "box", "size_m": [0.3, 0.16, 0.05]}},
            {"name": "sensor", "colour": [0.2, 0.6, 0.9], "shape": {"kind": "sphere", "radius_m": 0.03}},
            {"name": "arm", "colour": [0.9, 0.9, 0.9], "shape": {"kind": "capsule", "radius_m": 0.015, "length_m": 0.15}},
            {"name": "plate", "colour": [0.5, 0.8, 0.4], "shape": {"kind": "plane", "size_m": [0.15, 0.1]}},
            {"name": "rock", "colour": [0.55, 0.5, 0.6], "shape": {"kind": "mesh", "vertices_m": tet, "triangles": [0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2]}},
        ]

    times = [k * args.dt for k in range(args.frames)]
    span = max(times[-1], 1e-9)

    def poses(t):
        xw = -0.05 + 0.6 * t / span
        spin = xw / 0.08
        q_axis = qaxis((1, 0, 0), math.pi / 2)             # body z (cylinder axis) -> world y
        q_wheel = qmul(qaxis((0, 1, 0), spin), q_axis)
        zw = 0.08 - 0.02
        out = [xw, 0.0, zw, *q_wheel]
        out += [xw, 0.0, zw + 0.1, *qaxis((0, 1, 0), 0.1 * math.sin(3 * t))]
        out += [xw + 0.1, 0.0, zw + 0.155, 1, 0, 0, 0]
        out += [xw - 0.1, 0.05, zw + 0.15, *qaxis((0, 1, 0), 0.8 + 0.4 * math.sin(2 * t))]
        out += [0.55, 0.2, 0.03, *qaxis((1, 0, 0), 0.2)]
        out += [0.3, -0.2, 0.04, *qaxis((0, 0, 1), t)]
        return out

    for k, t in enumerate(times):
        if k == args.missing_frame:
            continue
        parts = []
        flags = 0
        if bed:
            xs, speeds = bed.frame(t)
            if args.quantised:
                flags |= 1
                lo, step, q = quantise(xs)
                block = f32(lo) + f32(step) + u16(q)
                block += b"\0" * ((4 - len(block) % 4) % 4)  # 32-byte header keeps alignment
                parts.append(block)
            else:
                parts.append(f32(xs))
            parts.append(f32(speeds))
        h = 0
        if terrain:
            hs = terrain.heights(-0.05 + 0.6 * t / span)
            h = len(hs)
            parts.append(f32(hs))
        if bodies:
            parts.append(f32(poses(t)))
        header = struct.pack("<4sIdIIII", b"TVF1", k, t, n, h, len(bodies), flags)
        data = header + b"".join(parts)
        if k == args.truncate_frame:
            data = data[: len(data) // 2]
        with open(os.path.join(frames_dir, f"{k:06d}.tvf"), "wb") as f:
            f.write(data)

    lo = [0.0, -0.2, 0.0]
    hi = [0.65, 0.2, 0.1]
    if bed:
        lo = [min(lo[0], -0.02), min(lo[1], -0.17), 0.0]
        hi = [max(hi[0], 0.64), max(hi[1], 0.17), max(hi[2], bed.top + bed.amp + radius)]
    if terrain:
        lo = [min(lo[0], terrain.origin[0]), min(lo[1], terrain.origin[1]), min(lo[2], -0.05)]
        hi = [max(hi[0], terrain.origin[0] + (terrain.nx - 1) * terrain.cell),
              max(hi[1], -terrain.origin[1]), max(hi[2], 0.05)]
    if bodies:
        hi[2] = max(hi[2], 0.25)

    tier = args.tier or ("scm" if terrain else "particles")
    write_png(os.path.join(args.out, "summary_plot.png"), 240, 150)
    what = []
    if n:
        what.append(f"{n:,} particles" + (" (quantised)" if args.quantised else ""))
    if terrain:
        what.append(f"heightmap {terrain.nx}x{terrain.ny}")
    if bodies:
        what.append(f"{len(bodies)} bodies")
    manifest = {
        "format": "talus-view",
        "version": 1,
        "tier": tier,
        "scenario": "fake_run",
        "title": "Fake run: " + ", ".join(what or ["empty"]),
        "frame_count": len(times),
        "times_s": times,
        "frames": [f"view/frames/{k:06d}.tvf" for k in range(len(times))],
        "bounds_m": {"lo": lo, "hi": hi},
        "particles": {"count": n, "radius_m": radius, "radii_file": radii_file} if n else None,
        "heightmap": ({"nx": terrain.nx, "ny": terrain.ny, "cell_m": terrain.cell, "origin_m": list(terrain.origin)}
                      if terrain else None),
        "bodies": bodies,
        "plots": ["summary_plot.png"],
    }
    with open(os.path.join(args.out, "view", "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
