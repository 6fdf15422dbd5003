#!/usr/bin/env bash
# Builds and runs the benchmarks (bench/txc_bench.cpp) against the peers
# installed by `scripts/install-deps.sh --bench`, then the PyTorch eager peer
# (bench/torch_bench.py), prints the ratio tables of docs/performance.md,
# then measures txc's own compile time (bench/compile_time.py).
#
#   scripts/bench.sh [--quick] [google-benchmark flags...]
#   scripts/bench.sh --compile-time [bench/compile_time.py flags...]
#   scripts/bench.sh --threads N [ROUNDS]
#   scripts/bench.sh --specialize [B] [ROUNDS]
#   scripts/bench.sh --models [bench/zoo_bench.py flags...]
#
# --benchmark_filter=REGEX applies to txc-bench and PyTorch. Results:
# build-bench/bench.json (txc-bench) and build-bench/torch.json (PyTorch),
# Google Benchmark JSON, build-bench/compile_time.json, and the tables on
# stdout (bench/report.py, bench/compile_time.py). --quick runs each
# benchmark for less time and compiles each compile-time program once
# instead of three times; --compile-time runs only the compile-time part.
# --threads N times sgemm 512 and 1024, softmax [4096,1024], the 16M-float
# elementwise chain, samples/attention at S = 512 and samples/cnn at B = 64 through
# <p>_run_with_options with one thread and with a txc_pthreads.h pool of N
# (interleaved rounds, medians; the timing mode of
# test/e2e/threads/harness.c), with $TXC or build-bench's txc, compiled for
# this machine (--cpu native, or $TXC_BENCH_CPU).
# --specialize times bench/programs/linear_dyn_256x256 at the static batch
# B (default 64): the variant compiled with --specialize B=<B> against the
# generic code at that batch, two objects (--cpu native, or
# $TXC_BENCH_CPU) through <p>_run_with_workspace, interleaved rounds
# (default 15) of 200 calls each, medians and their ratio
# (bench/specialize_bench.c; docs/performance.md, "Specializations").
# --models runs the model rows: the zoo of test/models (resnet18,
# mobilenet_v2 and the encoder unless --models NAME,... is given) at batch
# 1 and 8 with txc and PyTorch eager at 1 and 2 threads (unless --threads
# is given) and a per-region profile (bench/zoo_bench.py --profile; the
# tables of docs/performance.md, "The model zoo").
# Both benchmark programs check their results first (the peers of softmax
# and layer norm against txc, PyTorch's attention and cnn against txc's
# outputs); a mismatch makes this script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TXC_BENCH_BUILD_DIR:-build-bench}
python=${TXC_BENCH_PYTHON:-/usr/bin/python3}  # Debian's, with python3-torch
args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
      --benchmark_min_time=0.2)
torch_args=()
ctime_args=()
mode=all
case ${1:-} in
--quick)
  shift
  args=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true
        --benchmark_min_time=0.05)
  torch_args=(--quick)
  ctime_args=(--runs 1) ;;
--compile-time)
  shift
  mode=compile-time
  ctime_args=("$@") ;;
--threads)
  mode=threads
  threads=${2:?--threads needs a thread count}
  rounds=${3:-15} ;;
--specialize)
  mode=specialize
  batch=${2:-64}
  rounds=${3:-15} ;;
esac
if [[ ${1:-} == --models ]]; then
  shift
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTXC_BUILD_BENCH=ON -DTXC_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build_dir" --target txc
  defaults=()
  [[ " $* " == *" --models "* ]] || defaults+=(--models resnet18,mobilenet_v2,encoder)
  [[ " $* " == *" --threads "* ]] || defaults+=(--threads 1,2)
  exec "$python" bench/zoo_bench.py --txc "$build_dir/bin/txc" --profile \
    ${defaults[@]+"${defaults[@]}"} "$@"
fi
if [[ $mode == specialize ]]; then
  txc=${TXC:-$build_dir/bin/txc}
  if [[ -z ${TXC:-} ]]; then
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTXC_BUILD_BENCH=ON -DTXC_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build_dir" --target txc
  fi
  work=$build_dir/specialize
  mkdir -p "$work"
  program=bench/programs/linear_dyn_256x256.json
  cpu=${TXC_BENCH_CPU:-native}
  "$txc" compile "$program" -O2 --cpu "$cpu" --entry-prefix gen -q \
    -o "$work/gen.o" --header "$work/gen.h"
  "$txc" compile "$program" -O2 --cpu "$cpu" --entry-prefix spec -q \
    --specialize "B=$batch" -o "$work/spec.o" --header "$work/spec.h"
  cc -std=c99 -O2 -I"$work" -Iruntime bench/specialize_bench.c \
    "$work/gen.o" "$work/spec.o" -o "$work/specialize_bench" -lm
  exec "$work/specialize_bench" "$batch" "$rounds" 200
fi
if [[ $mode == threads ]]; then
  txc=${TXC:-$build_dir/bin/txc}
  if [[ -z ${TXC:-} ]]; then
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTXC_BUILD_BENCH=ON -DTXC_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build_dir" --target txc
  fi
  work=$build_dir/threads
  mkdir -p "$work"
  # program, its JSON, the shapes of its inputs
  while read -r name json shapes; do
    "$txc" compile "$json" -O2 --cpu "${TXC_BENCH_CPU:-native}" \
      -o "$work/$name.o" --header "$work/program.h"
    cc -std=c99 -O2 -I"$work" -Iruntime -DP="$name" \
      -DPU="$(tr a-z A-Z <<<"$name")" test/e2e/threads/harness.c \
      "$work/$name.o" -o "$work/$name" -pthread -lm
    printf '%-18s ' "$name"
    # shellcheck disable=SC2086
    "$work/$name" --time "$threads" "$rounds" $shapes | tail -n 1
  done <<EOF
sgemm_512 bench/programs/sgemm_512.json 512x512 512x512
sgemm_1024 bench/programs/sgemm_1024.json 1024x1024 1024x1024
softmax_4096x1024 bench/programs/softmax_4096x1024.json 4096x1024
eltwise_chain bench/programs/eltwise_chain.json 16777216
attention samples/attention/attention.json 512x32
cnn samples/cnn/cnn.json 64x3x16x16
EOF
  exit
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTXC_BUILD_BENCH=ON -DTXC_BUILD_TESTS=OFF >/dev/null
# Two jobs: the development machines have two cores.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
compile_time() {
  "$python" bench/compile_time.py --txc "$build_dir/bin/txc" \
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
# txc-bench writes the samples' inputs and txc's outputs here for
# torch_bench.py to compare against.
dump_dir=$build_dir/e2e
mkdir -p "$dump_dir"
rm -f "$build_dir/torch.json"
TXC_BENCH_DUMP_DIR=$dump_dir "$build_dir/bin/txc-bench" "${args[@]}" \
  --benchmark_out="$build_dir/bench.json" --benchmark_out_format=json "$@" \
  >/dev/null
torch_status=0
"$python" bench/torch_bench.py ${torch_args[@]+"${torch_args[@]}"} \
  --out "$build_dir/torch.json" --dump-dir "$dump_dir" "$@" || torch_status=$?
results=("$build_dir/bench.json")
[[ -f $build_dir/torch.json ]] && results+=("$build_dir/torch.json")
python3 bench/report.py "${results[@]}"
compile_time
exit "$torch_status"
