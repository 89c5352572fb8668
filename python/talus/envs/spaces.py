"""The spaces of talus.envs: gymnasium.spaces' Box, Discrete, MultiDiscrete, Dict and Space when a `gymnasium`
module is importable, otherwise talus's own with the same interface (talus/envs/_spaces.py)."""

try:
    from gymnasium.spaces import Box, Dict, Discrete, MultiDiscrete, Space  # noqa: F401
except ImportError:
    from ._spaces import Box, Dict, Discrete, MultiDiscrete, Space  # noqa: F401
