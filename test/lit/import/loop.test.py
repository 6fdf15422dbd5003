# The models, inputs and numpy reference of loop.test.
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as T

W = np.array([0.5, -1.25, 2.0], np.float32)
f = np.float32


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name))


def body(name, inputs, outputs, nodes):
    """A subgraph; its types are left to the importer (only names matter)."""
    return helper.make_graph(nodes, name,
                             [helper.make_tensor_value_info(n, t, None) for n, t in inputs],
                             [helper.make_tensor_value_info(n, t, None) for n, t in outputs])


def save(nodes, inputs, outputs, path):
    """`outputs`: name -> rank (the dims are left to shape inference)."""
    g = helper.make_graph(nodes, "g", inputs,
                          [helper.make_tensor_value_info(o, T.FLOAT, [None] * r)
                           for o, r in outputs.items()],
                          [numpy_helper.from_array(W, "w")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


X = helper.make_tensor_value_info("x", T.FLOAT, ["n", 3])
S0 = helper.make_tensor_value_info("s0", T.FLOAT, [])
C = helper.make_tensor_value_info("c", T.BOOL, [])
LOOP_IN = [("i", T.INT64), ("cond", T.BOOL)]

# a: M = 4 (a constant), no condition; y = y * 0.5 + w + float(i), with w
# read from the enclosing graph; every y stacked: [4, n, 3].
a_body = body("a_body", LOOP_IN + [("y", T.FLOAT)], [("cond_a", T.BOOL), ("ya", T.FLOAT), ("sa", T.FLOAT)], [
    helper.make_node("Identity", ["cond"], ["cond_a"]),
    const("half", f(0.5)),
    helper.make_node("Mul", ["y", "half"], ["yh"]),
    helper.make_node("Add", ["yh", "w"], ["yw"]),
    helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
    helper.make_node("Add", ["yw", "fi"], ["ya"]),
    helper.make_node("Identity", ["ya"], ["sa"])])
# b: M = n (shape arithmetic), a constant true condition the body passes on;
# acc sums the rows of x (read at the iteration number), and each row times
# 2 is stacked: [n, 3].
b_body = body("b_body", LOOP_IN + [("acc", T.FLOAT)], [("cond_b", T.BOOL), ("accb", T.FLOAT), ("sb", T.FLOAT)], [
    helper.make_node("Identity", ["cond"], ["cond_b"]),
    helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
    helper.make_node("Add", ["acc", "row"], ["accb"]),
    const("two", f(2)),
    helper.make_node("Mul", ["row", "two"], ["sb"])])
# c: M = 10 and the condition c, which the body recomputes: s doubles while
# it is below 100 (an early exit that depends on the data; no scan output).
c_body = body("c_body", LOOP_IN + [("s", T.FLOAT)], [("cond_c", T.BOOL), ("sc", T.FLOAT)], [
    const("twice", f(2)),
    helper.make_node("Mul", ["s", "twice"], ["sc"]),
    const("hundred", f(100)),
    helper.make_node("Less", ["sc", "hundred"], ["cond_c"])])
# d: a Scan over x forward and x reversed, with the running sum as state:
# the sums stacked along axis 0 (appended), the differences of the forward
# and reverse rows stacked along axis 1, prepended: [3, n].
d_body = body("d_body", [("sum", T.FLOAT), ("fwd", T.FLOAT), ("bwd", T.FLOAT)],
              [("sumd", T.FLOAT), ("sd", T.FLOAT), ("pd", T.FLOAT)], [
    helper.make_node("Add", ["sum", "fwd"], ["sumd"]),
    helper.make_node("Identity", ["sumd"], ["sd"]),
    helper.make_node("Sub", ["fwd", "bwd"], ["pd"])])
# e: a Scan along axis 1 of x (3 steps of [n]) from its first column, the
# running maximum as state, each column minus it stacked along the last
# axis: [n, 3].
e_body = body("e_body", [("m", T.FLOAT), ("col", T.FLOAT)], [("me", T.FLOAT), ("se", T.FLOAT)], [
    helper.make_node("Max", ["m", "col"], ["me"]),
    helper.make_node("Sub", ["col", "me"], ["se"])])

if sys.argv[2] == "model":
    save([const("four", np.int64(4)),
          helper.make_node("Loop", ["four", "", "x"], ["ya_final", "a_scan"], body=a_body),
          helper.make_node("Shape", ["x"], ["shape"]),
          const("zero", np.int64(0)),
          helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
          const("yes", np.array(True)),
          const("acc0", np.zeros(3, np.float32)),
          helper.make_node("Loop", ["rows", "yes", "acc0"], ["b_sum", "b_scan"], body=b_body),
          const("ten", np.int64(10)),
          helper.make_node("Loop", ["ten", "c", "s0"], ["c_final"], body=c_body),
          helper.make_node("Scan", ["acc0", "x", "x"], ["d_sum", "d_sums", "d_diffs"], body=d_body,
                           num_scan_inputs=2, scan_input_directions=[0, 1],
                           scan_output_axes=[0, 1], scan_output_directions=[0, 1]),
          helper.make_node("Gather", ["x", "zero"], ["m0"], axis=1),
          helper.make_node("Scan", ["m0", "x"], ["e_max", "e_scan"], body=e_body,
                           num_scan_inputs=1, scan_input_axes=[1], scan_output_axes=[-1])],
         [X, S0, C], {"ya_final": 2, "a_scan": 3, "b_sum": 1, "b_scan": 2, "c_final": 0,
                      "d_sum": 1, "d_sums": 2, "d_diffs": 2, "e_max": 1, "e_scan": 2},
         "model.onnx")
    sys.exit(0)
if sys.argv[2] == "rejected":
    # Scan outputs and an early exit; no trip count; a trip count from an
    # input; a loop-carried value that grows.
    grow = body("grow", LOOP_IN + [("g", T.FLOAT)], [("cond_g", T.BOOL), ("gg", T.FLOAT)], [
        helper.make_node("Identity", ["cond"], ["cond_g"]),
        helper.make_node("Concat", ["g", "g"], ["gg"], axis=0)])
    scanned = body("scanned", LOOP_IN + [("s", T.FLOAT)],
                   [("cond_c", T.BOOL), ("sc", T.FLOAT), ("sc_scan", T.FLOAT)],
                   list(c_body.node) + [helper.make_node("Identity", ["sc"], ["sc_scan"])])
    m = helper.make_tensor_value_info("m", T.INT64, [])
    save([const("ten", np.int64(10)),
          helper.make_node("Loop", ["ten", "c", "s0"], ["r1", "r1_scan"], body=scanned),
          helper.make_node("Loop", ["", "c", "s0"], ["r2"], body=c_body),
          helper.make_node("Loop", ["m", "", "s0"], ["r3"], body=c_body),
          helper.make_node("Loop", ["ten", "", "x"], ["r4"], body=grow)],
         [X, S0, C, m], {"r1_scan": 1, "r2": 0, "r3": 0, "r4": 2}, "rejected.onnx")
    sys.exit(0)
if sys.argv[2] == "inputs":
    n, s0, c = int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"
    rng = np.random.default_rng(n)
    np.save("x.npy", rng.uniform(-3, 3, (n, 3)).astype(np.float32))
    np.save("s0.npy", np.array(s0, np.float32))
    np.save("c.npy", np.array(c))
    sys.exit(0)

from txcref import check, finish
x, s0, c = np.load("x.npy"), np.load("s0.npy"), bool(np.load("c.npy"))
n = x.shape[0]
y, a_scan = x.copy(), []
for i in range(4):
    y = (y * f(0.5) + W) + f(i)
    a_scan.append(y)
acc, b_scan = np.zeros(3, np.float32), []
for i in range(n):
    acc = acc + x[i]
    b_scan.append(x[i] * f(2))
s, i = s0, 0
while i < 10 and c:
    s = s * f(2)
    c = s < f(100)
    i += 1
d_sum, d_sums, d_diffs = np.zeros(3, np.float32), [], []
for i in range(n):
    d_sum = d_sum + x[i]
    d_sums.append(d_sum)
    d_diffs.insert(0, x[i] - x[n - 1 - i])
m, e_scan = x[:, 0], []
for j in range(3):
    m = np.maximum(m, x[:, j])
    e_scan.append(x[:, j] - m)
wants = {"ya_final": y, "a_scan": np.stack(a_scan), "b_sum": acc,
         "b_scan": np.array(b_scan, np.float32).reshape(n, 3), "c_final": s,
         "d_sum": d_sum, "d_sums": np.array(d_sums, np.float32).reshape(n, 3),
         "d_diffs": np.array(d_diffs, np.float32).reshape(n, 3).T, "e_max": m,
         "e_scan": np.stack(e_scan, axis=-1)}
for mode in sys.argv[3:]:
    for name, want in wants.items():
        check("%s %s" % (mode, name), np.load("%s/%s.npy" % (mode, name)),
              np.asarray(want, np.float32), tol=0)
finish()
