"""Goal maps of the trench environments: the 26 capital letters on the paper's 7x7 grid (the
shipped maps of talus.shaping.letter_map). Random single-stroke goals are drawn in C++
(talus.shaping.TrenchGoalSource.random), where the environments draw their episodes."""

from __future__ import annotations

import numpy as np

from .. import _talus

LETTERS = "".join(_talus.shaping.letter_map_names().split(", "))

def letter_goal(letter):
    """The 7x7 goal map of a capital letter: uint8 (7, 7), 1 = a cell to trench, row 0 on top."""
    rows = _talus.shaping.letter_map(letter).to_rows()
    return np.array([[c == "#" for c in row] for row in rows], dtype=np.uint8)
