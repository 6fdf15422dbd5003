//===- Regions.cpp - The program cut into kernel regions ------------------===//
//
// Regions are contiguous runs of top-level nodes, so every region reads only
// values of the regions before it and the kernel calls them in program
// order. The cut follows what the code generator fuses: an anchor (a
// contraction, a convolution, a pool, a row chain, a gather, a control-flow
// op) takes the elementwise ops after it as its epilogue; views and data
// movement after an anchor begin the next region, so that a view crosses a
// region boundary before it is taken (the buffer it views is passed, not a
// copy of the view); an anchor joins a region that has none yet (the
// elementwise ops and views before it are its prologue).
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/Regions.h"
#include "txc/Analysis/Contract.h"
#include "txc/Program/ProgramJson.h"
#include "txc/Support/Sha256.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <nlohmann/json.hpp>

using namespace txc;

llvm::StringRef txc::regionKindName(RegionKind kind) {
  switch (kind) {
  case RegionKind::Elementwise: return "elementwise";
  case RegionKind::Contraction: return "contraction";
  case RegionKind::Convolution: return "convolution";
  case RegionKind::Pooling: return "pooling";
  case RegionKind::RowChain: return "row-chain";
  case RegionKind::Shape: return "shape";
  case RegionKind::Indexing: return "indexing";
  case RegionKind::ControlFlow: return "control-flow";
  }
  return "";
}

namespace {

/// The anchor kind of an op, or nothing for elementwise ops and views.
std::optional<RegionKind> anchorKind(OpKind op) {
  switch (getOpInfo(op).category) {
  case OpCategory::ElementwiseUnary:
  case OpCategory::ElementwiseBinary:
  case OpCategory::Shape:
    return std::nullopt;
  case OpCategory::Contraction: return RegionKind::Contraction;
  case OpCategory::Convolution: return RegionKind::Convolution;
  case OpCategory::Pooling: return RegionKind::Pooling;
  case OpCategory::Reduction:
  case OpCategory::Normalization:
    return RegionKind::RowChain;
  case OpCategory::Indexing: return RegionKind::Indexing;
  case OpCategory::ControlFlow: return RegionKind::ControlFlow;
  }
  return std::nullopt;
}

} // namespace

bool txc::isFoldedIntoRegion(const ConstantDecl &constant) {
  if (constant.isStored())
    return false;
  // Up to this many elements, a constant costs less compiled in than
  // passed, and the codegen may fold it (a scale, a mask of a few lanes).
  constexpr size_t kMaxFoldedElements = 16;
  size_t elementBytes = dtypeSize(constant.type.dtype);
  llvm::ArrayRef<uint8_t> bytes = constant.data.bytes();
  if (elementBytes == 0 || bytes.size() <= kMaxFoldedElements * elementBytes)
    return true;
  for (size_t i = elementBytes; i < bytes.size(); i += elementBytes)
    if (bytes.slice(i, elementBytes) != bytes.take_front(elementBytes))
      return false;
  return true; // a splat
}

namespace {

bool isShapeOp(OpKind op) {
  return getOpInfo(op).category == OpCategory::Shape;
}

/// The reference a result is read by: `name` for the first, `name:i`.
std::string resultRef(const Node &node, size_t i) {
  return i == 0 ? node.name : node.name + ":" + std::to_string(i);
}

/// Calls `use` with every value `graph` reads from enclosing graphs: the
/// operands of its nodes and outputs (and of their nested graphs) that no
/// input or node of its own defines.
void forEachOuterValue(const Graph &graph,
                       llvm::function_ref<void(const std::string &)> use);

/// Calls `use` with each value `node` reads: its operands, then what its
/// nested graphs read from outside them.
void forEachRead(const Node &node,
                 llvm::function_ref<void(const std::string &)> use) {
  for (const std::string &operand : node.operands)
    use(operand);
  for (const auto &[name, graph] : node.regions)
    forEachOuterValue(*graph, use);
}

void forEachOuterValue(const Graph &graph,
                       llvm::function_ref<void(const std::string &)> use) {
  llvm::StringSet<> local;
  for (const ValueDecl &input : graph.inputs)
    local.insert(input.name);
  auto outer = [&](const std::string &value) {
    if (!local.contains(value))
      use(value);
  };
  for (const Node &node : graph.nodes) {
    forEachRead(node, outer);
    for (size_t i = 0; i < node.resultTypes.size(); ++i)
      local.insert(resultRef(node, i));
  }
  for (const OutputDecl &output : graph.outputs)
    outer(output.value);
}

/// Where each value of the program's top level comes from.
struct ValueTable {
  llvm::StringMap<TensorType> types;
  /// The inline constants compiled into the functions that read them.
  llvm::StringMap<const ConstantDecl *> inlineConstants;
  /// The region that defines each node result.
  llvm::StringMap<unsigned> definingRegion;

  explicit ValueTable(const Program &program) {
    for (const ValueDecl &input : program.inputs)
      types[input.name] = input.type;
    for (const ConstantDecl &constant : program.constants) {
      types[constant.name] = constant.type;
      if (isFoldedIntoRegion(constant))
        inlineConstants[constant.name] = &constant;
    }
    for (const Node &node : program.body.nodes)
      for (size_t i = 0; i < node.resultTypes.size(); ++i)
        types[resultRef(node, i)] = node.resultTypes[i];
  }
};

/// The runs of nodes, before their inputs, outputs and functions are known.
std::vector<Region> cutIntoRegions(const Program &program,
                                   const RegionOptions &options) {
  std::vector<Region> regions;
  bool hasAnchor = false;
  const std::vector<Node> &nodes = program.body.nodes;
  for (unsigned i = 0; i < nodes.size(); ++i) {
    std::optional<RegionKind> anchor = anchorKind(nodes[i].kind);
    bool begins = regions.empty() ||
                  (options.cut &&
                   (regions.back().numNodes() >= options.maxNodes ||
                    (hasAnchor && (anchor || isShapeOp(nodes[i].kind)))));
    if (begins) {
      regions.push_back(Region{});
      regions.back().firstNode = i;
      hasAnchor = false;
    }
    Region &region = regions.back();
    region.endNode = i + 1;
    if (anchor && !hasAnchor) {
      region.kind = *anchor;
      hasAnchor = true;
    }
  }
  return regions;
}

/// Fills each region's inputs (first use) and outputs (read by a later
/// region or returned).
void findRegionValues(const Program &program, const ValueTable &values,
                      std::vector<Region> &regions) {
  const std::vector<Node> &nodes = program.body.nodes;
  llvm::StringMap<unsigned> definingRegion;
  // The values each region must hand on, by region.
  std::vector<llvm::StringSet<>> handedOn(regions.size());
  for (unsigned r = 0; r < regions.size(); ++r) {
    Region &region = regions[r];
    llvm::StringSet<> seen;
    auto read = [&](const std::string &value) {
      auto defined = definingRegion.find(value);
      if (defined != definingRegion.end() && defined->second == r)
        return;
      if (values.inlineConstants.count(value) || !seen.insert(value).second)
        return;
      region.inputs.push_back(value);
      if (defined != definingRegion.end())
        handedOn[defined->second].insert(value);
    };
    for (unsigned n = region.firstNode; n < region.endNode; ++n) {
      forEachRead(nodes[n], read);
      for (size_t i = 0; i < nodes[n].resultTypes.size(); ++i)
        definingRegion[resultRef(nodes[n], i)] = r;
    }
  }
  for (const OutputDecl &output : program.body.outputs) {
    auto defined = definingRegion.find(output.value);
    if (defined != definingRegion.end())
      handedOn[defined->second].insert(output.value);
  }
  for (unsigned r = 0; r < regions.size(); ++r)
    for (unsigned n = regions[r].firstNode; n < regions[r].endNode; ++n)
      for (size_t i = 0; i < nodes[n].resultTypes.size(); ++i)
        if (handedOn[r].contains(resultRef(nodes[n], i)))
          regions[r].outputs.push_back(resultRef(nodes[n], i));
}

//===----------------------------------------------------------------------===//
// The canonical description of a region
//===----------------------------------------------------------------------===//

/// Writes a region without the names of its values, so that two regions
/// that compute the same thing on other buffers describe the same.
class RegionDescriber {
public:
  RegionDescriber(const Program &program, const ValueTable &values,
                  llvm::raw_ostream &os)
      : program(program), values(values), os(os),
        symbolNames(program.symbolNames()) {}

  void describe(const Region &region) {
    os << "txc.region v1\n";
    scopes.emplace_back();
    for (size_t i = 0; i < region.inputs.size(); ++i) {
      scopes.back()[region.inputs[i]] = "in" + std::to_string(i);
      os << "in" << i << ": " << typeText(values.types.lookup(region.inputs[i]))
         << "\n";
    }
    for (unsigned n = region.firstNode; n < region.endNode; ++n)
      describeNode(program.body.nodes[n]);
    os << "outputs:";
    for (const std::string &output : region.outputs)
      os << " " << ref(output);
    os << "\n";
  }

private:
  std::string typeText(const TensorType &type) {
    return dtypeName(type.dtype).str() + shapeToJson(type.shape, symbolNames).dump();
  }

  /// The local name of a value: an input, a node result of this region
  /// (with the nested graphs' own values), or an inline constant,
  /// described where it is first read.
  std::string ref(const std::string &value) {
    for (auto scope = scopes.rbegin(); scope != scopes.rend(); ++scope) {
      auto found = scope->find(value);
      if (found != scope->end())
        return found->second;
    }
    const ConstantDecl *constant = values.inlineConstants.lookup(value);
    if (!constant)
      return "?" + value; // a verified program has no such value
    std::string local = "c" + std::to_string(numConstants++);
    os << local << ": " << typeText(constant->type) << " "
       << Sha256::toHex(Sha256::hash(constant->data.bytes())) << "\n";
    scopes.front()[value] = local;
    return local;
  }

  void describeNode(const Node &node) {
    std::vector<std::string> operands;
    for (const std::string &operand : node.operands)
      operands.push_back(ref(operand));
    std::string local = "n" + std::to_string(numNodes++);
    os << local << " = " << node.opName << "(";
    for (size_t i = 0; i < operands.size(); ++i)
      os << (i ? ", " : "") << operands[i];
    os << ")";
    for (const NodeAttr &attr : node.attributes)
      os << " " << attr.name << "=" << attributeText(attr.value);
    // A gather's index guard is its own (its id names this node in the
    // contract): such regions are never shared.
    if (getOpInfo(node.kind).category == OpCategory::Indexing)
      os << " guard-of=" << node.name;
    os << " ->";
    for (const TensorType &type : node.resultTypes)
      os << " " << typeText(type);
    os << "\n";
    for (const auto &[name, graph] : node.regions)
      describeGraph(name, *graph);
    for (size_t i = 0; i < node.resultTypes.size(); ++i)
      scopes.back()[resultRef(node, i)] = local + "." + std::to_string(i);
  }

  void describeGraph(const std::string &name, const Graph &graph) {
    os << "graph " << name << " {\n";
    scopes.emplace_back();
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      std::string local = "g" + std::to_string(numGraphInputs++);
      scopes.back()[graph.inputs[i].name] = local;
      os << local << ": " << typeText(graph.inputs[i].type) << "\n";
    }
    for (const Node &node : graph.nodes)
      describeNode(node);
    os << "yield:";
    for (const OutputDecl &output : graph.outputs)
      os << " " << ref(output.value);
    os << "\n}\n";
    scopes.pop_back();
  }

  static std::string attributeText(const AttrValue &value) {
    switch (value.kind) {
    case AttrValue::Kind::Null: return "null";
    case AttrValue::Kind::Bool: return value.boolean ? "true" : "false";
    case AttrValue::Kind::Int: return std::to_string(value.integer);
    case AttrValue::Kind::Float: {
      // Every bit of the double: 0.1 and the nearest other double differ.
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format_hex(
          llvm::bit_cast<uint64_t>(value.number), 18);
      return text;
    }
    case AttrValue::Kind::String: return nlohmann::json(value.string).dump();
    case AttrValue::Kind::List: {
      std::string text = "[";
      for (size_t i = 0; i < value.list.size(); ++i)
        text += (i ? "," : "") + attributeText(value.list[i]);
      return text + "]";
    }
    }
    return "";
  }

  const Program &program;
  const ValueTable &values;
  llvm::raw_ostream &os;
  std::vector<std::string> symbolNames;
  std::vector<std::map<std::string, std::string>> scopes;
  unsigned numConstants = 0, numNodes = 0, numGraphInputs = 0;
};

std::string regionKey(const Program &program, const ValueTable &values,
                      const Region &region) {
  std::string text;
  llvm::raw_string_ostream os(text);
  RegionDescriber(program, values, os).describe(region);
  return Sha256::toHex(Sha256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(text.data()), text.size())));
}

} // namespace

RegionPlan txc::planRegions(const Program &program, const Contract &,
                            const RegionOptions &options) {
  ValueTable values(program);
  RegionPlan plan;
  plan.regions = cutIntoRegions(program, options);
  findRegionValues(program, values, plan.regions);
  llvm::StringMap<unsigned> functionOfKey;
  for (unsigned r = 0; r < plan.regions.size(); ++r) {
    std::string key = regionKey(program, values, plan.regions[r]);
    auto [it, inserted] =
        functionOfKey.try_emplace(key, unsigned(plan.functions.size()));
    if (inserted)
      plan.functions.push_back(RegionFunction{key, r, 0});
    plan.regions[r].function = it->second;
    ++plan.functions[it->second].uses;
  }
  return plan;
}

nlohmann::ordered_json txc::regionPlanToJson(const Program &program,
                                             const RegionPlan &plan) {
  using json = nlohmann::ordered_json;
  json regions = json::array();
  for (const Region &region : plan.regions) {
    json nodes = json::array();
    for (unsigned n = region.firstNode; n < region.endNode; ++n)
      nodes.push_back(program.body.nodes[n].name);
    regions.push_back({{"kind", regionKindName(region.kind)},
                       {"function", region.function},
                       {"nodes", nodes},
                       {"inputs", region.inputs},
                       {"outputs", region.outputs}});
  }
  json functions = json::array();
  for (const RegionFunction &function : plan.functions)
    functions.push_back({{"key", function.key},
                         {"first_region", function.firstRegion},
                         {"uses", function.uses}});
  return {{"format", "txc.regions"},
          {"version", 1},
          {"program", program.name},
          {"regions", regions},
          {"functions", functions}};
}
