#!/usr/bin/env python3
"""Compile time of txc per phase, for generated programs of 10, 100 and 1000
ops, and the samples/linear region in-process against the MLIR/LLVM tools.

    bench/compile_time.py [--txc build-bench/bin/txc] [--runs 3]
                          [--sizes 10,100,1000] [--opt 2,0] [--jobs 1]
                          [--family repeating,distinct]
                          [--out build-bench/compile_time.json]

Two families of programs: *repeating* (the same ten-op block, so the
regions of its layers are compiled once) and *distinct* (every block has its
own widths, so nothing can be shared).

Each compile is a fresh `txc compile --time-report=json` process; its peak
RSS comes from wait4() on that process alone. Figures are medians over
--runs. The report (Markdown) goes to stdout, the raw figures to --out.
See docs/performance.md, "Compile time"."""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

# The feature width of the residual stream and the MLP's hidden width.
WIDTH = 64
HIDDEN = 128
ACTIVATIONS = ("gelu", "relu", "tanh", "silu")


def generate_program(num_ops, name, family="repeating"):
    """A transformer-MLP-like stack of exactly `num_ops` nodes on a symbolic
    batch B: per block of ten ops

        h = linear(x, W1, b1)  [B,64] -> [B,128]   (matmul + bias)
        a = <activation>(h)                        (gelu/relu/tanh/silu)
        o = linear(a, W2, b2)  [B,128] -> [B,64]
        r = add(o, x)                              (residual)
        n = layer_norm(r, g, beta)
        s = mul(n, scale)                          (broadcast [64])
        t = tanh(s)
        p = softmax(t)                             (row softmax)
        q = sub(p, n)
        x' = relu(q)

    Every layer has its own weights, passed as inputs (so the program text
    and the entry point's argument list grow with the layers as they would
    for a real model, without megabytes of constant data). A trailing
    partial block is cut short; the last node is the output.

    In the *distinct* family, block l maps width d_l = 32 + l to
    d_{l+1} (hidden width 2·d_l) and its `add` adds a bias vector instead of
    the residual, so that no two blocks have the same shapes and no region
    can be shared."""
    distinct = family == "distinct"

    def width(l):
        return 32 + l if distinct else WIDTH

    def hidden(l):
        return 2 * width(l) if distinct else HIDDEN

    inputs = [{"name": "X", "dtype": "f32", "shape": ["B", width(0)]}]
    nodes = []
    x = "X"

    def inp(n, shape):
        inputs.append({"name": n, "dtype": "f32", "shape": shape})
        return n

    def node(n, op, operands, **attrs):
        entry = {"name": n, "op": op, "operands": operands}
        if attrs:
            entry["attributes"] = attrs
        nodes.append(entry)
        return n

    layer = 0
    while len(nodes) < num_ops:
        l = layer
        act = ACTIVATIONS[l % len(ACTIVATIONS)]
        d_in, d_hidden = width(l), hidden(l)
        d = width(l + 1)
        residual = (lambda: inp(f"c_{l}", [d])) if distinct else (lambda: x)
        steps = [
            lambda: node(f"h{l}", "linear", [x, inp(f"W1_{l}", [d_hidden, d_in]),
                                             inp(f"b1_{l}", [d_hidden])]),
            lambda: node(f"a{l}", act, [f"h{l}"]),
            lambda: node(f"o{l}", "linear", [f"a{l}", inp(f"W2_{l}", [d, d_hidden]),
                                             inp(f"b2_{l}", [d])]),
            lambda: node(f"r{l}", "add", [f"o{l}", residual()]),
            lambda: node(f"n{l}", "layer_norm", [f"r{l}", inp(f"g_{l}", [d]),
                                                 inp(f"beta_{l}", [d])]),
            lambda: node(f"s{l}", "mul", [f"n{l}", inp(f"scale_{l}", [d])]),
            lambda: node(f"t{l}", "tanh", [f"s{l}"]),
            lambda: node(f"p{l}", "softmax", [f"t{l}"]),
            lambda: node(f"q{l}", "sub", [f"p{l}", f"n{l}"]),
            lambda: node(f"x{l}", "relu", [f"q{l}"]),
        ]
        for step in steps:
            if len(nodes) == num_ops:
                break
            step()
        x = f"x{l}"
        layer += 1
    return {
        "format": "txc.program",
        "version": 1,
        "name": name,
        "description": f"compile-time benchmark: {num_ops} ops, {family} "
                       f"(bench/compile_time.py)",
        "symbols": [{"name": "B", "min": 1, "max": 4096}],
        "inputs": inputs,
        "nodes": nodes,
        "outputs": [{"name": "Y", "value": nodes[-1]["name"]}],
    }


class CompileFailed(Exception):
    """A compile that timed out, ran out of its memory cap or failed."""


def run_measured(cmd, stdout=subprocess.DEVNULL, timeout=None,
                 max_memory=None):
    """Runs cmd; returns (wall seconds, peak RSS in KiB of that process
    alone, stderr text). Raises CompileFailed after `timeout` seconds, when
    the process exceeds `max_memory` bytes of address space, or on a
    nonzero exit."""
    def limit():
        if max_memory:
            resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))

    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE,
                            preexec_fn=limit)
    # A thread drains stderr so that a large report cannot fill the pipe
    # while this thread waits with a timeout.
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stderr.read()))
    reader.start()
    deadline = start + timeout if timeout else None
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if deadline and time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            reader.join()
            raise CompileFailed(f"timeout after {timeout:g} s")
        time.sleep(0.005)
    wall = time.perf_counter() - start
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = b"".join(chunks).decode(errors="replace")
    if proc.returncode != 0:
        # LLVM reports an exhausted address space as a crash or bad_alloc.
        raise CompileFailed(f"exit status {proc.returncode}: "
                            f"{err.strip().splitlines()[-1] if err.strip() else ''}")
    return wall, usage.ru_maxrss, err


def flatten(phases, prefix, out):
    """The --time-report tree as {path: seconds}; a pass that runs more than
    once in a stage (Canonicalizer, CSE) is summed."""
    for p in phases:
        path = f"{prefix}/{p['name']}" if prefix else p["name"]
        out[path] = out.get(path, 0.0) + p["seconds"]
        flatten(p["phases"], path, out)
    return out


def passes_of(flat):
    """MLIR pass times summed by pass name over all stages ("'func.func'
    Pipeline" nests are transparent; analyses such as DominanceInfo count
    only as part of the pass that ran them)."""
    out = {}
    for path, seconds in flat.items():
        parts = path.split("/")
        if parts[0] != "mlir-pipeline" or len(parts) < 3:
            continue
        leaf = parts[-1]
        # Skip the pipeline nests themselves and the analyses, which are
        # part of the pass above them.
        if leaf.startswith("'") or leaf.startswith("("):
            continue
        leaf = leaf.replace("txc::{anonymous}::", "")
        out[leaf] = out.get(leaf, 0.0) + seconds
    return out


# Rows of the phase table: the phases of the issue (parse, verify, MLIR
# generation, each pipeline stage, LLVM codegen, write) plus the rest of
# the compile job.
PHASES = [
    ("frontend/parse", "parse"),
    ("frontend/verify", "verify"),
    ("frontend/contract", "contract"),
    ("mlirgen", "MLIR generation"),
    ("mlir-pipeline/tensor-optimization", "tensor optimization"),
    ("mlir-pipeline/bufferization", "bufferization"),
    ("mlir-pipeline/loop-lowering", "loop lowering"),
    ("mlir-pipeline/llvm-dialect-lowering", "LLVM dialect lowering"),
    ("translate-to-llvm-ir", "translate to LLVM IR"),
    ("abi-entry-points", "ABI entry points"),
    ("llvm-optimize", "LLVM optimize"),
    ("llvm-codegen", "LLVM codegen"),
    ("write", "write"),
    ("<rest>", "rest (not in a phase)"),
    ("<total>", "total (time report)"),
    ("<process>", "process wall time"),
    ("<process-cpu>", "process CPU time (user + system)"),
]


class Config:
    """One column set of the report: a program family, an optimization
    level and a thread count (`txc compile -j`)."""

    def __init__(self, family, opt, jobs):
        self.family, self.opt, self.jobs = family, opt, jobs

    def key(self, n):
        return f"{self.family}/O{self.opt}/j{self.jobs}/{n}"

    def title(self):
        return f"{self.family} programs, -O{self.opt} -j{self.jobs}"


def configs(families, opts, jobs):
    return [Config(f, o, j) for f in families for o in opts for j in jobs]


def compile_once(txc, program, config, workdir, limits):
    out = os.path.join(workdir, "out.o")
    start_cpu = os.times()
    wall, rss, err = run_measured(
        [txc, "compile", program, f"-O{config.opt}", f"-j{config.jobs}", "-o",
         out, "--no-cache", "--header", os.path.join(workdir, "out.h"),
         "--time-report=json"],
        **limits)
    end_cpu = os.times()
    cpu = (end_cpu.children_user - start_cpu.children_user +
           end_cpu.children_system - start_cpu.children_system)
    # The report is the last JSON line on stderr (warnings may precede it).
    report = None
    for line in reversed(err.splitlines()):
        if line.startswith("{"):
            report = json.loads(line)
            break
    if report is None:
        raise CompileFailed("no --time-report=json output")
    flat = flatten(report["phases"], "", {})
    for k, v in passes_of(flat).items():
        flat["pass:" + k] = v
    flat["<rest>"] = report["rest_seconds"]
    flat["<total>"] = report["total_seconds"]
    flat["<process>"] = wall
    flat["<process-cpu>"] = cpu
    flat["<rss_kib>"] = rss
    flat["<object_bytes>"] = os.path.getsize(out)
    return flat


def measure_sizes(txc, sizes, config_list, runs, workdir, limits):
    """{"<family>/O<opt>/j<jobs>/<n>": {phase: median seconds, ...} or
    {"failed": why}}. A size that fails (timeout, memory cap) is not
    repeated, and the larger sizes of that configuration are skipped: they
    would fail too."""
    data = {}
    for config in config_list:
        failed = None
        for n in sizes:
            key = config.key(n)
            if failed:
                data[key] = {"failed": f"skipped ({failed} at fewer ops)"}
                continue
            program = os.path.join(workdir, f"{config.family}{n}.json")
            with open(program, "w") as f:
                json.dump(generate_program(n, f"ops{n}", config.family), f)
            print(f"  {config.title()}: {n} ops ...", file=sys.stderr,
                  flush=True)
            results = []
            try:
                for _ in range(runs):
                    results.append(compile_once(txc, program, config, workdir,
                                                limits))
            except CompileFailed as e:
                failed = str(e)
                data[key] = {"failed": failed}
                print(f"    {failed}", file=sys.stderr, flush=True)
                continue
            keys = set().union(*results)
            data[key] = {k: statistics.median(r.get(k, 0.0) for r in results)
                         for k in keys}
    return data


def fmt_ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def growth(t_small, t_big):
    # Below 0.1 ms the ratio is noise (timer resolution, scheduling).
    if t_small is None or t_big is None or t_small < 1e-4:
        return "—"
    return f"{t_big / t_small:.1f}×"


def report_sizes(data, sizes, config_list):
    small, big = sizes[-2], sizes[-1]
    factor = big / small
    for config in config_list:
        runs = [data[config.key(n)] for n in sizes]
        ok = [r for r in runs if "failed" not in r]

        def cells(key, scale=1.0, fmt=fmt_ms):
            return [fmt(r[key] * scale) if "failed" not in r else "—"
                    for r in runs]

        def ratio(key):
            a, b = runs[-2], runs[-1]
            if "failed" in a or "failed" in b:
                return "—"
            return growth(a.get(key, 0.0), b.get(key, 0.0))

        print(f"\n### {config.title()}: milliseconds per phase (median of "
              f"the runs)\n")
        print("| phase | " + " | ".join(f"{n} ops" for n in sizes) +
              f" | {big}/{small} (linear: {factor:g}×) |")
        print("|---|" + "---|" * (len(sizes) + 1))
        for key, label in PHASES:
            row = [fmt_ms(r.get(key, 0.0)) if "failed" not in r else "—"
                   for r in runs]
            print(f"| {label} | " + " | ".join(row) + f" | {ratio(key)} |")
        print("| peak RSS (MiB) | " +
              " | ".join(cells("<rss_kib>", 1 / 1024, lambda v: f"{v:.0f}")) +
              f" | {ratio('<rss_kib>')} |")
        print("| object (KiB) | " +
              " | ".join(cells("<object_bytes>", 1 / 1024,
                               lambda v: f"{v:.0f}")) + " | |")
        for n, r in zip(sizes, runs):
            if "failed" in r:
                print(f"\n{n} ops ({config.title()}): {r['failed']}.")
        if not ok:
            continue

        # The MLIR passes that take most of the time at the largest size
        # that compiled.
        last = ok[-1]
        passes = sorted((k for k in last if k.startswith("pass:")),
                        key=lambda k: -last[k])[:12]
        print(f"\nMLIR passes ({config.title()}, summed over the stages "
              f"they run in), slowest first:\n")
        print("| pass | " + " | ".join(f"{n} ops" for n in sizes) +
              f" | {big}/{small} |")
        print("|---|" + "---|" * (len(sizes) + 1))
        for k in passes:
            row = [fmt_ms(r.get(k, 0.0)) if "failed" not in r else "—"
                   for r in runs]
            print(f"| {k[5:]} | " + " | ".join(row) + f" | {ratio(k)} |")

        if len(ok) < 2 or "failed" in runs[-1] or "failed" in runs[-2]:
            continue
        worse = []
        for key, label in PHASES + [(k, k[5:]) for k in passes]:
            t_small = runs[-2].get(key, 0.0)
            t_big = runs[-1].get(key, 0.0)
            # Only phases that matter: 1% of the total at the largest size.
            if t_small >= 1e-4 and t_big >= 0.01 * runs[-1]["<total>"] and \
                    t_big / t_small > 1.5 * factor:
                worse.append(f"{label} ({t_big / t_small:.1f}×)")
        print("\nGrowing worse than linearly (more than 1.5× the op ratio): " +
              (", ".join(worse) if worse else "none") + ".")


def report_summary(data, sizes, config_list):
    """One row per configuration: the process wall time at each size (the
    figures the issue's targets name), and the growth from the second
    largest to the largest size."""
    print("\n### Summary: process wall time, seconds (median)\n")
    print("| family | -O | -j | " + " | ".join(f"{n} ops" for n in sizes) +
          " | CPU at largest | peak RSS at largest (MiB) | growth |")
    print("|---|---|---|" + "---|" * (len(sizes) + 3))
    for config in config_list:
        runs = [data[config.key(n)] for n in sizes]
        cells = [f"{r['<process>']:.2f}" if "failed" not in r else "failed"
                 for r in runs]
        ok = [r for r in runs if "failed" not in r]
        last = ok[-1] if ok else None
        grow = "—"
        if len(sizes) >= 2 and all("failed" not in r for r in runs[-2:]):
            grow = (f"{runs[-1]['<process>'] / runs[-2]['<process>']:.1f}× "
                    f"for {sizes[-1] / sizes[-2]:g}× the ops")
        print(f"| {config.family} | {config.opt} | {config.jobs} | " +
              " | ".join(cells) +
              (f" | {last['<process-cpu>']:.2f} | {last['<rss_kib>'] / 1024:.0f}"
               if last else " | — | —") + f" | {grow} |")


def tool(name):
    for candidate in (f"/usr/lib/llvm-19/bin/{name}", shutil.which(f"{name}-19"),
                      shutil.which(name)):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit(f"error: {name} (LLVM 19) not found")


def measure_linear_vs_tools(txc, runs, workdir, limits):
    """samples/linear: `txc compile -O2` in one process against the MLIR and
    LLVM command-line tools on the same region. The tools cannot run txc's
    tensor-level passes, so they start from txc's own LLVM-dialect IR
    (`--emit mlir-llvm`): they do less work than txc (no frontend, no
    tensor passes, no entry points), which makes their time a lower bound
    of a tool-chain compiler's."""
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "samples", "linear", "linear.json")
    llvm_mlir = os.path.join(workdir, "linear.llvm.mlir")
    subprocess.run([txc, "compile", program, "-O2", "--no-cache",
                    "--emit", "mlir-llvm", "-o", llvm_mlir], check=True)
    mlir_opt, translate, opt, llc = (tool("mlir-opt"), tool("mlir-translate"),
                                     tool("opt"), tool("llc"))
    obj = os.path.join(workdir, "tools.o")
    # One shell each, as a user would run them: the time includes the
    # process starts and the textual hand-overs. txc compiles for this
    # machine's CPU, so llc does too. txc also runs LLVM's O2 pipeline
    # before code generation; the second chain adds `opt -O2` for that.
    front = (f"'{mlir_opt}' --canonicalize '{llvm_mlir}' | "
             f"'{translate}' --mlir-to-llvmir | ")
    back = f"'{llc}' -O2 -mcpu=native -filetype=obj -relocation-model=pic -o '{obj}'"
    chains = {
        "mlir-opt | mlir-translate | llc": front + back,
        "mlir-opt | mlir-translate | opt -O2 | llc": front +
        f"'{opt}' -O2 -mcpu=native | " + back,
    }
    txc_cmd = [txc, "compile", program, "-O2", "--no-cache", "-o",
               os.path.join(workdir, "linear.o"), "--time-report=json"]
    # Interleaved, so that a change in the machine's load hits all alike.
    samples = {"txc": [], "txc-llvm-phases": []}
    samples.update({name: [] for name in chains})
    for _ in range(max(runs, 10)):
        wall, _, err = run_measured(txc_cmd, **limits)
        samples["txc"].append(wall)
        report = json.loads(err.strip().splitlines()[-1])
        flat = flatten(report["phases"], "", {})
        # The part of txc's compile that the tools repeat.
        samples["txc-llvm-phases"].append(sum(
            flat.get(k, 0.0) for k in ("translate-to-llvm-ir",
                                        "llvm-optimize", "llvm-codegen")))
        for name, cmd in chains.items():
            samples[name].append(run_measured(["/bin/sh", "-c", cmd],
                                              **limits)[0])
    return {
        "program": "samples/linear/linear.json",
        "runs": len(samples["txc"]),
        "chains": {name: cmd.replace(workdir, "$TMP")
                   for name, cmd in chains.items()},
        "median_seconds": {k: statistics.median(v) for k, v in samples.items()},
    }


def report_linear(result):
    med = result["median_seconds"]
    t = med["txc"]
    print("\n### samples/linear: in-process against the command-line tools\n")
    print(f"Median wall time of {result['runs']} interleaved runs. The tools "
          "start from txc's `--emit mlir-llvm` output (kernel only).\n")
    print("| compile | ms | / txc |")
    print("|---|---|---|")
    print(f"| `txc compile -O2`: JSON to object, whole process | {fmt_ms(t)} | 1.00 |")
    print(f"| ... of which translate-to-llvm-ir + llvm-optimize + llvm-codegen "
          f"| {fmt_ms(med['txc-llvm-phases'])} | |")
    for name in result["chains"]:
        cell = name.replace("|", "\\|")  # a literal | inside a table cell
        print(f"| `{cell}` | {fmt_ms(med[name])} | {med[name] / t:.2f} |")
    print("\nAbove 1: the tool chain is slower than txc.")


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txc", default=os.path.join(root, "build-bench",
                                                      "bin", "txc"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--opt", default="2,0",
                        help="optimization levels, comma-separated")
    parser.add_argument("--jobs", default="1",
                        help="thread counts (txc compile -j), comma-separated")
    parser.add_argument("--family", default="repeating,distinct",
                        help="program families: repeating, distinct")
    parser.add_argument("--out", default=os.path.join(root, "build-bench",
                                                      "compile_time.json"))
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds before a compile counts as failed")
    parser.add_argument("--max-memory-gib", type=float, default=8,
                        help="address-space cap of each compile (GiB)")
    parser.add_argument("--emit-program", type=int, metavar="N",
                        help="print the generated program of N ops and exit")
    args = parser.parse_args()
    if args.emit_program:
        json.dump(generate_program(args.emit_program, f"ops{args.emit_program}",
                                   args.family.split(",")[0]),
                  sys.stdout, indent=1)
        print()
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    opts = [int(s) for s in args.opt.split(",")]
    jobs = [int(s) for s in args.jobs.split(",")]
    families = args.family.split(",")
    for family in families:
        if family not in ("repeating", "distinct"):
            sys.exit(f"error: unknown family '{family}' "
                     "(valid: repeating, distinct)")
    config_list = configs(families, opts, jobs)
    txc = os.path.abspath(args.txc)
    limits = {"timeout": args.timeout,
              "max_memory": int(args.max_memory_gib * 2**30)}
    with tempfile.TemporaryDirectory(prefix="txc-ctime-") as workdir:
        data = measure_sizes(txc, sizes, config_list, args.runs, workdir,
                             limits)
        linear = measure_linear_vs_tools(txc, args.runs, workdir, limits)
    print(f"## Compile time ({os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}, {args.runs} runs each)")
    report_summary(data, sizes, config_list)
    if len(sizes) >= 2:
        report_sizes(data, sizes, config_list)
    report_linear(linear)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"sizes": sizes, "opt_levels": opts, "jobs": jobs,
                   "families": families, "runs": args.runs,
                   "load_average": os.getloadavg()[0],
                   "phases": data, "linear_vs_tools": linear}, f, indent=1,
                  sort_keys=True)


if __name__ == "__main__":
    main()
