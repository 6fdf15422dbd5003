//===- SelectLoweringStrategy.cpp - Choose each root op's strategy --------===//
//
// txc-select-lowering-strategy walks a function once and writes on each
// root linalg op on tensors the strategy that tiles and vectorizes it, with
// its sizes, as `txc.lowering_config` (LoweringConfig.h); the passes after
// it only apply these configs. The sizes come from the tuning table of the
// target (vector-bits, vector-registers).
//
// The strategies are applied in this order: matmuls, convolutions, row
// chains, elementwise ops. A row chain's root and an elementwise op are
// chosen as they will be once the matmuls and convolutions before them are
// tiled: ops that those strategies replace by loops (tiledAway) no longer
// link a chain, and a depthwise convolution becomes an elementwise sum over
// its taps that reads only its init.
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"
#include "Passes.h"
#include "Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_SELECTLOWERINGSTRATEGYPASS
#include "Passes.h.inc"

namespace {

/// The elementwise op that is the only reader of `matmul`'s result and reads
/// it element for element over the same ((batch,) m, n) domain: the
/// activation or residual add after a linear layer, the scale or mask add
/// after attention's scores. Fused into the register tiles, it runs on the
/// accumulators before they are stored.
linalg::LinalgOp fusableEpilogue(linalg::LinalgOp matmul) {
  Value result = matmul->getResult(0);
  if (!result.hasOneUse())
    return {};
  OpOperand &use = *result.getUses().begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  unsigned rank = matmul.getNumParallelLoops();
  if (!consumer || !isParallelElementwise(consumer) ||
      consumer.getNumLoops() != rank || consumer->getNumResults() != 1 ||
      consumer.isDpsInit(&use) || touchesBoolMemory(consumer))
    return {};
  // A math function would be copied into every register tile variant (6, 4,
  // 2 and 1 rows): gelu, tanh and silu epilogues made 10-op programs take
  // 1.7 s to compile instead of 0.9. They run as a separate pass instead,
  // where the function is a small part of the work anyway.
  if (hasCostlyOps(consumer))
    return {};
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, matmul->getContext());
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

bool allF32(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isF32();
  });
}

bool anyDynamic(ArrayRef<int64_t> sizes) {
  return llvm::any_of(sizes, ShapedType::isDynamic);
}

/// What the elementwise and row-chain choices look at: an op's loop ranges
/// and the bit width of its result's elements.
struct ElementwiseShape {
  SmallVector<int64_t> sizes;
  unsigned bits;

  static ElementwiseShape of(linalg::LinalgOp op) {
    return {op.getStaticLoopRanges(),
            op->getNumResults() ? resultElementBits(op) : 32u};
  }
  bool hasEmptyRange() const { return llvm::is_contained(sizes, 0); }
};

class StrategySelector {
public:
  StrategySelector(const TargetTuning &tuning, MLIRContext *context)
      : tuning(tuning), b(context) {}

  void select(func::FuncOp function);

private:
  void selectMatmul(linalg::LinalgOp op);
  DictionaryAttr matmulConfig(ArrayRef<int64_t> ranges, bool batched,
                              unsigned bits, linalg::LinalgOp epilogue,
                              bool &fusesEpilogue, bool transposedB = false);
  void addUnpackedForm(SmallVectorImpl<NamedAttribute> &fields,
                       ArrayRef<int64_t> ranges, unsigned bits,
                       bool transposedB);
  void selectConvolution(linalg::Conv2DNchwFchwOp op);
  DictionaryAttr convolutionConfig(linalg::Conv2DNchwFchwOp op);
  DictionaryAttr convolutionAsMatmulsConfig(linalg::Conv2DNchwFchwOp op);
  DictionaryAttr convolutionRowsConfig(linalg::Conv2DNchwFchwOp op);
  void selectDepthwise(linalg::DepthwiseConv2DNchwChwOp op);
  DictionaryAttr rowOrElementwiseConfig(Operation *op,
                                        const ElementwiseShape &shape);
  DictionaryAttr elementwiseConfig(const ElementwiseShape &shape);
  DictionaryAttr transposeConfig(linalg::TransposeOp op);
  bool consumesRowReduction(Operation *root);
  SmallVector<Value> operandsAfterTiling(Operation *op);

  DictionaryAttr config(StringRef strategy, StringRef form,
                        ArrayRef<NamedAttribute> fields) {
    SmallVector<NamedAttribute> all = {
        b.getNamedAttr("strategy", b.getStringAttr(strategy))};
    if (!form.empty())
      all.push_back(b.getNamedAttr("form", b.getStringAttr(form)));
    all.append(fields.begin(), fields.end());
    return b.getDictionaryAttr(all);
  }
  NamedAttribute array(StringRef name, ArrayRef<int64_t> values) {
    return b.getNamedAttr(name, b.getDenseI64ArrayAttr(values));
  }
  NamedAttribute integer(StringRef name, int64_t value) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(value));
  }

  const TargetTuning &tuning;
  Builder b;
  /// Ops that the matmul and convolution strategies replace by loops.
  llvm::DenseSet<Operation *> tiledAway;
  /// Depthwise convolutions that become an elementwise sum of their taps.
  llvm::DenseSet<Operation *> depthwiseSums;
};

//===- Matmuls -----------------------------------------------------------===//

/// The config of a contraction of loop ranges `sizes` ((batch,) m, n, k)
/// with result elements of `bits`, and `epilogue` its fusable epilogue (or
/// null). Sets `fusesEpilogue` if the config takes the epilogue into its
/// tiles. A batched contraction other than a small one runs one batch at a
/// time (batch_tile), each batch a plain matmul under the same config.
DictionaryAttr StrategySelector::matmulConfig(ArrayRef<int64_t> ranges,
                                              bool batched, unsigned bits,
                                              linalg::LinalgOp epilogue,
                                              bool &fusesEpilogue,
                                              bool transposedB) {
  unsigned m = batched ? 1 : 0, n = m + 1, k = m + 2;
  int64_t mr = tuning.matmulRows;
  int64_t nr = tuning.matmulColumnVectors * tuning.lanes(bits);
  SmallVector<NamedAttribute> fields = {
      array("register_tile", {mr, nr}),
      integer("pack_min_rows", tuning.packMinRows)};
  fusesEpilogue = false;
  int64_t width = ranges[n], depth = ranges[k];
  bool staticWeight =
      !ShapedType::isDynamic(width) && !ShapedType::isDynamic(depth);
  if (staticWeight && width * depth <= tuning.smallWeight) {
    // One row per iteration, over the loops of the tiling's root.
    bool fuses = epilogue && !batched;
    SmallVector<int64_t> rows(fuses ? epilogue.getNumLoops() : ranges.size(),
                              0);
    for (unsigned d = 0; d <= m; ++d)
      rows[d] = 1;
    fields.push_back(array("row_tile", rows));
    fusesEpilogue = fuses;
    return config("matmul", "small", fields);
  }
  if (batched)
    fields.push_back(array("batch_tile", {1}));
  // The epilogue runs on final accumulators only if one cache tile holds
  // the whole depth. A batch's columns may be symbolic or ragged (attention's
  // S): their last strip is split off (TileMatmul.cpp).
  bool wholeDepth =
      !ShapedType::isDynamic(depth) && depth <= tuning.cacheDepth;
  bool fullStrips =
      !ShapedType::isDynamic(width) && width % nr == 0;
  if (epilogue && wholeDepth && (fullStrips || batched)) {
    bool wide = ShapedType::isDynamic(width) || width > tuning.cacheColumns;
    fields.push_back(array("cache_tile", {wide ? tuning.cacheColumns : 0, 0}));
    fusesEpilogue = true;
    return config("matmul", "fused_epilogue", fields);
  }
  // Cache panels only for a large static N or a large (or symbolic) K; in
  // a batch also for a symbolic N (attention's S, the scores with a mask as
  // their initial value): its full panels are packed.
  bool bigN = ShapedType::isDynamic(width)
                  ? batched
                  : width > tuning.cacheColumns;
  bool bigK = ShapedType::isDynamic(depth) || depth > tuning.cacheDepth;
  fields.push_back(array("cache_tile", {bigN ? tuning.cacheColumns : 0,
                                        bigK ? tuning.cacheDepth : 0}));
  if (!batched)
    addUnpackedForm(fields, ranges, bits, transposedB);
  return config("matmul", "tiled", fields);
}

/// A "tiled" matmul with symbolic rows packs its B panels on every call,
/// however few the rows: at batch 1 a linear layer reads its weight, writes
/// it packed to the workspace and reads it again, for one row of output.
/// With a static weight stored with its rows along K (matmul_transpose_b:
/// linear; f32, whose partial sums need no wider type), the config adds a form without packing, chosen at run time,
/// once per call, when the rows are fewer than pack_min_rows
/// (unpacked_below): "dot_product", dot_columns output columns at a time,
/// each a dot_lanes-wide FMA accumulation along K reduced at the end.
void StrategySelector::addUnpackedForm(SmallVectorImpl<NamedAttribute> &fields,
                                       ArrayRef<int64_t> ranges, unsigned bits,
                                       bool transposedB) {
  int64_t lanes = tuning.lanes(bits);
  if (!transposedB || !ShapedType::isDynamic(ranges[0]) ||
      anyDynamic(ranges.drop_front()) || ranges[2] < lanes)
    return;
  fields.push_back(
      b.getNamedAttr("unpacked_form", b.getStringAttr("dot_product")));
  fields.push_back(integer("unpacked_below", tuning.packMinRows));
  fields.push_back(integer("dot_columns", tuning.dotColumns));
  fields.push_back(integer("dot_lanes", lanes));
}

void StrategySelector::selectMatmul(linalg::LinalgOp op) {
  if (hasEmptyLoopRange(op))
    return;
  bool batched = isa<linalg::BatchMatmulOp>(op);
  linalg::LinalgOp epilogue = fusableEpilogue(op);
  bool fusesEpilogue;
  op->setAttr(kLoweringConfig,
              matmulConfig(op.getStaticLoopRanges(), batched,
                           resultElementBits(op), epilogue, fusesEpilogue,
                           isa<linalg::MatmulTransposeBOp>(op) &&
                               allF32(op)));
  tiledAway.insert(op);
  if (!fusesEpilogue)
    return;
  epilogue->setAttr(kLoweringConfig, config("matmul_epilogue", "", {}));
  tiledAway.insert(epilogue);
}

//===- Convolutions ------------------------------------------------------===//

/// The parts of a row of columns: full register tiles of `columns`, then
/// at most one tile each of half as many, a quarter, ... and 1.
SmallVector<int64_t> columnTiles(int64_t columns) {
  SmallVector<int64_t> tiles;
  for (int64_t cols = columns; cols >= 1; cols /= 2)
    tiles.push_back(cols);
  return tiles;
}

/// Whether the output plane of `op` can be computed as one flat row with
/// the input's row pitch (flattenRows in TileConvolution.cpp): unit
/// strides and dilations, an input static but for the batch, a kernel
/// wider than one tap (a 1x1 convolution's plane is a matrix already).
bool flattensRows(linalg::Conv2DNchwFchwOp op) {
  auto ones = [](DenseIntElementsAttr attr) {
    return llvm::all_of(attr.getValues<int64_t>(),
                        [](int64_t v) { return v == 1; });
  };
  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto filterType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  return ones(op.getStrides()) && ones(op.getDilations()) &&
         filterType.hasStaticShape() &&
         filterType.getShape()[2] * filterType.getShape()[3] > 1 &&
         !anyDynamic(inputType.getShape().drop_front());
}

/// Convolutions as matmuls: for output rows narrower than one register
/// tile, the output plane as one flat row of register tiles where the
/// strides allow it and the output channels are few (flatten_rows: at 32
/// and 64 channels 14x14 the im2col matmul was scalar then, its panels
/// left untiled outside a loop (fixed since, not measured again); at 128
/// and more it was faster than the flat tiles), else one im2col matmul per
/// image;
/// wider rows as row tiles of matmuls on a packed filter
/// (TileConvolution.cpp). Null if they do not apply.
DictionaryAttr
StrategySelector::convolutionAsMatmulsConfig(linalg::Conv2DNchwFchwOp op) {
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  // (n, f, oh, ow, c, kh, kw)
  if (llvm::is_contained(sizes, 0) || ShapedType::isDynamic(sizes[1]) ||
      ShapedType::isDynamic(sizes[3]) ||
      anyDynamic(ArrayRef(sizes).drop_front(4)) || !allF32(op))
    return {};
  int64_t columns = tuning.convolutionColumnVectors * tuning.lanes(32);
  int64_t fc = tuning.convolutionFilterTile;
  if (sizes[3] < columns && sizes[1] % fc == 0 &&
      sizes[1] <= tuning.convolutionFlatMaxFilters && flattensRows(op)) {
    // Channel blocks that divide C (the tiles' slices are static).
    int64_t block = std::min(sizes[4], tuning.convolutionChannelBlock);
    while (sizes[4] % block != 0)
      --block;
    return config("convolution", "row_matmuls",
                  {integer("filter_tile", fc), array("column_tiles", {columns}),
                   integer("channel_tile", block == sizes[4] ? 0 : block),
                   b.getNamedAttr("unit_column_stride", b.getBoolAttr(false)),
                   b.getNamedAttr("flatten_rows", b.getBoolAttr(true))});
  }
  if (sizes[3] < columns) {
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("per_image", b.getBoolAttr(sizes[0] != 1))};
    if (!anyDynamic(ArrayRef(sizes).drop_front())) {
      // [F, C*KH*KW] x [C*KH*KW, OH*OW]; its result is no epilogue's
      // input. Columns narrower than one cache panel are padded to full
      // register tiles (padded_columns; TileConvolution.cpp): else that
      // one panel is neither packed nor fully tiled (49 columns at 7x7:
      // 25 GFLOPS, padded to 64: 75). Wider ones are not: their full
      // panels are packed, and at 14x14 the padding (196 -> 208) and its
      // copies made 1x1 convolutions 0.8x as fast.
      unsigned bits = resultElementBits(op);
      int64_t nr = tuning.matmulColumnVectors * tuning.lanes(bits);
      int64_t columns = sizes[2] * sizes[3];
      int64_t padded = columns < tuning.cacheColumns
                           ? int64_t(llvm::alignTo(columns, nr))
                           : columns;
      SmallVector<int64_t> matmul = {sizes[1], padded,
                                     sizes[4] * sizes[5] * sizes[6]};
      if (padded != columns)
        fields.push_back(integer("padded_columns", padded));
      bool fusesEpilogue;
      fields.push_back(b.getNamedAttr(
          "matmul", matmulConfig(matmul, false, bits, {}, fusesEpilogue)));
    }
    return config("convolution", "one_matmul", fields);
  }
  if (sizes[1] % fc != 0)
    return {};
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
  bool strided = strides[1] != 1;
  // A column stride is rewritten as unit stride over column phases, which
  // needs static image and filter sizes and no column dilation.
  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto filterType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  if (strided && (dilations[1] != 1 || !filterType.hasStaticShape() ||
                  anyDynamic(inputType.getShape().drop_front())))
    return {};
  return config("convolution", "row_matmuls",
                {integer("filter_tile", fc),
                 array("column_tiles", columnTiles(columns)),
                 b.getNamedAttr("unit_column_stride", b.getBoolAttr(strided))});
}

/// Tiles of one output row by up to 8 channels and 16 columns, one kernel
/// row per step; null if the sizes do not allow it.
DictionaryAttr
StrategySelector::convolutionRowsConfig(linalg::Conv2DNchwFchwOp op) {
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  int64_t channels = sizes[1], width = sizes[3];
  if (ShapedType::isDynamic(channels) || ShapedType::isDynamic(width) ||
      llvm::is_contained(sizes, 0) || anyDynamic(ArrayRef(sizes).drop_front(4)))
    return {};
  int64_t rowChannels = tuning.convolutionRowChannels;
  int64_t rowColumns = tuning.convolutionRowColumns;
  int64_t channelTile = channels % rowChannels == 0 ? rowChannels : channels;
  int64_t widthTile = width % rowColumns == 0         ? rowColumns
                      : width % (rowColumns / 2) == 0 ? rowColumns / 2
                                                      : width;
  if (channelTile * widthTile > tuning.convolutionRowMaxElements)
    return {};
  return config("convolution", "row_tiles",
                {array("tile_sizes", {1, channelTile, 1, widthTile, 0, 1, 0})});
}

DictionaryAttr
StrategySelector::convolutionConfig(linalg::Conv2DNchwFchwOp op) {
  if (DictionaryAttr matmuls = convolutionAsMatmulsConfig(op))
    return matmuls;
  if (DictionaryAttr rows = convolutionRowsConfig(op))
    return rows;
  return config("convolution", "loops", {});
}

void StrategySelector::selectConvolution(linalg::Conv2DNchwFchwOp op) {
  DictionaryAttr chosen = convolutionConfig(op);
  op->setAttr(kLoweringConfig, chosen);
  StringRef form = getString(chosen, "form");
  // An image of dynamic shape, alone, stays a convolution.
  bool untouched = form == "loops" ||
                   (form == "one_matmul" && !getBool(chosen, "per_image") &&
                    !getDictionary(chosen, "matmul"));
  if (!untouched)
    tiledAway.insert(op);
}

/// A depthwise f32 convolution of static filter and output rows, with at
/// most depthwiseMaxTaps taps, becomes a sum over its taps; the sum's own
/// config is chosen here too.
void StrategySelector::selectDepthwise(linalg::DepthwiseConv2DNchwChwOp op) {
  auto filterType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!allF32(op) || !filterType.hasStaticShape() ||
      anyDynamic(outType.getShape().drop_front()) ||
      llvm::is_contained(outType.getShape(), 0))
    return;
  int64_t taps = filterType.getNumElements() / filterType.getShape()[0];
  if (taps > tuning.depthwiseMaxTaps)
    return;
  depthwiseSums.insert(op);
  ElementwiseShape sum = {SmallVector<int64_t>(outType.getShape()), 32};
  SmallVector<NamedAttribute> fields;
  if (DictionaryAttr sumConfig = rowOrElementwiseConfig(op, sum))
    fields.push_back(b.getNamedAttr("sum", sumConfig));
  op->setAttr(kLoweringConfig, config("convolution", "depthwise_taps", fields));
}

//===- Row chains and elementwise ops ------------------------------------===//

/// The operands of `op` once the strategies before row chains ran: a
/// depthwise convolution's sum reads its input and filter through slices,
/// and its init.
SmallVector<Value> StrategySelector::operandsAfterTiling(Operation *op) {
  if (depthwiseSums.contains(op))
    return {cast<linalg::LinalgOp>(op).getDpsInits()[0]};
  return llvm::to_vector(op->getOperands());
}

/// True if a row reduction feeds `root` (directly or through other linalg
/// ops, at most 8 deep) once the matmuls and convolutions are tiled. Each
/// producer is visited once: a residual network reaches the same producers
/// along exponentially many paths.
bool StrategySelector::consumesRowReduction(Operation *root) {
  SmallVector<std::pair<Operation *, unsigned>> worklist = {{root, 0}};
  llvm::DenseSet<Operation *> visited = {root};
  while (!worklist.empty()) {
    auto [op, depth] = worklist.pop_back_val();
    if (depth > 8)
      continue;
    for (Value operand : operandsAfterTiling(op)) {
      auto producer = operand.getDefiningOp<linalg::LinalgOp>();
      if (!producer || tiledAway.contains(producer) ||
          !visited.insert(producer).second)
        continue;
      if (!depthwiseSums.contains(producer) && isRowReduction(producer))
        return true;
      worklist.push_back({producer, depth + 1});
    }
  }
  return false;
}

/// The config of an elementwise op of `shape`: one row at a time, a few
/// vectors of `vector_lanes` per step. How many (vectors_per_step, or one
/// for a long body) is left to TileElementwise: the canonicalizations that
/// the strategies before it run can shorten a body (fuzz seed 37: a
/// `select %c, %x, %x` chain of 12 ops folded to 2).
DictionaryAttr
StrategySelector::elementwiseConfig(const ElementwiseShape &shape) {
  return config("elementwise", "",
                {integer("vector_lanes", tuning.lanes(std::max(shape.bits, 8u))),
                 integer("vectors_per_step", tuning.elementwiseVectors)});
}

/// The config of a transpose that moves the innermost dimension (attention's
/// keys `[S, heads, d]` to `[heads, d, S]`): square blocks of one vector's
/// lanes, so that each block reads whole input rows and writes whole output
/// rows (as loops, every element read with the stride of a whole row: 2.8
/// ns an element at batch 8). Null for a transpose that keeps the innermost
/// dimension (its rows are contiguous copies already) and for elements
/// narrower than 32 bits (a block of 16-bit lanes with AVX-512 would be
/// 32x32, one shuffle of 1024 elements).
DictionaryAttr StrategySelector::transposeConfig(linalg::TransposeOp op) {
  ArrayRef<int64_t> permutation = op.getPermutation();
  if (permutation.empty() ||
      permutation.back() == int64_t(permutation.size()) - 1 ||
      !op.hasPureTensorSemantics() || hasEmptyLoopRange(op) ||
      resultElementBits(op) < 32)
    return nullptr;
  return config("transpose", "",
                {integer("block", tuning.lanes(resultElementBits(op)))});
}

/// A row chain's root if `op` (of `shape`, parallel, not in a loop) has
/// one result, several rows, and consumes a row reduction; else an
/// elementwise op.
DictionaryAttr
StrategySelector::rowOrElementwiseConfig(Operation *op,
                                         const ElementwiseShape &shape) {
  ArrayRef<int64_t> extents = shape.sizes;
  bool oneRow = llvm::all_of(extents.drop_back(),
                             [](int64_t extent) { return extent == 1; });
  if (extents.size() >= 2 && op->getNumResults() == 1 &&
      !shape.hasEmptyRange() && !oneRow && consumesRowReduction(op)) {
    SmallVector<int64_t> rows(extents.size(), 1);
    rows.back() = 0;
    return config("row_chain", "",
                  {array("row_tile", rows),
                   integer("vector_lanes", tuning.lanes(shape.bits)),
                   integer("vectors_per_step", tuning.elementwiseVectors)});
  }
  return elementwiseConfig(shape);
}

void StrategySelector::select(func::FuncOp function) {
  SmallVector<linalg::LinalgOp> matmuls, elementwise;
  SmallVector<linalg::TransposeOp> transposes;
  SmallVector<linalg::Conv2DNchwFchwOp> convolutions;
  SmallVector<linalg::DepthwiseConv2DNchwChwOp> depthwise;
  function.walk([&](linalg::LinalgOp op) {
    if (isMatmulLike(op))
      matmuls.push_back(op);
    else if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
      convolutions.push_back(conv);
    else if (auto dw =
                 dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation()))
      depthwise.push_back(dw);
    else if (isParallelElementwise(op) && !op->getParentOfType<scf::ForOp>())
      elementwise.push_back(op);
    else if (auto transpose = dyn_cast<linalg::TransposeOp>(op.getOperation()))
      if (!op->getParentOfType<scf::ForOp>())
        transposes.push_back(transpose);
  });
  // Decided in the order the strategies are applied: what a later one sees
  // depends on what the earlier ones tile away.
  for (linalg::LinalgOp op : matmuls)
    selectMatmul(op);
  for (linalg::Conv2DNchwFchwOp op : convolutions)
    if (op.hasPureTensorSemantics())
      selectConvolution(op);
  for (linalg::DepthwiseConv2DNchwChwOp op : depthwise)
    if (op.hasPureTensorSemantics())
      selectDepthwise(op);
  for (linalg::LinalgOp op : elementwise)
    if (!tiledAway.contains(op))
      if (DictionaryAttr chosen =
              rowOrElementwiseConfig(op, ElementwiseShape::of(op)))
        op->setAttr(kLoweringConfig, chosen);
  for (linalg::TransposeOp op : transposes)
    if (!tiledAway.contains(op))
      if (DictionaryAttr chosen = transposeConfig(op))
        op->setAttr(kLoweringConfig, chosen);
}

class SelectLoweringStrategyPass
    : public impl::SelectLoweringStrategyPassBase<SelectLoweringStrategyPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    const TargetTuning *tuning =
        lookupTuning(VectorTarget{vectorBits, vectorRegisters});
    if (!tuning) {
      getOperation().emitError("txc-select-lowering-strategy: vector-bits is ")
          << unsigned(vectorBits) << "; 128, 256 or 512 are supported";
      return signalPassFailure();
    }
    StrategySelector(*tuning, &getContext()).select(getOperation());
  }
};

} // namespace
} // namespace txc
