#!/bin/sh
# Usage: expect-exit.sh CODE COMMAND [ARGS...]
# Runs COMMAND; succeeds only if it exits with exactly CODE. Its output
# passes through so that FileCheck can check it.
expected=$1
shift
"$@"
status=$?
if [ "$status" -ne "$expected" ]; then
  echo "expect-exit: '$*' exited with $status, expected $expected" >&2
  exit 1
fi
exit 0
