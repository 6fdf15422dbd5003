#!/usr/bin/env bash
# From a fresh Debian 12 machine: install the dependencies, build txc,
# compile samples/linear, link its object into a small C program and run it
# with a batch of B = 5 rows, then show a call that breaks the contract.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build_dir=${TXC_BUILD_DIR:-build}
out="$build_dir/quickstart"
mkdir -p "$out"
set -x
"$build_dir/bin/txc" compile samples/linear/linear.json \
  -o "$out/linear.o" --header "$out/linear.h" --manifest "$out/linear.manifest.json"
cc -std=c99 -O2 -I"$out" samples/linear/main.c "$out/linear.o" -o "$out/linear"
"$out/linear" 5
