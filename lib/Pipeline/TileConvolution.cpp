//===- TileConvolution.cpp - The convolution strategy ---------------------===//
//
// Applies the "convolution" configs that txc-select-lowering-strategy chose
// (LoweringConfig.h) to NCHW convolutions and depthwise convolutions:
//
//  * form "one_matmul": each image as one im2col matmul, tiled by the
//    matmul strategy with the config the selection computed for it;
//  * form "row_matmuls": tiles of one output row by filter_tile channels
//    and column_tiles columns, each KH*KW matmuls on a packed filter;
//  * form "row_tiles": tiles (tile_sizes) that are 1-D convolutions;
//  * form "depthwise_taps": one elementwise sum over the kernel's taps,
//    which gets the config `sum` for the elementwise or row-chain pass;
//  * form "loops": nothing (lowered to loops).
//
// Tiles with one output row and one kernel row then become 1-D
// convolutions (decomposeStaticConvolutions).
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
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_TILECONVOLUTIONPASS
#include "Passes.h.inc"

namespace {

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

/// `slice` ([rows][w]) inserted into the 2-D `into` at column `column`.
Value insertColumns(OpBuilder &b, Location loc, Value slice, Value into,
                    int64_t column) {
  auto shape = cast<RankedTensorType>(slice.getType()).getShape();
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0),
                                       b.getIndexAttr(column)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return b.create<tensor::InsertSliceOp>(
      loc, slice, into, offsets, getAsIndexOpFoldResult(b.getContext(), shape),
      strides);
}

/// The input slice [C][wc] that kernel tap (row, col) of a tile reads.
using TapSlice =
    llvm::function_ref<Value(OpBuilder &, Location, Value row, Value col)>;

/// The KH*KW steps of a convolution tile as matmuls on the packed filter:
/// for each tap (row, col), acc[f][w] += sum over c of
/// packed[strip][row][col][channel + c][f] * inputSlice(row, col)[c][w],
/// with the
/// taps in the convolution's (kh, kw) order. Sets `matmul` to the matmul
/// (a matmul_transpose_a: the packed filter slice is [C][fc]) for register
/// tiling and returns the final accumulator; the [fc][wc] accumulator is
/// the same for all steps, so it stays in registers.
Value buildTapMatmuls(RewriterBase &rewriter, Location loc, Value acc,
                      Value packed, OpFoldResult strip, OpFoldResult channel,
                      int64_t c, int64_t fc, int64_t kh, int64_t kw,
                      TapSlice inputSlice, Operation *&matmul) {
  OpFoldResult zero = rewriter.getIndexAttr(0);
  Value lower = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value step = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value rows = rewriter.create<arith::ConstantIndexOp>(loc, kh);
  Value cols = rewriter.create<arith::ConstantIndexOp>(loc, kw);
  auto buildStep = [&](OpBuilder &b, Location loc, Value row, Value col,
                       Value stepAcc) {
    Value filterSlice = sliceOf(b, loc, packed, {strip, row, col, channel, zero},
                                {1, 1, 1, c, fc}, {c, fc});
    matmul = b.create<linalg::MatmulTransposeAOp>(
        loc, stepAcc.getType(),
        ValueRange{filterSlice, inputSlice(b, loc, row, col)}, stepAcc);
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
  return rowLoop.getResult(0);
}

/// The packed filter strip of the output channels from `firstFilter`.
OpFoldResult filterStrip(RewriterBase &rewriter, Location loc,
                         Value firstFilter, int64_t fc) {
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  return affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(fc), {OpFoldResult(firstFilter)});
}

/// Replaces the tile `op` by `result` written into the [1][fc](...)[wc]
/// slice of its init at offset 0 (`rank` dims).
void replaceByAccumulator(RewriterBase &rewriter, Operation *op, Value result,
                          ArrayRef<int64_t> sizes) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Value out = linalgOp.getDpsInits()[0];
  SmallVector<OpFoldResult> offsets(sizes.size(), rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> unitStrides(sizes.size(),
                                        rewriter.getIndexAttr(1));
  Value inserted = rewriter.create<tensor::InsertSliceOp>(
      op->getLoc(), result, out, offsets,
      getAsIndexOpFoldResult(rewriter.getContext(), sizes), unitStrides);
  rewriter.replaceOp(op, inserted);
}

/// Rewrites one tile of a convolution with unit column stride (one image,
/// fc output channels, one output row, wc columns, all of C, KH, KW) as
/// KH*KW matmuls (buildTapMatmuls): tap (kh, kw) reads
/// in[c][kh*DH][w + kw*DW] of the tile's input slice. Returns the matmul.
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
  Value acc = sliceOf(rewriter, loc, out, SmallVector<OpFoldResult>(4, zero),
                      {1, fc, 1, wc}, {fc, wc});
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  auto inputSlice = [&](OpBuilder &b, Location loc, Value row, Value col) {
    OpFoldResult inRow = affine::makeComposedFoldedAffineApply(
        b, loc, d0 * dilations[0], {OpFoldResult(row)});
    OpFoldResult inCol = affine::makeComposedFoldedAffineApply(
        b, loc, d0 * dilations[1], {OpFoldResult(col)});
    return sliceOf(b, loc, input, {zero, zero, inRow, inCol}, {1, c, 1, wc},
                   {c, wc});
  };
  Operation *matmul = nullptr;
  Value result = buildTapMatmuls(
      rewriter, loc, acc, packed, filterStrip(rewriter, loc, firstFilter, fc),
      zero, c, fc, kh, kw, inputSlice, matmul);
  replaceByAccumulator(rewriter, conv, result, {1, fc, 1, wc});
  return matmul;
}

/// Rewrites one tile of a flattened convolution (flattenRows: one image,
/// fc output channels, wc flat columns, the input channels from
/// `firstChannel` on) as KH*KW matmuls: tap (kh, kw)
/// reads the wc contiguous flat input columns kh*Wi + kw on from the
/// tile's first. Returns the matmul.
Operation *rewriteFlatTile(RewriterBase &rewriter, linalg::GenericOp tile,
                           Value packed, Value firstFilter,
                           OpFoldResult firstChannel, int64_t fc,
                           int64_t inputWidth) {
  Location loc = tile.getLoc();
  Value input = tile.getDpsInputs()[0], out = tile.getDpsInits()[0];
  // (n, f, p, c, kh, kw)
  SmallVector<int64_t> sizes = tile.getStaticLoopRanges();
  int64_t wc = sizes[2], c = sizes[3], kh = sizes[4], kw = sizes[5];
  rewriter.setInsertionPoint(tile);
  OpFoldResult zero = rewriter.getIndexAttr(0);
  Value acc = sliceOf(rewriter, loc, out, SmallVector<OpFoldResult>(3, zero),
                      {1, fc, wc}, {fc, wc});
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  auto inputSlice = [&](OpBuilder &b, Location loc, Value row, Value col) {
    OpFoldResult shift = affine::makeComposedFoldedAffineApply(
        b, loc, d0 * inputWidth + d1, {OpFoldResult(row), OpFoldResult(col)});
    return sliceOf(b, loc, input, {zero, zero, shift}, {1, c, wc}, {c, wc});
  };
  Operation *matmul = nullptr;
  Value result = buildTapMatmuls(
      rewriter, loc, acc, packed, filterStrip(rewriter, loc, firstFilter, fc),
      firstChannel, c, fc, kh, kw, inputSlice, matmul);
  replaceByAccumulator(rewriter, tile, result, {1, fc, wc});
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

/// A [rows][padded] tensor whose first `width` columns `write` computes
/// (into the [rows][width] slice it is given) and whose other columns are
/// zero. The slice is a view of the result, so after bufferization `write`
/// stores into the padded buffer directly, with no copy.
Value withZeroColumns(RewriterBase &rewriter, Location loc, int64_t rows,
                      int64_t width, int64_t padded, Type element,
                      llvm::function_ref<Value(Value slice)> write) {
  OpFoldResult zero = rewriter.getIndexAttr(0);
  Value result = rewriter.create<tensor::EmptyOp>(
      loc, ArrayRef<int64_t>{rows, padded}, element);
  if (padded > width) {
    Value tail =
        sliceOf(rewriter, loc, result, {zero, rewriter.getIndexAttr(width)},
                {rows, padded - width}, {rows, padded - width});
    Value zeroValue =
        rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(element));
    Value zeros =
        rewriter.create<linalg::FillOp>(loc, zeroValue, tail).getResult(0);
    result = insertColumns(rewriter, loc, zeros, result, width);
  }
  Value head = sliceOf(rewriter, loc, result, {zero, zero}, {rows, width},
                       {rows, width});
  return insertColumns(rewriter, loc, write(head), result, 0);
}

/// A copy of the 2-D static `matrix` with zero columns after its own, up
/// to `padded` columns.
Value padColumns(RewriterBase &rewriter, Location loc, Value matrix,
                 int64_t padded) {
  auto type = cast<RankedTensorType>(matrix.getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(2, rewriter.getContext());
  return withZeroColumns(
      rewriter, loc, type.getShape()[0], type.getShape()[1], padded,
      type.getElementType(), [&](Value slice) {
        return gatherCopy(rewriter, loc, matrix, slice, identity).getResult(0);
      });
}

/// The right-hand side of the im2col matmul of one image `conv`, as a
/// [C*KH*KW][padded] matrix whose first OH*OW columns are the image's:
/// the image itself for a 1x1 unit-stride convolution (copied if padded),
/// else its im2col copy; the other columns are zero.
Value imageColumns(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                   int64_t padded) {
  SmallVector<int64_t> sizes =
      cast<linalg::LinalgOp>(conv.getOperation()).getStaticLoopRanges();
  // (n, f, oh, ow, c, kh, kw)
  int64_t oh = sizes[2], ow = sizes[3], c = sizes[4], kh = sizes[5],
          kw = sizes[6];
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  bool pointwise = kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1;
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0];
  using Groups = ArrayRef<ReassociationIndices>;
  MLIRContext *context = rewriter.getContext();
  if (pointwise) {
    Value image = rewriter.create<tensor::CollapseShapeOp>(
        loc, input, Groups{{0, 1}, {2, 3}});
    return padded == oh * ow ? image : padColumns(rewriter, loc, image, padded);
  }
  AffineExpr ch, r, q, y, x;
  bindDims(context, ch, r, q, y, x);
  AffineMap read = AffineMap::get(
      5, 0,
      {getAffineConstantExpr(0, context), ch,
       y * strides[0] + r * dilations[0], x * strides[1] + q * dilations[1]},
      context);
  Type element = getElementTypeOrSelf(input.getType());
  auto copy = [&](Value slice) {
    Value expanded = rewriter.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get({c, kh, kw, oh, ow}, element), slice,
        Groups{{0, 1, 2}, {3, 4}});
    linalg::GenericOp im2col = gatherCopy(rewriter, loc, input, expanded, read);
    return rewriter.create<tensor::CollapseShapeOp>(loc, im2col.getResult(0),
                                                    Groups{{0, 1, 2}, {3, 4}});
  };
  if (padded == oh * ow)
    return copy(rewriter.create<tensor::EmptyOp>(
        loc, ArrayRef<int64_t>{c * kh * kw, oh * ow}, element));
  return withZeroColumns(rewriter, loc, c * kh * kw, oh * ow, padded, element,
                         copy);
}

/// Each image of a convolution as one matmul [F, C*KH*KW] x [C*KH*KW, OH*OW]
/// into its output (the filter and the output are views): the right-hand
/// side is the image itself for a 1x1 unit-stride convolution, else its
/// im2col copy (each input element KH*KW times, once per call). The matmul
/// is then tiled like any other (the config's `matmul`): strips of 16
/// output positions packed, the output channels in 6-row register tiles.
/// For output rows narrower than one 16-column tile, where the row tiles of
/// tileConvolutionAsMatmuls are short (resnet18's 7x7 layers ran at 11
/// GFLOPS as rows of 4 + 2 + 1 columns; with this, resnet18 batch 1 went
/// from 216 to 152 ms and mobilenet_v2 from 115 to 95 ms). Wider 1x1
/// convolutions stay row tiles: as one matmul per image mobilenet_v2 took
/// 118 ms. Without a `matmul` (an image of dynamic shape), the images run
/// one per iteration, lowered to loops.
///
/// With `padded_columns` (OH*OW rounded up to the register tile's width)
/// the matmul is [F, K] x [K, padded] into an accumulator of its own, the
/// extra columns zero and dropped after: every strip of B is a full,
/// packed one. Without, 7x7 maps (49 = 3*16 + 1 columns) ran their 3
/// strips unpacked and the last column as 6x1 tiles: 21 GFLOPS.
void tileConvolutionAsOneMatmul(RewriterBase &rewriter,
                                linalg::Conv2DNchwFchwOp op,
                                DictionaryAttr config) {
  Operation *image = op;
  if (getBool(config, "per_image")) {
    auto tiled = tile(rewriter, op, {1, 0, 0, 0, 0, 0, 0});
    if (failed(tiled))
      return;
    image = tiled->tiledOps.back();
  }
  DictionaryAttr matmulConfig = getDictionary(config, "matmul");
  if (!matmulConfig)
    return;
  auto conv = cast<linalg::Conv2DNchwFchwOp>(image);
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value filter = conv.getDpsInputs()[1], out = conv.getDpsInits()[0];
  auto outType = cast<RankedTensorType>(out.getType());
  int64_t filters = outType.getShape()[1],
          width = outType.getShape()[2] * outType.getShape()[3];
  int64_t padded = std::max(getInt(config, "padded_columns"), width);
  using Groups = ArrayRef<ReassociationIndices>;
  Value columns = imageColumns(rewriter, conv, padded);
  Value weights = rewriter.create<tensor::CollapseShapeOp>(
      loc, filter, Groups{{0}, {1, 2, 3}});
  Value acc = rewriter.create<tensor::CollapseShapeOp>(loc, out,
                                                       Groups{{0, 1}, {2, 3}});
  if (padded != width)
    acc = padColumns(rewriter, loc, acc, padded);
  auto matmul = rewriter.create<linalg::MatmulOp>(
      loc, TypeRange{acc.getType()}, ValueRange{weights, columns},
      ValueRange{acc});
  Value result = matmul.getResult(0);
  if (padded != width) {
    OpFoldResult zero = rewriter.getIndexAttr(0);
    result = sliceOf(rewriter, loc, result, {zero, zero}, {filters, width},
                     {filters, width});
  }
  rewriter.replaceOp(conv, rewriter.create<tensor::ExpandShapeOp>(
                               loc, outType, result, Groups{{0, 1}, {2, 3}}));
  applyMatmulConfig(rewriter, matmul, matmulConfig);
}

/// `source` padded with zeros: `highs[d]` more elements at the end of dim d.
Value padHigh(RewriterBase &rewriter, Location loc, Value source,
                 ArrayRef<int64_t> highs) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> low(type.getRank(), rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> high;
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, extra] : llvm::enumerate(highs)) {
    high.push_back(rewriter.getIndexAttr(extra));
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] += extra;
  }
  Value zero = rewriter.create<arith::ConstantOp>(
      loc, rewriter.getZeroAttr(type.getElementType()));
  return rewriter.create<tensor::PadOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), source, low,
      high, zero);
}

/// A stride-1, undilated convolution `op` with an input [N][C][Hi][Wi]
/// static but for N, computed on its output plane flattened with the
/// input's row pitch: flat column p = oh*Wi + ow reads flat input column
/// p + kh*Wi + kw, so the whole plane is one row of columns that register
/// tiles of `cols` fill (a 14x14 plane: 14 tiles of 16; as rows, 14
/// columns a row and no full tile). The Wi - OW columns at the end of each
/// flat row, and the columns up to a multiple of `cols`, are extra work
/// (1/7 at 14x14, 0.31 at 7x7), computed on zeros and dropped. The flat
/// input is copied into planes of an odd number of cache lines, long
/// enough for every column a tile reads: a plane of 256 floats (14x14 with
/// padding 1) put the C rows of one tile step into 4 of L1's 64 sets.
/// Returns the flat convolution, a linalg.generic over (n, f, p, c, kh, kw)
/// into [N][F][L] (the selection checked the form: flattensRows).
linalg::GenericOp flattenRows(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp op, int64_t cols) {
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  ArrayRef<int64_t> filterShape =
      cast<RankedTensorType>(filter.getType()).getShape();
  int64_t inputWidth = inputType.getShape()[3];
  int64_t plane = inputType.getShape()[2] * inputWidth;
  int64_t length =
      llvm::alignTo((outShape[2] - 1) * inputWidth + outShape[3], cols);
  int64_t reach =
      length + (filterShape[2] - 1) * inputWidth + filterShape[3] - 1;
  constexpr int64_t kLineFloats = 16;
  int64_t lines = llvm::divideCeil(std::max(reach, plane), kLineFloats);
  int64_t pitch = (lines | 1) * kLineFloats;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<ReassociationIndices> flatPlane = {{0}, {1}, {2, 3}};
  Value flatInput = padHigh(
      rewriter, loc,
      rewriter.create<tensor::CollapseShapeOp>(loc, input, flatPlane),
      {0, 0, pitch - plane});
  // The flat accumulator [N][F][L], a copy of the init with Wi columns a
  // row, the extra ones zero. A buffer of its own, not a view of the init:
  // MLIR hoists the accumulators of a tile out of its reduction loops only
  // from a buffer that no view-like op defines (with a collapse_shape of
  // the padded init they were loaded and stored on every step: 30 GFLOPS
  // at 256->256 14x14).
  int64_t rows = llvm::divideCeil(length, inputWidth);
  Value padded = padHigh(
      rewriter, loc, init,
      {0, 0, rows - outShape[2], inputWidth - outShape[3]});
  MLIRContext *context = rewriter.getContext();
  Type element = outType.getElementType();
  Value flatEmpty = rewriter.create<tensor::EmptyOp>(
      loc,
      ArrayRef<OpFoldResult>{tensor::getMixedSize(rewriter, loc, init, 0),
                             rewriter.getIndexAttr(outShape[1]),
                             rewriter.getIndexAttr(length)},
      element);
  AffineExpr n, f, p, c, r, q;
  bindDims(context, n, f, p);
  Value flatAcc =
      gatherCopy(rewriter, loc, padded, flatEmpty,
                 AffineMap::get(3, 0,
                                {n, f, p.floorDiv(inputWidth), p % inputWidth},
                                context))
          .getResult(0);
  bindDims(context, n, f, p, c, r, q);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {n, c, p + r * inputWidth + q}, context),
      AffineMap::get(6, 0, {f, c, r, q}, context),
      AffineMap::get(6, 0, {n, f, p}, context)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators = {
      IteratorType::parallel,  IteratorType::parallel,
      IteratorType::parallel,  IteratorType::reduction,
      IteratorType::reduction, IteratorType::reduction};
  auto flat = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{flatAcc.getType()}, ValueRange{flatInput, filter},
      ValueRange{flatAcc}, maps, iterators,
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value product = b.create<arith::MulFOp>(loc, args[0], args[1]);
        b.create<linalg::YieldOp>(
            loc, ValueRange{b.create<arith::AddFOp>(loc, args[2], product)});
      });
  // Back to [N][F][OH][OW] in the init, the extra columns dropped.
  AffineExpr h, w;
  bindDims(context, n, f, h, w);
  Value result =
      gatherCopy(rewriter, loc, flat.getResult(0), init,
                 AffineMap::get(4, 0, {n, f, h * inputWidth + w}, context))
          .getResult(0);
  rewriter.replaceOp(op, result);
  return flat;
}

/// The flat convolution of `op` (flattenRows) in register tiles of
/// filter_tile channels by column_tiles[0] flat columns, each KH*KW matmul
/// steps on the packed filter; with a channel_tile, in blocks of that many
/// input channels, the outermost loop (a reduction: the tiles of a block
/// add to the accumulators of the block before), so that the filter strip
/// and the input rows of a block stay in L1 from one tile to the next.
void tileFlatConvolution(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp op,
                         Value packed, DictionaryAttr config) {
  int64_t fc = getInt(config, "filter_tile");
  int64_t cols = getSizes(config, "column_tiles")[0];
  int64_t cb = getInt(config, "channel_tile");
  int64_t inputWidth =
      cast<RankedTensorType>(op.getDpsInputs()[0].getType()).getShape()[3];
  linalg::GenericOp flat = flattenRows(rewriter, op, cols);
  // (n, f, p, c, kh, kw); the channel blocks outermost.
  SmallVector<int64_t> sizes = {1, fc, cols, cb, 0, 0};
  SmallVector<int64_t> order = {3, 0, 1, 2, 4, 5};
  auto tiled = tile(rewriter, flat, sizes, cb ? ArrayRef(order) : ArrayRef<int64_t>());
  if (failed(tiled))
    return; // stays whole, lowered to loops
  unsigned filterLoop = cb ? 2 : 1;
  Value firstFilter = cast<scf::ForOp>(tiled->loops[filterLoop].getOperation())
                          .getInductionVar();
  OpFoldResult firstChannel =
      cb ? OpFoldResult(
               cast<scf::ForOp>(tiled->loops[0].getOperation()).getInductionVar())
         : OpFoldResult(rewriter.getIndexAttr(0));
  Operation *matmul = rewriteFlatTile(
      rewriter, cast<linalg::GenericOp>(tiled->tiledOps.back()), packed,
      firstFilter, firstChannel, fc, inputWidth);
  tileRegisters(rewriter, matmul, 0, 1, fc, cols);
}

/// NCHW f32 convolutions with a multiple of filter_tile (4) output channels
/// (a column stride first rewritten as unit stride by unitColumnStride) run
/// as matmuls on a packed filter: tiles of one output row by wc columns and
/// 4 output channels (rewriteConvolutionTile), whose reduction over (kh,
/// kw, c) is a register tile of outer products like a matmul's: 4
/// broadcasts of adjacent filter values and 2 vector loads of an input row
/// per step, 8 accumulators in registers (8 channels by 16 columns would
/// need all 16 registers for accumulators and spills). The columns run in
/// parts of column_tiles: 2 vectors, then at most one part each of 8, 4, 2
/// and 1, as a tile of 14 columns would be a vector<14>, which LLVM
/// scalarizes (2.3x slower at 14x14).
void tileConvolutionAsMatmuls(RewriterBase &rewriter,
                              linalg::Conv2DNchwFchwOp op,
                              DictionaryAttr config) {
  int64_t fc = getInt(config, "filter_tile");
  if (getBool(config, "unit_column_stride")) {
    op = unitColumnStride(rewriter, op);
    if (!op)
      return;
  }
  rewriter.setInsertionPoint(op);
  Value packed = packFilter(rewriter, op.getLoc(), op.getDpsInputs()[1], fc);
  if (getBool(config, "flatten_rows")) {
    tileFlatConvolution(rewriter, op, packed, config);
    return;
  }
  Operation *rest = op;
  for (int64_t cols : getSizes(config, "column_tiles")) {
    if (!rest)
      break;
    auto [part, tail] = splitForTiles(rewriter, rest, 3, cols);
    rest = tail;
    if (!part)
      continue;
    auto tiled = tile(rewriter, part, {1, fc, 1, cols, 0, 0, 0});
    if (failed(tiled))
      return; // the part stays a whole convolution, lowered to loops
    Value firstFilter =
        cast<scf::ForOp>(tiled->loops[1].getOperation()).getInductionVar();
    Operation *matmul = rewriteConvolutionTile(
        rewriter, cast<linalg::Conv2DNchwFchwOp>(tiled->tiledOps.back()),
        packed, firstFilter, fc);
    tileRegisters(rewriter, matmul, 0, 1, fc, cols);
  }
}

/// NCHW convolutions that the forms above do not take (output channels not
/// a multiple of 4, other element types, strided columns with dilation):
/// one output row of one image per tile, OW columns (up to 16) by up to 8
/// output channels, and one kernel row per step of a reduction loop
/// (tile_sizes), so that the tile is a 1-D convolution (decomposed below)
/// that vectorizes along the row with the accumulators in registers.
/// Without this, the 7 loops run scalar with the accumulator in memory.
void tileConvolutionRows(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp op,
                         DictionaryAttr config) {
  (void)tile(rewriter, op, getSizes(config, "tile_sizes"));
}

/// The views of a depthwise convolution's input that its kernel taps read
/// (strided, no copies), and the taps' [C] filter columns, in the
/// convolution's own (kh, kw) order.
std::pair<SmallVector<Value>, SmallVector<Value>>
depthwiseTaps(RewriterBase &rewriter, linalg::DepthwiseConv2DNchwChwOp op) {
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  auto strides = llvm::to_vector(op.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(op.getDilations().getValues<int64_t>());
  int64_t c = filterType.getShape()[0], kh = filterType.getShape()[1],
          kw = filterType.getShape()[2];
  Location loc = op.getLoc();
  auto index = [&](int64_t value) -> OpFoldResult {
    return rewriter.getIndexAttr(value);
  };
  SmallVector<OpFoldResult> outSizes = {
      tensor::getMixedSize(rewriter, loc, init, 0), index(c),
      index(outType.getShape()[2]), index(outType.getShape()[3])};
  SmallVector<OpFoldResult> viewStrides = {index(1), index(1),
                                           index(strides[0]),
                                           index(strides[1])};
  SmallVector<Value> views, taps;
  for (int64_t r = 0; r < kh; ++r) {
    for (int64_t q = 0; q < kw; ++q) {
      SmallVector<OpFoldResult> offsets = {index(0), index(0),
                                           index(r * dilations[0]),
                                           index(q * dilations[1])};
      views.push_back(rewriter.create<tensor::ExtractSliceOp>(
          loc, outType, input, offsets, outSizes, viewStrides));
      taps.push_back(rewriter.create<tensor::ExtractSliceOp>(
          loc, RankedTensorType::get({c}, filterType.getElementType()), filter,
          ArrayRef<OpFoldResult>{index(0), index(r), index(q)},
          ArrayRef<OpFoldResult>{index(c), index(1), index(1)},
          SmallVector<OpFoldResult>(3, index(1))));
    }
  }
  return {views, taps};
}

/// A depthwise NCHW f32 convolution as one elementwise op over its output,
/// whose operands are the KH*KW strided views of the input that the kernel
/// taps read (no copies) and the taps' [C] filter columns:
///   out[n, c, oh, ow] = init + sum over taps t of view_t[...] * filter_t[c],
/// the taps in the convolution's own (kh, kw) order, so the sum rounds as
/// at -O0. The sum gets the config `sum`: the elementwise pass then
/// vectorizes it along the output row with the sum in registers; before,
/// the depthwise convolutions ran as scalar loops storing the accumulator
/// every step (20-28% of the MobileNets' and EfficientNet's time).
void unrollDepthwiseTaps(RewriterBase &rewriter,
                         linalg::DepthwiseConv2DNchwChwOp op,
                         DictionaryAttr config) {
  Value init = op.getDpsInits()[0];
  auto outType = cast<RankedTensorType>(init.getType());
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto [views, taps] = depthwiseTaps(rewriter, op);
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
  if (DictionaryAttr sumConfig = getDictionary(config, "sum"))
    sum->setAttr(kLoweringConfig, sumConfig);
  rewriter.replaceOp(op, sum->getResults());
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

void applyConvolutionConfig(RewriterBase &rewriter, Operation *op,
                            DictionaryAttr config) {
  StringRef form = getString(config, "form");
  if (auto depthwise = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op)) {
    if (form == "depthwise_taps")
      unrollDepthwiseTaps(rewriter, depthwise, config);
    return;
  }
  auto conv = cast<linalg::Conv2DNchwFchwOp>(op);
  if (form == "one_matmul")
    tileConvolutionAsOneMatmul(rewriter, conv, config);
  else if (form == "row_matmuls")
    tileConvolutionAsMatmuls(rewriter, conv, config);
  else if (form == "row_tiles")
    tileConvolutionRows(rewriter, conv, config);
}

class TileConvolutionPass
    : public impl::TileConvolutionPassBase<TileConvolutionPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    IRRewriter rewriter(&getContext());
    // NCHW convolutions first, then depthwise ones, each in program order.
    SmallVector<std::pair<Operation *, DictionaryAttr>> convolutions,
        depthwise;
    function.walk([&](Operation *op) {
      if (DictionaryAttr config = takeLoweringConfig(op, "convolution"))
        (isa<linalg::DepthwiseConv2DNchwChwOp>(op) ? depthwise : convolutions)
            .push_back({op, config});
    });
    for (auto [op, config] : llvm::concat<std::pair<Operation *, DictionaryAttr>>(
             convolutions, depthwise))
      applyConvolutionConfig(rewriter, op, config);
    // Pools among them: every static op is decomposed once an NCHW
    // convolution was seen, as before the strategy was data.
    if (!convolutions.empty())
      decomposeStaticConvolutions(function);
  }
};

} // namespace
} // namespace txc
