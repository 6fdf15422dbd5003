"""Compares the outputs a sample driver wrote (--dump DIR) with the ones the
reference interpreter wrote (`txc run --eager ... --output-dir REF`).

Usage: compare.py DIR REF NAME...

Each NAME is an output: DIR/NAME.npy against REF/NAME.npy. Dtypes and shapes
must be equal. Floats pass elementwise when |actual - expected| <= atol +
rtol * |expected| (or both NaN, or the same infinity) with the tolerances of
docs/testing.md (include/txc/Testing/Tolerance.h); integers and bool must be
equal. Prints one line per output and exits 1 on any mismatch.
"""
import sys

import numpy as np

TOLERANCES = {np.dtype("float64"): (1e-12, 1e-12),
              np.dtype("float32"): (1e-5, 1e-5),
              np.dtype("float16"): (1e-5, 1e-3)}


def compare(name, actual, expected):
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return "%s: MISMATCH %s%s vs reference %s%s" % (
            name, actual.dtype, list(actual.shape), expected.dtype,
            list(expected.shape))
    shape = "%s%s" % (actual.dtype, list(actual.shape))
    if actual.dtype not in TOLERANCES:
        if np.array_equal(actual, expected):
            return "%s: ok %s exact" % (name, shape)
        bad = np.argwhere(actual != expected)
        return "%s: MISMATCH %s %d elements differ, first at %s" % (
            name, shape, len(bad), bad[0].tolist())
    atol, rtol = TOLERANCES[actual.dtype]
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - e)
        good = (diff <= atol + rtol * np.abs(e)) | (np.isnan(a) & np.isnan(e)) \
            | (np.isinf(a) & (a == e))
    finite = np.isfinite(diff)
    max_abs = float(diff[finite].max()) if finite.any() else 0.0
    if good.all():
        return "%s: ok %s max_abs=%.3g" % (name, shape, max_abs)
    bad = np.argwhere(~good)
    first = tuple(bad[0])
    return ("%s: MISMATCH %s %d of %d elements differ, first at %s: "
            "driver %r, reference %r (atol=%g rtol=%g)" % (
                name, shape, len(bad), a.size, list(first), float(a[first]),
                float(e[first]), atol, rtol))


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: compare.py DIR REF NAME...")
    directory, reference = sys.argv[1], sys.argv[2]
    failed = False
    for name in sys.argv[3:]:
        line = compare(name, np.load("%s/%s.npy" % (directory, name)),
                       np.load("%s/%s.npy" % (reference, name)))
        print(line)
        failed = failed or "MISMATCH" in line
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
