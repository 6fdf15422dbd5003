//===- ControlFlow.cpp - ONNX If, Loop and Scan ---------------------------===//
//
// If-16 is txc's `cond`: its branches become the cond's `then` and `else`
// regions, which read the enclosing values they name (ONNX's outer-scope
// references) directly, so the cond has no arguments. A condition known at
// import (shape arithmetic, a constant) selects its branch there, whose
// nodes are imported in place.
//
// Loop-16 and Scan-16 are txc `while` loops (Loops.h) whose body region is
// the ONNX body, imported with its inputs bound to the loop's state and
// reading enclosing values as If's branches do. The state is an iteration
// counter, the values the ONNX op carries, and one stack per scan output
// that the graph uses, each iteration's value written at its row. txc's
// while needs a bound on its iterations: the trip count (Loop's M, Scan's
// sequence length) must be known at import, as a constant or a dim
// expression whose declared maximum is the bound.
//
//===----------------------------------------------------------------------===//
#include "Loops.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

const onnx::GraphProto *graphAttr(NodeImporter &node, llvm::StringRef name) {
  const onnx::AttributeProto *attr = node.attr(name);
  return attr && attr->has_g() ? &attr->g() : nullptr;
}

/// A branch as a region: its nodes, and its outputs made txc values.
std::optional<std::vector<ImportedValue>>
importBranch(NodeImporter &node, const onnx::GraphProto &graph,
             Graph &region) {
  GraphImporter &importer = node.importer();
  auto outputs = importer.importSubgraph(graph, node.nodeIndex(), region);
  if (!outputs)
    return std::nullopt;
  for (const ImportedValue &value : *outputs) {
    std::optional<std::string> ref =
        importer.materialize(value, node.nodeIndex());
    if (!ref)
      return std::nullopt;
    OutputDecl output;
    output.name = *ref;
    output.value = *ref;
    region.outputs.push_back(std::move(output));
  }
  return outputs;
}

llvm::LogicalResult convertIf(NodeImporter &node) {
  const onnx::GraphProto *thenGraph = graphAttr(node, "then_branch");
  const onnx::GraphProto *elseGraph = graphAttr(node, "else_branch");
  if (!thenGraph || !elseGraph)
    return node.invalid("it lacks a then_branch or an else_branch graph");
  const ImportedValue &condition = node.input(0);
  std::optional<std::vector<int64_t>> known =
      condition.known ? condition.known->staticInts() : std::nullopt;
  if (known) {
    if (known->size() == 1) {
      auto outputs = node.importer().importSubgraph(
          known->front() != 0 ? *thenGraph : *elseGraph, node.nodeIndex(),
          *node.importer().current);
      if (!outputs)
        return llvm::failure();
      return outputsIf(node, std::vector<MaybeValue>(outputs->begin(),
                                                     outputs->end()));
    }
  }
  auto thenRegion = std::make_unique<Graph>();
  auto elseRegion = std::make_unique<Graph>();
  auto thenOutputs = importBranch(node, *thenGraph, *thenRegion);
  auto elseOutputs = importBranch(node, *elseGraph, *elseRegion);
  if (!thenOutputs || !elseOutputs)
    return llvm::failure();
  if (thenOutputs->size() != elseOutputs->size())
    return node.invalid("its branches return " +
                        llvm::Twine(thenOutputs->size()) + " and " +
                        llvm::Twine(elseOutputs->size()) + " values");
  std::vector<TensorType> types;
  for (size_t i = 0; i < thenOutputs->size(); ++i) {
    const TensorType &a = (*thenOutputs)[i].type, &b = (*elseOutputs)[i].type;
    if (!(a == b))
      return node.unsupported(
          "its output " + llvm::Twine(i) + " is " + dtypeName(a.dtype) +
              node.str(a.shape) + " in then_branch but " + dtypeName(b.dtype) +
              node.str(b.shape) + " in else_branch",
          "txc's cond returns the same dtypes and shapes from both branches");
    types.push_back(a);
  }
  std::vector<std::pair<std::string, std::unique_ptr<Graph>>> regions;
  regions.emplace_back("then", std::move(thenRegion));
  regions.emplace_back("else", std::move(elseRegion));
  return node.emitRegionOutputs("cond", {condition}, std::move(regions), types);
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

/// A bool value of one element as a rank-0 predicate (exporters write [1]).
MaybeValue predicate(NodeImporter &node, const ImportedValue &value,
                     llvm::StringRef what) {
  const Shape &shape = value.type.shape;
  bool single = shape.empty() ||
                (shape.size() == 1 && shape[0].getConstant() == 1);
  if (value.type.dtype != DType::Bool || !single) {
    (void)node.invalid(what + " is " + dtypeName(value.type.dtype) +
                       node.str(shape) + ", not a bool with one element");
    return std::nullopt;
  }
  if (shape.empty())
    return value;
  return node.emit("reshape", {value},
                   {shapeAttr("shape", {}, node.program().symbolNames())});
}

/// Whether a known predicate is true (nullopt when it is not known).
std::optional<bool> knownTruth(const MaybeValue &value) {
  std::optional<std::vector<int64_t>> ints =
      value && value->known ? value->known->staticInts() : std::nullopt;
  if (!ints || ints->size() != 1)
    return std::nullopt;
  return ints->front() != 0;
}

/// Loop's trip count M as a dim expression (a negative constant is 0), when
/// it is known at import and not negative for any value of the symbols.
std::optional<ShapeExpr> requireTripCount(NodeImporter &node) {
  const char *hint = "txc's while needs a bound on its iterations: give the "
                     "Loop a trip count M that is a constant or is computed "
                     "from input shapes";
  if (!node.hasInput(0)) {
    (void)node.unsupported("it has no trip count M, so nothing bounds its "
                           "iterations",
                           hint);
    return std::nullopt;
  }
  const KnownTensor *m = node.known(0);
  if (!m || !m->ints || m->ints->size() != 1) {
    (void)node.unsupported("its trip count M is computed from tensor values "
                           "at run time, so nothing bounds its iterations "
                           "when txc compiles it",
                           hint);
    return std::nullopt;
  }
  ShapeExpr count = m->ints->front();
  if (std::optional<int64_t> constant = count.getConstant())
    return ShapeExpr::constant(std::max<int64_t>(*constant, 0));
  if (dimBounds(node, count).min < 0) {
    (void)node.unsupported("its trip count M = " + node.dimStr(count) +
                               " is negative for some values of the symbols",
                           "declare the symbols' ranges so that M is at least "
                           "0");
    return std::nullopt;
  }
  return count;
}

/// How a Loop node runs: its trip count, whether it carries ONNX's cond,
/// and its scan outputs the graph uses.
struct LoopPlan {
  const onnx::GraphProto *body = nullptr;
  int64_t carried = 0;
  /// The scan outputs' indices among the body's scan outputs.
  std::vector<int64_t> scans;
  MaybeValue cond; ///< the initial condition, when the node has one
  ShapeExpr tripCount; ///< M
  /// The number of iterations when the loop never stops early: M, or 0
  /// when the condition is false from the start.
  ShapeExpr length;
};

std::optional<LoopPlan> planLoop(NodeImporter &node) {
  LoopPlan plan;
  plan.body = graphAttr(node, "body");
  plan.carried = int64_t(node.numInputs()) - 2;
  if (!plan.body || plan.carried < 0 ||
      plan.body->input_size() != plan.carried + 2 ||
      plan.body->output_size() < plan.carried + 1) {
    (void)node.invalid("its body graph does not take the iteration number, "
                       "the condition and the " +
                       llvm::Twine(std::max<int64_t>(plan.carried, 0)) +
                       " loop-carried values, or does not return the "
                       "condition and the loop-carried values");
    return std::nullopt;
  }
  for (int64_t k = 0; k < plan.body->output_size() - 1 - plan.carried; ++k) {
    unsigned output = unsigned(plan.carried + k);
    if (output < node.numOutputs() && !node.outputName(output).empty())
      plan.scans.push_back(k);
  }
  std::optional<ShapeExpr> tripCount = requireTripCount(node);
  if (!tripCount)
    return std::nullopt;
  plan.tripCount = plan.length = *tripCount;
  if (node.hasInput(1)) {
    plan.cond = predicate(node, node.input(1), "its condition");
    if (!plan.cond)
      return std::nullopt;
    if (knownTruth(plan.cond) == false)
      plan.length = ShapeExpr::constant(0);
  }
  return plan;
}

/// Scan outputs have M rows only when the loop cannot stop early: without
/// a condition, or with one that is true and that the body passes on.
llvm::LogicalResult checkNoEarlyExit(NodeImporter &node, const LoopPlan &plan,
                                     const MaybeValue &condIn,
                                     const MaybeValue &condOut) {
  if (plan.scans.empty() || !plan.cond || knownTruth(plan.cond) == false)
    return llvm::success();
  bool passedOn = condOut && condIn && condOut->ref == condIn->ref;
  if (knownTruth(plan.cond) == true &&
      (passedOn || knownTruth(condOut) == true))
    return llvm::success();
  return node.unsupported(
      "it has scan outputs and may stop before its trip count (its "
      "condition is not known to stay true), so their length depends on "
      "tensor values",
      "give the loop no condition (or a constant true one that the body "
      "passes on) when it has scan outputs, or return a fixed-size tensor "
      "from the loop instead");
}

/// The body of a Loop: the ONNX body on (i, cond, carried...), then the
/// next state (i + 1, cond, carried..., stacks...).
std::optional<LoopState> loopBody(NodeImporter &node, const LoopPlan &plan,
                                  const LoopState &state, LoopBody &loop) {
  MaybeValue condIn = plan.cond ? state[1] : node.scalar(DType::Bool, 1);
  size_t first = plan.cond ? 2 : 1;
  std::vector<ImportedValue> inputs = {*state[0], *condIn};
  for (size_t i = first; i < state.size(); ++i)
    inputs.push_back(*state[i]);
  auto outputs = node.importer().importSubgraph(
      *plan.body, node.nodeIndex(), *node.importer().current, inputs);
  if (!outputs)
    return std::nullopt;
  MaybeValue condOut =
      plan.cond ? predicate(node, (*outputs)[0], "the condition its body "
                                                 "returns")
                : condIn;
  if (!condOut || llvm::failed(checkNoEarlyExit(node, plan, condIn, condOut)))
    return std::nullopt;
  LoopState next = {
      emitIf(node, "add", {state[0], node.scalar(DType::I64, 1)})};
  if (plan.cond)
    next.push_back(condOut);
  for (int64_t v = 0; v < plan.carried; ++v)
    next.push_back((*outputs)[1 + v]);
  for (int64_t k : plan.scans)
    next.push_back(loop.stack((*outputs)[1 + plan.carried + k], plan.length,
                              0, state[0]));
  return next;
}

llvm::LogicalResult convertLoop(NodeImporter &node) {
  std::optional<LoopPlan> plan = planLoop(node);
  if (!plan)
    return llvm::failure();
  MaybeValue count = dimValue(node, plan->tripCount);
  std::vector<MaybeValue> initial = {node.scalar(DType::I64, 0)};
  if (plan->cond)
    initial.push_back(plan->cond);
  for (int64_t v = 0; v < plan->carried; ++v)
    initial.push_back(node.input(2 + unsigned(v)));
  auto condition = [&](const LoopState &state) {
    MaybeValue more = emitIf(node, "lt", {state[0], count});
    return plan->cond ? emitIf(node, "and", {more, state[1]}) : more;
  };
  auto body = [&](const LoopState &state, LoopBody &loop) {
    return loopBody(node, *plan, state, loop);
  };
  int64_t bound = std::max<int64_t>(dimBounds(node, plan->length).max, 0);
  auto results = emitWhile(node, initial, bound, condition, body);
  if (!results)
    return llvm::failure();
  size_t first = plan->cond ? 2 : 1;
  std::vector<MaybeValue> outputs(node.numOutputs());
  for (int64_t v = 0; v < plan->carried; ++v)
    outputs[v] = (*results)[first + v];
  for (size_t k = 0; k < plan->scans.size(); ++k)
    outputs[plan->carried + plan->scans[k]] =
        (*results)[first + plan->carried + k];
  return outputsIf(node, outputs);
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// A list attribute of `count` integers, all 0 when absent.
std::optional<std::vector<int64_t>> scanList(NodeImporter &node,
                                             llvm::StringRef name,
                                             int64_t count) {
  std::optional<std::vector<int64_t>> values = node.intsAttr(name);
  if (!values)
    return std::vector<int64_t>(count, 0);
  if (int64_t(values->size()) != count) {
    (void)node.invalid("its " + name + " has " +
                       llvm::Twine(values->size()) + " elements, not " +
                       llvm::Twine(count));
    return std::nullopt;
  }
  return values;
}

/// Where a Scan's inputs are scanned and its outputs stacked.
struct ScanPlan {
  const onnx::GraphProto *body = nullptr;
  int64_t states = 0, inputs = 0, outputs = 0;
  std::vector<int64_t> inputAxes, inputReverse, outputAxes, outputReverse;
  /// The outputs' indices among the body's scan outputs that the graph uses.
  std::vector<int64_t> used;
  ShapeExpr length; ///< the scan inputs' length along their axes
};

std::optional<ScanPlan> planScan(NodeImporter &node) {
  ScanPlan plan;
  plan.body = graphAttr(node, "body");
  plan.inputs = node.intAttr("num_scan_inputs", 0);
  plan.states = int64_t(node.numInputs()) - plan.inputs;
  if (!plan.body || plan.inputs < 1 || plan.states < 0 ||
      plan.body->input_size() != int(node.numInputs()) ||
      plan.body->output_size() < plan.states) {
    (void)node.invalid("its body graph does not take its " +
                       llvm::Twine(std::max<int64_t>(plan.states, 0)) +
                       " state variables and " + llvm::Twine(plan.inputs) +
                       " scan inputs, or does not return the state variables");
    return std::nullopt;
  }
  plan.outputs = plan.body->output_size() - plan.states;
  auto inAxes = scanList(node, "scan_input_axes", plan.inputs);
  auto inReverse = scanList(node, "scan_input_directions", plan.inputs);
  auto outAxes = scanList(node, "scan_output_axes", plan.outputs);
  auto outReverse = scanList(node, "scan_output_directions", plan.outputs);
  if (!inAxes || !inReverse || !outAxes || !outReverse)
    return std::nullopt;
  plan.inputReverse = *inReverse;
  plan.outputAxes = *outAxes;
  plan.outputReverse = *outReverse;
  for (int64_t j = 0; j < plan.inputs; ++j) {
    const ImportedValue &x = node.input(unsigned(plan.states + j));
    std::optional<int64_t> axis =
        normalizeOnnxAxis((*inAxes)[j], int64_t(x.type.rank()));
    if (!axis || x.type.rank() == 0) {
      (void)node.invalid("the axis of its scan input " + llvm::Twine(j) +
                         " is out of range");
      return std::nullopt;
    }
    plan.inputAxes.push_back(*axis);
    const ShapeExpr &dim = x.type.shape[*axis];
    if (j > 0 && dim != plan.length) {
      (void)node.unsupported(
          "its scan inputs have the lengths " + node.dimStr(plan.length) +
              " and " + node.dimStr(dim) + " along their scan axes",
          "ONNX requires one length: give the inputs the same dim");
      return std::nullopt;
    }
    plan.length = dim;
  }
  for (int64_t k = 0; k < plan.outputs; ++k) {
    unsigned output = unsigned(plan.states + k);
    if (output < node.numOutputs() && !node.outputName(output).empty())
      plan.used.push_back(k);
  }
  return plan;
}

/// The body of a Scan: the ONNX body on (states..., the step's elements of
/// the scan inputs), then the next state (i + 1, states..., stacks...).
std::optional<LoopState> scanBody(NodeImporter &node, const ScanPlan &plan,
                                  const LoopState &state, LoopBody &loop,
                                  const MaybeValue &last) {
  auto position = [&](bool reverse) {
    return reverse ? emitIf(node, "sub", {last, state[0]}) : state[0];
  };
  std::vector<ImportedValue> inputs;
  for (int64_t v = 0; v < plan.states; ++v)
    inputs.push_back(*state[1 + v]);
  for (int64_t j = 0; j < plan.inputs; ++j) {
    MaybeValue element = emitIf(
        node, "gather",
        {node.input(unsigned(plan.states + j)),
         position(plan.inputReverse[j] != 0)},
        {intAttr("axis", plan.inputAxes[j])});
    if (!element)
      return std::nullopt;
    inputs.push_back(*element);
  }
  auto outputs = node.importer().importSubgraph(
      *plan.body, node.nodeIndex(), *node.importer().current, inputs);
  if (!outputs)
    return std::nullopt;
  LoopState next = {
      emitIf(node, "add", {state[0], node.scalar(DType::I64, 1)})};
  for (int64_t v = 0; v < plan.states; ++v)
    next.push_back((*outputs)[v]);
  for (int64_t k : plan.used) {
    const ImportedValue &element = (*outputs)[plan.states + k];
    int64_t rank = int64_t(element.type.rank()) + 1;
    std::optional<int64_t> axis = normalizeOnnxAxis(plan.outputAxes[k], rank);
    if (!axis) {
      (void)node.invalid("the axis of its scan output " + llvm::Twine(k) +
                         " is out of range");
      return std::nullopt;
    }
    next.push_back(loop.stack(element, plan.length, *axis,
                              position(plan.outputReverse[k] != 0)));
  }
  return next;
}

llvm::LogicalResult convertScan(NodeImporter &node) {
  std::optional<ScanPlan> plan = planScan(node);
  if (!plan)
    return llvm::failure();
  MaybeValue count = dimValue(node, plan->length);
  auto isSet = [](int64_t flag) { return flag != 0; };
  bool reverse = llvm::any_of(plan->inputReverse, isSet) ||
                 llvm::any_of(plan->used, [&](int64_t k) {
                   return plan->outputReverse[k] != 0;
                 });
  MaybeValue last =
      reverse ? emitIf(node, "sub", {count, node.scalar(DType::I64, 1)})
              : MaybeValue();
  std::vector<MaybeValue> initial = {node.scalar(DType::I64, 0)};
  for (int64_t v = 0; v < plan->states; ++v)
    initial.push_back(node.input(unsigned(v)));
  auto condition = [&](const LoopState &state) {
    return emitIf(node, "lt", {state[0], count});
  };
  auto body = [&](const LoopState &state, LoopBody &loop) {
    return scanBody(node, *plan, state, loop, last);
  };
  int64_t bound = dimBounds(node, plan->length).max;
  auto results = emitWhile(node, initial, bound, condition, body);
  if (!results)
    return llvm::failure();
  std::vector<MaybeValue> outputs(node.numOutputs());
  for (int64_t v = 0; v < plan->states; ++v)
    outputs[v] = (*results)[1 + v];
  for (size_t k = 0; k < plan->used.size(); ++k)
    outputs[plan->states + plan->used[k]] =
        (*results)[1 + plan->states + k];
  return outputsIf(node, outputs);
}

} // namespace

void txc::onnximport::addControlFlowConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(), {
                                {"If", 16, 17, convertIf},
                                {"Loop", 16, 17, convertLoop},
                                {"Scan", 16, 17, convertScan},
                            });
}
