"""Runs the sample drivers compiled for another target under an emulator
and compares what they dump with the reference interpreter.

Usage: samples.py TXC SAMPLES TRIPLE CC EMULATOR... [-- TXC FLAGS...]

For each sample (mlp, attention, cnn, branch) and each size of the table
below (the symbol's minimum, an odd size, its maximum): `txc compile
--target TRIPLE`, link the sample's main.c with CC, run it under the
emulator with --dump, run `txc run --eager` on the inputs it dumped, and
compare the outputs with test/e2e/samples/compare.py's tolerances. Prints
one line per output, "SAMPLE SIZE DIR: NAME: ok ...", and the driver's
guard demonstration ("SAMPLE SIZE: rejects: ..."); exits 1 on a mismatch.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "samples"))
import compare  # noqa: E402

# sample: (input name, sizes, outputs, output directories of one run)
SAMPLES = {
    "mlp": ("X", [1, 3, 1024], ["Y"], [""]),
    "attention": ("X", [1, 6, 512], ["Y"], [""]),
    "cnn": ("X", [1, 5, 64], ["logits"], [""]),
    "branch": ("X", [1, 3, 256], ["Y", "took_then"], ["then", "else"]),
}


def run(command, **kwargs):
    return subprocess.run(command, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True, **kwargs).stdout


def test_sample(txc, samples, triple, cc, emulator, flags, name):
    input_name, sizes, outputs, subdirs = SAMPLES[name]
    source = os.path.join(samples, name)
    run([txc, "compile", os.path.join(source, name + ".json"), "--target",
         triple, "-o", name + ".o", "--header", name + ".h"] + flags)
    runtime = os.path.join(os.path.dirname(samples), "runtime")
    run([cc, "-std=c99", "-O1", "-I.", "-I" + os.path.join(samples, "common"),
         "-I" + runtime, os.path.join(source, "main.c"), name + ".o", "-o",
         name, "-lm", "-pthread"])
    failed = False
    for size in sizes:
        dump = "%s-%d" % (name, size)
        # The drivers write into existing directories only.
        for sub in subdirs:
            os.makedirs(os.path.join(dump, sub), exist_ok=True)
        printed = run(emulator + ["./" + name, str(size), "--dump", dump])
        rejects = [line for line in printed.splitlines() if "[guard" in line]
        print("%s %d: rejects: %s" % (name, size, rejects[-1].strip()))
        for sub in subdirs:
            directory = os.path.join(dump, sub)
            reference = os.path.join(directory, "ref")
            run([txc, "run", os.path.join(source, name + ".json"), "--eager",
                 "--input", "%s=%s/%s.npy" % (input_name, directory,
                                              input_name),
                 "--output-dir", reference])
            for output in outputs:
                line = compare.compare(
                    output, np.load(os.path.join(directory, output + ".npy")),
                    np.load(os.path.join(reference, output + ".npy")))
                print("%s %d %s: %s" % (name, size, sub or "-", line))
                failed = failed or "MISMATCH" in line
    return failed


def main():
    args = sys.argv[1:]
    flags = []
    if "--" in args:
        flags = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if len(args) < 4:
        sys.exit(__doc__)
    txc, samples, triple, cc = args[:4]
    emulator = args[4:]
    failed = False
    for name in SAMPLES:
        failed = test_sample(txc, samples, triple, cc, emulator, flags,
                             name) or failed
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
