# The model, inputs and reference of unsigned.test: ONNX ops on uint16,
# uint32 and uint64 tensors. The reference is computed on Python integers
# (exact, unbounded), then wrapped to the width, so that it shares nothing
# with numpy's or txc's fixed-width arithmetic.
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as T

U16, U32, U64, F32, I64 = T.UINT16, T.UINT32, T.UINT64, T.FLOAT, T.INT64
WIDTH = {np.uint16: 16, np.uint32: 32, np.uint64: 64}


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(nodes, inputs, outputs, path, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


if sys.argv[1] == "model":
    node = helper.make_node
    # Clip's bounds: a uint32 initializer in uint64_data (ONNX's field for
    # uint32 and uint64), a uint32 one in raw data.
    lo = helper.make_tensor("lo", U32, [], [5])
    hi = numpy_helper.from_array(np.array(3000000000, np.uint32), "hi")
    # A uint64 initializer at 2^63 + 1, in uint64_data.
    big = helper.make_tensor("big", U64, [1], [2**63 + 1])
    save([node("BitShift", ["a", "s"], ["shl16"], direction="LEFT"),
          node("BitShift", ["a", "s"], ["shr16"], direction="RIGHT"),
          node("BitShift", ["b", "t"], ["shl32"], direction="LEFT"),
          node("BitShift", ["c", "u"], ["shr64"], direction="RIGHT"),
          node("Div", ["b", "t"], ["div32"]),
          node("Mod", ["c", "u"], ["mod64"]),
          node("Max", ["b", "t"], ["max32"]),
          node("Min", ["c", "big"], ["min64"]),
          node("Less", ["c", "big"], ["less64"]),
          node("Clip", ["b", "lo", "hi"], ["clip32"]),
          node("ArgMax", ["b"], ["argmax32"], axis=1, keepdims=0),
          node("ReduceMin", ["c"], ["rmin64"], axes=[0], keepdims=0),
          node("Cast", ["c"], ["c2f"], to=F32),
          node("Cast", ["f"], ["f2u"], to=U32)],
         [value("a", U16, ["n", 4]), value("s", U16, ["n", 4]),
          value("b", U32, ["n", 4]), value("t", U32, ["n", 4]),
          value("c", U64, ["n", 4]), value("u", U64, ["n", 4]),
          value("f", F32, ["n", 4])],
         [value(o, e, [None] * r) for o, e, r in [
             ("shl16", U16, 2), ("shr16", U16, 2), ("shl32", U32, 2), ("shr64", U64, 2),
             ("div32", U32, 2), ("mod64", U64, 2), ("max32", U32, 2), ("min64", U64, 2),
             ("less64", T.BOOL, 2), ("clip32", U32, 2), ("argmax32", I64, 1),
             ("rmin64", U64, 1), ("c2f", F32, 2), ("f2u", U32, 2)]],
         "model.onnx", [lo, hi, big])
    sys.exit(0)

if sys.argv[1] == "inputs":
    n = int(sys.argv[2])
    rng = np.random.default_rng(n)

    def values(dtype, shifts=False):
        w = WIDTH[dtype]
        top = 2 ** (w - 1)
        # 0, 1, the maximum and both sides of the top bit first.
        special = [0, 1, 2 ** w - 1, top, top - 1, top + 1, 2 ** w - 2, 3]
        if shifts:
            special = [0, 1, w - 1, w, w + 1, 2 ** w - 1, top, 7]
        flat = [int(v) for v in rng.integers(0, 2 ** w, 4 * n, dtype=np.uint64 if w == 64 else np.int64)]
        if shifts:
            flat = [v % (w + 3) for v in flat]
        for i in range(min(len(flat), len(special))):
            flat[(i * 5) % len(flat)] = special[i]
        return np.array(flat, dtype=dtype).reshape(n, 4)

    floats = rng.uniform(-1e10, 1e10, 4 * n).astype(np.float32)
    floats[:min(4 * n, 6)] = [-1.0, 4294967295.0, 4294967296.0, np.nan, 2147483648.5, -0.5][:min(4 * n, 6)]
    arrays = {"a": values(np.uint16), "s": values(np.uint16, True),
              "b": values(np.uint32), "t": values(np.uint32, True),
              "c": values(np.uint64), "u": values(np.uint64, True),
              "f": floats.reshape(n, 4)}
    for name, array in arrays.items():
        np.save(name + ".npy", array)
    sys.exit(0)

a = {name: np.load(name + ".npy") for name in "a s b t c u f".split()}


def elementwise(fn, x, y, dtype):
    w = WIDTH[dtype]
    out = [fn(int(p), int(q), w) % 2 ** w for p, q in zip(x.ravel(), y.ravel())]
    return np.array(out, dtype=dtype).reshape(x.shape)


def shl(x, y, w):
    return 0 if y >= w else x << y


def shr(x, y, w):
    return 0 if y >= w else x >> y


def to_u32(v):
    if np.isnan(v) or v < 0:
        return 0
    return min(int(v), 2 ** 32 - 1)


def to_f32(x):
    """x rounded once to f32: first to 53 bits rounded to odd (exact in a
    double), from which the rounding to f32's 24 bits is correct."""
    drop = max(0, x.bit_length() - 53)
    odd = ((x >> drop) | (1 if x & ((1 << drop) - 1) else 0)) << drop
    return np.float32(float(odd))


big = 2 ** 63 + 1
wants = {
    "shl16": elementwise(shl, a["a"], a["s"], np.uint16),
    "shr16": elementwise(shr, a["a"], a["s"], np.uint16),
    "shl32": elementwise(shl, a["b"], a["t"], np.uint32),
    "shr64": elementwise(shr, a["c"], a["u"], np.uint64),
    "div32": elementwise(lambda x, y, w: 0 if y == 0 else x // y, a["b"], a["t"], np.uint32),
    "mod64": elementwise(lambda x, y, w: 0 if y == 0 else x % y, a["c"], a["u"], np.uint64),
    "max32": elementwise(lambda x, y, w: max(x, y), a["b"], a["t"], np.uint32),
    "min64": elementwise(lambda x, y, w: min(x, big), a["c"], a["c"], np.uint64),
    "less64": np.array([int(x) < big for x in a["c"].ravel()]).reshape(a["c"].shape),
    "clip32": elementwise(lambda x, y, w: min(max(x, 5), 3000000000), a["b"], a["b"], np.uint32),
    "argmax32": np.array([max(range(4), key=lambda j: (int(r[j]), -j)) for r in a["b"]], np.int64),
    "rmin64": np.array([min(int(v) for v in col) for col in a["c"].T], np.uint64),
    "c2f": np.array([to_f32(x) for x in map(int, a["c"].ravel())],
                    np.float32).reshape(a["c"].shape),
    "f2u": np.array([to_u32(v) for v in a["f"].ravel()], np.uint32).reshape(a["f"].shape),
}
failed = False
for mode in sys.argv[2:]:
    for name, want in wants.items():
        got = np.load("%s/%s.npy" % (mode, name))
        same = got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
        print("%s %s %s" % (mode, name, "ok" if same else "DIFFERENT"))
        if not same:
            print("  got  %s\n  want %s" % (got.ravel()[:8], want.ravel()[:8]))
