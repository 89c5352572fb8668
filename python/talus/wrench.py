"""talus.wrench: the wrench-space tier (paper 000) under one name, as the other tiers are.

    db = talus.wrench.load_database("data/wrench/pebbles.h5")
    space = talus.wrench.Space(db)                 # W(theta) from the database
    step = talus.wrench.ContactStep(robot, space, feet)   # eq. 2 over a whole planar robot
    tier = talus.wrench.SpaceTier(space, feet)     # a talus.ContactTier for talus.CoupledSim

The classes are the compiled module's (also reachable as talus.WrenchSpace, ...); docs/python.md
and docs/wrench_space.md describe them. ContactStep.snapshot()/restore() (with the robot's) and
CoupledSim.snapshot()/restore() for a SpaceTier continue a run bit for bit.
"""

from ._talus import (  # noqa: F401
    Medium,
    WrenchContactStep as ContactStep,
    WrenchDatabase as Database,
    WrenchDatabaseError as DatabaseError,
    WrenchRegressionError as RegressionError,
    WrenchSpace as Space,
    WrenchSpaceTier as SpaceTier,
    WrenchStepError as StepError,
    WrenchStepSnapshot as StepSnapshot,
    import_wrench_csv as import_csv,
    load_wrench_database as load_database,
    planar_inverse_inertia,
)
