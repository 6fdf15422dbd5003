//===- Explain.cpp - txc explain: the captured region for review ----------===//
//
// Reads, verifies and builds the contract of a program exactly like `txc
// check`, then shows what a reviewer needs: the symbols, inputs, constants,
// every op (in evaluation order) with its inferred symbolic result type, the
// outputs, and the assumptions the artifact makes about its callers, each
// with the guards it produces and the program location it comes from.
//
//===----------------------------------------------------------------------===//
#include "txc/Tools/Tools.h"

#include "txc/Analysis/Contract.h"
#include "txc/Analysis/Regions.h"
#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Program/ProgramJson.h"
#include "txc/Support/OutputFiles.h"

#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <map>

using namespace txc;
using json = nlohmann::ordered_json;

namespace {

/// Guards that come from the same place in the program, in the order of
/// the first of them: one assumption about the callers.
struct Assumption {
  Loc loc;
  std::string statement;
  std::vector<const Guard *> guards;
};

class Explainer {
public:
  Explainer(const Program &program, const Contract &contract)
      : program(program), contract(contract),
        regions(planRegions(program, contract)), names(program.symbolNames()),
        file(llvm::sys::path::filename(program.file).str()),
        shownFile(escapeForTerminal(file)) {
    groupAssumptions();
    for (const Guard &g : contract.guards)
      if (g.kind == GuardKind::SymbolRange && g.symbol >= 0 &&
          !determinedBy.count(g.symbol))
        determinedBy[g.symbol] = dimRef(g.tensor, g.dim);
  }

  std::string text() const;
  std::string toJson() const;
  std::string dot() const;

private:
  std::string type(const TensorType &t) const {
    return dtypeName(t.dtype).str() + shapeToString(t.shape, names);
  }
  std::string where(const Loc &loc) const {
    if (!loc.isKnown())
      return shownFile;
    return shownFile + ":" + std::to_string(loc.line) + ":" +
           std::to_string(loc.column);
  }
  std::string dimRef(int tensor, int dim) const {
    return contract.inputs[tensor].name + ".shape[" + std::to_string(dim) + "]";
  }
  std::string symbolRange(size_t s) const {
    const ContractSymbol &symbol = contract.symbols[s];
    std::string text = "[" + std::to_string(symbol.min) + ", " +
                       std::to_string(symbol.max) + "]";
    if (symbol.multipleOf != 1)
      text += ", a multiple of " + std::to_string(symbol.multipleOf);
    return text;
  }
  void groupAssumptions();
  std::string statementFor(const Assumption &a) const;
  json locJson(const Loc &loc) const { return locationToJson(file, loc); }
  json shapeJson(const Shape &shape) const { return shapeToJson(shape, names); }
  static std::string attrText(const AttrValue &value);
  std::string nodeText(const Node &node) const;
  void graphText(const Graph &graph, unsigned indent, std::string &out) const;
  json graphJson(const Graph &graph) const;
  void graphDot(const Graph &graph, const std::string &scope, std::string &out,
                unsigned indent) const;
  std::string guardNote(TensorSide side, size_t index, const std::string &name,
                        const std::string &node) const;

  std::string regionsText() const;

  const Program &program;
  const Contract &contract;
  RegionPlan regions;
  std::vector<std::string> names;
  std::string file;
  /// The file name as text and DOT show it: any control character escaped
  /// (the names in a verified program are identifiers).
  std::string shownFile;
  std::vector<Assumption> assumptions;
  std::map<int, std::string> determinedBy;
};

} // namespace

void Explainer::groupAssumptions() {
  std::map<std::string, size_t> byPointer;
  for (const Guard &g : contract.guards) {
    auto [it, inserted] =
        byPointer.try_emplace(g.origin.pointer, assumptions.size());
    if (inserted)
      assumptions.push_back({g.origin, "", {}});
    assumptions[it->second].guards.push_back(&g);
  }
  for (Assumption &a : assumptions)
    a.statement = statementFor(a);
}

std::string Explainer::statementFor(const Assumption &a) const {
  const Guard &first = *a.guards.front();
  auto bytesOf = [&](TensorSide side, int index) -> std::string {
    for (const Guard *g : a.guards)
      if (g->kind == GuardKind::BufferSize && g->side == side &&
          g->tensor == index)
        return g->expr.toString(names);
    return "?";
  };
  switch (first.kind) {
  case GuardKind::InputCount:
  case GuardKind::OutputCount:
  case GuardKind::InputsArray:
  case GuardKind::OutputsArray:
    return "the call passes " + std::to_string(contract.inputs.size()) +
           " input" + (contract.inputs.size() == 1 ? "" : "s") + " and " +
           std::to_string(contract.outputs.size()) + " output" +
           (contract.outputs.size() == 1 ? "" : "s") +
           ", in arrays that are not NULL";
  case GuardKind::DataPointer:
  case GuardKind::BufferSize:
  case GuardKind::NoAlias:
    if (first.side == TensorSide::Input)
      return "input '" + contract.inputs[first.tensor].name +
             "' is a buffer at a non-NULL address with at least " +
             bytesOf(first.side, first.tensor) + " bytes";
    return "output '" + contract.outputs[first.tensor].name +
           "' is a writable buffer at a non-NULL address with at least " +
           bytesOf(first.side, first.tensor) +
           " bytes that overlaps no input and no other output";
  case GuardKind::DType:
    return "input '" + contract.inputs[first.tensor].name + "' has dtype " +
           dtypeName(contract.inputs[first.tensor].type.dtype).str();
  case GuardKind::Rank:
    return "input '" + contract.inputs[first.tensor].name + "' has rank " +
           std::to_string(contract.inputs[first.tensor].type.rank());
  case GuardKind::StaticDim:
    return dimRef(first.tensor, first.dim) + " is " +
           std::to_string(first.value);
  case GuardKind::SymbolForm:
  case GuardKind::SymbolRange:
  case GuardKind::SymbolMultiple:
  case GuardKind::SymbolValues: {
    const ShapeExpr &dim = contract.inputs[first.tensor].type.shape[first.dim];
    return dimRef(first.tensor, first.dim) + " is " + dim.toString(names) +
           "; it determines " + contract.symbols[first.symbol].name +
           ", declared in " + symbolRange(first.symbol);
  }
  case GuardKind::DimEquals:
    return dimRef(first.tensor, first.dim) + " is " +
           first.expr.toString(names) +
           " for the symbol values determined by earlier dimensions";
  case GuardKind::IndexInRange: {
    auto range = [&](const Guard &g) {
      return "[" + lowestValidIndex(g).toString(names) + ", " +
             g.expr.toString(names) + ")";
    };
    if (first.column < 0)
      return "every index that node '" + first.node + "' reads is in " +
             range(first);
    // gather_nd, scatter_nd: one guard per entry of the index tuples.
    std::string text = "each index tuple of node '" + first.node + "' has";
    for (const Guard *g : a.guards)
      text += std::string(g == &first ? "" : ",") + " entry " +
              std::to_string(g->column) + " in " + range(*g);
    return text;
  }
  }
  return "";
}

std::string Explainer::attrText(const AttrValue &value) {
  switch (value.kind) {
  case AttrValue::Kind::Null:
    return "null";
  case AttrValue::Kind::Bool:
    return value.boolean ? "true" : "false";
  case AttrValue::Kind::Int:
    return std::to_string(value.integer);
  case AttrValue::Kind::Float: {
    std::string text = json(value.number).dump();
    return text;
  }
  case AttrValue::Kind::String:
    return json(value.string).dump();
  case AttrValue::Kind::List: {
    std::string text = "[";
    for (size_t i = 0; i < value.list.size(); ++i)
      text += (i ? ", " : "") + attrText(value.list[i]);
    return text + "]";
  }
  }
  return "";
}

std::string Explainer::nodeText(const Node &node) const {
  std::string text = node.name + " = " + node.opName + "(";
  for (size_t i = 0; i < node.operands.size(); ++i)
    text += (i ? ", " : "") + node.operands[i];
  text += ")";
  for (const NodeAttr &attr : node.attributes)
    text += " " + attr.name + "=" + attrText(attr.value);
  text += " -> ";
  for (size_t r = 0; r < node.resultTypes.size(); ++r)
    text += (r ? ", " : "") + type(node.resultTypes[r]);
  return text;
}

void Explainer::graphText(const Graph &graph, unsigned indent,
                          std::string &out) const {
  std::string pad(indent, ' ');
  for (const ValueDecl &input : graph.inputs)
    out += pad + "region input " + input.name + ": " + type(input.type) +
           "  (" + where(input.loc) + ")\n";
  for (const Node &node : graph.nodes) {
    out += pad + nodeText(node) + "  (" + where(node.loc) + ")\n";
    for (const auto &[name, region] : node.regions) {
      out += pad + "  region '" + name + "':\n";
      graphText(*region, indent + 4, out);
    }
  }
  if (&graph != &program.body)
    for (const OutputDecl &output : graph.outputs)
      out += pad + "yield " + output.value + "\n";
}

std::string Explainer::text() const {
  std::string out = "program " + program.name + " (" + shownFile + ")\n";
  out += "\nsymbols\n";
  if (contract.symbols.empty())
    out += "  none\n";
  for (size_t s = 0; s < contract.symbols.size(); ++s) {
    auto it = determinedBy.find(int(s));
    out += "  " + contract.symbols[s].name + " in " + symbolRange(s) +
           (it != determinedBy.end() ? ", determined by " + it->second
                                     : std::string(", not used by inputs")) +
           "  (" + where(contract.symbols[s].loc) + ")\n";
  }
  out += "\ninputs\n";
  if (program.inputs.empty())
    out += "  none\n";
  for (const ValueDecl &input : program.inputs)
    out += "  " + input.name + ": " + type(input.type) + "  (" +
           where(input.loc) + ")\n";
  if (!program.constants.empty()) {
    out += "\nconstants\n";
    for (const ConstantDecl &c : program.constants)
      out += "  " + c.name + ": " + type(c.type) + "  (" + where(c.loc) + ")\n";
  }
  out += "\nops, in evaluation order\n";
  if (program.body.nodes.empty())
    out += "  none\n";
  graphText(program.body, 2, out);
  out += "\noutputs\n";
  for (const OutputDecl &output : program.body.outputs)
    out += "  " + output.name + " = " + output.value + ": " +
           type(output.type) + "  (" + where(output.loc) + ")\n";
  out += regionsText();
  out += "\nassumptions about the caller, and the guards that check them "
         "(in the order the object checks them)\n";
  for (const Assumption &a : assumptions) {
    out += "  " + where(a.loc) + " " +
           (a.loc.pointer.empty() ? std::string("/") : a.loc.pointer) + ": " +
           a.statement + "\n";
    for (const Guard *g : a.guards)
      out += "    guard " + std::to_string(g->id) + " " +
             guardKindName(g->kind).str() + " (" +
             statusCodeMacro(g->code).str() + "): " + g->expression + "\n";
  }
  return out;
}

std::string Explainer::regionsText() const {
  std::string out = "\nkernel regions (each compiled as a function; identical "
                    "regions share one)\n";
  const std::vector<Node> &nodes = program.body.nodes;
  for (size_t r = 0; r < regions.regions.size(); ++r) {
    const Region &region = regions.regions[r];
    out += "  region " + std::to_string(r) + " (" +
           regionKindName(region.kind).str() + ", function " +
           std::to_string(region.function) + "):";
    for (unsigned n = region.firstNode; n < region.endNode; ++n)
      out += " " + nodes[n].name;
    out += "\n";
  }
  auto count = [](size_t n, const char *noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  };
  out += "  " + count(regions.regions.size(), "region") + ", " +
         count(regions.functions.size(), "function") +
         (regions.regions.size() == 1 ? " (lowered into the kernel itself)"
                                      : "") +
         "\n";
  return out;
}

json Explainer::graphJson(const Graph &graph) const {
  json nodes = json::array();
  for (const Node &node : graph.nodes) {
    json entry;
    entry["name"] = node.name;
    entry["op"] = node.opName;
    entry["operands"] = node.operands;
    json attrs = json::object();
    for (const NodeAttr &attr : node.attributes)
      attrs[attr.name] = attrText(attr.value);
    entry["attributes"] = std::move(attrs);
    json results = json::array();
    for (const TensorType &t : node.resultTypes)
      results.push_back(
          {{"dtype", dtypeName(t.dtype).str()}, {"shape", shapeJson(t.shape)}});
    entry["results"] = std::move(results);
    entry["location"] = locJson(node.loc);
    if (!node.regions.empty()) {
      json regions = json::array();
      for (const auto &[name, region] : node.regions) {
        json r;
        r["name"] = name;
        json inputs = json::array();
        for (const ValueDecl &input : region->inputs)
          inputs.push_back({{"name", input.name},
                            {"dtype", dtypeName(input.type.dtype).str()},
                            {"shape", shapeJson(input.type.shape)}});
        r["inputs"] = std::move(inputs);
        r["nodes"] = graphJson(*region);
        json yields = json::array();
        for (const OutputDecl &output : region->outputs)
          yields.push_back(output.value);
        r["outputs"] = std::move(yields);
        regions.push_back(std::move(r));
      }
      entry["regions"] = std::move(regions);
    }
    nodes.push_back(std::move(entry));
  }
  return nodes;
}

std::string Explainer::toJson() const {
  json root;
  root["program"] = {
      {"name", program.name}, {"file", file}, {"sha256", program.sha256}};
  json symbols = json::array();
  for (size_t s = 0; s < contract.symbols.size(); ++s) {
    const ContractSymbol &symbol = contract.symbols[s];
    json entry;
    entry["name"] = symbol.name;
    entry["min"] = symbol.min;
    entry["max"] = symbol.max;
    entry["multiple_of"] = symbol.multipleOf;
    if (auto it = determinedBy.find(int(s)); it != determinedBy.end())
      entry["determined_by"] = it->second;
    entry["location"] = locJson(symbol.loc);
    symbols.push_back(std::move(entry));
  }
  root["symbols"] = std::move(symbols);
  json inputs = json::array();
  for (const ValueDecl &input : program.inputs)
    inputs.push_back({{"name", input.name},
                      {"dtype", dtypeName(input.type.dtype).str()},
                      {"shape", shapeJson(input.type.shape)},
                      {"location", locJson(input.loc)}});
  root["inputs"] = std::move(inputs);
  json constants = json::array();
  for (const ConstantDecl &c : program.constants)
    constants.push_back({{"name", c.name},
                         {"dtype", dtypeName(c.type.dtype).str()},
                         {"shape", shapeJson(c.type.shape)},
                         {"location", locJson(c.loc)}});
  root["constants"] = std::move(constants);
  root["nodes"] = graphJson(program.body);
  json outputs = json::array();
  for (const OutputDecl &output : program.body.outputs)
    outputs.push_back({{"name", output.name},
                       {"value", output.value},
                       {"dtype", dtypeName(output.type.dtype).str()},
                       {"shape", shapeJson(output.type.shape)},
                       {"location", locJson(output.loc)}});
  root["outputs"] = std::move(outputs);
  root["regions"] = regionPlanToJson(program, regions);
  json list = json::array();
  for (const Assumption &a : assumptions) {
    json ids = json::array();
    for (const Guard *g : a.guards)
      ids.push_back(g->id);
    list.push_back({{"statement", a.statement},
                    {"location", locJson(a.loc)},
                    {"guards", std::move(ids)}});
  }
  root["assumptions"] = std::move(list);
  json guards = json::array();
  for (const Guard &g : contract.guards)
    guards.push_back({{"id", g.id},
                      {"kind", guardKindName(g.kind).str()},
                      {"code", int(g.code)},
                      {"code_name", statusCodeMacro(g.code).str()},
                      {"expression", g.expression},
                      {"location", locJson(g.origin)}});
  root["guards"] = std::move(guards);
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

/// A Graphviz double-quoted string.
static std::string quote(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n"; // a centered line break
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// The DOT node of a value reference ("node:1" is result 1 of "node").
static std::string valueNode(llvm::StringRef ref) {
  llvm::StringRef base;
  unsigned result;
  if (!splitValueName(ref, base, result))
    base = ref;
  return quote("v:" + base.str());
}

void Explainer::graphDot(const Graph &graph, const std::string &scope,
                         std::string &out, unsigned indent) const {
  std::string pad(indent, ' ');
  for (const ValueDecl &input : graph.inputs)
    out += pad + valueNode(input.name) + " [shape=ellipse, label=" +
           quote(input.name + "\n" + type(input.type)) + "];\n";
  for (const Node &node : graph.nodes) {
    std::string label = node.name + " = " + node.opName;
    for (const TensorType &t : node.resultTypes)
      label += "\n" + type(t);
    label += "\n" + where(node.loc);
    out += pad + valueNode(node.name) +
           " [shape=box, style=rounded, label=" + quote(label) + "];\n";
    for (const std::string &operand : node.operands)
      out += pad + valueNode(operand) + " -> " + valueNode(node.name) + ";\n";
    size_t r = 0;
    for (const auto &[name, region] : node.regions) {
      std::string cluster = scope + "_" + node.name + "_" + std::to_string(r++);
      out += pad + "subgraph " + quote("cluster" + cluster) + " {\n";
      out += pad + "  label=" + quote(node.name + ": " + name) +
             "; style=dashed;\n";
      graphDot(*region, cluster, out, indent + 2);
      out += pad + "}\n";
    }
  }
}

/// A note with the guards about one tensor, tied to its node (`node`, a
/// quoted DOT id), or "" when there are none.
std::string Explainer::guardNote(TensorSide side, size_t index,
                                 const std::string &name,
                                 const std::string &node) const {
  std::string label;
  for (const Guard &g : contract.guards)
    if (g.side == side && g.tensor == int(index))
      label += "guard " + std::to_string(g.id) + ": " + g.expression + "\\l";
  if (label.empty())
    return "";
  std::string escaped;
  for (char c : label) {
    if (c == '"')
      escaped += '\\';
    escaped += c;
  }
  std::string note = quote(name);
  return "  " + note +
         " [shape=note, style=filled, fillcolor=\"#fff4c2\", label=\"" +
         escaped + "\"];\n  " + note + " -> " + node +
         " [style=dashed, arrowhead=none];\n";
}

std::string Explainer::dot() const {
  std::string out = "digraph " + quote(program.name) + " {\n";
  out += "  graph [fontname=\"Helvetica\", fontsize=10, rankdir=TB];\n";
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const ValueDecl &input = program.inputs[i];
    out += "  " + valueNode(input.name) +
           " [shape=ellipse, style=filled, fillcolor=\"#dbe9f6\", label=" +
           quote(input.name + "\n" + type(input.type)) + "];\n";
    out += guardNote(TensorSide::Input, i, "g:" + input.name,
                     valueNode(input.name));
  }
  for (const ConstantDecl &c : program.constants)
    out += "  " + valueNode(c.name) +
           " [shape=box3d, label=" + quote(c.name + "\n" + type(c.type)) +
           "];\n";
  graphDot(program.body, "body", out, 2);
  for (size_t o = 0; o < program.body.outputs.size(); ++o) {
    const OutputDecl &output = program.body.outputs[o];
    std::string id = quote("o:" + output.name);
    out += "  " + id +
           " [shape=doubleoctagon, style=filled, fillcolor=\"#dff0d8\", "
           "label=" +
           quote(output.name + "\n" + type(output.type)) + "];\n";
    out += "  " + valueNode(output.value) + " -> " + id + ";\n";
    out += guardNote(TensorSide::Output, o, "g:o:" + output.name, id);
  }
  return out + "}\n";
}

int txc::runExplain(const ExplainOptions &options, DiagnosticEngine &diags) {
  if (!options.entryPrefix.empty() && !isValidIdentifier(options.entryPrefix)) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "--entry-prefix '" + options.entryPrefix +
                    "' is not a C identifier");
    return diags.exitCode();
  }
  std::unique_ptr<Program> program =
      readProgramFile(options.programPath, diags);
  if (!program || !verifyProgram(*program, diags))
    return diags.exitCode();
  std::optional<Contract> contract =
      buildContract(*program, options.entryPrefix, diags);
  if (!contract)
    return diags.exitCode();
  Explainer explainer(*program, *contract);
  std::string text;
  switch (options.format) {
  case ExplainFormat::Text:
    text = explainer.text();
    break;
  case ExplainFormat::Json:
    text = explainer.toJson();
    break;
  case ExplainFormat::Dot:
    text = explainer.dot();
    break;
  }
  OutputFileSet outputs;
  outputs.add(options.outputPath, std::move(text));
  if (llvm::Error err = outputs.commit())
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                llvm::toString(std::move(err)));
  return diags.exitCode();
}
