"""One schema for every tier (issue 15): the time step is [simulation] time_step_s everywhere, and
a shipped scenario written with an old key exits 2 at check naming the key, its line and the new
key."""

import os
import re
import subprocess
from pathlib import Path

import pytest

CLI = os.environ.get("TALUS_CLI", "build/bin/talus")
SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def old_style(tmp_path, shipped, section):
    """The shipped scenario with its time step moved back from [simulation] into `section`."""
    text = (SOURCE / shipped).read_text().replace('"../../', f'"{SOURCE}/')
    line = re.search(r"^time_step_s = .*$", text, re.M).group(0)
    text = text.replace(line + "\n", "", 1).replace(f"[{section}]\n", f"[{section}]\n{line}\n", 1)
    path = tmp_path / "old.toml"
    path.write_text(text)
    return path, text.splitlines().index(line) + 1


@pytest.mark.parametrize("shipped,section", [
    ("scenarios/particles/pile.toml", "solver"),
    ("scenarios/robots/rover_slope.toml", "robot"),
    ("scenarios/robots/rover_particles.toml", "solver"),
    ("scenarios/wrench/acquire_demo.toml", "solver"),
    ("scenarios/wrench/foot_accuracy.toml", "solver"),
])
def test_an_old_time_step_key_exits_2_naming_the_new_one(tmp_path, shipped, section):
    path, line = old_style(tmp_path, shipped, section)
    r = subprocess.run([CLI, "check", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"old.toml:{line}:15: {section}.time_step_s: moved to [simulation] time_step_s "
            "(one key for every tier)") in r.stderr, r.stderr
