//===- Tiling.cpp - Helpers shared by the tiling passes -------------------===//
//
// See Tiling.h.
//
//===----------------------------------------------------------------------===//
#include "Tiling.h"

#include "Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace txc {

bool hasStaticShape(linalg::LinalgOp op) {
  return llvm::none_of(op.getStaticLoopRanges(),
                       [](int64_t size) { return ShapedType::isDynamic(size); });
}

bool hasEmptyLoopRange(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

int64_t iterationSpaceSize(linalg::LinalgOp op) {
  int64_t size = 1;
  for (int64_t extent : op.getStaticLoopRanges())
    size *= extent;
  return size;
}

bool isMatmulLike(linalg::LinalgOp op) {
  return isa<linalg::MatmulOp, linalg::MatmulTransposeBOp,
             linalg::BatchMatmulOp>(op) &&
         op.hasPureTensorSemantics();
}

bool isParallelElementwise(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumLoops() > 0 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         !isa<linalg::TransposeOp>(op) &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isProjectedPermutation(); });
}

bool touchesBoolMemory(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperands(), [](Value operand) {
    auto shaped = dyn_cast<ShapedType>(operand.getType());
    return shaped && shaped.getElementType().isInteger(1);
  });
}

bool hasCostlyOps(linalg::LinalgOp op) {
  return llvm::any_of(op.getBlock()->getOperations(), [](Operation &inner) {
    return isa<arith::DivFOp>(inner) ||
           isa_and_nonnull<math::MathDialect>(inner.getDialect());
  });
}

/// Four vectors per step hide the latency of a short body; a long body
/// (saturating casts, gelu, an exp, which becomes ~30 instructions, a
/// division, bound by the divider's throughput) has enough independent work
/// in one vector. Four copies of it spill
/// registers (softmax's exp) and make basic blocks that LLVM's register
/// coalescer takes quadratic time on (100 casts: 169 s of compile).
bool hasLongBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  int64_t bodyOps = int64_t(body->getOperations().size()) - 1;
  return bodyOps > 4 || hasCostlyOps(op);
}

bool isRowReduction(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  return op.hasPureTensorSemantics() && iterators.size() >= 1 &&
         iterators.back() == utils::IteratorType::reduction &&
         llvm::count(iterators, utils::IteratorType::reduction) == 1 &&
         !linalg::isaContractionOpInterface(op);
}

unsigned resultElementBits(Operation *op) {
  return getElementTypeOrSelf(op->getResult(0).getType())
      .getIntOrFloatBitWidth();
}

FailureOr<scf::SCFTilingResult> tile(RewriterBase &rewriter, Operation *op,
                                     ArrayRef<int64_t> sizes,
                                     ArrayRef<int64_t> interchange) {
  auto tileable = dyn_cast<TilingInterface>(op);
  if (!tileable)
    return failure();
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  if (!interchange.empty())
    options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, tileable, options);
  if (failed(result))
    return failure();
  markParallelTileLoops(tileable, sizes, interchange, result->loops);
  rewriter.replaceOp(op, result->replacements);
  return result;
}

/// Tiles `root` by `sizes`, fuses the producers that `fuse` accepts (all
/// by default) into the innermost loop, and replaces `root`'s results.
/// Fails if nothing was tiled.
FailureOr<scf::SCFTileAndFuseResult>
tileAndFuse(RewriterBase &rewriter, Operation *root, ArrayRef<int64_t> sizes,
            function_ref<bool(Operation *)> fuse) {
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(root->getContext(), sizes));
  if (fuse)
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool) {
          return std::make_tuple(fuse(producer.getOwner()), false);
        });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root), options);
  if (failed(fused) || fused->loops.empty())
    return failure();
  markParallelTileLoops(cast<TilingInterface>(root), sizes, {}, fused->loops);
  for (auto [original, replacement] : fused->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  return fused;
}

/// Peels `loop` so that its main part runs only full tiles; the remainder
/// iteration (if any) is returned.
scf::ForOp peel(RewriterBase &rewriter, LoopLikeOpInterface loopLike) {
  auto loop = dyn_cast_or_null<scf::ForOp>(loopLike.getOperation());
  if (!loop)
    return {};
  scf::ForOp remainder;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, remainder)))
    return {};
  return remainder;
}

/// Runs CSE and the canonicalization patterns of every registered op on
/// `root`, so that tile sizes computed by affine.min fold to constants (CSE
/// first: equal sizes computed twice only fold once they are one value).
void canonicalize(Operation *root) {
  MLIRContext *context = root->getContext();
  IRRewriter rewriter(context);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, root);
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsAndFoldGreedily(root, std::move(patterns));
}

std::pair<Operation *, Operation *>
splitForTiles(RewriterBase &rewriter, Operation *op, unsigned dim,
              int64_t multiple) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  int64_t size = linalgOp.getStaticLoopRanges()[dim];
  if (!ShapedType::isDynamic(size)) {
    int64_t point = size / multiple * multiple;
    if (point == size)
      return {op, nullptr};
    if (point == 0)
      return {nullptr, op};
    rewriter.setInsertionPoint(op);
    auto parts = linalg::splitOp(rewriter, cast<TilingInterface>(op), dim,
                                 rewriter.getIndexAttr(point));
    return {parts.first, parts.second};
  }
  // Dynamic: split at (size floordiv multiple) * multiple, at run time.
  rewriter.setInsertionPoint(op);
  SmallVector<Range> ranges =
      cast<TilingInterface>(op).getIterationDomain(rewriter);
  AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
  OpFoldResult point = affine::makeComposedFoldedAffineApply(
      rewriter, op->getLoc(), (s0.floorDiv(multiple)) * multiple,
      {ranges[dim].size});
  auto parts =
      linalg::splitOp(rewriter, cast<TilingInterface>(op), dim, point);
  return {parts.first, parts.second};
}

SmallVector<std::pair<Operation *, int64_t>>
splitRows(RewriterBase &rewriter, Operation *op, unsigned m, int64_t mr) {
  SmallVector<std::pair<Operation *, int64_t>> parts;
  auto [main, tail] = splitForTiles(rewriter, op, m, mr);
  if (main)
    parts.push_back({main, mr});
  if (!tail)
    return parts;
  // Static remainder rows (fewer than MR) run as one shorter tile; a
  // dynamic remainder as at most one tile each of 4, 2 and 1 rows, not row
  // by row (a remainder of 5 rows at 1/4 of the speed costs 8% at M = 64).
  int64_t height = cast<linalg::LinalgOp>(tail).getStaticLoopRanges()[m];
  if (!ShapedType::isDynamic(height)) {
    parts.push_back({tail, height});
    return parts;
  }
  for (int64_t rows = llvm::PowerOf2Ceil(mr) / 2; rows > 1 && tail; rows /= 2) {
    auto [tiled, rest] = splitForTiles(rewriter, tail, m, rows);
    if (tiled)
      parts.push_back({tiled, rows});
    tail = rest;
  }
  if (tail)
    parts.push_back({tail, 1});
  return parts;
}

void tileRegisters(RewriterBase &rewriter, Operation *op, unsigned m,
                   unsigned n, int64_t rows, int64_t cols) {
  if (!op)
    return;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  SmallVector<int64_t> sizes(linalgOp.getNumLoops(), 1);
  sizes[m] = rows;
  sizes[n] = cols;
  sizes.back() = 1; // the K loop, innermost
  auto tiled = tile(rewriter, op, sizes);
  if (failed(tiled))
    return;
  // The part was split so that its tiles are full; peeling proves it to
  // the folder (the remainder iterations are empty).
  for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops))
    peel(rewriter, loop);
}

} // namespace txc
