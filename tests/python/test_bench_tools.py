"""The benchmarks' CPU line: bench/cpu_model.sh names the model with its x86 family, model and
stepping (a VM's bare "AMD EPYC" hides the machine type), and bench_envs.py prints the same."""

import os
import pathlib
import subprocess
import sys

SOURCE_DIR = pathlib.Path(os.environ.get("TALUS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def cpuinfo_field(name):
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == name:
                return value.strip()
    return None


def test_cpu_model_names_family_model_stepping_and_cores():
    line = subprocess.run(["bash", str(SOURCE_DIR / "bench" / "cpu_model.sh")], capture_output=True,
                          text=True, check=True).stdout.strip()
    name, family = cpuinfo_field("model name"), cpuinfo_field("cpu family")
    expected = name or "unknown CPU"
    if family is not None:
        expected += f" (family {family}, model {cpuinfo_field('model')}"
        stepping = cpuinfo_field("stepping")
        expected += f", stepping {stepping})" if stepping else ")"
    expected += f", {os.cpu_count()} cores"
    assert line == expected


def test_bench_envs_prints_the_same_cpu_line():
    sys.path.insert(0, str(SOURCE_DIR / "bench"))
    try:
        import bench_envs
    finally:
        sys.path.pop(0)
    script = subprocess.run(["bash", str(SOURCE_DIR / "bench" / "cpu_model.sh")],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert bench_envs.cpu_model() == script
