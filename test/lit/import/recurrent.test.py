# The PyTorch model, its ONNX export, the inputs and PyTorch's outputs for
# recurrent.test.
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import torch


class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 5, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = torch.nn.GRU(10, 4)
        self.rnn = torch.nn.RNN(4, 3, nonlinearity="tanh")

    def forward(self, x):
        y, (h, c) = self.lstm(x)            # y [b, s, 10]
        g, gh = self.gru(y.transpose(0, 1))  # [s, b, 4]
        r, rh = self.rnn(g.flip(0))          # a reversed sequence
        return y, h, c, g, gh, r, rh


NAMES = ["y", "h", "c", "g", "gh", "r", "rh"]
torch.manual_seed(0)
model = Recurrent().eval()

if sys.argv[2] == "model":
    axes = {"x": {0: "b", 1: "s"}, "y": {0: "b", 1: "s"}, "h": {1: "b"}, "c": {1: "b"},
            "g": {0: "s", 1: "b"}, "gh": {1: "b"}, "r": {0: "s", 1: "b"}, "rh": {1: "b"}}
    torch.onnx.export(model, torch.randn(2, 4, 6), "model.onnx", input_names=["x"],
                      output_names=NAMES, dynamic_axes=axes, opset_version=17)
    sys.exit(0)
if sys.argv[2] == "inputs":
    b, s = int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(b * 10 + s)
    np.save("x.npy", rng.uniform(-2, 2, (b, s, 6)).astype(np.float32))
    sys.exit(0)

from txcref import check, finish
with torch.no_grad():
    wants = model(torch.from_numpy(np.load("x.npy")))
for mode in sys.argv[3:]:
    for name, want in zip(NAMES, wants):
        check("%s %s" % (mode, name), np.load("%s/%s.npy" % (mode, name)), want.numpy(),
              tol=1e-5)
finish()
