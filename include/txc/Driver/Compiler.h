//===- Compiler.h - From a checked program to LLVM IR/object ----*- C++ -*-===//
//
// The compile steps shared by `txc compile`, `txc run` and txc-difftest:
// MLIRGen, the MLIR pipeline, translation to LLVM IR, the ABI entry points
// and LLVM's optimization, then (for an object) code generation. A Compiler
// owns one MLIRContext with txc's dialects loaded and can compile any number
// of programs with it; creating the context costs more than compiling a
// small program.
//
// Problems are reported to the DiagnosticEngine (after verification every
// MLIR error is an internal error) and the functions return null.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_DRIVER_COMPILER_H
#define TXC_DRIVER_COMPILER_H

#include "txc/Driver/Driver.h"
#include "txc/Pipeline/Pipeline.h"
#include "txc/Pipeline/Workspace.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/ObjectEmitter.h"
#include "txc/Target/PartitionedCodegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class MemoryBufferRef;
class Module;
class TargetMachine;
class raw_pwrite_stream;
class ThreadPoolInterface;
} // namespace llvm

namespace mlir {
class MLIRContext;
class TimingScope;
} // namespace mlir

namespace txc {

/// The pipeline options for a target machine: the optimization level and
/// the vector unit codegen tiles for.
PipelineOptions pipelineOptionsFor(const llvm::TargetMachine &machine,
                                   unsigned optLevel);

struct WeightsPlan;

/// Generates object code or assembly from `module` into `out`, reporting
/// the errors LLVM raises while doing so (an operation the target cannot
/// lower) as target errors. False after reporting.
/// With `partitions`, in the partitions of emitMachineCodeInPartitions on
/// its threads, timed under `timing`.
bool generateCode(llvm::Module &module, llvm::TargetMachine &machine,
                  MachineCodeKind kind, llvm::StringRef programFile,
                  DiagnosticEngine &diags, llvm::raw_pwrite_stream &out,
                  const CodegenPartitions *partitions = nullptr,
                  mlir::TimingScope *timing = nullptr);

/// The same in memory; for an object, also writes the embedded weights of
/// `weights` into it and checks its imports (checkedObjectImports), which
/// go to `imports` if not null. Null after reporting.
std::optional<std::string>
generateCode(llvm::Module &module, llvm::TargetMachine &machine,
             MachineCodeKind kind, llvm::StringRef programFile,
             DiagnosticEngine &diags, const WeightsPlan *weights = nullptr,
             std::vector<std::string> *imports = nullptr,
             const CodegenPartitions *partitions = nullptr,
             mlir::TimingScope *timing = nullptr);

/// The functions a generated object imports, sorted. An import that is not
/// in txc/Target/Imports.def breaks the promise of docs/abi.md ("Imports")
/// and is reported as an internal error (null).
std::optional<std::vector<std::string>>
checkedObjectImports(llvm::MemoryBufferRef object, llvm::StringRef programFile,
                     DiagnosticEngine &diags);

/// The target machines of spec.moreCPUs (--cpu A,B,...), in order.
llvm::Error
createLevelMachines(const TargetSpec &spec,
                    std::vector<std::unique_ptr<llvm::TargetMachine>> &machines);
std::vector<llvm::TargetMachine *> machinePointers(
    llvm::ArrayRef<std::unique_ptr<llvm::TargetMachine>> machines);

class Compiler {
public:
  /// A compiler whose MLIR passes run on `jobs` threads (the functions of
  /// the regions in parallel); 0 means one per available core, 1 strictly
  /// serial. The output does not depend on it.
  explicit Compiler(unsigned jobs = 0);
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// MLIRGen and the MLIR pipeline up to and including `last`.
  mlir::OwningOpRef<mlir::ModuleOp> lowerToMLIR(const CheckedProgram &checked,
                                                MLIRStage last,
                                                const PipelineOptions &options,
                                                DiagnosticEngine &diags,
                                                mlir::TimingScope &timing);

  /// The optimized LLVM module with the ABI entry points: what `txc
  /// compile` prints for --emit llvm and generates code from. `weights`
  /// places the stored constants (planWeights); embedded ones are globals
  /// with placeholder zeros until the object is filled. The kernel's
  /// workspace size goes to `workspace` if not null. With `moreCPUs`
  /// (createLevelMachines), the kernel is compiled for each of them too and
  /// chosen at run time (CpuDispatch.h); `machine` is the baseline.
  std::unique_ptr<llvm::Module>
  buildLLVMModule(const CheckedProgram &checked, llvm::LLVMContext &llvmContext,
                  llvm::TargetMachine &machine, const PipelineOptions &options,
                  DiagnosticEngine &diags, mlir::TimingScope &timing,
                  const WeightsPlan &weights,
                  WorkspaceSize *workspace = nullptr,
                  llvm::ArrayRef<llvm::TargetMachine *> moreCPUs = {});

  /// How code generation cuts `module` (built by buildLLVMModule for
  /// `checked`) into partitions, and the threads it runs them on.
  CodegenPartitions codegenPartitions(const llvm::Module &module,
                                      const CheckedProgram &checked) const;

  /// The bytes of the object `txc compile` writes for `spec` (whose
  /// optLevel is also the pipeline's), with embedded weights. With
  /// `timing`, its phases are timed under it as `--time-report` names them
  /// (txc budget).
  std::optional<std::string> compileObject(const CheckedProgram &checked,
                                           const TargetSpec &spec,
                                           DiagnosticEngine &diags,
                                           mlir::TimingScope *timing = nullptr);

private:
  /// MLIRGen, the pipeline and translation: the LLVM module of one
  /// program (the generic one or a variant), without entry points.
  std::unique_ptr<llvm::Module>
  translateChecked(const CheckedProgram &checked,
                   llvm::LLVMContext &llvmContext, llvm::TargetMachine &machine,
                   const PipelineOptions &options, DiagnosticEngine &diags,
                   mlir::TimingScope &timing, WorkspaceSize &workspace);
  std::unique_ptr<llvm::Module>
  translate(const Program &program, const Contract &contract,
            llvm::LLVMContext &llvmContext, llvm::TargetMachine &machine,
            const PipelineOptions &options, DiagnosticEngine &diags,
            mlir::TimingScope &timing, WorkspaceSize &workspace);
  mlir::OwningOpRef<mlir::ModuleOp>
  lowerToMLIR(const Program &program, const Contract &contract,
              MLIRStage last, const PipelineOptions &options,
              DiagnosticEngine &diags, mlir::TimingScope &timing);
  bool linkCPULevels(const CheckedProgram &checked, llvm::Module &module,
                     llvm::TargetMachine &machine,
                     llvm::ArrayRef<llvm::TargetMachine *> moreCPUs,
                     const PipelineOptions &options, DiagnosticEngine &diags,
                     mlir::TimingScope &timing, WorkspaceSize &workspace);
  bool linkVariants(const CheckedProgram &checked, llvm::Module &module,
                    llvm::TargetMachine &machine,
                    const PipelineOptions &options, DiagnosticEngine &diags,
                    mlir::TimingScope &timing,
                    std::vector<VariantKernel> &variants);

  std::unique_ptr<llvm::ThreadPoolInterface> threads;
  std::unique_ptr<mlir::MLIRContext> context;
};

} // namespace txc

#endif
