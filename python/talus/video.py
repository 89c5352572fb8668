"""MP4 videos from RGB frames (numpy uint8 arrays of shape (height, width, 3)), encoded by the
ffmpeg program (Debian package ffmpeg) as H.264: the frames of a learning environment's
``render_mode="rgb_array"`` (``talus.envs.RecordVideo``) or any picture sequence::

    from talus.video import Mp4Writer
    with Mp4Writer("episode.mp4", fps=10) as video:
        for frame in frames:
            video.add(frame)

The file is encoded under a temporary name beside the target and renamed when the writer closes,
so a failure leaves no partial video; an existing file is never overwritten (FileExistsError).
``talus run --video`` (C++, core/video_writer.hpp) encodes the same way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np


def find_ffmpeg():
    """The ffmpeg program on PATH, or None."""
    return shutil.which("ffmpeg")


class Mp4Writer:
    """Writes frames to `path` (.mp4) at `fps` frames per second; the size is the first frame's
    (cropped to even numbers of pixels, as H.264 needs)."""

    def __init__(self, path, fps=30):
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"{self.path}: exists; talus never writes over a file (name another)")
        if not (isinstance(fps, (int, float)) and 0 < fps <= 240):
            raise ValueError(f"fps: expected a number in (0, 240], got {fps!r}")
        self.ffmpeg = find_ffmpeg()
        if self.ffmpeg is None:
            raise RuntimeError("videos need the ffmpeg program (Debian package ffmpeg)")
        self.fps = fps
        self._temp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}-0")
        self._process = None
        self._shape = None
        self.frames = 0

    def add(self, frame):
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"frame: expected a (height, width, 3) uint8 array, got {frame.dtype} "
                             f"{frame.shape}")
        if self._process is None:
            self._shape = frame.shape
            height, width = frame.shape[:2]
            self._process = subprocess.Popen(
                [self.ffmpeg, "-loglevel", "error", "-nostdin", "-y", "-f", "rawvideo",
                 "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-r", str(self.fps), "-i", "-",
                 "-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2", "-c:v", "libx264",
                 "-pix_fmt", "yuv420p", "-crf", "20", "-movflags", "+faststart", "-f", "mp4",
                 str(self._temp)],
                stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        elif frame.shape != self._shape:
            raise ValueError(f"frame {self.frames}: shape {frame.shape}, the video's is {self._shape}")
        try:
            self._process.stdin.write(np.ascontiguousarray(frame).tobytes())
        except BrokenPipeError:
            self._fail()
        self.frames += 1

    def _fail(self):
        err = self._process.stderr.read().decode(errors="replace") if self._process else ""
        self._discard()
        raise RuntimeError(f"ffmpeg failed writing {self.path}: {err.strip()}")

    def _discard(self):
        if self._process is not None:
            if self._process.stdin and not self._process.stdin.closed:
                try:
                    self._process.stdin.close()
                except BrokenPipeError:
                    pass
            self._process.wait()
            self._process = None
        self._temp.unlink(missing_ok=True)

    def close(self):
        """Finishes the file (nothing is written when no frame was added)."""
        if self._process is None:
            return
        self._process.stdin.close()
        err = self._process.stderr.read().decode(errors="replace")
        if self._process.wait() != 0:
            self._process = None
            self._temp.unlink(missing_ok=True)
            raise RuntimeError(f"ffmpeg failed writing {self.path}: {err.strip()}")
        self._process = None
        if self.path.exists():  # made while we encoded: keep the user's, drop ours
            self._temp.unlink(missing_ok=True)
            raise FileExistsError(f"{self.path}: appeared while encoding; not overwritten")
        self._temp.rename(self.path)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self._discard()
