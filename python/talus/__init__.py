"""talus: robots in sand, soil and gravel, at four levels of fidelity.

The compiled core lives in talus._talus; its top level (shapes, poses, drivers, robots, scenario
files) is re-exported here, and each tier is a submodule in one style: talus.shaping,
talus.particles and talus.scm each have Model, State, Workspace, step(model,
state, workspace, <bodies' poses and twists at the step's start>) and load(scenario_file);
talus.wrench names the wrench-space tier (Space, ContactStep, SpaceTier); talus.robots.load reads
a robots-tier scenario into its robot, terrain tier and coupled simulation, stepped from Python. State.copy() is a snapshot
that continues bit for bit like the original. Units are SI, poses are 4x4 numpy arrays (X_WB:
pose of body B in world W). Arrays are copies except where a docstring says "view" (heightmaps of
the shaping tier, SCM tile views), which stay valid for their state's life (docs/python.md).
"""

import json as _json

from ._talus import *  # noqa: F401,F403
from ._talus import __version__  # noqa: F401
from . import _talus
from ._talus import particles, robots, scm, shaping  # noqa: F401
from . import wrench  # noqa: F401,E402


def run_scenario(scenario, out, replace=False, tier="", threads=0):
    """Runs a scenario file (TOML) into the folder `out`; returns summary.json as a dict.

    `out` must be a new or empty folder, or with replace=True an earlier talus output (talus never
    writes over files it did not write). A non-empty `tier` runs the file on that tier instead of
    its [scenario] tier (a [terrain] file runs on "shaping", "scm" and "particles"). `threads` is
    `talus run --threads`: 0 takes TALUS_THREADS, else OMP_NUM_THREADS, else every core (fewer
    while other processes keep cores busy). Ctrl-C stops the run between steps with
    KeyboardInterrupt and removes its partial output."""
    return _json.loads(_talus.run_scenario(str(scenario), str(out), replace, tier, threads))


def check_scenario(scenario, tier=""):
    """Validates a scenario file without running it (as `tier` when given); raises ScenarioError
    naming file, line and key. Returns {tier, name, steps, view}: view says whether the run
    records frames for `talus view` and `talus run --video`."""
    return _json.loads(_talus.check_scenario(str(scenario), tier))
