//===- ControlFlow.cpp - ONNX If ------------------------------------------===//
//
// If-16 is txc's `cond`: its branches become the cond's `then` and `else`
// regions, which read the enclosing values they name (ONNX's outer-scope
// references) directly, so the cond has no arguments. A condition known at
// import (shape arithmetic, a constant) selects its branch there, whose
// nodes are imported in place.
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

const onnx::GraphProto *branch(NodeImporter &node, llvm::StringRef name) {
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
  const onnx::GraphProto *thenGraph = branch(node, "then_branch");
  const onnx::GraphProto *elseGraph = branch(node, "else_branch");
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

} // namespace

void txc::onnximport::addControlFlowConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(), {
                                {"If", 16, 17, convertIf},
                            });
}
