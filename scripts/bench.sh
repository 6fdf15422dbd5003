#!/usr/bin/env bash
# Builds and runs the benchmarks (bench/txc_bench.cpp) against the peers
# installed by `scripts/install-deps.sh --bench`, then prints the ratio
# tables of docs/performance.md, then measures txc's own compile time
# (bench/compile_time.py).
#
#   scripts/bench.sh [--quick] [google-benchmark flags...]
#   scripts/bench.sh --compile-time [bench/compile_time.py flags...]
#
# Results: build-bench/bench.json (Google Benchmark JSON),
# build-bench/compile_time.json, and the tables on stdout (bench/report.py,
# bench/compile_time.py). --quick runs each benchmark for less time and
# compiles each compile-time program once instead of three times;
# --compile-time runs only the compile-time part.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TXC_BENCH_BUILD_DIR:-build-bench}
args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
      --benchmark_min_time=0.2s)
ctime_args=()
mode=all
case ${1:-} in
--quick)
  shift
  args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true
        --benchmark_min_time=0.05s)
  ctime_args=(--runs 1) ;;
--compile-time)
  shift
  mode=compile-time
  ctime_args=("$@") ;;
esac
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTXC_BUILD_BENCH=ON -DTXC_BUILD_TESTS=OFF >/dev/null
compile_time() {
  /usr/bin/python3 bench/compile_time.py --txc "$build_dir/bin/txc" \
    --out "$build_dir/compile_time.json" ${ctime_args[@]+"${ctime_args[@]}"}
}
if [[ $mode == compile-time ]]; then
  cmake --build "$build_dir" --target txc
  compile_time
  exit
fi
cmake --build "$build_dir" --target txc txc-bench
# One thread everywhere: the targets compare single-threaded code.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 DNNL_MAX_CPU_ISA=ALL
"$build_dir/bin/txc-bench" "${args[@]}" \
  --benchmark_out="$build_dir/bench.json" --benchmark_out_format=json "$@" \
  >/dev/null
python3 bench/report.py "$build_dir/bench.json"
echo
compile_time
