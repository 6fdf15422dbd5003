"""Calls a compiled txc artifact from Python (numpy + ctypes) for the
end-to-end tests of the shape and indexing ops.

An artifact is the object linked into a shared library plus its manifest;
the manifest gives the entry points, the symbols and the tensors. Inputs are
random numpy arrays of the declared dtypes (bf16 travels as raw uint16
bits), outputs are buffers pre-filled with a 0xCD pattern, and results are
compared bit for bit with a numpy reference computed independently.
"""
import ctypes
import itertools
import json
import re
import sys

import numpy as np

MAX_RANK = 8

DTYPES = {
    "f32": (1, np.float32), "f64": (2, np.float64), "f16": (3, np.float16),
    "bf16": (4, np.uint16), "i8": (5, np.int8), "i16": (6, np.int16),
    "i32": (7, np.int32), "i64": (8, np.int64), "u8": (9, np.uint8),
    "bool": (10, np.bool_),
}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size_bytes", ctypes.c_int64),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * MAX_RANK)]


class Status(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int32), ("guard", ctypes.c_int32),
                ("tensor_kind", ctypes.c_int32),
                ("tensor_index", ctypes.c_int32), ("dim", ctypes.c_int32),
                ("symbol", ctypes.c_int32), ("expected_min", ctypes.c_int64),
                ("expected_max", ctypes.c_int64), ("actual", ctypes.c_int64),
                ("variant", ctypes.c_int32), ("reserved", ctypes.c_int32)]


def evaluate_dim(dim, symbols):
    """A manifest dim (an integer or an expression like "S+T", "B/8" or
    "(S+7)//8") at `symbols`. txc's // and % are Python's; its / is exact, so
    it is Python's // too."""
    if isinstance(dim, int):
        return dim
    if not re.fullmatch(r"[A-Za-z0-9_+\-*/% ()]+", dim):
        raise ValueError("unexpected dim expression " + dim)
    dim = re.sub(r"(?<!/)/(?!/)", "//", dim)
    return int(eval(dim, {"__builtins__": {}}, dict(symbols)))


class Artifact:
    def __init__(self, library, manifest):
        with open(manifest) as f:
            self.manifest = json.load(f)
        self.lib = ctypes.CDLL(library)
        entry = self.manifest["entry_points"]
        self.run_fn = getattr(self.lib, entry["run"])
        self.run_fn.restype = ctypes.c_int32
        self.run_fn.argtypes = [ctypes.POINTER(Tensor), ctypes.c_int64,
                                ctypes.POINTER(Tensor), ctypes.c_int64,
                                ctypes.POINTER(Status)]
        self.message_fn = getattr(self.lib, entry["error_message"])
        self.message_fn.restype = ctypes.c_int32
        self.message_fn.argtypes = [ctypes.POINTER(Status), ctypes.c_char_p,
                                    ctypes.c_size_t]
        self.inputs = self.manifest["inputs"]
        self.outputs = self.manifest["outputs"]
        self.symbols = self.manifest["symbols"]

    def symbol_values(self, extra=()):
        """Assignments of the symbols: each one's min and max (the others at
        a middle value), all at min, all at max, plus `extra`."""
        mids = {s["name"]: (s["min"] + s["max"]) // 2 for s in self.symbols}
        cases = [{s["name"]: s["min"] for s in self.symbols},
                 {s["name"]: s["max"] for s in self.symbols}]
        for s in self.symbols:
            for bound in (s["min"], s["max"]):
                case = dict(mids)
                case[s["name"]] = bound
                cases.append(case)
        cases.extend(extra)
        unique = []
        for case in cases:
            if case not in unique:
                unique.append(case)
        return unique

    def shape(self, tensor, symbols):
        return tuple(evaluate_dim(d, symbols) for d in tensor["shape"])

    def random_inputs(self, symbols, rng):
        arrays = {}
        for t in self.inputs:
            arrays[t["name"]] = random_array(t["dtype"], self.shape(t, symbols),
                                             rng)
        return arrays

    def run(self, arrays, symbols, addresses=None):
        """Calls <p>_run; returns (rc, status, {output name: array}).
        `addresses` may give the data pointer of some inputs instead of
        their arrays' (e.g. an inaccessible page for an empty tensor)."""
        keep = []
        ins = (Tensor * max(1, len(self.inputs)))()
        for i, t in enumerate(self.inputs):
            a = np.array(arrays[t["name"]], order="C")  # keeps rank 0
            # An empty tensor still needs a non-NULL data pointer.
            storage = a if a.size else np.zeros(1, dtype=np.uint8)
            keep.append(storage)
            data = (addresses or {}).get(t["name"], storage.ctypes.data)
            fill_descriptor(ins[i], a, data, DTYPES[t["dtype"]][0])
        outs = (Tensor * max(1, len(self.outputs)))()
        results = {}
        for o, t in enumerate(self.outputs):
            shape = self.shape(t, symbols)
            buffer = np.full(max(1, int(np.prod(shape))) *
                             np.dtype(DTYPES[t["dtype"]][1]).itemsize, 0xCD,
                             dtype=np.uint8)
            keep.append(buffer)
            outs[o].data = buffer.ctypes.data
            outs[o].size_bytes = buffer.size
            results[t["name"]] = (buffer, shape, DTYPES[t["dtype"]][1])
        status = Status()
        rc = self.run_fn(ins, len(self.inputs), outs, len(self.outputs),
                         ctypes.byref(status))
        arrays_out = {}
        for name, (buffer, shape, dtype) in results.items():
            count = int(np.prod(shape))
            arrays_out[name] = buffer[:count * np.dtype(dtype).itemsize].view(
                dtype).reshape(shape)
        return rc, status, arrays_out

    def message(self, status):
        buffer = ctypes.create_string_buffer(512)
        self.message_fn(ctypes.byref(status), buffer, 512)
        return buffer.value.decode()


def inaccessible_page():
    """The address of a page that crashes the process when touched, and so
    do the pages before and after it."""
    libc = ctypes.CDLL(None)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    PROT_NONE, MAP_PRIVATE, MAP_ANONYMOUS = 0, 0x02, 0x20
    address = libc.mmap(None, 3 * 4096, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError("mmap failed")
    return address + 4096


def fill_descriptor(d, array, data, dtype_code):
    d.data = data
    d.size_bytes = array.nbytes
    d.dtype = dtype_code
    d.rank = array.ndim
    for k, n in enumerate(array.shape):
        d.dims[k] = n


def random_array(dtype, shape, rng):
    np_type = DTYPES[dtype][1]
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype in ("f32", "f64", "f16"):
        return rng.standard_normal(size=shape).astype(np_type)
    if dtype == "bf16":  # raw bits of random finite bf16 values
        values = rng.standard_normal(size=shape).astype(np.float32)
        return (values.view(np.uint32) >> 16).astype(np.uint16)
    info = np.iinfo(np_type)
    return rng.integers(info.min, info.max, size=shape, dtype=np_type,
                        endpoint=True)


def same_bits(actual, expected):
    return (actual.shape == expected.shape and actual.dtype == expected.dtype
            and actual.tobytes() == np.array(expected, order="C").tobytes())


def check_all(artifact, references, extra_symbols=(), seed=1, prepare=None):
    """Runs the artifact at every symbol assignment and compares each output
    named in `references` (name -> function(inputs, symbols) -> array).
    `prepare(arrays, symbols, rng)` may replace random inputs (e.g. indices
    that must be in range). Prints one line per assignment; exits non-zero
    on any mismatch."""
    rng = np.random.default_rng(seed)
    failures = 0
    for symbols in artifact.symbol_values(extra_symbols):
        arrays = artifact.random_inputs(symbols, rng)
        if prepare:
            prepare(arrays, symbols, rng)
        rc, status, outputs = artifact.run(arrays, symbols)
        if rc != 0:
            print("FAILED %s: rc=%d: %s" % (symbols, rc,
                                            artifact.message(status)))
            failures += 1
            continue
        for name, reference in references.items():
            expected = np.asarray(reference(arrays, symbols))
            expected = expected.astype(outputs[name].dtype, copy=False)
            if not same_bits(outputs[name], expected):
                print("FAILED %s: output %s differs:\n got %r\n expected %r"
                      % (symbols, name, outputs[name], expected))
                failures += 1
        print("ok " + " ".join("%s=%d" % kv for kv in sorted(symbols.items())))
    if failures:
        print("%d failures" % failures)
        sys.exit(1)
    print("all %d outputs match" % len(references))
