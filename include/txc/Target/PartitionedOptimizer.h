//===- PartitionedOptimizer.h - LLVM optimization on several threads -*- C++ -*-===//
//
// LLVM's optimization pipeline on a module split into partitions, each in an
// LLVMContext of its own (contexts are not thread safe), optimized on a
// thread pool and linked back in a fixed order. The partitions depend only
// on the module, never on the number of threads, so the linked module (and
// the object generated from it) is the same for every -j.
//
// The module is cut at its partition roots (the region functions, which are
// noinline): roots are grouped in module order into partitions of at least
// kMinPartitionInstructions instructions; every other function goes with the
// first partition that calls it (so that what may be inlined stays with its
// callers), partition 0 (the entry points, the kernel, the globals) holds
// the rest. Values used across partitions are external and hidden while
// split, local again once linked.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_PARTITIONEDOPTIMIZER_H
#define TXC_TARGET_PARTITIONEDOPTIMIZER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
class TargetMachine;
class ThreadPoolInterface;
} // namespace llvm

namespace mlir {
class TimingScope;
} // namespace mlir

namespace txc {

/// The smallest partition, in LLVM instructions before optimization: a
/// partition costs a module clone and two bitcode round trips, small region
/// functions (a view, a short elementwise chain) are grouped.
constexpr unsigned kMinPartitionInstructions = 1500;

/// The partition of each defined function of `module`, in module order of
/// the functions (declarations are not listed): 0 for the functions that
/// are not roots and are not called from a root's partition. Roots are
/// the functions named in `roots` that `module` defines, grouped in module
/// order into partitions 1, 2, ... of at least `minInstructions`.
struct PartitionPlan {
  std::vector<std::pair<const llvm::Function *, unsigned>> functions;
  unsigned count = 1;
};
PartitionPlan
planPartitions(const llvm::Module &module, llvm::ArrayRef<std::string> roots,
               unsigned minInstructions = kMinPartitionInstructions);

/// Optimizes `module` (optimizeLLVMModule) in the partitions of
/// planPartitions, on `threads` (null: here, one after the other), and
/// returns the linked module, in `module`'s context. A module of one
/// partition is optimized as a whole. `timing` gets the phases llvm-split,
/// llvm-partitions (with one `partition <k>` per partition, timed on its
/// thread) and llvm-link.
llvm::Expected<std::unique_ptr<llvm::Module>>
optimizeInPartitions(std::unique_ptr<llvm::Module> module,
                     llvm::ArrayRef<std::string> roots,
                     llvm::TargetMachine &machine, unsigned optLevel,
                     llvm::ThreadPoolInterface *threads,
                     mlir::TimingScope &timing,
                     unsigned minInstructions = kMinPartitionInstructions);

} // namespace txc

#endif
