//===- Indexing.cpp - Lowering of gather and embedding --------------------===//
//
// An index outside [0, dim) must fail the call with TXC_E_INDEX_OUT_OF_RANGE
// and must never be read through. Each gather therefore first reduces its
// indices to "the first one out of range, if any" and branches (scf.if):
//
//   * all in range: a linalg.generic over the result reads data with
//     tensor.extract at the index;
//   * otherwise: the node's IndexInRange guard and the offending index are
//     stored in the kernel's status buffer (unless an earlier guard already
//     failed), and the result is zeros so that later ops read defined data.
//
// The ABI wrapper reads the status buffer after the kernel returns
// (lib/Target/AbiEmitter.cpp). Negative indices are out of range: txc does
// not wrap them Python-style.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"
#include "txc/Analysis/ShapeOpAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// The indexed dim as an i64 value.
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

/// Reduces `indices` (i32 or i64, any rank) to (any index outside [0, dim),
/// the first such index in row-major order as i64).
std::pair<Value, Value> firstOutOfRange(MLIRGen &gen, Location at,
                                        Value indices, unsigned rank,
                                        Value dim) {
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
        Value index = args[0], found = args[1], bad = args[2];
        if (index.getType() != nested.getI64Type())
          index = nested.create<arith::ExtSIOp>(loc, nested.getI64Type(),
                                                index);
        Value zero = nested.create<arith::ConstantIntOp>(loc, 0, 64);
        Value outside = nested.create<arith::OrIOp>(
            loc,
            nested.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                         index, zero),
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

/// Stores (guard, actual) in the status buffer unless a guard failed before.
void recordFailure(OpBuilder &b, Location at, Value status, uint32_t guard,
                   Value actual) {
  Value c0 = b.create<arith::ConstantIndexOp>(at, 0);
  Value c1 = b.create<arith::ConstantIndexOp>(at, 1);
  Value current = b.create<memref::LoadOp>(at, status, ValueRange{c0});
  Value none = b.create<arith::ConstantIntOp>(at, -1, 64);
  Value first =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, current, none);
  b.create<scf::IfOp>(at, first, [&](OpBuilder &then, Location loc) {
    Value id = then.create<arith::ConstantIntOp>(loc, int64_t(guard), 64);
    then.create<memref::StoreOp>(loc, id, status, ValueRange{c0});
    then.create<memref::StoreOp>(loc, actual, status, ValueRange{c1});
    then.create<scf::YieldOp>(loc);
  });
}

/// result[pre..., idx..., post...] = data[pre..., indices[idx...], post...].
/// Only reached when every index is in range.
Value gatherInRange(MLIRGen &gen, Location at, Value data, unsigned dataRank,
                    Value indices, unsigned indicesRank, unsigned axis,
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
  auto generic = b.create<linalg::GenericOp>(
      at, TypeRange{gen.tensorType(resultType)}, ValueRange{indices},
      ValueRange{gen.emptyTensor(resultType, at)}, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> coords;
        for (unsigned d = 0; d < axis; ++d)
          coords.push_back(nested.create<linalg::IndexOp>(loc, d));
        coords.push_back(nested.create<arith::IndexCastOp>(
            loc, nested.getIndexType(), args[0]));
        for (unsigned d = axis + 1; d < dataRank; ++d)
          coords.push_back(
              nested.create<linalg::IndexOp>(loc, d - 1 + indicesRank));
        Value element = nested.create<tensor::ExtractOp>(loc, data, coords);
        nested.create<linalg::YieldOp>(loc, element);
      });
  return generic.getResult(0);
}

/// The IndexInRange guard the contract made for `node`.
std::optional<uint32_t> indexGuardOf(const Contract &contract,
                                     const Node &node) {
  for (const Guard &g : contract.guards)
    if (g.kind == GuardKind::IndexInRange && g.node == node.name)
      return g.id;
  return std::nullopt;
}

/// gather and embedding (gather along axis 0 of a [V,D] weight).
FailureOr<SmallVector<Value>> lowerGather(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  InferenceContext ctx(gen.program(), lowering.node,
                       std::vector<TensorType>(lowering.operandTypes.begin(),
                                               lowering.operandTypes.end()));
  unsigned axis = *resolveGatherAxis(ctx);
  std::optional<uint32_t> guard =
      indexGuardOf(gen.getContract(), lowering.node);
  Value status = gen.statusBuffer();
  if (!guard || !status)
    return emitError(lowering.loc)
           << "internal error: no index guard for '" << lowering.node.name
           << "'";
  const TensorType &dataType = lowering.operandTypes[0];
  const TensorType &indicesType = lowering.operandTypes[1];
  const TensorType &resultType = lowering.resultType();
  Location at = lowering.loc;
  OpBuilder &b = gen.builder();

  Value dim = dimAsI64(gen, dataType.shape[axis], at);
  auto [found, bad] = firstOutOfRange(gen, at, lowering.operands[1],
                                      indicesType.rank(), dim);
  auto branch = b.create<scf::IfOp>(at, TypeRange{gen.tensorType(resultType)},
                                    found, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard restore(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  recordFailure(b, at, status, *guard, bad);
  Value zero = gen.scalar(resultType.dtype, 0, at);
  Value zeros = b.create<linalg::FillOp>(at, zero,
                                         gen.emptyTensor(resultType, at))
                    .getResult(0);
  b.create<scf::YieldOp>(at, zeros);
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  Value gathered =
      gatherInRange(gen, at, lowering.operands[0], dataType.rank(),
                    lowering.operands[1], indicesType.rank(), axis, resultType);
  b.create<scf::YieldOp>(at, gathered);
  return SmallVector<Value>{branch.getResult(0)};
}

} // namespace

void registerIndexingLowerings(LoweringTable &table) {
  table.add(OpKind::Gather, lowerGather);
  table.add(OpKind::Embedding, lowerGather);
}

} // namespace txc
