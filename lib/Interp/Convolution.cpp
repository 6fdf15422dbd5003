//===- Convolution.cpp - Evaluators of convolution and pooling ------------===//
//
// conv2d, conv3d, the 2-D and 3-D pools and global_avg_pool (docs/ops.md,
// "Convolution and pooling"), written once for any number of spatial dims
// as the plain loops of their definitions and in the order the lowering
// sums in:
//  - a convolution starts each output at its bias (or zero) and adds the
//    products over (input channel, kernel position) for channels first and
//    over (kernel position, input channel) for channels last, the kernel
//    positions in row-major order (depth, then row, then column);
//  - the pools and global_avg_pool visit the window (or the image) in
//    row-major order.
// Padding is read as the value the lowering pads with (zero, or -inf or
// the lowest integer for the max pools), so 0 * inf gives NaN as in the
// compiled code. f16 and bf16 compute in float (ElementTraits::Compute)
// and round once at the end.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Window.h"

#include <cmath>
#include <limits>
#include <type_traits>

using namespace txc;

namespace {

/// A position in the spatial dims (depth, height, width; or height, width).
using Position = llvm::SmallVector<int64_t, 3>;

/// Calls `fn(position)` for every position of a box of `sizes`, in
/// row-major order (the last dim fastest); never for an empty box.
template <class Fn> void forEachPosition(llvm::ArrayRef<int64_t> sizes, Fn &&fn) {
  if (llvm::is_contained(sizes, 0))
    return;
  Position position(sizes.size(), 0);
  while (true) {
    fn(llvm::ArrayRef<int64_t>(position));
    size_t d = sizes.size();
    while (d > 0 && ++position[d - 1] == sizes[d - 1])
      position[--d] = 0;
    if (d == 0)
      return;
  }
}

/// The logical batch, channel and spatial sizes of an activation and where
/// an element lives in either layout.
struct Activation {
  Layout layout;
  int64_t n, c;
  Position size;

  Activation(Layout layout, llvm::ArrayRef<int64_t> shape) : layout(layout) {
    LayoutDims dims = layoutDims(layout, shape.size() - 2);
    n = shape[dims.batch];
    c = shape[dims.channels];
    for (unsigned dim : dims.spatial)
      size.push_back(shape[dim]);
  }
  int64_t offset(int64_t in, int64_t ic, llvm::ArrayRef<int64_t> at) const {
    bool first = layout == Layout::ChannelsFirst;
    int64_t offset = first ? in * c + ic : in;
    for (size_t axis = 0; axis < size.size(); ++axis)
      offset = offset * size[axis] + at[axis];
    return first ? offset : offset * c + ic;
  }
  bool contains(llvm::ArrayRef<int64_t> at) const {
    for (size_t axis = 0; axis < size.size(); ++axis)
      if (at[axis] < 0 || at[axis] >= size[axis])
        return false;
    return true;
  }
  /// The number of elements of one image: the product of the spatial dims.
  int64_t spatialSize() const {
    int64_t product = 1;
    for (int64_t s : size)
      product *= s;
    return product;
  }
};

/// The input position that window position `k` of output position `o`
/// reads (possibly in the padding).
Position inputPosition(const Window &window, llvm::ArrayRef<int64_t> o,
                       llvm::ArrayRef<int64_t> k) {
  Position at(o.size());
  for (unsigned axis = 0; axis < o.size(); ++axis)
    at[axis] = o[axis] * window.stride[axis] - window.padBefore[axis] +
               k[axis] * window.dilation[axis];
  return at;
}

/// arith.maximumf: NaN if either is NaN; +0 is above -0.
template <class C> C maximumf(C a, C b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<C>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

llvm::Error checkFloat(const OpEvalContext &ctx) {
  if (isFloat(ctx.operand(0).dtype()) &&
      ctx.resultDType() == ctx.operand(0).dtype())
    return llvm::Error::success();
  return ctx.internalError("is not defined for " + ctx.operand(0).typeString());
}

//===----------------------------------------------------------------------===//
// conv2d, conv3d
//===----------------------------------------------------------------------===//

/// The weights' output and input channel counts and kernel, and their
/// element offsets: OIHW (OIDHW) for channels first, HWIO (DHWIO) for
/// channels last.
struct Weights {
  Layout layout;
  int64_t o, i;
  Position kernel;

  Weights(Layout layout, llvm::ArrayRef<int64_t> shape) : layout(layout) {
    size_t rank = shape.size();
    bool first = layout == Layout::ChannelsFirst;
    o = first ? shape[0] : shape[rank - 1];
    i = first ? shape[1] : shape[rank - 2];
    llvm::ArrayRef<int64_t> k =
        first ? shape.drop_front(2) : shape.drop_back(2);
    kernel.assign(k.begin(), k.end());
  }
  int64_t offset(int64_t oo, int64_t ii, llvm::ArrayRef<int64_t> at) const {
    bool first = layout == Layout::ChannelsFirst;
    int64_t offset = first ? oo * i + ii : 0;
    for (size_t axis = 0; axis < kernel.size(); ++axis)
      offset = offset * kernel[axis] + at[axis];
    return first ? offset : (offset * i + ii) * o + oo;
  }
};

llvm::Expected<std::vector<Tensor>> evalConv(const OpEvalContext &ctx) {
  if (llvm::Error err = checkFloat(ctx))
    return err;
  const Node &node = ctx.getNode();
  Layout layout = getLayout(node);
  const Tensor &x = ctx.operand(0), &w = ctx.operand(1);
  const Tensor *bias = ctx.numOperands() > 2 ? &ctx.operand(2) : nullptr;
  Activation in(layout, x.shape());
  Weights weights(layout, w.shape());
  Window window = getWindow(node, weights.kernel);
  int64_t groups = getIntAttr(node, "groups", 1);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  Activation out(layout, result->shape());
  if (w.dtype() != x.dtype() || out.c != weights.o ||
      in.c != weights.i * groups || weights.o % groups != 0)
    return ctx.internalError("cannot convolve " + x.typeString() + " with " +
                             w.typeString());
  int64_t outPerGroup = weights.o / groups;
  bool channelsFirst = layout == Layout::ChannelsFirst;
  dispatchFloat(x.dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    using C = typename T::Compute;
    for (int64_t n = 0; n < out.n; ++n)
      for (int64_t o = 0; o < out.c; ++o) {
        int64_t firstChannel = o / outPerGroup * weights.i;
        forEachPosition(out.size, [&](llvm::ArrayRef<int64_t> at) {
          C acc = bias ? T::load(bias->load<S>(o)) : C(0);
          auto add = [&](int64_t c, llvm::ArrayRef<int64_t> k) {
            Position from = inputPosition(window, at, k);
            C value = in.contains(from)
                          ? T::load(x.load<S>(
                                in.offset(n, firstChannel + c, from)))
                          : C(0);
            acc = acc + value * T::load(w.load<S>(weights.offset(o, c, k)));
          };
          if (channelsFirst) {
            for (int64_t c = 0; c < weights.i; ++c)
              forEachPosition(weights.kernel,
                              [&](llvm::ArrayRef<int64_t> k) { add(c, k); });
          } else {
            forEachPosition(weights.kernel, [&](llvm::ArrayRef<int64_t> k) {
              for (int64_t c = 0; c < weights.i; ++c)
                add(c, k);
            });
          }
          result->store<S>(out.offset(n, o, at), T::store(acc));
        });
      }
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// Calls `fn(n, c, position)` for every output element, then stores what
/// it returns.
template <class T, class Fn>
void forEachOutput(Tensor &result, const Activation &out, Fn &&fn) {
  using S = typename T::Storage;
  for (int64_t n = 0; n < out.n; ++n)
    for (int64_t c = 0; c < out.c; ++c)
      forEachPosition(out.size, [&](llvm::ArrayRef<int64_t> at) {
        result.store<S>(out.offset(n, c, at), T::store(fn(n, c, at)));
      });
}

/// The maximum of two pooled values: arith.maximumf for floats, the
/// integer maximum otherwise.
template <class C> C poolMax(C a, C b) {
  if constexpr (std::is_floating_point_v<C>)
    return maximumf(a, b);
  else
    return std::max(a, b);
}

/// The padding value of the max pools: -inf, or the lowest integer.
template <class C> C lowestValue() {
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}

llvm::Expected<std::vector<Tensor>> evalMaxPool(const OpEvalContext &ctx) {
  DType dtype = ctx.operand(0).dtype();
  if (dtype != DType::I8 && dtype != DType::U8)
    if (llvm::Error err = checkFloat(ctx))
      return err;
  Layout layout = getLayout(ctx.getNode());
  Window window = getWindow(ctx.getNode());
  const Tensor &x = ctx.operand(0);
  Activation in(layout, x.shape());
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  Activation out(layout, result->shape());
  dispatchNumeric(dtype, [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    using C = typename T::Compute;
    const C lowest = lowestValue<C>();
    forEachOutput<T>(*result, out, [&](int64_t n, int64_t c,
                                       llvm::ArrayRef<int64_t> at) {
      C max = lowest;
      forEachPosition(window.kernel, [&](llvm::ArrayRef<int64_t> k) {
        Position from = inputPosition(window, at, k);
        C value = in.contains(from) ? T::load(x.load<S>(in.offset(n, c, from)))
                                    : lowest;
        max = poolMax(max, value);
      });
      return max;
    });
  });
  return singleResult(std::move(*result));
}

/// The number of elements of [lo, hi) in the window of output `o` along
/// `axis`: [0, size) are the input elements, [-padBefore, size + padAfter)
/// the padded input's (a ceil-mode window may hang over its end).
int64_t windowCount(const Window &window, unsigned axis, int64_t o,
                    int64_t lo, int64_t hi) {
  int64_t start = o * window.stride[axis] - window.padBefore[axis];
  int64_t end = std::min(start + window.kernel[axis], hi);
  return end - std::max(start, lo);
}

/// The divisor of an average pool's window at `at`: ONNX and PyTorch count
/// the padding with count_include_pad, never a ceil-mode overhang.
int64_t averageDivisor(const Window &window, bool includePad,
                       const Activation &in, llvm::ArrayRef<int64_t> at) {
  int64_t divisor = 1;
  for (unsigned axis = 0; axis < window.rank(); ++axis) {
    int64_t lo = includePad ? -window.padBefore[axis] : 0;
    int64_t hi = in.size[axis] + (includePad ? window.padAfter[axis] : 0);
    divisor *= windowCount(window, axis, at[axis], lo, hi);
  }
  return divisor;
}

llvm::Expected<std::vector<Tensor>> evalAvgPool(const OpEvalContext &ctx) {
  if (llvm::Error err = checkFloat(ctx))
    return err;
  const Node &node = ctx.getNode();
  Layout layout = getLayout(node);
  Window window = getWindow(node);
  bool includePad = getBoolAttr(node, "count_include_pad", true);
  const Tensor &x = ctx.operand(0);
  Activation in(layout, x.shape());
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  Activation out(layout, result->shape());
  dispatchFloat(x.dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    using C = typename T::Compute;
    forEachOutput<T>(*result, out, [&](int64_t n, int64_t c,
                                       llvm::ArrayRef<int64_t> at) {
      C sum = 0;
      forEachPosition(window.kernel, [&](llvm::ArrayRef<int64_t> k) {
        Position from = inputPosition(window, at, k);
        sum = sum + (in.contains(from)
                         ? T::load(x.load<S>(in.offset(n, c, from)))
                         : C(0));
      });
      return sum / C(averageDivisor(window, includePad, in, at));
    });
  });
  return singleResult(std::move(*result));
}

llvm::Expected<std::vector<Tensor>>
evalGlobalAvgPool(const OpEvalContext &ctx) {
  if (llvm::Error err = checkFloat(ctx))
    return err;
  Layout layout = getLayout(ctx.getNode());
  const Tensor &x = ctx.operand(0);
  Activation in(layout, x.shape());
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  Activation out(layout, result->shape());
  dispatchFloat(x.dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    using C = typename T::Compute;
    forEachOutput<T>(*result, out, [&](int64_t n, int64_t c,
                                       llvm::ArrayRef<int64_t>) {
      C sum = 0;
      forEachPosition(in.size, [&](llvm::ArrayRef<int64_t> from) {
        sum = sum + T::load(x.load<S>(in.offset(n, c, from)));
      });
      // 0 / 0 is NaN for an empty image, as in the compiled code.
      return sum / C(in.spatialSize());
    });
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerConvolutionOps(OpEvaluatorTable &table) {
  table.add(OpKind::Conv2D, evalConv);
  table.add(OpKind::Conv3D, evalConv);
  table.add(OpKind::MaxPool2D, evalMaxPool);
  table.add(OpKind::MaxPool3D, evalMaxPool);
  table.add(OpKind::AvgPool2D, evalAvgPool);
  table.add(OpKind::AvgPool3D, evalAvgPool);
  table.add(OpKind::GlobalAvgPool, evalGlobalAvgPool);
}
