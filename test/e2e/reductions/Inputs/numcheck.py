"""Numeric end-to-end checks of compiled txc programs against numpy.

A test (a *.test file that is also a Python script) builds programs as JSON
dicts and calls Checker.check with symbol bindings and a numpy reference.
For each program the checker compiles it with txc, links the object into
harness.c (built with AddressSanitizer and UBSan), and for each binding
generates inputs, runs the harness and compares every output's dtype, shape
and values with the reference. It insists that the bindings cover every
symbol's minimum and maximum. Prints one line per case and a summary; exits
non-zero on any failure.

Needs numpy: run with /usr/bin/python3.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

import numpy as np

# dtype name -> (ABI code, numpy dtype); bf16 is carried as its raw uint16 bits.
DTYPES = {
    "f32": (1, np.float32), "f64": (2, np.float64), "f16": (3, np.float16),
    "bf16": (4, np.uint16), "i8": (5, np.int8), "i16": (6, np.int16),
    "i32": (7, np.int32), "i64": (8, np.int64), "u8": (9, np.uint8),
    "bool": (10, np.bool_),
}
CODES = {code: name for name, (code, _) in DTYPES.items()}

# Default (rtol, atol) of float outputs against a float64 reference rounded
# to the output dtype.
TOLERANCE = {"f64": (1e-12, 1e-12), "f32": (2e-5, 2e-5), "f16": (2e-3, 1e-3)}


def np_dtype(name):
    return DTYPES[name][1]


def evaluate_dim(dim, binding):
    if isinstance(dim, int):
        return dim
    return int(eval(dim, {"__builtins__": {}}, dict(binding)))


def default_input(rng, dtype, shape):
    """Floats in [-2, 2) (exact in the dtype), small integers."""
    if dtype in ("f32", "f64", "f16"):
        return rng.uniform(-2, 2, size=shape).astype(np_dtype(dtype))
    if dtype == "u8":
        return rng.integers(0, 100, size=shape).astype(np.uint8)
    return rng.integers(-50, 51, size=shape).astype(np_dtype(dtype))


class Checker:
    def __init__(self):
        parser = argparse.ArgumentParser()
        parser.add_argument("--txc", required=True)
        parser.add_argument("--cc", required=True,
                            help="C compiler command with flags")
        parser.add_argument("--harness", required=True)
        parser.add_argument("--work", required=True)
        args = parser.parse_args()
        self.txc, self.harness, self.work = args.txc, args.harness, args.work
        self.cc = shlex.split(args.cc)
        self.cases = 0
        self.failures = 0
        os.makedirs(self.work, exist_ok=True)

    # --- building -------------------------------------------------------

    def build(self, name, program, opt):
        directory = os.path.join(self.work, name + opt)
        os.makedirs(directory, exist_ok=True)
        source = os.path.join(directory, "prog.json")
        with open(source, "w") as f:
            json.dump(program, f, indent=1)
        obj = os.path.join(directory, "k.o")
        subprocess.run([self.txc, "compile", source, opt, "--entry-prefix",
                        "k", "-o", obj, "--header",
                        os.path.join(directory, "k.h")], check=True)
        # The harness depends on the header only through the input and
        # output counts; compile it once per pair of counts.
        counts = (len(program["inputs"]), len(program["outputs"]))
        harness = os.path.join(self.work, "harness-%d-%d.o" % counts)
        if not os.path.exists(harness):
            subprocess.run(self.cc + ["-I", directory, "-c", self.harness,
                                      "-o", harness], check=True)
        exe = os.path.join(directory, "harness")
        subprocess.run(self.cc + [harness, obj, "-o", exe, "-lm"], check=True)
        return directory, exe

    # --- one run --------------------------------------------------------

    def run(self, directory, exe, program, inputs):
        spec = [str(len(program["inputs"]))]
        for i, decl in enumerate(program["inputs"]):
            # ascontiguousarray would make a rank-0 array rank 1.
            array = np.array(inputs[decl["name"]], order="C", copy=True)
            path = os.path.join(directory, "in%d.bin" % i)
            array.tofile(path)
            spec.append(" ".join([str(DTYPES[decl["dtype"]][0]),
                                  str(array.ndim)] +
                                 [str(d) for d in array.shape] + [path]))
        spec.append(str(len(program["outputs"])))
        paths = [os.path.join(directory, "out%d.bin" % o)
                 for o in range(len(program["outputs"]))]
        spec.extend(paths)
        spec_path = os.path.join(directory, "spec.txt")
        with open(spec_path, "w") as f:
            f.write("\n".join(spec) + "\n")
        result = subprocess.run([exe, spec_path], capture_output=True,
                                text=True)
        if result.returncode != 0:
            raise RuntimeError("harness failed (%d): %s" %
                               (result.returncode, result.stderr.strip()))
        outputs = []
        for line, path in zip(result.stdout.splitlines(), paths):
            words = line.split()
            dtype = CODES[int(words[3])]
            rank = int(words[5])
            shape = tuple(int(d) for d in words[7:7 + rank])
            outputs.append(np.fromfile(path, dtype=np_dtype(dtype))
                           .reshape(shape))
        return outputs

    # --- comparison -----------------------------------------------------

    @staticmethod
    def compare(actual, expected, tolerance):
        """Returns None when they agree, else a description."""
        if actual.dtype != expected.dtype:
            return "dtype %s, expected %s" % (actual.dtype, expected.dtype)
        if actual.shape != expected.shape:
            return "shape %s, expected %s" % (actual.shape, expected.shape)
        if actual.dtype.kind != "f":
            bad = actual != expected
        else:
            rtol, atol = tolerance
            a = actual.astype(np.float64)
            e = expected.astype(np.float64)
            bad = ~np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        if not bad.any():
            return None
        where = np.argwhere(bad)[:3]
        details = ", ".join("at %s: %r vs %r" % (tuple(int(i) for i in w),
                                                 actual[tuple(w)].item(),
                                                 expected[tuple(w)].item())
                            for w in where)
        return "%d of %d elements differ (%s)" % (bad.sum(), bad.size, details)

    # --- the entry point for tests --------------------------------------

    def check(self, name, program, bindings, reference, make_inputs=None,
              tolerance=None, opts=("-O2",), seed=1, split_outputs=True):
        """Compiles `program` at each optimization level of `opts` and, for
        each binding of the symbols, checks reference(**inputs) (a list of
        arrays, one per output) against the compiled object.

        With split_outputs, each output is compiled as a program of its own
        (same nodes and inputs): txc at -O1 and above cannot yet compile
        programs whose outputs share a CSE'd tensor.empty (bufferization
        reports a RaW conflict)."""
        if split_outputs and len(program["outputs"]) > 1:
            for o, output in enumerate(program["outputs"]):
                single = dict(program, outputs=[output])
                self.check("%s__%s" % (name, output_name(output)), single,
                           bindings,
                           lambda o=o, **inputs: [reference(**inputs)[o]],
                           make_inputs, tolerance, opts, seed, False)
            return
        program = dict(program)
        program.setdefault("format", "txc.program")
        program.setdefault("version", 1)
        program.setdefault("name", name)
        for symbol in program.get("symbols", []):
            values = {b[symbol["name"]] for b in bindings}
            if symbol["min"] not in values or symbol["max"] not in values:
                raise SystemExit("%s: the bindings must include the min and "
                                 "max of symbol %s" % (name, symbol["name"]))
        for opt in opts:
            directory, exe = self.build(name, program, opt)
            for binding in bindings:
                rng = np.random.default_rng(seed)
                inputs = {}
                for decl in program["inputs"]:
                    shape = tuple(evaluate_dim(d, binding)
                                  for d in decl["shape"])
                    make = make_inputs or default_input
                    inputs[decl["name"]] = np.asarray(
                        make(rng, decl["dtype"], shape)).astype(
                            np_dtype(decl["dtype"]))
                label = "%s %s %s" % (name, opt, " ".join(
                    "%s=%d" % kv for kv in sorted(binding.items())))
                self.cases += 1
                try:
                    actual = self.run(directory, exe, program, inputs)
                    expected = reference(**inputs)
                    problems = []
                    for o, (a, e) in enumerate(zip(actual, expected)):
                        e = np.asarray(e)
                        tol = tolerance or TOLERANCE.get(
                            {np.float64: "f64", np.float32: "f32",
                             np.float16: "f16"}.get(e.dtype.type), (0, 0))
                        problem = self.compare(a, e, tol)
                        if problem:
                            problems.append("output %s: %s" % (
                                program["outputs"][o], problem))
                    if len(actual) != len(expected):
                        problems.append("%d outputs, expected %d" %
                                        (len(actual), len(expected)))
                except (RuntimeError, ValueError) as error:
                    problems = [str(error)]
                if problems:
                    self.failures += 1
                    print("%s FAILED: %s" % (label, "; ".join(problems)))
                else:
                    print("%s ok" % label)
        sys.stdout.flush()

    def finish(self):
        print("%d cases, %d failed" % (self.cases, self.failures))
        sys.exit(1 if self.failures else 0)


def output_name(output):
    return output if isinstance(output, str) else output["name"]
