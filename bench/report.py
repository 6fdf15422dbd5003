#!/usr/bin/env python3
"""Turns txc-bench's Google Benchmark JSON into the tables of
docs/performance.md: per benchmark group, each implementation's median time,
its throughput counter and its ratio to txc (>1: the peer is slower)."""
import json
import sys
from collections import OrderedDict


def main(path):
    with open(path) as f:
        data = json.load(f)
    ctx = data["context"]
    print(f"Machine: {ctx.get('host_name', '?')}, {ctx['num_cpus']} CPUs at "
          f"{ctx['mhz_per_cpu']} MHz; date {ctx['date']}")
    groups = OrderedDict()
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        name = b.get("run_name", b["name"])
        group, _, impl = name.rpartition("/")
        groups.setdefault(group, OrderedDict())[impl] = b
    for group, impls in groups.items():
        txc = impls.get("txc")
        print(f"\n{group}")
        print("| implementation | median time | throughput | time / txc time |")
        print("|---|---|---|---|")
        for impl, b in impls.items():
            unit = b.get("time_unit", "ns")
            counter = ""
            for key in ("GFLOPS", "GB/s"):
                if key in b:
                    value = b[key]
                    counter = f"{value / 1e9:.1f} {key}" if value > 1e6 else \
                        f"{value:.1f} {key}"
            ratio = (f"{b['real_time'] / txc['real_time']:.2f}"
                     if txc and impl != "txc" else "")
            print(f"| {impl} | {b['real_time']:.1f} {unit} | {counter} | "
                  f"{ratio} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build-bench/bench.json")
