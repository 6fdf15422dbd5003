#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (draft 2020-12).

  validate.py SCHEMA valid FILE_OR_GLOB...    every file must be valid
  validate.py SCHEMA invalid FILE...          every file must be rejected
  validate.py SCHEMA mutants MANIFEST         every built-in corruption of a
                                              valid manifest must be rejected
  validate.py SCHEMA weights-mutants MANIFEST the same for a manifest with
                                              external weights

Prints one line per document ("valid: NAME" or "rejected: NAME at POINTER")
so that FileCheck can check which documents were seen and why they were
rejected. Exits 1 on the first unexpected result. Needs the jsonschema module
(Debian: python3-jsonschema).
"""
import copy
import glob
import json
import os
import sys

import jsonschema


def pointer(error):
    return "/" + "/".join(str(p) for p in error.absolute_path)


def first_error(validator, document):
    errors = list(validator.iter_errors(document))
    if not errors:
        return None
    return jsonschema.exceptions.best_match(errors)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def expand(patterns):
    files = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern)) if any(c in pattern for c in "*?[") else [pattern]
        if not matches:
            sys.exit(f"error: no file matches {pattern}")
        files.extend(matches)
    return files


def mutants(manifest):
    """Corrupted copies of a valid manifest, each breaking one rule."""
    def change(description, edit):
        m = copy.deepcopy(manifest)
        edit(m)
        return description, m

    def first_guard(m, kind):
        return next(g for g in m["guards"] if g["kind"] == kind)

    yield change("unknown top-level key", lambda m: m.update(extra=1))
    yield change("missing guards", lambda m: m.pop("guards"))
    yield change("wrong format", lambda m: m.update(format="txc.program"))
    yield change("absolute program path", lambda m: m["program"].update(file="/tmp/x.json"))
    yield change("short sha256", lambda m: m["program"].update(sha256="abc"))
    yield change("opt level 4", lambda m: m["target"].update(opt_level=4))
    yield change("abi descriptor size", lambda m: m["abi"].update(tensor_descriptor_bytes=80))
    yield change("unknown guard kind", lambda m: m["guards"][0].update(kind="shape"))
    yield change("guard code of another kind",
                 lambda m: first_guard(m, "rank").update(code=5, code_name="TXC_E_DIM"))
    yield change("dtype guard without tensor", lambda m: first_guard(m, "dtype").pop("tensor"))
    yield change("input_count guard with a dim", lambda m: first_guard(m, "input_count").update(dim=0))
    yield change("rank 9 input", lambda m: m["inputs"][0].update(shape=[1] * 9))
    yield change("unknown dtype", lambda m: m["outputs"][0].update(dtype="f8"))
    yield change("location without pointer", lambda m: m["inputs"][0]["location"].pop("pointer"))
    yield change("ten status codes", lambda m: m["status_codes"].pop())
    yield change("guard without operands", lambda m: m["guards"][0].pop("operands"))
    yield change("range guard without coefficient",
                 lambda m: first_guard(m, "symbol_range")["operands"].pop("coefficient"))
    yield change("buffer size as a number",
                 lambda m: first_guard(m, "buffer_size")["operands"].update(bytes=16))
    yield change("operands of another kind",
                 lambda m: first_guard(m, "rank").update(operands={"value": 2}))
    yield change("operands of a pointer guard",
                 lambda m: first_guard(m, "data_pointer").update(operands={"count": 1}))


def weights_mutants(manifest):
    """Corrupted copies of a valid manifest with external weights."""
    def change(description, edit):
        m = copy.deepcopy(manifest)
        edit(m)
        return description, m

    yield change("external weights without sha256",
                 lambda m: m["weights"].pop("sha256"))
    yield change("external constant with a symbol",
                 lambda m: m["constants"][0].update(symbol="__txc_p_weights_0"))
    yield change("both run entry points",
                 lambda m: m["entry_points"].update(run="p_run"))
    yield change("unknown storage",
                 lambda m: m["constants"][0].update(storage="disk"))


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in ("valid", "invalid", "mutants",
                                                "weights-mutants"):
        sys.exit(__doc__)
    schema = load(sys.argv[1])
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    mode = sys.argv[2]

    if mode in ("mutants", "weights-mutants"):
        generate = mutants if mode == "mutants" else weights_mutants
        for description, document in generate(load(sys.argv[3])):
            error = first_error(validator, document)
            if error is None:
                print(f"error: the schema accepts a manifest with: {description}")
                return 1
            print(f"rejected: {description} at {pointer(error)}")
        return 0

    for path in expand(sys.argv[3:]):
        name = os.path.basename(path)
        error = first_error(validator, load(path))
        if mode == "valid" and error is not None:
            print(f"error: {path} is not valid at {pointer(error)}: {error.message}")
            return 1
        if mode == "invalid" and error is None:
            print(f"error: the schema accepts {path}")
            return 1
        print(f"valid: {name}" if error is None else f"rejected: {name} at {pointer(error)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
