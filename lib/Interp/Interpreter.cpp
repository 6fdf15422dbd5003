//===- Interpreter.cpp - Running a program op by op -----------------------===//
#include "txc/Interp/Interpreter.h"

#include "txc/Interp/OpEvaluator.h"

#include "llvm/ADT/StringMap.h"

using namespace txc;

namespace {

/// The values visible in one graph: its own (inputs and node results) and,
/// through the parent chain, those of the enclosing graphs. A region's scope
/// dies with its evaluation, so nothing defined inside leaks out.
class Scope {
public:
  explicit Scope(const Scope *parent = nullptr) : parent(parent) {}

  /// The value named `ref` ("node", "node:1"), or null.
  const Tensor *lookup(llvm::StringRef ref) const {
    std::string key = canonicalName(ref);
    for (const Scope *scope = this; scope; scope = scope->parent) {
      auto it = scope->values.find(key);
      if (it != scope->values.end())
        return &it->second;
    }
    return nullptr;
  }
  void define(llvm::StringRef name, Tensor value) {
    values.insert_or_assign(canonicalName(name), std::move(value));
  }

  /// "node:0" and "node" are the same value.
  static std::string canonicalName(llvm::StringRef ref) {
    llvm::StringRef base;
    unsigned result = 0;
    if (!splitValueName(ref, base, result))
      return ref.str(); // malformed; the verifier rejects it
    if (result == 0)
      return base.str();
    return (base + ":" + llvm::Twine(result)).str();
  }

private:
  const Scope *parent;
  llvm::StringMap<Tensor> values;
};

class ProgramEvaluator : public RegionRunner {
public:
  ProgramEvaluator(const Program &program, std::vector<int64_t> symbolValues,
                   const OpEvaluatorTable &table)
      : program(program), symbols(std::move(symbolValues)), table(table) {}

  /// Evaluates `graph` in `scope` (already holding its inputs) and returns
  /// the values of its outputs.
  llvm::Expected<std::vector<Tensor>> evaluateGraph(const Graph &graph,
                                                    Scope &scope);

  llvm::Expected<std::vector<Tensor>>
  runRegion(const Graph &region, std::vector<Tensor> arguments) override;

private:
  llvm::Error evaluateNode(const Node &node, Scope &scope);
  llvm::Error checkResults(const Node &node,
                           const std::vector<Tensor> &results);

  const Program &program;
  std::vector<int64_t> symbols;
  const OpEvaluatorTable &table;
  /// The scope of the node being evaluated; regions nest inside it.
  Scope *current = nullptr;
};

} // namespace

llvm::Expected<std::vector<Tensor>>
ProgramEvaluator::evaluateGraph(const Graph &graph, Scope &scope) {
  Scope *saved = current;
  for (const Node &node : graph.nodes) {
    current = &scope;
    if (llvm::Error err = evaluateNode(node, scope)) {
      current = saved;
      return err;
    }
  }
  current = saved;
  std::vector<Tensor> outputs;
  for (const OutputDecl &output : graph.outputs) {
    const Tensor *value = scope.lookup(output.value);
    if (!value)
      return llvm::createStringError(
          "internal error in the interpreter: output '%s' refers to "
          "'%s', which has no value",
          output.name.c_str(), output.value.c_str());
    outputs.push_back(*value);
  }
  return outputs;
}

llvm::Expected<std::vector<Tensor>>
ProgramEvaluator::runRegion(const Graph &region,
                            std::vector<Tensor> arguments) {
  if (arguments.size() != region.inputs.size())
    return llvm::createStringError(
        "internal error in the interpreter: a region with %zu inputs got "
        "%zu arguments",
        region.inputs.size(), arguments.size());
  Scope scope(current);
  for (size_t i = 0; i < arguments.size(); ++i)
    scope.define(region.inputs[i].name, std::move(arguments[i]));
  return evaluateGraph(region, scope);
}

llvm::Error ProgramEvaluator::evaluateNode(const Node &node, Scope &scope) {
  const OpEvaluatorFn *evaluator = table.lookup(node.kind);
  if (!evaluator)
    return llvm::createStringError(
        "internal error in the interpreter: op '%s' (node '%s') has no "
        "evaluator",
        node.opName.c_str(), node.name.c_str());
  std::vector<const Tensor *> operands;
  for (const std::string &name : node.operands) {
    const Tensor *value = scope.lookup(name);
    if (!value)
      return llvm::createStringError(
          "internal error in the interpreter: operand '%s' of node '%s' has "
          "no value",
          name.c_str(), node.name.c_str());
    operands.push_back(value);
  }
  OpEvalContext context(program, node, std::move(operands), symbols, *this);
  auto results = (*evaluator)(context);
  if (!results)
    return results.takeError();
  if (llvm::Error err = checkResults(node, *results))
    return err;
  for (size_t i = 0; i < results->size(); ++i)
    scope.define(i == 0 ? node.name : node.name + ":" + std::to_string(i),
                 std::move((*results)[i]));
  return llvm::Error::success();
}

/// An evaluator must produce exactly the verifier's result types; anything
/// else would make the comparison with compiled code meaningless.
llvm::Error ProgramEvaluator::checkResults(const Node &node,
                                           const std::vector<Tensor> &results) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("internal error in the interpreter: node '" +
                                   node.name + "' (" + node.opName +
                                   "): " + why);
  };
  if (results.size() != node.resultTypes.size())
    return fail("produced " + llvm::Twine(results.size()) +
                " results instead of " + llvm::Twine(node.resultTypes.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    const TensorType &type = node.resultTypes[i];
    std::vector<int64_t> expected;
    for (const ShapeExpr &dim : type.shape)
      expected.push_back(dim.evaluate(symbols).value_or(-1));
    if (results[i].dtype() != type.dtype ||
        results[i].shape() != llvm::ArrayRef<int64_t>(expected))
      return fail("result " + llvm::Twine(i) + " is " +
                  results[i].typeString() + ", but its type is " +
                  dtypeName(type.dtype) + shapeString(expected));
  }
  return llvm::Error::success();
}

CallTensor txc::describeForGuards(const Tensor &tensor) {
  CallTensor call;
  call.data = reinterpret_cast<uint64_t>(tensor.data());
  call.sizeBytes = tensor.sizeBytes();
  call.dtype = int32_t(tensor.dtype());
  call.dims = tensor.shape().vec();
  return call;
}

Tensor txc::constantTensor(const ConstantDecl &constant) {
  std::vector<int64_t> shape;
  for (const ShapeExpr &dim : constant.type.shape)
    shape.push_back(dim.getConstant().value_or(0));
  Tensor tensor(constant.type.dtype, shape);
  size_t bytes = std::min<size_t>(constant.data.size, tensor.sizeBytes());
  if (bytes)
    std::memcpy(tensor.data(), constant.data.data, bytes);
  return tensor;
}

/// Turns a runtime status raised by an op into the call's result; any other
/// error stays an error.
static llvm::Expected<ExecutionResult> statusResult(llvm::Error err,
                                                    const Contract &contract) {
  ExecutionResult result;
  llvm::Error rest =
      llvm::handleErrors(std::move(err), [&](const RuntimeStatusError &status) {
        result.status = status.getStatus();
        result.detail = status.getDetail();
      });
  if (rest)
    return rest;
  result.message = formatStatusMessage(contract, result.status);
  return result;
}

llvm::Expected<ExecutionResult>
txc::interpretProgram(const Program &program, const Contract &contract,
                      llvm::ArrayRef<Tensor> inputs,
                      const OpEvaluatorTable &table) {
  // The interpreter allocates the outputs itself, so only the guards on the
  // inputs (and the argument counts) can fail, as in <p>_output_shapes.
  std::vector<CallTensor> callInputs, callOutputs(contract.outputs.size());
  for (const Tensor &input : inputs)
    callInputs.push_back(describeForGuards(input));
  CallResult guards = evaluateGuards(contract, &callInputs, &callOutputs,
                                     /*checkOutputs=*/false);
  ExecutionResult result;
  if (guards.status.code != StatusCode::OK) {
    result.status = guards.status;
    result.message = formatStatusMessage(contract, guards.status);
    return result;
  }

  ProgramEvaluator evaluator(program, guards.symbolValues, table);
  Scope scope;
  for (size_t i = 0; i < contract.inputs.size(); ++i)
    scope.define(contract.inputs[i].name, inputs[i]);
  for (const ConstantDecl &constant : program.constants)
    scope.define(constant.name, constantTensor(constant));
  auto outputs = evaluator.evaluateGraph(program.body, scope);
  if (!outputs)
    return statusResult(outputs.takeError(), contract);

  for (size_t o = 0; o < outputs->size(); ++o)
    if ((*outputs)[o].shape() != llvm::ArrayRef(guards.outputShapes[o]))
      return llvm::createStringError(
          "internal error in the interpreter: output '%s' is %s, but the "
          "contract says %s",
          contract.outputs[o].name.c_str(), (*outputs)[o].typeString().c_str(),
          shapeString(guards.outputShapes[o]).c_str());
  result.outputs = std::move(*outputs);
  return result;
}
