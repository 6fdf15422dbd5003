//===- NodeImporter.cpp - What a converter sees of its node ---------------===//
#include "Importer.h"

#include "txc/Analysis/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace txc;
using namespace txc::onnximport;

NodeImporter::NodeImporter(GraphImporter &graph, const onnx::NodeProto &proto,
                           unsigned index, int64_t sinceVersion)
    : graph(graph), node(proto), index(index), since(sinceVersion) {}

const Program &NodeImporter::program() const { return graph.program; }

std::string NodeImporter::str(const Shape &shape) const {
  return shapeToString(shape, graph.program.symbolNames());
}

std::string NodeImporter::dimStr(const ShapeExpr &dim) const {
  return dim.toString(graph.program.symbolNames());
}

bool NodeImporter::hasInput(unsigned i) const {
  return int(i) < node.input_size() && !node.input(i).empty();
}

const ImportedValue &NodeImporter::input(unsigned i) const {
  const ImportedValue *value =
      hasInput(i) ? graph.lookup(node.input(i)) : nullptr;
  if (!value)
    llvm::report_fatal_error("txc import: input " + llvm::Twine(i) +
                             " of a " + llvm::Twine(node.op_type()) +
                             " node is not defined");
  return *value;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *NodeImporter::attr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

int64_t NodeImporter::intAttr(llvm::StringRef name, int64_t fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : fallback;
}

float NodeImporter::floatAttr(llvm::StringRef name, float fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : fallback;
}

std::string NodeImporter::stringAttr(llvm::StringRef name,
                                     llvm::StringRef fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : fallback.str();
}

std::optional<std::vector<int64_t>>
NodeImporter::intsAttr(llvm::StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

//===----------------------------------------------------------------------===//
// Known inputs
//===----------------------------------------------------------------------===//

const KnownTensor *NodeImporter::known(unsigned i) const {
  return hasInput(i) ? input(i).known.get() : nullptr;
}

std::optional<std::vector<int64_t>>
NodeImporter::requireStaticInts(unsigned i, llvm::StringRef what) {
  const KnownTensor *tensor = known(i);
  if (!tensor) {
    (void)unsupported("its " + what + " (input " + llvm::Twine(i) +
                          ") is computed from tensor values at run time",
                      "txc needs the " + what +
                          " when it compiles: make it a constant or compute it "
                          "from shapes only");
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> values = tensor->staticInts();
  if (!values)
    (void)unsupported("its " + what + " (input " + llvm::Twine(i) +
                          ") depends on symbolic dims",
                      "txc needs the " + what + " as constants here");
  return values;
}

std::optional<std::vector<double>>
NodeImporter::requireKnownDoubles(unsigned i, llvm::StringRef what) {
  const KnownTensor *tensor = known(i);
  std::optional<std::vector<double>> values =
      tensor ? tensor->doubles() : std::nullopt;
  if (!values)
    (void)unsupported("its " + what + " (input " + llvm::Twine(i) +
                          ") is not a constant",
                      "make the " + what + " an initializer or a Constant");
  return values;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

std::optional<Node> NodeImporter::startNode(
    llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
    std::vector<NodeAttr> attrs, std::string name) {
  const OpInfo *info = lookupOp(op);
  if (!info)
    llvm::report_fatal_error("txc import: no txc op '" + llvm::Twine(op) + "'");
  Node txcNode;
  txcNode.name = std::move(name);
  txcNode.opName = op.str();
  txcNode.kind = info->kind;
  txcNode.attributes = std::move(attrs);
  for (const ImportedValue &operand : operands) {
    std::optional<std::string> ref = graph.materialize(operand, index);
    if (!ref)
      return std::nullopt;
    txcNode.operands.push_back(*ref);
  }
  return txcNode;
}

std::vector<ImportedValue>
NodeImporter::appendNode(Node txcNode, llvm::ArrayRef<TensorType> types) {
  graph.descriptions[txcNode.name] =
      "ONNX node " + nodeLabel(node, index) + " (" + node.op_type() + ")";
  std::vector<ImportedValue> results;
  for (unsigned r = 0; r < types.size(); ++r) {
    ImportedValue value;
    value.type = types[r];
    value.ref = r == 0 ? txcNode.name : txcNode.name + ":" + std::to_string(r);
    results.push_back(std::move(value));
  }
  graph.current->nodes.push_back(std::move(txcNode));
  return results;
}

void NodeImporter::setOutputs(llvm::ArrayRef<ImportedValue> results) {
  for (unsigned r = 0; r < results.size() && r < numOutputs(); ++r)
    if (!node.output(r).empty())
      (void)setOutput(r, results[r]);
}

std::optional<std::vector<ImportedValue>>
NodeImporter::emitNode(llvm::StringRef op,
                       llvm::ArrayRef<ImportedValue> operands,
                       std::vector<NodeAttr> attrs, std::string name) {
  std::optional<Node> txcNode =
      startNode(op, operands, std::move(attrs), std::move(name));
  if (!txcNode)
    return std::nullopt;
  std::vector<TensorType> operandTypes;
  for (const ImportedValue &operand : operands)
    operandTypes.push_back(operand.type);
  InferenceContext context(graph.program, *txcNode, operandTypes);
  std::vector<TensorType> types = inferResultTypes(context);
  if (!context.problems.empty()) {
    const InferenceContext::Problem &problem = context.problems.front();
    std::string notes;
    for (const std::string &note : problem.notes)
      notes += (notes.empty() ? "" : "; ") + note;
    if (notes.empty())
      notes = "docs/ops.md describes what '" + op.str() + "' accepts";
    (void)unsupported("txc's '" + op + "' rejects it: " + problem.message,
                      notes);
    return std::nullopt;
  }
  return appendNode(std::move(*txcNode), types);
}

std::string NodeImporter::freshName(llvm::StringRef op) {
  return graph.names.fresh(graph.names.map(node.output(0)) + "_" + op.str());
}

std::optional<ImportedValue>
NodeImporter::emit(llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
                   std::vector<NodeAttr> attrs) {
  std::optional<std::vector<ImportedValue>> results =
      emitNode(op, operands, std::move(attrs), freshName(op));
  if (!results)
    return std::nullopt;
  return results->front();
}

llvm::LogicalResult
NodeImporter::emitOutput(unsigned output, llvm::StringRef op,
                         llvm::ArrayRef<ImportedValue> operands,
                         std::vector<NodeAttr> attrs) {
  std::optional<std::vector<ImportedValue>> results =
      emitNode(op, operands, std::move(attrs),
               graph.names.map(node.output(output)));
  if (!results)
    return llvm::failure();
  return setOutput(output, results->front());
}

llvm::LogicalResult
NodeImporter::emitOutputs(llvm::StringRef op,
                          llvm::ArrayRef<ImportedValue> operands,
                          std::vector<NodeAttr> attrs) {
  std::optional<std::vector<ImportedValue>> results = emitNode(
      op, operands, std::move(attrs), graph.names.map(node.output(0)));
  if (!results)
    return llvm::failure();
  setOutputs(*results);
  return llvm::success();
}

std::optional<std::vector<ImportedValue>> NodeImporter::emitRegionNode(
    llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
    std::vector<NodeAttr> attrs,
    std::vector<std::pair<std::string, std::unique_ptr<Graph>>> regions,
    llvm::ArrayRef<TensorType> resultTypes) {
  std::optional<Node> txcNode =
      startNode(op, operands, std::move(attrs), freshName(op));
  if (!txcNode)
    return std::nullopt;
  txcNode->regions = std::move(regions);
  return appendNode(std::move(*txcNode), resultTypes);
}

llvm::LogicalResult NodeImporter::emitRegionOutputs(
    llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
    std::vector<std::pair<std::string, std::unique_ptr<Graph>>> regions,
    llvm::ArrayRef<TensorType> resultTypes) {
  auto results =
      emitRegionNode(op, operands, {}, std::move(regions), resultTypes);
  if (!results)
    return llvm::failure();
  setOutputs(*results);
  return llvm::success();
}

llvm::LogicalResult NodeImporter::setOutput(unsigned i, ImportedValue value) {
  if (value.onnxName.empty())
    value.onnxName = node.output(i);
  graph.define(node.output(i), std::move(value));
  return llvm::success();
}

llvm::LogicalResult
NodeImporter::setKnownOutput(unsigned i,
                             std::shared_ptr<const KnownTensor> known) {
  return setOutput(i, constant(std::move(known)));
}

ImportedValue
NodeImporter::constant(std::shared_ptr<const KnownTensor> known) const {
  ImportedValue value;
  value.type.dtype = known->dtype;
  for (int64_t dim : known->dims)
    value.type.shape.push_back(ShapeExpr::constant(dim));
  value.known = std::move(known);
  return value;
}

std::shared_ptr<const void> NodeImporter::owner() const {
  return graph.modelOwner();
}

ImportedValue NodeImporter::scalar(DType dtype, double value, unsigned rank) {
  std::vector<int64_t> dims(rank, 1);
  if (isFloat(dtype))
    return constant(knownFloats(dtype, dims, {value}));
  return constant(KnownTensor::fromInts(
      dtype, dims, {ShapeExpr::constant(int64_t(value))}));
}

std::optional<std::pair<const onnx::NodeProto *, unsigned>>
NodeImporter::soleConsumer(unsigned output) const {
  const std::string &name = node.output(output);
  auto it = graph.consumers.find(name);
  if (graph.graphOutputs.count(name) || it == graph.consumers.end() ||
      it->second.size() != 1)
    return std::nullopt;
  unsigned consumer = it->second.front();
  return std::make_pair(&graph.modelProto().graph().node(consumer), consumer);
}

const ImportedValue *NodeImporter::lookup(llvm::StringRef onnxName) const {
  return graph.lookup(onnxName);
}

void NodeImporter::foldInto(unsigned consumer) {
  graph.foldedNodes.insert(consumer);
}

bool NodeImporter::isFolded() const { return graph.foldedNodes.count(index); }

//===----------------------------------------------------------------------===//
// Failures
//===----------------------------------------------------------------------===//

/// "node '/fc/Gemm' (Gemm-13, opset 17)"
static std::string describeNode(const onnx::NodeProto &node, unsigned index,
                                int64_t since, int64_t opset) {
  return "node " + nodeLabel(node, index) + " (" + node.op_type() + "-" +
         std::to_string(since) + ", opset " + std::to_string(opset) + ")";
}

llvm::LogicalResult NodeImporter::unsupported(const llvm::Twine &reason,
                                              const llvm::Twine &hint) {
  graph.report(DiagCategory::NotRepresentable, "onnx-unsupported-node", index,
               describeNode(node, index, since, graph.opset) +
                   " cannot be imported: " + reason,
               hint);
  return llvm::failure();
}

llvm::LogicalResult NodeImporter::unsupportedAttr(llvm::StringRef attribute,
                                                  const llvm::Twine &reason,
                                                  const llvm::Twine &hint) {
  graph.report(DiagCategory::NotRepresentable, "onnx-unsupported-attribute",
               index,
               describeNode(node, index, since, graph.opset) +
                   " cannot be imported: attribute '" + attribute + "' " +
                   reason,
               hint);
  return llvm::failure();
}

llvm::LogicalResult NodeImporter::invalid(const llvm::Twine &message) {
  graph.report(DiagCategory::Invalid, "onnx-invalid", index,
               describeNode(node, index, since, graph.opset) + " is invalid: " +
                   message,
               "");
  return llvm::failure();
}

MaybeValue txc::onnximport::emitIf(NodeImporter &node, llvm::StringRef op,
                                   std::initializer_list<MaybeValue> operands,
                                   std::vector<NodeAttr> attrs) {
  std::vector<ImportedValue> values;
  for (const MaybeValue &operand : operands) {
    if (!operand)
      return std::nullopt;
    values.push_back(*operand);
  }
  return node.emit(op, values, std::move(attrs));
}

llvm::LogicalResult txc::onnximport::outputIf(NodeImporter &node,
                                              MaybeValue value) {
  return value ? node.setOutput(0, *value) : llvm::failure();
}

llvm::LogicalResult
txc::onnximport::outputsIf(NodeImporter &node,
                           llvm::ArrayRef<MaybeValue> values) {
  for (unsigned i = 0; i < values.size() && i < node.numOutputs(); ++i) {
    if (node.outputName(i).empty())
      continue;
    if (!values[i] || llvm::failed(node.setOutput(i, *values[i])))
      return llvm::failure();
  }
  return llvm::success();
}

Interval txc::onnximport::dimBounds(NodeImporter &node, const ShapeExpr &dim) {
  return dim.bounds(node.program().symbolRanges());
}

MaybeValue txc::onnximport::dimValue(NodeImporter &node, const ShapeExpr &dim) {
  if (std::optional<int64_t> constant = dim.getConstant())
    return node.scalar(DType::I64, double(*constant));
  return emitIf(
      node, "sum",
      {node.emit("broadcast_to", {node.scalar(DType::I64, 1)},
                 {shapeAttr("shape", {dim}, node.program().symbolNames())})},
      {intListAttr("axes", {0}), boolAttr("keepdims", false)});
}
