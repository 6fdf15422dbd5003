#!/usr/bin/python3
"""PyTorch eager peer of txc-bench (bench/txc_bench.cpp).

Times the same kernels as txc-bench, single-threaded, under the same group
names with the implementation `pytorch`, and writes them as Google Benchmark
JSON (median aggregates) for bench/report.py to merge into the same tables:

    bench/torch_bench.py [--quick] [--out FILE] [--dump-dir DIR]
                         [--benchmark_filter=REGEX]

It also runs samples/attention and samples/cnn in PyTorch with the weights
read from the samples' JSON, on the inputs txc-bench wrote to --dump-dir
(TXC_BENCH_DUMP_DIR), and compares the outputs with txc's. That comparison
runs whatever the filter; a mismatch (or missing files) exits 1.
"""
import argparse
import json
import math
import os
import re
import statistics
import sys
import timeit
from datetime import datetime, timezone

import numpy as np
import torch
import torch.nn.functional as F

from torch_threads import set_threads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Same sizes as txc_bench.cpp.
SGEMM_SIZES = (256, 512, 1024)
LINEAR_SHAPES = ((1, 4, 3), (64, 256, 256), (512, 1024, 1024))
CHAIN = 1 << 24
ROWS, COLS = 4096, 1024
LAYER_NORM_EPS = 1e-5  # txc's default, and PyTorch's


def gflops(flops):
    return {"GFLOPS": flops}


def bandwidth(nbytes):
    return {"GB/s": nbytes}


def kernels():
    """(group, callable, counters per call as {name: amount}) for every kernel
    of txc-bench that has a PyTorch equivalent; each callable writes into a
    preallocated output where PyTorch allows it, as txc does."""
    gen = torch.Generator().manual_seed(0)

    def rand(*shape):
        return torch.rand(*shape, generator=gen) * 2 - 1

    for n in SGEMM_SIZES:
        a, b, c = rand(n, n), rand(n, n), torch.empty(n, n)
        yield (f"sgemm_{n}", lambda a=a, b=b, c=c: torch.mm(a, b, out=c),
               gflops(2.0 * n ** 3))
    for bsz, k, n in LINEAR_SHAPES:
        # samples/linear's layout: Y = X W + b with W of shape [K, N].
        x, w, bias, y = rand(bsz, k), rand(k, n), rand(n), torch.empty(bsz, n)
        yield (f"linear_{bsz}x{k}x{n}",
               lambda x=x, w=w, bias=bias, y=y: torch.addmm(bias, x, w, out=y),
               gflops(2.0 * bsz * k * n))

    # relu(x * 1.5 - 0.25) as eager code writes it (two temporaries), and
    # with in-place ops into a preallocated output (three passes, no
    # allocation).
    x, y = rand(CHAIN), torch.empty(CHAIN)

    def chain_inplace():
        torch.mul(x, 1.5, out=y)
        y.sub_(0.25)
        y.relu_()

    yield ("eltwise_chain_16M", lambda: torch.relu(x * 1.5 - 0.25),
           bandwidth(CHAIN * 8.0))
    yield ("eltwise_chain_16M", chain_inplace, bandwidth(CHAIN * 8.0),
           "pytorch_inplace")

    xs, ys = rand(ROWS, COLS), torch.empty(ROWS, COLS)
    yield ("softmax_4096x1024", lambda: torch.softmax(xs, -1, out=ys),
           bandwidth(2.0 * ROWS * COLS * 4))
    gamma, beta = 1 + 0.5 * rand(COLS), 0.25 * rand(COLS)
    yield ("layer_norm_4096x1024",
           lambda: F.layer_norm(xs, (COLS,), gamma, beta, LAYER_NORM_EPS),
           bandwidth(2.0 * ROWS * COLS * 4 + 2.0 * COLS * 4))


def check_kernels():
    """PyTorch's own results against a float64 computation, so that the
    pytorch rows time correct code. Returns False on a mismatch."""
    gen = torch.Generator().manual_seed(1)
    x = torch.rand(256, COLS, generator=gen) * 2 - 1
    gamma = 1 + 0.5 * (torch.rand(COLS, generator=gen) * 2 - 1)
    beta = 0.25 * (torch.rand(COLS, generator=gen) * 2 - 1)
    w = torch.rand(COLS, 512, generator=gen) * 2 - 1
    bias = torch.rand(512, generator=gen) * 2 - 1
    x64 = x.double()
    mean = x64.mean(-1, keepdim=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdim=True)
    cases = [
        ("softmax", torch.softmax(x, -1), torch.softmax(x64, -1)),
        ("layer_norm",
         F.layer_norm(x, (COLS,), gamma, beta, LAYER_NORM_EPS),
         (x64 - mean) / torch.sqrt(var + LAYER_NORM_EPS) * gamma.double()
         + beta.double()),
        ("eltwise_chain", torch.relu(x * 1.5 - 0.25),
         torch.relu(x64 * 1.5 - 0.25)),
        # K = 1024 products of values in [-1, 1]: the f32 sum carries
        # rounding of about sqrt(K) * 2^-24 * |terms|.
        ("addmm", torch.addmm(bias, x, w),
         torch.addmm(bias.double(), x64, w.double()), 1e-3),
    ]
    ok = True
    for name, got, ref, *atol in cases:
        ok &= compare(f"pytorch {name}", got, ref,
                      atol[0] if atol else 1e-5, 1e-4, "float64")
    return ok


def compare(what, got, ref, atol, rtol, against):
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        print(f"check {what}: shape {got.shape}, {against} has {ref.shape}",
              file=sys.stderr)
        return False
    err = np.abs(got - ref)
    err[np.isnan(err)] = math.inf
    ok = bool(np.all(err <= atol + rtol * np.abs(ref)))
    rel = float(np.max(err / np.maximum(np.abs(ref), 1e-30)))
    print(f"check {what} against {against}: max abs diff "
          f"{float(err.max()):.3g}, max rel diff {rel:.3g} "
          f"({'ok' if ok else 'MISMATCH'}; tolerance {atol:g} + {rtol:g} * "
          f"|{against}|)", file=sys.stderr)
    return ok


#
# samples/attention and samples/cnn
#

def load_constants(sample):
    with open(os.path.join(ROOT, "samples", sample, f"{sample}.json")) as f:
        program = json.load(f)
    return {c["name"]: torch.tensor(c["data"], dtype=torch.float32)
            .reshape(c["shape"]) for c in program["constants"]}


def attention_model():
    """samples/attention/attention.json written with torch.nn.functional."""
    c = load_constants("attention")

    def run(x):
        s = x.shape[0]
        h = F.layer_norm(x, (32,), c["ln1_w"], c["ln1_b"], LAYER_NORM_EPS)
        q = F.linear(h, c["Wq"], c["bq"]).reshape(s, 2, 16).permute(1, 0, 2)
        k = F.linear(h, c["Wk"], c["bk"]).reshape(s, 2, 16).permute(1, 2, 0)
        v = F.linear(h, c["Wv"], c["bv"]).reshape(s, 2, 16).permute(1, 0, 2)
        probs = torch.softmax(torch.matmul(q, k) * c["scale"], -1)
        ctx = torch.matmul(probs, v).permute(1, 0, 2).reshape(s, 32)
        r = x + F.linear(ctx, c["Wo"], c["bo"])
        h2 = F.layer_norm(r, (32,), c["ln2_w"], c["ln2_b"], LAYER_NORM_EPS)
        return r + F.linear(F.gelu(F.linear(h2, c["W1"], c["b1"])),
                            c["W2"], c["b2"])
    return run


def cnn_model():
    """samples/cnn/cnn.json written with torch.nn.functional."""
    c = load_constants("cnn")

    def run(x):
        h = F.max_pool2d(F.relu(F.conv2d(x, c["c1_w"], c["c1_b"], padding=1)),
                         2)
        h = F.relu(F.conv2d(h, c["c2_w"], c["c2_b"], padding=1))
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return F.linear(h, c["fc_w"], c["fc_b"])
    return run


SAMPLES = (("attention", attention_model), ("cnn", cnn_model))


def samples(dump_dir):
    """(group, callable) per sample on txc-bench's inputs, and whether
    PyTorch's outputs match txc's."""
    ok = True
    out = []
    for name, make in SAMPLES:
        model = make()
        try:
            x = torch.from_numpy(np.load(os.path.join(dump_dir,
                                                      f"{name}_in.npy")))
            txc = np.load(os.path.join(dump_dir, f"{name}_out.npy"))
        except OSError as e:
            print(f"check {name}: {e} (run txc-bench with "
                  f"TXC_BENCH_DUMP_DIR={dump_dir} first)", file=sys.stderr)
            ok = False
            continue
        # Different summation orders (oneDNN convolutions, blocked matmuls)
        # and erf/exp implementations: f32 rounding, amplified by two
        # layer norms in attention, stays far below this.
        ok &= compare(f"{name}_e2e pytorch", model(x), txc, 1e-5, 1e-4,
                      "txc")
        out.append((f"{name}_e2e", lambda model=model, x=x: model(x), {}))
    return out, ok


def time_ns(fn, repetitions):
    """Median over repetitions of the time of one call; each repetition
    calls fn often enough to last at least 0.2 s (timeit's autorange)."""
    fn()  # warm up: first-call allocations, oneDNN primitive creation
    timer = timeit.Timer(fn)
    times = []
    for _ in range(repetitions):
        number, total = timer.autorange()
        times.append(total / number * 1e9)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 repetitions instead of 5")
    parser.add_argument("--out", default="build-bench/torch.json")
    parser.add_argument("--dump-dir", default=os.environ.get(
        "TXC_BENCH_DUMP_DIR", "build-bench/e2e"))
    parser.add_argument("--benchmark_filter", default="")
    # txc-bench's other flags (repetitions, min time...) are accepted and
    # ignored, so that scripts/bench.sh can pass the same arguments.
    args, _ = parser.parse_known_args()

    set_threads(1)
    repetitions = 3 if args.quick else 5
    ok = check_kernels()
    sample_kernels, samples_ok = samples(args.dump_dir)
    ok &= samples_ok

    benchmarks = []
    with torch.inference_mode():
        for group, fn, counters, *impl in [*kernels(), *sample_kernels]:
            name = f"{group}/{impl[0] if impl else 'pytorch'}"
            if args.benchmark_filter and not re.search(args.benchmark_filter,
                                                       name):
                continue
            ns = time_ns(fn, repetitions)
            entry = {"name": f"{name}_median", "run_name": name,
                     "run_type": "aggregate", "aggregate_name": "median",
                     "repetitions": repetitions, "real_time": ns,
                     "cpu_time": ns, "time_unit": "ns"}
            # Per second, as Google Benchmark's rate counters.
            entry.update({k: v / (ns * 1e-9) for k, v in counters.items()})
            benchmarks.append(entry)
            print(f"{name}: {ns:.0f} ns", file=sys.stderr)

    context = {"date": datetime.now(timezone.utc).isoformat(),
               "host_name": os.uname().nodename,
               "num_cpus": os.cpu_count(),
               "mhz_per_cpu": 0,
               "library": f"torch {torch.__version__}",
               "num_threads": torch.get_num_threads()}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f, indent=1)
    if not ok:
        print("torch_bench.py: result check failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
