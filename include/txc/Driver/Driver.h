//===- Driver.h - The compile and check jobs behind the txc CLI -*- C++ -*-===//
//
// Each job runs the stages in order, stops at the first stage that reports an
// error, and returns the tool's exit code (docs/cli.md). Output files are
// only written when every stage succeeded, all of them atomically.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_DRIVER_DRIVER_H
#define TXC_DRIVER_DRIVER_H

#include "txc/Analysis/Contract.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class TimingScope;
} // namespace mlir

namespace txc {

/// What `txc compile --emit` writes. One table (emitKinds) gives each kind
/// its name and default file extension.
enum class EmitKind {
  MLIRTensor,
  MLIROptimized,
  MLIRBufferized,
  MLIRLoops,
  MLIRLLVM,
  LLVMIR,
  Assembly,
  Object,
  Regions,
};

struct EmitKindInfo {
  EmitKind kind;
  const char *name;      ///< --emit value
  const char *extension; ///< default output extension
  const char *description;
};
llvm::ArrayRef<EmitKindInfo> emitKinds();
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);

struct CompileOptions {
  std::string programPath;
  std::string outputPath; ///< "" = <program name>.<ext>, "-" = stdout
  std::string headerPath;
  std::string manifestPath;
  /// --header-cxx: the C++17 API (docs/abi.md, "C++ API"), with the C
  /// header in it.
  std::string headerCxxPath;
  /// --depfile: a Make rule naming the primary output and every file the
  /// compile read (the program and its weights files), for build systems.
  std::string depfilePath;
  EmitKind emit = EmitKind::Object;
  unsigned optLevel = 2;
  /// Threads of the compile (-j): 0 = one per available core, 1 = serial.
  /// The outputs are the same bytes for every value.
  unsigned jobs = 0;
  /// False (`--regions one`): the whole program in the kernel function.
  bool cutRegions = true;
  std::string triple;
  std::string cpu;
  std::string features;
  std::string entryPrefix; ///< "" = the program's name
  bool printIRAfterAll = false;
  bool timeReport = false;
  /// --quiet: no status line on a terminal (Progress.h).
  bool quiet = false;
  /// --allow-weights-outside: directories weights files may be in.
  std::vector<std::string> allowedWeightDirs;
  /// --weights external: the stored constants go to a blob file instead
  /// of the object, and <p>_run_with_weights replaces <p>_run.
  bool externalWeights = false;
  std::string weightsPath; ///< --weights-file; "" = <output>.weights
  bool timeReportJson = false; ///< --time-report=json
  /// The compile cache (CompileCache.h); "" = no cache. Every option above
  /// that changes the output bytes must be part of the cache key
  /// (cacheKeyInputs in Driver.cpp).
  std::string cacheDir;
  /// --cache-max-bytes; unset = kDefaultCacheMaxBytes. 0 turns the cache
  /// off: nothing is looked up or stored.
  std::optional<uint64_t> cacheMaxBytes;
  /// --specialize: variants compiled besides the generic code
  /// (docs/specialization.md), as written.
  std::vector<std::string> specializations;
};

/// The text of a dependency file in Make's format, as clang's -MD -MF
/// writes it: `target: dep...`, then an empty rule for every dependency
/// but the first (-MP), so that a weights file the program no longer reads
/// can be deleted. Spaces, '#' and '$' are escaped; a path with a newline
/// cannot be written (an error naming it).
llvm::Expected<std::string>
formatDepfile(llvm::StringRef target, llvm::ArrayRef<std::string> deps);

/// A program read and verified, with its contract.
struct CheckedProgram {
  std::unique_ptr<Program> program;
  Contract contract;
  /// One per contract.variants, in order: the program with the variant's
  /// symbols bound (static shapes) and the variant's contract, whose
  /// entry prefix names its kernel functions.
  std::vector<std::unique_ptr<CheckedProgram>> variants;
};

/// Reads, verifies and builds the contract; null after reporting errors.
/// With `specializations` (--specialize), also the variants. With
/// `timing`, the phases (parse, verify, contract, variants) are timed
/// under it as `txc compile --time-report` times them under "frontend".
std::unique_ptr<CheckedProgram>
loadProgram(llvm::StringRef path, llvm::StringRef entryPrefix,
            DiagnosticEngine &diags, const ReaderOptions &reader = {},
            llvm::ArrayRef<std::string> specializations = {},
            mlir::TimingScope *timing = nullptr);

/// `txc check`: parse and verify only (weights files are opened and
/// checked too). Returns the exit code.
int runCheck(llvm::StringRef programPath, DiagnosticEngine &diags,
             const ReaderOptions &reader = {});

/// `txc compile`. Returns the exit code.
int runCompile(const CompileOptions &options, DiagnosticEngine &diags);

/// Reports an error of resolveTargetSpec or createTargetMachine as a
/// target error, with the notes of a TargetOptionError.
void reportTargetError(llvm::Error err, DiagnosticEngine &diags);

/// `txc targets [TRIPLE]`: the targets, their default CPUs and vector
/// units, this machine's CPU; with a triple, its CPUs and features.
int runTargets(llvm::StringRef triple, DiagnosticEngine &diags);

struct RunOptions {
  std::string programPath;
  std::vector<std::string> inputs; ///< "NAME=FILE.npy", one per input
  std::string outputDir;           ///< outputs go to DIR/<name>.npy
  bool eager = false;              ///< the interpreter, not compiled code
  unsigned optLevel = 2;
  std::vector<std::string> allowedWeightDirs; ///< --allow-weights-outside
};

/// `txc run`: runs the program on .npy inputs, compiled for this machine and
/// loaded in process (or with the reference interpreter when eager), and
/// writes the outputs as .npy files. A call that fails a guard or a runtime
/// check is reported with the object's message and exits with
/// ExitContractViolation. Returns the exit code.
int runRun(const RunOptions &options, DiagnosticEngine &diags);

} // namespace txc

#endif
