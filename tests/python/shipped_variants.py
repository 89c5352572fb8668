"""Shipped scenarios with lines changed, for the tests that check or run a variant of one."""

import os
from pathlib import Path

SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def variant(tmp_path, shipped, old=None, new=None, name="variant.toml", also=()):
    """`shipped` (a path in the source tree) with `old` replaced by `new` and each (old, new) of
    `also` after it (every old must be in the file), its "../../" paths pointing into the source
    tree, written to tmp_path / name; returns that path."""
    text = (SOURCE / shipped).read_text()
    for a, b in ([(old, new)] if old is not None else []) + list(also):
        assert a in text, a
        text = text.replace(a, b)
    path = tmp_path / name
    path.write_text(text.replace('"../../', f'"{SOURCE}/'))
    return path
