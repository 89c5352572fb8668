"""scripts/fuzz.sh fails CI on a fuzzer crash or timeout in talus's code and lists one inside
Debian's libhdf5 as third-party: scripts/fuzz_crash_site.sh decides from the report's stack."""

import os
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("TALUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))
REPORTS = SOURCE / "tests" / "data" / "fuzz" / "reports"


def crash_site(report: str) -> str:
    result = subprocess.run(["bash", str(SOURCE / "scripts" / "fuzz_crash_site.sh")],
                            input=report, capture_output=True, text=True, check=True)
    return result.stdout.strip()


@pytest.mark.parametrize("report,site", [
    # Captured: CI's run of 2026-11-27, where HDF5's local-heap lookup ran past libFuzzer's
    # timeout. The stack starts in libFuzzer's alarm handler and the allocator, which are not the
    # failure's site. The three reports below are written by hand in the sanitizers' format.
    ("timeout_inside_libhdf5.txt", "libhdf5"),
    # glibc's memmove called by HDF5 with a corrupted length.
    ("memcpy_from_libhdf5.txt", "libhdf5"),
    ("overflow_in_talus.txt", "talus"),
    # A timeout whose first frame below the runtime and the allocator is talus's own loop.
    ("timeout_in_talus.txt", "talus"),
])
def test_the_failure_is_placed_at_the_first_frame_below_the_runtimes(report, site):
    assert crash_site((REPORTS / report).read_text()) == site


def test_a_report_without_any_stack_frame_counts_as_talus():
    assert crash_site("==1== ERROR: libFuzzer: out-of-memory (malloc(4294967296))\n") == "talus"
