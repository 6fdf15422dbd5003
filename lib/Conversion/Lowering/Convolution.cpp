//===- Convolution.cpp - Lowering of convolution and pooling --------------===//
//
// conv2d lowers to linalg's named convolutions (conv_2d_nchw_fchw,
// conv_2d_nhwc_hwcf, and the depthwise variants when every group has one
// input and one output channel); other grouped convolutions become one
// linalg.generic. Pools lower to linalg's pooling ops (integer max pools
// to one linalg.generic). Padding is an explicit tensor.pad (zero for sums,
// the dtype's lowest value for max), extended by a ceil-mode window's
// overhang, so the window ops never read out of bounds.
//
// f16 and bf16 accumulate in f32 and round once at the end, as PyTorch does
// on CPU, so that long sums do not lose the low bits of every term.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"

#include "txc/Program/Window.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// The element type sums are accumulated in.
Type accumulatorType(MLIRGen &gen, DType dtype) {
  if (dtype == DType::F16 || dtype == DType::BF16)
    return gen.builder().getF32Type();
  return gen.elementType(dtype);
}

/// A tensor of `type`'s shape with `element` elements, uninitialized.
Value emptyLike(MLIRGen &gen, const TensorType &type, Type element,
                Location at) {
  auto tensorType =
      RankedTensorType::get(gen.tensorType(type).getShape(), element);
  return gen.builder().create<tensor::EmptyOp>(at, tensorType,
                                               gen.dynamicDims(type, at));
}

Value fill(MLIRGen &gen, Value init, Value scalar, Location at) {
  return gen.builder().create<linalg::FillOp>(at, scalar, init).getResult(0);
}

Value floatConstant(OpBuilder &b, Type type, double value, Location at) {
  return b.create<arith::ConstantOp>(at, b.getFloatAttr(type, value));
}

/// Converts a float to `to` (extension or rounding), or returns it.
Value convertFloat(OpBuilder &b, Value value, Type to, Location at) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return b.create<arith::ExtFOp>(at, to, value);
  return b.create<arith::TruncFOp>(at, to, value);
}

/// The index value of a dim; constants are materialized here (MLIRGen's
/// dimValue is for symbolic dims).
Value indexValue(MLIRGen &gen, const ShapeExpr &dim, Location at) {
  if (auto constant = dim.getConstant())
    return gen.builder().create<arith::ConstantIndexOp>(at, *constant);
  return gen.dimValue(dim, at);
}

/// Pads the spatial dims of `x` (of program type `type`) by the window's
/// padding with `padValue`.
Value padSpatial(MLIRGen &gen, Value x, const TensorType &type, Layout layout,
                 const Window &window, double padValue, Location at) {
  if (!window.hasPadding())
    return x;
  OpBuilder &b = gen.builder();
  Value pad = gen.scalar(type.dtype, padValue, at);
  LayoutDims dims = layoutDims(layout);
  SmallVector<OpFoldResult> low(4, b.getIndexAttr(0));
  SmallVector<OpFoldResult> high(4, b.getIndexAttr(0));
  low[dims.height] = b.getIndexAttr(window.padBefore[0]);
  low[dims.width] = b.getIndexAttr(window.padBefore[1]);
  high[dims.height] = b.getIndexAttr(window.padAfter[0]);
  high[dims.width] = b.getIndexAttr(window.padAfter[1]);
  return b.create<tensor::PadOp>(at, /*resultType=*/Type(), x, low, high, pad);
}

DenseIntElementsAttr pairAttr(OpBuilder &b, std::array<int64_t, 2> values) {
  return b.getI64TensorAttr({values[0], values[1]});
}

/// Rounds an f32 accumulator to the result dtype (f16/bf16); the identity
/// for other dtypes.
Value roundToResult(MLIRGen &gen, Value acc, const TensorType &resultType,
                    Location at) {
  Type element = gen.elementType(resultType.dtype);
  if (cast<RankedTensorType>(acc.getType()).getElementType() == element)
    return acc;
  return gen.buildElementwise(at, resultType, {acc}, {resultType},
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                return convertFloat(b, args[0], element, l);
                              });
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

/// The accumulator of a convolution: the bias broadcast along the channel
/// dim when there is one, else zeros.
Value convInit(MLIRGen &gen, const NodeLowering &lowering, Layout layout,
               Type acc) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const TensorType &resultType = lowering.resultType();
  Value init = emptyLike(gen, resultType, acc, at);
  if (lowering.operands.size() < 3)
    return fill(gen, init, floatConstant(b, acc, 0, at), at);
  unsigned channels = layoutDims(layout).channels;
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, b.getAffineDimExpr(channels)),
      b.getMultiDimIdentityMap(4)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          at, init.getType(), ValueRange{lowering.operands[2]},
          ValueRange{init}, maps, iterators,
          [&](OpBuilder &nested, Location l, ValueRange args) {
            nested.create<linalg::YieldOp>(
                l, convertFloat(nested, args[0], acc, l));
          })
      .getResult(0);
}

/// A depthwise convolution with multiplier 1 (groups == C == O): linalg's
/// depthwise ops take the weights without their size-1 input-channel dim.
Value lowerDepthwise(MLIRGen &gen, Location at, Layout layout, Value x, Value w,
                     Value init, const Window &window) {
  OpBuilder &b = gen.builder();
  SmallVector<ReassociationIndices> reassociation =
      layout == Layout::NCHW
          ? SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}  // OIHW, I=1
          : SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}; // HWIO, I=1
  Value weights = b.create<tensor::CollapseShapeOp>(at, w, reassociation);
  Attribute strides = pairAttr(b, window.stride);
  Attribute dilations = pairAttr(b, window.dilation);
  if (layout == Layout::NCHW)
    return b
        .create<linalg::DepthwiseConv2DNchwChwOp>(
            at, init.getType(), ValueRange{x, weights}, ValueRange{init},
            strides, dilations)
        .getResult(0);
  return b
      .create<linalg::DepthwiseConv2DNhwcHwcOp>(
          at, init.getType(), ValueRange{x, weights}, ValueRange{init}, strides,
          dilations)
      .getResult(0);
}

/// A grouped convolution as one linalg.generic. Loops (NCHW):
/// (n, o, oh, ow, c, kh, kw), reading
///   x[n, (o floordiv O/G) * C/G + c, oh*s + kh*d, ow*s + kw*d]
///   w[o, c, kh, kw]
/// and NHWC alike with (n, oh, ow, o, kh, kw, c) and HWIO weights.
Value lowerGroupedGeneric(MLIRGen &gen, Location at, Layout layout, Value x,
                          Value w, Value init, const Window &window,
                          int64_t groups, int64_t inPerGroup,
                          int64_t outChannels) {
  OpBuilder &b = gen.builder();
  bool nchw = layout == Layout::NCHW;
  AffineExpr n = b.getAffineDimExpr(0);
  AffineExpr o = b.getAffineDimExpr(nchw ? 1 : 3);
  AffineExpr oh = b.getAffineDimExpr(nchw ? 2 : 1);
  AffineExpr ow = b.getAffineDimExpr(nchw ? 3 : 2);
  AffineExpr c = b.getAffineDimExpr(nchw ? 4 : 6);
  AffineExpr kh = b.getAffineDimExpr(nchw ? 5 : 4);
  AffineExpr kw = b.getAffineDimExpr(nchw ? 6 : 5);
  AffineExpr ih = oh * window.stride[0] + kh * window.dilation[0];
  AffineExpr iw = ow * window.stride[1] + kw * window.dilation[1];
  AffineExpr ic = o.floorDiv(outChannels / groups) * inPerGroup + c;
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(7, 0, exprs, b.getContext());
  };
  SmallVector<AffineMap> maps =
      nchw ? SmallVector<AffineMap>{map({n, ic, ih, iw}), map({o, c, kh, kw}),
                                    map({n, o, oh, ow})}
           : SmallVector<AffineMap>{map({n, ih, iw, ic}), map({kh, kw, c, o}),
                                    map({n, oh, ow, o})};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(4, IteratorType::parallel);
  iterators.append(3, IteratorType::reduction);
  Type acc = cast<RankedTensorType>(init.getType()).getElementType();
  return b
      .create<linalg::GenericOp>(
          at, init.getType(), ValueRange{x, w}, ValueRange{init}, maps,
          iterators,
          [&](OpBuilder &nested, Location l, ValueRange args) {
            Value product = nested.create<arith::MulFOp>(
                l, convertFloat(nested, args[0], acc, l),
                convertFloat(nested, args[1], acc, l));
            nested.create<linalg::YieldOp>(
                l,
                nested.create<arith::AddFOp>(l, args[2], product).getResult());
          })
      .getResult(0);
}

FailureOr<SmallVector<Value>> lowerConv2D(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const Node &node = lowering.node;
  const TensorType &xType = lowering.operandTypes[0];
  const Shape &wShape = lowering.operandTypes[1].shape;
  Layout layout = getLayout(node);
  bool nchw = layout == Layout::NCHW;
  // OIHW or HWIO; the verifier checked that the kernel is static.
  int64_t kh = *wShape[nchw ? 2 : 0].getConstant();
  int64_t kw = *wShape[nchw ? 3 : 1].getConstant();
  Window window = getWindow(node, {kh, kw});
  int64_t groups = getIntAttr(node, "groups", 1);
  Type acc = accumulatorType(gen, xType.dtype);

  Value x = padSpatial(gen, lowering.operands[0], xType, layout, window, 0, at);
  Value w = lowering.operands[1];
  Value init = convInit(gen, lowering, layout, acc);
  Value result;
  if (groups == 1) {
    Attribute strides = pairAttr(b, window.stride);
    Attribute dilations = pairAttr(b, window.dilation);
    result = nchw ? b.create<linalg::Conv2DNchwFchwOp>(
                         at, init.getType(), ValueRange{x, w}, ValueRange{init},
                         strides, dilations)
                        .getResult(0)
                  : b.create<linalg::Conv2DNhwcHwcfOp>(
                         at, init.getType(), ValueRange{x, w}, ValueRange{init},
                         strides, dilations)
                        .getResult(0);
  } else {
    // Grouped convolutions have static channel counts (verifier).
    int64_t channels = *xType.shape[layoutDims(layout).channels].getConstant();
    int64_t outChannels = *wShape[nchw ? 0 : 3].getConstant();
    if (groups == channels && outChannels == channels)
      result = lowerDepthwise(gen, at, layout, x, w, init, window);
    else
      result = lowerGroupedGeneric(gen, at, layout, x, w, init, window, groups,
                                   channels / groups, outChannels);
  }
  return SmallVector<Value>{
      roundToResult(gen, result, lowering.resultType(), at)};
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// The shape-only window operand of linalg's pooling ops.
Value windowTensor(MLIRGen &gen, const Window &window, Type element,
                   Location at) {
  return gen.builder().create<tensor::EmptyOp>(
      at, ArrayRef<int64_t>{window.kernel[0], window.kernel[1]}, element);
}

template <typename NchwOp, typename NhwcOp>
Value buildPooling(MLIRGen &gen, Location at, Layout layout, Value x,
                   Value init, const Window &window) {
  OpBuilder &b = gen.builder();
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  Value shape = windowTensor(gen, window, element, at);
  Attribute strides = pairAttr(b, window.stride);
  Attribute dilations = pairAttr(b, window.dilation);
  if (layout == Layout::NCHW)
    return b
        .create<NchwOp>(at, init.getType(), ValueRange{x, shape},
                        ValueRange{init}, strides, dilations)
        .getResult(0);
  return b
      .create<NhwcOp>(at, init.getType(), ValueRange{x, shape},
                      ValueRange{init}, strides, dilations)
      .getResult(0);
}

/// The window with the padding after each spatial dim that its windows
/// read: in ceil mode the last window may hang over the padded input by up
/// to stride-1 elements, which the lowering pads too (with the pool's
/// padding value; avg_pool2d does not count them). The overhang,
/// (out-1)*stride + span - padBefore - in, is a constant (shape rule).
FailureOr<Window> withOverhang(Window window, const NodeLowering &lowering,
                               Layout layout) {
  if (!window.ceilMode)
    return window;
  const TensorType &xType = lowering.operandTypes[0];
  const TensorType &resultType = lowering.resultType();
  LayoutDims dims = layoutDims(layout);
  unsigned spatial[2] = {dims.height, dims.width};
  for (unsigned axis = 0; axis < 2; ++axis) {
    const ShapeExpr &in = xType.shape[spatial[axis]];
    const ShapeExpr &out = resultType.shape[spatial[axis]];
    auto reach = ShapeExpr::add(
        *ShapeExpr::mul(out, ShapeExpr::constant(window.stride[axis])),
        ShapeExpr::constant(window.span(axis) - window.stride[axis] -
                            window.padBefore[axis]));
    auto overhang = reach ? ShapeExpr::sub(*reach, in) : std::nullopt;
    auto after = overhang ? overhang->getConstant() : std::nullopt;
    if (!after)
      return emitError(lowering.loc)
             << "internal error: the ceil-mode windows of '"
             << lowering.node.name << "' overhang by a non-constant amount";
    window.padAfter[axis] = std::max(window.padAfter[axis], *after);
  }
  return window;
}

/// The lowest value of a max_pool2d dtype: -inf for floats, so that the
/// padding never wins a window that holds an input element (and a window of
/// only padding, possible with dilation, gives -inf, as in PyTorch).
double lowestValue(DType dtype) {
  if (dtype == DType::I8)
    return -128;
  if (dtype == DType::U8)
    return 0;
  return -INFINITY;
}

/// A max pool of integers as one linalg.generic: linalg's named max pools
/// compare signed (and have no unsigned NCHW variant). Loops (NCHW):
/// (n, c, oh, ow, kh, kw) reading x[n, c, oh*s + kh*d, ow*s + kw*d]; NHWC
/// alike with (n, oh, ow, c, kh, kw).
Value buildIntegerMaxPool(OpBuilder &b, Location at, Layout layout, Value x,
                          Value init, const Window &window, bool isUnsigned) {
  bool nchw = layout == Layout::NCHW;
  AffineExpr n = b.getAffineDimExpr(0);
  AffineExpr c = b.getAffineDimExpr(nchw ? 1 : 3);
  AffineExpr oh = b.getAffineDimExpr(nchw ? 2 : 1);
  AffineExpr ow = b.getAffineDimExpr(nchw ? 3 : 2);
  AffineExpr kh = b.getAffineDimExpr(4), kw = b.getAffineDimExpr(5);
  AffineExpr ih = oh * window.stride[0] + kh * window.dilation[0];
  AffineExpr iw = ow * window.stride[1] + kw * window.dilation[1];
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(6, 0, exprs, b.getContext());
  };
  Value shape = b.create<tensor::EmptyOp>(
      at, ArrayRef<int64_t>{window.kernel[0], window.kernel[1]},
      b.getI8Type());
  SmallVector<AffineMap> maps = {
      nchw ? map({n, c, ih, iw}) : map({n, ih, iw, c}), map({kh, kw}),
      nchw ? map({n, c, oh, ow}) : map({n, oh, ow, c})};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(4, IteratorType::parallel);
  iterators.append(2, IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          at, init.getType(), ValueRange{x, shape}, ValueRange{init}, maps,
          iterators,
          [&](OpBuilder &nested, Location l, ValueRange args) {
            Value max =
                isUnsigned
                    ? nested.create<arith::MaxUIOp>(l, args[0], args[2])
                          .getResult()
                    : nested.create<arith::MaxSIOp>(l, args[0], args[2])
                          .getResult();
            nested.create<linalg::YieldOp>(l, max);
          })
      .getResult(0);
}

/// max_pool2d: the padding is the dtype's lowest value. NaN propagates
/// (arith.maximumf).
FailureOr<SmallVector<Value>> lowerMaxPool(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  Location at = lowering.loc;
  Layout layout = getLayout(lowering.node);
  const TensorType &xType = lowering.operandTypes[0];
  DType dtype = lowering.resultType().dtype;
  FailureOr<Window> window =
      withOverhang(getWindow(lowering.node), lowering, layout);
  if (failed(window))
    return failure();
  Value x = padSpatial(gen, lowering.operands[0], xType, layout, *window,
                       lowestValue(dtype), at);
  Value lowest = gen.scalar(dtype, lowestValue(dtype), at);
  Value init =
      fill(gen, gen.emptyTensor(lowering.resultType(), at), lowest, at);
  if (!isFloat(dtype))
    return SmallVector<Value>{buildIntegerMaxPool(
        gen.builder(), at, layout, x, init, *window, dtype == DType::U8)};
  return SmallVector<Value>{
      buildPooling<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>(
          gen, at, layout, x, init, *window)};
}

/// The number of elements of [lo, hi) in the window of output position `o`
/// along one axis: min(o*s - p + k, hi) - max(o*s - p, lo), with p the
/// padding before. [0, size) counts the input elements; [-padBefore,
/// size + padAfter) the padded input's.
Value windowCount(OpBuilder &b, Location at, Value o, int64_t lo, Value hi,
                  const Window &window, unsigned axis) {
  auto index = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(at, v).getResult();
  };
  Value start = b.create<arith::SubIOp>(
      at, b.create<arith::MulIOp>(at, o, index(window.stride[axis])),
      index(window.padBefore[axis]));
  Value end = b.create<arith::MinSIOp>(
      at, b.create<arith::AddIOp>(at, start, index(window.kernel[axis])), hi);
  Value first = b.create<arith::MaxSIOp>(at, start, index(lo));
  return b.create<arith::SubIOp>(at, end, first);
}

Value indexToFloat(OpBuilder &b, Value index, Type type, Location at) {
  Value i64 = b.create<arith::IndexCastOp>(at, b.getI64Type(), index);
  return b.create<arith::SIToFPOp>(at, type, i64);
}

/// The divisor of each avg_pool2d window along one axis: the bounds of the
/// elements it counts (lo, hi), or nothing when every window counts its
/// whole kernel (count_include_pad without a ceil-mode overhang).
struct CountBounds {
  int64_t lo;
  Value hi;
};

std::optional<CountBounds> countBounds(MLIRGen &gen, Location at,
                                       const ShapeExpr &in,
                                       const Window &window,
                                       const Window &padded, bool includePad,
                                       unsigned axis) {
  if (!includePad)
    return CountBounds{0, indexValue(gen, in, at)};
  if (padded.padAfter[axis] == window.padAfter[axis])
    return std::nullopt;
  // ONNX and PyTorch count the padding but not the overhang.
  OpBuilder &b = gen.builder();
  Value size = indexValue(gen, in, at);
  Value padAfter = b.create<arith::ConstantIndexOp>(at, window.padAfter[axis]);
  return CountBounds{-window.padBefore[axis],
                     b.create<arith::AddIOp>(at, size, padAfter)};
}

/// avg_pool2d: a sum pool over zero padding, then one elementwise pass that
/// divides by the window size (count_include_pad, PyTorch's default) or by
/// the number of input elements in each window; a ceil-mode window that
/// hangs over the padded input counts only what it covers.
FailureOr<SmallVector<Value>> lowerAvgPool(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const Node &node = lowering.node;
  const TensorType &xType = lowering.operandTypes[0];
  const TensorType &resultType = lowering.resultType();
  Layout layout = getLayout(node);
  LayoutDims dims = layoutDims(layout);
  Window window = getWindow(node);
  FailureOr<Window> overhanging = withOverhang(window, lowering, layout);
  if (failed(overhanging))
    return failure();
  const Window &padded = *overhanging;
  bool includePad = getBoolAttr(node, "count_include_pad", true);
  Type acc = accumulatorType(gen, xType.dtype);

  Value x = padSpatial(gen, lowering.operands[0], xType, layout, padded, 0, at);
  Value zeros = fill(gen, emptyLike(gen, resultType, acc, at),
                     floatConstant(b, acc, 0, at), at);
  Value sums = buildPooling<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>(
      gen, at, layout, x, zeros, padded);

  std::optional<CountBounds> bounds[2] = {
      countBounds(gen, at, xType.shape[dims.height], window, padded,
                  includePad, 0),
      countBounds(gen, at, xType.shape[dims.width], window, padded,
                  includePad, 1)};
  Type element = gen.elementType(resultType.dtype);
  // Divides in place when the sums already have the result dtype.
  Value out = acc == element ? sums : emptyLike(gen, resultType, element, at);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(4));
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  auto divide = [&](OpBuilder &nb, Location l, ValueRange args) {
    unsigned spatial[2] = {dims.height, dims.width};
    Value positions[2], cells[2];
    for (unsigned axis = 0; axis < 2; ++axis)
      if (bounds[axis])
        positions[axis] = nb.create<linalg::IndexOp>(l, spatial[axis]);
    // Width first: the order the IR had before ceil mode (GCC evaluated
    // the two counts of one call right to left).
    for (unsigned axis : {1u, 0u})
      if (bounds[axis])
        cells[axis] = windowCount(nb, l, positions[axis], bounds[axis]->lo,
                                  bounds[axis]->hi, window, axis);
    Value count;
    if (!cells[0] && !cells[1]) {
      count = floatConstant(nb, acc,
                            double(window.kernel[0] * window.kernel[1]), l);
    } else {
      for (unsigned axis = 0; axis < 2; ++axis)
        if (!cells[axis])
          cells[axis] =
              nb.create<arith::ConstantIndexOp>(l, window.kernel[axis]);
      count = indexToFloat(
          nb, nb.create<arith::MulIOp>(l, cells[0], cells[1]), acc, l);
    }
    Value mean = nb.create<arith::DivFOp>(l, args[0], count);
    nb.create<linalg::YieldOp>(l, convertFloat(nb, mean, element, l));
  };
  Value result =
      b.create<linalg::GenericOp>(at, out.getType(), ValueRange{sums},
                                  ValueRange{out}, maps, iterators, divide)
          .getResult(0);
  return SmallVector<Value>{result};
}

/// global_avg_pool: a reduction over the spatial dims into [N, C], then one
/// pass that divides by H*W and writes [N,C,1,1] (NHWC: [N,1,1,C]).
FailureOr<SmallVector<Value>> lowerGlobalAvgPool(MLIRGen &gen,
                                                 const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const TensorType &xType = lowering.operandTypes[0];
  const TensorType &resultType = lowering.resultType();
  Layout layout = getLayout(lowering.node);
  LayoutDims dims = layoutDims(layout);
  Type acc = accumulatorType(gen, xType.dtype);
  Type element = gen.elementType(resultType.dtype);
  using utils::IteratorType;

  TensorType sumsType{xType.dtype,
                      {xType.shape[dims.batch], xType.shape[dims.channels]}};
  Value init = fill(gen, emptyLike(gen, sumsType, acc, at),
                    floatConstant(b, acc, 0, at), at);
  AffineMap toSums = AffineMap::get(
      4, 0, {b.getAffineDimExpr(dims.batch), b.getAffineDimExpr(dims.channels)},
      b.getContext());
  SmallVector<IteratorType> iterators(4, IteratorType::parallel);
  iterators[dims.height] = iterators[dims.width] = IteratorType::reduction;
  Value sums =
      b.create<linalg::GenericOp>(
           at, init.getType(), ValueRange{lowering.operands[0]},
           ValueRange{init},
           SmallVector<AffineMap>{b.getMultiDimIdentityMap(4), toSums},
           iterators,
           [&](OpBuilder &nb, Location l, ValueRange args) {
             nb.create<linalg::YieldOp>(
                 l, nb.create<arith::AddFOp>(l, args[1],
                                             convertFloat(nb, args[0], acc, l))
                        .getResult());
           })
          .getResult(0);

  Value cells =
      b.create<arith::MulIOp>(at, indexValue(gen, xType.shape[dims.height], at),
                              indexValue(gen, xType.shape[dims.width], at));
  Value count = indexToFloat(b, cells, acc, at);
  Value out = gen.emptyTensor(resultType, at);
  Value result =
      b.create<linalg::GenericOp>(
           at, out.getType(), ValueRange{sums}, ValueRange{out},
           SmallVector<AffineMap>{toSums, b.getMultiDimIdentityMap(4)},
           SmallVector<IteratorType>(4, IteratorType::parallel),
           [&](OpBuilder &nb, Location l, ValueRange args) {
             Value mean = nb.create<arith::DivFOp>(l, args[0], count);
             nb.create<linalg::YieldOp>(l, convertFloat(nb, mean, element, l));
           })
          .getResult(0);
  return SmallVector<Value>{result};
}

} // namespace

void registerConvolutionLowerings(LoweringTable &table) {
  table.add(OpKind::Conv2D, lowerConv2D);
  table.add(OpKind::MaxPool2D, lowerMaxPool);
  table.add(OpKind::AvgPool2D, lowerAvgPool);
  table.add(OpKind::GlobalAvgPool, lowerGlobalAvgPool);
}

} // namespace txc
