//===- Indexing.cpp - Evaluators of the indexing ops ----------------------===//
//
// Every index is checked before any data is read, in row-major order: the
// first one outside the valid range stops the run with
// TXC_E_INDEX_OUT_OF_RANGE and the status the compiled object reports for it
// (the node's index_in_range guard, the range, the index). The range is
// [0, dim-1], or [-dim, dim-1] for a gather with wrap_negative and for
// gather_elements, which read index -k as dim-k. range reads nothing.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Attributes.h"

#include <type_traits>

using namespace txc;

namespace {

/// The status of `node`'s index_in_range guard failing with `index`. The
/// guard's id and tensor come from the program's contract, built here since
/// only a failing call needs them.
llvm::Error indexOutOfRange(const OpEvalContext &ctx, int64_t index,
                            int64_t lowest, int64_t dim) {
  DiagnosticEngine diags;
  std::optional<Contract> contract =
      buildContract(ctx.getProgram(), "", diags);
  const Guard *guard = nullptr;
  for (const Guard &g : contract ? contract->guards : std::vector<Guard>())
    if (g.kind == GuardKind::IndexInRange && g.node == ctx.getNode().name)
      guard = &g;
  if (!guard)
    return ctx.internalError("the contract has no index guard for the node");
  CallStatus status;
  status.code = StatusCode::IndexOutOfRange;
  status.guard = int32_t(guard->id);
  status.side = guard->side;
  status.tensor = guard->tensor;
  status.expectedMin = lowest;
  status.expectedMax = dim - 1;
  status.actual = index;
  return llvm::make_error<RuntimeStatusError>(
      status, "node '" + ctx.getNode().name + "' (" + ctx.getNode().opName +
                  "): index " + std::to_string(index) + " is outside [" +
                  std::to_string(lowest) + ", " + std::to_string(dim) + ")");
}

/// The indexed axis of the node (gather, gather_elements; embedding: 0) at
/// the operands' run-time shapes.
llvm::Expected<unsigned> indexedAxis(const OpEvalContext &ctx) {
  if (ctx.getNode().kind == OpKind::Embedding)
    return 0u;
  std::vector<TensorType> types;
  for (const Tensor *t : {&ctx.operand(0), &ctx.operand(1)}) {
    TensorType type{t->dtype(), {}};
    for (int64_t dim : t->shape())
      type.shape.push_back(ShapeExpr::constant(dim));
    types.push_back(std::move(type));
  }
  InferenceContext inference(ctx.getProgram(), ctx.getNode(), types);
  std::optional<unsigned> resolved = resolveGatherAxis(inference);
  if (!resolved)
    return ctx.internalError("bad axis");
  return *resolved;
}

/// Checks every index of operand 1 against data's dim `axis`, in row-major
/// order, before anything is read.
llvm::Error checkIndices(const OpEvalContext &ctx, unsigned axis) {
  const Tensor &indices = ctx.operand(1);
  int64_t dim = ctx.operand(0).shape()[axis];
  int64_t lowest = indicesWrapNegative(ctx.getNode()) ? -dim : 0;
  for (int64_t q = 0; q < indices.numElements(); ++q) {
    int64_t index = indices.getInt64(q);
    if (index < lowest || index >= dim)
      return indexOutOfRange(ctx, index, lowest, dim);
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<Tensor>> evalGather(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1);
  auto axisOr = indexedAxis(ctx);
  if (!axisOr)
    return axisOr.takeError();
  unsigned axis = *axisOr;
  if (llvm::Error error = checkIndices(ctx, axis))
    return error;
  int64_t dim = data.shape()[axis];
  // result[o, q, r] = data[o, indices[q], r], with `inner` elements per r.
  int64_t outer = 1, inner = 1;
  for (unsigned d = 0; d < axis; ++d)
    outer *= data.shape()[d];
  for (unsigned d = axis + 1; d < data.rank(); ++d)
    inner *= data.shape()[d];
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (result->dtype() != data.dtype() ||
      result->numElements() != outer * indices.numElements() * inner)
    return ctx.internalError("result " + result->typeString() +
                             " does not fit the operands");
  size_t rowBytes = size_t(inner) * dtypeSize(data.dtype());
  uint8_t *to = result->data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t q = 0; q < indices.numElements(); ++q) {
      int64_t index = indices.getInt64(q);
      int64_t row = o * dim + (index < 0 ? index + dim : index);
      std::memcpy(to, data.data() + row * rowBytes, rowBytes);
      to += rowBytes;
    }
  return singleResult(std::move(*result));
}

/// gather_elements: result[i] = data[i with i[axis] = indices[i]].
llvm::Expected<std::vector<Tensor>>
evalGatherElements(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1);
  auto axisOr = indexedAxis(ctx);
  if (!axisOr)
    return axisOr.takeError();
  unsigned axis = *axisOr;
  if (llvm::Error error = checkIndices(ctx, axis))
    return error;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (result->dtype() != data.dtype() || result->shape() != indices.shape())
    return ctx.internalError("result " + result->typeString() +
                             " does not fit the operands");
  unsigned rank = data.rank();
  int64_t dim = data.shape()[axis];
  size_t width = dtypeSize(data.dtype());
  std::vector<int64_t> coords(rank, 0);
  for (int64_t q = 0; q < indices.numElements(); ++q) {
    int64_t index = indices.getInt64(q);
    int64_t offset = 0;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t c = d != axis ? coords[d] : index < 0 ? index + dim : index;
      offset = offset * data.shape()[d] + c;
    }
    std::memcpy(result->data() + q * width, data.data() + offset * width,
                width);
    // The next coordinate of indices in row-major order.
    for (unsigned d = rank; d-- > 0;)
      if (++coords[d] < indices.shape()[d])
        break;
      else
        coords[d] = 0;
  }
  return singleResult(std::move(*result));
}

/// range: element i is start + i*delta, computed in the dtype's compute
/// type (integers wrap; f16 and bf16 in float, rounded once), with start
/// and delta first rounded to the dtype, as the lowering computes it.
llvm::Expected<std::vector<Tensor>> evalRange(const OpEvalContext &ctx) {
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  double start = getFloatAttr(ctx.getNode(), "start", 0);
  double delta = getFloatAttr(ctx.getNode(), "delta", 1);
  dispatchNumeric(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    using C = typename T::Compute;
    for (int64_t i = 0; i < result->numElements(); ++i) {
      if constexpr (std::is_floating_point_v<C>) {
        C first = T::load(roundFloat<T>(start));
        C step = T::load(roundFloat<T>(delta));
        result->store<S>(i, T::store(first + C(i) * step));
      } else {
        // The attributes are integers the dtype holds (the shape rule).
        uint64_t value = uint64_t(int64_t(start)) +
                         uint64_t(i) * uint64_t(int64_t(delta));
        result->store<S>(i, S(value));
      }
    }
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerIndexingOps(OpEvaluatorTable &table) {
  table.add(OpKind::Gather, evalGather);
  table.add(OpKind::Embedding, evalGather);
  table.add(OpKind::GatherElements, evalGatherElements);
  table.add(OpKind::Range, evalRange);
}
