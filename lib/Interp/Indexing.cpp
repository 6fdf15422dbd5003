//===- Indexing.cpp - Evaluators of the indexing ops ----------------------===//
//
// Every index is checked before any data is read or written: the guards of
// a node in order (one per data dim it indexes along: one for gather,
// embedding, gather_elements and scatter_elements, one per entry of the
// index tuples of gather_nd and scatter_nd), each over its indices in
// row-major order. The first index outside its guard's range stops the run
// with TXC_E_INDEX_OUT_OF_RANGE and the status the compiled object reports
// for it (the guard, the range, the index). The range is [0, dim-1], or
// [-dim, dim-1] when the node reads index -k as dim-k (every op but
// embedding and a gather without wrap_negative). range reads nothing.
//
// The scatters apply their updates one at a time in row-major order of the
// updates, so that the last of duplicate indices wins (reduction none) and
// add and mul combine in that order, as the compiled code does.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Attributes.h"

#include <type_traits>

using namespace txc;

namespace {

/// The status of the node's index_in_range guard for tuple entry `column`
/// (-1: for all indices) failing with `index`. The guard's id and tensor
/// come from the program's contract, built here since only a failing call
/// needs them.
llvm::Error indexOutOfRange(const OpEvalContext &ctx, int32_t column,
                            int64_t index, int64_t lowest, int64_t dim) {
  DiagnosticEngine diags;
  std::optional<Contract> contract =
      buildContract(ctx.getProgram(), "", diags);
  const Guard *guard = nullptr;
  for (const Guard &g : contract ? contract->guards : std::vector<Guard>())
    if (g.kind == GuardKind::IndexInRange && g.node == ctx.getNode().name &&
        g.column == column)
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

/// The node's attributes resolved at the operands' run-time shapes.
InferenceContext runtimeContext(const OpEvalContext &ctx) {
  std::vector<TensorType> types;
  for (size_t i = 0; i < ctx.getNode().operands.size(); ++i) {
    const Tensor &t = ctx.operand(i);
    TensorType type{t.dtype(), {}};
    for (int64_t dim : t.shape())
      type.shape.push_back(ShapeExpr::constant(dim));
    types.push_back(std::move(type));
  }
  return InferenceContext(ctx.getProgram(), ctx.getNode(), std::move(types));
}

/// Index `index` of a dim of `dim` elements, negative ones wrapped (the
/// index was checked).
int64_t wrapIndex(int64_t index, int64_t dim) {
  return index < 0 ? index + dim : index;
}

/// Checks the indices (operand 1) against each data dim the node indexes
/// along, guard by guard, in row-major order, before anything is read.
llvm::Error checkIndices(const OpEvalContext &ctx) {
  InferenceContext inference = runtimeContext(ctx);
  std::optional<std::vector<IndexedDataDim>> indexed =
      resolveIndexedDims(inference);
  if (!indexed)
    return ctx.internalError("bad indexing attributes");
  const Tensor &indices = ctx.operand(1);
  bool wrap = indicesWrapNegative(ctx.getNode());
  for (const IndexedDataDim &along : *indexed) {
    int64_t dim = ctx.operand(0).shape()[along.dataDim];
    int64_t lowest = wrap ? -dim : 0;
    // Every index, or entry `column` of each tuple along the last dim.
    int64_t first = 0, step = 1;
    if (along.column) {
      first = *along.column;
      step = indices.shape().back();
    }
    for (int64_t q = first; q < indices.numElements(); q += step) {
      int64_t index = indices.getInt64(q);
      if (index < lowest || index >= dim)
        return indexOutOfRange(ctx, along.column ? int32_t(*along.column) : -1,
                               index, lowest, dim);
    }
  }
  return llvm::Error::success();
}

/// The indexed axis of the node (gather, gather_elements, scatter_elements;
/// embedding: 0) at the operands' run-time shapes, once every index was
/// checked.
llvm::Expected<unsigned> checkedAxis(const OpEvalContext &ctx) {
  InferenceContext inference = runtimeContext(ctx);
  std::optional<unsigned> resolved = resolveGatherAxis(inference);
  if (!resolved)
    return ctx.internalError("bad axis");
  if (llvm::Error error = checkIndices(ctx))
    return error;
  return *resolved;
}

/// The index tuples of a gather_nd or scatter_nd at the operands' run-time
/// shapes, once every index was checked.
llvm::Expected<IndexTuples> checkedTuples(const OpEvalContext &ctx) {
  InferenceContext inference = runtimeContext(ctx);
  std::optional<IndexTuples> tuples = resolveIndexTuples(inference);
  if (!tuples)
    return ctx.internalError("bad batch_dims or index tuples");
  if (llvm::Error error = checkIndices(ctx))
    return error;
  return *tuples;
}

/// Tuple `t` of `indices` (`depth` entries along its last dim), its
/// entries wrapped, as a row-major offset over the dims [first,
/// first+depth) of `shape`.
int64_t tupleOffset(const Tensor &indices, int64_t t, unsigned depth,
                    llvm::ArrayRef<int64_t> shape, unsigned first) {
  int64_t offset = 0;
  for (unsigned j = 0; j < depth; ++j)
    offset = offset * shape[first + j] +
             wrapIndex(indices.getInt64(t * depth + j), shape[first + j]);
  return offset;
}

/// Steps `coords` to the next coordinates of `shape` in row-major order.
void advanceRowMajor(std::vector<int64_t> &coords,
                     llvm::ArrayRef<int64_t> shape) {
  for (size_t d = coords.size(); d-- > 0;)
    if (++coords[d] < shape[d])
      return;
    else
      coords[d] = 0;
}

/// The number of elements of `shape[first:last]`.
int64_t elementsOf(llvm::ArrayRef<int64_t> shape, size_t first, size_t last) {
  int64_t count = 1;
  for (size_t d = first; d < last; ++d)
    count *= shape[d];
  return count;
}

/// The node's result, checked to have `dtype` and `elements` elements.
llvm::Expected<Tensor> makeCheckedResult(const OpEvalContext &ctx, DType dtype,
                                         int64_t elements) {
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (result->dtype() != dtype || result->numElements() != elements)
    return ctx.internalError("result " + result->typeString() +
                             " does not fit the operands");
  return std::move(*result);
}

llvm::Expected<std::vector<Tensor>> evalGather(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1);
  auto axisOr = checkedAxis(ctx);
  if (!axisOr)
    return axisOr.takeError();
  unsigned axis = *axisOr;
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
      int64_t row = o * dim + wrapIndex(index, dim);
      std::memcpy(to, data.data() + row * rowBytes, rowBytes);
      to += rowBytes;
    }
  return singleResult(std::move(*result));
}

/// gather_elements: result[i] = data[i with i[axis] = indices[i]].
llvm::Expected<std::vector<Tensor>>
evalGatherElements(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1);
  auto axisOr = checkedAxis(ctx);
  if (!axisOr)
    return axisOr.takeError();
  unsigned axis = *axisOr;
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
      int64_t c = d != axis ? coords[d] : wrapIndex(index, dim);
      offset = offset * data.shape()[d] + c;
    }
    std::memcpy(result->data() + q * width, data.data() + offset * width,
                width);
    advanceRowMajor(coords, indices.shape());
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

/// gather_nd: result[p..., s...] = data[batch..., tuple(p)..., s...], each
/// tuple indices[p..., :] (p starts with the batch coordinates).
llvm::Expected<std::vector<Tensor>> evalGatherND(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1);
  auto tuples = checkedTuples(ctx);
  if (!tuples)
    return tuples.takeError();
  llvm::ArrayRef<int64_t> shape = data.shape();
  unsigned b = tuples->batchDims, depth = tuples->depth;
  int64_t batches = elementsOf(shape, 0, b);
  int64_t batchElements = elementsOf(shape, b, shape.size());
  int64_t sliceElements = elementsOf(shape, b + depth, shape.size());
  int64_t count = indices.numElements() / std::max<int64_t>(depth, 1);
  int64_t perBatch = batches ? count / batches : 0;
  auto result = makeCheckedResult(ctx, data.dtype(), count * sliceElements);
  if (!result)
    return result.takeError();
  size_t width = dtypeSize(data.dtype());
  for (int64_t t = 0; t < count; ++t) {
    int64_t from = (t / perBatch) * batchElements +
                   tupleOffset(indices, t, depth, shape, b) * sliceElements;
    std::memcpy(result->data() + t * sliceElements * width,
                data.data() + from * width, sliceElements * width);
  }
  return singleResult(std::move(*result));
}

/// Combines `count` elements of `updates` into `target` by `reduction`, in
/// order: replaced, added or multiplied (in the compute type, one rounding
/// each, as the `add` and `mul` ops).
void combineInto(DType dtype, ScatterReduction reduction, uint8_t *target,
                 const uint8_t *updates, int64_t count) {
  size_t width = dtypeSize(dtype);
  if (reduction == ScatterReduction::None) {
    std::memcpy(target, updates, count * width);
    return;
  }
  dispatchNumeric(dtype, [&](auto traits) {
    using Traits = decltype(traits);
    using Storage = typename Traits::Storage;
    for (int64_t e = 0; e < count; ++e) {
      Storage x, y;
      std::memcpy(&x, target + e * width, width);
      std::memcpy(&y, updates + e * width, width);
      auto a = Traits::load(x), u = Traits::load(y);
      Storage z =
          Traits::store(reduction == ScatterReduction::Add ? computeAdd(a, u)
                                                           : computeMul(a, u));
      std::memcpy(target + e * width, &z, width);
    }
  });
}

/// The result of a scatter: a copy of data, and the reduction.
llvm::Expected<std::pair<Tensor, ScatterReduction>>
startScatter(const OpEvalContext &ctx) {
  InferenceContext inference = runtimeContext(ctx);
  std::optional<ScatterReduction> reduction =
      resolveScatterReduction(inference);
  if (!reduction)
    return ctx.internalError("bad reduction");
  const Tensor &data = ctx.operand(0);
  auto result = makeCheckedResult(ctx, data.dtype(), data.numElements());
  if (!result)
    return result.takeError();
  std::memcpy(result->data(), data.data(), data.sizeBytes());
  return std::make_pair(std::move(*result), *reduction);
}

/// scatter_elements: result[i with i[axis] = indices[i]] takes (or
/// combines with) updates[i], for each i of indices in row-major order.
llvm::Expected<std::vector<Tensor>>
evalScatterElements(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1),
               &updates = ctx.operand(2);
  auto axisOr = checkedAxis(ctx);
  if (!axisOr)
    return axisOr.takeError();
  unsigned axis = *axisOr;
  auto started = startScatter(ctx);
  if (!started)
    return started.takeError();
  auto &[result, reduction] = *started;
  unsigned rank = data.rank();
  size_t width = dtypeSize(data.dtype());
  std::vector<int64_t> coords(rank, 0);
  for (int64_t q = 0; q < indices.numElements(); ++q) {
    int64_t offset = 0;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t c = d != axis ? coords[d]
                            : wrapIndex(indices.getInt64(q), data.shape()[d]);
      offset = offset * data.shape()[d] + c;
    }
    combineInto(data.dtype(), reduction, result.data() + offset * width,
                updates.data() + q * width, 1);
    advanceRowMajor(coords, indices.shape());
  }
  return singleResult(std::move(result));
}

/// scatter_nd: the slice result[tuple..., :] of each tuple indices[p..., :]
/// takes (or combines with) updates[p..., :], in row-major order of p.
llvm::Expected<std::vector<Tensor>> evalScatterND(const OpEvalContext &ctx) {
  const Tensor &data = ctx.operand(0), &indices = ctx.operand(1),
               &updates = ctx.operand(2);
  auto tuples = checkedTuples(ctx);
  if (!tuples)
    return tuples.takeError();
  auto started = startScatter(ctx);
  if (!started)
    return started.takeError();
  auto &[result, reduction] = *started;
  llvm::ArrayRef<int64_t> shape = data.shape();
  unsigned depth = tuples->depth;
  int64_t sliceElements = elementsOf(shape, depth, shape.size());
  int64_t count = elementsOf(indices.shape(), 0, indices.rank() - 1);
  size_t width = dtypeSize(data.dtype());
  for (int64_t t = 0; t < count; ++t) {
    int64_t offset = tupleOffset(indices, t, depth, shape, 0);
    combineInto(data.dtype(), reduction,
                result.data() + offset * sliceElements * width,
                updates.data() + t * sliceElements * width, sliceElements);
  }
  return singleResult(std::move(result));
}

} // namespace

void txc::registerIndexingOps(OpEvaluatorTable &table) {
  table.add(OpKind::Gather, evalGather);
  table.add(OpKind::Embedding, evalGather);
  table.add(OpKind::GatherElements, evalGatherElements);
  table.add(OpKind::Range, evalRange);
  table.add(OpKind::GatherND, evalGatherND);
  table.add(OpKind::ScatterElements, evalScatterElements);
  table.add(OpKind::ScatterND, evalScatterND);
}
