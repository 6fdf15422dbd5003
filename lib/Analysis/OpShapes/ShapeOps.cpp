//===- ShapeOps.cpp - Shape rules of ops that rearrange tensors -----------===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Program/Attributes.h"

using namespace txc;

namespace {

/// broadcast: numpy broadcast_to of the operand to the `shape` attribute.
std::vector<TensorType> inferBroadcast(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0];
  const NodeAttr *attr = ctx.node.findAttribute("shape");
  std::string error;
  Loc errorLoc;
  auto target = readShapeAttribute(ctx.program, attr->value, error, errorLoc);
  if (!target) {
    ctx.fail(errorLoc, "bad-attribute", error);
    return {};
  }
  if (target->size() < a.rank()) {
    ctx.fail(attr->loc, "shape-mismatch",
             "'" + ctx.opName() + "' node '" + ctx.node.name +
                 "' cannot broadcast " + ctx.str(a.shape) +
                 " to the lower rank " + ctx.str(*target));
    return {};
  }
  size_t offset = target->size() - a.rank();
  for (size_t i = 0; i < a.rank(); ++i) {
    const ShapeExpr &from = a.shape[i], &to = (*target)[offset + i];
    if (from != to && from.getConstant() != 1) {
      ctx.fail(attr->loc, "shape-mismatch",
               "'" + ctx.opName() + "' node '" + ctx.node.name +
                   "' cannot broadcast " + ctx.str(a.shape) + " to " +
                   ctx.str(*target) + ": dimension " + ctx.str(from) +
                   " is neither 1 nor " + ctx.str(to),
               ctx.explainDimMismatch(from, to));
      return {};
    }
  }
  return {TensorType{a.dtype, std::move(*target)}};
}

} // namespace

void txc::registerShapeOpShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::Broadcast, inferBroadcast);
}
