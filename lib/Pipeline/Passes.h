//===- Passes.h - txc's own MLIR passes -------------------------*- C++ -*-===//
//
// Internal to TxcPipeline. The codegen strategy of txc, IREE-style: tensor
// level tiling, fusion and vectorization chosen per op from its shape and the
// target's vector registers, then vector lowering after bufferization.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_PIPELINE_PASSES_H
#define TXC_LIB_PIPELINE_PASSES_H

#include "txc/Pipeline/Pipeline.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace txc {

/// Rewrites `add(matmul(A, B, fill(0)), bias)` so that the matmul accumulates
/// into the broadcast bias: the bias add disappears into the accumulator's
/// initial value.
std::unique_ptr<mlir::Pass> createFoldBiasIntoMatmulPass();

/// Tiles matmuls (register and cache tiles), elementwise ops and row
/// reductions for the target, peels partial tiles so that the main body has
/// static shapes, and vectorizes every small static linalg op.
std::unique_ptr<mlir::Pass> createTileAndVectorizePass(VectorTarget target);

/// After bufferization: folds subviews into transfers, hoists loop-invariant
/// accumulators out of reduction loops, lowers contractions to FMAs and
/// transfers to plain loads/stores, and computes f32 exp on vectors inline
/// (populateVectorExpPatterns).
std::unique_ptr<mlir::Pass> createLowerVectorsPass();

/// `math.exp` on f32 vectors as a branch-free polynomial of about 1 ulp
/// that keeps subnormal results (VectorExp.cpp).
void populateVectorExpPatterns(mlir::RewritePatternSet &patterns);

/// f32 `math.erf` as a rational approximation of at most 5 ulp, sign kept
/// (VectorErf.cpp).
void populateErfApproximationPatterns(mlir::RewritePatternSet &patterns);

/// Folds tensor slices into the vector transfers that read or write them
/// (FoldSubsetTransfers.cpp; MLIR 19's own folds drop data, see there).
void populateFoldSubsetTransferPatterns(mlir::RewritePatternSet &patterns);

/// Removes `materialize_in_destination` of outputs already computed in
/// place from their output argument (on tensors).
std::unique_ptr<mlir::Pass> createFoldInPlaceOutputsPass();

/// Splits a `tensor.empty` with many uses (merged by CSE) into copies of a
/// few neighbouring uses each, so that one-shot bufferization analyzes small
/// alias sets (SplitEmptyTensors.cpp).
std::unique_ptr<mlir::Pass> createSplitEmptyTensorsPass();

/// After bufferization: copies every returned buffer that is not its output
/// argument into it and drops all results.
std::unique_ptr<mlir::Pass> createReturnResultsInOutputsPass();

/// After stack promotion: places the kernel's top-level allocations of
/// static shape in one workspace, its new last argument (Workspace.cpp,
/// txc/Pipeline/Workspace.h).
std::unique_ptr<mlir::Pass> createWorkspacePass();

/// Turns every memref.copy that MemRefToLLVM would lower to a call of MLIR's
/// runtime (`memrefCopy`) into a linalg.copy (LowerStridedCopies.cpp).
std::unique_ptr<mlir::Pass> createLowerStridedCopiesPass();

/// Outlines each top-level loop nest of a kernel with many of them into a
/// private, never-inlined function, so that compile time grows linearly.
std::unique_ptr<mlir::Pass> createOutlineLoopsPass();

/// Lowers math.fma to llvm.intr.fma, so that ConvertMathToLibm does not
/// make it a call of fmaf per lane (FmaToLLVM.cpp).
std::unique_ptr<mlir::Pass> createFmaToLLVMPass();

} // namespace txc

#endif
