//===- ControlFlow.cpp - Shape rules of cond and while --------------------===//
//
// The structured control-flow ops (docs/ops.md, "Control flow"). Their
// regions are verified through InferenceContext::verifyRegion, which checks
// a nested graph with the given input types in the node's scope and returns
// its output types. Every region is verified exactly once, even when the
// operands are already known to be wrong, so that all problems inside the
// regions are reported too.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Program/Attributes.h"

using namespace txc;

namespace {

/// A predicate is a bool tensor with one element: rank 0, or shape [1] as
/// some exporters write it.
bool isPredicateType(const TensorType &type) {
  return type.dtype == DType::Bool &&
         (type.rank() == 0 ||
          (type.rank() == 1 && type.shape[0].getConstant() == 1));
}

std::optional<std::vector<TensorType>>
verifyRegion(InferenceContext &ctx, llvm::StringRef name,
             const std::vector<TensorType> &inputTypes) {
  const Graph *graph = ctx.node.findRegion(name);
  if (!graph || !ctx.verifyRegion) // the verifier reported a missing region
    return std::nullopt;
  return ctx.verifyRegion(*graph, inputTypes, name.str());
}

/// Location of output `i` of region `name`, or of the node.
Loc regionOutputLoc(InferenceContext &ctx, llvm::StringRef name, size_t i) {
  const Graph *graph = ctx.node.findRegion(name);
  return graph && i < graph->outputs.size() ? graph->outputs[i].loc
                                            : ctx.node.loc;
}

std::string describeTypes(InferenceContext &ctx,
                          const std::vector<TensorType> &types) {
  std::string text;
  for (const TensorType &type : types)
    text += (text.empty() ? "" : ", ") + ctx.str(type);
  return "(" + text + ")";
}

//===----------------------------------------------------------------------===//
// cond
//===----------------------------------------------------------------------===//

/// Both branches must return the same number of values of the same types.
bool checkBranchesAgree(InferenceContext &ctx,
                        const std::vector<TensorType> &thenTypes,
                        const std::vector<TensorType> &elseTypes) {
  if (thenTypes.size() != elseTypes.size()) {
    ctx.fail(ctx.node.loc, "branch-type-mismatch",
             "the branches of 'cond' node '" + ctx.node.name +
                 "' return different numbers of values: 'then' returns " +
                 std::to_string(thenTypes.size()) + " " +
                 describeTypes(ctx, thenTypes) + " and 'else' returns " +
                 std::to_string(elseTypes.size()) + " " +
                 describeTypes(ctx, elseTypes));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < thenTypes.size(); ++i)
    if (thenTypes[i] != elseTypes[i]) {
      ctx.fail(regionOutputLoc(ctx, "else", i), "branch-type-mismatch",
               "output " + std::to_string(i) +
                   " of the branches of 'cond' node '" + ctx.node.name +
                   "' has type " + ctx.str(thenTypes[i]) + " in 'then' but " +
                   ctx.str(elseTypes[i]) +
                   " in 'else'; both branches must return the same dtypes "
                   "and shapes");
      ok = false;
    }
  return ok;
}

std::vector<TensorType> inferCond(InferenceContext &ctx) {
  const TensorType &pred = ctx.operands[0];
  bool ok = true;
  if (!isPredicateType(pred)) {
    ctx.fail(ctx.operandLoc(0), "bad-predicate",
             "the predicate of 'cond' node '" + ctx.node.name +
                 "' must be a bool tensor with one element (shape [] or "
                 "[1]), not " +
                 ctx.str(pred));
    ok = false;
  }
  std::vector<TensorType> args(ctx.operands.begin() + 1, ctx.operands.end());
  auto thenTypes = verifyRegion(ctx, "then", args);
  auto elseTypes = verifyRegion(ctx, "else", args);
  if (!ok || !thenTypes || !elseTypes ||
      !checkBranchesAgree(ctx, *thenTypes, *elseTypes))
    return {};
  return *thenTypes;
}

//===----------------------------------------------------------------------===//
// while
//===----------------------------------------------------------------------===//

bool checkLoopCondition(InferenceContext &ctx,
                        const std::vector<TensorType> &types) {
  if (types.size() == 1 && isPredicateType(types[0]))
    return true;
  ctx.fail(regionOutputLoc(ctx, "cond", 0), "bad-predicate",
           "the 'cond' graph of 'while' node '" + ctx.node.name +
               "' must return one bool tensor with one element (shape [] or "
               "[1]), not " +
               describeTypes(ctx, types));
  return false;
}

/// The body returns the next state: the same number of values of the same
/// types as the state, so that the loop-carried types are invariant.
bool checkLoopBody(InferenceContext &ctx, const std::vector<TensorType> &state,
                   const std::vector<TensorType> &next) {
  if (state.size() != next.size()) {
    ctx.fail(ctx.node.loc, "loop-type-mismatch",
             "the 'body' graph of 'while' node '" + ctx.node.name +
                 "' returns " + std::to_string(next.size()) + " values " +
                 describeTypes(ctx, next) + " but the loop carries " +
                 std::to_string(state.size()) + " " +
                 describeTypes(ctx, state));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < state.size(); ++i)
    if (state[i] != next[i]) {
      ctx.fail(regionOutputLoc(ctx, "body", i), "loop-type-mismatch",
               "output " + std::to_string(i) +
                   " of the 'body' graph of 'while' node '" + ctx.node.name +
                   "' has type " + ctx.str(next[i]) +
                   " but the loop-carried value has type " + ctx.str(state[i]) +
                   "; loop-carried dtypes and shapes must not change between "
                   "iterations");
      ok = false;
    }
  return ok;
}

std::vector<TensorType> inferWhile(InferenceContext &ctx) {
  bool ok = true;
  int64_t maxIterations = getIntAttr(ctx.node, "max_iterations", 0);
  if (maxIterations < 0) {
    ctx.fail(ctx.attrLoc("max_iterations"), "bad-attribute",
             "attribute 'max_iterations' of 'while' node '" + ctx.node.name +
                 "' must be at least 0, not " + std::to_string(maxIterations));
    ok = false;
  }
  const std::vector<TensorType> &state = ctx.operands;
  auto condTypes = verifyRegion(ctx, "cond", state);
  auto bodyTypes = verifyRegion(ctx, "body", state);
  if (condTypes)
    ok &= checkLoopCondition(ctx, *condTypes);
  if (bodyTypes)
    ok &= checkLoopBody(ctx, state, *bodyTypes);
  if (!ok || !condTypes || !bodyTypes)
    return {};
  return state;
}

} // namespace

void txc::registerControlFlowShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::Cond, inferCond);
  table.add(OpKind::While, inferWhile);
}
