"""Flips one byte in the middle of one entry (the first by name) of a txc
compile cache."""
import glob
import os
import sys

entries = sorted(e for e in glob.glob(os.path.join(sys.argv[1], "txc-cache-v1", "entries", "*", "*"))
                 if not os.path.basename(e).startswith(".tmp-"))
if not entries:
    sys.exit("no cache entry")
with open(entries[0], "r+b") as f:
    data = bytearray(f.read())
    data[len(data) // 2] ^= 0x01
    f.seek(0)
    f.write(data)
