//===- TileMatmul.cpp - The matmul strategy --------------------------------===//
//
// Applies the "matmul" configs that txc-select-lowering-strategy chose
// (LoweringConfig.h) to linalg.matmul, matmul_transpose_b and batch_matmul:
//
//  * form "tiled": cache panels of B (cache_tile: N and K, 0 when that
//    dimension is not cut), each packed into NR-wide strips, then MR x NR
//    register tiles (register_tile) with a K loop of step 1, so that the
//    MR x NR accumulator lives in registers and each K step is MR
//    broadcasts and MR*NR/lanes FMAs. Rows and columns that do not fill a
//    tile are split off, so that the main part runs only full tiles.
//  * form "small": a small static weight; one row at a time (row_tile),
//    with the matmul's epilogue (if any) fused into the row loop.
//  * form "fused_epilogue": the elementwise op marked "matmul_epilogue" is
//    the root of the tiling and the matmul is fused into its tiles.
//  * unpacked_form "dot_product" (a "tiled" matmul_transpose_b with
//    symbolic rows and a static B [N][K]): one branch per call on the row
//    count; below unpacked_below the branch computes dot_columns outputs
//    at a time, rows innermost so that the columns' weights stay in L1,
//    each output a dot_lanes-wide FMA accumulation along K reduced once at
//    the end (the last K % lanes terms added after it), without packing
//    B; the other branch is the form above.
//  * batch_tile (a batch_matmul): the batch loop first, outermost and
//    parallel, then each batch without its batch dimension as a plain
//    matmul (and epilogue) under the form above: attention's Q K^T and
//    P V are packed and register-tiled like a linear layer.
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"
#include "Passes.h"
#include "Tiling.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_TILEMATMULPASS
#include "Passes.h.inc"

namespace {

/// Marks the epilogue of a matmul while its tiles are built, so that the
/// copies that peeling makes are found again.
constexpr StringLiteral kEpilogue = "txc.epilogue";

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

/// Marks the ops of the dot-product form, so that tiling fuses them (and
/// only them: not the producer of A, which would be recomputed per tile)
/// and finds them again in the tiles.
constexpr StringLiteral kDotPart = "txc.dot_part";
/// Marks the accumulation along K among them.
constexpr StringLiteral kDotAccumulation = "txc.dot_accumulation";
/// Marks the root of their tiling.
constexpr StringLiteral kDotRoot = "txc.dot_root";

/// `value` [rows][cols] sliced to the columns [from, from + count).
Value sliceColumns(OpBuilder &b, Location loc, Value value, int64_t from,
                   int64_t count) {
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(from)};
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, value, 0),
                                     b.getIndexAttr(count)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return b.create<tensor::ExtractSliceOp>(loc, value, offsets, sizes, strides);
}

/// `value` [rows][depth], depth a multiple of `lanes`, as
/// [rows][depth / lanes][lanes].
Value splitLanes(OpBuilder &b, Location loc, Value value, int64_t lanes) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), depth = type.getDimSize(1);
  auto expanded = RankedTensorType::get({rows, depth / lanes, lanes},
                                        type.getElementType());
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, value, 0),
                                     b.getIndexAttr(depth / lanes),
                                     b.getIndexAttr(lanes)};
  return b.create<tensor::ExpandShapeOp>(
      loc, expanded, value, SmallVector<ReassociationIndices>{{0}, {1, 2}},
      sizes);
}

/// The dot-product form of `op`, a matmul_transpose_b of static B [N][K],
/// K >= lanes, as ops on whole tensors marked kDotPart: partial sums
/// [M][N][lanes] accumulated along K / lanes steps (lane l sums the terms
/// k = l mod lanes), reduced in lane order into the init, then the last
/// K % lanes terms as a matmul_transpose_b. Returns the last of them, the
/// root of the tiling.
Operation *buildDotProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                           int64_t lanes) {
  Location loc = op->getLoc();
  MLIRContext *context = rewriter.getContext();
  rewriter.setInsertionPoint(op);
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type element = rhsType.getElementType();
  int64_t depth = rhsType.getDimSize(1), main = depth - depth % lanes;
  Value lhsMain =
      main == depth ? lhs : sliceColumns(rewriter, loc, lhs, 0, main);
  Value rhsMain =
      main == depth ? rhs : sliceColumns(rewriter, loc, rhs, 0, main);
  Value lhsLanes = splitLanes(rewriter, loc, lhsMain, lanes);
  Value rhsLanes = splitLanes(rewriter, loc, rhsMain, lanes);

  SmallVector<OpFoldResult> partialSizes = {
      tensor::getMixedSize(rewriter, loc, init, 0),
      tensor::getMixedSize(rewriter, loc, init, 1),
      rewriter.getIndexAttr(lanes)};
  Value empty = rewriter.create<tensor::EmptyOp>(loc, partialSizes, element);
  Value zero = rewriter.create<arith::ConstantOp>(
      loc, element, rewriter.getZeroAttr(element));
  auto fill = rewriter.create<linalg::FillOp>(loc, zero, empty);

  // partial[m][n][l] += lhs[m][k][l] * rhs[n][k][l]; the multiply and add
  // may contract into one FMA.
  AffineExpr m, n, k, l;
  bindDims(context, m, n, k, l);
  auto contract =
      arith::FastMathFlagsAttr::get(context, arith::FastMathFlags::contract);
  auto accumulate = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{fill.getResult(0).getType()},
      ValueRange{lhsLanes, rhsLanes}, ValueRange{fill.getResult(0)},
      SmallVector<AffineMap>{AffineMap::get(4, 0, {m, k, l}, context),
                             AffineMap::get(4, 0, {n, k, l}, context),
                             AffineMap::get(4, 0, {m, n, l}, context)},
      SmallVector<utils::IteratorType>{
          utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::reduction, utils::IteratorType::parallel},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value product =
            b.create<arith::MulFOp>(loc, args[0], args[1], contract);
        Value sum = b.create<arith::AddFOp>(loc, args[2], product, contract);
        b.create<linalg::YieldOp>(loc, sum);
      });

  // out[m][n] = init[m][n] + partial[m][n][0] + ... + partial[m][n][lanes-1].
  bindDims(context, m, n, l);
  auto reduce = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{init.getType()}, ValueRange{accumulate.getResult(0)},
      ValueRange{init},
      SmallVector<AffineMap>{AffineMap::get(3, 0, {m, n, l}, context),
                             AffineMap::get(3, 0, {m, n}, context)},
      SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                       utils::IteratorType::parallel,
                                       utils::IteratorType::reduction},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        b.create<linalg::YieldOp>(
            loc, b.create<arith::AddFOp>(loc, args[1], args[0]).getResult());
      });
  SmallVector<Operation *> parts = {fill, accumulate, reduce};
  Operation *root = reduce;
  if (main != depth) {
    root = rewriter.create<linalg::MatmulTransposeBOp>(
        loc, TypeRange{init.getType()},
        ValueRange{sliceColumns(rewriter, loc, lhs, main, depth - main),
                   sliceColumns(rewriter, loc, rhs, main, depth - main)},
        ValueRange{reduce.getResult(0)});
    parts.push_back(root);
  }
  for (Operation *part : parts)
    part->setAttr(kDotPart, rewriter.getUnitAttr());
  accumulate->setAttr(kDotAccumulation, rewriter.getUnitAttr());
  root->setAttr(kDotRoot, rewriter.getUnitAttr());
  rewriter.replaceOp(op, root->getResults());
  return root;
}

/// The marked ops of the dot-product form under `roots`.
SmallVector<Operation *> markedIn(ArrayRef<Operation *> roots, StringRef mark) {
  SmallVector<Operation *> found;
  for (Operation *root : roots)
    if (root)
      root->walk([&](Operation *op) {
        if (op->hasAttr(mark))
          found.push_back(op);
      });
  return found;
}

/// Applies one matmul config.
class MatmulTiler {
public:
  MatmulTiler(RewriterBase &rewriter, DictionaryAttr config)
      : rewriter(rewriter) {
    SmallVector<int64_t> registerTile = getSizes(config, "register_tile");
    mr = registerTile[0];
    nr = registerTile[1];
    SmallVector<int64_t> cacheTile = getSizes(config, "cache_tile");
    panelWidth = cacheTile.empty() ? 0 : cacheTile[0];
    panelDepth = cacheTile.empty() ? 0 : cacheTile[1];
    packMinRows = getInt(config, "pack_min_rows");
  }

  void tileMatmul(linalg::LinalgOp op);
  std::pair<linalg::LinalgOp, linalg::LinalgOp>
  tileBatches(linalg::LinalgOp op, linalg::LinalgOp epilogue);
  bool tileSmallMatmul(linalg::LinalgOp op, ArrayRef<int64_t> rows,
                       linalg::LinalgOp epilogue);
  bool tileMatmulWithEpilogue(linalg::LinalgOp epilogue);
  void tileDotProduct(linalg::LinalgOp op, int64_t columns, int64_t lanes);
  void accumulateInRegisters(Operation *accumulation);

private:
  SmallVector<Operation *> cachePanels(linalg::LinalgOp op);
  FailureOr<scf::SCFTileAndFuseResult>
  tileWithMatmul(Operation *root, linalg::LinalgOp matmul,
                 ArrayRef<int64_t> sizes);
  FailureOr<scf::SCFTileAndFuseResult>
  tileEpilogue(Operation *epilogue, ArrayRef<int64_t> sizes);
  void tileUnpackedStrips(LoopLikeOpInterface stripLoop);
  void usePackedStrip(Operation *strip, const PackedPanel &packed,
                      ArrayRef<LoopLikeOpInterface> loops);
  void tileEpilogueRows(Operation *strip);
  void tileDepth(Operation *epilogue);
  void forwardDimsToInits(Operation *op);
  FailureOr<PackedPanel> packPanel(linalg::LinalgOp panel);
  Operation *packRightHandSide(linalg::LinalgOp panel);

  RewriterBase &rewriter;
  int64_t mr, nr, panelWidth, panelDepth, packMinRows;
};

/// Packs the B operand of `panel` (see PackedPanel) with a vectorizable copy
/// placed before `panel`. Fails for a batch, a ragged width, or too few rows
/// to pay for the copy.
FailureOr<PackedPanel> MatmulTiler::packPanel(linalg::LinalgOp panel) {
  bool transposed = isa<linalg::MatmulTransposeBOp>(panel.getOperation());
  if (!transposed && !isa<linalg::MatmulOp>(panel.getOperation()))
    return failure();
  Value lhs = panel.getDpsInputs()[0], rhs = panel.getDpsInputs()[1];
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  unsigned depthDim = transposed ? 1 : 0, widthDim = transposed ? 0 : 1;
  int64_t width = rhsType.getDimSize(widthDim), rows = lhsType.getDimSize(0);
  if (ShapedType::isDynamic(width) || width % nr != 0 ||
      (!ShapedType::isDynamic(rows) && rows < packMinRows))
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
Operation *MatmulTiler::packRightHandSide(linalg::LinalgOp panel) {
  FailureOr<PackedPanel> packed = packPanel(panel);
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
void MatmulTiler::forwardDimsToInits(Operation *op) {
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

/// Tiles `root`, the matmul `matmul` or its epilogue, by `sizes` and fuses
/// the matmul, and the op that computes the matmul's initial value (the
/// broadcast bias or a zero fill), into each tile. The untiled ops are
/// erased.
FailureOr<scf::SCFTileAndFuseResult>
MatmulTiler::tileWithMatmul(Operation *root, linalg::LinalgOp matmul,
                            ArrayRef<int64_t> sizes) {
  Operation *init = matmul.getDpsInitOperand(0)->get().getDefiningOp();
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileAndFuse(rewriter, root, sizes, [&](Operation *producer) {
        return producer == matmul.getOperation() || producer == init;
      });
  if (failed(fused))
    return failure();
  llvm::SetVector<Operation *> dead;
  for (Operation *op : {root, matmul.getOperation(), init})
    if (op)
      dead.insert(op);
  for (Operation *op : dead) {
    forwardDimsToInits(op);
    if (op->use_empty())
      rewriter.eraseOp(op);
  }
  return fused;
}

/// Tiles the epilogue `epilogue` by `sizes` and fuses its matmul and the
/// matmul's initial value into each tile (tileWithMatmul).
FailureOr<scf::SCFTileAndFuseResult>
MatmulTiler::tileEpilogue(Operation *epilogue, ArrayRef<int64_t> sizes) {
  linalg::LinalgOp matmul = epilogueMatmul(epilogue);
  if (!matmul)
    return failure();
  return tileWithMatmul(epilogue, matmul, sizes);
}

/// Makes the matmul of the epilogue tile `strip`, an NR-wide strip of the
/// panel iterated by `loops`, read its B from the packed panel.
void MatmulTiler::usePackedStrip(Operation *strip, const PackedPanel &packed,
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
void MatmulTiler::tileDepth(Operation *epilogue) {
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
void MatmulTiler::tileEpilogueRows(Operation *strip) {
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
bool MatmulTiler::tileMatmulWithEpilogue(linalg::LinalgOp epilogue) {
  epilogue->setAttr(kEpilogue, rewriter.getUnitAttr());
  SmallVector<Operation *> panels = {epilogue};
  if (panelWidth) {
    FailureOr<scf::SCFTileAndFuseResult> fused =
        tileEpilogue(epilogue, {0, panelWidth});
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
    // (Read before tiling, which erases the panel.)
    int64_t width = cast<linalg::LinalgOp>(panel).getStaticLoopRanges()[1];
    FailureOr<PackedPanel> packed = packPanel(epilogueMatmul(panel));
    FailureOr<scf::SCFTileAndFuseResult> strips =
        tileEpilogue(panel, {0, nr});
    if (failed(strips))
      continue;
    if (ShapedType::isDynamic(width) || width % nr != 0) {
      tileUnpackedStrips(strips->loops.front());
      continue;
    }
    Operation *strip = strips->tiledAndFusedOps.front();
    if (succeeded(packed))
      usePackedStrip(strip, *packed, strips->loops);
    tileEpilogueRows(strip);
  }
  return true;
}

/// The strips of an epilogue panel whose width is symbolic or not a
/// multiple of NR (a batch of attention's scores, S wide): the strip loop
/// is peeled, its full strips are register-tiled as usual and the last,
/// narrower strip runs one column at a time. Canonicalization makes the
/// full strips' widths static in their types, which vectorization needs.
void MatmulTiler::tileUnpackedStrips(LoopLikeOpInterface stripLoop) {
  Operation *main = stripLoop.getOperation();
  Operation *remainder = peel(rewriter, stripLoop);
  for (Operation *loop : {main, remainder})
    if (loop)
      canonicalize(loop);
  for (Operation *strip : epiloguesIn({main}))
    tileEpilogueRows(strip);
  for (Operation *tail : epiloguesIn({remainder})) {
    FailureOr<scf::SCFTileAndFuseResult> columns = tileEpilogue(tail, {0, 1});
    if (succeeded(columns))
      tileEpilogueRows(columns->tiledAndFusedOps.front());
  }
}

/// The K loop of an accumulation of the dot-product form, one step of
/// `lanes` terms per iteration; the step's unit K dimension is dropped, so
/// that it vectorizes as elementwise FMAs on the partial sums (with the
/// unit reduction it would be a vector.contract that LowerVectors can
/// only unroll to scalars).
void MatmulTiler::accumulateInRegisters(Operation *accumulation) {
  FailureOr<scf::SCFTilingResult> steps =
      tile(rewriter, accumulation, {0, 0, 1, 0});
  if (failed(steps) || steps->tiledOps.empty())
    return;
  auto step = dyn_cast<linalg::GenericOp>(steps->tiledOps.front());
  if (!step)
    return;
  rewriter.setInsertionPoint(step);
  linalg::ControlDropUnitDims options;
  options.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  options.controlFn = [](Operation *) { return SmallVector<unsigned>{2}; };
  (void)linalg::dropUnitDims(rewriter, step, options);
}

/// Tiles the dot-product form of `op` (buildDotProduct): `columns` outputs
/// at a time (the last, narrower tile peeled), then rows one at a time
/// inside, so that the columns' weights, columns * K elements, are read
/// from memory once and from L1 for the other rows; the K loop innermost,
/// its partial sums in registers. The init's producer (the broadcast bias)
/// is fused into the tiles: no separate pass over the output.
void MatmulTiler::tileDotProduct(linalg::LinalgOp op, int64_t columns,
                                 int64_t lanes) {
  Operation *init = op.getDpsInitOperand(0)->get().getDefiningOp();
  if (init && isa<linalg::LinalgOp>(init) && init->hasOneUse()) {
    init->setAttr(kDotPart, rewriter.getUnitAttr());
    clearLoweringConfigs(init);
  }
  Operation *root = buildDotProduct(rewriter, op, lanes);
  auto fuseMarked = [](Operation *producer) {
    return producer->hasAttr(kDotPart);
  };
  FailureOr<scf::SCFTileAndFuseResult> panels =
      tileAndFuse(rewriter, root, {0, columns, 0}, fuseMarked);
  if (failed(panels))
    return;
  Operation *region = panels->loops.front()->getParentOp();
  (void)peel(rewriter, panels->loops.front());
  // Peeling makes the tiles' widths static, but their types say so only
  // after canonicalization, which also erases the untiled parts (and may
  // fold the remainder's loop of one iteration away: the panels' roots are
  // found again by their mark).
  canonicalize(region);
  for (Operation *panel : markedIn({region}, kDotRoot)) {
    panel->removeAttr(kDotRoot);
    FailureOr<scf::SCFTileAndFuseResult> rows =
        tileAndFuse(rewriter, panel, {1, 0, 0}, fuseMarked);
    if (failed(rows))
      continue;
    for (Operation *accumulation :
         markedIn({rows->loops.front().getOperation()}, kDotAccumulation))
      accumulateInRegisters(accumulation);
  }
}

/// Cache tiles: B is cut into KC x NC panels, each packed into strips of
/// NR columns (packRightHandSide); a strip (KC x NR, 64 KiB of f32) stays
/// in L2 while all rows of A pass over it. The panel loop over N is peeled
/// so that every panel has a static width. Returns the panels, or `op`
/// itself when the config cuts no panels.
SmallVector<Operation *> MatmulTiler::cachePanels(linalg::LinalgOp op) {
  if (!panelWidth && !panelDepth)
    return {op};
  bool batched = isa<linalg::BatchMatmulOp>(op);
  unsigned n = batched ? 2 : 1, k = n + 1;
  auto function = op->getParentOfType<func::FuncOp>();
  // The panels are found again by a mark that tiling copies to them: a
  // set of the other matmuls' addresses could name a panel created
  // where an op erased by canonicalization was (which panel is
  // register-tiled then depended on the heap's layout).
  constexpr StringLiteral kPanel = "txc.panel";
  op->setAttr(kPanel, rewriter.getUnitAttr());
  SmallVector<int64_t> cache(op.getNumLoops(), 0);
  cache[n] = panelWidth;
  cache[k] = panelDepth;
  SmallVector<int64_t> interchange =
      batched ? SmallVector<int64_t>{0, 2, 1, 3} : SmallVector<int64_t>{1, 0, 2};
  auto cached = tile(rewriter, op, cache, interchange);
  if (failed(cached)) {
    op->removeAttr(kPanel);
    return {};
  }
  if (panelWidth)
    peel(rewriter, cached->loops[batched ? 1 : 0]);
  // Canonicalization may fold a panel loop with a single iteration away,
  // so the panels are found by their mark, not from the tiling's result,
  // and a panel need not be in a loop: with N in (NC, 2*NC] and one K
  // panel, both the full panel and the remainder are single iterations,
  // and requiring a loop around them left both untiled, scalar loops
  // (resnet18's 1x1 stride-2 convolution [256,128] x [128,196] ran at 2.7
  // GFLOPS).
  canonicalize(function);
  SmallVector<Operation *> panels;
  function.walk([&](linalg::LinalgOp inner) {
    if (!inner->hasAttr(kPanel))
      return;
    inner->removeAttr(kPanel);
    if (isMatmulLike(inner))
      panels.push_back(inner);
  });
  return panels;
}

/// Register tiles. Rows and columns that do not fill a tile are split off
/// first, so that the main part runs only full MR x NR tiles; remainder
/// rows run one at a time, remainder columns as one narrower tile (static
/// widths) or one at a time (dynamic widths).
void MatmulTiler::tileMatmul(linalg::LinalgOp op) {
  bool batched = isa<linalg::BatchMatmulOp>(op);
  unsigned m = batched ? 1 : 0, n = m + 1;
  for (Operation *panel : cachePanels(op)) {
    if (!batched)
      panel = packRightHandSide(cast<linalg::LinalgOp>(panel));
    for (auto [part, rows] : splitRows(rewriter, panel, m, mr)) {
      if (!part)
        continue;
      auto [colsMain, colsTail] = splitForTiles(rewriter, part, n, nr);
      tileRegisters(rewriter, colsMain, m, n, rows, nr);
      if (colsTail) {
        int64_t width =
            cast<linalg::LinalgOp>(colsTail).getStaticLoopRanges()[n];
        tileRegisters(rewriter, colsTail, m, n, rows,
                      ShapedType::isDynamic(width) ? 1 : width);
      }
    }
  }
}

/// `value`, a tile of a unit leading (batch) dimension, without that
/// dimension: a rank-reducing slice. Only the batch dimension is dropped,
/// whatever other dimensions are 1.
Value dropBatch(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  sizes[0] = b.getIndexAttr(1);
  auto reduced =
      RankedTensorType::get(type.getShape().drop_front(), type.getElementType());
  return b.create<tensor::ExtractSliceOp>(loc, reduced, value, offsets, sizes,
                                          strides);
}

/// `value`, a tile without its batch dimension, put back into `into`, the
/// tile of a unit batch dimension that it was sliced from.
Value restoreBatch(OpBuilder &b, Location loc, Value value, Value into) {
  int64_t rank = cast<RankedTensorType>(into.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, into);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  sizes[0] = b.getIndexAttr(1);
  return b.create<tensor::InsertSliceOp>(loc, value, into, offsets, sizes,
                                         strides);
}

/// Rewrites `op`, a tile of one batch (a unit batch dimension, the first),
/// as the same op without the batch dimension: a batch_matmul as a matmul,
/// a fill as a fill, a generic (the epilogue, a broadcast bias) by
/// dropping its first loop. Fails for other ops.
LogicalResult dropBatchDim(RewriterBase &rewriter, Operation *op) {
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    linalg::ControlDropUnitDims options;
    options.rankReductionStrategy = linalg::ControlDropUnitDims::
        RankReductionStrategy::ExtractInsertSlice;
    options.controlFn = [](Operation *) { return SmallVector<unsigned>{0}; };
    return linalg::dropUnitDims(rewriter, generic, options);
  }
  if (!isa<linalg::BatchMatmulOp, linalg::FillOp>(op))
    return failure();
  auto dps = cast<DestinationStyleOpInterface>(op);
  Value init = dps.getDpsInits()[0];
  Value acc = dropBatch(rewriter, loc, init);
  SmallVector<Value> inputs;
  for (Value input : dps.getDpsInputs())
    inputs.push_back(isa<linalg::FillOp>(op) ? input
                                             : dropBatch(rewriter, loc, input));
  Operation *reduced =
      isa<linalg::FillOp>(op)
          ? rewriter.create<linalg::FillOp>(loc, inputs, ValueRange{acc})
          : rewriter.create<linalg::MatmulOp>(loc, acc.getType(), inputs,
                                              ValueRange{acc});
  rewriter.replaceOp(op,
                     restoreBatch(rewriter, loc, reduced->getResult(0), init));
  return success();
}

/// A batched contraction runs one batch at a time: its epilogue (or the
/// contraction itself) is tiled by 1 along the batch dimension, an outer
/// parallel loop, with the contraction and its initial value fused into
/// it; the tiles are then rewritten without the batch dimension
/// (dropBatchDim), so that the rest of the config tiles each batch as a
/// plain matmul: packed B panels, register tiles, the epilogue on the
/// accumulators. Returns the plain matmul and its epilogue (null if none);
/// `op` itself, without its epilogue, if the batch could not be tiled; a
/// null matmul if a tile could not be rewritten (the batch loop stays, its
/// tiles computed as they are).
std::pair<linalg::LinalgOp, linalg::LinalgOp>
MatmulTiler::tileBatches(linalg::LinalgOp op, linalg::LinalgOp epilogue) {
  Operation *root = epilogue ? epilogue.getOperation() : op.getOperation();
  SmallVector<int64_t> sizes(cast<linalg::LinalgOp>(root).getNumLoops(), 0);
  sizes[0] = 1;
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileWithMatmul(root, op, sizes);
  if (failed(fused))
    return {op, {}};
  for (Operation *tile : llvm::reverse(fused->tiledAndFusedOps))
    if (failed(dropBatchDim(rewriter, tile)))
      return {};
  Operation *loop = fused->loops.front().getOperation();
  canonicalize(loop);
  linalg::LinalgOp matmul;
  loop->walk([&](linalg::MatmulOp found) { matmul = found; });
  if (!matmul || !epilogue)
    return {matmul, {}};
  Value result = matmul->getResult(0);
  if (!result.hasOneUse())
    return {};
  return {matmul, dyn_cast<linalg::LinalgOp>(*result.getUsers().begin())};
}

/// Matmuls with a small static right-hand side (a weight that fits in a few
/// registers, e.g. 4x3) run one row at a time with the whole row as one
/// vector contraction, and the accumulator's initial value (zero or the
/// bias) and the epilogue (if any) computed in the same row loop: no loop
/// overhead for tiny rows.
bool MatmulTiler::tileSmallMatmul(linalg::LinalgOp op, ArrayRef<int64_t> rows,
                                  linalg::LinalgOp epilogue) {
  linalg::LinalgOp root = epilogue ? epilogue : op;
  return succeeded(tileAndFuse(rewriter, root, rows));
}

/// The epilogue that the selection chose for `matmul`: its only reader,
/// marked "matmul_epilogue". Its config is taken (removed).
linalg::LinalgOp takeEpilogue(linalg::LinalgOp matmul) {
  Value result = matmul->getResult(0);
  if (!result.hasOneUse())
    return {};
  Operation *user = *result.getUsers().begin();
  if (!takeLoweringConfig(user, "matmul_epilogue"))
    return {};
  return cast<linalg::LinalgOp>(user);
}

/// Splits `op`, a matmul with symbolic rows, into one branch per call on
/// its row count: rows < `below` runs the clone that the first result
/// returns, the others the second. The init's producer (a broadcast bias or
/// a zero fill, read by `op` only) is cloned into both branches, so that
/// each branch computes it its own way.
std::pair<linalg::LinalgOp, linalg::LinalgOp>
branchOnRows(RewriterBase &rewriter, linalg::LinalgOp op, int64_t below) {
  Location loc = op->getLoc();
  Value init = op.getDpsInits()[0];
  Operation *producer = init.getDefiningOp();
  if (!producer || !isa<linalg::LinalgOp>(producer) || !producer->hasOneUse())
    producer = nullptr;
  rewriter.setInsertionPoint(op);
  Value rows = rewriter.create<tensor::DimOp>(loc, op.getDpsInputs()[0], 0);
  Value limit = rewriter.create<arith::ConstantIndexOp>(loc, below);
  Value few = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                             rows, limit);
  linalg::LinalgOp clones[2];
  auto cloneInto = [&](unsigned which) {
    return [&, which](OpBuilder &b, Location loc) {
      IRMapping mapping;
      if (producer)
        b.clone(*producer, mapping);
      clones[which] = cast<linalg::LinalgOp>(b.clone(*op, mapping));
      b.create<scf::YieldOp>(loc, clones[which]->getResults());
    };
  };
  auto branch =
      rewriter.create<scf::IfOp>(loc, few, cloneInto(0), cloneInto(1));
  rewriter.replaceOp(op, branch.getResults());
  if (producer && producer->use_empty())
    rewriter.eraseOp(producer);
  return {clones[0], clones[1]};
}

} // namespace

void applyMatmulConfig(RewriterBase &rewriter, linalg::LinalgOp op,
                       DictionaryAttr config) {
  MatmulTiler tiler(rewriter, config);
  StringRef form = getString(config, "form");
  linalg::LinalgOp epilogue = takeEpilogue(op);
  if (form == "small" &&
      tiler.tileSmallMatmul(op, getSizes(config, "row_tile"), epilogue))
    return;
  if (!getSizes(config, "batch_tile").empty()) {
    auto [matmul, batchEpilogue] = tiler.tileBatches(op, epilogue);
    if (!matmul)
      return;
    op = matmul;
    epilogue = batchEpilogue;
  }
  if (form == "fused_epilogue" && epilogue &&
      tiler.tileMatmulWithEpilogue(epilogue))
    return;
  if (getString(config, "unpacked_form") == "dot_product" &&
      isa<linalg::MatmulTransposeBOp>(op.getOperation()) &&
      ShapedType::isDynamic(op.getStaticLoopRanges()[0]) &&
      llvm::all_of(op->getOperandTypes(), [](Type type) {
        return getElementTypeOrSelf(type).isF32();
      })) {
    auto [few, many] =
        branchOnRows(rewriter, op, getInt(config, "unpacked_below"));
    tiler.tileDotProduct(few, getInt(config, "dot_columns"),
                         getInt(config, "dot_lanes"));
    op = many;
  }
  tiler.tileMatmul(op);
}

namespace {

class TileMatmulPass : public impl::TileMatmulPassBase<TileMatmulPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<std::pair<linalg::LinalgOp, DictionaryAttr>> matmuls;
    function.walk([&](linalg::LinalgOp op) {
      if (DictionaryAttr config = takeLoweringConfig(op, "matmul"))
        matmuls.push_back({op, config});
    });
    for (auto [op, config] : matmuls)
      applyMatmulConfig(rewriter, op, config);
    function.walk([](Operation *op) {
      for (StringRef mark : {kEpilogue, kDotPart, kDotAccumulation, kDotRoot})
        op->removeAttr(mark);
    });
  }
};

} // namespace
} // namespace txc
