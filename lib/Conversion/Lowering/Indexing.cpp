//===- Indexing.cpp - Lowering of the indexing ops ------------------------===//
//
// An index outside the valid range ([0, dim), or [-dim, dim) for a gather
// with wrap_negative and for gather_elements, which read index -k as dim-k)
// must fail the call with TXC_E_INDEX_OUT_OF_RANGE and must never be read
// through. Each gather, embedding and gather_elements therefore
//
//   1. reduces its indices to "is one out of range, and the first such";
//   2. if one is, stores the node's IndexInRange guard and that index in the
//      kernel's status buffer, unless an earlier guard already failed (an
//      scf.if without results, so that no tensor flows through a branch);
//   3. reads data with every index (wrapped, then) clamped into [0, dim-1],
//      so that the reads are in bounds whatever the indices; a dim that can
//      be 0 has nothing to read, and its reads are also guarded by dim > 0.
//
// The clamped values only matter when the call fails, and then the outputs
// are unspecified. The ABI wrapper reads the status buffer after the kernel
// returns (lib/Target/AbiEmitter.cpp).
//
// range makes indices rather than reading with them: a linalg.generic over
// linalg.index, which needs no guard.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// result[pre..., idx..., post...] = data[pre..., indices[idx...], post...]
/// with each index (wrapped and) clamped into [0, dim-1]. When the dim can
/// be 0, reads are also guarded by dim > 0 (the result is then zeros, and
/// some index out of range has failed the call).
Value gatherClamped(MLIRGen &gen, Location at, Value data, unsigned dataRank,
                    Value indices, unsigned indicesRank, unsigned axis,
                    Value dim, bool wrap, bool dimMayBeZero,
                    const TensorType &resultType) {
  OpBuilder &b = gen.builder();
  unsigned rank = resultType.rank();
  SmallVector<AffineExpr> indexDims;
  for (unsigned d = 0; d < indicesRank; ++d)
    indexDims.push_back(b.getAffineDimExpr(axis + d));
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, indexDims, b.getContext()),
      b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  IndexedDim indexed{dim,
                     b.create<arith::SubIOp>(
                         at, dim, b.create<arith::ConstantIntOp>(at, 1, 64)),
                     wrap};
  Value zero, nonEmpty;
  if (dimMayBeZero) {
    zero = gen.scalar(resultType.dtype, 0, at);
    nonEmpty = b.create<arith::CmpIOp>(
        at, arith::CmpIPredicate::sgt, dim,
        b.create<arith::ConstantIntOp>(at, 0, 64));
  }
  auto generic = b.create<linalg::GenericOp>(
      at, TypeRange{gen.tensorType(resultType)}, ValueRange{indices},
      ValueRange{gen.emptyTensor(resultType, at)}, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> coords;
        for (unsigned d = 0; d < axis; ++d)
          coords.push_back(nested.create<linalg::IndexOp>(loc, d));
        coords.push_back(clampedIndex(nested, loc, args[0], indexed));
        for (unsigned d = axis + 1; d < dataRank; ++d)
          coords.push_back(
              nested.create<linalg::IndexOp>(loc, d - 1 + indicesRank));
        nested.create<linalg::YieldOp>(
            loc, readGuarded(nested, loc, data, coords, nonEmpty, zero));
      });
  return generic.getResult(0);
}

/// The IndexInRange guard the contract made for `node`: its id, and the
/// valid range the kernel checks.
const Guard *indexGuardOf(const Contract &contract, const Node &node) {
  for (const Guard &g : contract.guards)
    if (g.kind == GuardKind::IndexInRange && g.node == node.name)
      return &g;
  return nullptr;
}

/// The indexed axis of an indexing node, its dim, and whether that can be 0.
struct CheckedIndices {
  unsigned axis;
  Value dim;
  bool wrap, dimMayBeZero;
};

/// Steps 1 and 2 for the indices (operand 1) of `lowering`'s node: checks
/// them against its IndexInRange guard and records a failure.
FailureOr<CheckedIndices> checkIndices(MLIRGen &gen,
                                       const NodeLowering &lowering) {
  InferenceContext ctx(gen.program(), lowering.node,
                       std::vector<TensorType>(lowering.operandTypes.begin(),
                                               lowering.operandTypes.end()));
  unsigned axis = *resolveGatherAxis(ctx);
  const Guard *guard = indexGuardOf(gen.getContract(), lowering.node);
  Value status = gen.statusBuffer();
  if (!guard || !status)
    return emitError(lowering.loc)
           << "internal error: no index guard for '" << lowering.node.name
           << "'";
  Location at = lowering.loc;
  const ShapeExpr &indexedDim = lowering.operandTypes[0].shape[axis];
  Value dim = dimAsI64(gen, indexedDim, at);
  Value lowest = dimAsI64(gen, lowestValidIndex(*guard), at);
  auto [found, bad] =
      firstOutOfRange(gen, at, lowering.operands[1],
                      lowering.operandTypes[1].rank(), lowest, dim);
  recordFailure(gen.builder(), at, status, found, guard->id, bad);
  bool dimMayBeZero =
      indexedDim.bounds(gen.program().symbolRanges()).min <= 0;
  return CheckedIndices{axis, dim, guard->wrapsNegative, dimMayBeZero};
}

/// gather and embedding (gather along axis 0 of a [V,D] weight).
FailureOr<SmallVector<Value>> lowerGather(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  FailureOr<CheckedIndices> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  Value result = gatherClamped(
      gen, lowering.loc, lowering.operands[0],
      lowering.operandTypes[0].rank(), lowering.operands[1],
      lowering.operandTypes[1].rank(), checked->axis, checked->dim,
      checked->wrap, checked->dimMayBeZero, lowering.resultType());
  return SmallVector<Value>{result};
}

/// gather_elements: a linalg.generic over the indices (the result's shape),
/// each element reading data at its own coordinates with the axis' one
/// replaced by its (wrapped and clamped) index.
FailureOr<SmallVector<Value>> lowerGatherElements(MLIRGen &gen,
                                                  const NodeLowering &lowering) {
  FailureOr<CheckedIndices> checked = checkIndices(gen, lowering);
  if (failed(checked))
    return failure();
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const TensorType &resultType = lowering.resultType();
  unsigned rank = resultType.rank();
  Value data = lowering.operands[0];
  IndexedDim indexed{checked->dim,
                     b.create<arith::SubIOp>(
                         at, checked->dim,
                         b.create<arith::ConstantIntOp>(at, 1, 64)),
                     checked->wrap};
  Value zero, nonEmpty;
  if (checked->dimMayBeZero) {
    zero = gen.scalar(resultType.dtype, 0, at);
    nonEmpty = b.create<arith::CmpIOp>(
        at, arith::CmpIPredicate::sgt, checked->dim,
        b.create<arith::ConstantIntOp>(at, 0, 64));
  }
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      at, TypeRange{gen.tensorType(resultType)},
      ValueRange{lowering.operands[1]},
      ValueRange{gen.emptyTensor(resultType, at)}, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> coords;
        for (unsigned d = 0; d < rank; ++d)
          coords.push_back(d == checked->axis
                               ? clampedIndex(nested, loc, args[0], indexed)
                               : nested.create<linalg::IndexOp>(loc, d));
        nested.create<linalg::YieldOp>(
            loc, readGuarded(nested, loc, data, coords, nonEmpty, zero));
      });
  return SmallVector<Value>{generic.getResult(0)};
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
}

} // namespace txc
