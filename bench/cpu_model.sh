#!/usr/bin/env bash
# Prints the CPU this benchmark runs on: its model name with the x86 family, model and stepping,
# and the online core count, e.g. "AMD EPYC (family 26, model 2, stepping 1), 2 cores". Cloud VMs
# often report a bare "AMD EPYC", which names neither the generation nor the machine type, and the
# figures of docs/ differ by up to 2 x between types that share that name.
# Usage: bash bench/cpu_model.sh (reads /proc/cpuinfo; test: tests/python/test_bench_tools.py).
field() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'; }
name=$(field "model name")
family=$(field "cpu family")
model=$(field "model")
stepping=$(field "stepping")
detail=""
if [ -n "$family" ]; then
  detail=" (family $family, model $model${stepping:+, stepping $stepping})"
fi
echo "${name:-unknown CPU}$detail, $(getconf _NPROCESSORS_ONLN) cores"
