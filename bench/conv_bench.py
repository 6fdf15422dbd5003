#!/usr/bin/python3
"""ResNet-18's convolutions one at a time: GFLOPS per shape, single thread.

    bench/conv_bench.py --txc build/bin/txc [--baseline OTHER_TXC]
                        [--rounds N] [--seconds S] [--shapes NAME,...]
                        [--work DIR]

Each shape is a program of one conv2d (a symbolic batch B, as the zoo's
models have, called at B = 1; padding as in resnet18,
the bias and a relu after it, as resnet18's folded batch norms leave them)
with the input, weight and bias as inputs, compiled at -O2 for this
machine (--cpu native, as bench/zoo_bench.py compiles the models) and
linked with a small C driver that calls <p>_run_with_workspace with a
workspace allocated once. --rounds rounds (default 7), in each one process
per shape in turn (interleaved, so that a shared machine's load falls on
every shape alike), each timing calls for about --seconds (default 0.3)
of its thread's CPU time (CLOCK_THREAD_CPUTIME_ID: on a shared machine
the wall clock also counts the time other processes ran) after one
untimed call and reporting their median. The table gives the
median over the rounds in microseconds and GFLOPS (2*F*C*KH*KW*OH*OW
multiply-adds counted as two operations), and each shape's ratio to the
56x56 3x3 convolution measured in the same rounds. --baseline compiles
the shapes with a second txc too (e.g. main's) and times both in the same
rounds, one after the other per shape (which one first alternates), for a
before/after table.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (C, F, H=W, K, stride, padding)
SHAPES = {
    "3x3_64_56": (64, 64, 56, 3, 1, 1),
    "3x3_128_28": (128, 128, 28, 3, 1, 1),
    "3x3_256_14": (256, 256, 14, 3, 1, 1),
    "3x3_512_7": (512, 512, 7, 3, 1, 1),
    "3x3s2_128to256_28": (128, 256, 28, 3, 2, 1),
    "3x3s2_256to512_14": (256, 512, 14, 3, 2, 1),
    "1x1s2_128to256_28": (128, 256, 28, 1, 2, 0),
    "1x1s2_256to512_14": (256, 512, 14, 1, 2, 0),
}
REFERENCE = "3x3_64_56"

DRIVER = r"""
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "PROG.h"
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(suffix) CAT(PROG, suffix)
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static txc_tensor tensor(float *data, int rank, const int64_t *dims) {
  txc_tensor t = {0};
  int64_t n = 1;
  for (int i = 0; i < rank; ++i)
    n *= t.dims[i] = dims[i];
  t.data = data;
  t.size_bytes = n * 4;
  t.dtype = TXC_DTYPE_F32;
  t.rank = rank;
  return t;
}
static float *filled(int64_t n) {
  float *p = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
  for (int64_t i = 0; i < n; ++i)
    p[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  return p;
}
int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  int64_t xd[4] = {1, C, H, H}, wd[4] = {F, C, K, K}, bd[1] = {F};
  int64_t yd[4] = {1, F, OH, OH};
  txc_tensor in[3] = {tensor(filled(C * H * H), 4, xd),
                      tensor(filled(F * C * K * K), 4, wd),
                      tensor(filled(F), 1, bd)};
  txc_tensor out[1] = {tensor(filled(F * OH * OH), 4, yd)};
  size_t bytes = 0;
  if (FN(_workspace_size)(in, 3, &bytes, NULL) != TXC_OK)
    return 1;
  void *ws = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
  if (FN(_run_with_workspace)(in, 3, out, 1, NULL, ws, bytes) != TXC_OK)
    return 1;
  static double times[100000];
  int n = 0;
  double end = now() + seconds;
  while (n < 100000 && (n < 3 || now() < end)) {
    double t0 = now();
    FN(_run_with_workspace)(in, 3, out, 1, NULL, ws, bytes);
    times[n++] = now() - t0;
  }
  qsort(times, n, sizeof(double), cmp);
  printf("%.9f\n", times[n / 2]);
  return 0;
}
"""


def program(name, c, f, h, k, stride, pad):
    return {
        "format": "txc.program", "version": 1, "name": name,
        "symbols": [{"name": "B", "min": 1, "max": 64}],
        "inputs": [
            {"name": "x", "dtype": "f32", "shape": ["B", c, h, h]},
            {"name": "w", "dtype": "f32", "shape": [f, c, k, k]},
            {"name": "b", "dtype": "f32", "shape": [f]}],
        "nodes": [
            {"name": "y", "op": "conv2d", "operands": ["x", "w", "b"],
             "attributes": {"stride": [stride, stride],
                            "padding": [pad, pad]}},
            {"name": "r", "op": "relu", "operands": ["y"]}],
        "outputs": ["r"],
    }


def build(txc, work, name, shape):
    c, f, h, k, stride, pad = shape
    oh = (h + 2 * pad - k) // stride + 1
    prog = "conv_" + name
    with open(os.path.join(work, prog + ".json"), "w") as out:
        json.dump(program(prog, *shape), out)
    with open(os.path.join(work, prog + "_driver.c"), "w") as out:
        out.write(DRIVER.replace("PROG", prog))
    subprocess.run([txc, "compile", prog + ".json", "-O2", "--cpu", "native",
                    "-o", prog + ".o", "--header", prog + ".h"],
                   cwd=work, check=True)
    defines = [f"-D{key}={value}" for key, value in
               dict(C=c, F=f, H=h, K=k, OH=oh).items()]
    subprocess.run(["cc", "-std=c11", "-O2", *defines, "-o", prog,
                    prog + "_driver.c", prog + ".o", "-lm"],
                   cwd=work, check=True)
    flops = 2.0 * f * c * k * k * oh * oh
    return os.path.join(work, prog), flops


def table(names, built, times, title):
    gflops = {name: built[name][1] / statistics.median(times[name]) / 1e9
              for name in names}
    print(f"{title}\n")
    print(f"| Convolution | us | GFLOPS | vs {REFERENCE} |")
    print("|---|---:|---:|---:|")
    for name in names:
        print(f"| {name} | {statistics.median(times[name]) * 1e6:.0f} | "
              f"{gflops[name]:.1f} | {gflops[name] / gflops[REFERENCE]:.2f} |")
    print()
    return gflops


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txc", default=os.path.join(ROOT, "build/bin/txc"))
    parser.add_argument("--baseline", help="a second txc, timed alongside")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--work", default="/tmp/txc-conv-bench")
    args = parser.parse_args()
    names = args.shapes.split(",")
    if REFERENCE not in names:
        names.insert(0, REFERENCE)
    compilers = {"txc": args.txc}
    if args.baseline:
        compilers = {"baseline": args.baseline, "txc": args.txc}
    built, times = {}, {}
    for label, txc in compilers.items():
        work = os.path.join(args.work, label)
        os.makedirs(work, exist_ok=True)
        built[label] = {name: build(os.path.abspath(txc), work, name,
                                    SHAPES[name]) for name in names}
        times[label] = {name: [] for name in names}
    for round in range(args.rounds):
        for name in names:
            # Each compiler first in every other round: the second process
            # of a pair ran up to 10% slower on the same object.
            labels = list(compilers)
            for label in labels[::-1] if round % 2 else labels:
                result = subprocess.run(
                    [built[label][name][0], str(args.seconds)],
                    check=True, capture_output=True, text=True)
                times[label][name].append(float(result.stdout))
    gflops = {label: table(names, built[label], times[label],
                           f"{label} ({compilers[label]})")
              for label in compilers}
    if args.baseline:
        print("| Convolution | baseline GFLOPS | txc GFLOPS | ratio |")
        print("|---|---:|---:|---:|")
        for name in names:
            before, after = gflops["baseline"][name], gflops["txc"][name]
            print(f"| {name} | {before:.1f} | {after:.1f} | "
                  f"{after / before:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
