"""Goal maps of the trench environments: the 26 capital letters on the paper's 7x7 grid (the
shipped maps of talus.shaping.letter_map), and random single-stroke goals for curricula."""

from __future__ import annotations

import numpy as np

from .. import _talus

LETTERS = "".join(_talus.shaping.letter_map_names().split(", "))

_MOVES = np.array([(-1, 0), (1, 0), (0, -1), (0, 1)])  # up, down, left, right (action order)


def letter_goal(letter):
    """The 7x7 goal map of a capital letter: uint8 (7, 7), 1 = a cell to trench, row 0 on top."""
    rows = _talus.shaping.letter_map(letter).to_rows()
    return np.array([[c == "#" for c in row] for row in rows], dtype=np.uint8)


def random_single_stroke_goal(rng, rows=7, cols=7, min_cells=4, max_cells=20):
    """A random goal one stroke can dig: the cells a random walk of the blade visits (each move
    uniform among those that stay on the map) from a uniform start cell, until it has visited a
    uniform number of cells in [min_cells, max_cells]. Returns (goal uint8 (rows, cols), start
    (row, col)). `rng` is a numpy Generator (the environment's np_random)."""
    if not (1 <= min_cells <= max_cells <= rows * cols):
        raise ValueError(f"random goal: expected 1 <= min_cells <= max_cells <= {rows * cols}, got "
                         f"{min_cells} and {max_cells}")
    target = int(rng.integers(min_cells, max_cells + 1))
    goal = np.zeros((rows, cols), dtype=np.uint8)
    start = (int(rng.integers(rows)), int(rng.integers(cols)))
    r, c = start
    goal[r, c] = 1
    visited = 1
    while visited < target:
        dr, dc = _MOVES[rng.integers(4)]
        if 0 <= r + dr < rows and 0 <= c + dc < cols:
            r, c = r + dr, c + dc
            if not goal[r, c]:
                goal[r, c] = 1
                visited += 1
    return goal, start
