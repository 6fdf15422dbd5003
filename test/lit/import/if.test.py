# The models, inputs and numpy reference of if.test.
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as T

W = np.linspace(-1, 1, 5 * 5, dtype=np.float32).reshape(5, 5)


def graph(name, nodes, outputs, initializers=()):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(o, T.FLOAT, None)
                                               for o in outputs], list(initializers))


def save(nodes, outputs, path, extra_inputs=()):
    inputs = [helper.make_tensor_value_info("x", T.FLOAT, ["n", 5]),
              helper.make_tensor_value_info("c", T.BOOL, [1]),
              helper.make_tensor_value_info("d", T.BOOL, [])] + list(extra_inputs)
    g = helper.make_graph(nodes, "g", inputs,
                          [helper.make_tensor_value_info(o, T.FLOAT, ["n", 5]) for o in outputs],
                          [numpy_helper.from_array(W, "w")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


if sys.argv[2] == "model":
    # then: relu(x) @ w + 1 (a Constant of its own); else: x * 2, or (nested)
    # x - 3 when d is false.
    then_ = graph("then", [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("MatMul", ["r", "w"], ["m"]),
        helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(np.float32(1), "one")),
        helper.make_node("Add", ["m", "one"], ["t"])], ["t"])
    inner_then = graph("inner_then", [helper.make_node("Mul", ["x", "two"], ["e1"])], ["e1"],
                       [numpy_helper.from_array(np.float32(2), "two")])
    inner_else = graph("inner_else", [helper.make_node("Sub", ["x", "three"], ["e2"])], ["e2"],
                       [numpy_helper.from_array(np.float32(3), "three")])
    else_ = graph("else", [helper.make_node("If", ["d"], ["e"], then_branch=inner_then,
                                            else_branch=inner_else)], ["e"])
    # The rank of x is 2, known at import: the If is resolved there.
    rank_then = graph("rank_then", [helper.make_node("Neg", ["x"], ["k1"])], ["k1"])
    rank_else = graph("rank_else", [helper.make_node("Abs", ["x"], ["k2"])], ["k2"])
    save([helper.make_node("Constant", [], ["two64"], value=numpy_helper.from_array(np.int64(2), "two64")),
          helper.make_node("If", ["c"], ["y"], then_branch=then_, else_branch=else_),
          helper.make_node("Shape", ["x"], ["xs"]),
          helper.make_node("Size", ["xs"], ["rank"]),
          helper.make_node("Equal", ["rank", "two64"], ["is2"]),
          helper.make_node("If", ["is2"], ["k"], then_branch=rank_then, else_branch=rank_else),
          helper.make_node("If", ["d"], ["z"],
                           then_branch=graph("zt", [helper.make_node("Add", ["y", "x"], ["z1"])], ["z1"]),
                           else_branch=graph("ze", [helper.make_node("Identity", ["y"], ["z2"])], ["z2"]))],
         ["y", "k", "z"], "model.onnx")
    sys.exit(0)
if sys.argv[2] == "rejected":
    wide = graph("wide", [helper.make_node("MatMul", ["x", "w"], ["cat"])], ["cat"])
    narrow = graph("narrow", [helper.make_node("Slice", ["x", "s0", "s4", "s1"], ["cut"])], ["cut"],
                   [numpy_helper.from_array(np.array([0], np.int64), "s0"),
                    numpy_helper.from_array(np.array([4], np.int64), "s4"),
                    numpy_helper.from_array(np.array([1], np.int64), "s1")])
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=wide, else_branch=narrow)],
                          "g", [helper.make_tensor_value_info("x", T.FLOAT, ["n", 5]),
                                helper.make_tensor_value_info("c", T.BOOL, [1])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [None, None])],
                          [numpy_helper.from_array(W, "w")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "rejected.onnx")
    sys.exit(0)
if sys.argv[2] == "inputs":
    n, case = int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(n)
    np.save("x.npy", rng.uniform(-3, 3, (n, 5)).astype(np.float32))
    np.save("c.npy", np.array([case == 1]))
    np.save("d.npy", np.array(case == 2))
    sys.exit(0)

from txcref import check, finish
x, c, d = np.load("x.npy"), bool(np.load("c.npy")[0]), bool(np.load("d.npy"))
f = np.float32
y = np.maximum(x, 0) @ W + f(1) if c else (x * f(2) if d else x - f(3))
wants = {"y": y, "k": -x, "z": y + x if d else y}
for mode in sys.argv[3:]:
    for name, want in wants.items():
        check("%s %s" % (mode, name), np.load("%s/%s.npy" % (mode, name)), want.astype(f))
finish()
