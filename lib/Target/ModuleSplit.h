//===- ModuleSplit.h - An LLVM module cut into partitions -------*- C++ -*-===//
//
// What the partitioned optimizer and the partitioned code generator share:
// the module cut along a PartitionPlan into modules of their own (as
// bitcode, to be read in another LLVMContext), with the locals that cross a
// cut made external and hidden while split, and a runner of one task per
// partition on a thread pool. Internal to lib/Target.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_TARGET_MODULESPLIT_H
#define TXC_LIB_TARGET_MODULESPLIT_H

#include "txc/Target/PartitionedOptimizer.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/GlobalValue.h"

#include <memory>
#include <string>
#include <vector>

namespace txc {

/// A local value made external and hidden while the module is split.
struct Externalized {
  std::string name;
  llvm::GlobalValue::LinkageTypes linkage;
  llvm::GlobalValue::VisibilityTypes visibility;
  bool dsoLocal;
};

/// The split module: where each definition lives, and what was changed to
/// make references between partitions valid.
struct Split {
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> home;
  /// The constants each partition but 0 gets an available_externally copy
  /// of, so that it folds loads from them as the whole module did.
  std::vector<llvm::SmallPtrSet<const llvm::GlobalValue *, 8>> copies;
  std::vector<Externalized> externalized;
  unsigned count = 1;
};

/// Cuts `module` along `plan`: records each definition's partition and
/// makes the locals used across partitions external and hidden (in place).
Split splitModule(llvm::Module &module, const PartitionPlan &plan);

/// The bitcode of partition `partition` of a module split by splitModule:
/// its definitions, declarations of the rest that it uses.
std::string partitionBitcode(const llvm::Module &module, const Split &split,
                             unsigned partition);

/// A partition's module read back from its bitcode into a context of the
/// caller's, with a target machine of its own (neither a context nor a
/// target machine is thread safe).
struct LoadedPartition {
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
};
llvm::Expected<LoadedPartition>
loadPartition(llvm::StringRef bitcode, llvm::LLVMContext &context,
              const llvm::TargetMachine &machine);

/// Makes local again what splitModule made external, in `module` (the
/// split module itself or one linked from its partitions).
void restoreLocals(llvm::Module &module, const Split &split);

/// Runs `work` for partitions 0 .. count-1, on `threads` if given (else one
/// after the other), each timed as `partition <k>` under `timing`. `work`
/// returns an error message, "" on success; the first partition's error in
/// partition order is returned.
llvm::Error runPartitions(
    unsigned count, llvm::ThreadPoolInterface *threads,
    mlir::TimingScope &timing,
    llvm::function_ref<std::string(unsigned partition)> work);

llvm::Error partitionError(unsigned partition, const std::string &what);

} // namespace txc

#endif
