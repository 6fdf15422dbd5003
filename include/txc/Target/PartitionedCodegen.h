//===- PartitionedCodegen.h - Code generation on several threads -*- C++ -*-===//
//
// LLVM code generation of a module cut into the partitions of
// planPartitions, each in an LLVMContext of its own on a thread pool, into
// ONE object, without a linker: each partition is compiled to assembly, the
// assembly texts are made into one (local labels renamed per partition, the
// locals that crossed a cut local again) and assembled once by LLVM's MC
// layer in-process. The partitions do not depend on the number of threads,
// so the object is the same for every -j.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_PARTITIONEDCODEGEN_H
#define TXC_TARGET_PARTITIONEDCODEGEN_H

#include "txc/Target/ObjectEmitter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
class ThreadPoolInterface;
class raw_pwrite_stream;
} // namespace llvm

namespace mlir {
class TimingScope;
} // namespace mlir

namespace txc {

/// How to cut a module for code generation: the partition roots (as for
/// optimizeInPartitions) and the threads (null: one after the other).
struct CodegenPartitions {
  std::vector<std::string> roots;
  llvm::ThreadPoolInterface *threads = nullptr;
};

/// Generates the object or assembly of `module` (prepared by
/// prepareForCodegen) into `out`, in the partitions of `partitions.roots`;
/// a module of one partition is compiled whole. The errors LLVM reports
/// through the partitions' contexts go to `llvmErrors`, in partition order.
/// `timing` gets llvm-split, llvm-partitions (one `partition <k>` each) and
/// assemble.
llvm::Error emitMachineCodeInPartitions(llvm::Module &module,
                                        llvm::TargetMachine &machine,
                                        MachineCodeKind kind,
                                        const CodegenPartitions &partitions,
                                        mlir::TimingScope &timing,
                                        std::vector<std::string> &llvmErrors,
                                        llvm::raw_pwrite_stream &out);

/// The assembly of one partition made ready to be concatenated with the
/// others': every local label `.L<x>` becomes `.Lt<partition>_<x>`, every
/// name in `privateNames` (a private symbol made visible across partitions)
/// `.Lx_<name>`, and the `.globl`/`.hidden` directives of `localNames` (the
/// locals made visible across partitions, private ones included) are
/// dropped, so that they are local symbols of the one object again; a
/// partition after the first drops its `.file` directives. `comment` is the
/// target's comment string. Exposed for unit tests.
std::string mergeablePartitionAssembly(
    llvm::StringRef text, unsigned partition, llvm::StringRef comment,
    const llvm::StringSet<> &localNames, const llvm::StringSet<> &privateNames);

} // namespace txc

#endif
