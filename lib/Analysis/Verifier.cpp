//===- Verifier.cpp - Names, ops, types and shapes of a program -----------===//
#include "txc/Analysis/Verifier.h"
#include "txc/Analysis/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <queue>
#include <set>

using namespace txc;

namespace {

/// What the verifier knows of a value in scope. `type` is empty when the
/// value's producer had an error (already reported): users of such a value
/// are skipped instead of reporting follow-on errors.
struct ValueInfo {
  std::optional<TensorType> type;
  Loc loc;
};

class Verifier {
public:
  Verifier(Program &program, DiagnosticEngine &diags)
      : program(program), diags(diags), symbolNames(program.symbolNames()) {}

  bool run();

private:
  using Scope = llvm::StringMap<ValueInfo>;

  void error(const Loc &loc, llvm::StringRef id, const llvm::Twine &message,
             DiagCategory category = DiagCategory::Invalid) {
    diags.error(category, id, program.file, loc, message);
  }
  Diagnostic &note(Diagnostic &diag, const Loc &loc,
                   const llvm::Twine &message) {
    Diagnostic n;
    n.severity = Severity::Note;
    n.category = diag.category;
    n.id = diag.id;
    n.file = loc.isKnown() ? program.file : "";
    n.loc = loc;
    n.message = message.str();
    diag.notes.push_back(std::move(n));
    return diag;
  }

  std::string str(const Shape &shape) const {
    return shapeToString(shape, symbolNames);
  }

  void checkUniqueNames();
  void collectNames(const Graph &graph,
                    llvm::StringMap<const Loc *> &seen);
  void checkSymbols();
  bool checkDeclaredType(const ValueDecl &decl, llvm::StringRef what);
  bool checkTensorLimits(const TensorType &type, const Loc &loc,
                         const llvm::Twine &what,
                         llvm::ArrayRef<Loc> dimLocs = {});

  void verifyGraph(Graph &graph);
  /// Puts the nodes in dependency order. On a cycle, reports it, puts the
  /// nodes that have an order first (the others follow in file order) and
  /// returns false.
  bool orderNodes(Graph &graph);
  void verifyNode(Node &node);
  bool resolveOp(Node &node);
  bool checkAttributes(const Node &node, const OpInfo &info);
  bool checkAttributeType(const AttrValue &value, const AttrSpec &spec,
                          const Node &node);
  bool checkRegions(const Node &node, const OpInfo &info);
  std::optional<std::vector<TensorType>>
  verifyRegion(const Node &node, Graph &graph,
               const std::vector<TensorType> &inputTypes,
               const std::string &regionName);
  const ValueInfo *lookup(llvm::StringRef name) const;
  /// True when `name` is a node whose errors were reported: its results
  /// (`name:N` too, whose count is unknown) are used without new errors.
  bool isFailedNode(llvm::StringRef name) const {
    const ValueInfo *info = lookup(name);
    return info && !info->type;
  }
  std::optional<std::optional<TensorType>> resolveOperand(const Node &node,
                                                          size_t index);
  void define(llvm::StringRef name, std::optional<TensorType> type,
              const Loc &loc) {
    scopes.back()[name] = ValueInfo{std::move(type), loc};
  }
  /// Names of every value visible in scope, for "did you mean".
  std::string suggestValue(llvm::StringRef name) const;

  Program &program;
  DiagnosticEngine &diags;
  std::vector<std::string> symbolNames;
  std::vector<Scope> scopes;
  /// The graphs being verified, outermost first.
  std::vector<const Graph *> graphs;
  /// Every value name in the program, wherever defined.
  llvm::StringMap<const Loc *> allNames;
  /// Names defined more than once (reported by checkUniqueNames).
  llvm::StringSet<> duplicateNames;
};

} // namespace

//===----------------------------------------------------------------------===//
// Names and declarations
//===----------------------------------------------------------------------===//

void Verifier::collectNames(const Graph &graph,
                            llvm::StringMap<const Loc *> &seen) {
  auto add = [&](const std::string &name, const Loc &loc) {
    if (name.empty())
      return;
    auto [it, inserted] = seen.try_emplace(name, &loc);
    if (!inserted) {
      duplicateNames.insert(name);
      Diagnostic &diag = diags.error(
          DiagCategory::Invalid, "duplicate-name", program.file, loc,
          "the name '" + name + "' is defined twice");
      note(diag, *it->second, "first defined here");
    }
  };
  for (const ValueDecl &input : graph.inputs)
    add(input.name, input.loc);
  for (const Node &node : graph.nodes) {
    add(node.name, node.loc);
    for (const auto &region : node.regions)
      collectNames(*region.second, seen);
  }
}

void Verifier::checkUniqueNames() {
  auto add = [&](const std::string &name, const Loc &loc) {
    auto [it, inserted] = allNames.try_emplace(name, &loc);
    if (!inserted) {
      duplicateNames.insert(name);
      Diagnostic &diag = diags.error(
          DiagCategory::Invalid, "duplicate-name", program.file, loc,
          "the name '" + name + "' is defined twice");
      note(diag, *it->second, "first defined here");
    }
  };
  for (const ValueDecl &input : program.inputs)
    add(input.name, input.loc);
  for (const ConstantDecl &constant : program.constants)
    add(constant.name, constant.loc);
  collectNames(program.body, allNames);
}

void Verifier::checkSymbols() {
  std::vector<bool> used(program.symbols.size(), false);
  for (const ValueDecl &input : program.inputs)
    for (const ShapeExpr &dim : input.type.shape)
      for (uint32_t id : dim.symbols())
        used[id] = true;
  for (size_t i = 0; i < program.symbols.size(); ++i)
    if (!used[i])
      diags.warning(DiagCategory::Invalid, "unused-symbol", program.file,
                    program.symbols[i].loc,
                    "symbol '" + program.symbols[i].name +
                        "' is not used by any input shape");
}

bool Verifier::checkTensorLimits(const TensorType &type, const Loc &loc,
                                 const llvm::Twine &what,
                                 llvm::ArrayRef<Loc> dimLocs) {
  std::vector<Interval> ranges = program.symbolRanges();
  int64_t maxBytes = dtypeSize(type.dtype);
  bool symbolic = false;
  for (size_t i = 0; i < type.shape.size(); ++i) {
    Interval bounds = type.shape[i].bounds(ranges);
    // The generated code computes the operand of a floor division or modulo
    // in int64 once the symbols are in range: it must fit for every value.
    if (type.shape[i].hasFloorDivOrMod() &&
        !type.shape[i].checkedBounds(ranges)) {
      error(i < dimLocs.size() ? dimLocs[i] : loc, "limit",
            what + " has dimension " + llvm::Twine(i) + " = " +
                type.shape[i].toString(symbolNames) +
                ", which overflows a 64-bit integer for some symbol values");
      return false;
    }
    if (bounds.min < 0) {
      error(i < dimLocs.size() ? dimLocs[i] : loc, "bad-dim",
            what + " has dimension " + llvm::Twine(i) + " = " +
                type.shape[i].toString(symbolNames) +
                ", which is negative for some symbol values (as low as " +
                llvm::Twine(bounds.min) + ")");
      return false;
    }
    symbolic |= !type.shape[i].isConstant();
    if (__builtin_mul_overflow(maxBytes, bounds.max, &maxBytes))
      maxBytes = INT64_MAX;
  }
  if (maxBytes <= ProgramLimits::kMaxTensorBytes)
    return true;
  std::string bytes = maxBytes == INT64_MAX ? std::string("at least 2^63")
                                            : std::to_string(maxBytes);
  error(loc, "limit",
        what + " of shape " + str(type.shape) + " and dtype " +
            dtypeName(type.dtype) +
            (symbolic ? " can reach " + bytes +
                            " bytes at the symbols' maximum values"
                      : " has " + bytes + " bytes") +
            ", over the limit of 2^48 bytes");
  return false;
}

bool Verifier::checkDeclaredType(const ValueDecl &decl, llvm::StringRef what) {
  return checkTensorLimits(decl.type,
                           decl.shapeLoc.isKnown() ? decl.shapeLoc : decl.loc,
                           what + " '" + decl.name + "'", decl.dimLocs);
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

/// Base names a node depends on: its operands and the values its regions use
/// from outside (transitively).
static void collectUses(const Node &node, std::set<std::string> &uses) {
  for (const std::string &operand : node.operands) {
    llvm::StringRef base;
    unsigned result;
    splitValueName(operand, base, result);
    uses.insert(base.str());
  }
  for (const auto &region : node.regions) {
    for (const Node &inner : region.second->nodes)
      collectUses(inner, uses);
    for (const OutputDecl &output : region.second->outputs) {
      llvm::StringRef base;
      unsigned result;
      splitValueName(output.value, base, result);
      uses.insert(base.str());
    }
  }
}

bool Verifier::orderNodes(Graph &graph) {
  // Programs may list nodes in any order; they are evaluated in dependency
  // order. Kahn's algorithm, smallest original index first, keeps the file
  // order whenever it is already a valid order.
  size_t count = graph.nodes.size();
  llvm::StringMap<llvm::SmallVector<size_t, 1>> indexOf;
  for (size_t i = 0; i < count; ++i)
    indexOf[graph.nodes[i].name].push_back(i);
  std::vector<std::vector<size_t>> users(count);
  std::vector<size_t> pending(count, 0);
  std::vector<std::set<size_t>> depsOf(count);
  for (size_t i = 0; i < count; ++i) {
    std::set<std::string> uses;
    collectUses(graph.nodes[i], uses);
    for (const std::string &use : uses) {
      auto it = indexOf.find(use);
      if (it == indexOf.end())
        continue;
      // A node using itself is a cycle of length one, unless its name is
      // also defined elsewhere (already reported): then it uses the other
      // definition. A node depends on every node of a duplicated name.
      for (size_t dep : it->second)
        if (dep != i || !duplicateNames.contains(use))
          depsOf[i].insert(dep);
    }
    for (size_t dep : depsOf[i]) {
      users[dep].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < count; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t user : users[i])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (order.size() != count) {
    // Walk dependencies among the remaining nodes until one repeats.
    std::vector<bool> done(count, false);
    for (size_t i : order)
      done[i] = true;
    size_t start = 0;
    while (done[start])
      ++start;
    std::vector<size_t> path;
    std::vector<int> position(count, -1);
    size_t current = start;
    while (position[current] < 0) {
      position[current] = int(path.size());
      path.push_back(current);
      for (size_t dep : depsOf[current])
        if (!done[dep]) {
          current = dep;
          break;
        }
    }
    std::string cycle;
    for (size_t k = size_t(position[current]); k < path.size(); ++k)
      cycle += graph.nodes[path[k]].name + " -> ";
    cycle += graph.nodes[current].name;
    Diagnostic &diag =
        diags.error(DiagCategory::Invalid, "cycle", program.file,
                    graph.nodes[current].loc,
                    "nodes form a cycle: " + cycle +
                        " (each uses the next one's result)");
    for (size_t k = size_t(position[current]) + 1; k < path.size(); ++k)
      note(diag, graph.nodes[path[k]].loc,
           "'" + graph.nodes[path[k]].name + "' is part of the cycle");
  }
  // The nodes in the cycle, and those that depend on it, follow the ordered
  // ones in file order.
  size_t ordered = order.size();
  if (ordered != count) {
    std::vector<bool> placed(count, false);
    for (size_t i : order)
      placed[i] = true;
    for (size_t i = 0; i < count; ++i)
      if (!placed[i])
        order.push_back(i);
  }
  std::vector<Node> sorted;
  sorted.reserve(count);
  for (size_t i : order)
    sorted.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(sorted);
  return ordered == count;
}

const ValueInfo *Verifier::lookup(llvm::StringRef name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

std::string Verifier::suggestValue(llvm::StringRef name) const {
  std::string best;
  // About one typo per three characters, and never a whole name: any name
  // of one character is one edit away from any other.
  unsigned bestDistance = std::min<size_t>(
      std::max<size_t>(1, name.size() / 3) + 1, name.size());
  auto consider = [&](llvm::StringRef candidate) {
    unsigned distance = candidate.equals_insensitive(name)
                            ? 0
                            : name.edit_distance(candidate, true, bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate.str();
    }
  };
  for (const Scope &scope : scopes)
    for (const auto &entry : scope)
      consider(entry.getKey());
  // Nodes of the enclosing graphs that come later in dependency order are
  // not in scope yet, but a misspelled reference may mean one of them.
  for (const Graph *graph : graphs)
    for (const Node &node : graph->nodes)
      consider(node.name);
  return best;
}

std::optional<std::optional<TensorType>>
Verifier::resolveOperand(const Node &node, size_t index) {
  const std::string &ref = node.operands[index];
  Loc loc = index < node.operandLocs.size() ? node.operandLocs[index] : node.loc;
  llvm::StringRef base;
  unsigned result;
  if (!splitValueName(ref, base, result)) {
    error(loc, "bad-reference",
          "'" + ref + "' is not a value name (write 'node' or 'node:N')");
    return std::nullopt;
  }
  // Multi-result values are stored as "node:N" for N > 0.
  std::string key = result == 0 ? base.str() : ref;
  if (const ValueInfo *info = lookup(key))
    return info->type;
  if (isFailedNode(base))
    return std::optional<TensorType>(); // already reported
  if (result != 0 && lookup(base)) {
    error(loc, "bad-reference",
          "'" + base + "' has no result " + llvm::Twine(result));
    return std::nullopt;
  }
  if (allNames.count(base)) {
    error(loc, "bad-reference",
          "'" + base + "' is defined inside another node's region and is not "
                       "visible here");
    return std::nullopt;
  }
  std::string suggestion = suggestValue(base);
  error(loc, "unknown-value",
        "node '" + node.name + "' uses '" + ref +
            "', which is not an input, a constant or a node" +
            (suggestion.empty() ? std::string()
                                : " (did you mean '" + suggestion + "'?)"));
  return std::nullopt;
}

bool Verifier::resolveOp(Node &node) {
  if (const OpInfo *info = lookupOp(node.opName)) {
    node.kind = info->kind;
    return true;
  }
  if (const UnsupportedOpInfo *unsupported = lookupUnsupportedOp(node.opName)) {
    Diagnostic &diag = diags.error(
        DiagCategory::NotRepresentable, "not-representable", program.file,
        node.opLoc,
        "node '" + node.name + "' cannot be exported: op '" + node.opName +
            "' " + describeReason(unsupported->reason));
    note(diag, Loc(), "hint: " + unsupported->hint);
    return false;
  }
  std::string suggestion = suggestOpName(node.opName);
  diags.error(DiagCategory::NotRepresentable, "unknown-op", program.file,
              node.opLoc,
              "node '" + node.name + "' cannot be exported: unknown op '" +
                  node.opName + "'" +
                  (suggestion.empty() ? std::string()
                                      : " (did you mean '" + suggestion + "'?)"));
  return false;
}

bool Verifier::checkAttributeType(const AttrValue &value, const AttrSpec &spec,
                                  const Node &node) {
  auto isInt = [](const AttrValue &v) { return v.kind == AttrValue::Kind::Int; };
  bool ok = false;
  switch (spec.type) {
  case AttrType::Int:
    ok = isInt(value);
    break;
  case AttrType::Float:
    ok = isInt(value) || value.kind == AttrValue::Kind::Float;
    break;
  case AttrType::Bool:
    ok = value.kind == AttrValue::Kind::Bool;
    break;
  case AttrType::String:
    ok = value.kind == AttrValue::Kind::String;
    break;
  case AttrType::IntList:
    ok = value.kind == AttrValue::Kind::List && llvm::all_of(value.list, isInt);
    break;
  case AttrType::Shape:
    ok = value.kind == AttrValue::Kind::List &&
         llvm::all_of(value.list, [&](const AttrValue &v) {
           return isInt(v) || v.kind == AttrValue::Kind::String;
         });
    break;
  case AttrType::DType:
    ok = value.kind == AttrValue::Kind::String && parseDType(value.string);
    break;
  }
  if (!ok)
    error(value.loc, "bad-attribute",
          "attribute '" + spec.name + "' of node '" + node.name +
              "' must be " + attrTypeName(spec.type));
  return ok;
}

bool Verifier::checkAttributes(const Node &node, const OpInfo &info) {
  bool ok = true;
  for (const NodeAttr &attr : node.attributes) {
    const AttrSpec *spec = info.findAttribute(attr.name);
    if (!spec) {
      std::string known;
      for (const AttrSpec &s : info.attributes)
        known += (known.empty() ? "'" : ", '") + s.name.str() + "'";
      error(attr.loc, "unknown-attribute",
            "op '" + info.name + "' has no attribute '" + attr.name + "'" +
                (known.empty() ? std::string("; it takes no attributes")
                               : "; it takes " + known));
      ok = false;
      continue;
    }
    ok &= checkAttributeType(attr.value, *spec, node);
  }
  for (const AttrSpec &spec : info.attributes)
    if (spec.required && !node.findAttribute(spec.name)) {
      error(node.loc, "missing-attribute",
            "node '" + node.name + "' (op '" + info.name +
                "') needs the attribute '" + spec.name + "'");
      ok = false;
    }
  return ok;
}

bool Verifier::checkRegions(const Node &node, const OpInfo &info) {
  bool ok = true;
  for (const auto &region : node.regions)
    if (!llvm::is_contained(info.regions, llvm::StringRef(region.first))) {
      std::string expected;
      for (llvm::StringRef name : info.regions)
        expected += (expected.empty() ? "'" : ", '") + name.str() + "'";
      error(node.loc, "unexpected-region",
            "op '" + info.name + "' " +
                (expected.empty() ? std::string("takes no regions")
                                  : "takes the regions " + expected) +
                ", but node '" + node.name + "' has region '" + region.first +
                "'");
      ok = false;
    }
  for (llvm::StringRef name : info.regions)
    if (!node.findRegion(name)) {
      error(node.loc, "missing-region",
            "node '" + node.name + "' (op '" + info.name +
                "') needs the region '" + name + "'");
      ok = false;
    }
  return ok;
}

std::optional<std::vector<TensorType>>
Verifier::verifyRegion(const Node &node, Graph &graph,
                       const std::vector<TensorType> &inputTypes,
                       const std::string &regionName) {
  unsigned errorsBefore = diags.errorCount();
  if (graph.inputs.size() != inputTypes.size()) {
    error(node.loc, "region-signature",
          "region '" + regionName + "' of node '" + node.name + "' has " +
              llvm::Twine(graph.inputs.size()) + " inputs; op '" +
              getOpInfo(node.kind).name + "' passes it " +
              llvm::Twine(inputTypes.size()));
    return std::nullopt;
  }
  for (size_t i = 0; i < inputTypes.size(); ++i)
    if (graph.inputs[i].type != inputTypes[i]) {
      error(graph.inputs[i].loc, "region-signature",
            "input '" + graph.inputs[i].name + "' of region '" + regionName +
                "' is declared " + dtypeName(graph.inputs[i].type.dtype) +
                str(graph.inputs[i].type.shape) + " but receives " +
                dtypeName(inputTypes[i].dtype) + str(inputTypes[i].shape));
    }
  scopes.emplace_back();
  verifyGraph(graph);
  scopes.pop_back();
  if (diags.errorCount() != errorsBefore)
    return std::nullopt;
  std::vector<TensorType> outputs;
  for (const OutputDecl &output : graph.outputs)
    outputs.push_back(output.type);
  return outputs;
}

void Verifier::verifyNode(Node &node) {
  // Operands are resolved first so that dangling references are reported
  // even for nodes whose op is unknown.
  std::vector<TensorType> operandTypes;
  bool operandsKnown = true;
  for (size_t i = 0; i < node.operands.size(); ++i) {
    auto type = resolveOperand(node, i);
    if (!type || !*type) {
      operandsKnown = false;
      continue;
    }
    operandTypes.push_back(**type);
  }
  bool opKnown = resolveOp(node);
  auto defineResults = [&](const std::vector<TensorType> *types) {
    define(node.name, types && !types->empty()
                          ? std::optional<TensorType>((*types)[0])
                          : std::nullopt,
           node.loc);
    if (types)
      for (size_t i = 1; i < types->size(); ++i)
        define(node.name + ":" + std::to_string(i), (*types)[i], node.loc);
  };
  if (!opKnown) {
    defineResults(nullptr);
    return;
  }
  const OpInfo &info = getOpInfo(node.kind);
  bool ok = true;
  int count = int(node.operands.size());
  if (count < info.minOperands ||
      (info.maxOperands >= 0 && count > info.maxOperands)) {
    std::string expected =
        info.minOperands == info.maxOperands
            ? std::to_string(info.minOperands)
            : info.maxOperands < 0
                  ? "at least " + std::to_string(info.minOperands)
                  : std::to_string(info.minOperands) + " to " +
                        std::to_string(info.maxOperands);
    error(node.loc, "operand-count",
          "op '" + info.name + "' takes " + expected + " operand" +
              (expected == "1" ? "" : "s") + ", but node '" + node.name +
              "' has " + llvm::Twine(count));
    ok = false;
  }
  ok &= checkAttributes(node, info);
  ok &= checkRegions(node, info);
  if (!ok || !operandsKnown) {
    defineResults(nullptr);
    return;
  }
  InferenceContext ctx(program, node, std::move(operandTypes));
  ctx.verifyRegion = [&](const Graph &graph,
                         const std::vector<TensorType> &inputTypes,
                         const std::string &regionName) {
    return verifyRegion(node, const_cast<Graph &>(graph), inputTypes,
                        regionName);
  };
  std::vector<TensorType> results = inferResultTypes(ctx);
  for (const InferenceContext::Problem &problem : ctx.problems) {
    Diagnostic &diag = diags.error(DiagCategory::Invalid, problem.id,
                                   program.file, problem.loc, problem.message);
    for (const std::string &text : problem.notes)
      note(diag, Loc(), text);
  }
  if (!ctx.problems.empty() || results.empty()) {
    defineResults(nullptr);
    return;
  }
  bool withinLimits = true;
  for (size_t i = 0; i < results.size(); ++i)
    withinLimits &= checkTensorLimits(results[i], node.loc,
                                      "the result of node '" + node.name + "'");
  node.resultTypes = results;
  // Users of a result over the limits would only repeat the error.
  defineResults(withinLimits ? &node.resultTypes : nullptr);
}

void Verifier::verifyGraph(Graph &graph) {
  for (const ValueDecl &input : graph.inputs) {
    bool ok = checkDeclaredType(input, "graph input");
    define(input.name, ok ? std::optional<TensorType>(input.type) : std::nullopt,
           input.loc);
  }
  if (!orderNodes(graph)) {
    // The nodes without an order (in or after a cycle) have unknown types:
    // they are defined first so that their users are skipped instead of
    // reporting follow-on errors. Every node is still checked, so that a
    // cycle does not hide the program's other errors.
    for (Node &node : graph.nodes)
      define(node.name, std::nullopt, node.loc);
  }
  graphs.push_back(&graph);
  for (Node &node : graph.nodes)
    verifyNode(node);
  llvm::StringMap<const Loc *> outputNames;
  for (OutputDecl &output : graph.outputs) {
    auto [it, inserted] = outputNames.try_emplace(output.name, &output.loc);
    if (!inserted) {
      Diagnostic &diag =
          diags.error(DiagCategory::Invalid, "duplicate-name", program.file,
                      output.loc, "output '" + output.name + "' is listed twice");
      note(diag, *it->second, "first listed here");
    }
    llvm::StringRef base;
    unsigned result;
    if (!splitValueName(output.value, base, result)) {
      error(output.valueLoc, "bad-reference",
            "'" + output.value + "' is not a value name");
      continue;
    }
    std::string key = result == 0 ? base.str() : output.value;
    const ValueInfo *info = lookup(key);
    if (!info && isFailedNode(base))
      continue; // already reported
    if (!info) {
      std::string suggestion = suggestValue(base);
      error(output.valueLoc, "unknown-value",
            "output '" + output.name + "' returns '" + output.value +
                "', which is not an input, a constant or a node" +
                (suggestion.empty() ? std::string()
                                    : " (did you mean '" + suggestion + "'?)"));
      continue;
    }
    if (info->type)
      output.type = *info->type;
  }
  graphs.pop_back();
}

bool Verifier::run() {
  unsigned errorsBefore = diags.errorCount();
  checkUniqueNames();
  checkSymbols();
  scopes.emplace_back();
  for (const ValueDecl &input : program.inputs) {
    // An input over the limits is defined without a type so that its users
    // do not report the same problem again.
    bool ok = checkDeclaredType(input, "input");
    define(input.name, ok ? std::optional<TensorType>(input.type) : std::nullopt,
           input.loc);
  }
  for (const ConstantDecl &constant : program.constants)
    define(constant.name, constant.type, constant.loc);
  verifyGraph(program.body);
  scopes.pop_back();
  return diags.errorCount() == errorsBefore;
}

bool txc::verifyProgram(Program &program, DiagnosticEngine &diags) {
  return Verifier(program, diags).run();
}
