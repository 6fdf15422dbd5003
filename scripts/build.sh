#!/usr/bin/env bash
# Configures and builds txc (Release) in build/ (or $TXC_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TXC_BUILD_DIR:-build}
# ccache keys on relative paths below the checkout, so that another clone
# (CI's) reuses what this one compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTXC_BUILD_TESTS=ON "$@" >/dev/null
cmake --build "$build_dir"
