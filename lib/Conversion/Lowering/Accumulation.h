//===- Accumulation.h - Scalar helpers of contractions and reductions -----===//
//
// Internal to the linear algebra and reduction lowerings. Sums and products
// of f16/bf16 accumulate in f32 and are rounded once at the end (docs/ops.md);
// integers accumulate in their own dtype and wrap.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_CONVERSION_LOWERING_ACCUMULATION_H
#define TXC_LIB_CONVERSION_LOWERING_ACCUMULATION_H

#include "../MLIRGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace txc {

/// The dtype sums and products of `dtype` are accumulated in.
inline DType accumulatorDType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 ? DType::F32 : dtype;
}

/// Converts a float scalar to the float type `to` (exact when widening,
/// rounding to nearest when narrowing); other values pass unchanged.
inline mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location at,
                                mlir::Value value, mlir::Type to) {
  auto from = mlir::dyn_cast<mlir::FloatType>(value.getType());
  auto target = mlir::dyn_cast<mlir::FloatType>(to);
  if (!from || !target || from == target)
    return value;
  if (from.getWidth() < target.getWidth())
    return b.create<mlir::arith::ExtFOp>(at, to, value);
  return b.create<mlir::arith::TruncFOp>(at, to, value);
}

inline bool isFloatValue(mlir::Value value) {
  return mlir::isa<mlir::FloatType>(value.getType());
}

/// x + y; integers wrap.
inline mlir::Value addValues(mlir::OpBuilder &b, mlir::Location at,
                             mlir::Value x, mlir::Value y) {
  if (isFloatValue(x))
    return b.create<mlir::arith::AddFOp>(at, x, y);
  return b.create<mlir::arith::AddIOp>(at, x, y);
}

/// x * y; integers wrap.
inline mlir::Value mulValues(mlir::OpBuilder &b, mlir::Location at,
                             mlir::Value x, mlir::Value y) {
  if (isFloatValue(x))
    return b.create<mlir::arith::MulFOp>(at, x, y);
  return b.create<mlir::arith::MulIOp>(at, x, y);
}

} // namespace txc

#endif
