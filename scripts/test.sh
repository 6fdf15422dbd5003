#!/usr/bin/env bash
# Builds txc and runs the whole test suite (unit tests, lit tests for
# diagnostics and IR, end-to-end runs of compiled objects).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build_dir=${TXC_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j2
