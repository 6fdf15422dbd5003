//===- Elementwise.cpp - Shape rules of elementwise ops -------------------===//
#include "txc/Analysis/ShapeInference.h"

using namespace txc;

namespace {

bool isArithmetic(DType type) { return type != DType::Bool; }

/// Binary ops with explicit numpy-style broadcasting of the two operands.
std::vector<TensorType> inferBroadcastBinary(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0], &b = ctx.operands[1];
  if (!ctx.requireSameDType(0, 1) ||
      !ctx.requireDType(0, isArithmetic, "a numeric dtype"))
    return {};
  size_t badDim = 0;
  auto shape = broadcastShapes(a.shape, b.shape, badDim);
  if (!shape) {
    size_t rank = std::max(a.rank(), b.rank());
    const ShapeExpr &x = a.shape[badDim + a.rank() - rank];
    const ShapeExpr &y = b.shape[badDim + b.rank() - rank];
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "shapes " + ctx.str(a.shape) + " and " + ctx.str(b.shape) +
                 " of '" + ctx.opName() + "' node '" + ctx.node.name +
                 "' do not broadcast: dimension " + ctx.str(x) + " vs " +
                 ctx.str(y) + " (aligned from the right)",
             ctx.explainDimMismatch(x, y));
    return {};
  }
  return {TensorType{a.dtype, std::move(*shape)}};
}

std::vector<TensorType> inferUnary(InferenceContext &ctx) {
  if (!ctx.requireDType(0, isArithmetic, "a numeric dtype"))
    return {};
  return {ctx.operands[0]};
}

} // namespace

void txc::registerElementwiseShapeRules(ShapeRuleTable &table) {
  for (OpKind kind : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div})
    table.add(kind, inferBroadcastBinary);
  table.add(OpKind::Relu, inferUnary);
}
