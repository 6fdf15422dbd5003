//===- Convolution.cpp - Lowering of convolution and pooling --------------===//
//
// conv2d and conv3d lower to linalg's named convolutions (conv_2d_nchw_fchw,
// conv_2d_nhwc_hwcf, conv_3d_ndhwc_dhwcf, and the depthwise variants when
// every group has one input and one output channel); other convolutions
// (grouped, and NCDHW ones, below) become one linalg.generic. The 2-D
// pools lower to linalg's pooling ops, integer max pools and the 3-D pools
// (linalg has no NCDHW pools) to one linalg.generic each. Padding is an
// explicit tensor.pad (zero for sums, the dtype's lowest value for max),
// extended by a ceil-mode window's overhang, so the window ops never read
// out of bounds. Everything is written once for 2 or 3 spatial dims; the
// 2-D ops' IR is what it was before the 3-D ops came.
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
  LayoutDims dims = layoutDims(layout, window.rank());
  SmallVector<OpFoldResult> low(type.shape.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> high(type.shape.size(), b.getIndexAttr(0));
  for (unsigned axis = 0; axis < window.rank(); ++axis) {
    low[dims.spatial[axis]] = b.getIndexAttr(window.padBefore[axis]);
    high[dims.spatial[axis]] = b.getIndexAttr(window.padAfter[axis]);
  }
  return b.create<tensor::PadOp>(at, /*resultType=*/Type(), x, low, high, pad);
}

/// The loops of a linalg.generic over a window of `spatial` dims: the batch
/// `n`, a channel `c`, the output positions `out` and the kernel positions
/// `kernel`, each a dim of the iteration space. `activation` is the map of
/// an activation in `layout` at a channel and spatial positions: the
/// output's, or the input's at `inputPositions`.
struct WindowLoops {
  Layout layout;
  AffineExpr n, c;
  SmallVector<AffineExpr, 3> out, kernel;

  AffineMap activation(OpBuilder &b, unsigned numDims, AffineExpr channel,
                       ArrayRef<AffineExpr> spatial) const {
    SmallVector<AffineExpr> exprs = {n};
    if (layout == Layout::ChannelsFirst)
      exprs.push_back(channel);
    exprs.append(spatial.begin(), spatial.end());
    if (layout == Layout::ChannelsLast)
      exprs.push_back(channel);
    return AffineMap::get(numDims, 0, exprs, b.getContext());
  }
  /// The input positions a window reads: out*stride + kernel*dilation.
  SmallVector<AffineExpr, 3> inputPositions(const Window &window) const {
    SmallVector<AffineExpr, 3> positions;
    for (unsigned axis = 0; axis < out.size(); ++axis)
      positions.push_back(out[axis] * window.stride[axis] +
                          kernel[axis] * window.dilation[axis]);
    return positions;
  }
};

/// The loops (n, c, out..., k...) for channels first, (n, out..., c, k...)
/// for channels last: the order of linalg's NCHW and NHWC pools.
WindowLoops poolLoops(OpBuilder &b, Layout layout, unsigned spatial) {
  bool first = layout == Layout::ChannelsFirst;
  WindowLoops loops{layout, b.getAffineDimExpr(0),
                    b.getAffineDimExpr(first ? 1 : spatial + 1), {}, {}};
  for (unsigned axis = 0; axis < spatial; ++axis) {
    loops.out.push_back(b.getAffineDimExpr((first ? 2 : 1) + axis));
    loops.kernel.push_back(b.getAffineDimExpr(spatial + 2 + axis));
  }
  return loops;
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
  unsigned rank = resultType.shape.size();
  unsigned channels = layoutDims(layout, rank - 2).channels;
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, b.getAffineDimExpr(channels)),
      b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
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

/// Creates the named linalg op `NamedOp` of a window (a convolution or a
/// pool) with the window's strides and dilations.
template <typename NamedOp>
Value createWindowOp(OpBuilder &b, Location at, ValueRange inputs, Value init,
                     const Window &window) {
  return b
      .create<NamedOp>(at, init.getType(), inputs, ValueRange{init},
                       b.getI64TensorAttr(window.stride),
                       b.getI64TensorAttr(window.dilation))
      .getResult(0);
}

/// The named op of `layout` and 2 or 3 spatial dims: `Ops` lists the NCHW,
/// NHWC, NCDHW and NDHWC ops, in that order.
template <typename NchwOp, typename NhwcOp, typename NcdhwOp, typename NdhwcOp>
Value createNamedWindowOp(OpBuilder &b, Location at, Layout layout,
                          ValueRange inputs, Value init,
                          const Window &window) {
  bool first = layout == Layout::ChannelsFirst;
  if (window.rank() == 2)
    return first ? createWindowOp<NchwOp>(b, at, inputs, init, window)
                 : createWindowOp<NhwcOp>(b, at, inputs, init, window);
  return first ? createWindowOp<NcdhwOp>(b, at, inputs, init, window)
               : createWindowOp<NdhwcOp>(b, at, inputs, init, window);
}

/// A depthwise convolution with multiplier 1 (groups == C == O): linalg's
/// depthwise ops take the weights without their size-1 input-channel dim.
Value lowerDepthwise(MLIRGen &gen, Location at, Layout layout, Value x, Value w,
                     Value init, const Window &window) {
  OpBuilder &b = gen.builder();
  // OIHW with I = 1: {{O, I}, {H}, {W}}; HWIO: {{H}, {W}, {I, O}}.
  unsigned rank = window.rank() + 2;
  SmallVector<ReassociationIndices> reassociation;
  for (unsigned dim = 0; dim < rank; ++dim) {
    bool merged = layout == Layout::ChannelsFirst ? dim == 1 : dim == rank - 1;
    if (merged)
      reassociation.back().push_back(dim);
    else
      reassociation.push_back({int64_t(dim)});
  }
  Value weights = b.create<tensor::CollapseShapeOp>(at, w, reassociation);
  return createNamedWindowOp<
      linalg::DepthwiseConv2DNchwChwOp, linalg::DepthwiseConv2DNhwcHwcOp,
      linalg::DepthwiseConv3DNcdhwCdhwOp, linalg::DepthwiseConv3DNdhwcDhwcOp>(
      b, at, layout, ValueRange{x, weights}, init, window);
}

/// A grouped convolution as one linalg.generic. Loops (NCHW):
/// (n, o, oh, ow, c, kh, kw), reading
///   x[n, (o floordiv O/G) * C/G + c, oh*s + kh*d, ow*s + kw*d]
///   w[o, c, kh, kw]
/// and NHWC alike with (n, oh, ow, o, kh, kw, c) and HWIO weights; 3-D
/// ones with a depth before the height. With one group the input channel
/// is c, and the channel counts may be symbolic (`inPerGroup` and
/// `outChannels` are not read).
Value lowerGroupedGeneric(MLIRGen &gen, Location at, Layout layout, Value x,
                          Value w, Value init, const Window &window,
                          int64_t groups, int64_t inPerGroup,
                          int64_t outChannels) {
  OpBuilder &b = gen.builder();
  unsigned spatial = window.rank();
  unsigned numDims = 2 * spatial + 3;
  bool first = layout == Layout::ChannelsFirst;
  // The output loops are those of a pool; then c and the kernel (first) or
  // the kernel and c (last).
  WindowLoops loops = poolLoops(b, layout, spatial);
  AffineExpr c = b.getAffineDimExpr(first ? spatial + 2 : 2 * spatial + 2);
  for (unsigned axis = 0; axis < spatial; ++axis)
    loops.kernel[axis] =
        b.getAffineDimExpr((first ? spatial + 3 : spatial + 2) + axis);
  AffineExpr o = loops.c;
  AffineExpr ic =
      groups == 1 ? c : o.floorDiv(outChannels / groups) * inPerGroup + c;
  SmallVector<AffineExpr> weightExprs;
  if (first)
    weightExprs = {o, c};
  weightExprs.append(loops.kernel.begin(), loops.kernel.end());
  if (!first)
    weightExprs.append({c, o});
  SmallVector<AffineMap> maps = {
      loops.activation(b, numDims, ic, loops.inputPositions(window)),
      AffineMap::get(numDims, 0, weightExprs, b.getContext()),
      loops.activation(b, numDims, o, loops.out)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(spatial + 2, IteratorType::parallel);
  iterators.append(spatial + 1, IteratorType::reduction);
  Type acc = cast<RankedTensorType>(init.getType()).getElementType();
  return b
      .create<linalg::GenericOp>(
          at, init.getType(), ValueRange{x, w}, ValueRange{init}, maps,
          iterators,
          [&](OpBuilder &nested, Location l, ValueRange args) {
            // Statements, so that the IR's order does not depend on the
            // compiler's order of evaluating arguments.
            Value input = convertFloat(nested, args[0], acc, l);
            Value weight = convertFloat(nested, args[1], acc, l);
            Value product = nested.create<arith::MulFOp>(l, input, weight);
            nested.create<linalg::YieldOp>(
                l,
                nested.create<arith::AddFOp>(l, args[2], product).getResult());
          })
      .getResult(0);
}

FailureOr<SmallVector<Value>> lowerConv(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const Node &node = lowering.node;
  const TensorType &xType = lowering.operandTypes[0];
  const Shape &wShape = lowering.operandTypes[1].shape;
  Layout layout = getLayout(node);
  bool first = layout == Layout::ChannelsFirst;
  unsigned spatial = spatialRank(node.kind);
  // OIHW or HWIO (OIDHW, DHWIO); the verifier checked that the kernel is
  // static.
  SmallVector<int64_t, 3> kernel;
  for (unsigned axis = 0; axis < spatial; ++axis)
    kernel.push_back(*wShape[(first ? 2 : 0) + axis].getConstant());
  Window window = getWindow(node, kernel);
  int64_t groups = getIntAttr(node, "groups", 1);
  Type acc = accumulatorType(gen, xType.dtype);

  Value x = padSpatial(gen, lowering.operands[0], xType, layout, window, 0, at);
  Value w = lowering.operands[1];
  Value init = convInit(gen, lowering, layout, acc);
  Value result;
  // linalg's conv_3d_ncdhw_fcdhw sums over the input channels innermost,
  // reading the input and the weights D*H*W elements apart, in another
  // order than conv_2d_nchw_fchw and the interpreter (channels outermost):
  // an NCDHW conv3d is the generic form, which sums as they do.
  if (groups == 1 && spatial == 3 && first) {
    result = lowerGroupedGeneric(gen, at, layout, x, w, init, window, 1, 0, 0);
  } else if (groups == 1) {
    SmallVector<Value, 2> inputs = {x, w};
    if (spatial == 3)
      result = createWindowOp<linalg::Conv3DNdhwcDhwcfOp>(b, at, inputs, init,
                                                          window);
    else if (first)
      result = createWindowOp<linalg::Conv2DNchwFchwOp>(b, at, inputs, init,
                                                        window);
    else
      result = createWindowOp<linalg::Conv2DNhwcHwcfOp>(b, at, inputs, init,
                                                        window);
  } else {
    // Grouped convolutions have static channel counts (verifier).
    int64_t channels =
        *xType.shape[layoutDims(layout, spatial).channels].getConstant();
    int64_t outChannels = *wShape[first ? 0 : spatial + 1].getConstant();
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
Value windowTensor(OpBuilder &b, const Window &window, Type element,
                   Location at) {
  return b.create<tensor::EmptyOp>(at, window.kernel, element);
}

/// A pool as one linalg.generic: loops (n, c, out..., k...) for channels
/// first, (n, out..., c, k...) for channels last, reading
/// x[n, c, out*s + k*d ...] and combining it into the output with
/// `combine(element, accumulator)`.
Value buildPoolGeneric(
    OpBuilder &b, Location at, Layout layout, Value x, Value init,
    const Window &window,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  unsigned spatial = window.rank();
  unsigned numDims = 2 * spatial + 2;
  WindowLoops loops = poolLoops(b, layout, spatial);
  Value shape = windowTensor(b, window, b.getI8Type(), at);
  SmallVector<AffineMap> maps = {
      loops.activation(b, numDims, loops.c, loops.inputPositions(window)),
      AffineMap::get(numDims, 0, loops.kernel, b.getContext()),
      loops.activation(b, numDims, loops.c, loops.out)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(spatial + 2, IteratorType::parallel);
  iterators.append(spatial, IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          at, init.getType(), ValueRange{x, shape}, ValueRange{init}, maps,
          iterators,
          [&](OpBuilder &nested, Location l, ValueRange args) {
            nested.create<linalg::YieldOp>(
                l, combine(nested, l, args[0], args[2]));
          })
      .getResult(0);
}

/// A pool whose body is linalg's `NchwOp` or `NhwcOp` for 2 spatial dims,
/// and `combine` in a linalg.generic for 3 (linalg has no NCDHW pools).
template <typename NchwOp, typename NhwcOp>
Value buildPooling(
    OpBuilder &b, Location at, Layout layout, Value x, Value init,
    const Window &window,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  if (window.rank() != 2)
    return buildPoolGeneric(b, at, layout, x, init, window, combine);
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  Value shape = windowTensor(b, window, element, at);
  if (layout == Layout::ChannelsFirst)
    return createWindowOp<NchwOp>(b, at, ValueRange{x, shape}, init, window);
  return createWindowOp<NhwcOp>(b, at, ValueRange{x, shape}, init, window);
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
  LayoutDims dims = layoutDims(layout, window.rank());
  for (unsigned axis = 0; axis < window.rank(); ++axis) {
    const ShapeExpr &in = xType.shape[dims.spatial[axis]];
    const ShapeExpr &out = resultType.shape[dims.spatial[axis]];
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

/// The lowest value of a max pool's dtype: -inf for floats, so that the
/// padding never wins a window that holds an input element (and a window of
/// only padding, possible with dilation, gives -inf, as in PyTorch).
double lowestValue(DType dtype) {
  if (dtype == DType::I8)
    return -128;
  if (dtype == DType::U8)
    return 0;
  return -INFINITY;
}

/// max_pool2d and max_pool3d: the padding is the dtype's lowest value. NaN
/// propagates (arith.maximumf). Integers compare in one linalg.generic:
/// linalg's named max pools compare signed (and have no unsigned NCHW
/// variant).
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
  OpBuilder &b = gen.builder();
  if (!isFloat(dtype)) {
    bool isUnsigned = dtype == DType::U8;
    return SmallVector<Value>{buildPoolGeneric(
        b, at, layout, x, init, *window,
        [&](OpBuilder &nb, Location l, Value element, Value max) -> Value {
          if (isUnsigned)
            return nb.create<arith::MaxUIOp>(l, element, max);
          return nb.create<arith::MaxSIOp>(l, element, max);
        })};
  }
  return SmallVector<Value>{
      buildPooling<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>(
          b, at, layout, x, init, *window,
          [](OpBuilder &nb, Location l, Value element, Value max) -> Value {
            return nb.create<arith::MaximumFOp>(l, max, element);
          })};
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

/// The divisor of each average pool window along one axis: the bounds of the
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

/// avg_pool2d and avg_pool3d: a sum pool over zero padding, then one
/// elementwise pass that
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
  Window window = getWindow(node);
  unsigned spatial = window.rank();
  LayoutDims dims = layoutDims(layout, spatial);
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
      b, at, layout, x, zeros, padded,
      [&](OpBuilder &nb, Location l, Value element, Value sum) -> Value {
        return nb.create<arith::AddFOp>(l, sum,
                                        convertFloat(nb, element, acc, l));
      });

  SmallVector<std::optional<CountBounds>, 3> bounds;
  for (unsigned axis = 0; axis < spatial; ++axis)
    bounds.push_back(countBounds(gen, at, xType.shape[dims.spatial[axis]],
                                 window, padded, includePad, axis));
  Type element = gen.elementType(resultType.dtype);
  // Divides in place when the sums already have the result dtype.
  Value out = acc == element ? sums : emptyLike(gen, resultType, element, at);
  unsigned rank = resultType.shape.size();
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto divide = [&](OpBuilder &nb, Location l, ValueRange args) {
    SmallVector<Value, 3> positions(spatial), cells(spatial);
    for (unsigned axis = 0; axis < spatial; ++axis)
      if (bounds[axis])
        positions[axis] = nb.create<linalg::IndexOp>(l, dims.spatial[axis]);
    // Width first: the order the IR had before ceil mode (GCC evaluated
    // the two counts of one call right to left).
    for (unsigned axis = spatial; axis-- > 0;)
      if (bounds[axis])
        cells[axis] = windowCount(nb, l, positions[axis], bounds[axis]->lo,
                                  bounds[axis]->hi, window, axis);
    Value count;
    if (llvm::none_of(cells, [](Value cell) { return bool(cell); })) {
      count = floatConstant(nb, acc, double(window.size()), l);
    } else {
      for (unsigned axis = 0; axis < spatial; ++axis)
        if (!cells[axis])
          cells[axis] =
              nb.create<arith::ConstantIndexOp>(l, window.kernel[axis]);
      Value cellCount = cells[0];
      for (unsigned axis = 1; axis < spatial; ++axis)
        cellCount = nb.create<arith::MulIOp>(l, cellCount, cells[axis]);
      count = indexToFloat(nb, cellCount, acc, l);
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
  LayoutDims dims = layoutDims(layout, 2);
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
  for (unsigned dim : dims.spatial)
    iterators[dim] = IteratorType::reduction;
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
      b.create<arith::MulIOp>(at, indexValue(gen, xType.shape[dims.spatial[0]], at),
                              indexValue(gen, xType.shape[dims.spatial[1]], at));
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
  table.add(OpKind::Conv2D, lowerConv);
  table.add(OpKind::Conv3D, lowerConv);
  table.add(OpKind::MaxPool2D, lowerMaxPool);
  table.add(OpKind::MaxPool3D, lowerMaxPool);
  table.add(OpKind::AvgPool2D, lowerAvgPool);
  table.add(OpKind::AvgPool3D, lowerAvgPool);
  table.add(OpKind::GlobalAvgPool, lowerGlobalAvgPool);
}

} // namespace txc
