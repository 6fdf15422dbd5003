#!/usr/bin/env python3
"""Compiles each program twice under different conditions and compares the
object, header and manifest byte for byte.

  compile-twice.py TXC WORK PROGRAM...

Each program's directory (the program and its weights files) is copied to
two places. The first compile runs in WORK/a with a relative path, the C
locale and a short TMPDIR; the second in a deep directory elsewhere with
the absolute path, another locale, time zone, HOME, TMPDIR and
SOURCE_DATE_EPOCH, and glibc's allocator tuned differently (no tcache,
allocated and freed memory scribbled over) under `setarch -R`
(no address space randomization, where the kernel allows it), so that
pointers, and so the iteration order of pointer-keyed hash maps, differ
from the first compile's. Debian's LLVM has no reverse iteration
(LLVM_ENABLE_REVERSE_ITERATION is off, so there is no -reverse-iterate
option); different heap layouts are the substitute.

Prints "same: NAME" per program; on a difference "DIFFERENT: NAME FILE
(first at byte N)" and exits 1.
"""
import os
import shutil
import subprocess
import sys


def copy_program(program, directory):
    os.makedirs(directory)
    source = os.path.dirname(os.path.abspath(program))
    for file in os.listdir(source):
        if file.endswith((".json", ".npy", ".safetensors")):
            shutil.copy(os.path.join(source, file), directory)
    return os.path.join(directory, os.path.basename(program))


def compile_program(txc, program, cwd, env, prefix=()):
    name = os.path.splitext(os.path.basename(program))[0]
    command = list(prefix) + [
        txc, "compile", program, "-o", name + ".o", "--header", name + ".h",
        "--manifest", name + ".manifest.json"]
    subprocess.run(command, cwd=cwd, env=env, check=True)
    return [os.path.join(cwd, name + ext)
            for ext in (".o", ".h", ".manifest.json")]


def first_difference(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        x, y = f.read(), g.read()
    if x == y:
        return None
    return next((i for i, (p, q) in enumerate(zip(x, y)) if p != q),
                min(len(x), len(y)))


def setarch_prefix():
    """`setarch -R` when this kernel lets the process change personality."""
    prefix = ["setarch", os.uname().machine, "-R"]
    try:
        subprocess.run(prefix + ["true"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return prefix
    except (OSError, subprocess.CalledProcessError):
        return []


def main():
    txc, work, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    base_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if var in os.environ:
            base_env[var] = os.environ[var]
    first_tmp = os.path.join(work, "t")
    second_tmp = os.path.join(work, "another", "temporary", "directory")
    os.makedirs(first_tmp)
    os.makedirs(second_tmp)
    first_env = dict(base_env, LC_ALL="C", TMPDIR=first_tmp, TZ="UTC",
                     HOME=work)
    second_env = dict(base_env, LC_ALL="C.UTF-8", LANG="C.UTF-8",
                      TMPDIR=second_tmp, TZ="Asia/Tokyo", HOME="/nonexistent",
                      SOURCE_DATE_EPOCH="1",
                      GLIBC_TUNABLES="glibc.malloc.tcache_count=0:"
                                     "glibc.malloc.perturb=165")
    prefix = setarch_prefix()
    status = 0
    for n, program in enumerate(programs):
        name = os.path.basename(program)
        a = copy_program(program, os.path.join(work, "a", str(n)))
        b = copy_program(program, os.path.join(work, "b", "c", "d", str(n)))
        first = compile_program(txc, os.path.relpath(a, os.path.dirname(a)),
                                os.path.dirname(a), first_env)
        second = compile_program(txc, b, os.path.dirname(b), second_env, prefix)
        different = [(os.path.basename(x), first_difference(x, y))
                     for x, y in zip(first, second)
                     if first_difference(x, y) is not None]
        for file, offset in different:
            print(f"DIFFERENT: {name} {file} (first at byte {offset})")
            status = 1
        if not different:
            print(f"same: {name}")
    return status


if __name__ == "__main__":
    sys.exit(main())
