#!/bin/sh
# Usage: read-fifo.sh FIFO OUT COMMAND [ARGS...]
# Makes the FIFO FIFO and copies whatever is written to it into OUT (with a
# background cat) while COMMAND runs; exits with COMMAND's status. The
# reader never outlives the script: if COMMAND did not write to the FIFO,
# opening it read-write here (which never blocks) and closing it gives cat
# its end of file; if the FIFO was replaced by another file (the bug the
# tests check for), cat is waiting on a FIFO nobody can reach and is
# stopped.
fifo=$1
out=$2
shift 2
rm -f "$fifo" "$out"
mkfifo "$fifo" || exit 1
cat "$fifo" > "$out" &
reader=$!
"$@"
status=$?
if [ -p "$fifo" ]; then
  exec 3<> "$fifo"
  exec 3>&-
else
  echo "read-fifo: '$fifo' is no longer a FIFO" >&2
  kill "$reader" 2> /dev/null
fi
wait "$reader"
exit $status
