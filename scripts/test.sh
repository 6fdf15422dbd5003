#!/usr/bin/env bash
# Builds txc and runs the whole test suite (unit tests, lit tests for
# diagnostics and IR, end-to-end runs of compiled objects). The benchmarks
# (bench/) are configured and built too, not run, so that a change that
# breaks their build is seen; scripts/bench.sh runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench-build
scripts/build.sh -DTXC_BUILD_BENCH=ON
build_dir=${TXC_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j2
