# The model, inputs and PyTorch reference of convtranspose.test.
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(7)
weights = {
    "w_s2": rng.uniform(-1, 1, (6, 4, 3, 3)).astype(np.float32),  # C=6, M=4
    "w_grp": rng.uniform(-1, 1, (6, 2, 4, 4)).astype(np.float32),  # groups 3: M=6
    "w_dil": rng.uniform(-1, 1, (6, 5, 2, 3)).astype(np.float32),
    "w_1d": rng.uniform(-1, 1, (6, 3, 5)).astype(np.float32),
    "bias": rng.uniform(-1, 1, (4,)).astype(np.float32),
}
# name: (weight, bias, attributes, input)
NODES = {
    "s2": ("w_s2", "bias", dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]), "x"),
    "asym": ("w_s2", None, dict(strides=[3, 2], pads=[0, 2, 1, 0]), "x"),
    "grp": ("w_grp", None, dict(strides=[2, 2], pads=[1, 1, 1, 1], group=3), "x"),
    "dil": ("w_dil", None, dict(strides=[1, 2], dilations=[2, 3], pads=[1, 0, 1, 0]), "x"),
    "shape": ("w_s2", "bias", dict(strides=[2, 2], output_shape=[30, 29]), "x"),
    "one": ("w_1d", None, dict(strides=[2], pads=[2, 2]), "x1"),
}

if sys.argv[2] == "model":
    nodes = []
    for name, (w, b, attrs, x) in NODES.items():
        nodes.append(helper.make_node("ConvTranspose", [x, w] + ([b] if b else []),
                                      [name], name=name, **attrs))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 6, 14, 14]),
              helper.make_tensor_value_info("x1", TensorProto.FLOAT, ["n", 6, 14])]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                             [None] * (3 if name == "one" else 4))
               for name in NODES]
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in weights.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              "model.onnx")
    sys.exit(0)
if sys.argv[2] == "inputs":
    n = int(sys.argv[3])
    data = np.random.default_rng(n)
    np.save("x.npy", data.uniform(-1, 1, (n, 6, 14, 14)).astype(np.float32))
    np.save("x1.npy", data.uniform(-1, 1, (n, 6, 14)).astype(np.float32))
    sys.exit(0)

import torch
from txcref import check, finish
F = torch.nn.functional
x = torch.from_numpy(np.load("x.npy")).double()
x1 = torch.from_numpy(np.load("x1.npy")).double()
W = {k: torch.from_numpy(v).double() for k, v in weights.items()}
full = F.conv_transpose2d(x, W["w_s2"], stride=(3, 2))  # pads [0, 2, 1, 0]: crop
wants = {
    "s2": F.conv_transpose2d(x, W["w_s2"], W["bias"], stride=2, padding=1, output_padding=1),
    "asym": full[:, :, 0:full.shape[2] - 1, 2:],
    "grp": F.conv_transpose2d(x, W["w_grp"], stride=2, padding=1, groups=3),
    "dil": F.conv_transpose2d(x, W["w_dil"], stride=(1, 2), padding=(1, 0), dilation=(2, 3)),
    # output_shape [30, 29]: the natural 29x29 and one more row at the end
    "shape": F.conv_transpose2d(x, W["w_s2"], W["bias"], stride=2, output_padding=(1, 0)),
    "one": F.conv_transpose1d(x1, W["w_1d"], stride=2, padding=2),
}
for mode in sys.argv[3:]:
    for name, want in wants.items():
        got = np.load("%s/%s.npy" % (mode, name))
        check("%s %s" % (mode, name), got, want.numpy().astype(np.float32), tol=2e-5)
finish()
