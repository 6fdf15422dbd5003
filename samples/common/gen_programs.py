#!/usr/bin/env python3
"""Writes the program JSON of the samples mlp, attention, cnn and branch.

The weights are embedded as constants. They come from a fixed linear
congruential generator (no numpy needed), scaled by 1/sqrt(fan_in) and
rounded to 4 decimals, so running this script again gives the same files:

    python3 samples/common/gen_programs.py   # from the repository root
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.dirname(HERE)


class Lcg:
    """Numerical Recipes' 32-bit LCG; uniform values in [-1, 1)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def uniform(self):
        self.state = (1664525 * self.state + 1013904223) & 0xFFFFFFFF
        return self.state / 2147483648.0 - 1.0

    def values(self, count, scale):
        return [round(scale * self.uniform(), 4) for _ in range(count)]


def const(name, shape, data, description=None):
    c = {"name": name, "dtype": "f32", "shape": shape, "data": data}
    if description:
        c["description"] = description
    return c


def weights(rng, name, shape, fan_in):
    count = math.prod(shape)
    return const(name, shape, rng.values(count, 1.0 / math.sqrt(fan_in)))


def node(name, op, operands, **attributes):
    n = {"name": name, "op": op, "operands": operands}
    if attributes:
        n["attributes"] = attributes
    return n


def program(name, description, symbols, inputs, constants, nodes, outputs):
    p = {"format": "txc.program", "version": 1, "name": name,
         "description": description, "symbols": symbols, "inputs": inputs}
    if constants:
        p["constants"] = constants
    p["nodes"] = nodes
    p["outputs"] = outputs
    return p


def dump(p, path):
    """One JSON value per line for constants and nodes: readable diffs."""
    lines = ["{"]
    keys = list(p)
    for i, key in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        value = p[key]
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append("  %s: [" % json.dumps(key))
            for j, item in enumerate(value):
                item_comma = "," if j + 1 < len(value) else ""
                lines.append("    " + json.dumps(item) + item_comma)
            lines.append("  ]" + comma)
        else:
            lines.append("  %s: %s%s" % (json.dumps(key), json.dumps(value), comma))
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def mlp():
    rng = Lcg(1)
    dims = [16, 32, 32, 8]
    constants = []
    for layer in range(3):
        k, n = dims[layer], dims[layer + 1]
        constants.append(weights(rng, "W%d" % (layer + 1), [n, k], k))
        constants.append(weights(rng, "b%d" % (layer + 1), [n], k))
    nodes = [
        node("h1", "linear", ["X", "W1", "b1"]),
        node("a1", "gelu", ["h1"]),
        node("h2", "linear", ["a1", "W2", "b2"]),
        node("a2", "gelu", ["h2"]),
        node("y", "linear", ["a2", "W3", "b3"]),
    ]
    return program(
        "mlp", "A 3-layer perceptron 16 -> 32 -> 32 -> 8 with GELU "
        "activations on a dynamic batch of B rows; weights are constants.",
        [{"name": "B", "min": 1, "max": 1024, "description": "batch size"}],
        [{"name": "X", "dtype": "f32", "shape": ["B", 16]}],
        constants, nodes, [{"name": "Y", "value": "y"}])


def attention():
    rng = Lcg(2)
    d, heads, hidden = 32, 2, 64
    hd = d // heads
    constants = [
        const("ln1_w", [d], [round(1.0 + 0.1 * rng.uniform(), 4) for _ in range(d)]),
        const("ln1_b", [d], rng.values(d, 0.1)),
    ]
    for proj in ("q", "k", "v", "o"):
        constants.append(weights(rng, "W" + proj, [d, d], d))
        constants.append(weights(rng, "b" + proj, [d], d))
    constants += [
        const("ln2_w", [d], [round(1.0 + 0.1 * rng.uniform(), 4) for _ in range(d)]),
        const("ln2_b", [d], rng.values(d, 0.1)),
        weights(rng, "W1", [hidden, d], d), weights(rng, "b1", [hidden], d),
        weights(rng, "W2", [d, hidden], hidden), weights(rng, "b2", [d], hidden),
        const("scale", [], 1.0 / math.sqrt(hd), "1/sqrt(head dim)"),
    ]
    nodes = [
        node("ln1", "layer_norm", ["X", "ln1_w", "ln1_b"]),
        node("q", "linear", ["ln1", "Wq", "bq"]),
        node("k", "linear", ["ln1", "Wk", "bk"]),
        node("v", "linear", ["ln1", "Wv", "bv"]),
        # [S,32] -> [S,2,16] -> heads first: [2,S,16]; K as [2,16,S].
        node("q3", "reshape", ["q"], shape=["S", heads, hd]),
        node("k3", "reshape", ["k"], shape=["S", heads, hd]),
        node("v3", "reshape", ["v"], shape=["S", heads, hd]),
        node("qh", "transpose", ["q3"], perm=[1, 0, 2]),
        node("kh", "transpose", ["k3"], perm=[1, 2, 0]),
        node("vh", "transpose", ["v3"], perm=[1, 0, 2]),
        node("scores", "matmul", ["qh", "kh"]),
        node("scaled", "mul", ["scores", "scale"]),
        node("probs", "softmax", ["scaled"], axis=-1),
        node("ctx", "matmul", ["probs", "vh"]),
        node("ctx_t", "transpose", ["ctx"], perm=[1, 0, 2]),
        node("ctx2", "reshape", ["ctx_t"], shape=["S", d]),
        node("attn", "linear", ["ctx2", "Wo", "bo"]),
        node("res1", "add", ["X", "attn"]),
        node("ln2", "layer_norm", ["res1", "ln2_w", "ln2_b"]),
        node("f1", "linear", ["ln2", "W1", "b1"]),
        node("g", "gelu", ["f1"]),
        node("f2", "linear", ["g", "W2", "b2"]),
        node("y", "add", ["res1", "f2"]),
    ]
    return program(
        "attention", "One pre-norm transformer encoder block, model dim 32, "
        "2 heads of 16, MLP 32 -> 64 -> 32 with GELU, on a sequence of S "
        "tokens; weights are constants.",
        [{"name": "S", "min": 1, "max": 512, "description": "sequence length"}],
        [{"name": "X", "dtype": "f32", "shape": ["S", d]}],
        constants, nodes, [{"name": "Y", "value": "y"}])


def cnn():
    rng = Lcg(3)
    constants = [
        weights(rng, "c1_w", [8, 3, 3, 3], 27), weights(rng, "c1_b", [8], 27),
        weights(rng, "c2_w", [16, 8, 3, 3], 72), weights(rng, "c2_b", [16], 72),
        weights(rng, "fc_w", [10, 16], 16), weights(rng, "fc_b", [10], 16),
    ]
    nodes = [
        node("c1", "conv2d", ["X", "c1_w", "c1_b"], padding=[1, 1]),
        node("r1", "relu", ["c1"]),
        node("p1", "max_pool2d", ["r1"], kernel=[2, 2]),
        node("c2", "conv2d", ["p1", "c2_w", "c2_b"], padding=[1, 1]),
        node("r2", "relu", ["c2"]),
        node("gap", "global_avg_pool", ["r2"]),
        node("flat", "flatten", ["gap"], start_dim=1),
        node("logits", "linear", ["flat", "fc_w", "fc_b"]),
    ]
    return program(
        "cnn", "A small image classifier on NCHW 3x16x16 images: conv 3x3 "
        "(8) + relu + 2x2 max pool, conv 3x3 (16) + relu, global average "
        "pool, linear to 10 classes; dynamic batch B; weights are constants.",
        [{"name": "B", "min": 1, "max": 64, "description": "batch size"}],
        [{"name": "X", "dtype": "f32", "shape": ["B", 3, 16, 16]}],
        constants, nodes, [{"name": "logits", "value": "logits"}])


def branch():
    rng = Lcg(4)
    x = {"name": "x", "dtype": "f32", "shape": ["B", 8]}
    constants = [
        const("zero", [], 0.0),
        weights(rng, "Wt", [4, 8], 8), weights(rng, "bt", [4], 8),
        weights(rng, "We", [4, 8], 8),
    ]
    then_graph = {
        "description": "sum(X) > 0: relu(linear(X, Wt, bt))",
        "inputs": [dict(x, name="xt")],
        "nodes": [node("t_lin", "linear", ["xt", "Wt", "bt"]),
                  node("t_out", "relu", ["t_lin"])],
        "outputs": ["t_out"]}
    else_graph = {
        "description": "sum(X) <= 0: tanh(linear(-X, We))",
        "inputs": [dict(x, name="xe")],
        "nodes": [node("e_neg", "neg", ["xe"]),
                  node("e_lin", "linear", ["e_neg", "We"]),
                  node("e_out", "tanh", ["e_lin"])],
        "outputs": ["e_out"]}
    cond = node("y", "cond", ["positive", "X"])
    cond["regions"] = {"then": then_graph, "else": else_graph}
    nodes = [
        node("total", "sum", ["X"]),
        node("positive", "gt", ["total", "zero"]),
        cond,
    ]
    return program(
        "branch", "A value-dependent branch: if sum(X) > 0 then "
        "relu(X*Wt^T + bt) else tanh((-X)*We^T), on a dynamic batch B; "
        "also returns the predicate.",
        [{"name": "B", "min": 1, "max": 256, "description": "batch size"}],
        [{"name": "X", "dtype": "f32", "shape": ["B", 8]}],
        constants, nodes,
        [{"name": "Y", "value": "y"},
         {"name": "took_then", "value": "positive",
          "description": "true when the then branch ran"}])


if __name__ == "__main__":
    for name, make in (("mlp", mlp), ("attention", attention), ("cnn", cnn),
                       ("branch", branch)):
        os.makedirs(os.path.join(SAMPLES, name), exist_ok=True)
        dump(make(), os.path.join(SAMPLES, name, name + ".json"))
