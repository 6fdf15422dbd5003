//===- Reductions.cpp - Evaluators of reductions and normalizations -------===//
//
// sum, mean, max, min, prod, argmax, argmin, topk, cumsum, softmax,
// log_softmax, layer_norm and rms_norm; docs/ops.md, "Reductions and normalization".
//
// Each op sees its operand as slices: a slice is the set of elements that
// share their indices on the kept (not reduced) dims. Slices are numbered in
// row-major order of the kept dims, which is also the row-major order of the
// reduced result, with or without keepdims (unit dims do not move elements).
// Within a slice, elements are visited in row-major order of the reduced
// dims, and sums add them one at a time from zero: the order docs/ops.md
// gives for today's lowering.
//
// Sums, products, means and every step of softmax and the norms compute in
// the compute type (float for f16/bf16), rounded once when stored; integer
// sums and products wrap. max, min, argmax and argmin only compare, so they
// are exact in any type.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Attributes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

using namespace txc;

namespace {

template <class T> typename T::Compute read(const Tensor &t, int64_t i) {
  return T::load(t.load<typename T::Storage>(i));
}

/// The linear offsets, in a row-major tensor of `shape`, of the
/// multi-indices over `dims` (the other indices 0), in row-major order of
/// those dims: the last of `dims` varies fastest.
std::vector<int64_t> offsetsOver(llvm::ArrayRef<int64_t> shape,
                                 llvm::ArrayRef<unsigned> dims) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  std::vector<int64_t> offsets = {0};
  for (unsigned d : dims) {
    std::vector<int64_t> refined;
    refined.reserve(offsets.size() * shape[d]);
    for (int64_t base : offsets)
      for (int64_t i = 0; i < shape[d]; ++i)
        refined.push_back(base + i * strides[d]);
    offsets = std::move(refined);
  }
  return offsets;
}

/// A tensor's elements grouped into the slices of a reduction over `axes`.
class Slices {
public:
  Slices(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<unsigned> axes) {
    std::vector<unsigned> kept;
    for (unsigned d = 0; d < shape.size(); ++d)
      if (!llvm::is_contained(axes, d))
        kept.push_back(d);
    starts = offsetsOver(shape, kept);
    positions = offsetsOver(shape, axes);
  }

  /// The number of slices: the reduced result's element count.
  int64_t count() const { return starts.size(); }
  /// The number of elements in each slice.
  int64_t size() const { return positions.size(); }
  /// The linear index of element `position` of slice `slice`.
  int64_t element(int64_t slice, int64_t position) const {
    return starts[slice] + positions[position];
  }

private:
  std::vector<int64_t> starts, positions;
};

/// Normalizes `axis` (negative counts from the end) for a rank-`rank`
/// operand; the verifier has checked it, so failing is a bug.
llvm::Expected<unsigned> readAxis(const OpEvalContext &ctx, int64_t axis,
                                  unsigned rank) {
  if (auto normalized = normalizeAxis(axis, rank))
    return *normalized;
  return ctx.internalError("axis " + llvm::Twine(axis) +
                           " is out of range for rank " + llvm::Twine(rank));
}

/// The dims the `axes` attribute of sum/mean/max/min/prod names, sorted;
/// every dim when it is absent.
llvm::Expected<std::vector<unsigned>> readAxes(const OpEvalContext &ctx,
                                               unsigned rank) {
  std::vector<unsigned> axes;
  if (!hasAttr(ctx.getNode(), "axes")) {
    for (unsigned d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  for (int64_t axis : getIntListAttr(ctx.getNode(), "axes")) {
    auto normalized = readAxis(ctx, axis, rank);
    if (!normalized)
      return normalized.takeError();
    axes.push_back(*normalized);
  }
  llvm::sort(axes);
  return axes;
}

/// The trailing `normalized_ndim` dims a norm reduces over.
llvm::Expected<std::vector<unsigned>> normAxes(const OpEvalContext &ctx,
                                               unsigned rank) {
  int64_t ndim = getIntAttr(ctx.getNode(), "normalized_ndim", 1);
  if (ndim < 1 || ndim > int64_t(rank))
    return ctx.internalError("normalized_ndim " + llvm::Twine(ndim) +
                             " for rank " + llvm::Twine(rank));
  std::vector<unsigned> axes;
  for (unsigned d = rank - unsigned(ndim); d < rank; ++d)
    axes.push_back(d);
  return axes;
}

/// Fails unless `result` has `count` elements (one per slice).
llvm::Error checkCount(const OpEvalContext &ctx, const Tensor &result,
                       const Slices &slices) {
  if (result.numElements() == slices.count())
    return llvm::Error::success();
  return ctx.internalError("the result " + result.typeString() + " has " +
                           llvm::Twine(result.numElements()) +
                           " elements for " + llvm::Twine(slices.count()) +
                           " slices");
}

/// Fails unless the node's dtype `dtype` is accepted by `allowed`.
llvm::Error checkDType(const OpEvalContext &ctx, DType dtype,
                       bool (*allowed)(DType)) {
  if (allowed(dtype))
    return llvm::Error::success();
  return ctx.internalError("not defined for " + dtypeName(dtype));
}

bool isNumeric(DType dtype) { return dtype != DType::Bool; }

//===----------------------------------------------------------------------===//
// sum, mean, prod
//===----------------------------------------------------------------------===//

/// sum, mean and prod of one slice, in the compute type: the identity (0 or
/// 1) combined with each element in order; mean then divides by the element
/// count (0/0 = NaN for an empty slice, like PyTorch).
template <class T>
typename T::Compute foldSlice(OpKind kind, const Tensor &input,
                              const Slices &slices, int64_t slice) {
  using C = typename T::Compute;
  bool isProduct = kind == OpKind::ReduceProd;
  C acc = isProduct ? C(1) : C(0);
  for (int64_t p = 0; p < slices.size(); ++p) {
    C x = read<T>(input, slices.element(slice, p));
    acc = isProduct ? computeMul(acc, x) : computeAdd(acc, x);
  }
  if constexpr (std::is_floating_point_v<C>)
    if (kind == OpKind::ReduceMean)
      acc = acc / C(slices.size());
  return acc;
}

llvm::Expected<std::vector<Tensor>> evalFold(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  OpKind kind = ctx.getNode().kind;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  auto axes = readAxes(ctx, input.rank());
  if (!axes)
    return axes.takeError();
  Slices slices(input.shape(), *axes);
  if (llvm::Error err = checkDType(
          ctx, input.dtype(), kind == OpKind::ReduceMean ? isFloat : isNumeric))
    return err;
  if (llvm::Error err = checkCount(ctx, *result, slices))
    return err;
  dispatchNumeric(input.dtype(), [&](auto traits) {
    using T = decltype(traits);
    for (int64_t s = 0; s < slices.count(); ++s)
      result->store(s, T::store(foldSlice<T>(kind, input, slices, s)));
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// max, min
//===----------------------------------------------------------------------===//

/// max(x, y) (or min with `isMax` false) that propagates NaN and orders -0
/// below +0: IEEE 754-2019 maximum/minimum. Integers compare in their own
/// type (the unsigned dtypes unsigned).
template <class C> C extremum(C x, C y, bool isMax) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(x))
      return x;
    if (std::isnan(y))
      return y;
    if (x == y) // equal, or zeros of different signs
      return std::signbit(x) == isMax ? y : x;
  }
  return (isMax ? x > y : x < y) ? x : y;
}

llvm::Expected<std::vector<Tensor>> evalExtremum(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  bool isMax = ctx.getNode().kind == OpKind::ReduceMax;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  auto axes = readAxes(ctx, input.rank());
  if (!axes)
    return axes.takeError();
  Slices slices(input.shape(), *axes);
  if (llvm::Error err = checkDType(ctx, input.dtype(), isNumeric))
    return err;
  if (llvm::Error err = checkCount(ctx, *result, slices))
    return err;
  // No identity is needed: the verifier guarantees non-empty slices.
  if (slices.count() > 0 && slices.size() == 0)
    return ctx.internalError("reduces zero elements");
  dispatchNumeric(input.dtype(), [&](auto traits) {
    using T = decltype(traits);
    for (int64_t s = 0; s < slices.count(); ++s) {
      auto acc = read<T>(input, slices.element(s, 0));
      for (int64_t p = 1; p < slices.size(); ++p)
        acc = extremum(acc, read<T>(input, slices.element(s, p)), isMax);
      result->store(s, T::store(acc));
    }
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// argmax, argmin
//===----------------------------------------------------------------------===//

/// Whether `x`, at a higher index than the best so far, replaces it: when
/// it is strictly larger (argmax) or smaller (argmin), or it is the first
/// NaN (NaN beats every number for both, like PyTorch and numpy). Ties keep
/// the earlier index, or with `selectLast` take the later one (so the last
/// NaN wins then); -0 and +0 are equal.
template <class C> bool replacesBest(C x, C best, bool isMax, bool selectLast) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best))
      return selectLast && std::isnan(x);
    if (std::isnan(x))
      return true;
  }
  if (selectLast && x == best)
    return true;
  return isMax ? x > best : x < best;
}

llvm::Expected<std::vector<Tensor>> evalArgExtremum(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  const Node &node = ctx.getNode();
  bool isMax = node.kind == OpKind::ArgMax;
  bool selectLast = getBoolAttr(node, "select_last_index", false);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  // Without an axis, every dim is reduced: positions in a single slice are
  // then the row-major flat indices.
  std::vector<unsigned> axes;
  if (hasAttr(node, "axis")) {
    auto axis = readAxis(ctx, getIntAttr(node, "axis", 0), input.rank());
    if (!axis)
      return axis.takeError();
    axes.push_back(*axis);
  } else {
    for (unsigned d = 0; d < input.rank(); ++d)
      axes.push_back(d);
  }
  Slices slices(input.shape(), axes);
  if (llvm::Error err = checkDType(ctx, input.dtype(), isNumeric))
    return err;
  if (result->dtype() != DType::I64)
    return ctx.internalError("the result is " + result->typeString());
  if (llvm::Error err = checkCount(ctx, *result, slices))
    return err;
  if (slices.count() > 0 && slices.size() == 0)
    return ctx.internalError("reduces zero elements");
  dispatchNumeric(input.dtype(), [&](auto traits) {
    using T = decltype(traits);
    for (int64_t s = 0; s < slices.count(); ++s) {
      int64_t bestIndex = 0;
      auto best = read<T>(input, slices.element(s, 0));
      for (int64_t p = 1; p < slices.size(); ++p) {
        auto x = read<T>(input, slices.element(s, p));
        if (replacesBest(x, best, isMax, selectLast)) {
          best = x;
          bestIndex = p;
        }
      }
      result->store<int64_t>(s, bestIndex);
    }
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

/// Whether `x` comes before `y` in topk's order of values: larger first
/// (smaller with !largest), NaN larger than every number and equal to
/// another NaN, -0 equal to +0. Equal values keep their index order.
template <class C> bool comesFirst(C x, C y, bool largest) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(largest ? x : y) && !std::isnan(largest ? y : x);
  }
  return largest ? x > y : x < y;
}

/// topk of each slice along the axis: its positions stably sorted by
/// comesFirst (so ties keep the lower index first, as ONNX specifies), the
/// first k stored. The values are copied as stored, bit for bit.
llvm::Expected<std::vector<Tensor>> evalTopK(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  const Node &node = ctx.getNode();
  auto axis = readAxis(ctx, getIntAttr(node, "axis", -1), input.rank());
  if (!axis)
    return axis.takeError();
  int64_t k = getIntAttr(node, "k", 0);
  bool largest = getBoolAttr(node, "largest", true);
  auto values = ctx.makeResult(0);
  if (!values)
    return values.takeError();
  auto indices = ctx.makeResult(1);
  if (!indices)
    return indices.takeError();
  if (llvm::Error err = checkDType(ctx, input.dtype(), isNumeric))
    return err;
  Slices in(input.shape(), {*axis}), out(values->shape(), {*axis});
  if (values->dtype() != input.dtype() || indices->dtype() != DType::I64 ||
      in.count() != out.count() || out.size() != k || k > in.size())
    return ctx.internalError("the results are " + values->typeString() +
                             " and " + indices->typeString() + " for " +
                             input.typeString() + " and k " + llvm::Twine(k));
  dispatchNumeric(input.dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    std::vector<int64_t> order(in.size());
    for (int64_t s = 0; s < in.count(); ++s) {
      for (int64_t p = 0; p < in.size(); ++p)
        order[p] = p;
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return comesFirst(read<T>(input, in.element(s, a)),
                          read<T>(input, in.element(s, b)), largest);
      });
      for (int64_t r = 0; r < k; ++r) {
        values->store(out.element(s, r),
                      input.load<S>(in.element(s, order[r])));
        indices->store<int64_t>(out.element(s, r), order[r]);
      }
    }
  });
  std::vector<Tensor> results;
  results.push_back(std::move(*values));
  results.push_back(std::move(*indices));
  return results;
}

//===----------------------------------------------------------------------===//
// cumsum
//===----------------------------------------------------------------------===//

/// cumsum of one slice (one line along the axis), in the compute type: a
/// running sum from -0.0, the identity of float addition, adding the
/// elements from the start of the line (from its end with `reverse`) and
/// storing the sum at each element. With `exclusive` each sum is stored at
/// the next element instead and the first holds 0 (the sum of nothing),
/// like the lowering.
template <class T>
void cumSumSlice(const Tensor &input, Tensor &result, const Slices &slices,
                 int64_t s, bool exclusive, bool reverse) {
  using C = typename T::Compute;
  int64_t n = slices.size();
  auto element = [&](int64_t step) {
    return slices.element(s, reverse ? n - 1 - step : step);
  };
  if (exclusive && n > 0)
    result.store(element(0), T::store(C(0)));
  C acc = C(0);
  if constexpr (std::is_floating_point_v<C>)
    acc = C(-0.0);
  for (int64_t step = 0; step < n; ++step) {
    acc = computeAdd(acc, read<T>(input, element(step)));
    if (!exclusive)
      result.store(element(step), T::store(acc));
    else if (step + 1 < n)
      result.store(element(step + 1), T::store(acc));
  }
}

llvm::Expected<std::vector<Tensor>> evalCumSum(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  const Node &node = ctx.getNode();
  auto axis = readAxis(ctx, getIntAttr(node, "axis", 0), input.rank());
  if (!axis)
    return axis.takeError();
  if (llvm::Error err = checkDType(ctx, input.dtype(), isNumeric))
    return err;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  bool exclusive = getBoolAttr(node, "exclusive", false);
  bool reverse = getBoolAttr(node, "reverse", false);
  Slices slices(input.shape(), {*axis});
  dispatchNumeric(input.dtype(), [&](auto traits) {
    using T = decltype(traits);
    for (int64_t s = 0; s < slices.count(); ++s)
      cumSumSlice<T>(input, *result, slices, s, exclusive, reverse);
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

/// softmax(x) = exp(x - m) / sum(exp(x - m)) and log_softmax(x) = (x - m) -
/// log(sum(exp(x - m))) over one slice, m the slice's max: no exp
/// overflows. A NaN makes m NaN and so the whole slice NaN; an all -inf
/// slice gives (-inf) - (-inf) = NaN, like PyTorch.
template <class T>
void softmaxSlice(bool isLog, const Tensor &input, Tensor &result,
                  const Slices &slices, int64_t s) {
  using C = typename T::Compute;
  auto x = [&](int64_t p) { return read<T>(input, slices.element(s, p)); };
  C m = -std::numeric_limits<C>::infinity();
  for (int64_t p = 0; p < slices.size(); ++p)
    m = extremum(m, x(p), /*isMax=*/true);
  C sum = 0;
  for (int64_t p = 0; p < slices.size(); ++p)
    sum = sum + std::exp(x(p) - m);
  for (int64_t p = 0; p < slices.size(); ++p) {
    C y = isLog ? (x(p) - m) - std::log(sum) : std::exp(x(p) - m) / sum;
    result.store(slices.element(s, p), T::store(y));
  }
}

llvm::Expected<std::vector<Tensor>> evalSoftmax(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  bool isLog = ctx.getNode().kind == OpKind::LogSoftmax;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  auto axis =
      readAxis(ctx, getIntAttr(ctx.getNode(), "axis", -1), input.rank());
  if (!axis)
    return axis.takeError();
  if (llvm::Error err = checkDType(ctx, input.dtype(), isFloat))
    return err;
  if (result->dtype() != input.dtype() || result->shape() != input.shape())
    return ctx.internalError("the result is " + result->typeString());
  Slices slices(input.shape(), {*axis});
  dispatchFloat(input.dtype(), [&](auto traits) {
    for (int64_t s = 0; s < slices.count(); ++s)
      softmaxSlice<decltype(traits)>(isLog, input, *result, slices, s);
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// layer_norm, rms_norm
//===----------------------------------------------------------------------===//

/// Fails unless the result has x's type and each optional operand (weight,
/// bias) has exactly the normalized dims.
llvm::Error checkNormOperands(const OpEvalContext &ctx, const Tensor &result,
                              llvm::ArrayRef<unsigned> axes) {
  const Tensor &x = ctx.operand(0);
  if (llvm::Error err = checkDType(ctx, x.dtype(), isFloat))
    return err;
  if (result.dtype() != x.dtype() || result.shape() != x.shape())
    return ctx.internalError("the result is " + result.typeString());
  llvm::ArrayRef<int64_t> normalized = x.shape().take_back(axes.size());
  for (size_t i = 1; i < ctx.numOperands(); ++i)
    if (ctx.operand(i).dtype() != x.dtype() ||
        ctx.operand(i).shape() != normalized)
      return ctx.internalError("operand " + llvm::Twine(i) + " is " +
                               ctx.operand(i).typeString());
  return llvm::Error::success();
}

/// The sum over a slice of f(x) in the compute type, in order from zero.
template <class T, class Fn>
typename T::Compute sumSlice(const Tensor &input, const Slices &slices,
                             int64_t s, Fn f) {
  typename T::Compute sum = 0;
  for (int64_t p = 0; p < slices.size(); ++p)
    sum = sum + f(read<T>(input, slices.element(s, p)));
  return sum;
}

/// layer_norm over one slice: y = (x - mean) / sqrt(var + eps) * weight +
/// bias, var the biased variance of the centered values (two passes). The
/// normalized dims are the trailing ones, so position p in the slice is
/// also the row-major index into weight and bias.
template <class T>
void layerNormSlice(const OpEvalContext &ctx, Tensor &result,
                    const Slices &slices, int64_t s, double eps) {
  using C = typename T::Compute;
  const Tensor &input = ctx.operand(0);
  const Tensor *weight = ctx.numOperands() > 1 ? &ctx.operand(1) : nullptr;
  const Tensor *bias = ctx.numOperands() > 2 ? &ctx.operand(2) : nullptr;
  C count = C(slices.size());
  C mean = sumSlice<T>(input, slices, s, [](C x) { return x; }) / count;
  C var = sumSlice<T>(input, slices, s,
                      [&](C x) {
                        C d = x - mean;
                        return d * d;
                      }) /
          count;
  C deviation = std::sqrt(var + C(eps));
  for (int64_t p = 0; p < slices.size(); ++p) {
    int64_t i = slices.element(s, p);
    C y = (read<T>(input, i) - mean) / deviation;
    if (weight)
      y = y * read<T>(*weight, p);
    if (bias)
      y = y + read<T>(*bias, p);
    result.store(i, T::store(y));
  }
}

/// rms_norm over one slice: y = x / sqrt(mean(x^2) + eps) * weight.
template <class T>
void rmsNormSlice(const OpEvalContext &ctx, Tensor &result,
                  const Slices &slices, int64_t s, double eps) {
  using C = typename T::Compute;
  const Tensor &input = ctx.operand(0);
  const Tensor *weight = ctx.numOperands() > 1 ? &ctx.operand(1) : nullptr;
  C meanSquare = sumSlice<T>(input, slices, s, [](C x) { return x * x; }) /
                 C(slices.size());
  C rms = std::sqrt(meanSquare + C(eps));
  for (int64_t p = 0; p < slices.size(); ++p) {
    int64_t i = slices.element(s, p);
    C y = read<T>(input, i) / rms;
    if (weight)
      y = y * read<T>(*weight, p);
    result.store(i, T::store(y));
  }
}

/// rms_norm's default eps, like torch.nn.functional.rms_norm: the machine
/// epsilon of the type it computes in (float for f16/bf16).
double defaultRmsEps(DType dtype) {
  return dtype == DType::F64 ? std::numeric_limits<double>::epsilon()
                             : std::numeric_limits<float>::epsilon();
}

llvm::Expected<std::vector<Tensor>> evalNorm(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  bool isLayerNorm = ctx.getNode().kind == OpKind::LayerNorm;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  auto axes = normAxes(ctx, input.rank());
  if (!axes)
    return axes.takeError();
  if (llvm::Error err = checkNormOperands(ctx, *result, *axes))
    return err;
  double eps = getFloatAttr(ctx.getNode(), "eps",
                            isLayerNorm ? 1e-5 : defaultRmsEps(input.dtype()));
  Slices slices(input.shape(), *axes);
  dispatchFloat(input.dtype(), [&](auto traits) {
    using T = decltype(traits);
    for (int64_t s = 0; s < slices.count(); ++s) {
      if (isLayerNorm)
        layerNormSlice<T>(ctx, *result, slices, s, eps);
      else
        rmsNormSlice<T>(ctx, *result, slices, s, eps);
    }
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerReductionOps(OpEvaluatorTable &table) {
  table.add(OpKind::ReduceSum, evalFold);
  table.add(OpKind::ReduceMean, evalFold);
  table.add(OpKind::ReduceProd, evalFold);
  table.add(OpKind::ReduceMax, evalExtremum);
  table.add(OpKind::ReduceMin, evalExtremum);
  table.add(OpKind::ArgMax, evalArgExtremum);
  table.add(OpKind::ArgMin, evalArgExtremum);
  table.add(OpKind::TopK, evalTopK);
  table.add(OpKind::CumSum, evalCumSum);
  table.add(OpKind::Softmax, evalSoftmax);
  table.add(OpKind::LogSoftmax, evalSoftmax);
  table.add(OpKind::LayerNorm, evalNorm);
  table.add(OpKind::RmsNorm, evalNorm);
}
