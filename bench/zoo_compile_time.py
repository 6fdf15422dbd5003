#!/usr/bin/python3
"""Compile time of real models (docs/performance.md, "Compile time").

    bench/zoo_compile_time.py --txc build/bin/txc [--models NAME,...]
                              [--jobs 1,2] [--work DIR]

Exports each model of test/models/make_zoo.py (the same seeded weights) and
`bert_base`, a BERT-base-sized encoder (12 TransformerEncoderLayers of
width 768, 12 heads, feed-forward 3072, GELU; a 1000-token embedding, so
that the weights are the layers'), imports it with `txc import onnx`, then
compiles it with `txc compile -O2 --no-cache -j N` for each N of --jobs, one
process each, and prints a Markdown table of the process's wall time, its
CPU time (user + system, all threads), its peak RSS (/usr/bin/time's) and the object's size. The export and the import are not timed.
"""
import argparse
import os
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import make_zoo  # noqa: E402
from compile_time import run_measured  # noqa: E402


def bert_base():
    """BERT-base's encoder stack (each layer its own weights) on a small
    embedding."""
    return make_zoo.Encoder(vocab=1000, d_model=768, nhead=12,
                            dim_feedforward=3072, layers=12)


def export_bert_base(work):
    """bert_base.onnx and its --dim flags; exported with grad enabled
    (PyTorch 1.13's no-grad attention path has no ONNX export)."""
    torch.manual_seed(0)
    model = bert_base().eval()
    ids = torch.randint(0, 1000, (2, 16))
    with torch.set_grad_enabled(True):
        torch.onnx.export(model, (ids,), os.path.join(work, "bert_base.onnx"),
                          input_names=["ids"], output_names=["y"],
                          dynamic_axes={"ids": {0: "batch", 1: "S"},
                                        "y": {0: "batch", 1: "S"}},
                          opset_version=make_zoo.OPSET)
    return ["batch=1:8", "S=1:512"]


def prepare(txc, name, work):
    """Exports and imports `name`; returns the program's path."""
    if name == "bert_base":
        dims = export_bert_base(work)
    else:
        make_zoo.export(name, work)
        with open(os.path.join(work, name + ".dims")) as f:
            dims = [line.strip() for line in f if line.strip()]
    program = os.path.join(work, name + ".json")
    flags = [flag for d in dims for flag in ("--dim", d)]
    run_measured([txc, "import", "onnx", os.path.join(work, name + ".onnx"),
                  "-o", program] + flags)
    return program


def compile_once(txc, program, jobs):
    """(wall s, CPU s, peak RSS MiB, object KiB) of one compile."""
    out = program[:-len(".json")] + ".j%d.o" % jobs
    before = os.times()
    # The peak RSS from /usr/bin/time, a small process: a child forked
    # straight from this one would start with its RSS (torch's).
    wall, _, err = run_measured(
        ["/usr/bin/time", "-f", "txc-peak-rss-kib %M", txc, "compile", program,
         "-O2", "--no-cache", "-j", str(jobs), "-o", out, "--header",
         out[:-2] + ".h"])
    rss_kib = int(err.strip().splitlines()[-1].split()[-1])
    after = os.times()
    cpu = (after.children_user - before.children_user +
           after.children_system - before.children_system)
    return wall, cpu, rss_kib / 1024, os.path.getsize(out) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--txc", required=True)
    parser.add_argument("--models",
                        default=",".join(list(make_zoo.MODELS) + ["bert_base"]))
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--work")
    args = parser.parse_args()
    txc = os.path.abspath(args.txc)
    work = args.work or tempfile.mkdtemp(prefix="txc-zoo-compile-")
    os.makedirs(work, exist_ok=True)
    torch.set_num_threads(1)
    jobs = [int(j) for j in args.jobs.split(",")]
    print("| model | -j | wall (s) | CPU (s) | peak RSS (MiB) | object (KiB) |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.models.split(","):
        program = prepare(txc, name, work)
        for j in jobs:
            wall, cpu, rss, size = compile_once(txc, program, j)
            print(f"| `{name}` | {j} | {wall:.2f} | {cpu:.2f} | {rss:.0f} "
                  f"| {size:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
