//===- Convolution.cpp - Evaluators of convolution and pooling ------------===//
//
// conv2d, max_pool2d, avg_pool2d and global_avg_pool (docs/ops.md,
// "Convolution and pooling"), written as the plain loops of their
// definitions and in the order the lowering sums in:
//  - conv2d starts each output at its bias (or zero) and adds the products
//    over (input channel, kernel row, kernel column) for NCHW and over
//    (kernel row, kernel column, input channel) for NHWC;
//  - the pools and global_avg_pool visit the window (or the image) row by
//    row.
// Padding is read as the value the lowering pads with (zero, or -inf or
// the lowest integer for max_pool2d), so 0 * inf gives NaN as in the
// compiled code. f16 and bf16
// compute in float (ElementTraits::Compute) and round once at the end.
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

/// The logical [N, C, H, W] sizes of an activation and where an element
/// lives in either layout.
struct Activation {
  Layout layout;
  int64_t n, c, h, w;

  Activation(Layout layout, llvm::ArrayRef<int64_t> shape) : layout(layout) {
    LayoutDims dims = layoutDims(layout);
    n = shape[dims.batch];
    c = shape[dims.channels];
    h = shape[dims.height];
    w = shape[dims.width];
  }
  int64_t offset(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    if (layout == Layout::NCHW)
      return ((in * c + ic) * h + ih) * w + iw;
    return ((in * h + ih) * w + iw) * c + ic;
  }
  bool contains(int64_t ih, int64_t iw) const {
    return ih >= 0 && ih < h && iw >= 0 && iw < w;
  }
};

/// The input row or column that window position `k` of output position `o`
/// reads (possibly in the padding).
int64_t inputIndex(const Window &window, unsigned axis, int64_t o, int64_t k) {
  return o * window.stride[axis] - window.padBefore[axis] +
         k * window.dilation[axis];
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
// conv2d
//===----------------------------------------------------------------------===//

/// The weights' [O, I, KH, KW] sizes and element offsets: OIHW for NCHW,
/// HWIO for NHWC.
struct Weights {
  Layout layout;
  int64_t o, i, kh, kw;

  Weights(Layout layout, llvm::ArrayRef<int64_t> shape) : layout(layout) {
    if (layout == Layout::NCHW) {
      o = shape[0], i = shape[1], kh = shape[2], kw = shape[3];
    } else {
      kh = shape[0], kw = shape[1], i = shape[2], o = shape[3];
    }
  }
  int64_t offset(int64_t oo, int64_t ii, int64_t a, int64_t b) const {
    if (layout == Layout::NCHW)
      return ((oo * i + ii) * kh + a) * kw + b;
    return ((a * kw + b) * i + ii) * o + oo;
  }
};

llvm::Expected<std::vector<Tensor>> evalConv2D(const OpEvalContext &ctx) {
  if (llvm::Error err = checkFloat(ctx))
    return err;
  const Node &node = ctx.getNode();
  Layout layout = getLayout(node);
  const Tensor &x = ctx.operand(0), &w = ctx.operand(1);
  const Tensor *bias = ctx.numOperands() > 2 ? &ctx.operand(2) : nullptr;
  Activation in(layout, x.shape());
  Weights weights(layout, w.shape());
  Window window = getWindow(node, {weights.kh, weights.kw});
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
  dispatchFloat(x.dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    using C = typename T::Compute;
    auto product = [&](int64_t n, int64_t o, int64_t oh, int64_t ow, int64_t c,
                       int64_t a, int64_t b) {
      int64_t ih = inputIndex(window, 0, oh, a);
      int64_t iw = inputIndex(window, 1, ow, b);
      int64_t ic = o / outPerGroup * weights.i + c;
      C value = in.contains(ih, iw)
                    ? T::load(x.load<S>(in.offset(n, ic, ih, iw)))
                    : C(0);
      return value * T::load(w.load<S>(weights.offset(o, c, a, b)));
    };
    for (int64_t n = 0; n < out.n; ++n)
      for (int64_t o = 0; o < out.c; ++o)
        for (int64_t oh = 0; oh < out.h; ++oh)
          for (int64_t ow = 0; ow < out.w; ++ow) {
            C acc = bias ? T::load(bias->load<S>(o)) : C(0);
            if (layout == Layout::NCHW) {
              for (int64_t c = 0; c < weights.i; ++c)
                for (int64_t a = 0; a < weights.kh; ++a)
                  for (int64_t b = 0; b < weights.kw; ++b)
                    acc = acc + product(n, o, oh, ow, c, a, b);
            } else {
              for (int64_t a = 0; a < weights.kh; ++a)
                for (int64_t b = 0; b < weights.kw; ++b)
                  for (int64_t c = 0; c < weights.i; ++c)
                    acc = acc + product(n, o, oh, ow, c, a, b);
            }
            result->store<S>(out.offset(n, o, oh, ow), T::store(acc));
          }
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// Calls `fn(n, c, oh, ow)` for every output element, then stores what it
/// returns.
template <class T, class Fn>
void forEachOutput(Tensor &result, const Activation &out, Fn &&fn) {
  using S = typename T::Storage;
  for (int64_t n = 0; n < out.n; ++n)
    for (int64_t c = 0; c < out.c; ++c)
      for (int64_t oh = 0; oh < out.h; ++oh)
        for (int64_t ow = 0; ow < out.w; ++ow)
          result.store<S>(out.offset(n, c, oh, ow), T::store(fn(n, c, oh, ow)));
}

/// The maximum of two pooled values: arith.maximumf for floats, the
/// integer maximum otherwise.
template <class C> C poolMax(C a, C b) {
  if constexpr (std::is_floating_point_v<C>)
    return maximumf(a, b);
  else
    return std::max(a, b);
}

/// The padding value of max_pool2d: -inf, or the lowest integer.
template <class C> C lowestValue() {
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}

llvm::Expected<std::vector<Tensor>> evalMaxPool2D(const OpEvalContext &ctx) {
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
    forEachOutput<T>(
        *result, out, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
          C max = lowest;
          for (int64_t a = 0; a < window.kernel[0]; ++a)
            for (int64_t b = 0; b < window.kernel[1]; ++b) {
              int64_t ih = inputIndex(window, 0, oh, a);
              int64_t iw = inputIndex(window, 1, ow, b);
              C value = in.contains(ih, iw)
                            ? T::load(x.load<S>(in.offset(n, c, ih, iw)))
                            : lowest;
              max = poolMax(max, value);
            }
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

/// The divisor of avg_pool2d's window at (oh, ow): ONNX and PyTorch count
/// the padding with count_include_pad, never a ceil-mode overhang.
int64_t averageDivisor(const Window &window, bool includePad,
                       const Activation &in, int64_t oh, int64_t ow) {
  if (includePad)
    return windowCount(window, 0, oh, -window.padBefore[0],
                       in.h + window.padAfter[0]) *
           windowCount(window, 1, ow, -window.padBefore[1],
                       in.w + window.padAfter[1]);
  return windowCount(window, 0, oh, 0, in.h) *
         windowCount(window, 1, ow, 0, in.w);
}

llvm::Expected<std::vector<Tensor>> evalAvgPool2D(const OpEvalContext &ctx) {
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
    forEachOutput<T>(
        *result, out, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
          C sum = 0;
          for (int64_t a = 0; a < window.kernel[0]; ++a)
            for (int64_t b = 0; b < window.kernel[1]; ++b) {
              int64_t ih = inputIndex(window, 0, oh, a);
              int64_t iw = inputIndex(window, 1, ow, b);
              sum = sum + (in.contains(ih, iw)
                               ? T::load(x.load<S>(in.offset(n, c, ih, iw)))
                               : C(0));
            }
          return sum /
                 C(averageDivisor(window, includePad, in, oh, ow));
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
    forEachOutput<T>(*result, out, [&](int64_t n, int64_t c, int64_t, int64_t) {
      C sum = 0;
      for (int64_t ih = 0; ih < in.h; ++ih)
        for (int64_t iw = 0; iw < in.w; ++iw)
          sum = sum + T::load(x.load<S>(in.offset(n, c, ih, iw)));
      // 0 / 0 is NaN for an empty image, as in the compiled code.
      return sum / C(in.h * in.w);
    });
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerConvolutionOps(OpEvaluatorTable &table) {
  table.add(OpKind::Conv2D, evalConv2D);
  table.add(OpKind::MaxPool2D, evalMaxPool2D);
  table.add(OpKind::AvgPool2D, evalAvgPool2D);
  table.add(OpKind::GlobalAvgPool, evalGlobalAvgPool);
}
