//===- ControlFlow.cpp - Evaluators of cond and while ---------------------===//
//
// cond runs one of its branch graphs; while runs its body graph until its
// cond graph returns false or the body has run max_iterations times, and
// returns the state it has then (docs/ops.md, "Control flow"). As in the
// lowering, the cond graph is evaluated before every iteration, also the one
// the bound stops. A runtime status raised inside a region unwinds through
// these evaluators unchanged.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Attributes.h"

using namespace txc;

namespace {

/// The value of a predicate: a bool tensor with one element.
llvm::Expected<bool> predicateValue(const OpEvalContext &ctx,
                                    const Tensor &pred) {
  if (pred.dtype() != DType::Bool || pred.numElements() != 1)
    return ctx.internalError("the predicate is " + pred.typeString() +
                             ", not a bool with one element");
  return pred.load<uint8_t>(0) != 0;
}

llvm::Expected<std::vector<Tensor>> evalCond(const OpEvalContext &ctx) {
  auto pred = predicateValue(ctx, ctx.operand(0));
  if (!pred)
    return pred.takeError();
  std::vector<Tensor> args;
  for (size_t i = 1; i < ctx.numOperands(); ++i)
    args.push_back(ctx.operand(i));
  return ctx.runRegion(*pred ? "then" : "else", std::move(args));
}

llvm::Expected<std::vector<Tensor>> evalWhile(const OpEvalContext &ctx) {
  int64_t maxIterations = getIntAttr(ctx.getNode(), "max_iterations", 0);
  std::vector<Tensor> state;
  for (size_t i = 0; i < ctx.numOperands(); ++i)
    state.push_back(ctx.operand(i));
  for (int64_t iteration = 0;; ++iteration) {
    auto condition = ctx.runRegion("cond", state);
    if (!condition)
      return condition.takeError();
    if (condition->size() != 1)
      return ctx.internalError("the 'cond' graph returned " +
                               llvm::Twine(condition->size()) + " values");
    auto holds = predicateValue(ctx, (*condition)[0]);
    if (!holds)
      return holds.takeError();
    if (!*holds || iteration >= maxIterations)
      return state;
    auto next = ctx.runRegion("body", std::move(state));
    if (!next)
      return next.takeError();
    state = std::move(*next);
  }
}

} // namespace

void txc::registerControlFlowOps(OpEvaluatorTable &table) {
  table.add(OpKind::Cond, evalCond);
  table.add(OpKind::While, evalWhile);
}
