//===- Elementwise.cpp - Lowering of elementwise ops ----------------------===//
//
// Every elementwise op is one linalg.generic over the result's iteration
// space; operands are broadcast by their indexing maps (numpy rules), so no
// broadcast is ever materialized.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// Integer division that is defined for every input: truncates toward zero,
/// x / 0 == 0 and INT_MIN / -1 == INT_MIN (docs/ops.md), so the object never
/// traps on data.
Value safeIntDiv(OpBuilder &b, Location at, Value lhs, Value rhs,
                 bool isSigned) {
  Type type = lhs.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value zero = b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, 0));
  Value one = b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, 1));
  Value isZero =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, rhs, zero);
  Value bad = isZero;
  if (isSigned) {
    Value minusOne =
        b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, -1));
    Value minValue = b.create<arith::ConstantOp>(
        at, b.getIntegerAttr(type, llvm::APInt::getSignedMinValue(width)));
    Value overflow = b.create<arith::AndIOp>(
        at, b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, lhs, minValue),
        b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, rhs, minusOne));
    bad = b.create<arith::OrIOp>(at, isZero, overflow);
  }
  // INT_MIN / 1 is INT_MIN, the required result of INT_MIN / -1.
  Value safeRhs = b.create<arith::SelectOp>(at, bad, one, rhs);
  Value quotient =
      isSigned ? b.create<arith::DivSIOp>(at, lhs, safeRhs).getResult()
               : b.create<arith::DivUIOp>(at, lhs, safeRhs).getResult();
  return b.create<arith::SelectOp>(at, isZero, zero, quotient);
}

FailureOr<SmallVector<Value>> lowerBinary(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  DType dtype = lowering.resultType().dtype;
  bool floating = isFloat(dtype);
  OpKind kind = lowering.node.kind;
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        Value x = args[0], y = args[1];
        switch (kind) {
        case OpKind::Add:
          return floating ? b.create<arith::AddFOp>(at, x, y).getResult()
                          : b.create<arith::AddIOp>(at, x, y).getResult();
        case OpKind::Sub:
          return floating ? b.create<arith::SubFOp>(at, x, y).getResult()
                          : b.create<arith::SubIOp>(at, x, y).getResult();
        case OpKind::Mul:
          return floating ? b.create<arith::MulFOp>(at, x, y).getResult()
                          : b.create<arith::MulIOp>(at, x, y).getResult();
        case OpKind::Div:
          return floating ? b.create<arith::DivFOp>(at, x, y).getResult()
                          : safeIntDiv(b, at, x, y, isSigned(dtype));
        default:
          llvm_unreachable("not a binary op");
        }
      });
  return SmallVector<Value>{result};
}

FailureOr<SmallVector<Value>> lowerRelu(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  DType dtype = lowering.resultType().dtype;
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        Value x = args[0];
        if (dtype == DType::U8)
          return x;
        Value zero = b.create<arith::ConstantOp>(at, b.getZeroAttr(x.getType()));
        // maximumf propagates NaN, as relu does in PyTorch.
        return isFloat(dtype)
                   ? b.create<arith::MaximumFOp>(at, x, zero).getResult()
                   : b.create<arith::MaxSIOp>(at, x, zero).getResult();
      });
  return SmallVector<Value>{result};
}

} // namespace

void registerElementwiseLowerings(LoweringTable &table) {
  for (OpKind kind : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div})
    table.add(kind, lowerBinary);
  table.add(OpKind::Relu, lowerRelu);
}

} // namespace txc
