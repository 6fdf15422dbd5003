"""Drives compiled txc programs through runner.c and checks their outputs
against references computed here with plain numpy, independently of txc.

A test script imports this module, calls `run` with numpy inputs, compares
with `check`, and ends with `finish()`, which exits non-zero if anything
failed. Every check prints one line ("<name> ok" or "<name> FAILED ...")
for FileCheck.
"""
import os
import struct
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
# References (NCHW activations, OIHW weights; NHWC goes through transposes)
# ---------------------------------------------------------------------------

def _pad_nchw(x, pads, value):
    top, left, bottom, right = pads
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)),
                  constant_values=value)


def _windows(xp, kernel, stride, dilation, out_hw):
    """Yields (i, j, view) where view[n, c, oh, ow] is the input element at
    kernel offset (i, j) of each output position's window."""
    oh, ow = out_hw
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            h0, w0 = i * dilation[0], j * dilation[1]
            yield i, j, xp[:, :, h0:h0 + (oh - 1) * stride[0] + 1:stride[0],
                           w0:w0 + (ow - 1) * stride[1] + 1:stride[1]]


def _out_size(size, pad_total, kernel, stride, dilation):
    return (size + pad_total - dilation * (kernel - 1) - 1) // stride + 1


def conv2d_nchw(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0),
                dilation=(1, 1), groups=1):
    """PyTorch conv2d: x [N,C,H,W], w [O,C/groups,kh,kw], pads (top, left,
    bottom, right). Accumulates in float64."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = _pad_nchw(x.astype(np.float64), pads, 0)
    oh = _out_size(h, pads[0] + pads[2], kh, stride[0], dilation[0])
    ow = _out_size(wd, pads[1] + pads[3], kw, stride[1], dilation[1])
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    w64 = w.astype(np.float64)
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i, j, view in _windows(xs, (kh, kw), stride, dilation, (oh, ow)):
            # out[n, o, p, q] += sum_c view[n, c, p, q] * w[o, c, i, j]
            out[:, g * og:(g + 1) * og] += np.einsum(
                "ncpq,oc->nopq", view, w64[g * og:(g + 1) * og, :, i, j])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out.astype(x.dtype)


def conv2d_nhwc(x, w, b=None, **kwargs):
    """x [N,H,W,C], w [kh,kw,C/groups,O] (HWIO)."""
    y = conv2d_nchw(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), b,
                    **kwargs)
    return np.ascontiguousarray(y.transpose(0, 2, 3, 1))


def max_pool2d_nchw(x, kernel, stride=None, padding=(0, 0)):
    """PyTorch max_pool2d (floor mode): -inf padding."""
    stride = stride or kernel
    pads = (padding[0], padding[1], padding[0], padding[1])
    n, c, h, w = x.shape
    oh = _out_size(h, 2 * padding[0], kernel[0], stride[0], 1)
    ow = _out_size(w, 2 * padding[1], kernel[1], stride[1], 1)
    xp = _pad_nchw(x, pads, -np.inf)
    out = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    for _, _, view in _windows(xp, kernel, stride, (1, 1), (oh, ow)):
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
    for (_, _, view), (_, _, inside) in windows:
        total += view
        count += inside
    if count_include_pad:
        count = np.full_like(count, kernel[0] * kernel[1])
    return (total / count).astype(x.dtype)


def nhwc(reference):
    """Wraps an NCHW pool reference for NHWC tensors."""
    def wrapped(x, *args, **kwargs):
        y = reference(x.transpose(0, 3, 1, 2), *args, **kwargs)
        return np.ascontiguousarray(y.transpose(0, 2, 3, 1))
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


def pool2d_nchw(x, kind, kernel, stride=None, pads=(0, 0, 0, 0),
                dilation=(1, 1), ceil_mode=False, count_include_pad=True):
    """ONNX MaxPool ("max") or AveragePool ("avg") on [N,C,H,W]: pads are
    (top, left, bottom, right). Max pads with the lowest value; the average
    divides by the window's input elements, or with count_include_pad by
    its elements inside the padded input (a ceil-mode window hanging over
    its end counts only those). Computed window by window."""
    stride = stride or kernel
    n, c, h, w = x.shape
    sizes = (h, w)
    out = [_pool_out_size(sizes[a], pads[a], pads[a + 2], kernel[a],
                          stride[a], dilation[a], ceil_mode)
           for a in range(2)]
    result = np.zeros((n, c, out[0], out[1]),
                      dtype=x.dtype if kind == "max" else np.float64)

    def taps(axis, o):
        start = o * stride[axis] - pads[axis]
        return [start + k * dilation[axis] for k in range(kernel[axis])]

    def counted(axis, o):
        lo, hi = (-pads[axis], sizes[axis] + pads[axis + 2]) \
            if count_include_pad else (0, sizes[axis])
        return sum(lo <= i < hi for i in taps(axis, o))

    for p in range(out[0]):
        rows = [i for i in taps(0, p) if 0 <= i < h]
        for q in range(out[1]):
            cols = [j for j in taps(1, q) if 0 <= j < w]
            window = x[:, :, rows][:, :, :, cols]
            if kind == "max":
                lowest = -np.inf if x.dtype.kind == "f" \
                    else np.iinfo(x.dtype).min
                result[:, :, p, q] = np.max(window, axis=(2, 3)) \
                    if rows and cols else lowest
                continue
            total = window.astype(np.float64).sum(axis=(2, 3))
            result[:, :, p, q] = total / (counted(0, p) * counted(1, q))
    return result.astype(x.dtype)
