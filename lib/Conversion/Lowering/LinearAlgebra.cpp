//===- LinearAlgebra.cpp - Lowering of matmul and friends -----------------===//
#include "../MLIRGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

FailureOr<SmallVector<Value>> lowerMatMul(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  const TensorType &resultType = lowering.resultType();
  Value init = gen.emptyTensor(resultType, lowering.loc);
  Value zero = gen.scalar(resultType.dtype, 0, lowering.loc);
  Value filled =
      b.create<linalg::FillOp>(lowering.loc, zero, init).getResult(0);
  Value result = b.create<linalg::MatmulOp>(
                      lowering.loc, TypeRange{gen.tensorType(resultType)},
                      ValueRange{lowering.operands[0], lowering.operands[1]},
                      ValueRange{filled})
                     .getResult(0);
  return SmallVector<Value>{result};
}

} // namespace

void registerLinearAlgebraLowerings(LoweringTable &table) {
  table.add(OpKind::MatMul, lowerMatMul);
}

} // namespace txc
