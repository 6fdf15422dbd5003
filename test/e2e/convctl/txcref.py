"""Drives compiled txc programs through runner.c and checks their outputs
against references computed here with plain numpy, independently of txc.

A test script imports this module, calls `run` with numpy inputs, compares
with `check`, and ends with `finish()`, which exits non-zero if anything
failed. Every check prints one line ("<name> ok" or "<name> FAILED ...")
for FileCheck.
"""
import os
import struct
import itertools
import subprocess
import sys
import tempfile

import numpy as np

DTYPES = {
    np.dtype(np.float32): 1,
    np.dtype(np.float64): 2,
    np.dtype(np.float16): 3,
    np.dtype(np.int8): 5,
    np.dtype(np.int16): 6,
    np.dtype(np.int32): 7,
    np.dtype(np.int64): 8,
    np.dtype(np.uint8): 9,
    np.dtype(np.bool_): 10,
}
NUMPY_DTYPES = {code: dtype for dtype, code in DTYPES.items()}

_failures = []
_rng = np.random.default_rng(20261129)


def random(shape, dtype=np.float32):
    """Deterministic inputs in [-1, 1)."""
    return (_rng.random(shape) * 2 - 1).astype(dtype)


def run(runner, inputs, outputs):
    """Calls the program linked into `runner` with `inputs` (numpy arrays)
    and output buffers of the given (dtype, shape) sizes. Returns (rc,
    message, [arrays]) with each output as the program described it."""
    call = struct.pack("<q", len(inputs))
    for array in inputs:
        array = np.asarray(array).copy(order="C")  # keeps rank 0
        data = array.astype(np.uint8).tobytes() if array.dtype == np.bool_ \
            else array.tobytes()
        call += struct.pack("<qq", DTYPES[array.dtype], array.ndim)
        call += struct.pack("<%dq" % array.ndim, *array.shape)
        call += struct.pack("<q", len(data)) + data
    call += struct.pack("<q", len(outputs))
    for dtype, shape in outputs:
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        call += struct.pack("<q", size)
    with tempfile.TemporaryDirectory() as tmp:
        call_path = os.path.join(tmp, "call.bin")
        result_path = os.path.join(tmp, "result.bin")
        with open(call_path, "wb") as f:
            f.write(call)
        subprocess.run([runner, call_path, result_path], check=True)
        with open(result_path, "rb") as f:
            result = f.read()
    offset = 0

    def take(fmt):
        nonlocal offset
        values = struct.unpack_from("<" + fmt, result, offset)
        offset += struct.calcsize("<" + fmt)
        return values

    rc, length = take("qq")
    message = result[offset:offset + length].decode()
    offset += length
    arrays = []
    for _ in outputs:
        dtype, rank = take("qq")
        dims = take("%dq" % rank) if rank else ()
        (size,) = take("q")
        data = result[offset:offset + size]
        offset += size
        if rc != 0:
            arrays.append(None)
            continue
        npdtype = NUMPY_DTYPES[dtype]
        count = int(np.prod(dims, dtype=np.int64))
        array = np.frombuffer(data, dtype=np.uint8 if npdtype == np.bool_
                              else npdtype, count=count).reshape(dims)
        arrays.append(array.astype(np.bool_) if npdtype == np.bool_ else array)
    return rc, message, arrays


def check(name, got, want, tol=1e-5):
    """Same shape and dtype, and values within tol (relative to the largest
    magnitude of `want`, absolute near zero); NaN must match NaN."""
    want = np.asarray(want)
    if got is None:
        problem = "no output"
    elif got.shape != want.shape:
        problem = "shape %s, expected %s" % (got.shape, want.shape)
    elif got.dtype != want.dtype:
        problem = "dtype %s, expected %s" % (got.dtype, want.dtype)
    else:
        g = np.atleast_1d(got.astype(np.float64))  # rank 0 too
        w = np.atleast_1d(want.astype(np.float64))
        scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0)))
        error = np.abs(g - w)
        error[np.isnan(g) & np.isnan(w)] = 0
        error[(g == w) & np.isinf(w)] = 0
        worst = float(np.max(error, initial=0))
        if np.isnan(worst) or worst > tol * scale:
            problem = "max abs error %g (tolerance %g)" % (worst, tol * scale)
        else:
            problem = None
    if problem:
        _failures.append(name)
        print("%s FAILED: %s" % (name, problem))
    else:
        print("%s ok" % name)


def expect_rc(name, rc, message, expected_rc, text):
    """A call that must fail with `expected_rc` and a message containing
    `text`."""
    if rc == expected_rc and text in message:
        print("%s ok: rc=%d %s" % (name, rc, message))
    else:
        _failures.append(name)
        print("%s FAILED: rc=%d %s" % (name, rc, message))


def finish():
    if _failures:
        print("%d checks failed: %s" % (len(_failures), ", ".join(_failures)))
        sys.exit(1)
    print("all checks passed")


# ---------------------------------------------------------------------------
# References (channels-first activations [N,C,*spatial], weights
# [O,C/groups,*kernel], for any number of spatial dims; channels last goes
# through transposes). Paddings are ONNX's: every dim's padding before,
# then every dim's padding after ((top, left, bottom, right) in 2-D).
# ---------------------------------------------------------------------------

def _pad_nchw(x, pads, value):
    spatial = x.ndim - 2
    widths = [(pads[a], pads[a + spatial]) for a in range(spatial)]
    return np.pad(x, [(0, 0), (0, 0)] + widths, constant_values=value)


def _windows(xp, kernel, stride, dilation, out_sizes):
    """Yields (offset, view) where view[n, c, *o] is the input element at
    kernel offset `offset` (a tuple, one index per spatial dim) of each
    output position's window."""
    for offset in itertools.product(*(range(k) for k in kernel)):
        index = tuple(slice(i * d, i * d + (o - 1) * s + 1, s)
                      for i, d, o, s in zip(offset, dilation, out_sizes,
                                            stride))
        yield offset, xp[(slice(None), slice(None)) + index]


def _out_size(size, pad_total, kernel, stride, dilation):
    return (size + pad_total - dilation * (kernel - 1) - 1) // stride + 1


def conv_nchw(x, w, b=None, stride=None, pads=None, dilation=None,
              groups=1):
    """PyTorch's convolution of any number of spatial dims (conv2d,
    conv3d): x [N,C,*spatial], w [O,C/groups,*kernel]; stride and dilation
    default to 1, pads to 0. Accumulates in float64."""
    spatial = x.ndim - 2
    stride = stride or (1,) * spatial
    dilation = dilation or (1,) * spatial
    pads = pads or (0,) * (2 * spatial)
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    xp = _pad_nchw(x.astype(np.float64), pads, 0)
    out_sizes = tuple(
        _out_size(x.shape[2 + a], pads[a] + pads[a + spatial], kernel[a],
                  stride[a], dilation[a]) for a in range(spatial))
    out = np.zeros((x.shape[0], o) + out_sizes)
    og = o // groups
    w64 = w.astype(np.float64)
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        wg = w64[g * og:(g + 1) * og]
        for offset, view in _windows(xs, kernel, stride, dilation, out_sizes):
            # out[n, o, *p] += sum_c view[n, c, *p] * w[o, c, *offset]
            out[:, g * og:(g + 1) * og] += np.einsum(
                "nc...,oc->no...", view, wg[(slice(None), slice(None)) + offset])
    if b is not None:
        out += b.astype(np.float64).reshape((1, -1) + (1,) * spatial)
    return out.astype(x.dtype)


conv2d_nchw = conv_nchw


def _channels_first(x):
    return x.transpose((0, x.ndim - 1) + tuple(range(1, x.ndim - 1)))


def _channels_last(y):
    return np.ascontiguousarray(
        y.transpose((0,) + tuple(range(2, y.ndim)) + (1,)))


def conv_nhwc(x, w, b=None, **kwargs):
    """x [N,*spatial,C], w [*kernel,C/groups,O] (HWIO, DHWIO)."""
    spatial = x.ndim - 2
    oihw = w.transpose((spatial + 1, spatial) + tuple(range(spatial)))
    return _channels_last(conv_nchw(_channels_first(x), oihw, b, **kwargs))


conv2d_nhwc = conv_nhwc


def max_pool2d_nchw(x, kernel, stride=None, padding=(0, 0)):
    """PyTorch max_pool2d (floor mode): -inf padding."""
    stride = stride or kernel
    pads = (padding[0], padding[1], padding[0], padding[1])
    n, c, h, w = x.shape
    oh = _out_size(h, 2 * padding[0], kernel[0], stride[0], 1)
    ow = _out_size(w, 2 * padding[1], kernel[1], stride[1], 1)
    xp = _pad_nchw(x, pads, -np.inf)
    out = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    for _, view in _windows(xp, kernel, stride, (1, 1), (oh, ow)):
        out = np.maximum(out, view)
    return out


def avg_pool2d_nchw(x, kernel, stride=None, padding=(0, 0),
                    count_include_pad=True):
    """PyTorch avg_pool2d (floor mode)."""
    stride = stride or kernel
    pads = (padding[0], padding[1], padding[0], padding[1])
    n, c, h, w = x.shape
    oh = _out_size(h, 2 * padding[0], kernel[0], stride[0], 1)
    ow = _out_size(w, 2 * padding[1], kernel[1], stride[1], 1)
    xp = _pad_nchw(x.astype(np.float64), pads, 0)
    ones = _pad_nchw(np.ones((1, 1, h, w)), pads, 0)
    total = np.zeros((n, c, oh, ow))
    count = np.zeros((1, 1, oh, ow))
    windows = zip(_windows(xp, kernel, stride, (1, 1), (oh, ow)),
                  _windows(ones, kernel, stride, (1, 1), (oh, ow)))
    for (_, view), (_, inside) in windows:
        total += view
        count += inside
    if count_include_pad:
        count = np.full_like(count, kernel[0] * kernel[1])
    return (total / count).astype(x.dtype)


def nhwc(reference):
    """Wraps a channels-first pool reference for channels-last tensors."""
    def wrapped(x, *args, **kwargs):
        return _channels_last(reference(_channels_first(x), *args, **kwargs))
    return wrapped


def _pool_out_size(size, before, after, kernel, stride, dilation, ceil_mode):
    """ONNX's and PyTorch's pool output size: in ceil mode the last window
    must start inside the input or the padding before it."""
    span = dilation * (kernel - 1) + 1
    numerator = size + before + after - span
    steps = -(-numerator // stride) if ceil_mode else numerator // stride
    if ceil_mode and steps * stride >= size + before:
        steps -= 1
    return steps + 1


def pool_nchw(x, kind, kernel, stride=None, pads=None, dilation=None,
              ceil_mode=False, count_include_pad=True):
    """ONNX MaxPool ("max") or AveragePool ("avg") on [N,C,*spatial], any
    number of spatial dims. Max pads with the lowest value; the average
    divides by the window's input elements, or with count_include_pad by
    its elements inside the padded input (a ceil-mode window hanging over
    its end counts only those). Computed window by window."""
    spatial = x.ndim - 2
    stride = stride or kernel
    pads = pads or (0,) * (2 * spatial)
    dilation = dilation or (1,) * spatial
    sizes = x.shape[2:]
    out = [_pool_out_size(sizes[a], pads[a], pads[a + spatial], kernel[a],
                          stride[a], dilation[a], ceil_mode)
           for a in range(spatial)]
    result = np.zeros(x.shape[:2] + tuple(out),
                      dtype=x.dtype if kind == "max" else np.float64)

    def taps(axis, o):
        start = o * stride[axis] - pads[axis]
        return [start + k * dilation[axis] for k in range(kernel[axis])]

    def counted(axis, o):
        lo, hi = (-pads[axis], sizes[axis] + pads[axis + spatial]) \
            if count_include_pad else (0, sizes[axis])
        return sum(lo <= i < hi for i in taps(axis, o))

    window_axes = tuple(range(2, x.ndim))
    for position in itertools.product(*(range(o) for o in out)):
        inside = [[i for i in taps(a, o) if 0 <= i < sizes[a]]
                  for a, o in enumerate(position)]
        index = (slice(None), slice(None)) + position
        window = x[np.ix_(range(x.shape[0]), range(x.shape[1]), *inside)]
        if kind == "max":
            lowest = -np.inf if x.dtype.kind == "f" \
                else np.iinfo(x.dtype).min
            result[index] = np.max(window, axis=window_axes) \
                if all(inside) else lowest
            continue
        total = window.astype(np.float64).sum(axis=window_axes)
        result[index] = total / np.prod(
            [counted(a, o) for a, o in enumerate(position)])
    return result.astype(x.dtype)


pool2d_nchw = pool_nchw
