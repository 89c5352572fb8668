#!/usr/bin/env bash
# Reads a sanitizer or libFuzzer report on stdin and prints where the failure happened:
#   libhdf5  the first frame that is talus's or a library's own is inside Debian's libhdf5 (its
#            parser overflows, or loops past the timeout, on some corrupted files);
#   talus    anywhere else, including a report with no stack frame at all.
# Frames skipped first: the sanitizer and libFuzzer runtimes (a timeout's stack starts in
# __sanitizer_print_stack_trace and fuzzer::Fuzzer::AlarmCallback), allocators, ASan's
# interceptors and glibc's string functions (a memcpy that HDF5 calls with a bad length faults
# inside glibc's sysdeps/; ASan's string interceptors appear under the libc name, e.g.
# "in strdup (fuzz_...)", when HDF5's H5MM_strdup reads past a corrupted name).
# Used by scripts/fuzz.sh; tested by tests/python/test_fuzz_triage.py.
set -euo pipefail
libc='malloc|calloc|realloc|free|strdup|strndup|strlen|strnlen|strcmp|strncmp|strcpy|strncpy'
libc+='|memcpy|memmove|memset|memcmp'
runtime='__interceptor_|__asan|__sanitizer|__lsan|__ubsan|fuzzer::'
frame=$(grep -E '^ +#[0-9]+ ' |
        grep -vE "$runtime|in ($libc)\b|operator (new|delete)" |
        grep -vE 'sysdeps/|/libc\.so' |
        head -n 1 || true)
if [[ "$frame" == *libhdf5* ]]; then
  echo libhdf5
else
  echo talus
fi
