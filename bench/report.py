#!/usr/bin/env python3
"""Turns Google Benchmark JSON into the tables of docs/performance.md: per
benchmark group, each implementation's median time, its throughput counter
and its ratio to txc (>1: the peer is slower). GFLOPS rows also show the
fraction of the machine's FMA peak as measured by `fma_peak/avx2`.

    bench/report.py build-bench/bench.json [build-bench/torch.json ...]

Several files (txc-bench's and bench/torch_bench.py's) merge into the same
tables; the machine line comes from the first."""
import json
import sys
from collections import OrderedDict

TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load_groups(paths):
    groups = OrderedDict()
    context = None
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context = context or data["context"]
        for b in data["benchmarks"]:
            if b.get("aggregate_name", "median") != "median":
                continue
            # txc-bench times in wall-clock time, which Google Benchmark
            # marks with this suffix.
            name = b.get("run_name", b["name"]).removesuffix("/real_time")
            group, _, impl = name.rpartition("/")
            groups.setdefault(group, OrderedDict())[impl] = b
    return context, groups


def real_ns(b):
    return b["real_time"] * TO_NS[b.get("time_unit", "ns")]


def format_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}" if ns < 100 * scale else \
                f"{ns / scale:.0f} {unit}"
    return f"{ns:.1f} ns"


def main(paths):
    ctx, groups = load_groups(paths)
    print(f"Machine: {ctx.get('host_name', '?')}, {ctx['num_cpus']} CPUs at "
          f"{ctx['mhz_per_cpu']} MHz; date {ctx['date']}")
    peak = groups.get("fma_peak", {}).get("avx2", {}).get("GFLOPS")
    if peak:
        print(f"FMA peak (fma_peak/avx2, one core): {peak / 1e9:.1f} GFLOPS")
    for group, impls in groups.items():
        txc = impls.get("txc")
        print(f"\n{group}")
        print("| implementation | median time | throughput | of FMA peak "
              "| time / txc time |")
        print("|---|---|---|---|---|")
        for impl, b in impls.items():
            counter = fraction = ""
            for key in ("GFLOPS", "GB/s"):
                if key in b:
                    value = b[key]
                    counter = f"{value / 1e9:.1f} {key}" if value > 1e6 else \
                        f"{value:.1f} {key}"
            if peak and "GFLOPS" in b and group != "fma_peak":
                fraction = f"{b['GFLOPS'] / peak:.0%}"
            ratio = (f"{real_ns(b) / real_ns(txc):.2f}"
                     if txc and impl != "txc" else "")
            print(f"| {impl} | {format_time(real_ns(b))} | {counter} | "
                  f"{fraction} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["build-bench/bench.json"])
