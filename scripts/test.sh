#!/usr/bin/env bash
# Builds txc and runs the whole test suite (unit tests, lit tests for
# diagnostics and IR, end-to-end runs of compiled objects), then the
# libFuzzer harnesses (each regression input, then a short run of each:
# $TXC_FUZZ_SECONDS, default 60) and the sanitizer build's tests
# (docs/testing.md). Every part runs even when an earlier one fails. The
# benchmarks (bench/) are configured and built too, not run, so that a
# change that breaks their build is seen; scripts/bench.sh runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench-build
scripts/build.sh -DTXC_BUILD_BENCH=ON
build_dir=${TXC_BUILD_DIR:-build}
# Something on this machine replaced /dev/null with a file (the tests that
# name /dev/null itself are then reported unsupported, not run).
[ -c /dev/null ] || echo "test.sh: note: /dev/null is not a character device here" >&2
status=0
# Each part's wall time is printed: CI's budget is 30 minutes.
part() {
  local start=$SECONDS
  "$@" || status=1
  echo "test.sh: $1 took $((SECONDS - start)) s (total $SECONDS s)" >&2
}
echo "test.sh: install and build took $SECONDS s" >&2
part ctest --test-dir "$build_dir" --output-on-failure -j2
part scripts/fuzz.sh "${TXC_FUZZ_SECONDS:-60}"
part scripts/sanitize.sh
exit $status
