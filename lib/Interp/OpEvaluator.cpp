//===- OpEvaluator.cpp - The evaluator table and the context --------------===//
#include "txc/Interp/OpEvaluator.h"

#include "llvm/Support/ErrorHandling.h"

using namespace txc;

char RuntimeStatusError::ID = 0;

void RuntimeStatusError::log(llvm::raw_ostream &os) const {
  os << "runtime status " << int(status.code) << " ("
     << statusCodeMacro(status.code) << ")";
  if (!detail.empty())
    os << ": " << detail;
}

std::error_code RuntimeStatusError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

const AttrValue *OpEvalContext::attribute(llvm::StringRef name) const {
  const NodeAttr *attr = node.findAttribute(name);
  return attr ? &attr->value : nullptr;
}

llvm::Expected<int64_t> OpEvalContext::evaluate(const ShapeExpr &dim) const {
  std::optional<int64_t> value = dim.evaluate(symbols);
  if (!value || *value < 0)
    return internalError("dimension " + dim.toString(program.symbolNames()) +
                         " overflows or is negative for these symbols");
  return *value;
}

llvm::Expected<std::vector<int64_t>>
OpEvalContext::resultShape(size_t i) const {
  if (i >= node.resultTypes.size())
    return internalError("has no result " + llvm::Twine(i));
  std::vector<int64_t> shape;
  for (const ShapeExpr &dim : node.resultTypes[i].shape) {
    auto value = evaluate(dim);
    if (!value)
      return value.takeError();
    shape.push_back(*value);
  }
  return shape;
}

llvm::Expected<Tensor> OpEvalContext::makeResult(size_t i) const {
  auto shape = resultShape(i);
  if (!shape)
    return shape.takeError();
  auto tensor = Tensor::create(resultDType(i), *shape);
  if (!tensor)
    return internalError(llvm::toString(tensor.takeError()));
  return tensor;
}

llvm::Expected<std::vector<Tensor>>
OpEvalContext::runRegion(llvm::StringRef name,
                         std::vector<Tensor> arguments) const {
  const Graph *region = node.findRegion(name);
  if (!region)
    return internalError("has no region '" + name + "'");
  return regions.runRegion(*region, std::move(arguments));
}

llvm::Error OpEvalContext::runtimeStatus(StatusCode code,
                                         const llvm::Twine &detail) const {
  CallStatus status;
  status.code = code;
  return llvm::make_error<RuntimeStatusError>(status, "node '" + node.name +
                                                          "' (" + node.opName +
                                                          "): " + detail.str());
}

llvm::Error OpEvalContext::internalError(const llvm::Twine &message) const {
  return llvm::createStringError("internal error in the interpreter: node '" +
                                 node.name + "' (" + node.opName +
                                 "): " + message);
}

void OpEvaluatorTable::add(OpKind kind, OpEvaluatorFn evaluator) {
  size_t index = size_t(kind);
  if (evaluators.size() <= index)
    evaluators.resize(index + 1);
  if (evaluators[index])
    llvm::report_fatal_error("two interpreter evaluators for op '" +
                             getOpInfo(kind).name + "'");
  evaluators[index] = std::move(evaluator);
}

const OpEvaluatorFn *OpEvaluatorTable::lookup(OpKind kind) const {
  size_t index = size_t(kind);
  if (index >= evaluators.size() || !evaluators[index])
    return nullptr;
  return &evaluators[index];
}

const OpEvaluatorTable &OpEvaluatorTable::builtin() {
  // Explicit calls rather than static registration objects: the library is
  // static, and the linker would drop a family file nobody references.
  static const OpEvaluatorTable table = [] {
    OpEvaluatorTable t;
    registerElementwiseOps(t);
    registerLinearAlgebraOps(t);
    registerShapeOps(t);
    return t;
  }();
  return table;
}
