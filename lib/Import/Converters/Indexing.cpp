//===- Indexing.cpp - ONNX GatherElements, GatherND and the scatters ------===//
//
// Each is one txc op of the same semantics (docs/ops.md): negative indices
// count from the end, as ONNX says, and an index out of range fails the
// call with status 11 instead of being an error ONNX leaves undefined.
// Where ONNX leaves the result undefined (duplicate indices of a scatter
// without reduction), txc's ops define it: the updates apply in row-major
// order and the last one wins. (Gather, whose constant indices take part
// in the shape arithmetic, is in ShapeOps.cpp.)
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

/// GatherElements-13: txc's gather_elements.
llvm::LogicalResult convertGatherElements(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::optional<int64_t> axis = readAxisAttr(node, data);
  if (!axis)
    return llvm::failure();
  return node.emitOutput(0, "gather_elements", {data, node.input(1)},
                         {intAttr("axis", *axis)});
}

/// GatherND-13: txc's gather_nd, with batch_dims.
llvm::LogicalResult convertGatherND(NodeImporter &node) {
  return node.emitOutput(
      0, "gather_nd", {node.input(0), node.input(1)},
      {intAttr("batch_dims", node.intAttr("batch_dims", 0))});
}

/// The attributes of a scatter with the node's `reduction`: none of them for
/// ONNX's default "none"; an unknown reduction makes the node invalid.
std::optional<std::vector<NodeAttr>> scatterAttrs(NodeImporter &node,
                                                  std::vector<NodeAttr> attrs) {
  std::string reduction = node.stringAttr("reduction", "none");
  if (reduction == "none")
    return attrs;
  if (reduction != "add" && reduction != "mul") {
    (void)node.invalid("its reduction '" + reduction +
                       "' is not one of 'none', 'add' and 'mul'");
    return std::nullopt;
  }
  attrs.push_back(stringAttr("reduction", reduction));
  return attrs;
}

/// ScatterElements-16 (and Scatter-9, which ONNX's version converter
/// turns into it): txc's scatter_elements.
llvm::LogicalResult convertScatterElements(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::optional<int64_t> axis = readAxisAttr(node, data);
  if (!axis)
    return llvm::failure();
  auto attrs = scatterAttrs(node, {intAttr("axis", *axis)});
  if (!attrs)
    return llvm::failure();
  return node.emitOutput(0, "scatter_elements",
                         {data, node.input(1), node.input(2)},
                         std::move(*attrs));
}

/// ScatterND-16: txc's scatter_nd.
llvm::LogicalResult convertScatterND(NodeImporter &node) {
  auto attrs = scatterAttrs(node, {});
  if (!attrs)
    return llvm::failure();
  return node.emitOutput(0, "scatter_nd",
                         {node.input(0), node.input(1), node.input(2)},
                         std::move(*attrs));
}

} // namespace

void txc::onnximport::addIndexingConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(),
               {
                   {"GatherElements", 13, 17, convertGatherElements},
                   {"GatherND", 13, 17, convertGatherND},
                   {"ScatterElements", 16, 17, convertScatterElements},
                   {"ScatterND", 16, 17, convertScatterND},
               });
}
