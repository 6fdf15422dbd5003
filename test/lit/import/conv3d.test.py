# The models, inputs and PyTorch references of conv3d.test.
# "model": a PyTorch nn.Module of 3-D layers exported at opset 17 with a
# symbolic batch b and depth d; "nodes": single ONNX nodes PyTorch does not
# export (six-value asymmetric pads, auto_pad SAME_* on the symbolic depth,
# MaxPool on uint8), each checked against torch.nn.functional.
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper, TensorProto

F = torch.nn.functional


class Volumes(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.conv = nn.Conv3d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm3d(8)  # folded into conv at import
        self.pool = nn.MaxPool3d((2, 3, 3), stride=2, padding=(0, 1, 1),
                                 dilation=(1, 1, 2), ceil_mode=True)
        self.grouped = nn.Conv3d(8, 8, (1, 3, 3), stride=(1, 2, 1), padding=(0, 1, 2),
                                 dilation=(1, 1, 2), groups=4)
        self.depthwise = nn.Conv3d(8, 8, 3, padding=1, groups=8, bias=False)
        self.avg = nn.AvgPool3d(2, stride=(1, 2, 2), padding=(1, 1, 0),
                                ceil_mode=True, count_include_pad=False)
        self.up = nn.ConvTranspose3d(8, 4, 3, stride=2, padding=1, output_padding=(1, 0, 1))

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))  # [b, 8, d, 12, 13]
        p = self.pool(y)                       # [b, 8, d/2, 7, 6]
        q = self.depthwise(self.grouped(p))    # [b, 8, d/2, 4, 6]
        a = self.avg(q)                        # [b, 8, d/2 + 1, 3, 3]
        u = self.up(a)                         # [b, 4, d + 2, 5, 6]
        g = F.adaptive_avg_pool3d(u, 1)        # GlobalAveragePool
        m = F.adaptive_max_pool3d(q, 1)        # GlobalMaxPool
        return y, a, u, g, m


NAMES = ["y", "a", "u", "g", "m"]
torch.manual_seed(0)
model = Volumes()
with torch.no_grad():  # statistics that are not the identity
    model.bn.running_mean.uniform_(-0.5, 0.5)
    model.bn.running_var.uniform_(0.5, 2)
model.eval()

rng = np.random.default_rng(3)
W = {"wa": rng.uniform(-1, 1, (5, 3, 2, 3, 2)).astype(np.float32),
     "wb": rng.uniform(-1, 1, (4, 3, 3, 1, 3)).astype(np.float32)}
# name: (op, inputs, attributes, torch reference)
NODES = {
    "asym": ("Conv", ["x", "wa"], dict(pads=[1, 0, 2, 0, 1, 1], strides=[1, 2, 1]),
             lambda x, u: F.conv3d(F.pad(x, (2, 1, 0, 1, 1, 0)), W["wa"], stride=(1, 2, 1))),
    # SAME_UPPER on the depth d (a multiple of 2) with stride 2 and kernel
    # 3: 1 before, 0 after for an even d; height 12, width 13 likewise.
    "same": ("Conv", ["x", "wb"], dict(auto_pad="SAME_UPPER", strides=[2, 2, 2]),
             lambda x, u: F.conv3d(F.pad(x, (1, 1, 0, 0, 0, 1)), W["wb"], stride=2)),
    "maxsame": ("MaxPool", ["x"], dict(kernel_shape=[2, 3, 2], auto_pad="SAME_LOWER"),
                lambda x, u: F.max_pool3d(F.pad(x, (1, 0, 1, 1, 1, 0), value=-np.inf),
                                          (2, 3, 2), stride=1)),
    "avgpad": ("AveragePool", ["x"], dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2],
                                          pads=[1, 1, 1, 1, 1, 1], count_include_pad=1,
                                          ceil_mode=1),
               lambda x, u: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True,
                                         count_include_pad=True)),
    "bytes": ("MaxPool", ["v"], dict(kernel_shape=[2, 2, 2], strides=[1, 2, 2], pads=[0, 1, 1, 1, 0, 0]),
              lambda x, u: F.max_pool3d(F.pad(u, (1, 0, 1, 0, 0, 1), value=0),
                                        2, stride=(1, 2, 2))),
}


def nodes_model():
    nodes = [helper.make_node(op, inputs, [name], name=name, **attrs)
             for name, (op, inputs, attrs, _) in NODES.items()]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3, "d", 12, 13]),
              helper.make_tensor_value_info("v", TensorProto.UINT8, ["b", 3, "d", 12, 13])]
    outputs = [helper.make_tensor_value_info(name, TensorProto.UINT8 if name == "bytes"
                                             else TensorProto.FLOAT, [None] * 5)
               for name in NODES]
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in W.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


if sys.argv[2] == "model":
    axes = {"x": {0: "b", 2: "d"}}
    axes.update({name: {0: "b"} for name in NAMES})
    torch.onnx.export(model, torch.randn(2, 3, 4, 12, 13), "model.onnx", input_names=["x"],
                      output_names=NAMES, dynamic_axes=axes, opset_version=17,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    onnx.save(nodes_model(), "nodes.onnx")
    sys.exit(0)
if sys.argv[2] == "inputs":
    b, d = int(sys.argv[3]), int(sys.argv[4])
    data = np.random.default_rng(b * 100 + d)
    np.save("x.npy", data.uniform(-2, 2, (b, 3, d, 12, 13)).astype(np.float32))
    np.save("v.npy", data.integers(0, 256, (b, 3, d, 12, 13)).astype(np.uint8))
    sys.exit(0)

from txcref import check, finish
x = np.load("x.npy")
v = np.load("v.npy")
with torch.no_grad():
    wants = dict(zip(NAMES, (t.numpy() for t in model(torch.from_numpy(x)))))
    xd = torch.from_numpy(x).double()
    vd = torch.from_numpy(v.astype(np.float64))
    W = {k: torch.from_numpy(w).double() for k, w in W.items()}
    for name, (_, _, _, reference) in NODES.items():
        want = reference(xd, vd).numpy()
        wants[name] = want.astype(np.uint8 if name == "bytes" else np.float32)
for mode in sys.argv[3:]:
    for name, want in wants.items():
        check("%s %s" % (mode, name), np.load("%s/%s.npy" % (mode, name)), want, tol=1e-5)
finish()
