#!/bin/sh
# Usage: build.sh TXC "CC FLAGS..." RUNNER_C "LEVELS" PROGRAM...
# Compiles each PROGRAM.json at each optimization level of LEVELS (e.g.
# "2 0") and links each object into the generic runner (runner.c):
# run_PROGRAM-O<level> in the current directory.
set -e
txc=$1
cc=$2
runner=$3
levels=$4
shift 4
for p in "$@"; do
  for level in $levels; do
    "$txc" compile "$p.json" -O"$level" -o "$p-O$level.o" --header "$p.h"
    $cc -I. -DTXC_ENTRY="$p" -include "$p.h" "$runner" "$p-O$level.o" \
      -o "run_$p-O$level" -lm
  done
done
