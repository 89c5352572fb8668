"""talus: robots in sand, soil and gravel, at four levels of fidelity.

The compiled core lives in talus._talus; everything is re-exported here. Units are SI, poses are
4x4 numpy arrays (X_WB: pose of body B in world W), and heightmap arrays are numpy views of the
C++ state, shaped (ny, nx), without copies.
"""

import json as _json

from ._talus import *  # noqa: F401,F403
from ._talus import __version__  # noqa: F401
from . import _talus


def run_scenario(scenario, out):
    """Runs a scenario file (TOML) into the folder `out`; returns summary.json as a dict."""
    return _json.loads(_talus.run_scenario(str(scenario), str(out)))


def check_scenario(scenario):
    """Validates a scenario file without running it; raises ScenarioError naming file, line, key."""
    return _json.loads(_talus.check_scenario(str(scenario)))
