#!/bin/sh
# Usage: parallel-compiles.sh TXC CACHE OUT REF PROGRAM...
# Starts `txc compile` of every PROGRAM at once (the same program may be
# given several times), all with the compile cache CACHE, writing
# OUT/<n>.{o,h,m.json}; waits for all of them; then compares each output
# with REF/<program name>.{o,h,m.json}, compiled without a cache. Extra
# compile options come from $TXC_FLAGS. Prints one line per compile and
# exits 1 if any compile failed or any output differs.
txc=$1 cache=$2 out=$3 ref=$4
shift 4
mkdir -p "$out"
n=0
pids=
for program in "$@"; do
  # shellcheck disable=SC2086
  "$txc" compile "$program" -o "$out/$n.o" --header "$out/$n.h" \
    --manifest "$out/$n.m.json" --cache-dir "$cache" $TXC_FLAGS \
    2> "$out/$n.err" &
  pids="$pids $!"
  n=$((n + 1))
done
status=0
n=0
for pid in $pids; do
  wait "$pid" || { echo "compile $n failed:"; cat "$out/$n.err"; status=1; }
  n=$((n + 1))
done
n=0
for program in "$@"; do
  name=$(basename "$program" .json)
  for ext in o h m.json; do
    if ! cmp -s "$out/$n.$ext" "$ref/$name.$ext"; then
      echo "compile $n ($name): $n.$ext differs from the compile without cache"
      status=1
    fi
  done
  [ -s "$out/$n.err" ] && { echo "compile $n ($name) printed:"; cat "$out/$n.err"; }
  echo "compile $n ($name): done"
  n=$((n + 1))
done
exit $status
