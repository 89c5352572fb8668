"""Results of ``talus sweep`` (docs/sweep.md) as numpy arrays and a table.

    from talus import sweep
    results = sweep.load("out/plate_loads")          # the sweep's folder, or its sweep.h5
    table = results.table()                          # {column: numpy array}, one row per run
    table["experiment.load_n"], table["summary.result.sinkage_m"]
    run = results["r0003"]                           # one run: parameters, summary, logs, arrays
    run.logs["plate"]["sinkage_m"]                   # a CSV log's column, as float64

The file holds only finished runs (a sweep stopped part way holds those it finished); ``planned``
lists every run of the sweep.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

__all__ = ["SweepRun", "SweepResults", "load"]

_FORMAT = "1"


@dataclass
class SweepRun:
    """One finished run of a sweep."""

    id: str
    index: int
    status: str  # "ok" or "failed"
    error: str  # a failed run's message ("" when ok)
    exit_code: int  # what `talus run` would have exited with: 0, 1 (run failed), 2 (bad input)
    wall_s: float
    rank: int
    host: str
    parameters: dict  # {dotted key: value} of the swept values
    summary: dict | None  # the run's summary.json (None when it wrote none)
    logs: dict = field(default_factory=dict)  # {log name: {column: numpy array}}
    arrays: dict = field(default_factory=dict)  # {array name: numpy array} (the .npy files)


@dataclass
class SweepResults:
    """What ``load`` returns: the sweep's description and its finished runs in run order."""

    path: str
    name: str
    description: str
    fingerprint: str
    keys: list  # the swept dotted keys
    planned: list  # every run id of the sweep
    runs: list  # SweepRun, finished runs only

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, run_id: str) -> SweepRun:
        for run in self.runs:
            if run.id == run_id:
                return run
        raise KeyError(f"{self.path}: no finished run {run_id!r} (finished: "
                       f"{', '.join(r.id for r in self.runs) or 'none'})")

    def table(self) -> dict:
        """One row per finished run: run, status, wall_s, the swept keys and every scalar of the
        summaries (dotted names prefixed "summary."). Numbers become float64 arrays (NaN where a
        run lacks the value), anything else an object array."""
        rows = []
        for run in self.runs:
            row = {"run": run.id, "status": run.status, "wall_s": run.wall_s}
            row.update({k: run.parameters.get(k) for k in self.keys})
            _flatten(run.summary or {}, "summary", row)
            rows.append(row)
        columns = []
        for row in rows:
            columns.extend(k for k in row if k not in columns)
        return {name: _column([row.get(name) for row in rows]) for name in columns}


def _element_name(element, index):
    """An array's object element by its "name" (a scenario's [[case]]), else by its index."""
    name = element.get("name")
    return name if isinstance(name, str) and name else str(index)


def _flatten(value, prefix, out):
    """Scalars by dotted name; objects walked into, and arrays of objects by element (as the CLI's
    sweep.csv: "summary.cases.upright_flat.body.travel_m"); arrays of numbers left out."""
    if isinstance(value, dict):
        for key, member in value.items():
            _flatten(member, f"{prefix}.{key}", out)
    elif isinstance(value, list):
        if value and all(isinstance(e, dict) for e in value):
            for i, element in enumerate(value):
                _flatten(element, f"{prefix}.{_element_name(element, i)}", out)
    elif value is not None:
        out[prefix] = value


def _column(values):
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) or v is None for v in values):
        return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return np.array(values, dtype=object)


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _read_logs(group, prefix, out):
    for name, item in group.items():
        key = f"{prefix}{name}"
        if "columns" in item.attrs:  # a CSV log: one dataset per column, in header order
            out[key] = {c: _dataset(item[c]) for c in json.loads(_text(item.attrs["columns"]))}
        elif hasattr(item, "items"):
            _read_logs(item, key + "/", out)


def _read_arrays(group, prefix, out):
    for name, item in group.items():
        key = f"{prefix}{name}"
        if hasattr(item, "items"):
            _read_arrays(item, key + "/", out)
        else:
            out[key] = item[()]


def _dataset(item):
    if item.dtype.kind == "O" or item.dtype.kind == "S":
        return np.array([_text(v) for v in item[()]], dtype=object)
    return item[()]


def _attr(group, name, path):
    if name not in group.attrs:
        raise ValueError(f"{path}: {group.name}: attribute {name!r} missing: not a talus sweep file")
    return group.attrs[name]


def load(path, logs: bool = True) -> SweepResults:
    """Reads a sweep's results: ``path`` is the sweep's output folder or its sweep.h5. With
    ``logs=False`` the runs' logs and arrays are not read (faster for large sweeps). Raises
    FileNotFoundError when there is no such file, ValueError when it is not a talus sweep file."""
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - Debian's python3-h5py is a dependency
        raise ImportError("talus.sweep.load needs h5py (Debian: apt-get install python3-h5py)") from e
    file = os.path.join(path, "sweep.h5") if os.path.isdir(path) else str(path)
    if not os.path.isfile(file):
        raise FileNotFoundError(f"{file}: no sweep results (talus sweep writes DIR/sweep.h5)")
    try:
        h5 = h5py.File(file, "r")
    except OSError as e:
        raise ValueError(f"{file}: cannot be read as HDF5 ({e})") from e
    with h5:
        if _text(h5.attrs.get("talus_sweep", b"")) != _FORMAT:
            raise ValueError(f"{file}: not a talus sweep file (no talus_sweep = {_FORMAT!r} "
                             "attribute)")
        results = SweepResults(
            path=file,
            name=_text(_attr(h5, "name", file)),
            description=_text(_attr(h5, "description", file)),
            fingerprint=_text(_attr(h5, "fingerprint", file)),
            keys=json.loads(_text(_attr(h5, "swept_keys", file))),
            planned=[_text(v) for v in h5["planned_runs"][()]],
            runs=[],
        )
        for run_id in sorted(h5["runs"]):
            group = h5["runs"][run_id]
            summary = json.loads(_text(_attr(group, "summary_json", file)))
            run = SweepRun(
                id=_text(_attr(group, "id", file)),
                index=int(_attr(group, "index", file)),
                status=_text(_attr(group, "status", file)),
                error=_text(_attr(group, "error", file)),
                exit_code=int(_attr(group, "exit_code", file)),
                wall_s=float(_attr(group, "wall_s", file)),
                rank=int(_attr(group, "rank", file)),
                host=_text(_attr(group, "host", file)),
                parameters=json.loads(_text(_attr(group, "parameters_json", file))),
                summary=summary if isinstance(summary, dict) else None,
            )
            if logs and "logs" in group:
                _read_logs(group["logs"], "", run.logs)
            if logs and "arrays" in group:
                _read_arrays(group["arrays"], "", run.arrays)
            results.runs.append(run)
        return results
