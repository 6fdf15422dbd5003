# lit configuration for txc. Test files: *.test, *.json (with RUN lines in
# a split-file header), *.c, and *.mlir (txc-opt) under test/lit and test/e2e.
import os
import stat
import lit.formats
import lit.util

config.name = "txc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".mlir"]
config.test_source_root = os.path.join(config.txc_src_root, "test")
config.test_exec_root = os.path.join(config.txc_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "unit", "lit.cfg.py",
                   "lit.site.cfg.py", "lit.site.cfg.py.in"]
# The model zoo (test/models: PyTorch exports compiled at -O2, minutes of
# compile time) is its own ctest entry: `lit --param zoo=1 test/models`.
if not lit_config.params.get("zoo"):
    config.excludes.append("models")

# The LLVM tools (FileCheck, not, split-file) and txc itself.
config.environment["PATH"] = os.pathsep.join(
    [config.txc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Deterministic, locale-independent output.
config.environment["LC_ALL"] = "C"
# The sanitizer build (TXC_SANITIZE, scripts/sanitize.sh): txc and the test
# tools run under ASan and UBSan, and a report fails the test.
if config.txc_sanitize:
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"

samples = os.path.join(config.txc_src_root, "samples")
harness = os.path.join(config.txc_src_root, "test", "e2e", "harness")
config.substitutions.append(("%txc", os.path.join(config.txc_tools_dir, "txc")))
config.substitutions.append(("%samples", samples))
config.substitutions.append(("%harness", harness))
config.substitutions.append(("%python", config.python_executable))
# Debian's numpy (python3-numpy) imports only under the system interpreter;
# the tests that write and check .npy files use it.
config.substitutions.append(("%numpy", "/usr/bin/python3"))
# ONNX models of the import tests are written as protobuf text in the test
# and encoded with protoc against Debian's onnx.proto (libonnx-dev).
config.substitutions.append(
    ("%onnx-encode", "protoc --encode=onnx.ModelProto "
                     "--proto_path=/usr/include/onnx onnx.proto"))
config.substitutions.append(
    ("%cc", config.c_compiler + " -std=c99 -Wall -Wextra -Werror -pedantic"))
# The C++ API (--header-cxx) is C++17 and needs no exceptions.
config.substitutions.append(
    ("%cxx", config.cxx_compiler + " -std=c++17 -Wall -Wextra -Werror -pedantic"))
config.substitutions.append(
    ("%runtime", os.path.join(config.txc_src_root, "runtime")))
config.substitutions.append(
    ("%asan", "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"))
config.substitutions.append(
    ("%expect-exit", "sh " + os.path.join(config.txc_src_root, "test", "lit",
                                          "Inputs", "expect-exit.sh")))
config.substitutions.append(
    ("%read-fifo", "sh " + os.path.join(config.txc_src_root, "test", "lit",
                                        "Inputs", "read-fifo.sh")))

# Tests of writing to /dev/null itself need it to be the character device: a
# machine or container where something else already replaced it with a
# regular file cannot show that txc leaves it alone (the same tests run on
# /dev/zero, which is written in place by the same rule, everywhere).
try:
    if stat.S_ISCHR(os.stat('/dev/null').st_mode):
        config.available_features.add('dev-null-is-a-device')
except OSError:
    pass

# util-linux's script(1) runs a command on a pseudo-terminal: the tests of
# what txc prints only on a terminal (the status line) need it.
import shutil
if shutil.which("script"):
    config.available_features.add("script")

# ThreadSanitizer (test/e2e/threads.test): clang-19's, when it links and runs
# a program on this machine (some kernels' memory layouts make TSan refuse
# to start); the tests that need it are skipped otherwise.
import subprocess
import tempfile
def _tsan_works(compiler):
    if not shutil.which(compiler):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "t.c")
        binary = os.path.join(tmp, "t")
        with open(source, "w") as f:
            f.write("int main(void) { return 0; }\n")
        try:
            subprocess.run([compiler, "-fsanitize=thread", source, "-o", binary],
                           check=True, capture_output=True, timeout=60)
            subprocess.run([binary], check=True, capture_output=True, timeout=60)
        except (subprocess.SubprocessError, OSError):
            return False
    return True
if _tsan_works("clang-19"):
    config.available_features.add("tsan")
    config.substitutions.append(
        ("%tsan-cc", "clang-19 -std=c99 -Wall -Wextra -Werror -pedantic "
                     "-fsanitize=thread -g"))
