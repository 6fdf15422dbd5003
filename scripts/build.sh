#!/usr/bin/env bash
# Configures and builds txc (Release) in build/ (or $TXC_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TXC_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTXC_BUILD_TESTS=ON "$@" >/dev/null
cmake --build "$build_dir"
