//===- ObjectEmitter.h - LLVM IR to object code, in process -----*- C++ -*-===//
#ifndef TXC_TARGET_OBJECTEMITTER_H
#define TXC_TARGET_OBJECTEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class DiagnosticInfo;
class LLVMContext;
class Triple;
class Module;
class TargetMachine;
class raw_pwrite_stream;
} // namespace llvm

namespace txc {

/// The machine an artifact is compiled for.
struct TargetSpec {
  std::string triple;   ///< e.g. "x86_64-pc-linux-gnu"
  std::string cpu;      ///< e.g. "znver4"
  std::string features; ///< e.g. "+avx512f,..." ("" = the CPU's defaults)
  bool hostCPU = false; ///< cpu and features were taken from this machine
  unsigned optLevel = 2;
  /// --cpu A,B,...: the CPUs after the first, `cpu`, which is the baseline;
  /// the kernels are compiled once per CPU and chosen at run time
  /// (CpuDispatch.h). Empty for one CPU.
  std::vector<std::string> moreCPUs;

  /// Every listed CPU, the baseline first.
  std::vector<std::string> cpus() const {
    std::vector<std::string> all = {cpu};
    all.insert(all.end(), moreCPUs.begin(), moreCPUs.end());
    return all;
  }
  /// This spec for its `index`-th CPU alone.
  TargetSpec forCPU(size_t index) const {
    TargetSpec one = *this;
    one.cpu = cpus()[index];
    one.moreCPUs.clear();
    return one;
  }
};

/// A --target, --cpu or --features value the target does not know: the
/// message (with a "did you mean" when a name is close) and notes (what
/// the valid names are, or where to find them).
class TargetOptionError : public llvm::ErrorInfo<TargetOptionError> {
public:
  static char ID;
  TargetOptionError(std::string message, std::vector<std::string> notes)
      : message(std::move(message)), notes(std::move(notes)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  std::string message;
  std::vector<std::string> notes;
};

/// The CPU of `--cpu` when none is given: a portable one, the same on every
/// build machine, so that the object runs on every machine of the triple's
/// architecture and does not depend on where it was built (docs/cli.md,
/// "Targets"): x86-64-v2 for x86_64, generic for aarch64.
llvm::StringRef defaultCPU(const llvm::Triple &triple);

/// Whether code for `triple` runs on this machine (its architecture and OS).
bool isHostTriple(const llvm::Triple &triple);

/// Resolves the command line's target: an empty triple means the host's, an
/// empty CPU the triple's defaultCPU, "native" the host's CPU with its
/// exact features (only for the host's triple). A comma-separated list
/// of x86-64 levels in increasing order (docs/cli.md) fills moreCPUs.
/// Unknown triples, CPUs and features (checked before any target machine
/// exists, so LLVM never warns about them) are TargetOptionErrors.
llvm::Expected<TargetSpec> resolveTargetSpec(llvm::StringRef triple,
                                             llvm::StringRef cpu,
                                             llvm::StringRef features,
                                             unsigned optLevel);

/// What `--target help` prints: the architectures txc compiles for and
/// the form of a triple.
std::string describeTargets();
/// What `--cpu help` prints: the CPUs of `triple` ("" for this machine).
llvm::Expected<std::string> describeCPUs(llvm::StringRef triple);
/// What `--features help` prints: the features of `triple`, described.
llvm::Expected<std::string> describeFeatures(llvm::StringRef triple);

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetSpec &spec);

/// A target machine like `machine` (target, CPU, features, options,
/// levels) for another thread: one target machine is not thread safe (it
/// caches subtargets as functions ask for them).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
cloneTargetMachine(const llvm::TargetMachine &machine);

/// Translates a module in the LLVM dialect to LLVM IR for `machine`.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  llvm::TargetMachine &machine, llvm::StringRef sourceName);

/// Runs LLVM's standard optimization pipeline for the level.
void optimizeLLVMModule(llvm::Module &module, llvm::TargetMachine &machine,
                        unsigned optLevel);

/// The interprocedural passes of LLVM's pipeline that need every caller of
/// a local function: IPSCCP (constant arguments), dead argument
/// elimination, GlobalOpt (the fast calling convention of local functions,
/// ...) and GlobalDCE; none at -O0.
/// For a module whose functions were optimized apart (optimizeInPartitions),
/// so that a region function called from another partition gets no more
/// arguments than its body reads, as in a module optimized whole.
void optimizeAcrossFunctions(llvm::Module &module,
                             llvm::TargetMachine &machine, unsigned optLevel);

/// Makes functions that are identical but for their names one function,
/// after merging identical constants (which they may read): for a module
/// that several separately lowered programs were linked into (the variants
/// of docs/specialization.md), whose regions MergeIdenticalFunctions could
/// not compare. At every level: it removes code before it is optimized.
void mergeIdenticalFunctions(llvm::Module &module,
                             llvm::TargetMachine &machine);

enum class MachineCodeKind { Object, Assembly };

llvm::Expected<std::string> emitMachineCode(llvm::Module &module,
                                            llvm::TargetMachine &machine,
                                            MachineCodeKind kind);
/// The same into a stream (a file, for objects too large to hold twice).
llvm::Error emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                            MachineCodeKind kind, llvm::raw_pwrite_stream &out);

/// An LLVMContext diagnostic handler appending the text of each error, once,
/// to the std::vector<std::string> at `errors`: without a handler LLVM only
/// prints them and code generation "succeeds".
void collectLLVMErrors(const llvm::DiagnosticInfo *info, void *errors);

/// What emitMachineCode does to the module before code generation: defines
/// the helpers LLVM's backends may call, works around their bf16 crashes,
/// and verifies the module.
llvm::Error prepareForCodegen(llvm::Module &module);
/// Code generation of a module prepareForCodegen prepared.
llvm::Error emitPreparedMachineCode(llvm::Module &module,
                                    llvm::TargetMachine &machine,
                                    MachineCodeKind kind,
                                    llvm::raw_pwrite_stream &out);

} // namespace txc

#endif
