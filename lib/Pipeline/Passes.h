//===- Passes.h - txc's own MLIR passes -------------------------*- C++ -*-===//
//
// Internal to TxcPipeline. The codegen strategy of txc, IREE-style: tensor
// level tiling, fusion and vectorization chosen per op from its shape and the
// target's vector registers, then vector lowering after bufferization. The
// passes themselves are declared in Passes.td (what each does is there).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_PIPELINE_PASSES_H
#define TXC_LIB_PIPELINE_PASSES_H

#include "txc/Pipeline/Pipeline.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class LoopLikeOpInterface;
class RewritePatternSet;
class TilingInterface;
} // namespace mlir

namespace txc {

// The passes of Passes.td: their create...Pass() functions and options.
#define GEN_PASS_DECL
#include "Passes.h.inc"

/// Adds the codegen strategy for `target` to `pm`, a pass manager on
/// functions: the strategy selection, one pass per strategy, and the final
/// vectorization (Pipeline.cpp).
void addTileAndVectorizePasses(mlir::OpPassManager &pm, VectorTarget target);

/// `math.exp` on f32 vectors as a branch-free polynomial of about 1 ulp
/// that keeps subnormal results (VectorExp.cpp).
void populateVectorExpPatterns(mlir::RewritePatternSet &patterns);

/// f32 `math.erf` as a rational approximation of at most 5 ulp, sign kept
/// (VectorErf.cpp).
void populateErfApproximationPatterns(mlir::RewritePatternSet &patterns);

/// Folds tensor slices into the vector transfers that read or write them
/// (FoldSubsetTransfers.cpp; MLIR 19's own folds drop data, see there).
void populateFoldSubsetTransferPatterns(mlir::RewritePatternSet &patterns);

/// Marks with `txc.parallel` the loops that tiling `op` by `sizes` (in
/// `interchange` order) created over its parallel dimensions: the loops
/// whose iterations ParallelTasksPass may run as tasks (ParallelTasks.cpp).
void markParallelTileLoops(mlir::TilingInterface op,
                           llvm::ArrayRef<int64_t> sizes,
                           llvm::ArrayRef<int64_t> interchange,
                           llvm::ArrayRef<mlir::LoopLikeOpInterface> loops);

/// The mark of markParallelTileLoops, removed by ParallelTasksPass.
inline constexpr llvm::StringLiteral kParallelLoopAttr = "txc.parallel";

/// The view of the workspace that holds one copy of a temporary per task
/// slot (WorkspacePass: only the iterations of a loop marked parallel use
/// it): `slots` copies, `stride` bytes apart. The view itself is slot 0, the
/// serial code's; ParallelTasksPass moves task k's view to slot k and makes
/// at most `slots` tasks of a loop that uses it.
inline constexpr llvm::StringLiteral kTaskSlotsAttr = "txc.task_slots";
inline constexpr llvm::StringLiteral kTaskSlotStrideAttr =
    "txc.task_slot_stride";

/// Marks `view` as above.
void markTaskSlots(mlir::Operation *view, uint64_t stride, uint64_t slots);

/// The (stride, slots) of a view markTaskSlots marked, if `value` is one.
std::optional<std::pair<int64_t, int64_t>> taskSlotsOf(mlir::Value value);

} // namespace txc

#endif
