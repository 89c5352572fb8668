"""The ```python blocks of docs/python.md, run as written, one after another in one namespace
(later blocks use names earlier ones define), from a scratch folder that sees the checkout's
scenarios/, robots/ and data/: the examples write their outputs (out/...) there, never into the
checkout. A new user's first try is these examples, and one of them had stopped working."""

import os
import pathlib
import re

from sanitizers import docs_examples

SOURCE = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def python_blocks(markdown: pathlib.Path):
    return re.findall(r"```python\n(.*?)```", markdown.read_text(), re.S)


@docs_examples
def test_the_python_guides_examples_run_as_written(tmp_path, monkeypatch):
    blocks = python_blocks(SOURCE / "docs" / "python.md")
    assert len(blocks) >= 6
    for folder in ("scenarios", "robots", "data"):
        (tmp_path / folder).symlink_to(SOURCE / folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TALUS_THREADS", "1")
    namespace = {}
    for k, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/python.md, python block {k}", "exec"), namespace)
        except Exception as e:  # the failing block and its first line in the message
            raise AssertionError(f"docs/python.md python block {k} ({block.splitlines()[0]!r}) "
                                 f"failed: {type(e).__name__}: {e}") from e
    assert (tmp_path / "out" / "wheel" / "summary.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "out", "robots", "scenarios"]
