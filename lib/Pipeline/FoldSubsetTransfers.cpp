//===- FoldSubsetTransfers.cpp - Tensor slices into vector transfers ------===//
//
//   vector.transfer_read (tensor.extract_slice %t [offsets]) [indices]
//     -> vector.transfer_read %t [offsets + indices]
//   tensor.insert_slice (vector.transfer_write %v, %tile) into %t [offsets]
//     -> vector.transfer_write %v, %t [offsets]   (if %v covers all of %tile)
//
// MLIR 19 has these folds (populateFoldTensorSubsetIntoVectorTransferPatterns)
// but its insert_slice fold does not check that the write covers its whole
// tensor: for `insert_slice (transfer_write %v, %rows[510, 0]) into %t` it
// writes only %v into %t and drops the rest of %rows. A peeled remainder
// tile then overwrote everything its main loop had computed. These versions
// fold only what is equivalent.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Affine/ViewLikeInterfaceUtils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace txc {
namespace {

struct FoldReadOfExtractSlice : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto slice = read.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    // Out of bounds, a read of the slice is padded where a read of the
    // whole tensor would see its elements.
    if (!slice || read.getMask() || read.hasOutOfBoundsDim() ||
        !slice.hasUnitStride())
      return failure();
    SmallVector<Value> indices;
    affine::resolveIndicesIntoOpWithOffsetsAndStrides(
        rewriter, read.getLoc(), slice.getMixedOffsets(),
        slice.getMixedStrides(), slice.getDroppedDims(), read.getIndices(),
        indices);
    AffineMap map =
        expandDimsToRank(read.getPermutationMap(),
                         slice.getSourceType().getRank(), slice.getDroppedDims());
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        read, read.getVectorType(), slice.getSource(), indices,
        AffineMapAttr::get(map), read.getPadding(), /*mask=*/Value(),
        read.getInBoundsAttr());
    return success();
  }
};

struct FoldInsertOfCoveringWrite : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto write = insert.getSource().getDefiningOp<vector::TransferWriteOp>();
    if (!write || write.getMask() || write.hasOutOfBoundsDim() ||
        !insert.hasUnitStride())
      return failure();
    // The write must replace every element of the tile, or the elements it
    // leaves would be lost.
    auto tile = cast<RankedTensorType>(write.getSource().getType());
    if (!tile.hasStaticShape() ||
        !llvm::equal(write.getVectorType().getShape(), tile.getShape()) ||
        !write.getPermutationMap().isMinorIdentity())
      return failure();
    SmallVector<Value> indices;
    affine::resolveIndicesIntoOpWithOffsetsAndStrides(
        rewriter, write.getLoc(), insert.getMixedOffsets(),
        insert.getMixedStrides(), insert.getDroppedDims(), write.getIndices(),
        indices);
    AffineMap map = expandDimsToRank(write.getPermutationMap(),
                                     insert.getDestType().getRank(),
                                     insert.getDroppedDims());
    rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
        insert, write.getVector(), insert.getDest(), indices,
        AffineMapAttr::get(map), write.getInBoundsAttr());
    return success();
  }
};

} // namespace

void populateFoldSubsetTransferPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldReadOfExtractSlice, FoldInsertOfCoveringWrite>(
      patterns.getContext());
}

} // namespace txc
