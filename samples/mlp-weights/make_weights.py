#!/usr/bin/env python3
"""Writes mlp.safetensors, the weights of mlp.json, in the safetensors format
(8-byte little-endian header length, a JSON header, the raw little-endian
tensors), like torch's `safetensors.torch.save_file(model.state_dict())`
would for a two-layer MLP: fc1 (8 -> 16) and fc2 (16 -> 4).

  make_weights.py [OUT.safetensors]          write the weights
  make_weights.py --expected                 print Y for main.c's input

The values are deterministic (numpy's RandomState(2024)); only numpy is
needed (Debian: python3-numpy).
"""
import json
import os
import struct
import sys

import numpy as np


def weights():
    rng = np.random.RandomState(2024)
    return {
        "fc1.weight": rng.uniform(-0.5, 0.5, (16, 8)).astype("<f4"),
        "fc1.bias": rng.uniform(-0.1, 0.1, (16,)).astype("<f4"),
        "fc2.weight": rng.uniform(-0.5, 0.5, (4, 16)).astype("<f4"),
        "fc2.bias": rng.uniform(-0.1, 0.1, (4,)).astype("<f4"),
    }


def save_safetensors(path, tensors):
    header, offset = {}, 0
    for name, array in tensors.items():
        size = array.nbytes
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for array in tensors.values():
            f.write(array.tobytes())


def main_input():
    """The X main.c passes: B = 3 rows of 8."""
    return (np.arange(24, dtype=np.float32).reshape(3, 8) - 12) / 8


def expected():
    w = weights()
    h = main_input() @ w["fc1.weight"].T + w["fc1.bias"]
    return np.maximum(h, 0) @ w["fc2.weight"].T + w["fc2.bias"]


if __name__ == "__main__":
    if sys.argv[1:] == ["--expected"]:
        for row in expected():
            print(" ".join("%.6f" % v for v in row))
    else:
        out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "mlp.safetensors")
        save_safetensors(out, weights())
        print("wrote", out)
