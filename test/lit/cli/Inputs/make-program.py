"""Writes a program file with a hostile name.

Usage: make-program.py OUT (--name BYTES | --long-name N) [--raw]

BYTES may hold escapes (\\x1b, \\xc2\\x9b); --long-name gives a name of N
'a's. The name is written as a JSON string (control characters as \\u
escapes), or with --raw as its bytes, unescaped, as a hostile file would
hold them (not valid JSON if they are control characters or not UTF-8).
"""
import argparse
import codecs
import json

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--name")
parser.add_argument("--long-name", type=int)
parser.add_argument("--raw", action="store_true")
args = parser.parse_args()

if args.long_name is not None:
    name = b"a" * args.long_name
else:
    name = codecs.escape_decode(args.name.encode())[0]
program = {
    "format": "txc.program",
    "version": 1,
    "name": "NAME",
    "inputs": [{"name": "X", "dtype": "f32", "shape": [2]}],
    "nodes": [{"name": "y", "op": "relu", "operands": ["X"]}],
    "outputs": ["y"],
}
text = json.dumps(program, indent=2).encode()
value = name if args.raw else json.dumps(name.decode()).encode()[1:-1]
with open(args.out, "wb") as out:
    out.write(text.replace(b"NAME", value))
