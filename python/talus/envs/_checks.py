"""The type tests of the environments' option, seed and count checks: an int (numpy's too) or a
real number, never a bool (True is an int to Python, but True environments or a seed of False is
a mistake)."""

from __future__ import annotations

import numpy as np


def is_int(x):
    """An int or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_real(x):
    """An int, float or numpy number (finite or not), not a bool."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_))
