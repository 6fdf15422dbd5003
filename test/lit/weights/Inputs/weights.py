#!/usr/bin/env python3
"""Writes weights files for the tests, and checks tensors bit for bit.

  weights.py safetensors OUT [--corrupt KIND] SPEC...
  weights.py npy OUT SPEC
  weights.py same ACTUAL EXPECTED...
  weights.py program OUT NAME FORMAT FILE SPEC...

SPEC is NAME=DTYPE[d0,d1,...]@SEED (random bits from SEED; bool elements
are 0 or 1, and floats start with -0.0, the smallest subnormal, inf, -inf
and a NaN with a payload) or NAME=DTYPE[...]=VALUE (every element VALUE).

A .safetensors file is: the header length N as 8 little-endian bytes, N
bytes of JSON, then the tensors' bytes. --corrupt breaks one rule:
  truncate        the file ends 4 bytes before the last tensor does
  header-length   the length says more bytes than the file has
  past-end        a tensor's data_offsets end past the data
  overlap         the second tensor starts inside the first
  dtype           the first tensor's dtype is "F33"
  byte-count      the first tensor's shape needs more bytes than it has
  not-json        the header is not JSON

`same` compares the raw bytes of ACTUAL (a .npy file, or a .bin file of
raw bytes) with each EXPECTED (FILE.npy, or FILE.safetensors:TENSOR) and
prints "same: ACTUAL" or exits 1.

`program` writes a program whose outputs are its constants, one per SPEC
(only NAME=DTYPE[...] is used), read from FILE (FORMAT npy: FILE is a
directory of NAME.npy files).
"""
import json
import re
import struct
import sys

import numpy as np

NUMPY = {
    "f32": "<f4", "f64": "<f8", "f16": "<f2", "bf16": "<u2", "i8": "|i1",
    "i16": "<i2", "i32": "<i4", "i64": "<i8", "u8": "|u1", "bool": "|b1",
}
SAFETENSORS = {
    "f32": "F32", "f64": "F64", "f16": "F16", "bf16": "BF16", "i8": "I8",
    "i16": "I16", "i32": "I32", "i64": "I64", "u8": "U8", "bool": "BOOL",
}
# Bit patterns put first in float tensors.
SPECIALS = {
    "f32": [0x80000000, 0x00000001, 0x7F800000, 0xFF800000, 0x7FC01234],
    "f64": [0x8000000000000000, 1, 0x7FF0000000000000, 0xFFF0000000000000,
            0x7FF8000000001234],
    "f16": [0x8000, 0x0001, 0x7C00, 0xFC00, 0x7E12],
    "bf16": [0x8000, 0x0001, 0x7F80, 0xFF80, 0x7FC1],
}
UNSIGNED = {"f32": "<u4", "f64": "<u8", "f16": "<u2", "bf16": "<u2"}

SPEC = re.compile(r"^(\w[\w.]*)=(\w+)\[([0-9,]*)\](?:@(\d+)|=(.+))?$")


def parse_spec(text):
    m = SPEC.match(text)
    if not m:
        sys.exit(f"bad spec {text}")
    name, dtype, dims, seed, value = m.groups()
    shape = tuple(int(d) for d in dims.split(",") if d)
    return name, dtype, shape, seed, value


def make_array(text):
    name, dtype, shape, seed, value = parse_spec(text)
    count = int(np.prod(shape, dtype=np.int64))
    if value is not None:
        arr = np.full(count, float(value) if dtype in SPECIALS else int(value),
                      dtype=np.float32 if dtype == "bf16" else NUMPY[dtype])
        if dtype == "bf16":  # truncate f32 to bf16 bits
            arr = (arr.view("<u4") >> 16).astype("<u2")
        return name, dtype, arr.reshape(shape)
    rng = np.random.RandomState(int(seed or 0))
    if dtype == "bool":
        arr = rng.randint(0, 2, size=count).astype("|b1")
    else:
        size = np.dtype(NUMPY[dtype]).itemsize
        raw = np.frombuffer(rng.bytes(count * size), dtype=NUMPY[dtype]).copy()
        if dtype in SPECIALS:
            bits = raw.view(UNSIGNED[dtype])
            for i, pattern in enumerate(SPECIALS[dtype][:count]):
                bits[i] = pattern
        arr = raw
    return name, dtype, arr.reshape(shape)


def write_safetensors(out, specs, corrupt=None):
    arrays = [make_array(s) for s in specs]
    header, blobs, offset = {}, [], 0
    for name, dtype, arr in arrays:
        data = arr.tobytes()
        header[name] = {"dtype": SAFETENSORS[dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    names = [a[0] for a in arrays]
    if corrupt == "past-end":
        header[names[-1]]["data_offsets"][1] += 64
    elif corrupt == "overlap":
        b = header[names[1]]["data_offsets"]
        shift = 4
        header[names[1]]["data_offsets"] = [b[0] - shift, b[1] - shift]
    elif corrupt == "dtype":
        header[names[0]]["dtype"] = "F33"
    elif corrupt == "byte-count":
        header[names[0]]["shape"] = [s + 1 for s in header[names[0]]["shape"]]
    text = json.dumps(header, separators=(",", ":")).encode()
    if corrupt == "not-json":
        text = text[:-1] + b",}"
    text += b" " * (-len(text) % 8)
    length = len(text)
    if corrupt == "header-length":
        length = len(text) + sum(len(b) for b in blobs) + 100
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", length))
        f.write(text)
        data = b"".join(blobs)
        if corrupt == "truncate":
            data = data[:-4]
        f.write(data)


def write_npy(out, spec):
    name, dtype, arr = make_array(spec)
    np.save(out, arr, allow_pickle=False)


def raw_bytes(path):
    if ":" in path and not path.endswith(".npy"):
        path, tensor = path.rsplit(":", 1)
        with open(path, "rb") as f:
            data = f.read()
        n = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + n])
        begin, end = header[tensor]["data_offsets"]
        return data[8 + n + begin:8 + n + end]
    if path.endswith(".npy"):
        return np.load(path, allow_pickle=False).tobytes()
    with open(path, "rb") as f:
        return f.read()


def same(actual, expected):
    got = raw_bytes(actual)
    for e in expected:
        want = raw_bytes(e)
        if got != want:
            diff = next((i for i in range(min(len(got), len(want)))
                         if got[i] != want[i]), min(len(got), len(want)))
            sys.exit(f"DIFFERENT: {actual} ({len(got)} bytes) and {e} "
                     f"({len(want)} bytes) differ at byte {diff}")
    print(f"same: {actual}")


def write_program(out, name, fmt, file, specs):
    constants, outputs = [], []
    for text in specs:
        cname, dtype, shape, _, _ = parse_spec(text)
        c = {"name": cname, "dtype": dtype, "shape": list(shape)}
        if fmt == "npy":
            c["file"] = f"{file}/{cname}.npy"
        else:
            c["file"] = file
            c["tensor"] = cname
        constants.append(c)
        outputs.append({"name": "out_" + cname, "value": cname})
    program = {"format": "txc.program", "version": 1, "name": name,
               "inputs": [], "constants": constants, "nodes": [],
               "outputs": outputs}
    with open(out, "w") as f:
        json.dump(program, f, indent=1)
        f.write("\n")


def main(argv):
    command = argv[1]
    if command == "safetensors":
        args = argv[3:]
        corrupt = None
        if args and args[0] == "--corrupt":
            corrupt, args = args[1], args[2:]
        write_safetensors(argv[2], args, corrupt)
    elif command == "npy":
        write_npy(argv[2], argv[3])
    elif command == "same":
        same(argv[2], argv[3:])
    elif command == "program":
        write_program(argv[2], argv[3], argv[4], argv[5], argv[6:])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
