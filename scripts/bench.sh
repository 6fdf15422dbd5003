#!/usr/bin/env bash
# Builds and runs the benchmarks (bench/txc_bench.cpp) against the peers
# installed by `scripts/install-deps.sh --bench`, then prints the ratio
# tables of docs/performance.md.
#
#   scripts/bench.sh [--quick] [google-benchmark flags...]
#
# Results: build-bench/bench.json (Google Benchmark JSON) and the tables on
# stdout (bench/report.py). --quick runs each benchmark for less time.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TXC_BENCH_BUILD_DIR:-build-bench}
args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
      --benchmark_min_time=0.2s)
if [[ ${1:-} == --quick ]]; then
  shift
  args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true
        --benchmark_min_time=0.05s)
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTXC_BUILD_BENCH=ON -DTXC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build_dir" --target txc-bench
# One thread everywhere: the targets compare single-threaded code.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 DNNL_MAX_CPU_ISA=ALL
"$build_dir/bin/txc-bench" "${args[@]}" \
  --benchmark_out="$build_dir/bench.json" --benchmark_out_format=json "$@" \
  >/dev/null
python3 bench/report.py "$build_dir/bench.json"
