#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang-19, ASan + UBSan, no MLIR) in
# build-fuzz/ (or $TXC_FUZZ_BUILD_DIR) and runs them: first every
# regression input, then each harness for SECONDS (default 60) from the
# seeds and the corpus kept in build-fuzz/test/fuzz/corpus/ by earlier runs.
#
#   scripts/fuzz.sh [SECONDS] [NAME...]    NAME: program, dims, manifest,
#                                          calls, npy, safetensors, import
#
# $TXC_FUZZ_JOBS harnesses run at once (default 2). A crash, hang or broken
# invariant fails the run and leaves the input under
# build-fuzz/test/fuzz/artifacts/NAME/; fix it and add the input to
# test/fuzz/regressions/NAME/ (docs/testing.md, "libFuzzer harnesses").
# Long runs on a shared machine: nice -n 19 scripts/fuzz.sh 1800.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build_dir=${TXC_FUZZ_BUILD_DIR:-build-fuzz}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# These builds have debug info (-g1), for which ccache hashes the working
# directory unless told not to: every clean clone would miss the cache.
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

# The manifest and calls seeds are compiled by the main build's txc.
seed_txc=$PWD/${TXC_BUILD_DIR:-build}/bin/txc
[[ -x $seed_txc ]] || seed_txc=""
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTXC_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DTXC_FUZZ_SECONDS="$seconds" -DTXC_SEED_TXC="$seed_txc" >/dev/null
cmake --build "$build_dir"

filter=()
if [[ $# -gt 0 ]]; then
  filter=(-R "^fuzz-($(IFS='|'; echo "$*"))(-regressions)?\$")
fi
ctest --test-dir "$build_dir" --output-on-failure -j"${TXC_FUZZ_JOBS:-2}" \
  "${filter[@]}"
