//===- TileAndVectorize.cpp - Per-op tiling and vectorization -------------===//
//
// The strategy for each linalg op on tensors, chosen from its kind, its
// static sizes and the target's vector registers:
//
//  * Contractions (linalg.matmul, linalg.batch_matmul): cache tiles over N
//    and K (a panel of B that stays in L2), then an MR x NR register tile
//    with a K loop of step 1, so that the MR x NR accumulator lives in
//    registers and each K step is MR broadcasts and MR*NR/lanes FMAs.
//  * NCHW convolutions: as matmuls on a packed filter, over column phases
//    for a column stride, as one im2col matmul per image for narrow output
//    rows; depthwise ones as one elementwise sum over their taps.
//  * Elementwise ops: one row at a time, vector-width multiples along the
//    innermost dimension.
//
// Tile loops whose trip count does not divide the size (dynamic or
// non-divisible dims) are peeled: the main loop runs full, static tiles
// that vectorize; the remainder runs smaller tiles (rows of one, or scalar
// code for the last few columns). Naive tiling of such shapes would leave
// every tile dynamic and unvectorized (about 2 GFLOPS instead of ~100).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "Passes.h.inc"

namespace {

/// Largest static iteration space (in elements) that is vectorized as a
/// whole; anything larger must be tiled first.
constexpr int64_t kMaxVectorElements = 4096;

/// Matmul cache tiles: B is cut into KC x NC panels (see tileMatmul).
constexpr int64_t nc = 128, kc = 1024;

/// Marks the epilogue of a matmul while its tiles are built, so that the
/// copies that peeling makes are found again.
constexpr StringLiteral kEpilogue = "txc.epilogue";

bool hasStaticShape(linalg::LinalgOp op) {
  return llvm::none_of(op.getStaticLoopRanges(),
                       [](int64_t size) { return ShapedType::isDynamic(size); });
}

/// An op with a static 0 among its loop ranges computes nothing; tiling it
/// would divide by its extent.
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

/// Whether `op` reads or writes a bool (i1) tensor. Such ops stay scalar:
/// a bool buffer holds one byte per element, but LLVM loads and stores
/// vectors of i1 as packed bits, so vector transfers of them would read and
/// write the wrong bytes.
bool touchesBoolMemory(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperands(), [](Value operand) {
    auto shaped = dyn_cast<ShapedType>(operand.getType());
    return shaped && shaped.getElementType().isInteger(1);
  });
}

/// Whether `op`'s body computes a math function (an inline polynomial or a
/// C library call per lane) or a division.
bool hasCostlyOps(linalg::LinalgOp op) {
  return llvm::any_of(op.getBlock()->getOperations(), [](Operation &inner) {
    return isa<arith::DivFOp>(inner) ||
           isa_and_nonnull<math::MathDialect>(inner.getDialect());
  });
}

/// Tiles `op` and replaces it; returns the loops (outermost first) and the
/// tiled op.
FailureOr<scf::SCFTilingResult> tile(RewriterBase &rewriter, Operation *op,
                                     ArrayRef<int64_t> sizes,
                                     ArrayRef<int64_t> interchange = {}) {
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
  rewriter.replaceOp(op, result->replacements);
  return result;
}

/// Tiles `root` by `sizes`, fuses the producers that `fuse` accepts (all
/// by default) into the innermost loop, and replaces `root`'s results.
/// Fails if nothing was tiled.
FailureOr<scf::SCFTileAndFuseResult>
tileAndFuse(RewriterBase &rewriter, Operation *root, ArrayRef<int64_t> sizes,
            function_ref<bool(Operation *)> fuse = nullptr) {
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

struct PackedPanel;

/// The codegen strategy, parameterized by the target.
class Strategy {
public:
  Strategy(VectorTarget target, RewriterBase &rewriter)
      : target(target), rewriter(rewriter) {}

  void tileMatmul(linalg::LinalgOp op);
  void tileElementwise(linalg::LinalgOp op);
  void tileConvolution(linalg::Conv2DNchwFchwOp op);
  bool tileConvolutionAsMatmuls(linalg::Conv2DNchwFchwOp op);
  bool tileConvolutionAsOneMatmul(linalg::Conv2DNchwFchwOp op);
  /// Softmax-like chains: an elementwise op consuming reductions along its
  /// innermost dimension. Returns false if `op` is not the root of one.
  bool tileRowChain(linalg::LinalgOp op);

private:
  void tileRowOps(scf::ForOp rowLoop, unsigned elementBits);
  /// Register tile: MR rows x NR columns of accumulators, NR two vectors
  /// wide, MR as many rows as leave registers for the B vectors and the A
  /// broadcast (6 x 2 of 16 registers, 8 x 2 of 32).
  std::pair<int64_t, int64_t> registerTile(unsigned elementBits) const {
    int64_t lanes = target.lanes(elementBits);
    int64_t mr = target.vectorRegisters >= 32 ? 8 : 6;
    return {mr, 2 * lanes};
  }
  /// Splits `op` along `dim` at the largest multiple of `multiple` that fits,
  /// so that the first part tiles evenly. Returns {whole, none} when the
  /// split is not needed, {none, whole} when no full tile fits.
  std::pair<Operation *, Operation *> splitForTiles(Operation *op,
                                                    unsigned dim,
                                                    int64_t multiple);
  void tileRegisters(Operation *op, unsigned m, unsigned n, int64_t rows,
                     int64_t cols);
  /// Splits `op` along rows `m` into parts that each tile evenly, paired
  /// with their tile height: full MR tiles first, then the remainder.
  SmallVector<std::pair<Operation *, int64_t>> splitRows(Operation *op,
                                                         unsigned m,
                                                         int64_t mr);
  bool tileSmallMatmul(linalg::LinalgOp op, unsigned m,
                       linalg::LinalgOp epilogue);
  bool tileMatmulWithEpilogue(linalg::LinalgOp op, linalg::LinalgOp epilogue);
  FailureOr<scf::SCFTileAndFuseResult>
  tileEpilogue(Operation *epilogue, ArrayRef<int64_t> sizes);
  void usePackedStrip(Operation *strip, const PackedPanel &packed,
                      ArrayRef<LoopLikeOpInterface> loops);
  void tileEpilogueRows(Operation *strip, int64_t mr);
  void tileDepth(Operation *epilogue);
  void forwardDimsToInits(Operation *op);
  FailureOr<PackedPanel> packPanel(linalg::LinalgOp panel, int64_t nr);
  Operation *packRightHandSide(linalg::LinalgOp panel, int64_t nr);

  VectorTarget target;
  RewriterBase &rewriter;
};

std::pair<Operation *, Operation *>
Strategy::splitForTiles(Operation *op, unsigned dim, int64_t multiple) {
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
Strategy::splitRows(Operation *op, unsigned m, int64_t mr) {
  SmallVector<std::pair<Operation *, int64_t>> parts;
  auto [main, tail] = splitForTiles(op, m, mr);
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
    auto [tiled, rest] = splitForTiles(tail, m, rows);
    if (tiled)
      parts.push_back({tiled, rows});
    tail = rest;
  }
  if (tail)
    parts.push_back({tail, 1});
  return parts;
}

void Strategy::tileRegisters(Operation *op, unsigned m, unsigned n,
                             int64_t rows, int64_t cols) {
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

/// Matmuls with a small static right-hand side (a weight that fits in a few
/// registers, e.g. 4x3) run one row at a time with the whole row as one
/// vector contraction, and the accumulator's initial value (zero or the
/// bias) and the epilogue (if any) computed in the same row loop: no loop
/// overhead for tiny rows.
bool Strategy::tileSmallMatmul(linalg::LinalgOp op, unsigned m,
                               linalg::LinalgOp epilogue) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  unsigned n = m + 1, k = m + 2;
  constexpr int64_t kSmallWeight = 256;
  if (ShapedType::isDynamic(sizes[n]) || ShapedType::isDynamic(sizes[k]) ||
      sizes[n] * sizes[k] > kSmallWeight)
    return false;
  linalg::LinalgOp root = epilogue ? epilogue : op;
  SmallVector<int64_t> rows(root.getNumLoops(), 0);
  for (unsigned d = 0; d <= m; ++d)
    rows[d] = 1;
  return succeeded(tileAndFuse(rewriter, root, rows));
}

/// The elementwise op that is the only reader of `matmul`'s result and reads
/// it element for element over the same (m, n) domain: the activation or
/// residual add after a linear layer. Fused into the register tiles, it runs
/// on the accumulators before they are stored.
linalg::LinalgOp fusableEpilogue(linalg::LinalgOp matmul) {
  Value result = matmul->getResult(0);
  if (!result.hasOneUse())
    return {};
  OpOperand &use = *result.getUses().begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!consumer || !isParallelElementwise(consumer) ||
      consumer.getNumLoops() != 2 || consumer->getNumResults() != 1 ||
      consumer.isDpsInit(&use) || touchesBoolMemory(consumer))
    return {};
  // A math function would be copied into every register tile variant (6, 4,
  // 2 and 1 rows): gelu, tanh and silu epilogues made 10-op programs take
  // 1.7 s to compile instead of 0.9. They run as a separate pass instead,
  // where the function is a small part of the work anyway.
  if (hasCostlyOps(consumer))
    return {};
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(2, matmul->getContext());
  if (consumer.getMatchingIndexingMap(&use) != identity ||
      consumer.getIndexingMapMatchingResult(consumer->getResult(0)) !=
          identity)
    return {};
  // Another contraction among the inputs would be fused instead of this one.
  for (Value input : consumer.getDpsInputs()) {
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    if (producer && producer != matmul &&
        linalg::isaContractionOpInterface(producer))
      return {};
  }
  return consumer;
}

/// The contraction that an epilogue (or a tile of one) reads.
linalg::LinalgOp epilogueMatmul(Operation *epilogue) {
  for (Value input : cast<linalg::LinalgOp>(epilogue).getDpsInputs()) {
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    if (producer && isMatmulLike(producer))
      return producer;
  }
  return {};
}

/// The epilogues (or tiles of them) under `roots`.
SmallVector<Operation *> epiloguesIn(ArrayRef<Operation *> roots) {
  SmallVector<Operation *> found;
  for (Operation *root : roots)
    if (root)
      root->walk([&](linalg::LinalgOp op) {
        if (op->hasAttr(kEpilogue))
          found.push_back(op);
      });
  return found;
}

struct PackedPanel {
  Value packed;
  OpFoldResult depth;
  int64_t nr;

  /// Strip `strip` of the panel as a [depth][nr] tensor.
  Value strip(OpBuilder &b, Location loc, OpFoldResult strip) const {
    SmallVector<OpFoldResult> offsets = {strip, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), depth,
                                       b.getIndexAttr(nr)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    auto type = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
        2, cast<RankedTensorType>(packed.getType()), offsets, sizes, strides);
    return b.create<tensor::ExtractSliceOp>(loc, type, packed, offsets, sizes,
                                            strides);
  }
};

/// Packs the B operand of `panel` (see PackedPanel) with a vectorizable copy
/// placed before `panel`. Fails for a batch, a ragged width, or too few rows
/// to pay for the copy.
FailureOr<PackedPanel> Strategy::packPanel(linalg::LinalgOp panel,
                                           int64_t nr) {
  bool transposed = isa<linalg::MatmulTransposeBOp>(panel.getOperation());
  if (!transposed && !isa<linalg::MatmulOp>(panel.getOperation()))
    return failure();
  Value lhs = panel.getDpsInputs()[0], rhs = panel.getDpsInputs()[1];
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  unsigned depthDim = transposed ? 1 : 0, widthDim = transposed ? 0 : 1;
  int64_t width = rhsType.getDimSize(widthDim), rows = lhsType.getDimSize(0);
  constexpr int64_t kMinRows = 16;
  if (ShapedType::isDynamic(width) || width % nr != 0 ||
      (!ShapedType::isDynamic(rows) && rows < kMinRows))
    return failure();
  Location loc = panel->getLoc();
  Type element = rhsType.getElementType();
  int64_t strips = width / nr, depth = rhsType.getDimSize(depthDim);
  rewriter.setInsertionPoint(panel);
  OpFoldResult depthSize = tensor::getMixedSize(rewriter, loc, rhs, depthDim);

  // [depth][width] -> [depth][strips][nr] (or [width][depth] ->
  // [strips][nr][depth]) -> copied to [strips][depth][nr].
  SmallVector<int64_t> expandedShape =
      transposed ? SmallVector<int64_t>{strips, nr, depth}
                 : SmallVector<int64_t>{depth, strips, nr};
  SmallVector<OpFoldResult> expandedSizes =
      transposed ? SmallVector<OpFoldResult>{rewriter.getIndexAttr(strips),
                                             rewriter.getIndexAttr(nr),
                                             depthSize}
                 : SmallVector<OpFoldResult>{depthSize,
                                             rewriter.getIndexAttr(strips),
                                             rewriter.getIndexAttr(nr)};
  SmallVector<ReassociationIndices> reassociation =
      transposed ? SmallVector<ReassociationIndices>{{0, 1}, {2}}
                 : SmallVector<ReassociationIndices>{{0}, {1, 2}};
  Value expanded = rewriter.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get(expandedShape, element), rhs, reassociation,
      expandedSizes);
  SmallVector<OpFoldResult> packedSizes = {rewriter.getIndexAttr(strips),
                                           depthSize, rewriter.getIndexAttr(nr)};
  Value empty = rewriter.create<tensor::EmptyOp>(loc, packedSizes, element);
  MLIRContext *context = rewriter.getContext();
  AffineExpr k, s, r;
  bindDims(context, k, s, r);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0,
                     transposed ? ArrayRef<AffineExpr>{s, r, k}
                                : ArrayRef<AffineExpr>{k, s, r},
                     context),
      AffineMap::get(3, 0, {s, k, r}, context)};
  SmallVector<utils::IteratorType> parallel(3, utils::IteratorType::parallel);
  auto pack = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{empty.getType()}, ValueRange{expanded}, ValueRange{empty},
      maps, parallel, [](OpBuilder &b, Location loc, ValueRange args) {
        b.create<linalg::YieldOp>(loc, args[0]);
      });
  PackedPanel result{pack.getResult(0), depthSize, nr};
  // The copy runs a row of nr elements at a time (one or two vectors); a
  // transposing one 8 rows of the strip at a time (an 8 x nr transpose).
  SmallVector<int64_t> packTiles = {transposed ? 8 : 1, 1, 0};
  auto packLoops = tile(rewriter, pack, packTiles);
  if (failed(packLoops) || packLoops->loops.empty())
    return result;
  result.packed = packLoops->replacements.front();
  if (transposed && (ShapedType::isDynamic(depth) || depth % 8))
    if (scf::ForOp remainder = peel(rewriter, packLoops->loops.front()))
      result.packed = remainder.getResult(0);
  return result;
}

/// Packs the B panel of a cache-tiled matmul and replaces the panel by a
/// loop over the strips, each an M x NR matmul returned for register tiling.
/// Returns `panel` itself if it is not packed.
Operation *Strategy::packRightHandSide(linalg::LinalgOp panel, int64_t nr) {
  FailureOr<PackedPanel> packed = packPanel(panel, nr);
  if (failed(packed))
    return panel;
  Operation *matmul = panel.getOperation();
  Location loc = matmul->getLoc();
  Value lhs = panel.getDpsInputs()[0], acc = panel.getDpsInits()[0];
  int64_t strips =
      cast<RankedTensorType>(packed->packed.getType()).getDimSize(0);
  rewriter.setInsertionPoint(matmul);
  OpFoldResult rowCount = tensor::getMixedSize(rewriter, loc, lhs, 0);

  // for strip in [0, strips): acc[:, strip*nr : +nr] += lhs * packed[strip].
  Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value count = rewriter.create<arith::ConstantIndexOp>(loc, strips);
  linalg::MatmulOp stripMatmul;
  auto loop = rewriter.create<scf::ForOp>(
      loc, zero, count, one, ValueRange{acc},
      [&](OpBuilder &b, Location loc, Value strip, ValueRange iterArgs) {
        OpFoldResult column = affine::makeComposedFoldedAffineApply(
            b, loc, b.getAffineDimExpr(0) * nr, {OpFoldResult(strip)});
        Value rhsStrip = packed->strip(b, loc, strip);
        SmallVector<OpFoldResult> accOffsets = {b.getIndexAttr(0), column};
        SmallVector<OpFoldResult> accSizes = {rowCount, b.getIndexAttr(nr)};
        SmallVector<OpFoldResult> accStrides(2, b.getIndexAttr(1));
        Value accStrip = b.create<tensor::ExtractSliceOp>(
            loc, iterArgs[0], accOffsets, accSizes, accStrides);
        stripMatmul = b.create<linalg::MatmulOp>(
            loc, accStrip.getType(), ValueRange{lhs, rhsStrip},
            ValueRange{accStrip});
        Value updated = b.create<tensor::InsertSliceOp>(
            loc, stripMatmul.getResult(0), iterArgs[0], accOffsets, accSizes,
            accStrides);
        b.create<scf::YieldOp>(loc, updated);
      });
  rewriter.replaceOp(matmul, loop.getResults());
  return stripMatmul;
}

/// Makes the size queries (tensor.dim) of `op`'s results, such as the bounds
/// of the loops that replaced it, read the sizes of its inits instead, which
/// are the same: otherwise a whole untiled bias broadcast would be computed
/// only to give the row count.
void Strategy::forwardDimsToInits(Operation *op) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps)
    return;
  for (OpResult result : op->getResults())
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses()))
      if (auto dim = dyn_cast<tensor::DimOp>(use.getOwner()))
        rewriter.modifyOpInPlace(dim, [&] {
          dim.getSourceMutable().assign(dps.getTiedOpOperand(result)->get());
        });
}

/// Tiles the epilogue `epilogue` by `sizes` and fuses its matmul, and the
/// op that computes the matmul's initial value (the broadcast bias or a zero
/// fill), into each tile. The untiled ops are erased.
FailureOr<scf::SCFTileAndFuseResult>
Strategy::tileEpilogue(Operation *epilogue, ArrayRef<int64_t> sizes) {
  linalg::LinalgOp matmul = epilogueMatmul(epilogue);
  if (!matmul)
    return failure();
  Operation *init = matmul.getDpsInitOperand(0)->get().getDefiningOp();
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileAndFuse(rewriter, epilogue, sizes, [&](Operation *producer) {
        return producer == matmul.getOperation() || producer == init;
      });
  if (failed(fused))
    return failure();
  for (Operation *dead : {epilogue, matmul.getOperation(), init}) {
    if (!dead)
      continue;
    forwardDimsToInits(dead);
    if (dead->use_empty())
      rewriter.eraseOp(dead);
  }
  return fused;
}

/// Makes the matmul of the epilogue tile `strip`, an NR-wide strip of the
/// panel iterated by `loops`, read its B from the packed panel.
void Strategy::usePackedStrip(Operation *strip, const PackedPanel &packed,
                              ArrayRef<LoopLikeOpInterface> loops) {
  linalg::LinalgOp matmul = epilogueMatmul(strip);
  LoopLikeOpInterface stripLoop = loops.back();
  auto loop = dyn_cast<scf::ForOp>(stripLoop.getOperation());
  if (!matmul || !loop)
    return;
  Location loc = matmul->getLoc();
  rewriter.setInsertionPoint(matmul);
  // The strip loop steps over the columns NR at a time from 0.
  OpFoldResult index = affine::makeComposedFoldedAffineApply(
      rewriter, loc, rewriter.getAffineDimExpr(0).floorDiv(packed.nr),
      {OpFoldResult(loop.getInductionVar())});
  Value rhs = packed.strip(rewriter, loc, index);
  auto replacement = rewriter.create<linalg::MatmulOp>(
      loc, matmul->getResultTypes(), ValueRange{matmul.getDpsInputs()[0], rhs},
      ValueRange{matmul.getDpsInits()[0]});
  rewriter.replaceOp(matmul, replacement->getResults());
}

/// The K loop of the matmul of a register tile: the accumulators stay in
/// registers across it.
void Strategy::tileDepth(Operation *epilogue) {
  linalg::LinalgOp matmul = epilogueMatmul(epilogue);
  if (!matmul)
    return;
  SmallVector<int64_t> sizes(matmul.getNumLoops(), 0);
  sizes.back() = 1;
  (void)tile(rewriter, matmul, sizes);
}

/// Register tiles of an NR-wide epilogue strip: MR rows at a time, then the
/// remaining rows as one shorter tile (static) or at most one tile each of
/// 4, 2 and 1 rows (dynamic), as splitRows does for a plain matmul.
void Strategy::tileEpilogueRows(Operation *strip, int64_t mr) {
  Operation *rest = strip;
  for (int64_t rows = mr; rest && rows >= 1;
       rows = rows == mr ? int64_t(llvm::PowerOf2Ceil(mr)) / 2 : rows / 2) {
    FailureOr<scf::SCFTileAndFuseResult> fused = tileEpilogue(rest, {rows, 0});
    if (failed(fused))
      return;
    scf::ForOp remainder = peel(rewriter, fused->loops.front());
    tileDepth(fused->tiledAndFusedOps.front());
    rest = nullptr;
    if (!remainder)
      break;
    SmallVector<Operation *> tail = epiloguesIn({remainder});
    if (tail.size() != 1)
      break;
    // Static bounds leave a remainder of static height (the tile's types
    // say so only after canonicalization).
    if (getConstantIntValue(remainder.getLowerBound()) &&
        getConstantIntValue(remainder.getUpperBound())) {
      tileDepth(tail.front());
      break;
    }
    rest = tail.front();
  }
}

/// A matmul whose result only feeds an elementwise epilogue: the epilogue is
/// the root of the tiling and the matmul and its initial value are fused
/// into each tile, so that the epilogue runs on the accumulators while they
/// are in registers and the matmul's result is never stored (no second pass
/// over the output, no temporary of the output's size). The tiles are those
/// of tileMatmul: NC-wide panels, packed NR-wide strips, MR x NR register
/// tiles. A depth beyond one cache tile (K > KC, or symbolic) leaves the
/// epilogue to run after the matmul (the accumulators are final only after
/// the last K panel).
bool Strategy::tileMatmulWithEpilogue(linalg::LinalgOp op,
                                      linalg::LinalgOp epilogue) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  unsigned bits =
      getElementTypeOrSelf(op->getResult(0).getType()).getIntOrFloatBitWidth();
  auto [mr, nr] = registerTile(bits);
  int64_t width = sizes[1], depth = sizes[2];
  if (ShapedType::isDynamic(width) || width % nr ||
      ShapedType::isDynamic(depth) || depth > kc)
    return false;
  epilogue->setAttr(kEpilogue, rewriter.getUnitAttr());
  SmallVector<Operation *> panels = {epilogue};
  if (width > nc) {
    FailureOr<scf::SCFTileAndFuseResult> fused =
        tileEpilogue(epilogue, {0, nc});
    if (failed(fused)) {
      epilogue->removeAttr(kEpilogue);
      return false;
    }
    Operation *mainLoop = fused->loops.front().getOperation();
    Operation *remainder = peel(rewriter, fused->loops.front());
    // The panels' widths are static after peeling, but their types say so
    // only after canonicalization (packing needs to know).
    for (Operation *loop : {mainLoop, remainder})
      if (loop)
        canonicalize(loop);
    panels = epiloguesIn({mainLoop, remainder});
  }
  for (Operation *panel : panels) {
    FailureOr<PackedPanel> packed = packPanel(epilogueMatmul(panel), nr);
    FailureOr<scf::SCFTileAndFuseResult> strips =
        tileEpilogue(panel, {0, nr});
    if (failed(strips))
      continue;
    Operation *strip = strips->tiledAndFusedOps.front();
    if (succeeded(packed))
      usePackedStrip(strip, *packed, strips->loops);
    tileEpilogueRows(strip, mr);
  }
  return true;
}

void Strategy::tileMatmul(linalg::LinalgOp op) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  bool batched = isa<linalg::BatchMatmulOp>(op);
  unsigned m = batched ? 1 : 0, n = m + 1, k = m + 2;
  if (hasEmptyLoopRange(op))
    return;
  linalg::LinalgOp epilogue = batched ? nullptr : fusableEpilogue(op);
  if (tileSmallMatmul(op, m, epilogue))
    return;
  if (epilogue && tileMatmulWithEpilogue(op, epilogue))
    return;
  unsigned bits =
      getElementTypeOrSelf(op->getResult(0).getType()).getIntOrFloatBitWidth();
  auto [mr, nr] = registerTile(bits);

  // Cache tiles: B is cut into KC x NC panels, each packed into strips of
  // NR columns (packRightHandSide); a strip (KC x NR, 64 KiB of f32) stays
  // in L2 while all rows of A pass over it. Only for large static N or K;
  // the panel loop over N is peeled so that every panel has a static width.
  // KC = 1024 measured best at sgemm 1024 on Zen 3 (KC 256: 71, 512: 84,
  // 1024: 90 GFLOPS): each accumulator tile is loaded and stored once per
  // KC steps.
  bool bigN = !ShapedType::isDynamic(sizes[n]) && sizes[n] > nc;
  bool bigK = ShapedType::isDynamic(sizes[k]) || sizes[k] > kc;
  SmallVector<Operation *> panels = {op};
  if (bigN || bigK) {
    auto function = op->getParentOfType<func::FuncOp>();
    // The panels are found again by a mark that tiling copies to them: a
    // set of the other matmuls' addresses could name a panel created
    // where an op erased by canonicalization was (which panel is
    // register-tiled then depended on the heap's layout).
    constexpr StringLiteral kPanel = "txc.panel";
    op->setAttr(kPanel, rewriter.getUnitAttr());
    SmallVector<int64_t> cache(sizes.size(), 0);
    cache[n] = bigN ? nc : 0;
    cache[k] = bigK ? kc : 0;
    SmallVector<int64_t> interchange =
        batched ? SmallVector<int64_t>{0, 2, 1, 3} : SmallVector<int64_t>{1, 0, 2};
    auto cached = tile(rewriter, op, cache, interchange);
    if (failed(cached)) {
      op->removeAttr(kPanel);
      return;
    }
    if (bigN)
      peel(rewriter, cached->loops[batched ? 1 : 0]);
    // Canonicalization may fold a panel loop with a single iteration away,
    // so the panels are found by their mark, not from the tiling's result.
    canonicalize(function);
    panels.clear();
    function.walk([&](linalg::LinalgOp inner) {
      if (!inner->hasAttr(kPanel))
        return;
      inner->removeAttr(kPanel);
      if (isMatmulLike(inner) && inner->getParentOfType<scf::ForOp>())
        panels.push_back(inner);
    });
  }

  // Register tiles. Rows and columns that do not fill a tile are split off
  // first, so that the main part runs only full MR x NR tiles; remainder
  // rows run one at a time, remainder columns as one narrower tile (static
  // widths) or one at a time (dynamic widths).
  for (Operation *panel : panels) {
    if (!batched)
      panel = packRightHandSide(cast<linalg::LinalgOp>(panel), nr);
    for (auto [part, rows] : splitRows(panel, m, mr)) {
      if (!part)
        continue;
      auto [colsMain, colsTail] = splitForTiles(part, n, nr);
      tileRegisters(colsMain, m, n, rows, nr);
      if (colsTail) {
        int64_t width =
            cast<linalg::LinalgOp>(colsTail).getStaticLoopRanges()[n];
        tileRegisters(colsTail, m, n, rows,
                      ShapedType::isDynamic(width) ? 1 : width);
      }
    }
  }
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

/// True if `op` reduces along the innermost dimension of its iteration space
/// only (a row reduction: max, sum, mean along the last axis).
bool isRowReduction(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  return op.hasPureTensorSemantics() && iterators.size() >= 1 &&
         iterators.back() == utils::IteratorType::reduction &&
         llvm::count(iterators, utils::IteratorType::reduction) == 1 &&
         !linalg::isaContractionOpInterface(op);
}

/// True if a row reduction feeds `op` (directly or through other ops).
/// Each producer is visited once: a residual network reaches the same
/// producers along exponentially many paths.
bool consumesRowReduction(Operation *root) {
  SmallVector<std::pair<Operation *, unsigned>> worklist = {{root, 0}};
  llvm::DenseSet<Operation *> visited = {root};
  while (!worklist.empty()) {
    auto [op, depth] = worklist.pop_back_val();
    if (depth > 8)
      continue;
    for (Value operand : op->getOperands()) {
      auto producer = operand.getDefiningOp<linalg::LinalgOp>();
      if (!producer || !visited.insert(producer).second)
        continue;
      if (isRowReduction(producer))
        return true;
      worklist.push_back({producer, depth + 1});
    }
  }
  return false;
}

/// The producers that fusing into `root`'s row loop may clone: linalg ops
/// other than contractions whose every use is `root` or another such
/// producer. A producer that something outside the chain also reads (the
/// input of a residual block, a matmul's operand) is computed once, not
/// again inside each chain that reads it: fusing everything would
/// recompute whole earlier layers per row (40 ops: 39 s of compile).
llvm::DenseSet<Operation *> rowChainProducers(Operation *root) {
  llvm::DenseSet<Operation *> cone;
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      auto producer = operand.getDefiningOp<linalg::LinalgOp>();
      if (producer && producer.hasPureTensorSemantics() &&
          !linalg::isaContractionOpInterface(producer) &&
          cone.insert(producer).second)
        worklist.push_back(producer);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : llvm::to_vector(cone)) {
      bool usedOutside = llvm::any_of(op->getUsers(), [&](Operation *user) {
        return user != root && !cone.contains(user);
      });
      if (usedOutside) {
        cone.erase(op);
        changed = true;
      }
    }
  }
  return cone;
}

bool Strategy::tileRowChain(linalg::LinalgOp op) {
  unsigned rank = op.getNumLoops();
  if (rank < 2 || !isParallelElementwise(op) || !consumesRowReduction(op) ||
      op->getNumResults() != 1 || hasEmptyLoopRange(op))
    return false;
  // A single row (every outer extent a static 1) has no row loop: tiling
  // would give back the same untiled ops, found again as roots forever.
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::all_of(ArrayRef<int64_t>(extents).drop_back(),
                   [](int64_t extent) { return extent == 1; }))
    return false;
  unsigned bits = getElementTypeOrSelf(op->getResult(0).getType())
                      .getIntOrFloatBitWidth();
  // One row per iteration, with the whole chain of producers (the
  // reductions and the elementwise ops between them) fused into the row
  // loop: the row stays in cache between the passes over it.
  SmallVector<int64_t> rows(rank, 1);
  rows.back() = 0;
  llvm::DenseSet<Operation *> fusable = rowChainProducers(op);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileAndFuse(rewriter, op, rows, [&](Operation *producer) {
        return fusable.contains(producer);
      });
  if (failed(fused))
    return false;
  // Fusion recomputes a producer shared by two consumers (exp feeds both
  // the sum and the division in softmax); CSE merges the copies. The
  // canonicalizer may rebuild the loop, so it is found again by a mark.
  constexpr StringLiteral kRowLoop = "txc.row_loop";
  Operation *innermost = fused->loops.back().getOperation();
  innermost->setAttr(kRowLoop, rewriter.getUnitAttr());
  auto function = innermost->getParentOfType<func::FuncOp>();
  canonicalize(function);
  scf::ForOp rowLoop;
  function.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kRowLoop))
      rowLoop = loop;
  });
  if (!rowLoop)
    return true;
  rowLoop->removeAttr(kRowLoop);
  tileRowOps(rowLoop, bits);
  return true;
}

/// Inside a row loop: elementwise ops and reductions along the row in
/// vector-sized chunks. A reduction keeps a vector of partial results
/// across the chunks and combines it once at the end of the row.
void Strategy::tileRowOps(scf::ForOp rowLoop, unsigned elementBits) {
  int64_t lanes = target.lanes(elementBits);
  SmallVector<linalg::LinalgOp> ops;
  rowLoop.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && op.getNumLoops() > 0)
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    int64_t chunk = (hasLongBody(op) ? 1 : 4) * lanes;
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    int64_t length = sizes.back();
    // Short or ragged static rows vectorize (or stay scalar) whole. Rows of
    // a dynamic length (attention over a symbolic sequence) run full
    // chunks, then a peeled remainder. (Peeling a static remainder of a
    // partial reduction computes wrong sums in MLIR 19: [5,37] softmax.)
    if (!ShapedType::isDynamic(length) && (length % chunk || length <= chunk))
      continue;
    SmallVector<int64_t> tileSizes(sizes.size(), 0);
    tileSizes.back() = chunk;
    rewriter.setInsertionPoint(op);
    SmallVector<LoopLikeOpInterface> loops;
    if (isRowReduction(op)) {
      auto partial = dyn_cast<PartialReductionOpInterface>(op.getOperation());
      if (!partial)
        continue;
      // Replaces `op` itself on success.
      FailureOr<scf::SCFReductionTilingResult> tiled =
          scf::tileReductionUsingScf(
              rewriter, partial,
              getAsIndexOpFoldResult(op->getContext(), tileSizes));
      if (succeeded(tiled))
        loops = tiled->loops;
    } else if (isParallelElementwise(op)) {
      FailureOr<scf::SCFTilingResult> tiled = tile(rewriter, op, tileSizes);
      if (succeeded(tiled))
        loops = tiled->loops;
    }
    if (!loops.empty() && ShapedType::isDynamic(length))
      peel(rewriter, loops.back());
  }
}

/// A copy of `source` into `init`: element i of the result is `source`
/// at `read`(i).
linalg::GenericOp gatherCopy(RewriterBase &rewriter, Location loc,
                             Value source, Value init, AffineMap read) {
  unsigned rank = read.getNumDims();
  SmallVector<AffineMap> maps = {
      read, AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  return rewriter.create<linalg::GenericOp>(
      loc, TypeRange{init.getType()}, ValueRange{source}, ValueRange{init},
      maps, parallel, [](OpBuilder &b, Location loc, ValueRange args) {
        b.create<linalg::YieldOp>(loc, args[0]);
      });
}

/// The filter [F][C][KH][KW] of a convolution copied to
/// [F/fc][KH][KW][C][fc]: the fc filter values a register tile broadcasts
/// in one reduction step (one kh, kw, c) become adjacent, one cache line,
/// instead of fc values C*KH*KW elements apart; and the [C][fc] slice of
/// one (kh, kw) is contiguous. Copied once per call.
Value packFilter(RewriterBase &rewriter, Location loc, Value filter,
                 int64_t fc) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> shape = type.getShape(); // F, C, KH, KW
  int64_t strips = shape[0] / fc, c = shape[1], kh = shape[2], kw = shape[3];
  Type element = type.getElementType();
  Value expanded = rewriter.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({strips, fc, c, kh, kw}, element), filter,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
  Value empty = rewriter.create<tensor::EmptyOp>(
      loc, ArrayRef<int64_t>{strips, kh, kw, c, fc}, element);
  MLIRContext *context = rewriter.getContext();
  AffineExpr s, h, w, ch, r;
  bindDims(context, s, h, w, ch, r);
  linalg::GenericOp pack =
      gatherCopy(rewriter, loc, expanded, empty,
                 AffineMap::get(5, 0, {s, r, ch, h, w}, context));
  // One vector of fc per step (a strided read of fc scalars).
  auto tiled = tile(rewriter, pack, {1, 1, 1, 1, 0});
  return succeeded(tiled) ? tiled->replacements[0] : pack.getResult(0);
}

/// The slice of `source` at `offsets` of `sizes`, as a 2-D tensor of
/// `shape` (the sizes without the dims the caller drops; a matmul operand
/// of 1 column stays 2-D).
Value sliceOf(OpBuilder &b, Location loc, Value source,
              ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> shape) {
  SmallVector<OpFoldResult> sizeValues =
      getAsIndexOpFoldResult(b.getContext(), sizes);
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(source.getType()).getElementType());
  return b.create<tensor::ExtractSliceOp>(loc, type, source, offsets,
                                          sizeValues, strides);
}

/// Rewrites one tile of a convolution with unit column stride (one image,
/// fc output channels, one output row, wc columns, all of C, KH, KW) as
/// KH*KW matmuls: for each (kh, kw), out[f][w] += sum over c of
/// packed[f/fc][kh][kw][c][f%fc] * in[c][kh*DH][w + kw*DW], in the tile's
/// input slice. The matmul (a matmul_transpose_a: the packed filter slice
/// is [C][fc]) is returned for register tiling; its [fc][wc] accumulator
/// is the same for all KH*KW steps, so it stays in registers.
Operation *rewriteConvolutionTile(RewriterBase &rewriter,
                                  linalg::Conv2DNchwFchwOp conv,
                                  Value packed, Value firstFilter,
                                  int64_t fc) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0], out = conv.getDpsInits()[0];
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(conv.getOperation()).getStaticLoopRanges();
  int64_t wc = sizes[3], c = sizes[4], kh = sizes[5], kw = sizes[6];
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  rewriter.setInsertionPoint(conv);
  OpFoldResult zero = rewriter.getIndexAttr(0);
  SmallVector<OpFoldResult> outOffsets(4, zero);
  Value acc =
      sliceOf(rewriter, loc, out, outOffsets, {1, fc, 1, wc}, {fc, wc});
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  OpFoldResult strip = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(fc), {OpFoldResult(firstFilter)});
  Value lower = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value step = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value rows = rewriter.create<arith::ConstantIndexOp>(loc, kh);
  Value cols = rewriter.create<arith::ConstantIndexOp>(loc, kw);
  Operation *matmul = nullptr;
  auto buildStep = [&](OpBuilder &b, Location loc, Value row, Value col,
                       Value stepAcc) {
    OpFoldResult inRow = affine::makeComposedFoldedAffineApply(
        b, loc, d0 * dilations[0], {OpFoldResult(row)});
    OpFoldResult inCol = affine::makeComposedFoldedAffineApply(
        b, loc, d0 * dilations[1], {OpFoldResult(col)});
    Value inSlice =
        sliceOf(b, loc, input, {zero, zero, inRow, inCol}, {1, c, 1, wc},
                {c, wc});
    Value filterSlice = sliceOf(b, loc, packed, {strip, row, col, zero, zero},
                                {1, 1, 1, c, fc}, {c, fc});
    matmul = b.create<linalg::MatmulTransposeAOp>(
        loc, stepAcc.getType(), ValueRange{filterSlice, inSlice}, stepAcc);
    b.create<scf::YieldOp>(loc, matmul->getResults());
  };
  auto rowLoop = rewriter.create<scf::ForOp>(
      loc, lower, rows, step, ValueRange{acc},
      [&](OpBuilder &b, Location loc, Value row, ValueRange rowAcc) {
        auto colLoop = b.create<scf::ForOp>(
            loc, lower, cols, step, rowAcc,
            [&](OpBuilder &b, Location loc, Value col, ValueRange colAcc) {
              buildStep(b, loc, row, col, colAcc[0]);
            });
        b.create<scf::YieldOp>(loc, colLoop.getResults());
      });
  SmallVector<OpFoldResult> outSizes =
      getAsIndexOpFoldResult(rewriter.getContext(), {1, fc, 1, wc});
  SmallVector<OpFoldResult> unitStrides(4, rewriter.getIndexAttr(1));
  Value result = rewriter.create<tensor::InsertSliceOp>(
      loc, rowLoop.getResult(0), out, outOffsets, outSizes, unitStrides);
  rewriter.replaceOp(conv, result);
  return matmul;
}

/// A copy of `source` (rank 4, static but for dim 0) regrouped for a
/// column stride `stride`: dim 1 becomes `phases` x dim 1, and column w of
/// phase p is source column stride*w + p, so that one phase is a unit-stride
/// view of every stride-th column. The last dim is zero-padded to a multiple
/// of `stride` first; the copy is one linalg.generic (scalar loops: it moves
/// each element once, where the convolution reads it KH*KW*F/4 times).
Value splitColumnPhases(RewriterBase &rewriter, Location loc, Value source,
                        int64_t stride, int64_t phases) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape(type.getShape());
  Type element = type.getElementType();
  int64_t width = llvm::divideCeil(shape[3], stride);
  if (width * stride != shape[3]) {
    SmallVector<OpFoldResult> low(4, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> high(low);
    high[3] = rewriter.getIndexAttr(width * stride - shape[3]);
    SmallVector<int64_t> padded(shape);
    padded[3] = width * stride;
    Value zero = rewriter.create<arith::ConstantOp>(
        loc, rewriter.getZeroAttr(element));
    source = rewriter.create<tensor::PadOp>(
        loc, RankedTensorType::get(padded, element), source, low, high, zero);
  }
  SmallVector<OpFoldResult> sizes = {
      tensor::getMixedSize(rewriter, loc, source, 0),
      rewriter.getIndexAttr(phases), rewriter.getIndexAttr(shape[1]),
      rewriter.getIndexAttr(shape[2]), rewriter.getIndexAttr(width)};
  Value empty = rewriter.create<tensor::EmptyOp>(loc, sizes, element);
  MLIRContext *context = rewriter.getContext();
  AffineExpr n, p, c, h, w;
  bindDims(context, n, p, c, h, w);
  linalg::GenericOp copy =
      gatherCopy(rewriter, loc, source, empty,
                 AffineMap::get(5, 0, {n, c, h, w * stride + p}, context));
  return rewriter.create<tensor::CollapseShapeOp>(
      loc, copy.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

/// A convolution with column stride s > 1 (and column dilation 1) as one
/// with column stride 1: kernel column kw = s*q + p reads input column
/// s*ow + kw = s*(ow + q) + p, column ow + q of phase p. So the input's
/// phases become P = min(s, KW) times the channels and the filter's the
/// same, with ceil(KW/s) kernel columns (the taps past KW zero):
/// out = conv_s1(phases(x), phases(w)), row stride unchanged. It does up to
/// s*ceil(KW/s)/KW times the multiply-adds (4/3 for 3x3 at stride 2) on the
/// packed matmul path instead of the strided row path, which ran resnet18's
/// three 3x3 stride-2 convolutions at about 2 GFLOPS (45% of its time).
/// Returns null when `op` does not have this form.
linalg::Conv2DNchwFchwOp unitColumnStride(RewriterBase &rewriter,
                                          linalg::Conv2DNchwFchwOp op) {
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  if (strides[1] == 1 || dilations[1] != 1 || !filterType.hasStaticShape() ||
      llvm::any_of(inputType.getShape().drop_front(), ShapedType::isDynamic))
    return nullptr;
  int64_t stride = strides[1], kw = filterType.getShape()[3];
  int64_t phases = std::min(stride, kw);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value phasedInput =
      splitColumnPhases(rewriter, loc, input, stride, phases);
  Value phasedFilter =
      splitColumnPhases(rewriter, loc, filter, stride, phases);
  auto conv = rewriter.create<linalg::Conv2DNchwFchwOp>(
      loc, op->getResultTypes(), ValueRange{phasedInput, phasedFilter},
      op.getDpsInits(), rewriter.getI64VectorAttr({strides[0], 1}),
      rewriter.getI64VectorAttr({dilations[0], 1}));
  rewriter.replaceOp(op, conv->getResults());
  return conv;
}

/// Each image of a convolution as one matmul [F, C*KH*KW] x [C*KH*KW, OH*OW]
/// into its output (the filter and the output are views): the right-hand
/// side is the image itself for a 1x1 unit-stride convolution, else its
/// im2col copy (each input element KH*KW times, once per call). The matmul
/// is then tiled like any other: strips of 16 output positions packed, the
/// output channels in 6-row register tiles. For output rows narrower than
/// one 16-column tile, where tileConvolutionAsMatmuls's row tiles are short
/// (resnet18's 7x7 layers ran at 11 GFLOPS as rows of 4 + 2 + 1 columns;
/// with this, resnet18 batch 1 went from 216 to 152 ms and mobilenet_v2
/// from 115 to 95 ms). Wider 1x1 convolutions stay row tiles: as one matmul
/// per image mobilenet_v2 took 118 ms.
bool Strategy::tileConvolutionAsOneMatmul(linalg::Conv2DNchwFchwOp op) {
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  // (n, f, oh, ow, c, kh, kw)
  int64_t oh = sizes[2], ow = sizes[3], c = sizes[4], kh = sizes[5],
          kw = sizes[6];
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
  bool pointwise = kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1;
  Operation *image = op;
  if (sizes[0] != 1) {
    auto tiled = tile(rewriter, op, {1, 0, 0, 0, 0, 0, 0});
    if (failed(tiled))
      return false;
    image = tiled->tiledOps.back();
  }
  if (!hasStaticShape(cast<linalg::LinalgOp>(image)))
    return true; // one image per iteration, lowered to loops
  auto conv = cast<linalg::Conv2DNchwFchwOp>(image);
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value out = conv.getDpsInits()[0];
  using Groups = ArrayRef<ReassociationIndices>;
  Value columns;
  if (pointwise) {
    columns = rewriter.create<tensor::CollapseShapeOp>(loc, input,
                                                       Groups{{0, 1}, {2, 3}});
  } else {
    Type element = getElementTypeOrSelf(input.getType());
    Value empty = rewriter.create<tensor::EmptyOp>(
        loc, ArrayRef<int64_t>{c, kh, kw, oh, ow}, element);
    MLIRContext *context = rewriter.getContext();
    AffineExpr ch, r, q, y, x;
    bindDims(context, ch, r, q, y, x);
    AffineMap read = AffineMap::get(
        5, 0,
        {getAffineConstantExpr(0, context), ch,
         y * strides[0] + r * dilations[0], x * strides[1] + q * dilations[1]},
        context);
    linalg::GenericOp im2col = gatherCopy(rewriter, loc, input, empty, read);
    columns = rewriter.create<tensor::CollapseShapeOp>(
        loc, im2col.getResult(0), Groups{{0, 1, 2}, {3, 4}});
  }
  Value weights = rewriter.create<tensor::CollapseShapeOp>(
      loc, filter, Groups{{0}, {1, 2, 3}});
  Value acc = rewriter.create<tensor::CollapseShapeOp>(loc, out,
                                                       Groups{{0, 1}, {2, 3}});
  auto matmul = rewriter.create<linalg::MatmulOp>(
      loc, TypeRange{acc.getType()}, ValueRange{weights, columns},
      ValueRange{acc});
  Value result = rewriter.create<tensor::ExpandShapeOp>(
      loc, out.getType(), matmul.getResult(0), Groups{{0, 1}, {2, 3}});
  rewriter.replaceOp(conv, result);
  tileMatmul(matmul);
  return true;
}

/// NCHW f32 convolutions with a multiple of 4 output channels (a column
/// stride first rewritten as unit stride by unitColumnStride; output rows
/// narrower than one tile go to tileConvolutionAsOneMatmul) run as matmuls
/// on a packed filter: tiles of one output
/// row by wc columns and 4 output channels (rewriteConvolutionTile), whose
/// reduction over (kh, kw, c) is a register tile of outer products like a
/// matmul's: 4 broadcasts of adjacent filter values and 2 vector loads of
/// an input row per step, 8 accumulators in registers (8 channels by 16
/// columns would need all 16 registers for accumulators and spills).
/// Returns false (nothing changed) for convolutions it does not handle.
bool Strategy::tileConvolutionAsMatmuls(linalg::Conv2DNchwFchwOp op) {
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  // (n, f, oh, ow, c, kh, kw)
  if (llvm::is_contained(sizes, 0) || ShapedType::isDynamic(sizes[1]) ||
      ShapedType::isDynamic(sizes[3]) ||
      llvm::any_of(ArrayRef(sizes).drop_front(4), ShapedType::isDynamic))
    return false;
  bool allF32 = llvm::all_of(op->getOperandTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isF32();
  });
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  if (!allF32)
    return false;
  if (sizes[3] < 2 * target.lanes(32))
    return tileConvolutionAsOneMatmul(op);
  constexpr int64_t fc = 4;
  if (sizes[1] % fc != 0)
    return false;
  if (strides[1] != 1) {
    op = unitColumnStride(rewriter, op);
    if (!op)
      return false;
  }
  rewriter.setInsertionPoint(op);
  Value packed = packFilter(rewriter, op.getLoc(), op.getDpsInputs()[1], fc);
  // Columns in parts of 2 vectors, then at most one part each of 8, 4, 2
  // and 1: a tile of 14 columns would be a vector<14>, which LLVM
  // scalarizes (2.3x slower at 14x14).
  Operation *rest = op;
  for (int64_t cols = 2 * target.lanes(32); cols >= 1 && rest; cols /= 2) {
    auto [part, tail] = splitForTiles(rest, 3, cols);
    rest = tail;
    if (!part)
      continue;
    auto tiled = tile(rewriter, part, {1, fc, 1, cols, 0, 0, 0});
    if (failed(tiled))
      return true; // the part stays a whole convolution, lowered to loops
    Value firstFilter =
        cast<scf::ForOp>(tiled->loops[1].getOperation()).getInductionVar();
    Operation *matmul = rewriteConvolutionTile(
        rewriter, cast<linalg::Conv2DNchwFchwOp>(tiled->tiledOps.back()),
        packed, firstFilter, fc);
    tileRegisters(matmul, 0, 1, fc, cols);
  }
  return true;
}

/// NCHW convolutions that tileConvolutionAsMatmuls does not take (output
/// channels not a multiple of 4, other element types, strided columns with
/// dilation):
/// one output row of one image per tile, OW columns
/// (up to 16) by up to 8 output channels, and one kernel row per step of a
/// reduction loop, so that the tile is a 1-D convolution (decomposed below)
/// that vectorizes along the row with the accumulators in registers.
/// Without this, the 7 loops run scalar with the accumulator in memory.
void Strategy::tileConvolution(linalg::Conv2DNchwFchwOp op) {
  if (tileConvolutionAsMatmuls(op))
    return;
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  // (n, f, oh, ow, c, kh, kw)
  int64_t channels = sizes[1], width = sizes[3];
  if (ShapedType::isDynamic(channels) || ShapedType::isDynamic(width) ||
      llvm::is_contained(sizes, 0) || llvm::any_of(ArrayRef(sizes).drop_front(4),
          [](int64_t s) { return ShapedType::isDynamic(s); }))
    return;
  int64_t channelTile = channels % 8 == 0 ? 8 : channels;
  int64_t widthTile = width % 16 == 0 ? 16 : width % 8 == 0 ? 8 : width;
  if (channelTile * widthTile > 256)
    return;
  (void)tile(rewriter, op, {1, channelTile, 1, widthTile, 0, 1, 0});
}

/// A depthwise NCHW f32 convolution as one elementwise op over its output,
/// whose operands are the KH*KW strided views of the input that the kernel
/// taps read (no copies) and the taps' [C] filter columns:
///   out[n, c, oh, ow] = init + sum over taps t of view_t[...] * filter_t[c],
/// the taps in the convolution's own (kh, kw) order, so the sum rounds as
/// at -O0. tileElementwise then vectorizes it along the output row with the
/// sum in registers; before, the depthwise convolutions ran as scalar
/// loops storing the accumulator every step (20-28% of the MobileNets' and
/// EfficientNet's time).
void unrollDepthwiseTaps(RewriterBase &rewriter,
                         linalg::DepthwiseConv2DNchwChwOp op) {
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  bool allF32 = llvm::all_of(op->getOperandTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isF32();
  });
  if (!allF32 || !filterType.hasStaticShape() ||
      llvm::any_of(outType.getShape().drop_front(), ShapedType::isDynamic) ||
      llvm::is_contained(outType.getShape(), 0) ||
      filterType.getNumElements() / filterType.getShape()[0] > 25)
    return;
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
  int64_t c = filterType.getShape()[0], kh = filterType.getShape()[1],
          kw = filterType.getShape()[2];
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<OpFoldResult> outSizes = {
      tensor::getMixedSize(rewriter, loc, init, 0),
      rewriter.getIndexAttr(c), rewriter.getIndexAttr(outType.getShape()[2]),
      rewriter.getIndexAttr(outType.getShape()[3])};
  SmallVector<OpFoldResult> viewStrides = {
      rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
      rewriter.getIndexAttr(strides[0]), rewriter.getIndexAttr(strides[1])};
  auto ones = [&](unsigned n) {
    return SmallVector<OpFoldResult>(n, rewriter.getIndexAttr(1));
  };
  SmallVector<Value> views, taps;
  for (int64_t r = 0; r < kh; ++r) {
    for (int64_t q = 0; q < kw; ++q) {
      SmallVector<OpFoldResult> offsets = {
          rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
          rewriter.getIndexAttr(r * dilations[0]),
          rewriter.getIndexAttr(q * dilations[1])};
      views.push_back(rewriter.create<tensor::ExtractSliceOp>(
          loc, outType, input, offsets, outSizes, viewStrides));
      SmallVector<OpFoldResult> tapOffsets = {rewriter.getIndexAttr(0),
                                              rewriter.getIndexAttr(r),
                                              rewriter.getIndexAttr(q)};
      SmallVector<OpFoldResult> tapSizes = {rewriter.getIndexAttr(c),
                                            rewriter.getIndexAttr(1),
                                            rewriter.getIndexAttr(1)};
      taps.push_back(rewriter.create<tensor::ExtractSliceOp>(
          loc, RankedTensorType::get({c}, filterType.getElementType()), filter,
          tapOffsets, tapSizes, ones(3)));
    }
  }
  MLIRContext *context = rewriter.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, context);
  AffineMap channel = AffineMap::get(4, 0, getAffineDimExpr(1, context));
  SmallVector<AffineMap> maps(views.size(), identity);
  maps.append(taps.size(), channel);
  maps.push_back(identity);
  SmallVector<Value> operands(views);
  operands.append(taps);
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  size_t count = views.size();
  auto sum = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{outType}, operands, ValueRange{init}, maps, parallel,
      [count](OpBuilder &b, Location loc, ValueRange args) {
        Value acc = args.back();
        for (size_t t = 0; t < count; ++t)
          acc = b.create<arith::AddFOp>(
              loc, acc, b.create<arith::MulFOp>(loc, args[t], args[count + t]));
        b.create<linalg::YieldOp>(loc, acc);
      });
  rewriter.replaceOp(op, sum->getResults());
}

void Strategy::tileElementwise(linalg::LinalgOp op) {
  unsigned rank = op.getNumLoops();
  unsigned bits = 32;
  if (op->getNumResults())
    bits = getElementTypeOrSelf(op->getResult(0).getType())
               .getIntOrFloatBitWidth();
  int64_t lanes = target.lanes(std::max(bits, 8u));
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (hasEmptyLoopRange(op))
    return;
  int64_t inner = sizes.back();
  int64_t step = (hasLongBody(op) ? 1 : 4) * lanes;
  if (!ShapedType::isDynamic(inner) && inner <= step)
    step = inner;
  SmallVector<int64_t> tileSizes(rank, 1);
  tileSizes.back() = step;
  if (hasStaticShape(op) && iterationSpaceSize(op) <= step)
    return; // already small enough to vectorize as a whole
  auto tiled = tile(rewriter, op, tileSizes);
  if (failed(tiled) || tiled->loops.empty())
    return;
  peel(rewriter, tiled->loops.back());
}

/// Whether `op` reads with tensor.extract where MLIR 19's vectorizer makes
/// a vector.gather that is wrong: from a slice with a step, a gather on a
/// buffer whose innermost stride is not 1, which MLIR 19 cannot lower to
/// LLVM (a gather after a strided slice,
/// test/fuzz/repros/fuzz-seed5019-min.json); in an op without loops (a
/// gather or gather_nd of a rank-0 result), a gather whose indices are a
/// scalar, which the verifier rejects (gather-scalar-O2.json).
bool hasUnvectorizableExtract(linalg::LinalgOp op) {
  bool noLoops = op.getNumLoops() == 0;
  return op->walk([&](tensor::ExtractOp extract) {
             auto slice =
                 extract.getTensor().getDefiningOp<tensor::ExtractSliceOp>();
             return noLoops || (slice && !slice.hasUnitStride())
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
      .wasInterrupted();
}

/// Vectorizes every linalg op under `root` whose iteration space is static
/// and small, then folds the tensor slices into vector transfers.
void vectorizeStaticOps(Operation *root, RewriterBase &rewriter) {
  SmallVector<linalg::LinalgOp> candidates;
  root->walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && hasStaticShape(op) &&
        iterationSpaceSize(op) <= kMaxVectorElements &&
        !touchesBoolMemory(op) && !hasUnvectorizableExtract(op))
      candidates.push_back(op);
  });
  for (linalg::LinalgOp op : candidates) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::vectorize(rewriter, op)) && getenv("TXC_DEBUG_VEC"))
      llvm::errs() << "vectorize failed: " << op << "\n";
  }
  if (getenv("TXC_DEBUG_VEC"))
    root->walk([](linalg::LinalgOp op) { llvm::errs() << "left: " << op << "\n"; });
}

/// Tiles with one output row and one kernel row (convolutions and pools)
/// become 1-D convolutions, which linalg::vectorize handles. Only ops of
/// static shape: the others are lowered to loops, where the 1-D form gains
/// nothing, and the rank-reducing slices it takes of them are ambiguous
/// after bufferization: in a [1, C, 1, W] buffer with W symbolic all strides
/// but the last are dynamic, so memref.subview's getDroppedDims cannot tell
/// the unit batch from the unit row, drops the batch, and
/// ExpandStridedMetadata builds a reinterpret_cast of sizes [C, 1, W] for a
/// [1, C, W] result (an internal error at -O2 for a pool or a 1xK
/// convolution on a symbolic width).
void decomposeStaticConvolutions(func::FuncOp function) {
  SmallVector<Operation *> staticOps;
  function.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && hasStaticShape(op))
      staticOps.push_back(op);
  });
  RewritePatternSet patterns(function.getContext());
  linalg::populateDecomposeConvolutionPatterns(patterns);
  GreedyRewriteConfig config;
  config.strictMode = GreedyRewriteStrictness::ExistingOps;
  (void)applyOpPatternsAndFold(staticOps, std::move(patterns), config);
}

void cleanupAfterVectorization(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorReductionToContractPatterns(patterns);
  vector::TransferReadOp::getCanonicalizationPatterns(patterns, context);
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns, context);
  populateFoldSubsetTransferPatterns(patterns);
  // A row's slice of a whole-tensor temporary becomes a row-sized one.
  tensor::populateFoldTensorEmptyPatterns(patterns);
  scf::ForOp::getCanonicalizationPatterns(patterns, context);
  affine::AffineMinOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, context);
  tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsAndFoldGreedily(root, std::move(patterns));
}

class TileAndVectorizePass
    : public impl::TileAndVectorizePassBase<TileAndVectorizePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    IRRewriter rewriter(&getContext());
    if (vectorBits != 128 && vectorBits != 256 && vectorBits != 512) {
      function.emitError("txc-tile-and-vectorize: vector-bits is ")
          << unsigned(vectorBits) << "; 128, 256 or 512 are supported";
      return signalPassFailure();
    }
    VectorTarget target{vectorBits, vectorRegisters};
    Strategy strategy(target, rewriter);

    SmallVector<linalg::LinalgOp> matmuls, elementwise;
    function.walk([&](linalg::LinalgOp op) {
      if (isMatmulLike(op))
        matmuls.push_back(op);
      else if (isParallelElementwise(op))
        elementwise.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls)
      strategy.tileMatmul(op);
    SmallVector<linalg::Conv2DNchwFchwOp> convolutions;
    function.walk([&](linalg::Conv2DNchwFchwOp op) {
      if (op.hasPureTensorSemantics())
        convolutions.push_back(op);
    });
    for (linalg::Conv2DNchwFchwOp op : convolutions)
      strategy.tileConvolution(op);
    SmallVector<linalg::DepthwiseConv2DNchwChwOp> depthwise;
    function.walk([&](linalg::DepthwiseConv2DNchwChwOp op) {
      if (op.hasPureTensorSemantics())
        depthwise.push_back(op);
    });
    for (linalg::DepthwiseConv2DNchwChwOp op : depthwise)
      unrollDepthwiseTaps(rewriter, op);
    if (!convolutions.empty())
      decomposeStaticConvolutions(function);
    // Roots of softmax-like chains first, last one first: a root absorbs
    // its producers (possibly other roots), so the IR is walked again after
    // each one. Roots that do not fit are marked and skipped.
    constexpr StringLiteral kNotARoot = "txc.not_a_row_chain";
    // Each round tiles one root into a row loop or marks it; the bound is
    // a safety net against a root that tiling hands back unchanged.
    for (unsigned round = 0; round < 1000; ++round) {
      linalg::LinalgOp root;
      function.walk([&](linalg::LinalgOp op) {
        if (isParallelElementwise(op) && !op->hasAttr(kNotARoot) &&
            !op->getParentOfType<scf::ForOp>() && consumesRowReduction(op))
          root = op;
      });
      if (!root)
        break;
      if (!strategy.tileRowChain(root))
        root->setAttr(kNotARoot, UnitAttr::get(&getContext()));
    }
    function.walk([&](Operation *op) {
      op->removeAttr(kNotARoot);
      op->removeAttr(kEpilogue);
    });
    elementwise.clear();
    function.walk([&](linalg::LinalgOp op) {
      if (isParallelElementwise(op) && !op->getParentOfType<scf::ForOp>())
        elementwise.push_back(op);
    });
    for (linalg::LinalgOp op : elementwise)
      strategy.tileElementwise(op);

    canonicalize(function);
    vectorizeStaticOps(function, rewriter);
    cleanupAfterVectorization(function);
  }
};

} // namespace

TileAndVectorizePassOptions tileAndVectorizeOptions(VectorTarget target) {
  TileAndVectorizePassOptions options;
  options.vectorBits = target.vectorBits;
  options.vectorRegisters = target.vectorRegisters;
  return options;
}

} // namespace txc
