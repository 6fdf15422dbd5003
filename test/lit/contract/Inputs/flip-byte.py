"""Flips one byte in the middle of every entry of a txc compile cache."""
import glob
import os
import sys

entries = glob.glob(os.path.join(sys.argv[1], "txc-cache-v1", "entries", "*", "*"))
entries = [e for e in entries if not os.path.basename(e).startswith(".tmp-")]
if not entries:
    sys.exit("no cache entry")
for path in entries:
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[len(data) // 2] ^= 0x01
        f.seek(0)
        f.write(data)
