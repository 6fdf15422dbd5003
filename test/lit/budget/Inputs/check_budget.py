"""Checks a txc budget report: the documented fields, totals that are the
sums of their parts, N* from C, E and R, the LRU counts against a
re-simulation of the workload, and that the text report (same run, through
--report-json) holds the same numbers. The figures are measurements: only
their structure and consistency are checked (docs/cli.md, "txc budget").

Usage: check_budget.py REPORT.json REPORT.txt [--variants SYM=V,...]
"""
import json
import math
import re
import sys


def fail(message):
    print("check_budget: " + message, file=sys.stderr)
    sys.exit(1)


def close(a, b, what, tolerance=1e-9):
    if abs(a - b) > tolerance * max(1.0, abs(a), abs(b)):
        fail("%s: %r != %r" % (what, a, b))


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def require(obj, keys, where):
    for key in keys:
        if key not in obj:
            fail("%s has no '%s'" % (where, key))


def calls_per_shape(report):
    counts = [0] * report["workload"]["distinct_shapes"]
    for shape, count in report["workload"]["runs"]:
        counts[shape] += count
    return counts


def simulate_lru(runs, capacity):
    order, hits, misses, second = [], 0, 0, None
    call = 0
    for shape, count in runs:
        if shape in order:
            order.remove(shape)
            hits += count
        else:
            if misses == 1:
                second = call
            misses += 1
            hits += count - 1
            if len(order) == capacity:
                order.pop()
        order.insert(0, shape)
        call += count
    return hits, misses, second


def check_fields(report):
    require(report, ["format", "version", "program", "options", "workload",
                     "artifacts", "shapes", "strategies"], "the report")
    if report["format"] != "txc.budget" or report["version"] != 1:
        fail("format/version")
    require(report["workload"], ["source", "calls", "distinct_shapes", "runs"],
            "workload")
    for artifact in report["artifacts"]:
        require(artifact, ["name", "capture_ms", "compile_ms", "load_ms",
                           "capture_phases", "compile_phases"], "an artifact")
        names = [p["name"] for p in artifact["compile_phases"]]
        for phase in ["mlirgen", "mlir-pipeline", "llvm-optimize",
                      "llvm-codegen"]:
            if phase not in names:
                fail("%s: no compile phase %s in %s" %
                     (artifact["name"], phase, names))
        capture = artifact["capture_phases"]
        if [p["name"] for p in capture] != ["frontend"] or \
                [p["name"] for p in capture[0]["phases"]][:3] != \
                ["parse", "verify", "contract"]:
            fail("%s: capture phases %s" % (artifact["name"], capture))
    for shape in report["shapes"]:
        require(shape, ["bindings", "calls", "eager_ms", "generic_ms",
                        "own_artifact_ms"], "a shape")


def check_workload(report):
    counts = calls_per_shape(report)
    if sum(counts) != report["workload"]["calls"]:
        fail("the runs do not add up to the calls")
    if [s["calls"] for s in report["shapes"]] != counts:
        fail("calls per shape differ from the runs")
    if len(report["shapes"]) != report["workload"]["distinct_shapes"]:
        fail("one entry per distinct shape")


def run_sum(report, per_call):
    return sum(s["calls"] * per_call(s) for s in report["shapes"])


def check_strategy_sums(report, strategies):
    for s in strategies.values():
        require(s, ["compiles", "capture_ms", "compile_ms", "load_ms",
                    "run_ms", "total_ms"], s["name"])
        close(s["total_ms"], s["capture_ms"] + s["compile_ms"] + s["load_ms"]
              + s["run_ms"], s["name"] + " total")
    eager = strategies["eager"]
    close(eager["run_ms"], run_sum(report, lambda s: s["eager_ms"]),
          "eager run")
    if eager["capture_ms"] or eager["compile_ms"] or eager["load_ms"]:
        fail("eager compiles nothing")
    close(strategies["generic"]["run_ms"],
          run_sum(report, lambda s: s["generic_ms"]), "generic run")
    own = run_sum(report, lambda s: s["own_artifact_ms"]
                  if s["own_artifact_ms"] is not None else s["generic_ms"])
    close(strategies["per-shape-lru"]["run_ms"], own, "per-shape run")
    if "specialized" in strategies:
        close(strategies["specialized"]["run_ms"],
              run_sum(report, lambda s: s["specialized_ms"]),
              "specialized run")


def check_artifact_costs(report, strategies):
    artifacts = {a["name"]: a for a in report["artifacts"]}
    for name in ["generic", "specialized"]:
        if name not in strategies:
            continue
        s, a = strategies[name], artifacts[name]
        if s["compiles"] != 1:
            fail(name + " compiles once")
        for part in ["capture_ms", "compile_ms", "load_ms"]:
            close(s[part], a[part], name + " " + part)
    lru = strategies["per-shape-lru"]
    sampled = [a for a in report["artifacts"] if a["name"].startswith("shape ")]
    if lru["sampled_compiles"] != len(sampled) or not sampled:
        fail("sampled compiles")
    for part in ["capture_ms", "compile_ms", "load_ms"]:
        per_miss = median([a[part] for a in sampled])
        close(lru[part + "_per_miss"].__float__(), per_miss, part + " per miss")
        close(lru[part], lru["misses"] * per_miss, "per-shape " + part)
    measured = [s for s in report["shapes"] if s["own_artifact_ms"] is not None]
    if len(measured) != len(sampled):
        fail("one own-artifact call per sampled compile")
    stand_in = sum(s["calls"] for s in report["shapes"]
                   if s["own_artifact_ms"] is None)
    if lru["calls_run_by_generic_stand_in"] != stand_in:
        fail("calls run by the generic stand-in")


def check_lru(report, lru):
    calls = report["workload"]["calls"]
    if lru["hits"] + lru["misses"] != calls:
        fail("hits + misses != calls")
    if lru["compiles"] != lru["misses"]:
        fail("one compile per miss")
    hits, misses, second = simulate_lru(report["workload"]["runs"],
                                        lru["capacity"])
    if (hits, misses, second) != (lru["hits"], lru["misses"],
                                  lru["second_compile_after_calls"]):
        fail("LRU %s != re-simulated %s" % (
            (lru["hits"], lru["misses"], lru["second_compile_after_calls"]),
            (hits, misses, second)))
    close(lru["hit_rate"], hits / calls, "hit rate")


def check_break_even(report, strategies):
    calls = report["workload"]["calls"]
    eager = strategies["eager"]["total_ms"]
    for name, s in strategies.items():
        if name == "eager":
            continue
        c = s["capture_ms"] + s["compile_ms"] + s["load_ms"]
        e, r = eager / calls, s["run_ms"] / calls
        expected = math.ceil(c / (e - r)) if e > r else None
        if s["break_even_calls"] != expected:
            fail("%s: N* %s, C/(E-R) gives %s" %
                 (name, s["break_even_calls"], expected))
        close(s["saving_ms"], eager - s["total_ms"], name + " saving")
        if s["loses"] != (s["total_ms"] > eager):
            fail(name + ": loses")
        if s["verdict"].startswith("staging loses") != s["loses"]:
            fail(name + ": the verdict says otherwise: " + s["verdict"])


def check_variants(report, strategies, variants):
    if "specialized" not in strategies:
        return
    per_variant = {}
    for s in report["shapes"]:
        bound = ",".join("%s=%d" % kv for kv in s["bindings"].items())
        expected = variants.index(bound) + 1 if bound in variants else 0
        if s["specialized_variant"] != expected:
            fail("shape %s ran variant %d, not %d" %
                 (bound, s["specialized_variant"], expected))
        key = str(expected)
        per_variant[key] = per_variant.get(key, 0) + s["calls"]
    if strategies["specialized"]["calls_per_variant"] != per_variant:
        fail("calls per variant")


def check_text(report, text):
    """The text report holds the JSON report's figures (rounded)."""
    lines = text.splitlines()
    start = [i for i, l in enumerate(lines) if l.startswith("Calls, median")]
    middle = [i for i, l in enumerate(lines) if l.startswith("Strategies over")]
    if len(start) != 1 or len(middle) != 1:
        fail("text: the tables of calls and strategies")
    shape_lines = lines[start[0]:middle[0]]
    lines = lines[middle[0]:]
    for s in report["strategies"]:
        row = [l for l in lines if re.match(r"  %s\s" % re.escape(s["name"]), l)]
        if len(row) != 1:
            fail("text: no row for " + s["name"])
        got = row[0].split()
        want = [s["compiles"], s["capture_ms"], s["compile_ms"], s["load_ms"],
                s["run_ms"], s["total_ms"]]
        for g, w in zip(got[1:7], want):
            if abs(float(g) - w) > 0.0005 + 1e-9 * abs(w):
                fail("text: %s: %s != %s" % (s["name"], g, w))
        n_star = s.get("break_even_calls")
        shown = got[7]
        if (n_star is None and shown not in ("never", "-")) or \
                (n_star is not None and shown != str(n_star)):
            fail("text: %s N* %s != %s" % (s["name"], shown, n_star))
        if "verdict" in s and "%s: %s" % (s["name"], s["verdict"]) not in text:
            fail("text: no verdict for " + s["name"])
    for s in report["shapes"]:
        bound = ",".join("%s=%d" % kv for kv in s["bindings"].items()) or \
            "(none)"
        row = [l for l in shape_lines if l.startswith("  %s " % bound)]
        if len(row) != 1:
            fail("text: no row for shape " + bound)
        got = row[0].split()
        for g, w in [(got[1], s["calls"]), (got[2], s["eager_ms"] * 1000),
                     (got[3], s["generic_ms"] * 1000)]:
            if abs(float(g) - w) > 0.0005 + 1e-9 * abs(w):
                fail("text: shape %s: %s != %s" % (bound, g, w))
    lru = [s for s in report["strategies"] if s["name"] == "per-shape-lru"][0]
    summary = "hits %d, misses %d, hit rate %.2f%%" % (
        lru["hits"], lru["misses"], lru["hit_rate"] * 100)
    if summary not in text:
        fail("text: no '%s'" % summary)


def main():
    report = json.load(open(sys.argv[1]))
    text = open(sys.argv[2]).read()
    variants = []
    if len(sys.argv) > 4 and sys.argv[3] == "--variants":
        variants = sys.argv[4].split(";")
    check_fields(report)
    check_workload(report)
    strategies = {s["name"]: s for s in report["strategies"]}
    for name in ["eager", "generic", "per-shape-lru"]:
        if name not in strategies:
            fail("no strategy " + name)
    if bool(variants) != ("specialized" in strategies):
        fail("a specialized strategy exactly with --specialize")
    check_strategy_sums(report, strategies)
    check_artifact_costs(report, strategies)
    check_lru(report, strategies["per-shape-lru"])
    check_break_even(report, strategies)
    check_variants(report, strategies, variants)
    check_text(report, text)
    print("check_budget: ok: %d calls, %d shapes, %d strategies" % (
        report["workload"]["calls"], len(report["shapes"]),
        len(report["strategies"])))


main()
