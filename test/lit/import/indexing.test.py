# The models, inputs and numpy reference of indexing.test: ONNX GatherND,
# ScatterElements (and the old Scatter), ScatterND. The reference is
# written as loops over the updates in row-major order, one at a time:
# the order txc defines for duplicate indices (ONNX leaves it open), in
# each dtype's own arithmetic (numpy's float16 computes in float32 and
# rounds, as txc does).
import sys
import numpy as np
import onnx
from onnx import helper, TensorProto as T

I64, F32, F16, I32 = T.INT64, T.FLOAT, T.FLOAT16, T.INT32


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(nodes, inputs, outputs, path, opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)


if sys.argv[1] == "model":
    node = helper.make_node
    save([node("GatherND", ["x", "pairs"], ["g0"]),
          node("GatherND", ["b", "rows"], ["g1"], batch_dims=1),
          node("ScatterElements", ["s", "cols", "u"], ["se_none"], axis=1),
          node("ScatterElements", ["s", "cols", "u"], ["se_add"], axis=-1, reduction="add"),
          node("ScatterElements", ["h", "hrows", "hu"], ["se_mul"], reduction="mul"),
          node("ScatterND", ["d", "tuples", "du"], ["snd_none"]),
          node("ScatterND", ["d", "tuples", "du"], ["snd_add"], reduction="add"),
          node("ScatterND", ["k", "pairs", "ku"], ["snd_mul"], reduction="mul")],
         [value("x", F32, ["n", 4, 3]), value("pairs", I64, ["m", 2]),
          value("b", I32, [2, 5, 3]), value("rows", I64, [2, "m", 1]),
          value("s", F32, ["n", 5]), value("cols", I64, ["n", "m"]), value("u", F32, ["n", "m"]),
          value("h", F16, [6, "n"]), value("hrows", I32, ["m", "n"]), value("hu", F16, ["m", "n"]),
          value("d", F32, ["n", 3]), value("tuples", I64, ["m", 1]), value("du", F32, ["m", 3]),
          value("k", I32, ["n", 4]), value("ku", I32, ["m"])],
         [value(o, e, [None] * r) for o, e, r in [
             ("g0", F32, 2), ("g1", I32, 3), ("se_none", F32, 2), ("se_add", F32, 2),
             ("se_mul", F16, 2), ("snd_none", F32, 2), ("snd_add", F32, 2), ("snd_mul", I32, 2)]],
         "model.onnx")
    # Scatter-9 (opset 10), deprecated since opset 11: ONNX's version
    # converter makes it ScatterElements.
    save([node("Scatter", ["s", "cols", "u"], ["y"], axis=1)],
         [value("s", F32, ["n", 5]), value("cols", I64, ["n", "m"]), value("u", F32, ["n", "m"])],
         [value("y", F32, [None, None])], "scatter10.onnx", opset=10)
    # Not importable: a reduction ONNX's opset 16 does not have, and add of
    # bool data.
    save([node("ScatterND", ["d", "tuples", "du"], ["y"], reduction="max")],
         [value("d", F32, [4, 3]), value("tuples", I64, [2, 1]), value("du", F32, [2, 3])],
         [value("y", F32, [None, None])], "bad-reduction.onnx")
    save([node("ScatterElements", ["d", "i", "du"], ["y"], reduction="add")],
         [value("d", T.BOOL, [4]), value("i", I64, [2]), value("du", T.BOOL, [2])],
         [value("y", T.BOOL, [None])], "bool-add.onnx")
    sys.exit(0)

if sys.argv[1] == "inputs":
    n, m = int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(n * 100 + m)

    def indices(shape, dim, dtype=np.int64):
        # Both ends of [-dim, dim-1] first, then random: many duplicates.
        flat = rng.integers(-dim, dim, int(np.prod(shape))).astype(dtype)
        flat[:min(4, flat.size)] = [0, dim - 1, -1, -dim][:min(4, flat.size)]
        return flat.reshape(shape)

    def quarters(shape, dtype=np.float32):
        return (rng.integers(-16, 17, shape) / 4).astype(dtype)

    # pairs index x [n, 4, 3] and k [n, 4].
    pairs = np.stack([indices([m], n), indices([m], 4)], axis=1)
    arrays = {
        "x": quarters((n, 4, 3)), "pairs": pairs,
        "b": rng.integers(-99, 99, (2, 5, 3)).astype(np.int32), "rows": indices([2, m, 1], 5),
        "s": quarters((n, 5)), "cols": indices([n, m], 5),
        # Large and small addends: a sum's bits depend on its order.
        "u": (quarters((n, m)) * np.float32(1e7) ** rng.integers(0, 2, (n, m))).astype(np.float32),
        "h": quarters((6, n), np.float16), "hrows": indices([m, n], 6, np.int32),
        "hu": (quarters((m, n)) / 3).astype(np.float16),
        "d": quarters((n, 3)), "tuples": indices([m, 1], n), "du": quarters((m, 3)),
        "k": rng.integers(-300, 300, (n, 4)).astype(np.int32),
        "ku": rng.integers(-70000, 70000, m).astype(np.int32),
    }
    for name, array in arrays.items():
        np.save(name + ".npy", array)
    sys.exit(0)

a = {name: np.load(name + ".npy") for name in
     ["x", "pairs", "b", "rows", "s", "cols", "u", "h", "hrows", "hu", "d", "tuples", "du", "k", "ku"]}


def scatter_elements(data, idx, upd, axis, op):
    out = data.copy()
    for pos in np.ndindex(*idx.shape):
        target = list(pos)
        target[axis] = idx[pos]
        target = tuple(target)
        out[target] = upd[pos] if op is None else op(out[target], upd[pos])
    return out


def scatter_nd(data, idx, upd, op):
    out = data.copy()
    for pos in np.ndindex(*idx.shape[:-1]):
        target = tuple(idx[pos])
        out[target] = upd[pos] if op is None else op(out[target], upd[pos])
    return out


def wrapping_mul(x, y):  # int32 products wrap, as txc's
    return ((x.astype(np.int64) * y.astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


pairs = a["pairs"]
wants = {
    "g0": a["x"][pairs[:, 0], pairs[:, 1]],
    "g1": np.stack([a["b"][i][a["rows"][i][:, 0]] for i in range(2)]),
    "se_none": scatter_elements(a["s"], a["cols"], a["u"], 1, None),
    "se_add": scatter_elements(a["s"], a["cols"], a["u"], 1, np.add),
    "se_mul": scatter_elements(a["h"], a["hrows"], a["hu"], 0, np.multiply),
    "snd_none": scatter_nd(a["d"], a["tuples"], a["du"], None),
    "snd_add": scatter_nd(a["d"], a["tuples"], a["du"], np.add),
    "snd_mul": scatter_nd(a["k"], pairs, a["ku"], wrapping_mul),
}
failed = False
for mode in sys.argv[2:]:
    for name, want in wants.items():
        if mode == "scatter10" and name != "se_none":
            continue
        got = np.load("%s/%s.npy" % (mode, "y" if mode == "scatter10" else name))
        same = got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
        print("%s %s %s" % (mode, name, "ok" if same else "DIFFERENT"))
