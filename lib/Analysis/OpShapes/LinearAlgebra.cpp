//===- LinearAlgebra.cpp - Shape rules of matmul, linear and gemm ---------===//
//
// matmul follows torch.matmul (numpy matmul with PyTorch's 1-D rules),
// linear follows torch.nn.functional.linear and gemm follows ONNX Gemm; see
// docs/ops.md, "Linear algebra".
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Program/Attributes.h"

#include <cmath>
#include <cstdio>

using namespace txc;

namespace {

bool isArithmetic(DType type) { return type != DType::Bool; }

/// Every operand has operand 0's dtype, which is numeric.
bool requireNumericOperands(InferenceContext &ctx) {
  for (size_t i = 1; i < ctx.operands.size(); ++i)
    if (!ctx.requireSameDType(0, i))
      return false;
  return ctx.requireDType(0, isArithmetic, "a numeric dtype");
}

/// Operand `i` has rank `min` or more.
bool requireMinRank(InferenceContext &ctx, size_t i, unsigned min) {
  const TensorType &type = ctx.operands[i];
  if (type.rank() >= min)
    return true;
  ctx.fail(ctx.operandLoc(i), "rank-mismatch",
           "operand " + std::to_string(i) + " of '" + ctx.opName() +
               "' node '" + ctx.node.name + "' has rank " +
               std::to_string(type.rank()) + " (shape " + ctx.str(type.shape) +
               "); expected rank " + std::to_string(min) + " or more");
  return false;
}

/// Reports that the contracted dims `x` (of operand 0) and `y` (of operand
/// 1) differ; `which` names them.
void failInnerDims(InferenceContext &ctx, const ShapeExpr &x,
                   const ShapeExpr &y, llvm::StringRef which) {
  ctx.fail(ctx.node.loc, "shape-mismatch",
           "shapes " + ctx.str(ctx.operands[0].shape) + " and " +
               ctx.str(ctx.operands[1].shape) + " of '" + ctx.opName() +
               "' node '" + ctx.node.name + "' do not match: " + which.str() +
               " " + ctx.str(x) + " and " + ctx.str(y) + " differ",
           ctx.explainDimMismatch(x, y));
}

Shape leadingDims(const Shape &shape, size_t drop) {
  return Shape(shape.begin(), shape.end() - std::min(drop, shape.size()));
}

/// matmul: like torch.matmul. A 1-D operand is a vector: as the left operand
/// it acts as a row [1,K], as the right one as a column [K,1], and that dim
/// is removed from the result. Operands of rank 2 or more are stacks of
/// matrices whose batch (leading) dims broadcast like elementwise operands.
std::vector<TensorType> inferMatMul(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0], &b = ctx.operands[1];
  if (!requireNumericOperands(ctx) || !requireMinRank(ctx, 0, 1) ||
      !requireMinRank(ctx, 1, 1))
    return {};
  const ShapeExpr &ka = a.shape.back();
  const ShapeExpr &kb = b.rank() == 1 ? b.shape[0] : b.shape[b.rank() - 2];
  if (ka != kb) {
    failInnerDims(ctx, ka, kb, "the inner dimensions");
    return {};
  }
  Shape batchA = leadingDims(a.shape, 2), batchB = leadingDims(b.shape, 2);
  if (a.rank() == 1)
    batchA.clear();
  if (b.rank() == 1)
    batchB.clear();
  size_t badDim = 0;
  auto batch = broadcastShapes(batchA, batchB, badDim);
  if (!batch) {
    size_t rank = std::max(batchA.size(), batchB.size());
    const ShapeExpr &x = batchA[badDim + batchA.size() - rank];
    const ShapeExpr &y = batchB[badDim + batchB.size() - rank];
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "batch dimensions " + ctx.str(batchA) + " and " + ctx.str(batchB) +
                 " of 'matmul' node '" + ctx.node.name + "' (shapes " +
                 ctx.str(a.shape) + " and " + ctx.str(b.shape) +
                 ") do not broadcast: dimension " + ctx.str(x) + " vs " +
                 ctx.str(y) + " (aligned from the right)",
             ctx.explainDimMismatch(x, y));
    return {};
  }
  Shape result = std::move(*batch);
  if (a.rank() >= 2)
    result.push_back(a.shape[a.rank() - 2]);
  if (b.rank() >= 2)
    result.push_back(b.shape.back());
  return {TensorType{a.dtype, std::move(result)}};
}

/// Operand `i` has exactly the shape `expected`.
bool requireShape(InferenceContext &ctx, size_t i, const Shape &expected,
                  llvm::StringRef what) {
  const Shape &shape = ctx.operands[i].shape;
  if (shape == expected)
    return true;
  std::vector<std::string> notes;
  if (shape.size() == expected.size())
    for (size_t d = 0; d < shape.size() && notes.empty(); ++d)
      if (shape[d] != expected[d])
        notes = ctx.explainDimMismatch(shape[d], expected[d]);
  ctx.fail(ctx.operandLoc(i), "shape-mismatch",
           "the " + what.str() + " of '" + ctx.opName() + "' node '" +
               ctx.node.name + "' has shape " + ctx.str(shape) + "; expected " +
               ctx.str(expected),
           std::move(notes));
  return false;
}

/// linear(x [..., K], weight [N, K], bias [N]) = x·weightᵀ + bias, with shape
/// [..., N], like torch.nn.functional.linear.
std::vector<TensorType> inferLinear(InferenceContext &ctx) {
  if (!requireNumericOperands(ctx) || !requireMinRank(ctx, 0, 1) ||
      !ctx.requireRank(1, 2))
    return {};
  const TensorType &x = ctx.operands[0], &weight = ctx.operands[1];
  if (x.shape.back() != weight.shape[1]) {
    failInnerDims(ctx, x.shape.back(), weight.shape[1],
                  "the contracted dimensions (x[-1] and weight[1])");
    return {};
  }
  if (ctx.operands.size() == 3 &&
      !requireShape(ctx, 2, {weight.shape[0]}, "bias (operand 2)"))
    return {};
  Shape result = leadingDims(x.shape, 1);
  result.push_back(weight.shape[0]);
  return {TensorType{x.dtype, std::move(result)}};
}

/// On integer dtypes alpha and beta are converted to the dtype, so they
/// must be integers.
bool requireIntegralScale(InferenceContext &ctx, llvm::StringRef name) {
  double value = getFloatAttr(ctx.node, name, 1.0);
  if (isFloat(ctx.operands[0].dtype) ||
      (std::trunc(value) == value && std::fabs(value) <= 9.0e15))
    return true;
  ctx.fail(ctx.attrLoc(name), "bad-attribute",
           "attribute '" + name.str() + "' of 'gemm' node '" + ctx.node.name +
               "' is " + formatNumber(value) +
               ", but the operands have the integer dtype " +
               dtypeName(ctx.operands[0].dtype).str() +
               "; an integer gemm needs integer 'alpha' and 'beta'");
  return false;
}

/// gemm(a, b, c) = alpha·a'·b' + beta·c, like ONNX Gemm: a' is a or aᵀ
/// (trans_a), b' is b or bᵀ (trans_b), and c broadcasts to [M, N]
/// (unidirectionally: the result shape is always [M, N]).
std::vector<TensorType> inferGemm(InferenceContext &ctx) {
  if (!requireNumericOperands(ctx) || !ctx.requireRank(0, 2) ||
      !ctx.requireRank(1, 2) || !requireIntegralScale(ctx, "alpha") ||
      !requireIntegralScale(ctx, "beta"))
    return {};
  bool transA = getBoolAttr(ctx.node, "trans_a", false);
  bool transB = getBoolAttr(ctx.node, "trans_b", false);
  const Shape &a = ctx.operands[0].shape, &b = ctx.operands[1].shape;
  const ShapeExpr &m = a[transA ? 1 : 0], &ka = a[transA ? 0 : 1];
  const ShapeExpr &kb = b[transB ? 1 : 0], &n = b[transB ? 0 : 1];
  if (ka != kb) {
    failInnerDims(ctx, ka, kb,
                  std::string("the contracted dimensions (") +
                      (transA ? "a[0]" : "a[1]") + " and " +
                      (transB ? "b[1]" : "b[0]") + ")");
    return {};
  }
  Shape result = {m, n};
  if (ctx.operands.size() == 3) {
    const Shape &c = ctx.operands[2].shape;
    size_t badDim = 0;
    auto shape = broadcastShapes(c, result, badDim);
    if (!shape || *shape != result) {
      ctx.fail(ctx.operandLoc(2), "shape-mismatch",
               "operand 2 (c) of 'gemm' node '" + ctx.node.name +
                   "' has shape " + ctx.str(c) +
                   ", which does not broadcast to the result shape " +
                   ctx.str(result));
      return {};
    }
  }
  return {TensorType{ctx.operands[0].dtype, std::move(result)}};
}

} // namespace

void txc::registerLinearAlgebraShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::MatMul, inferMatMul);
  table.add(OpKind::Linear, inferLinear);
  table.add(OpKind::Gemm, inferGemm);
}
