#!/usr/bin/env bash
# Builds txc and its tests with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DTXC_SANITIZE=ON, gcc, like the Release build) in build-asan/ (or
# $TXC_ASAN_BUILD_DIR) and runs the lit suites the sanitizer build selects
# (docs/testing.md, "Sanitizer build").
set -euo pipefail
cd "$(dirname "$0")/.."
# Debug info (-g1): ccache hashes the working directory of such compiles
# unless told not to, so every clean clone (CI) missed the cache and rebuilt
# txc with ASan (34 min). Paths are made relative to the clone.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
build_dir=${TXC_ASAN_BUILD_DIR:-build-asan}
TXC_BUILD_DIR=$build_dir scripts/build.sh -DTXC_SANITIZE=ON
ctest --test-dir "$build_dir" --output-on-failure -j2
