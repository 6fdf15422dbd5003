//===- RunOptionsEmitter.h - <p>_run_with_options in LLVM IR ----*- C++ -*-===//
#ifndef TXC_LIB_TARGET_RUNOPTIONSEMITTER_H
#define TXC_LIB_TARGET_RUNOPTIONSEMITTER_H

#include "txc/Analysis/Contract.h"

#include "llvm/ADT/ArrayRef.h"

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace txc {

/// Emits `<p>_run_with_options` (docs/abi.md, Threads) into `module`, whose
/// run entry points (<p>_run or <p>_run_with_weights, and their variant
/// with a workspace) exist already and call `kernel` with a NULL parallel
/// context: their copies that pass the caller's context instead are what
/// the new entry point calls. `hasWorkspace`: the kernel takes a workspace
/// (static or symbol-sized), so the entry point with a workspace exists.
void emitRunWithOptions(llvm::Module &module, const Contract &contract,
                        llvm::ArrayRef<llvm::Function *> kernels,
                        bool externalWeights,
                        bool hasWorkspace);

} // namespace txc

#endif
