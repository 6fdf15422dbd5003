//===- Shape.cpp - Evaluators of shape ops --------------------------------===//
//
// Shape ops move bytes: each evaluator computes, for every result element,
// the operand element it comes from, by index arithmetic on the concrete
// shapes (independently of the tensor-dialect ops MLIRGen uses). The
// attribute conventions (negative axes, defaults, slice clamping) are
// resolved by the same functions as the shape rules (ShapeOpAttrs.h), here
// on the concrete shapes: on a verified program they give what the symbolic
// resolution gives at these symbol values.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Interp/Broadcast.h"
#include "txc/Interp/OpEvaluator.h"

using namespace txc;

namespace {

/// The node's operand types with the concrete shapes, for the attribute
/// resolution of ShapeOpAttrs.h.
std::vector<TensorType> concreteTypes(const OpEvalContext &ctx) {
  std::vector<TensorType> types;
  for (size_t i = 0; i < ctx.numOperands(); ++i) {
    TensorType type{ctx.operand(i).dtype(), {}};
    for (int64_t dim : ctx.operand(i).shape())
      type.shape.push_back(ShapeExpr::constant(dim));
    types.push_back(std::move(type));
  }
  return types;
}

/// Resolves the node's attributes with `resolve`; a problem is a bug here,
/// since the program verified.
template <class T>
llvm::Expected<T> resolveAttrs(const OpEvalContext &ctx,
                               std::optional<T> (*resolve)(InferenceContext &)) {
  InferenceContext inference(ctx.getProgram(), ctx.getNode(),
                             concreteTypes(ctx));
  std::optional<T> resolved = resolve(inference);
  if (!resolved)
    return ctx.internalError(
        "attributes do not fit the operands: " +
        (inference.problems.empty() ? std::string("?")
                                    : inference.problems[0].message));
  return std::move(*resolved);
}

/// Calls `fn(index)` for every multi-index of `shape` in row-major order.
template <class Fn> void forEachIndex(llvm::ArrayRef<int64_t> shape, Fn fn) {
  int64_t count = Tensor::elementCount(shape).value_or(0);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    fn(llvm::ArrayRef<int64_t>(index));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// The linear index of `index` in a tensor with `strides`.
int64_t linearIndex(llvm::ArrayRef<int64_t> index,
                    llvm::ArrayRef<int64_t> strides) {
  int64_t linear = 0;
  for (size_t d = 0; d < index.size(); ++d)
    linear += index[d] * strides[d];
  return linear;
}

void copyElement(Tensor &to, int64_t toIndex, const Tensor &from,
                 int64_t fromIndex) {
  unsigned size = dtypeSize(from.dtype());
  std::memcpy(to.data() + toIndex * size, from.data() + fromIndex * size,
              size);
}

/// Each result element (row-major) comes from the operand element `source`
/// computes from the result's multi-index.
template <class Source>
llvm::Expected<Tensor> gatherElements(const OpEvalContext &ctx, size_t result,
                                      const Tensor &input, Source source) {
  auto tensor = ctx.makeResult(result);
  if (!tensor)
    return tensor.takeError();
  if (tensor->dtype() != input.dtype())
    return ctx.internalError("operand dtype " + input.typeString() +
                             " differs from the result's");
  int64_t n = 0;
  forEachIndex(tensor->shape(), [&](llvm::ArrayRef<int64_t> index) {
    copyElement(*tensor, n++, input, source(index));
  });
  return tensor;
}

/// broadcast: copies elements, reading them as numpy broadcasting does.
llvm::Expected<std::vector<Tensor>> evalBroadcast(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (input.dtype() != result->dtype())
    return ctx.internalError("operand dtype " + input.typeString() +
                             " differs from the result's");
  auto walker = BroadcastWalker::create(result->shape(), {input.shape()});
  if (!walker)
    return ctx.internalError(llvm::toString(walker.takeError()));
  unsigned size = dtypeSize(input.dtype());
  for (; !walker->done(); walker->next())
    std::memcpy(result->data() + walker->resultIndex() * size,
                input.data() + walker->operandIndex(0) * size, size);
  return singleResult(std::move(*result));
}

/// reshape, flatten, squeeze, unsqueeze: the same elements in the same
/// row-major order, in the result's shape.
llvm::Expected<std::vector<Tensor>> evalReshape(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (result->dtype() != input.dtype() ||
      result->numElements() != input.numElements())
    return ctx.internalError("cannot view " + input.typeString() + " as " +
                             result->typeString());
  std::memcpy(result->data(), input.data(), size_t(input.sizeBytes()));
  return singleResult(std::move(*result));
}

/// transpose, permute: result[i] = operand[j] with j[perm[k]] = i[k].
llvm::Expected<std::vector<Tensor>> evalTranspose(const OpEvalContext &ctx) {
  auto perm = resolveAttrs(ctx, resolvePermutation);
  if (!perm)
    return perm.takeError();
  const Tensor &input = ctx.operand(0);
  std::vector<int64_t> strides = input.strides();
  auto result = gatherElements(ctx, 0, input, [&](llvm::ArrayRef<int64_t> i) {
    int64_t linear = 0;
    for (size_t k = 0; k < i.size(); ++k)
      linear += i[k] * strides[(*perm)[k]];
    return linear;
  });
  if (!result)
    return result.takeError();
  return singleResult(std::move(*result));
}

/// concat: the operand whose range along the axis holds the index.
llvm::Expected<std::vector<Tensor>> evalConcat(const OpEvalContext &ctx) {
  auto axis = resolveAttrs(ctx, resolveConcatAxis);
  if (!axis)
    return axis.takeError();
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  int64_t n = 0;
  forEachIndex(result->shape(), [&](llvm::ArrayRef<int64_t> i) {
    std::vector<int64_t> j(i.begin(), i.end());
    size_t m = 0;
    while (j[*axis] >= ctx.operand(m).shape()[*axis]) {
      j[*axis] -= ctx.operand(m).shape()[*axis];
      ++m;
    }
    const Tensor &from = ctx.operand(m);
    copyElement(*result, n++, from, linearIndex(j, from.strides()));
  });
  return singleResult(std::move(*result));
}

/// The elements start + i*step along each sliced axis of result `result`.
llvm::Expected<Tensor> sliceOf(const OpEvalContext &ctx, size_t result,
                               llvm::ArrayRef<int64_t> starts,
                               llvm::ArrayRef<int64_t> steps) {
  const Tensor &input = ctx.operand(0);
  std::vector<int64_t> strides = input.strides();
  return gatherElements(ctx, result, input, [&](llvm::ArrayRef<int64_t> i) {
    int64_t linear = 0;
    for (size_t d = 0; d < i.size(); ++d)
      linear += (starts[d] + i[d] * steps[d]) * strides[d];
    return linear;
  });
}

llvm::Expected<std::vector<Tensor>> evalSlice(const OpEvalContext &ctx) {
  auto axes = resolveAttrs(ctx, resolveSlice);
  if (!axes)
    return axes.takeError();
  unsigned rank = ctx.operand(0).rank();
  std::vector<int64_t> starts(rank, 0), steps(rank, 1);
  for (const SliceAxis &axis : *axes) {
    starts[axis.axis] = *axis.start.getConstant(); // concrete shapes
    steps[axis.axis] = axis.step;
  }
  auto result = sliceOf(ctx, 0, starts, steps);
  if (!result)
    return result.takeError();
  return singleResult(std::move(*result));
}

llvm::Expected<std::vector<Tensor>> evalSplit(const OpEvalContext &ctx) {
  auto spec = resolveAttrs(ctx, resolveSplit);
  if (!spec)
    return spec.takeError();
  unsigned rank = ctx.operand(0).rank();
  std::vector<Tensor> results;
  int64_t offset = 0;
  for (size_t r = 0; r < spec->sizes.size(); ++r) {
    std::vector<int64_t> starts(rank, 0), steps(rank, 1);
    starts[spec->axis] = offset;
    auto piece = sliceOf(ctx, r, starts, steps);
    if (!piece)
      return piece.takeError();
    results.push_back(std::move(*piece));
    offset += *spec->sizes[r].getConstant(); // concrete shapes
  }
  return results;
}

/// The operand index that padded index `i` reads along a dim of `size`
/// padded by `before`, or -1 for the constant.
int64_t padSource(PadMode mode, int64_t i, int64_t before, int64_t size) {
  int64_t j = i - before;
  if (j >= 0 && j < size)
    return j;
  switch (mode) {
  case PadMode::Constant:
    return -1;
  case PadMode::Edge:
    return j < 0 ? 0 : size - 1;
  case PadMode::Reflect:
    return j < 0 ? -j : 2 * (size - 1) - j; // pad < size (verified)
  }
  return -1;
}

llvm::Expected<std::vector<Tensor>> evalPad(const OpEvalContext &ctx) {
  auto spec = resolveAttrs(ctx, resolvePad);
  if (!spec)
    return spec.takeError();
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  std::vector<int64_t> strides = input.strides();
  int64_t n = 0;
  forEachIndex(result->shape(), [&](llvm::ArrayRef<int64_t> i) {
    int64_t linear = 0;
    for (size_t d = 0; d < i.size() && linear >= 0; ++d) {
      int64_t j = padSource(spec->mode, i[d], spec->before[d],
                            input.shape()[d]);
      linear = j < 0 ? -1 : linear + j * strides[d];
    }
    if (linear >= 0)
      copyElement(*result, n, input, linear);
    else
      result->setDouble(n, spec->value); // exact for integer dtypes
    ++n;
  });
  return singleResult(std::move(*result));
}

/// tile: result index i reads operand index i mod dim in every dim.
llvm::Expected<std::vector<Tensor>> evalTile(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  llvm::ArrayRef<int64_t> shape = input.shape();
  std::vector<int64_t> strides = input.strides();
  auto result = gatherElements(ctx, 0, input, [&](llvm::ArrayRef<int64_t> i) {
    int64_t linear = 0;
    for (size_t d = 0; d < i.size(); ++d)
      linear += (i[d] % shape[d]) * strides[d];
    return linear;
  });
  if (!result)
    return result.takeError();
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerShapeOps(OpEvaluatorTable &table) {
  table.add(OpKind::Broadcast, evalBroadcast);
  table.add(OpKind::BroadcastTo, evalBroadcast);
  for (OpKind kind : {OpKind::Reshape, OpKind::Flatten, OpKind::Squeeze,
                      OpKind::Unsqueeze})
    table.add(kind, evalReshape);
  table.add(OpKind::Transpose, evalTranspose);
  table.add(OpKind::Permute, evalTranspose);
  table.add(OpKind::Concat, evalConcat);
  table.add(OpKind::Slice, evalSlice);
  table.add(OpKind::Split, evalSplit);
  table.add(OpKind::Pad, evalPad);
  table.add(OpKind::Tile, evalTile);
}
