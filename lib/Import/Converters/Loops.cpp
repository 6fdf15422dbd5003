//===- Loops.cpp - Building txc while loops for the converters ------------===//
#include "Loops.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

/// While alive, the importer emits its nodes into `region`.
class RegionScope {
public:
  RegionScope(GraphImporter &importer, Graph &region)
      : importer(importer), enclosing(importer.current) {
    importer.current = &region;
  }
  ~RegionScope() { importer.current = enclosing; }

private:
  GraphImporter &importer;
  Graph *enclosing;
};

/// A new input of `region` of `type`, named after the node's first output.
ImportedValue addInput(NodeImporter &node, Graph &region,
                       const TensorType &type) {
  std::string base = "state";
  for (unsigned i = 0; i < node.numOutputs(); ++i)
    if (!node.outputName(i).empty()) {
      base = node.importer().names.map(node.outputName(i)) + "_state";
      break;
    }
  ValueDecl decl;
  decl.name = node.importer().names.fresh(base);
  decl.type = type;
  region.inputs.push_back(decl);
  return ImportedValue{type, decl.name, nullptr, ""};
}

/// The region's inputs, one per loop-carried value.
LoopState addInputs(NodeImporter &node, Graph &region,
                    llvm::ArrayRef<ImportedValue> state) {
  LoopState inputs;
  for (const ImportedValue &value : state)
    inputs.push_back(addInput(node, region, value.type));
  return inputs;
}

bool addOutputs(NodeImporter &node, Graph &region,
                llvm::ArrayRef<MaybeValue> values) {
  for (const MaybeValue &value : values) {
    if (!value)
      return false;
    std::optional<std::string> ref =
        node.importer().materialize(*value, node.nodeIndex());
    if (!ref)
      return false;
    OutputDecl output;
    output.name = *ref;
    output.value = *ref;
    region.outputs.push_back(std::move(output));
  }
  return true;
}

/// Reports the first value of `next` whose type is not the state's.
bool checkCarriedTypes(NodeImporter &node,
                       llvm::ArrayRef<ImportedValue> state,
                       const LoopState &next) {
  for (size_t i = 0; i < state.size(); ++i) {
    const TensorType &before = state[i].type, &after = next[i]->type;
    if (after == before)
      continue;
    (void)node.unsupported(
        "its loop-carried value " + llvm::Twine(i) + " is " +
            dtypeName(before.dtype) + node.str(before.shape) +
            " before an iteration and " + dtypeName(after.dtype) +
            node.str(after.shape) + " after it",
        "txc's while keeps the dtypes and shapes of its loop-carried values: "
        "keep them the same in the loop body");
    return false;
  }
  return true;
}

} // namespace

MaybeValue LoopBody::outside(llvm::function_ref<MaybeValue()> make) {
  RegionScope scope(node.importer(), *enclosing);
  return make();
}

MaybeValue LoopBody::carry(MaybeValue start) {
  if (!start)
    return std::nullopt;
  initial.push_back(*start);
  return addInput(node, region, start->type);
}

MaybeValue LoopBody::stack(const ImportedValue &element,
                          const ShapeExpr &length, int64_t axis,
                          MaybeValue position) {
  Shape shape = element.type.shape;
  shape.insert(shape.begin() + axis, length);
  MaybeValue stacked = carry(
      outside([&] { return zeros(node, element.type.dtype, shape); }));
  MaybeValue positions = outside([&] {
    return stackPositions(node, length, axis, int64_t(shape.size()));
  });
  return stackStep(node, stacked, element, position, positions, axis);
}

std::optional<std::vector<ImportedValue>> txc::onnximport::emitWhile(
    NodeImporter &node, llvm::ArrayRef<MaybeValue> initial,
    int64_t maxIterations,
    llvm::function_ref<MaybeValue(const LoopState &)> condition,
    llvm::function_ref<std::optional<LoopState>(const LoopState &, LoopBody &)>
        body) {
  std::vector<ImportedValue> operands;
  for (const MaybeValue &value : initial) {
    if (!value)
      return std::nullopt;
    operands.push_back(*value);
  }
  GraphImporter &importer = node.importer();
  Graph *enclosing = importer.current;
  auto bodyRegion = std::make_unique<Graph>();
  auto condRegion = std::make_unique<Graph>();
  {
    RegionScope scope(importer, *bodyRegion);
    LoopState state = addInputs(node, *bodyRegion, operands);
    LoopBody loop(node, *bodyRegion, enclosing, operands);
    std::optional<LoopState> next = body(state, loop);
    if (!next || next->size() != operands.size() ||
        llvm::any_of(*next, [](const MaybeValue &v) { return !v; }) ||
        !checkCarriedTypes(node, operands, *next) ||
        !addOutputs(node, *bodyRegion, *next))
      return std::nullopt;
  }
  {
    RegionScope scope(importer, *condRegion);
    LoopState state = addInputs(node, *condRegion, operands);
    if (!addOutputs(node, *condRegion, {condition(state)}))
      return std::nullopt;
  }
  std::vector<TensorType> types;
  for (const ImportedValue &value : operands)
    types.push_back(value.type);
  std::vector<std::pair<std::string, std::unique_ptr<Graph>>> regions;
  regions.emplace_back("cond", std::move(condRegion));
  regions.emplace_back("body", std::move(bodyRegion));
  return node.emitRegionNode("while", operands,
                             {intAttr("max_iterations", maxIterations)},
                             std::move(regions), types);
}

MaybeValue txc::onnximport::stackPositions(NodeImporter &node,
                                           const ShapeExpr &length,
                                           int64_t axis, int64_t rank) {
  std::vector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      others.push_back(d);
  MaybeValue positions = node.emit(
      "range", {},
      {shapeAttr("shape", {length}, node.program().symbolNames()),
       stringAttr("dtype", "i64")});
  if (others.empty())
    return positions;
  return emitIf(node, "unsqueeze", {positions}, {intListAttr("axes", others)});
}

MaybeValue txc::onnximport::stackStep(NodeImporter &node, MaybeValue stack,
                                      MaybeValue element, MaybeValue position,
                                      MaybeValue positions, int64_t axis) {
  return emitIf(
      node, "select",
      {emitIf(node, "eq", {positions, position}),
       emitIf(node, "unsqueeze", {element}, {intListAttr("axes", {axis})}),
       stack});
}

MaybeValue txc::onnximport::zeros(NodeImporter &node, DType dtype,
                                  const Shape &shape) {
  return node.emit("broadcast_to", {node.scalar(dtype, 0)},
                   {shapeAttr("shape", shape, node.program().symbolNames())});
}
