//===- ShapeOps.cpp - Lowering of ops that rearrange tensors --------------===//
#include "../MLIRGen.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

FailureOr<SmallVector<Value>> lowerBroadcast(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  return SmallVector<Value>{result};
}

} // namespace

void registerShapeOpLowerings(LoweringTable &table) {
  table.add(OpKind::Broadcast, lowerBroadcast);
}

} // namespace txc
