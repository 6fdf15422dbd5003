//===- LinearAlgebra.cpp - Shape rules of matmul and friends --------------===//
#include "txc/Analysis/ShapeInference.h"

using namespace txc;

namespace {

bool isArithmetic(DType type) { return type != DType::Bool; }

std::vector<TensorType> inferMatMul(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0], &b = ctx.operands[1];
  if (!ctx.requireSameDType(0, 1) ||
      !ctx.requireDType(0, isArithmetic, "a numeric dtype") ||
      !ctx.requireRank(0, 2) || !ctx.requireRank(1, 2))
    return {};
  if (a.shape[1] != b.shape[0]) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "shapes " + ctx.str(a.shape) + " and " + ctx.str(b.shape) +
                 " of 'matmul' node '" + ctx.node.name +
                 "' do not match: the inner dimensions " +
                 ctx.str(a.shape[1]) + " and " + ctx.str(b.shape[0]) +
                 " differ",
             ctx.explainDimMismatch(a.shape[1], b.shape[0]));
    return {};
  }
  return {TensorType{a.dtype, {a.shape[0], b.shape[1]}}};
}

} // namespace

void txc::registerLinearAlgebraShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::MatMul, inferMatMul);
}
