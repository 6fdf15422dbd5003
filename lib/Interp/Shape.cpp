//===- Shape.cpp - Evaluators of shape ops --------------------------------===//
#include "txc/Interp/Broadcast.h"
#include "txc/Interp/OpEvaluator.h"

using namespace txc;

namespace {

/// broadcast: copies elements, reading them as numpy broadcasting does.
llvm::Expected<std::vector<Tensor>> evalBroadcast(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (input.dtype() != result->dtype())
    return ctx.internalError("operand dtype " + input.typeString() +
                             " differs from the result's");
  auto walker = BroadcastWalker::create(result->shape(), {input.shape()});
  if (!walker)
    return ctx.internalError(llvm::toString(walker.takeError()));
  unsigned size = dtypeSize(input.dtype());
  for (; !walker->done(); walker->next())
    std::memcpy(result->data() + walker->resultIndex() * size,
                input.data() + walker->operandIndex(0) * size, size);
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerShapeOps(OpEvaluatorTable &table) {
  table.add(OpKind::Broadcast, evalBroadcast);
}
