#!/usr/bin/env python3
"""Writes the seed corpora and the dictionary of the libFuzzer harnesses.

  make_seeds.py --source SRC --out DIR --dict FILE [--txc TXC]

The seeds come from the tree, at build time:

  program      samples/**/*.json, test/**/*.json and every `#--- NAME.json`
               section of the lit tests (split-file) that is a program;
  dims         every string dimension of those programs;
  npy,         weights files written by test/lit/weights/Inputs/weights.py
  safetensors  (every dtype, rank 0 to 3, and each corruption it knows);
  manifest,    with --txc: the manifests of the samples and of the programs
  calls        of each lit test (compiled with --emit mlir), pairs of
               manifests of one test (old NUL new, for txc diff), and each
               manifest NUL its `txc testgen` calls;
  import       the `#--- NAME.txtpb` models of test/lit/import (encoded by
               protoc against Debian's onnx.proto) and the model.onnx of
               every node test of libonnx-testdata.

The dictionary has JSON's tokens, the op and attribute names of Ops.def,
the dtypes, and every property name of docs/schema/*.json.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SPLIT_SECTION = re.compile(r"^(?:#|//)--- (\S+)\s*$")
DTYPES = ["f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64", "u8", "bool"]
CORRUPTIONS = ["truncate", "header-length", "past-end", "overlap", "dtype",
               "byte-count", "not-json"]
# Enough manifests to cover the samples and a few programs of each test
# without making the build slow (each compile takes 0.05 to 0.5 s).
MAX_COMPILES_PER_TEST = 4
MAX_COMPILES = 80


def write_seed(directory, data):
    """Writes `data` under its hash, as libFuzzer names corpus files."""
    if isinstance(data, str):
        data = data.encode()
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def split_file_sections(path):
    """The `#--- NAME` sections of a lit test, as (name, text)."""
    sections, name, lines = [], None, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = SPLIT_SECTION.match(line)
            if m:
                if name:
                    sections.append((name, "".join(lines)))
                name, lines = m.group(1), []
            elif name:
                lines.append(line)
    if name:
        sections.append((name, "".join(lines)))
    return sections


def is_program(text):
    try:
        doc = json.loads(text)
    except ValueError:
        return "txc.program" in text  # a broken program: still a good seed
    return isinstance(doc, dict) and doc.get("format") == "txc.program"


def collect_programs(source):
    """(group, name, text) of every program in the tree; a group is a file."""
    programs = []
    for top in ("samples", "test"):
        for root, dirs, files in os.walk(os.path.join(source, top)):
            dirs.sort()
            for file in sorted(files):
                path = os.path.join(root, file)
                if file.endswith(".json"):
                    with open(path, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    if is_program(text):
                        programs.append((root, file, text))
                elif file.endswith(".test"):
                    for name, text in split_file_sections(path):
                        if name.endswith(".json") and is_program(text):
                            programs.append((path, name, text))
    return programs


def json_members(value):
    """Every (key, value) of every object in a JSON document."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from json_members(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_members(item)


def write_program_seeds(programs, out):
    dims = set()
    for _, _, text in programs:
        write_seed(os.path.join(out, "program"), text)
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        for key, item in json_members(doc):
            if key == "shape" and isinstance(item, list):
                dims.update(d for d in item if isinstance(d, str))
    for dim in sorted(dims):
        write_seed(os.path.join(out, "dims"), dim)


def write_weights_seeds(source, out, scratch):
    script = os.path.join(source, "test", "lit", "weights", "Inputs",
                          "weights.py")
    # weights.py needs numpy, which Debian has for the system interpreter.
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
        else sys.executable
    shapes = ["", "3", "2,3", "1,0,2"]
    jobs = []
    for i, dtype in enumerate(DTYPES):
        for j, shape in enumerate(shapes):
            spec = f"t={dtype}[{shape}]@{i * 7 + j}"
            jobs.append(("npy", [], [spec]))
        jobs.append(("safetensors", [],
                     [f"a={dtype}[2,2]@{i}", f"b.weight={dtype}[3]@{i + 1}"]))
    for kind in CORRUPTIONS:
        jobs.append(("safetensors", ["--corrupt", kind],
                     ["a=f32[2,3]@1", "b=i8[4]@2"]))
    for n, (fmt, extra, specs) in enumerate(jobs):
        path = os.path.join(scratch, f"w{n}.{fmt}")
        subprocess.run([python, script, fmt, path] + extra + specs, check=True)
        with open(path, "rb") as f:
            write_seed(os.path.join(out, fmt), f.read())


def compile_manifest(txc, group_dir, name, text, scratch):
    """The manifest txc writes for the program, or None if it is invalid."""
    work = os.path.join(scratch, hashlib.sha1(text.encode()).hexdigest())
    os.makedirs(work, exist_ok=True)
    program = os.path.join(work, name)
    with open(program, "w") as f:
        f.write(text)
    # Weights files next to a sample program are found where it lives.
    if os.path.isdir(group_dir):
        for file in os.listdir(group_dir):
            if file.endswith((".npy", ".safetensors")):
                shutil.copy(os.path.join(group_dir, file), work)
    manifest = program + ".manifest.json"
    result = subprocess.run(
        [txc, "compile", program, "-O0", "--emit", "mlir",
         "-o", program + ".mlir", "--manifest", manifest],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if result.returncode != 0:
        return None
    calls = program + ".calls.json"
    subprocess.run([txc, "testgen", manifest, "-o", calls, "--random", "3"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(manifest, "rb") as f, open(calls, "rb") as g:
        return f.read(), g.read()


def write_manifest_seeds(txc, programs, out, scratch):
    groups = {}
    for group, name, text in programs:
        groups.setdefault(group, []).append((name, text))
    compiled = 0
    for group, members in groups.items():
        manifests = []
        for name, text in members[:MAX_COMPILES_PER_TEST]:
            if compiled >= MAX_COMPILES:
                return
            compiled += 1
            result = compile_manifest(txc, group, name, text, scratch)
            if result:
                manifests.append(result)
        for manifest, calls in manifests:
            write_seed(os.path.join(out, "manifest"), manifest)
            write_seed(os.path.join(out, "calls"), manifest + b"\0" + calls)
        for (old, _), (new, _) in zip(manifests, manifests[1:]):
            write_seed(os.path.join(out, "manifest"), old + b"\0" + new)
            write_seed(os.path.join(out, "manifest"), new + b"\0" + old)


ONNX_PROTO_DIR = "/usr/include/onnx"
ONNX_NODE_TESTS = "/usr/share/libonnx-testdata/data/node"


def write_import_seeds(source, out):
    """The ONNX models of the lit tests and of ONNX's node tests."""
    directory = os.path.join(out, "import")
    lit_dir = os.path.join(source, "test", "lit", "import")
    for file in sorted(os.listdir(lit_dir)):
        if not file.endswith(".test"):
            continue
        for name, text in split_file_sections(os.path.join(lit_dir, file)):
            if not name.endswith(".txtpb"):
                continue
            encoded = subprocess.run(
                ["protoc", "--encode=onnx.ModelProto",
                 "--proto_path=" + ONNX_PROTO_DIR, "onnx.proto"],
                input=text.encode(), capture_output=True)
            if encoded.returncode == 0:
                write_seed(directory, encoded.stdout)
    if os.path.isdir(ONNX_NODE_TESTS):
        for test in sorted(os.listdir(ONNX_NODE_TESTS)):
            model = os.path.join(ONNX_NODE_TESTS, test, "model.onnx")
            if os.path.exists(model):
                with open(model, "rb") as f:
                    write_seed(directory, f.read())


def write_dictionary(source, path):
    words = set()
    with open(os.path.join(source, "include", "txc", "Program", "Ops.def")) as f:
        for m in re.finditer(r'TXC_(?:OP|UNARY|BINARY|ATTR|REGION|UNSUPPORTED)\(\s*(?:\w+,\s*)?"([^"]+)"',
                             f.read()):
            words.add(m.group(1))
    schemas = os.path.join(source, "docs", "schema")
    for file in sorted(os.listdir(schemas)):
        with open(os.path.join(schemas, file)) as f:
            for key, item in json_members(json.load(f)):
                if key == "properties" and isinstance(item, dict):
                    words.update(item.keys())
    words.update(DTYPES)
    words.update(["txc.program", "txc.manifest", "txc.calls", "pass", "fail"])
    tokens = ["{", "}", "[", "]", ":", ",", "\"", "true", "false", "null",
              "-1", "0", "1e308", "9223372036854775807", "\\u0000", "*", "+",
              "(", ")"]
    def entry(text):  # libFuzzer's dictionary syntax: "bytes", C escapes
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"\n'
    with open(path, "w") as f:
        f.writelines(entry(token) for token in tokens)
        f.writelines(entry('"' + word + '"') for word in sorted(words))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--dict", required=True)
    parser.add_argument("--txc")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    programs = collect_programs(args.source)
    write_program_seeds(programs, args.out)
    write_import_seeds(args.source, args.out)
    with tempfile.TemporaryDirectory() as scratch:
        write_weights_seeds(args.source, args.out, scratch)
        if args.txc:
            write_manifest_seeds(args.txc, programs, args.out, scratch)
    for name in ("program", "dims", "npy", "safetensors", "manifest", "calls",
                 "import"):
        os.makedirs(os.path.join(args.out, name), exist_ok=True)
    write_dictionary(args.source, args.dict)
    with open(os.path.join(args.out, "stamp"), "w") as f:
        f.write("%d programs\n" % len(programs))


if __name__ == "__main__":
    main()
