"""The ```python blocks of the guides, run as written, one guide at a time, its blocks one after
another in one namespace (later blocks use names earlier ones define), from a scratch folder that
sees the checkout's scenarios/, sweeps/, robots/ and data/: the examples write their outputs
(out/...) there, never into the checkout. A new user's first try is these examples, and one of
them had stopped working."""

import os
import pathlib
import re
import subprocess

import pytest

from sanitizers import docs_examples

SOURCE = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
# Absolute: the test runs the guides from a scratch folder.
CLI = os.path.abspath(os.environ.get("TALUS_CLI", "build/bin/talus"))
LINKED = ("scenarios", "sweeps", "robots", "data")


def python_blocks(markdown: pathlib.Path):
    return re.findall(r"```python\n(.*?)```", markdown.read_text(), re.S)


# guide -> (its python blocks at least, the talus command its text has the reader run first)
GUIDES = {
    "python.md": (6, []),
    "envs.md": (1, []),
    "sweep.md": (1, ["sweep", "sweeps/plate_loads.toml", "--out", "out/plate_loads", "-q"]),
}


@docs_examples
@pytest.mark.parametrize("guide", sorted(GUIDES))
def test_the_guides_examples_run_as_written(guide, tmp_path, monkeypatch):
    least, command = GUIDES[guide]
    blocks = python_blocks(SOURCE / "docs" / guide)
    assert len(blocks) >= least
    for folder in LINKED:
        (tmp_path / folder).symlink_to(SOURCE / folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TALUS_THREADS", "1")
    if command:
        r = subprocess.run([CLI, *command], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    namespace = {}
    for k, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/{guide}, python block {k}", "exec"), namespace)
        except Exception as e:  # the failing block and its first line in the message
            raise AssertionError(f"docs/{guide} python block {k} ({block.splitlines()[0]!r}) "
                                 f"failed: {type(e).__name__}: {e}") from e
    written = sorted(p.name for p in tmp_path.iterdir() if p.name not in LINKED)
    assert written in ([], ["out"]), written  # nothing but out/ beside the links
    if guide == "python.md":
        assert (tmp_path / "out" / "wheel" / "summary.json").is_file()
