#!/usr/bin/env bash
# Compiles a program with SIZE_MIB MiB of f32 weights (default 1024) from a
# .safetensors file and prints the compiler's peak memory (max RSS from
# /usr/bin/time -v), its time per phase, and the object's size, embedded and
# with --weights external. Not a CI test: it needs SIZE_MIB * 3 of free disk
# in $TMPDIR and about 1.5 * SIZE_MIB of free memory.
#
#   bench/weights_scale.sh [SIZE_MIB] [TXC]
#
# TXC defaults to build/bin/txc. The weights file is generated in a
# temporary directory (removed at the end) with /usr/bin/python3 and numpy:
# four [N, N] f32 tensors of SIZE_MIB/4 MiB each, used by a chain of four
# matmuls, plus a fifth constant reading the first tensor again (stored once).
set -euo pipefail

size_mib=${1:-1024}
here=$(cd "$(dirname "$0")/.." && pwd)
txc=${2:-$here/build/bin/txc}
[[ -x $txc ]] || { echo "no txc at $txc (build first, or pass TXC)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/txc-weights-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$work" "$size_mib" <<'EOF'
import json, math, struct, sys
import numpy as np

work, size_mib = sys.argv[1], int(sys.argv[2])
n = int(math.isqrt(size_mib * (1 << 20) // 4 // 4))  # four n x n f32 tensors
names = [f"layer{i}.weight" for i in range(4)]
header, offset = {}, 0
for name in names:
    header[name] = {"dtype": "F32", "shape": [n, n],
                    "data_offsets": [offset, offset + n * n * 4]}
    offset += n * n * 4
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
rng = np.random.default_rng(1)
with open(f"{work}/weights.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(text)))
    f.write(text)
    for name in names:
        for row in range(0, n, 1024):  # 1024 rows at a time
            rows = min(1024, n - row)
            f.write(rng.standard_normal((rows, n), dtype=np.float32).tobytes())
constants = [{"name": f"W{i}", "dtype": "f32", "shape": [n, n],
              "file": "weights.safetensors", "tensor": name}
             for i, name in enumerate(names)]
constants.append({"name": "W0_again", "dtype": "f32", "shape": [n, n],
                  "file": "weights.safetensors", "tensor": names[0]})
nodes = [{"name": "h0", "op": "matmul", "operands": ["X", "W0"]}]
for i in range(1, 4):
    nodes.append({"name": f"h{i}", "op": "matmul", "operands": [f"h{i-1}", f"W{i}"]})
nodes.append({"name": "y", "op": "matmul", "operands": ["h3", "W0_again"]})
program = {"format": "txc.program", "version": 1, "name": "scale",
           "symbols": [{"name": "B", "min": 1, "max": 64}],
           "inputs": [{"name": "X", "dtype": "f32", "shape": ["B", n]}],
           "constants": constants, "nodes": nodes, "outputs": ["y"]}
with open(f"{work}/scale.json", "w") as f:
    json.dump(program, f, indent=1)
print(f"weights: 4 tensors of [{n}, {n}] f32, {4 * n * n * 4} bytes "
      f"({4 * n * n * 4 / (1 << 20):.0f} MiB), +1 constant reading tensor 0 again")
EOF

weights_bytes=$(stat -c %s "$work/weights.safetensors")
cat "$work/weights.safetensors" > /dev/null # warm the page cache: measure txc, not the disk

run() { # label, then txc arguments
  local label=$1
  shift
  /usr/bin/time -v -o "$work/time.txt" "$txc" compile "$work/scale.json" "$@" \
    --time-report 2> "$work/report.txt"
  local rss_kib wall user sys
  rss_kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
  user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
  echo "== $label: txc compile $* --time-report"
  echo "   wall time            $wall (CPU: user ${user} s, system ${sys} s; load average $(cut -d' ' -f1 /proc/loadavg))"
  echo "   max RSS              $((rss_kib / 1024)) MiB ($(awk -v r="$rss_kib" -v w="$weights_bytes" 'BEGIN { printf "%.2f", r * 1024 / w }') x the weights file)"
  grep -E '^ +[0-9.]+ +\( *[0-9.]+%\) +(frontend|weights|mlirgen|mlir-pipeline|translate-to-llvm-ir|abi-entry-points|llvm-optimize|llvm-codegen|write|Total)$' \
    "$work/report.txt" | sed 's/^/   /'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1)"
echo "txc: $("$txc" --version)"
echo "weights file: $weights_bytes bytes"

cd "$work"
run "embedded" -o scale.o --manifest scale.manifest.json
object_bytes=$(stat -c %s scale.o)
# The columns after the name: type, address, offset, size.
section_hex=$(/usr/lib/llvm-19/bin/llvm-readelf -S -W scale.o |
  sed -n 's/.*\.rodata\.txc_weights  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
section_bytes=$((16#${section_hex:-0}))
echo "   object               $object_bytes bytes; .rodata.txc_weights $section_bytes bytes; code and the rest $((object_bytes - section_bytes)) bytes"
rm -f scale.o

run "external" --weights external -o scale-ext.o --manifest scale-ext.manifest.json
echo "   object               $(stat -c %s scale-ext.o) bytes; blob scale-ext.weights $(stat -c %s scale-ext.weights) bytes"
