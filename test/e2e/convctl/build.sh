#!/bin/sh
# Usage: build.sh TXC "CC FLAGS..." RUNNER_C PROGRAM...
# Compiles each PROGRAM.json at the default level and at -O0 and links the
# objects into the generic runner (runner.c): run_PROGRAM and
# run_PROGRAM-O0 in the current directory.
set -e
txc=$1
cc=$2
runner=$3
shift 3
for p in "$@"; do
  "$txc" compile "$p.json" -o "$p.o" --header "$p.h"
  $cc -I. -DTXC_ENTRY="$p" -include "$p.h" "$runner" "$p.o" -o "run_$p" -lm
  "$txc" compile "$p.json" -O0 -o "$p-O0.o"
  $cc -I. -DTXC_ENTRY="$p" -include "$p.h" "$runner" "$p-O0.o" -o "run_$p-O0" -lm
done
