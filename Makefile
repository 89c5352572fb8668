# talus — the two commands a fresh clone needs are `make demo` and `make test` (README.md).
# Both install the Debian packages they need (scripts/install-deps.sh, idempotent) and build first.

BUILD ?= build
JOBS ?= 2
# Warnings are errors in CI (CI=true in its environment); locally they are shown but do not stop.
WERROR ?= $(if $(filter true 1,$(CI)),ON,OFF)
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test bench asan fuzz format clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTALUS_WERROR=$(WERROR) $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 \
	  || { cat $(BUILD).configure.log; exit 1; }

build: configure
	@cmake --build $(BUILD) -j$(JOBS) -- --no-print-directory

# Runs every shipped scenario (scenarios/**/*.toml) into out/demo/<tier>/<name>/.
demo: build
	@bash scripts/demo.sh $(BUILD)/bin/talus out/demo

# C++ tests (GoogleTest) and Python tests (pytest), through CTest.
# ctest runs JOBS tests side by side; each test's OpenMP teams then default to one thread, so that
# a test's team does not take the cores of the tests beside it (on 2 cores, 2026-12-07, run back
# to back: the Release suite 271 -> 210 s, the sanitized C++ shards 155 -> 126 s; every test
# passes either way). The tests of threading set their own team sizes (omp_set_num_threads,
# num_threads, threads=); torch's threads follow the same variable. TEST_OMP_THREADS= keeps
# OpenMP's default.
TEST_OMP_THREADS ?= 1
TEST_ENV = $(if $(TEST_OMP_THREADS),OMP_NUM_THREADS=$(TEST_OMP_THREADS))
test: build
	@cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -j$(JOBS)

# Google Benchmark table (mean, median, stddev of 3 repetitions) on the terminal, and the whole
# table as JSON in $(BUILD)/bench.json.
bench: build
	@echo "make bench on $$(bash bench/cpu_model.sh)"
	@$(BUILD)/bin/talus_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
	  --benchmark_out=$(BUILD)/bench.json --benchmark_out_format=json
	@PYTHONPATH=$(BUILD)/python /usr/bin/python3 bench/bench_envs.py
	@bash bench/bench_viewer.sh $(BUILD)

# The C++ and Python tests under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs this
# too; the Python suite runs the instrumented module with ASan's runtime preloaded). -O1 with
# line tables only (-g1): the instrumented build at -O2 -g took 4-5x the Release build's compile
# time and was most of CI's time; -O1 -g1 about halves it and keeps file:line in the reports.
asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
	  -DTALUS_SANITIZE=ON \
	  -DTALUS_BENCH=OFF -DTALUS_WERROR=$(WERROR) > build-asan.configure.log 2>&1 || { cat build-asan.configure.log; exit 1; }
	@cmake --build build-asan -j$(JOBS) -- --no-print-directory
	@cd build-asan && $(TEST_ENV) ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(JOBS)

# libFuzzer targets (fuzz/, built with clang) for the scenario reader, mesh loader, particle state
# loader and wrench database loader, each run for FUZZ_SECONDS from its seed corpus.
FUZZ_SECONDS ?= 30
fuzz: deps
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) build-asan build-fuzz out $(BUILD).configure.log build-asan.configure.log
