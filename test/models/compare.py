#!/usr/bin/python3
"""Compares txc's outputs with PyTorch's (test/models, docs/onnx.md).

    compare.py EXPECTED.npy ACTUAL.npy TOLERANCE

Passes when max |actual - expected| <= TOLERANCE * max |expected|
the error relative to the output's scale. Prints one line either way.
"""
import sys

import numpy as np


def main(argv):
    expected = np.load(argv[1])
    actual = np.load(argv[2])
    tolerance = float(argv[3])
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        print("MISMATCH shapes or dtypes: expected %s %s, got %s %s" %
              (expected.dtype, expected.shape, actual.dtype, actual.shape))
        return 1
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    scale = scale or 1.0
    error = float(np.max(np.abs(actual.astype(np.float64) -
                                expected.astype(np.float64)))) if expected.size else 0.0
    ok = error <= tolerance * scale
    print("%s %s: max abs error %.3g, scale %.3g, tolerance %.3g" %
          ("OK" if ok else "MISMATCH", argv[2].split("/")[-1], error, scale,
           tolerance))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
