# The PyTorch model of groupnorm.test, its ONNX export, inputs and
# PyTorch's outputs: nn.GroupNorm with random affine weights on NCHW and an
# nn.GroupNorm without them on NCL, which PyTorch 1.13 exports at opset 17
# as Reshape to [N, groups, -1], InstanceNormalization, Reshape back, Mul
# and Add (ONNX's GroupNormalization is opset 18).
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import torch


class Groups(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = torch.nn.GroupNorm(4, 12)
        self.plain = torch.nn.GroupNorm(3, 6, affine=False, eps=1e-3)

    def forward(self, x, y):
        return self.gn(x), self.plain(y)


NAMES = ["a", "b"]
torch.manual_seed(0)
model = Groups().eval()
with torch.no_grad():
    model.gn.weight.uniform_(-2, 2)
    model.gn.bias.uniform_(-1, 1)

if sys.argv[2] == "model":
    axes = {"x": {0: "batch"}, "y": {0: "batch"}, "a": {0: "batch"}, "b": {0: "batch"}}
    torch.onnx.export(model, (torch.randn(2, 12, 5, 7), torch.randn(2, 6, 9)), "model.onnx",
                      input_names=["x", "y"], output_names=NAMES, dynamic_axes=axes,
                      opset_version=17)
    sys.exit(0)
if sys.argv[2] == "inputs":
    batch = int(sys.argv[3])
    rng = np.random.default_rng(batch)
    np.save("x.npy", rng.uniform(-3, 3, (batch, 12, 5, 7)).astype(np.float32))
    np.save("y.npy", rng.uniform(-3, 3, (batch, 6, 9)).astype(np.float32))
    sys.exit(0)

from txcref import check, finish
with torch.no_grad():
    wants = model(torch.from_numpy(np.load("x.npy")), torch.from_numpy(np.load("y.npy")))
for mode in sys.argv[3:]:
    for name, want in zip(NAMES, wants):
        check("%s %s" % (mode, name), np.load("%s/%s.npy" % (mode, name)), want.numpy(),
              tol=1e-5)
finish()
