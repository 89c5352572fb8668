"""What the sanitized run (make asan, which sets TALUS_SANITIZED=1) leaves to the Release run."""

import os

import pytest

# A test that plays a whole scripted episode to check its physics: the outcome is checked in the
# Release run. Under the sanitizers its environment's C++ runs in the shorter tests of its file,
# and the whole episode would cost tens of seconds of CI (tests/CMakeLists.txt).
whole_episode_physics = pytest.mark.skipif(os.environ.get("TALUS_SANITIZED") == "1",
                                           reason="a whole episode's physics: the Release run")

# The documentation's examples, run as written: the code they reach is instrumented in the tests
# of each module; as a whole they take 20 s of Release time.
docs_examples = pytest.mark.skipif(os.environ.get("TALUS_SANITIZED") == "1",
                                   reason="the docs' examples as a whole: the Release run")
