//===- ObjectEmitter.h - LLVM IR to object code, in process -----*- C++ -*-===//
#ifndef TXC_TARGET_OBJECTEMITTER_H
#define TXC_TARGET_OBJECTEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
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
};

/// Resolves the command line's target: an empty triple means the host's, an
/// empty or "native" CPU means the host's CPU with its exact features.
llvm::Expected<TargetSpec> resolveTargetSpec(llvm::StringRef triple,
                                             llvm::StringRef cpu,
                                             llvm::StringRef features,
                                             unsigned optLevel);

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetSpec &spec);

/// Translates a module in the LLVM dialect to LLVM IR for `machine`.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  llvm::TargetMachine &machine, llvm::StringRef sourceName);

/// Runs LLVM's standard optimization pipeline for the level.
void optimizeLLVMModule(llvm::Module &module, llvm::TargetMachine &machine,
                        unsigned optLevel);

enum class MachineCodeKind { Object, Assembly };

llvm::Expected<std::string> emitMachineCode(llvm::Module &module,
                                            llvm::TargetMachine &machine,
                                            MachineCodeKind kind);
/// The same into a stream (a file, for objects too large to hold twice).
llvm::Error emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                            MachineCodeKind kind, llvm::raw_pwrite_stream &out);

} // namespace txc

#endif
