# The PyTorch model of range.test, its ONNX export, inputs and PyTorch's
# outputs: torch.arange up to a dim (position ids into an embedding), from
# a constant by 3 up to an expression of it, and down from it.
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import torch


class Positions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(64, 8)

    def forward(self, x):
        s = x.size(1)
        return (x + self.emb(torch.arange(s)), torch.arange(2, 2 * s + 3, 3),
                torch.arange(s, 0, -1))


NAMES = ["y", "odd", "down"]
torch.manual_seed(0)
model = Positions().eval()

if sys.argv[2] == "model":
    axes = {"x": {0: "b", 1: "s"}, "y": {0: "b", 1: "s"}, "odd": {0: "k"}, "down": {0: "s"}}
    torch.onnx.export(model, torch.randn(2, 5, 8), "model.onnx", input_names=["x"],
                      output_names=NAMES, dynamic_axes=axes, opset_version=17)
    sys.exit(0)
if sys.argv[2] == "rejected":
    import onnx
    from onnx import helper, numpy_helper, TensorProto as T

    def const(name, value):
        return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name))
    nodes = [const("zero", np.int64(0)), const("one", np.int64(1)), const("four", np.int64(4)),
             helper.make_node("Range", ["zero", "limit", "one"], ["data"], name="data"),
             helper.make_node("Range", ["four", "n", "one"], ["short"], name="short"),
             helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0)]
    nodes = nodes[:4] + nodes[5:] + nodes[4:5]  # short after n
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["s"]),
                                       helper.make_tensor_value_info("limit", T.INT64, [])],
                          [helper.make_tensor_value_info(o, T.INT64, [None]) for o in ("data", "short")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "rejected.onnx")
    sys.exit(0)
if sys.argv[2] == "inputs":
    b, s = int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(b * 100 + s)
    np.save("x.npy", rng.uniform(-2, 2, (b, s, 8)).astype(np.float32))
    sys.exit(0)

from txcref import check, finish
with torch.no_grad():
    wants = model(torch.from_numpy(np.load("x.npy")))
for mode in sys.argv[3:]:
    for name, want in zip(NAMES, wants):
        check("%s %s" % (mode, name), np.load("%s/%s.npy" % (mode, name)), want.numpy(), tol=0)
finish()
