"""What an agent's training writes besides its checkpoint: a CSV log of episodes and a learning
curve (return against episodes and against wall time) drawn with talus's plotter."""

from __future__ import annotations

import csv
import pathlib

import talus


class EpisodeLog:
    """Rows of finished episodes, appended as they end and flushed to `path` (CSV)."""

    FIELDS = ("episode", "env_steps", "wall_s", "goal", "return", "length", "success", "epsilon",
              "loss")

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.rows = []
        self._file = open(self.path, "w", newline="")
        self._writer = csv.DictWriter(self._file, fieldnames=self.FIELDS)
        self._writer.writeheader()

    def add(self, **row):
        row = {k: row.get(k, "") for k in self.FIELDS}
        row["episode"] = len(self.rows)
        self.rows.append(row)
        self._writer.writerow(row)

    def close(self):
        self._file.close()

    def write_curve(self, path, title, window=100):
        """Two PNGs: the return per episode with its moving mean over `window` episodes against
        the episode (`path`), and the moving mean against wall time (`path` with _wall before
        its suffix). Returns both paths."""
        path = pathlib.Path(path)
        returns = [float(r["return"]) for r in self.rows]
        walls = [float(r["wall_s"]) for r in self.rows]
        mean = moving_mean(returns, window)
        episodes = [float(i) for i in range(len(returns))]
        talus.write_plot(path, [("return", episodes, returns),
                                (f"mean of {window}", episodes, mean)],
                         title=f"{title}: return per episode", x_label="episode",
                         y_label="return")
        wall_path = path.with_name(path.stem + "_wall" + path.suffix)
        talus.write_plot(wall_path, [(f"mean of {window}", walls, mean)],
                         title=f"{title}: return against wall time", x_label="wall time [s]",
                         y_label="return")
        return path, wall_path


def moving_mean(values, window):
    """The mean of the last `window` values at each index (fewer at the start)."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out
