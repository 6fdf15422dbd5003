//===- DiffTest.h - The interpreter against compiled code -------*- C++ -*-===//
//
// Differential testing of the compiler: runs a program with the reference
// interpreter and with the object `txc compile` emits (loaded in process,
// or for another target linked and run under an emulator),
// on the same inputs, at several optimization levels, and compares every
// output within the tolerances of Tolerance.h. When either side reports a
// status instead of outputs (a guard, or a runtime check such as an index
// out of range), both must report the same status code, guard and message.
//
// One DiffTester compiles with one MLIRContext and loads into one LLJIT for
// all the programs it tests; each program is compiled once per level and
// interpreted once per input set.
//
// It prints one line per (program, inputs, level, output):
//
//   linear B=1 (min) -O0 Y: ok f32[1,3] max_abs=0 max_rel=0
//   linear B=7 (random) -O2 Y: MISMATCH f32[7,3] max_abs=0.5 max_rel=0.1 \
//       3 of 21 elements differ, first at [2,1]: interpreter 1.5, compiled 2
//   linear X=x.npy,... -O2: ok, both report status 5 (TXC_E_DIM) at guard 8
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TESTING_DIFFTEST_H
#define TXC_TESTING_DIFFTEST_H

#include "txc/Driver/Compiler.h"
#include "txc/Interp/Tensor.h"
#include "txc/JIT/Jit.h"
#include "txc/Testing/EmulatedRunner.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace txc {

struct DiffTestOptions {
  std::vector<unsigned> optLevels = {0, 2};
  uint64_t seed = 1;
  /// Bound on programBytes for the generated symbol values.
  int64_t maxBytes = int64_t(16) << 20;
  /// Explicit symbol value sets ("B=5,S=3"); replace min/max/random.
  std::vector<std::string> symbolSets;
  /// NAME=FILE.npy for every input; replaces generated inputs (one run).
  std::vector<std::string> inputFiles;
  /// txc compile's --specialize: the objects hold these variants too, and
  /// each call runs the code `<p>_run` dispatches it to.
  std::vector<std::string> specializations;
  /// The objects also hold one variant per chosen value set but the first,
  /// binding the program's first symbol to its value there: the calls at
  /// those sets run a variant, the first the generic code (txc-fuzz
  /// --specialize-chosen).
  bool specializeChosen = false;
  /// What the objects are compiled for (txc compile's --target, --cpu,
  /// --features; empty: its defaults).
  std::string triple, cpu, features;
  /// Objects are linked with `emulator.cc` and run under
  /// `emulator.emulator` (EmulatedRunner.h) instead of in process: for
  /// another architecture, or a CPU this machine may not have.
  bool emulate = false;
  EmulatorOptions emulator;
};

struct DiffTestSummary {
  unsigned runs = 0;        ///< (inputs, level) pairs run
  unsigned comparisons = 0; ///< outputs or statuses compared
  unsigned mismatches = 0;
  double seconds = 0;
};

class DiffTester {
public:
  /// The result of each call of one compiled object.
  using Outcomes = std::vector<llvm::Expected<ExecutionResult>>;

  /// Lines go to `out`.
  static llvm::Expected<std::unique_ptr<DiffTester>>
  create(llvm::raw_ostream &out);

  /// Tests one program file. Returns false if it could not be tested: it
  /// does not verify or compile, a file is unreadable (the reason is in
  /// `diags`, which should be fresh: the frontend stops at earlier errors).
  /// Mismatches are counted in the summary.
  bool testProgram(llvm::StringRef path, const DiffTestOptions &options,
                   DiffTestSummary &summary, DiagnosticEngine &diags);

private:
  explicit DiffTester(llvm::raw_ostream &out) : out(out) {}

  /// The inputs of each run, and how the output lines name them.
  struct InputSets {
    std::vector<std::string> labels;
    std::vector<std::vector<Tensor>> tensors;
    /// The symbols' values of each set (none with --input).
    std::vector<std::vector<int64_t>> symbolValues;
  };
  bool makeInputSets(const CheckedProgram &checked,
                     const DiffTestOptions &options, InputSets &sets,
                     DiagnosticEngine &diags);
  /// Compiles the program at `level` for the options' target and runs it
  /// on every input set; nullopt after reporting a compile or load failure.
  std::optional<Outcomes> runCompiled(const CheckedProgram &checked,
                                      unsigned level,
                                      const DiffTestOptions &options,
                                      const InputSets &sets,
                                      DiagnosticEngine &diags);
  void compare(const CheckedProgram &checked, const std::string &prefix,
               const ExecutionResult &interpreted,
               const ExecutionResult &compiled, DiffTestSummary &summary);

  llvm::raw_ostream &out;
  Compiler compiler;
  std::unique_ptr<JitEngine> engine;
  /// Created at the first emulated run.
  std::unique_ptr<EmulatedRunner> emulated;
};

} // namespace txc

#endif
