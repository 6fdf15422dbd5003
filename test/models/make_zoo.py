#!/usr/bin/python3
"""Builds the ONNX model zoo of test/models (docs/onnx.md, "The model zoo").

For each model: random weights from a fixed seed (nothing is downloaded),
eval mode, `torch.onnx.export` at opset 17 with a dynamic batch (and
sequence) axis, then inputs and PyTorch's outputs as .npy files at the
points the tests run (the smallest, a middle and the largest batch or
sequence length).

    make_zoo.py OUT_DIR [MODEL...]     (default: every model)
    make_zoo.py --list                 model names, one a line

Writes OUT_DIR/<model>.onnx, OUT_DIR/<model>.dims (the `txc import onnx`
--dim flags, one a line), OUT_DIR/<model>.<point>.<input or output>.npy
with <point> such as b1, b8 or b2s16, OUT_DIR/<model>.points (the point
names, one a line) and OUT_DIR/<model>.outside.<input>.npy, an input whose
batch is one more than the largest (the object's guards must reject it).
"""
import os
import sys

import numpy as np
import torch
import torchvision

OPSET = 17


class Mlp(torch.nn.Module):
    """A 2-layer classifier: 32 features, 64 hidden, 10 classes."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class TextConv(torch.nn.Module):
    """A 1-D convolutional text classifier on token ids."""

    def __init__(self, vocab=1000, dim=32, channels=64, classes=4):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, dim)
        self.conv = torch.nn.Conv1d(dim, channels, kernel_size=3, padding=1)
        self.fc = torch.nn.Linear(channels, classes)

    def forward(self, ids):
        x = self.embedding(ids).transpose(1, 2)  # [B, dim, S]
        x = torch.relu(self.conv(x))
        return self.fc(x.mean(dim=2))


class Encoder(torch.nn.Module):
    """A BERT-style encoder: embedding, 4 TransformerEncoderLayers."""

    def __init__(self, vocab=1000, d_model=256, nhead=4, dim_feedforward=1024,
                 layers=4):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, d_model)
        layer = torch.nn.TransformerEncoderLayer(
            d_model, nhead=nhead, dim_feedforward=dim_feedforward,
            activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(
            layer, num_layers=layers, enable_nested_tensor=False)
        # TransformerEncoder copies one layer into each of its layers: give each its own
        # weights, so that a mixed-up layer cannot go unnoticed.
        for parameter in self.encoder.parameters():
            if parameter.dim() > 1:
                torch.nn.init.xavier_uniform_(parameter)

    def forward(self, ids):
        return self.encoder(self.embedding(ids))


class SeqRnn(torch.nn.Module):
    """A recurrent text classifier: embedding, a 2-layer batch-first
    nn.LSTM, an nn.GRU over its outputs, a linear layer on the GRU's last
    hidden state (ONNX LSTM and GRU, txc while loops)."""

    def __init__(self, vocab=1000, dim=32, hidden=64, classes=4):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, dim)
        self.lstm = torch.nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
        self.gru = torch.nn.GRU(hidden, hidden // 2, batch_first=True)
        self.fc = torch.nn.Linear(hidden // 2, classes)

    def forward(self, ids):
        x, _ = self.lstm(self.embedding(ids))
        _, h = self.gru(x)
        return self.fc(h[-1])


class ConvBn(torch.nn.Module):
    """A small CNN whose batch norms the export keeps (TrainingMode.PRESERVE):
    after a conv (folded at import), after a depthwise conv, and after a
    pool (a scale and shift); HardSwish, MaxPool, AvgPool."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.bn3 = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.nn.functional.hardswish(self.bn2(self.conv2(x)))
        x = self.bn3(torch.nn.functional.max_pool2d(x, 2))
        x = torch.nn.functional.avg_pool2d(x, 2)
        return self.fc(torch.flatten(x, 1))


def image_model(builder):
    def build():
        return builder(weights=None)
    return build


def image_input(batch):
    return {"x": torch.randn(batch, 3, 224, 224)}


# name: (builder, input maker(point), input names, dynamic axes, --dims,
#        points, grad): points are (batch, seq) pairs. `grad`: export with
#        grad enabled (PyTorch 1.13's no-grad attention fast path,
#        _native_multi_head_attention, has no ONNX export).
MODELS = {
    "mlp": (Mlp, lambda p: {"x": torch.randn(p[0], 32)},
            {"x": {0: "batch"}}, ["batch=1:64"],
            [(1, 0), (17, 0), (64, 0)], False),
    "textconv": (TextConv,
                 lambda p: {"ids": torch.randint(0, 1000, (p[0], p[1]))},
                 {"ids": {0: "batch", 1: "S"}},
                 ["batch=1:16", "S=1:128"],
                 [(1, 1), (5, 37), (16, 128)], False),
    "seqrnn": (SeqRnn,
               lambda p: {"ids": torch.randint(0, 1000, (p[0], p[1]))},
               {"ids": {0: "batch", 1: "S"}},
               ["batch=1:8", "S=1:64"],
               [(1, 1), (3, 17), (8, 64)], False),
    "convbn": (ConvBn, lambda p: {"x": torch.randn(p[0], 3, 16, 16)},
               {"x": {0: "batch"}}, ["batch=1:8"],
               [(1, 0), (3, 0), (8, 0)], False),
    "resnet18": (image_model(torchvision.models.resnet18),
                 lambda p: image_input(p[0]), {"x": {0: "batch"}},
                 ["batch=1:8"], [(1, 0), (8, 0)], False),
    "mobilenet_v2": (image_model(torchvision.models.mobilenet_v2),
                     lambda p: image_input(p[0]), {"x": {0: "batch"}},
                     ["batch=1:8"], [(1, 0), (8, 0)], False),
    "mobilenet_v3_small": (image_model(torchvision.models.mobilenet_v3_small),
                           lambda p: image_input(p[0]), {"x": {0: "batch"}},
                           ["batch=1:8"], [(1, 0), (8, 0)], False),
    "efficientnet_b0": (image_model(torchvision.models.efficientnet_b0),
                        lambda p: image_input(p[0]), {"x": {0: "batch"}},
                        ["batch=1:8"], [(1, 0), (8, 0)], False),
    "encoder": (Encoder,
                lambda p: {"ids": torch.randint(0, 1000, (p[0], p[1]))},
                {"ids": {0: "batch", 1: "S"}},
                ["batch=1:8", "S=1:512"],
                [(1, 1), (2, 100), (8, 512)], True),
}


def point_name(point):
    batch, seq = point
    return "b%d" % batch + ("s%d" % seq if seq else "")


def build_model(name):
    """The model in eval mode, with its weights from the fixed seed (also
    bench/zoo_bench.py's)."""
    torch.manual_seed(0)
    model = MODELS[name][0]().eval()
    # Batch norm statistics of a fresh model are 0 and 1; give them values
    # so that folding them is exercised for real.
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)
    return model


def export(name, out_dir):
    _, make_inputs, axes, dims, points, grad = MODELS[name]
    model = build_model(name)
    example = make_inputs(points[0] if points[0][0] > 1 else (2, max(points[0][1], 2)))
    input_names = list(example)
    dynamic_axes = dict(axes)
    # The output has the batch axis, and the encoder's the sequence axis.
    dynamic_axes["y"] = {0: "batch", 1: "S"} if name == "encoder" else {0: "batch"}
    path = os.path.join(out_dir, name + ".onnx")
    # convbn keeps its BatchNormalization nodes: eval mode (PRESERVE) without
    # the exporter's conv-bn fusion.
    training = (torch.onnx.TrainingMode.PRESERVE if name == "convbn"
                else torch.onnx.TrainingMode.EVAL)
    with torch.set_grad_enabled(grad):
        torch.onnx.export(model, tuple(example.values()), path,
                          input_names=input_names, output_names=["y"],
                          dynamic_axes=dynamic_axes, opset_version=OPSET,
                          training=training)
    with open(os.path.join(out_dir, name + ".dims"), "w") as f:
        f.write("".join(d + "\n" for d in dims))
    with open(os.path.join(out_dir, name + ".points"), "w") as f:
        f.write("".join(point_name(p) + "\n" for p in points))
    outside = (points[-1][0] + 1, points[0][1])
    for input_name, value in make_inputs(outside).items():
        np.save(os.path.join(out_dir, "%s.outside.%s.npy" % (name, input_name)),
                value.numpy())
    with torch.no_grad():
        for point in points:
            torch.manual_seed(1000 + point[0] * 1000 + point[1])
            inputs = make_inputs(point)
            output = model(*inputs.values())
            prefix = os.path.join(out_dir, name + "." + point_name(point))
            for input_name, value in inputs.items():
                np.save(prefix + "." + input_name + ".npy", value.numpy())
            np.save(prefix + ".y.npy", output.numpy())


def main(argv):
    if argv[1:] == ["--list"]:
        print("\n".join(MODELS))
        return 0
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for name in argv[2:] or list(MODELS):
        export(name, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
