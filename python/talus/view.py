"""A run's viewer frames as numpy arrays: the talus-view format, version 1 (docs/viewer.md).

Every talus run writes ``view/manifest.json`` and one ``view/frames/NNNNNN.tvf`` per recorded
instant for ``talus view``; this module reads them back, e.g. to plot a particle's path or to make
a picture of one frame::

    from talus import view
    run = view.load("out/pile")
    frame = run.frame(10)          # positions_m (n, 3), speeds_m_per_s (n,), heights_m, poses
    print(run.times_s[10], frame.positions_m.mean(axis=0))
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

FORMAT = "talus-view"
VERSION = 1
HEADER = struct.Struct("<4sIdIIII")  # magic, index, time_s, particles, heights, bodies, flags


class ViewFormatError(ValueError):
    """A run folder or frame file that is not a whole talus-view run of this version."""


@dataclass
class Frame:
    index: int
    time_s: float
    positions_m: np.ndarray  # (n, 3) float32, or (0, 3)
    speeds_m_per_s: np.ndarray  # (n,) float32
    heights_m: np.ndarray  # (ny, nx) float32, or (0, 0)
    poses: np.ndarray  # (bodies, 7) float32: x, y, z [m], qw, qx, qy, qz


def frame_bytes(particles: int, heights: int, bodies: int, quantised: bool) -> int:
    """The size of a whole frame file with these counts."""
    size = HEADER.size
    if particles:
        positions = 24 + (6 * particles + 3) // 4 * 4 if quantised else 12 * particles
        size += positions + 4 * particles
    return size + 4 * heights + 28 * bodies


def parse_frame(data: bytes, where: str = "frame") -> Frame:
    """One frame file's bytes as a Frame; ViewFormatError naming `where` when it is not whole."""
    if len(data) < HEADER.size:
        raise ViewFormatError(f"{where}: truncated: {len(data)} bytes, shorter than its header")
    magic, index, time_s, n, h, b, flags = HEADER.unpack_from(data)
    if magic != b"TVF1":
        raise ViewFormatError(f"{where}: does not start with TVF1")
    quantised = bool(flags & 1)
    expected = frame_bytes(n, h, b, quantised)
    if len(data) != expected:
        state = "truncated" if len(data) < expected else "too long"
        raise ViewFormatError(f"{where}: {state}: {len(data)} bytes, expected {expected}")
    offset = HEADER.size
    positions = np.zeros((0, 3), np.float32)
    speeds = np.zeros(0, np.float32)
    if n:
        if quantised:
            lo = np.frombuffer(data, "<f4", 3, offset)
            step = np.frombuffer(data, "<f4", 3, offset + 12)
            q = np.frombuffer(data, "<u2", 3 * n, offset + 24).reshape(n, 3)
            positions = (lo + q * step).astype(np.float32)
            offset += 24 + (6 * n + 3) // 4 * 4
        else:
            positions = np.frombuffer(data, "<f4", 3 * n, offset).reshape(n, 3)
            offset += 12 * n
        speeds = np.frombuffer(data, "<f4", n, offset)
        offset += 4 * n
    heights = np.frombuffer(data, "<f4", h, offset)
    offset += 4 * h
    poses = np.frombuffer(data, "<f4", 7 * b, offset).reshape(b, 7)
    return Frame(index, time_s, positions, speeds, heights, poses)


class ViewRun:
    """A run folder's view: its manifest (``.manifest``), times and frames."""

    def __init__(self, run_dir, manifest_path: str = "view/manifest.json"):
        self.dir = Path(run_dir)
        path = self.dir / manifest_path
        if not path.is_file():
            raise ViewFormatError(f"{self.dir}: has no {manifest_path}")
        self.manifest = json.loads(path.read_text())
        if self.manifest.get("format") != FORMAT:
            raise ViewFormatError(f"{path}: format {self.manifest.get('format')!r}, expected {FORMAT!r}")
        if self.manifest.get("version") != VERSION:
            raise ViewFormatError(f"{path}: version {self.manifest.get('version')}, this reader knows {VERSION}")
        self.times_s = np.asarray(self.manifest["times_s"], dtype=float)
        grid = self.manifest.get("heightmap")
        self._grid_shape = (grid["ny"], grid["nx"]) if grid else (0, 0)

    def __len__(self) -> int:
        return self.manifest["frame_count"]

    def _inside(self, relative: str) -> Path:
        parts = PurePosixPath(relative).parts
        if PurePosixPath(relative).is_absolute() or ".." in parts:
            raise ViewFormatError(f"{self.dir}: manifest path {relative!r} leaves the run folder")
        return self.dir.joinpath(*parts)

    def frame(self, k: int) -> Frame:
        path = self._inside(self.manifest["frames"][k])
        f = parse_frame(path.read_bytes(), str(path))
        if f.index != k:
            raise ViewFormatError(f"{path}: holds frame {f.index}, listed as frame {k}")
        if f.heights_m.size:
            f.heights_m = f.heights_m.reshape(self._grid_shape)
        return f

    def cases(self) -> list[ViewRun]:
        """The runs of each case (a run of several cases), else an empty list."""
        return [ViewRun(self.dir, c["manifest"]) for c in self.manifest.get("cases", [])]


def load(run_dir) -> ViewRun:
    """The view of a finished run folder (``talus run ... --out run_dir``)."""
    return ViewRun(run_dir)
