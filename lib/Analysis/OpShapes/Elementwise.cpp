//===- Elementwise.cpp - Shape rules of elementwise ops -------------------===//
//
// Elementwise ops keep their operands' dtype (comparisons give bool, cast
// gives its `dtype` attribute) and broadcast their operands numpy-style.
// txc never promotes dtypes: operands must already agree, and every
// rejection says which 'cast' would make the program valid. The semantics
// are in docs/ops.md, "Elementwise ops".
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Program/Attributes.h"

#include <cmath>
#include <cstdio>

using namespace txc;

namespace {

/// What the diagnostic says the op needs, and how to get there.
std::pair<std::string, std::string> describe(DTypeClass accepted, DType got) {
  switch (accepted) {
  case DTypeClass::Numeric:
    return {"a numeric dtype (an integer or float dtype)",
            "insert a 'cast' to the numeric dtype you want"};
  case DTypeClass::Float:
    return {"a float dtype (f32, f64, f16 or bf16)",
            std::string("txc does not promote dtypes, insert a 'cast' to ") +
                (got == DType::F64 ? "f64" : "f32")};
  case DTypeClass::IntegerOrBool:
    return {"a bool or integer dtype",
            "compare with 'ne' against 0 to get a bool"};
  case DTypeClass::Unsigned:
    return {"an unsigned dtype (u8, u16, u32 or u64)",
            "insert a 'cast' to the unsigned dtype of the same width"};
  case DTypeClass::Any:
    break;
  }
  return {"", ""};
}

/// Operand `operand` has a dtype the op's declaration accepts.
bool requireAccepted(InferenceContext &ctx, size_t operand) {
  DTypeClass accepted = getOpInfo(ctx.node.kind).dtypes;
  DType type = ctx.operands[operand].dtype;
  if (acceptsDType(accepted, type))
    return true;
  auto [what, hint] = describe(accepted, type);
  ctx.fail(ctx.operandLoc(operand), "bad-dtype",
           "'" + ctx.opName() + "' node '" + ctx.node.name + "' needs " + what +
               " for operand " + std::to_string(operand) + ", not " +
               dtypeName(type).str() + "; " + hint);
  return false;
}

/// numpy-style broadcast of the shapes of `operands`; records a problem
/// naming every shape and the first pair of dims that do not match.
std::optional<Shape> broadcastOperands(InferenceContext &ctx,
                                       llvm::ArrayRef<size_t> operands) {
  Shape result = ctx.operands[operands[0]].shape;
  for (size_t i : operands.drop_front()) {
    const Shape &next = ctx.operands[i].shape;
    size_t badDim = 0;
    if (auto shape = broadcastShapes(result, next, badDim)) {
      result = std::move(*shape);
      continue;
    }
    size_t rank = std::max(result.size(), next.size());
    const ShapeExpr &x = result[badDim + result.size() - rank];
    const ShapeExpr &y = next[badDim + next.size() - rank];
    std::string shapes;
    for (size_t k = 0; k < operands.size(); ++k)
      shapes += (k == 0                     ? ""
                 : k + 1 == operands.size() ? " and "
                                            : ", ") +
                ctx.str(ctx.operands[operands[k]].shape);
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "shapes " + shapes + " of '" + ctx.opName() + "' node '" +
                 ctx.node.name + "' do not broadcast: dimension " + ctx.str(x) +
                 " vs " + ctx.str(y) + " (aligned from the right)",
             ctx.explainDimMismatch(x, y));
    return std::nullopt;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// clamp: at least one bound; an integer tensor needs integral bounds (a
/// bound outside the dtype's range saturates, docs/ops.md).
bool checkClamp(InferenceContext &ctx) {
  bool hasMin = hasAttr(ctx.node, "min"), hasMax = hasAttr(ctx.node, "max");
  if (!hasMin && !hasMax) {
    ctx.fail(ctx.node.loc, "missing-attribute",
             "'clamp' node '" + ctx.node.name +
                 "' needs the attribute 'min', 'max' or both");
    return false;
  }
  DType type = ctx.operands[0].dtype;
  if (isFloat(type))
    return true;
  bool ok = true;
  for (llvm::StringRef bound : {"min", "max"}) {
    if (!hasAttr(ctx.node, bound))
      continue;
    double value = getFloatAttr(ctx.node, bound, 0);
    if (std::trunc(value) == value)
      continue;
    ctx.fail(ctx.attrLoc(bound), "bad-attribute",
             "attribute '" + bound.str() + "' of 'clamp' node '" +
                 ctx.node.name + "' is " + formatNumber(value) +
                 ", but operand 0 has the integer dtype " +
                 dtypeName(type).str() +
                 "; the bounds of an integer clamp must be integers");
    ok = false;
  }
  return ok;
}

bool noAttributeCheck(InferenceContext &) { return true; }

bool checkGelu(InferenceContext &ctx) {
  std::string mode = getStringAttr(ctx.node, "approximate", "none");
  if (mode == "none" || mode == "tanh")
    return true;
  ctx.fail(ctx.attrLoc("approximate"), "bad-attribute",
           "attribute 'approximate' of 'gelu' node '" + ctx.node.name +
               "' must be \"none\" or \"tanh\", not \"" + mode + "\"");
  return false;
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

/// A TXC_UNARY op: an operand of the dtypes it accepts, attributes that
/// pass its check, and the operand's type.
template <bool (*Check)(InferenceContext &)>
std::vector<TensorType> inferUnary(InferenceContext &ctx) {
  if (!requireAccepted(ctx, 0) || !Check(ctx))
    return {};
  return {ctx.operands[0]};
}

std::vector<TensorType> inferCast(InferenceContext &ctx) {
  // The verifier checked that the required attribute names a dtype.
  std::optional<DType> to = getDTypeAttr(ctx.node, "dtype");
  return {TensorType{*to, ctx.operands[0].shape}};
}

/// A TXC_BINARY op: explicit numpy-style broadcasting of the two operands;
/// comparisons give a bool tensor.
std::vector<TensorType> inferBinary(InferenceContext &ctx) {
  if (!ctx.requireSameDType(0, 1) || !requireAccepted(ctx, 0))
    return {};
  auto shape = broadcastOperands(ctx, {0, 1});
  if (!shape)
    return {};
  bool comparison =
      getOpInfo(ctx.node.kind).domain == ElementwiseDomain::Comparison;
  return {TensorType{comparison ? DType::Bool : ctx.operands[0].dtype,
                     std::move(*shape)}};
}

/// select(condition, a, b): all three broadcast together.
std::vector<TensorType> inferSelect(InferenceContext &ctx) {
  if (ctx.operands[0].dtype != DType::Bool) {
    ctx.fail(ctx.operandLoc(0), "bad-dtype",
             "the condition (operand 0) of 'select' node '" + ctx.node.name +
                 "' must be bool, not " +
                 dtypeName(ctx.operands[0].dtype).str() +
                 "; compare with 'ne' against 0 to get a bool");
    return {};
  }
  if (!ctx.requireSameDType(1, 2))
    return {};
  auto shape = broadcastOperands(ctx, {0, 1, 2});
  if (!shape)
    return {};
  return {TensorType{ctx.operands[1].dtype, std::move(*shape)}};
}

} // namespace

void txc::registerElementwiseShapeRules(ShapeRuleTable &table) {
#define TXC_UNARY(Enum, Name, Dtypes, Numerics, Domain, Check, Emitter,        \
                  Kernel)                                                      \
  table.add(OpKind::Enum, inferUnary<Check>);
#define TXC_BINARY(Enum, Name, Dtypes, Numerics, Domain, Emitter, Kernel)      \
  table.add(OpKind::Enum, inferBinary);
#include "txc/Program/Ops.def"
  table.add(OpKind::Cast, inferCast);
  table.add(OpKind::Select, inferSelect);
}
