//===- CpuDispatch.h - One kernel per x86-64 level, by cpuid ---*- C++ -*-===//
//
// `--cpu x86-64-v2,x86-64-v3,x86-64-v4` compiles the kernel once per listed
// level into one object (docs/cli.md, "Several CPUs in one object"). The
// entry points call one kernel, `<p>_kernel`, as for a single CPU; with a
// list it is a dispatcher that reads the running CPU's features with
// cpuid (and xgetbv for the register state the OS saves), once, and calls
// the most capable level's kernel `<p>_cpu<k>_kernel` the CPU runs. The
// guards ran before, in the entry points, the same for every level.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_CPUDISPATCH_H
#define TXC_TARGET_CPUDISPATCH_H

#include "txc/Analysis/Contract.h"
#include "txc/Pipeline/Workspace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace txc {

/// The x86-64 microarchitecture levels of the psABI, in increasing order:
/// the CPUs a --cpu list may name.
llvm::ArrayRef<llvm::StringRef> x86LevelCPUs();

/// The psABI level of `cpu` (1 for x86-64 ... 4 for x86-64-v4), 0 if it
/// is not one of x86LevelCPUs().
unsigned x86Level(llvm::StringRef cpu);

/// The entry prefix of the kernel of the `index`-th listed CPU (1-based):
/// "<p>_cpu<index>".
std::string cpuLevelPrefix(const Contract &contract, unsigned index);

/// "<p>_cpu_level": the entry point that says which listed CPU a call runs
/// on this machine.
std::string cpuLevelSymbol(const Contract &contract);

/// Where the kernel's parallel context, which <p>_run_with_options builds
/// on its stack ({parallel_for, ctx, num_threads, cpu_level}), holds the
/// caller's txc_run_options.cpu_level: after two pointers and an i64.
inline constexpr unsigned kParallelContextCpuLevelOffset = 24;

/// One listed CPU's kernel, linked into the module.
struct CpuKernel {
  std::string kernelName;
  unsigned x86Level = 0; ///< its psABI level (x86Level)
  WorkspaceSize workspace;
};

/// Gives every function defined in `module` the target-cpu and
/// target-features of `machine`, so that the optimizer and the code
/// generator compile it for that CPU whatever the module's machine is.
void setTargetAttributes(llvm::Module &module,
                         const llvm::TargetMachine &machine);

/// Emits `kernelName`, with the signature of the widest of `levels`'
/// kernels (one that takes a workspace if any does), calling the kernel of
/// the most capable listed CPU that the running CPU supports and the
/// caller allows (the parallel context's cpu_level), and `<p>_cpu_level`.
/// `levels` are in the order of the list, the baseline first. Returns the
/// dispatcher's workspace: the largest of the levels' (a size function
/// `<kernelName>.workspace_size` takes the maximum when one is dynamic).
llvm::Expected<WorkspaceSize> emitCpuDispatch(llvm::Module &module,
                                              const Contract &contract,
                                              llvm::StringRef kernelName,
                                              llvm::ArrayRef<CpuKernel> levels);

} // namespace txc

#endif
