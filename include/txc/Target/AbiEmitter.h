//===- AbiEmitter.h - The C entry points around the kernel ------*- C++ -*-===//
//
// Adds the artifact's C ABI (docs/abi.md) to the translated LLVM module:
//
//   int32_t <p>_run(const txc_tensor *inputs, int64_t num_inputs,
//                   txc_tensor *outputs, int64_t num_outputs,
//                   txc_status *status);
//   int32_t <p>_run_with_workspace(..the same.., void *workspace,
//                                  size_t workspace_bytes);
//   int32_t <p>_output_shapes(const txc_tensor *inputs, int64_t num_inputs,
//                             txc_tensor *outputs, int64_t num_outputs,
//                             txc_status *status);
//   int32_t <p>_error_message(const txc_status *status, char *buffer,
//                             size_t size);
//   int32_t <p>_run_with_options(..as <p>_run..,
//                                const txc_run_options *options);
//
// Both entry points evaluate the contract's guards, in the contract's order,
// before touching any tensor memory; the first failing guard fills the
// status and its code is returned. The code is generated from the same guard
// list that `evaluateGuards` interprets, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_ABIEMITTER_H
#define TXC_TARGET_ABIEMITTER_H

#include "txc/Analysis/Contract.h"

#include "txc/Pipeline/Workspace.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
}

namespace txc {

/// Byte layout of the ABI structs (checked by the header's static asserts).
struct AbiLayout {
  /// TXC_ABI_VERSION: bumped whenever a struct of this layout changes
  /// (2: txc_status grew from 48 to 56 bytes with `variant`).
  static constexpr unsigned kVersion = 2;
  static constexpr unsigned kMaxRank = 8;
  static constexpr unsigned kTensorData = 0;
  static constexpr unsigned kTensorSizeBytes = 8;
  static constexpr unsigned kTensorDType = 16;
  static constexpr unsigned kTensorRank = 20;
  static constexpr unsigned kTensorDims = 24;
  static constexpr unsigned kTensorSize = 24 + 8 * kMaxRank;
  static constexpr unsigned kStatusCode = 0;
  static constexpr unsigned kStatusGuard = 4;
  static constexpr unsigned kStatusTensorKind = 8;
  static constexpr unsigned kStatusTensorIndex = 12;
  static constexpr unsigned kStatusDim = 16;
  static constexpr unsigned kStatusSymbol = 20;
  static constexpr unsigned kStatusExpectedMin = 24;
  static constexpr unsigned kStatusExpectedMax = 32;
  static constexpr unsigned kStatusActual = 40;
  /// The code that ran: 0 generic, a variant's id, -1 none.
  static constexpr unsigned kStatusVariant = 48;
  static constexpr unsigned kStatusSize = 56;

  /// <p>_dispatch_stats (DispatchStats.h), whose size is per program:
  ///   0  uint32_t struct_size   sizeof the block
  ///   4  uint32_t layout        DispatchStatsLayout::id
  ///   8  uint64_t failed        calls that ran no code
  ///   16 uint64_t calls[1 + N]  by code: 0 generic, then the variants' ids
  ///   .. missed[slots]          from DispatchStatsLayout::slotOffset(0)
  static constexpr unsigned kStatsStructSize = 0;
  static constexpr unsigned kStatsLayout = 4;
  static constexpr unsigned kStatsFailed = 8;
  static constexpr unsigned kStatsCalls = 16;
  /// One of missed[]: {int32 variant, int32 guard, uint64 count, int64 last}.
  static constexpr unsigned kStatsSlotVariant = 0;
  static constexpr unsigned kStatsSlotGuard = 4;
  static constexpr unsigned kStatsSlotCount = 8;
  static constexpr unsigned kStatsSlotLast = 16;
  static constexpr unsigned kStatsSlotSize = 24;
};

struct WeightsPlan;

/// Why a run entry point returned StatusCode::Workspace (the caller's
/// workspace is NULL, misaligned or too small, or <p>_run could not allocate
/// one), in txc_status.dim.
enum class WorkspaceCheck : int32_t { Pointer = 0, Size = 1, Allocation = 2 };

/// "<p>_run_with_workspace", or "<p>_run_with_weights_and_workspace" with
/// external weights.
inline std::string runWithWorkspaceSymbol(const Contract &contract,
                                          bool externalWeights) {
  return contract.entryPrefix + (externalWeights
                                     ? "_run_with_weights_and_workspace"
                                     : "_run_with_workspace");
}

/// "<p>_workspace_size".
inline std::string workspaceSizeSymbol(const Contract &contract) {
  return contract.entryPrefix + "_workspace_size";
}

/// "<p>_run_with_options": the entry point that takes a txc_run_options
/// (workspace, weights, the caller's parallel_for; docs/abi.md, Threads).
inline std::string runWithOptionsSymbol(const Contract &contract) {
  return contract.entryPrefix + "_run_with_options";
}

/// The suffix of an entry point's internal slow copy ("<p>_run.slow"): the
/// fast path of a small contract tail-calls it when a guard may have failed
/// (docs/abi.md, Guards).
inline llvm::StringRef slowEntrySuffix() { return ".slow"; }

/// Byte layout of txc_run_options (docs/abi.md). A field that ends past
/// the caller's struct_size reads as zero, so that the struct can grow.
struct RunOptionsLayout {
  static constexpr unsigned kStructSize = 0;
  static constexpr unsigned kNumThreads = 4;
  static constexpr unsigned kWorkspace = 8;
  static constexpr unsigned kWorkspaceBytes = 16;
  static constexpr unsigned kWeights = 24;
  static constexpr unsigned kWeightsSize = 32;
  static constexpr unsigned kParallelFor = 40;
  static constexpr unsigned kParallelCtx = 48;
  /// The caller's <p>_dispatch_stats (DispatchStats.h), or NULL.
  static constexpr unsigned kDispatchStats = 56;
  /// The listed CPU a multi-CPU object runs (docs/cli.md, "Several CPUs
  /// in one object"): 0 the most capable this machine runs, k at most the
  /// k-th. Ignored by an object compiled for one CPU.
  static constexpr unsigned kCpuLevel = 64;
  static constexpr unsigned kSize = 72;
};

/// The kernel of a specialized variant (Contract::variants), compiled into
/// the same module with its bound symbols' dims static.
struct VariantKernel {
  const ContractVariant *variant = nullptr;
  std::string kernelName;
  WorkspaceSize workspace;
};

/// `<kernelName>.workspace_size`: the function of the Workspace pass that
/// computes a kernel's workspace bytes from its symbols.
inline std::string workspaceSizeFunctionName(llvm::StringRef kernelName) {
  return (kernelName + ".workspace_size").str();
}

/// Emits the entry points into `module`, which must contain the lowered
/// kernel `kernelName` (made internal here). `weights` says where the
/// program's stored constants (the kernel's arguments after the inputs)
/// are; with external weights <p>_run_with_weights replaces <p>_run.
/// `workspace` describes the kernel's workspace, its last argument (none if
/// !needed()): <p>_run allocates it per call, the ..._with_workspace
/// variant takes the caller's, <p>_workspace_size tells its size for the
/// inputs' shapes (with `dynamic`, by calling `<kernelName>.workspace_size`).
/// With `variants`, the run entry points dispatch, once the generic guards
/// passed, to the first variant in dispatchOrder whose symbols have their
/// bound values (docs/specialization.md); its workspace is the one the
/// call needs and <p>_workspace_size tells.
llvm::Error emitAbiEntryPoints(llvm::Module &module, const Contract &contract,
                               llvm::StringRef kernelName,
                               const WeightsPlan *weights = nullptr,
                               WorkspaceSize workspace = {},
                               llvm::ArrayRef<VariantKernel> variants = {});

} // namespace txc

#endif
