#!/bin/sh
# Checks one zoo model end to end, in the current directory:
#
#   check_model.sh MODEL TOLERANCE OPT...     (OPT: O0, O2, ...)
#
# exports MODEL with make_zoo.py, imports it with its --dim flags, and for
# each optimization level compiles it, links harness.c through the
# generated header, runs every point of <model>.points and compares the
# output with PyTorch's (compare.py, TOLERANCE relative to the output's
# scale) and with the output of the same call on a txc_pthreads.h pool of
# 3 threads (the same bytes, or MISMATCH); then checks that an input one past the largest batch is
# rejected by the object's guards (status 6, TXC_E_SYMBOL_RANGE).
# Needs TXC, CC and HERE (this directory) in the environment.
set -eu
model=$1
tolerance=$2
shift 2
/usr/bin/python3 "$HERE/make_zoo.py" . "$model"
input=$(ls "$model".outside.*.npy | sed "s/^$model\.outside\.//; s/\.npy$//")
"$TXC" import onnx "$model.onnx" -o "$model.json" $(sed 's/^/--dim /' "$model.dims")
for opt in "$@"; do
  "$TXC" compile "$model.json" "-$opt" -o "$model.$opt.o" --header "$model.h"
  $CC -std=c99 -O1 -I. -I"$HERE/../../samples/common" \
    -I"$HERE/../../runtime" "-DTXC_MODEL=$model" \
    "-DTXC_MODEL_HEADER=\"$model.h\"" "$HERE/harness.c" "$model.$opt.o" \
    -o "run.$opt" -lm -pthread
  for point in $(cat "$model.points"); do
    rm -rf "out.$opt.$point" "out.$opt.$point.t3"
    mkdir "out.$opt.$point" "out.$opt.$point.t3"
    "./run.$opt" "$model.$point.$input.npy" "out.$opt.$point"
    "./run.$opt" --threads 3 "$model.$point.$input.npy" "out.$opt.$point.t3"
    threads=MISMATCH
    if cmp -s "out.$opt.$point/y.npy" "out.$opt.$point.t3/y.npy"; then
      threads="the same bytes"
    fi
    echo "-$opt $point: $(/usr/bin/python3 "$HERE/compare.py" \
      "$model.$point.y.npy" "out.$opt.$point/y.npy" "$tolerance"); 3 threads: $threads"
  done
  status=0
  "./run.$opt" "$model.outside.$input.npy" "out.$opt.outside" > outside.txt || status=$?
  echo "-$opt outside: exit $status, $(grep -o 'rc = [0-9]* ([A-Z_]*)' outside.txt)"
done
