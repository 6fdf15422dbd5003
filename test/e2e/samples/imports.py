"""Compiles programs at -O0 and -O2 and checks each object's imports: `nm -u`
of the object must equal the manifest's "imports", and every import must be
in the table of docs/abi.md, "Imports".

Usage: imports.py TXC ABI_MD PROGRAM...

Prints one line per object ("<program> -O<n>: <imports>") and exits 1 on
any difference.
"""
import json
import os
import subprocess
import sys


def documented_imports(abi_md):
    """The function names of abi.md's table "| Function | Library | ...|"."""
    lines = open(abi_md, encoding="utf-8").read().splitlines()
    start = lines.index("| Function | Library | Needed for |")
    names = set()
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        names.add(line.split("|")[1].strip().strip("`"))
    return names


def undefined_symbols(obj):
    out = subprocess.run(["nm", "-u", obj], check=True, capture_output=True,
                         text=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def main():
    txc, abi_md, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    documented = documented_imports(abi_md)
    failed = False
    for program in programs:
        base = os.path.splitext(os.path.basename(program))[0]
        sample = os.path.basename(os.path.dirname(program))
        for level in ("-O0", "-O2"):
            stem = f"{sample}-{base}{level}"
            subprocess.run([txc, "compile", program, level, "-o", stem + ".o",
                            "--manifest", stem + ".json"], check=True)
            imports = undefined_symbols(stem + ".o")
            listed = json.load(open(stem + ".json")).get("imports")
            problems = []
            if listed != imports:
                problems.append(f"the manifest lists {listed}")
            unknown = [name for name in imports if name not in documented]
            if unknown:
                problems.append(f"not in docs/abi.md: {unknown}")
            print(f"{sample}/{base} {level}: {' '.join(imports)}"
                  + (f" -- {'; '.join(problems)}" if problems else ""))
            failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
