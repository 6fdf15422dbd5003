//===- EmulatedRunner.h - Objects of another machine, under qemu -*- C++ -*-===//
//
// Runs an object compiled for another architecture (or for a CPU this
// machine does not have) the way its users will: linked by that target's C
// compiler into a program with a call harness, and run under an emulator
// (qemu-user: `qemu-aarch64 -L /usr/aarch64-linux-gnu`, or `qemu-x86_64
// -cpu MODEL`). The harness (EmulatedRunner.cpp) does what the in-process
// runner (txc/JIT/Jit.h) does for each call: <p>_output_shapes, <p>_run
// into buffers with guard bytes on both sides, <p>_error_message, the
// checks that inputs and guard bytes are unchanged; the calls of one object
// run in one process, their tensors passed through files.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TESTING_EMULATEDRUNNER_H
#define TXC_TESTING_EMULATEDRUNNER_H

#include "txc/Analysis/Contract.h"
#include "txc/Interp/Interpreter.h"
#include "txc/Interp/Tensor.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace txc {

/// How to link and run objects of a target.
struct EmulatorOptions {
  /// The target's C compiler driver, e.g. aarch64-linux-gnu-gcc.
  std::string cc;
  /// The emulator's command line, e.g. {"qemu-aarch64", "-L",
  /// "/usr/aarch64-linux-gnu"}; empty runs the program directly.
  std::vector<std::string> emulator;
};

/// Debian's cross gcc and qemu-user for `triple` (gcc-aarch64-linux-gnu,
/// qemu-user): `<arch>-linux-gnu-gcc` and `qemu-<arch> -L /usr/<arch>-
/// linux-gnu`; for this machine's architecture, `cc` and no emulator.
EmulatorOptions defaultEmulatorOptions(llvm::StringRef triple);

class EmulatedProgram;

class EmulatedRunner {
public:
  /// Finds the compiler and emulator and compiles the harness once.
  static llvm::Expected<std::unique_ptr<EmulatedRunner>>
  create(EmulatorOptions options);
  ~EmulatedRunner();

  /// Links `object` (compiled from the program of `contract`) with the
  /// harness. `name` names it in errors.
  llvm::Expected<std::unique_ptr<EmulatedProgram>>
  load(llvm::StringRef object, const Contract &contract, llvm::StringRef name);

private:
  friend class EmulatedProgram;
  EmulatedRunner() = default;
  /// Runs `program` with its arguments, standard input and output from and
  /// to files; an error unless it exits with 0.
  llvm::Error execute(llvm::ArrayRef<std::string> command,
                      llvm::StringRef stdinPath, llvm::StringRef stdoutPath);

  EmulatorOptions options;
  std::string directory; ///< temporary; removed by the destructor
  std::string harnessObject;
  unsigned loaded = 0;
};

/// One linked program. The results are what CompiledProgram::run gives.
class EmulatedProgram {
public:
  /// Calls the object once per input set, all in one emulated process.
  /// An error is a failure of the whole run (the process crashed or could
  /// not start); a call's own failure (a buffer overrun) is its element's.
  llvm::Expected<std::vector<llvm::Expected<ExecutionResult>>>
  runAll(llvm::ArrayRef<std::vector<Tensor>> inputSets) const;

private:
  friend class EmulatedRunner;
  EmulatedProgram(EmulatedRunner &runner, std::string executable,
                  Contract contract)
      : runner(runner), executable(std::move(executable)),
        contract(std::move(contract)) {}

  EmulatedRunner &runner;
  std::string executable;
  Contract contract;
};

} // namespace txc

#endif
