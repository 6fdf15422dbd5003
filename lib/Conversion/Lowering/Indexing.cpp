//===- Indexing.cpp - Lowering of the indexing ops ------------------------===//
//
// An index outside the valid range ([0, dim), or [-dim, dim) for the ops
// that read index -k as dim-k: a gather with wrap_negative and every other
// op but embedding) must fail the call with TXC_E_INDEX_OUT_OF_RANGE and
// must never be read or written through. Each indexing node therefore
//
//   1. reduces its indices along each data dim it indexes (gather_nd's and
//      scatter_nd's tuple entries one by one, in the order of their
//      guards) to "is one out of range, and the first such";
//   2. if one is, stores that IndexInRange guard and index in the kernel's
//      status buffer, unless an earlier guard already failed (an scf.if
//      without results, so that no tensor flows through a branch);
//   3. reads or writes data with every index (wrapped, then) clamped into
//      [0, dim-1], so that every access is in bounds whatever the indices;
//      a dim that can be 0 has nothing to read or write: reads are then
//      guarded by dim > 0, and a scatter's loop runs no iteration.
//
// The clamped values only matter when the call fails, and then the outputs
// are unspecified. The ABI wrapper reads the status buffer after the kernel
// returns (lib/Target/AbiEmitter.cpp).
//
// range makes indices rather than reading with them: a linalg.generic over
// linalg.index, which needs no guard.
//
// The gathers are linalg.generic ops over their result. A scatter copies
// data and applies its updates one at a time in an scf.for nest over the
// updates, in row-major order: duplicate indices leave the last update
// (reduction none) or combine in that order (add, mul), as the interpreter
// does.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"
#include "Accumulation.h"
#include "Views.h"
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// A dim (or an index computed from one) as an i64 value.
Value dimAsI64(MLIRGen &gen, const ShapeExpr &dim, Location at) {
  OpBuilder &b = gen.builder();
  if (auto value = dim.getConstant())
    return b.create<arith::ConstantIntOp>(at, *value, 64);
  return b.create<arith::IndexCastOp>(at, b.getI64Type(),
                                      gen.dimValue(dim, at));
}

/// A rank-0 tensor of `type` holding `value`, as a reduction's init.
Value scalarInit(OpBuilder &b, Location at, Type type, TypedAttr value) {
  Value empty = b.create<tensor::EmptyOp>(at, ArrayRef<int64_t>{}, type);
  Value constant = b.create<arith::ConstantOp>(at, value);
  return b.create<linalg::FillOp>(at, constant, empty).getResult(0);
}

/// `index` (i32 or i64) as i64.
Value asI64(OpBuilder &b, Location at, Value index) {
  if (index.getType() == b.getI64Type())
    return index;
  return b.create<arith::ExtSIOp>(at, b.getI64Type(), index);
}

/// Reduces `indices` (i32 or i64, any rank) to (any index outside
/// [lowest, dim), the first such index in row-major order as i64).
std::pair<Value, Value> firstOutOfRange(MLIRGen &gen, Location at,
                                        Value indices, unsigned rank,
                                        Value lowest, Value dim) {
  OpBuilder &b = gen.builder();
  Value foundInit = scalarInit(b, at, b.getI1Type(), b.getBoolAttr(false));
  Value badInit = scalarInit(b, at, b.getI64Type(), b.getI64IntegerAttr(0));
  AffineMap all = b.getMultiDimIdentityMap(rank);
  AffineMap none = AffineMap::get(rank, 0, {}, b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto reduction = b.create<linalg::GenericOp>(
      at, TypeRange{foundInit.getType(), badInit.getType()},
      ValueRange{indices}, ValueRange{foundInit, badInit},
      SmallVector<AffineMap>{all, none, none}, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value index = asI64(nested, loc, args[0]);
        Value found = args[1], bad = args[2];
        Value outside = nested.create<arith::OrIOp>(
            loc,
            nested.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                         index, lowest),
            nested.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge,
                                         index, dim));
        // Keep the first offender: later ones do not replace it.
        Value candidate =
            nested.create<arith::SelectOp>(loc, outside, index, bad);
        Value nextBad =
            nested.create<arith::SelectOp>(loc, found, bad, candidate);
        Value nextFound = nested.create<arith::OrIOp>(loc, found, outside);
        nested.create<linalg::YieldOp>(loc, ValueRange{nextFound, nextBad});
      });
  Value found = b.create<tensor::ExtractOp>(at, reduction.getResult(0),
                                            ValueRange{});
  Value bad = b.create<tensor::ExtractOp>(at, reduction.getResult(1),
                                          ValueRange{});
  return {found, bad};
}

/// When `failed`, stores (guard, actual) in the status buffer unless a guard
/// failed before.
void recordFailure(OpBuilder &b, Location at, Value status, Value failed,
                   uint32_t guard, Value actual) {
  Value c0 = b.create<arith::ConstantIndexOp>(at, 0);
  Value c1 = b.create<arith::ConstantIndexOp>(at, 1);
  Value current = b.create<memref::LoadOp>(at, status, ValueRange{c0});
  Value none = b.create<arith::ConstantIntOp>(at, -1, 64);
  Value first =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, current, none);
  Value record = b.create<arith::AndIOp>(at, failed, first);
  b.create<scf::IfOp>(at, record, [&](OpBuilder &then, Location loc) {
    Value id = then.create<arith::ConstantIntOp>(loc, int64_t(guard), 64);
    then.create<memref::StoreOp>(loc, id, status, ValueRange{c0});
    then.create<memref::StoreOp>(loc, actual, status, ValueRange{c1});
    then.create<scf::YieldOp>(loc);
  });
}

/// The indexed dim of a gather (i64), its last index, and whether negative
/// indices wrap.
struct IndexedDim {
  Value dim, last;
  bool wrap;
};

/// `index` (i32 or i64), plus the dim if negative and wrapping, clamped into
/// [0, last] as an index value (-1 when the dim is 0). A negative i64 plus a
/// dim of at most INT64_MAX cannot overflow.
Value clampedIndex(OpBuilder &b, Location at, Value index,
                   const IndexedDim &indexed) {
  index = asI64(b, at, index);
  Value zero = b.create<arith::ConstantIntOp>(at, 0, 64);
  if (indexed.wrap) {
    Value negative =
        b.create<arith::CmpIOp>(at, arith::CmpIPredicate::slt, index, zero);
    index = b.create<arith::SelectOp>(
        at, negative, b.create<arith::AddIOp>(at, index, indexed.dim), index);
  }
  Value clamped = b.create<arith::MinSIOp>(
      at, b.create<arith::MaxSIOp>(at, index, zero), indexed.last);
  return b.create<arith::IndexCastOp>(at, b.getIndexType(), clamped);
}

/// Reads data at `coords` in `b`'s block, or, when the indexed dim can be
/// 0, only under dim > 0 (`nonEmpty`) and `zero` otherwise.
Value readGuarded(OpBuilder &b, Location at, Value data, ValueRange coords,
                  Value nonEmpty, Value zero) {
  if (!nonEmpty)
    return b.create<tensor::ExtractOp>(at, data, coords);
  auto branch = b.create<scf::IfOp>(
      at, nonEmpty,
      [&](OpBuilder &then, Location l) {
        then.create<scf::YieldOp>(
            l, ValueRange{then.create<tensor::ExtractOp>(l, data, coords)});
      },
      [&](OpBuilder &otherwise, Location l) {
        otherwise.create<scf::YieldOp>(l, zero);
      });
  return branch.getResult(0);
}

/// The IndexInRange guard the contract made for `node`'s indices along one
/// data dim (`column`: of gather_nd's and scatter_nd's tuples, or -1).
const Guard *indexGuardOf(const Contract &contract, const Node &node,
                          int32_t column) {
  for (const Guard &g : contract.guards)
    if (g.kind == GuardKind::IndexInRange && g.node == node.name &&
        g.column == column)
      return &g;
  return nullptr;
}

/// One data dim an indexing node indexes along, after its indices were
/// checked: the dim (and how to clamp into it), whether it can be 0, and
/// the indices that select along it (all of them, or one tuple entry).
struct CheckedDim {
  unsigned dataDim;
  IndexedDim indexed;
  bool mayBeZero;
  Value indices;
};

/// Entry `column` of every index tuple of `indices` (rank q, the tuples
/// along the last dim): a rank q-1 view, indices[..., column].
Value tupleEntries(MLIRGen &gen, Location at, Value indices,
                   const TensorType &type, unsigned column) {
  OpBuilder &b = gen.builder();
  Shape leading(type.shape.begin(), type.shape.end() - 1);
  SmallVector<OpFoldResult> offsets(type.rank(), b.getIndexAttr(0));
  offsets.back() = b.getIndexAttr(column);
  SmallVector<OpFoldResult> sizes = foldResults(gen, leading, at);
  sizes.push_back(b.getIndexAttr(1));
  SmallVector<OpFoldResult> strides(type.rank(), b.getIndexAttr(1));
  return b.create<tensor::ExtractSliceOp>(
      at, gen.tensorType(TensorType{type.dtype, leading}), indices, offsets,
      sizes, strides);
}

/// Steps 1 and 2 for the indices (operand 1) of `lowering`'s node, along
/// each data dim it indexes, in the order of its IndexInRange guards:
/// checks them against the guard and records a failure.
FailureOr<SmallVector<CheckedDim>> checkIndices(MLIRGen &gen,
                                                const NodeLowering &lowering) {
  InferenceContext ctx(gen.program(), lowering.node,
                       std::vector<TensorType>(lowering.operandTypes.begin(),
                                               lowering.operandTypes.end()));
  std::vector<IndexedDataDim> dims = *resolveIndexedDims(ctx);
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const TensorType &indicesType = lowering.operandTypes[1];
  SmallVector<CheckedDim> checked;
  for (const IndexedDataDim &along : dims) {
    int32_t column = along.column ? int32_t(*along.column) : -1;
    const Guard *guard = indexGuardOf(gen.getContract(), lowering.node, column);
    Value status = gen.statusBuffer();
    if (!guard || !status)
      return emitError(at) << "internal error: no index guard for '"
                           << lowering.node.name << "'";
    const ShapeExpr &dimExpr = lowering.operandTypes[0].shape[along.dataDim];
    Value dim = dimAsI64(gen, dimExpr, at);
    Value lowest = dimAsI64(gen, lowestValidIndex(*guard), at);
    Value indices = lowering.operands[1];
    unsigned rank = indicesType.rank();
    if (along.column) {
      indices = tupleEntries(gen, at, indices, indicesType, *along.column);
      --rank;
    }
    auto [found, bad] = firstOutOfRange(gen, at, indices, rank, lowest, dim);
    recordFailure(b, at, status, found, guard->id, bad);
    Value last = b.create<arith::SubIOp>(
        at, dim, b.create<arith::ConstantIntOp>(at, 1, 64));
    checked.push_back(
        {along.dataDim, IndexedDim{dim, last, guard->wrapsNegative},
         dimExpr.bounds(gen.program().symbolRanges()).min <= 0, indices});
  }
  return checked;
}

/// Whether every checked dim that can be 0 is above 0 (i1), or null when
/// none can be 0: data then has elements to read or write.
Value nonEmptyCondition(OpBuilder &b, Location at,
                        ArrayRef<CheckedDim> checked) {
  Value all;
  for (const CheckedDim &c : checked) {
    if (!c.mayBeZero)
      continue;
    Value above =
        b.create<arith::CmpIOp>(at, arith::CmpIPredicate::sgt, c.indexed.dim,
                                b.create<arith::ConstantIntOp>(at, 0, 64));
    all = all ? b.create<arith::AndIOp>(at, all, above).getResult() : above;
  }
  return all;
}

/// A linalg.generic over the node's result whose body reads data at the
/// coordinates `coords` gives for the iteration's indices and the values
/// of `inputs` (each read with the map of `inputMaps`), guarded by
/// `nonEmpty` when that is not null.
Value readEveryResultElement(
    MLIRGen &gen, const NodeLowering &lowering, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps, Value nonEmpty,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        coords) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const TensorType &resultType = lowering.resultType();
  unsigned rank = resultType.rank();
  Value zero = nonEmpty ? gen.scalar(resultType.dtype, 0, at) : Value();
  SmallVector<AffineMap> maps(inputMaps.begin(), inputMaps.end());
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      at, TypeRange{gen.tensorType(resultType)}, inputs,
      ValueRange{gen.emptyTensor(resultType, at)}, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> where = coords(nested, loc, args);
        nested.create<linalg::YieldOp>(loc, readGuarded(nested, loc,
                                                        lowering.operands[0],
                                                        where, nonEmpty, zero));
      });
  return generic.getResult(0);
}

/// gather and embedding (gather along axis 0 of a [V,D] weight):
/// result[pre..., idx..., post...] = data[pre..., indices[idx...], post...]
/// with each index (wrapped and) clamped into [0, dim-1].
FailureOr<SmallVector<Value>> lowerGather(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  FailureOr<SmallVector<CheckedDim>> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  OpBuilder &b = gen.builder();
  const CheckedDim &axis = checked->front();
  unsigned dataRank = lowering.operandTypes[0].rank();
  unsigned indicesRank = lowering.operandTypes[1].rank();
  unsigned rank = lowering.resultType().rank();
  SmallVector<AffineExpr> indexDims;
  for (unsigned d = 0; d < indicesRank; ++d)
    indexDims.push_back(b.getAffineDimExpr(axis.dataDim + d));
  Value result = readEveryResultElement(
      gen, lowering, lowering.operands[1],
      AffineMap::get(rank, 0, indexDims, b.getContext()),
      nonEmptyCondition(b, lowering.loc, *checked),
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> coords;
        for (unsigned d = 0; d < axis.dataDim; ++d)
          coords.push_back(nested.create<linalg::IndexOp>(loc, d));
        coords.push_back(clampedIndex(nested, loc, args[0], axis.indexed));
        for (unsigned d = axis.dataDim + 1; d < dataRank; ++d)
          coords.push_back(
              nested.create<linalg::IndexOp>(loc, d - 1 + indicesRank));
        return coords;
      });
  return SmallVector<Value>{result};
}

/// gather_elements: a linalg.generic over the indices (the result's shape),
/// each element reading data at its own coordinates with the axis' one
/// replaced by its (wrapped and clamped) index.
FailureOr<SmallVector<Value>> lowerGatherElements(MLIRGen &gen,
                                                  const NodeLowering &lowering) {
  FailureOr<SmallVector<CheckedDim>> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  const CheckedDim &axis = checked->front();
  unsigned rank = lowering.resultType().rank();
  Value nonEmpty = nonEmptyCondition(gen.builder(), lowering.loc, *checked);
  Value result = readEveryResultElement(
      gen, lowering, lowering.operands[1],
      gen.builder().getMultiDimIdentityMap(rank), nonEmpty,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> coords;
        for (unsigned d = 0; d < rank; ++d)
          coords.push_back(
              d == axis.dataDim
                  ? clampedIndex(nested, loc, args[0], axis.indexed)
                  : nested.create<linalg::IndexOp>(loc, d));
        return coords;
      });
  return SmallVector<Value>{result};
}

/// gather_nd: a linalg.generic over the result, indices.shape[:-1] +
/// data.shape[b+depth:]; its inputs are the tuple entries (each a view of
/// the indices), and each element reads data at its batch coordinates, the
/// (wrapped and clamped) tuple, then its trailing coordinates.
FailureOr<SmallVector<Value>> lowerGatherND(MLIRGen &gen,
                                            const NodeLowering &lowering) {
  FailureOr<SmallVector<CheckedDim>> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  OpBuilder &b = gen.builder();
  unsigned rank = lowering.resultType().rank();
  unsigned tupleRank = lowering.operandTypes[1].rank() - 1;
  unsigned batchDims = checked->front().dataDim;
  SmallVector<Value> entries;
  for (const CheckedDim &c : *checked)
    entries.push_back(c.indices);
  SmallVector<AffineExpr> leading;
  for (unsigned d = 0; d < tupleRank; ++d)
    leading.push_back(b.getAffineDimExpr(d));
  SmallVector<AffineMap> maps(entries.size(),
                              AffineMap::get(rank, 0, leading, b.getContext()));
  Value nonEmpty = nonEmptyCondition(b, lowering.loc, *checked);
  Value result = readEveryResultElement(
      gen, lowering, entries, maps, nonEmpty,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> coords;
        for (unsigned d = 0; d < batchDims; ++d)
          coords.push_back(nested.create<linalg::IndexOp>(loc, d));
        for (size_t j = 0; j < checked->size(); ++j)
          coords.push_back(
              clampedIndex(nested, loc, args[j], (*checked)[j].indexed));
        for (unsigned d = tupleRank; d < rank; ++d)
          coords.push_back(nested.create<linalg::IndexOp>(loc, d));
        return coords;
      });
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// The scatters
//===----------------------------------------------------------------------===//

/// `update` combined with `old` by `reduction`, as the `add` and `mul` ops
/// compute (f16 and bf16 in f32, rounded once).
Value combine(OpBuilder &b, Location at, ScatterReduction reduction, Value old,
              Value update) {
  Type element = old.getType();
  Type compute = element;
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    compute = b.getF32Type();
  Value x = convertFloat(b, at, old, compute);
  Value y = convertFloat(b, at, update, compute);
  Value z = reduction == ScatterReduction::Add ? addValues(b, at, x, y)
                                               : mulValues(b, at, x, y);
  return convertFloat(b, at, z, element);
}

/// A scatter's loop nest over the elements of `updates` (operand 2) in
/// row-major order, carrying a copy of data. For each element `target`
/// gives the coordinates in data it lands on, where it replaces or
/// combines with the element there. The updates are applied one at a time,
/// so the last of duplicate indices wins and add/mul combine in this order
/// (the interpreter's). When `nonEmpty` is false (an indexed dim is 0 and
/// data has no elements; any update then failed the guard) the outermost
/// loop runs no iteration: nothing is written.
Value scatterUpdates(
    MLIRGen &gen, const NodeLowering &lowering, ScatterReduction reduction,
    Value nonEmpty,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        target) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  Value copy =
      b.create<linalg::CopyOp>(at, lowering.operands[0],
                               gen.emptyTensor(lowering.resultType(), at))
          .getResult(0);
  Value zero = b.create<arith::ConstantIndexOp>(at, 0);
  Value one = b.create<arith::ConstantIndexOp>(at, 1);
  SmallVector<Value> lbs, ubs, steps;
  for (const ShapeExpr &dim : lowering.operandTypes[2].shape) {
    lbs.push_back(zero);
    ubs.push_back(
        getValueOrCreateConstantIndexOp(b, at, foldResult(gen, dim, at)));
    steps.push_back(one);
  }
  bool unitLoop = ubs.empty(); // a rank-0 update: one iteration
  if (unitLoop) {
    lbs.push_back(zero);
    ubs.push_back(one);
    steps.push_back(one);
  }
  if (nonEmpty)
    ubs.front() = b.create<arith::SelectOp>(at, nonEmpty, ubs.front(), zero);
  Value updates = lowering.operands[2];
  scf::LoopNest nest = scf::buildLoopNest(
      b, at, lbs, ubs, steps, ValueRange{copy},
      [&](OpBuilder &nested, Location loc, ValueRange ivs,
          ValueRange acc) -> scf::ValueVector {
        ValueRange position = unitLoop ? ValueRange() : ivs;
        SmallVector<Value> coords = target(nested, loc, position);
        Value value = nested.create<tensor::ExtractOp>(loc, updates, position);
        if (reduction != ScatterReduction::None)
          value = combine(nested, loc, reduction,
                          nested.create<tensor::ExtractOp>(loc, acc[0], coords),
                          value);
        return {nested.create<tensor::InsertOp>(loc, value, acc[0], coords)};
      });
  return nest.results[0];
}

/// The node's `reduction`.
ScatterReduction scatterReduction(MLIRGen &gen, const NodeLowering &lowering) {
  InferenceContext ctx(gen.program(), lowering.node,
                       std::vector<TensorType>(lowering.operandTypes.begin(),
                                               lowering.operandTypes.end()));
  return *resolveScatterReduction(ctx);
}

/// scatter_elements: updates[i] lands on data[i with i[axis] replaced by
/// the (wrapped and clamped) indices[i]].
FailureOr<SmallVector<Value>>
lowerScatterElements(MLIRGen &gen, const NodeLowering &lowering) {
  FailureOr<SmallVector<CheckedDim>> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  const CheckedDim &axis = checked->front();
  Value result = scatterUpdates(
      gen, lowering, scatterReduction(gen, lowering),
      nonEmptyCondition(gen.builder(), lowering.loc, *checked),
      [&](OpBuilder &nested, Location loc, ValueRange position) {
        SmallVector<Value> coords(position.begin(), position.end());
        Value index = nested.create<tensor::ExtractOp>(
            loc, lowering.operands[1], position);
        coords[axis.dataDim] = clampedIndex(nested, loc, index, axis.indexed);
        return coords;
      });
  return SmallVector<Value>{result};
}

/// scatter_nd: updates[p..., s...] lands on data[tuple(p)..., s...], each
/// tuple entry indices[p..., j] wrapped and clamped.
FailureOr<SmallVector<Value>> lowerScatterND(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  FailureOr<SmallVector<CheckedDim>> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  unsigned tupleRank = lowering.operandTypes[1].rank() - 1;
  Value result = scatterUpdates(
      gen, lowering, scatterReduction(gen, lowering),
      nonEmptyCondition(gen.builder(), lowering.loc, *checked),
      [&](OpBuilder &nested, Location loc, ValueRange position) {
        // indices[p..., j] for each entry j of the tuple.
        SmallVector<Value> coords,
            entry(position.begin(), position.begin() + tupleRank);
        entry.push_back(Value());
        for (size_t j = 0; j < checked->size(); ++j) {
          entry.back() = nested.create<arith::ConstantIndexOp>(loc, j);
          Value index = nested.create<tensor::ExtractOp>(
              loc, lowering.operands[1], entry);
          coords.push_back(
              clampedIndex(nested, loc, index, (*checked)[j].indexed));
        }
        coords.append(position.begin() + tupleRank, position.end());
        return coords;
      });
  return SmallVector<Value>{result};
}

/// range: a linalg.generic without operands whose element i is
/// start + i*delta, in the element type (integers wrap) or, for f16 and
/// bf16, in f32 rounded once to the type, as the interpreter computes it.
FailureOr<SmallVector<Value>> lowerRange(MLIRGen &gen,
                                         const NodeLowering &lowering) {
  const TensorType &type = lowering.resultType();
  DType dtype = type.dtype;
  double start = getFloatAttr(lowering.node, "start", 0);
  double delta = getFloatAttr(lowering.node, "delta", 1);
  bool half = dtype == DType::F16 || dtype == DType::BF16;
  Value result = gen.buildElementwise(
      lowering.loc, type, {}, {},
      [&](OpBuilder &b, Location loc, ValueRange) -> Value {
        Value first = gen.scalar(b, dtype, start, loc);
        Value step = gen.scalar(b, dtype, delta, loc);
        Value i = b.create<linalg::IndexOp>(loc, 0);
        if (!isFloat(dtype)) {
          Value index =
              b.create<arith::IndexCastOp>(loc, first.getType(), i);
          return b.create<arith::AddIOp>(
              loc, first, b.create<arith::MulIOp>(loc, index, step));
        }
        Type compute = half ? b.getF32Type() : first.getType();
        if (half) {
          first = b.create<arith::ExtFOp>(loc, compute, first);
          step = b.create<arith::ExtFOp>(loc, compute, step);
        }
        Value index = b.create<arith::SIToFPOp>(
            loc, compute,
            b.create<arith::IndexCastOp>(loc, b.getI64Type(), i));
        Value value = b.create<arith::AddFOp>(
            loc, first, b.create<arith::MulFOp>(loc, index, step));
        if (half)
          value = b.create<arith::TruncFOp>(loc, gen.elementType(dtype), value);
        return value;
      });
  return SmallVector<Value>{result};
}

} // namespace

void registerIndexingLowerings(LoweringTable &table) {
  table.add(OpKind::Gather, lowerGather);
  table.add(OpKind::Embedding, lowerGather);
  table.add(OpKind::GatherElements, lowerGatherElements);
  table.add(OpKind::Range, lowerRange);
  table.add(OpKind::GatherND, lowerGatherND);
  table.add(OpKind::ScatterElements, lowerScatterElements);
  table.add(OpKind::ScatterND, lowerScatterND);
}

} // namespace txc
