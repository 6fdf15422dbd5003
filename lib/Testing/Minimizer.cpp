//===- Minimizer.cpp - Shrinking a failing generated program --------------===//
#include "txc/Testing/Minimizer.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>

using namespace txc;

namespace {

llvm::StringRef baseOf(llvm::StringRef ref) { return ref.split(':').first; }

/// Removes nodes no output depends on, then unused constants and inputs.
void removeDead(GeneratedProgram &p) {
  std::set<std::string> live;
  std::vector<std::string> work(p.outputs.begin(), p.outputs.end());
  std::map<std::string, const GenNode *> byName;
  for (const GenNode &n : p.nodes)
    byName[n.name] = &n;
  while (!work.empty()) {
    std::string name = baseOf(work.back()).str();
    work.pop_back();
    if (!live.insert(name).second)
      continue;
    if (auto it = byName.find(name); it != byName.end())
      for (const std::string &o : it->second->operands)
        work.push_back(o);
  }
  std::vector<GenNode> nodes;
  for (GenNode &n : p.nodes)
    if (live.count(n.name))
      nodes.push_back(std::move(n));
  p.nodes = std::move(nodes);
  p.keepConstants(live);
}

/// Types of every value of a verifying program.
std::map<std::string, TensorType> valueTypes(const GeneratedProgram &p) {
  std::map<std::string, TensorType> types;
  DiagnosticEngine diags;
  std::unique_ptr<Program> program =
      verifyProgramText(p.toJson(), p.name + ".json", diags);
  if (!program)
    return types;
  for (const ValueDecl &in : program->inputs)
    types[in.name] = in.type;
  for (const ConstantDecl &c : program->constants)
    types[c.name] = c.type;
  for (const Node &n : program->body.nodes)
    for (size_t r = 0; r < n.resultTypes.size(); ++r)
      types[r ? n.name + ":" + std::to_string(r) : n.name] = n.resultTypes[r];
  return types;
}

bool verifies(const GeneratedProgram &p) {
  DiagnosticEngine diags;
  return verifyProgramText(p.toJson(), p.name + ".json", diags) != nullptr;
}

void replaceUses(GeneratedProgram &p, const std::string &from,
                 const std::string &to) {
  for (GenNode &n : p.nodes)
    for (std::string &o : n.operands)
      if (o == from || o == from + ":0")
        o = to;
  for (std::string &o : p.outputs)
    if (o == from || o == from + ":0")
      o = to;
}

} // namespace

GeneratedProgram txc::minimizeProgram(GeneratedProgram program,
                                      const FailurePredicate &stillFails,
                                      unsigned maxTests, unsigned &tests) {
  tests = 0;
  auto attempt = [&](GeneratedProgram candidate) {
    if (tests >= maxTests)
      return false;
    removeDead(candidate);
    if (candidate.outputs.empty() || !verifies(candidate))
      return false;
    ++tests;
    if (!stillFails(candidate))
      return false;
    program = std::move(candidate);
    return true;
  };
  bool changed = true;
  while (changed && tests < maxTests) {
    changed = false;
    // One output at a time.
    if (program.outputs.size() > 1)
      for (size_t o = 0; o < program.outputs.size() && !changed; ++o) {
        GeneratedProgram c = program;
        c.outputs = {program.outputs[o]};
        changed = attempt(std::move(c));
      }
    // Drop one output.
    for (size_t o = program.outputs.size(); o-- > 0 && tests < maxTests;) {
      if (program.outputs.size() < 2 || o >= program.outputs.size())
        continue;
      GeneratedProgram c = program;
      c.outputs.erase(c.outputs.begin() + o);
      changed = attempt(std::move(c)) || changed;
    }
    // Delete nodes, last first.
    for (size_t i = program.nodes.size(); i-- > 0 && tests < maxTests;) {
      if (i >= program.nodes.size())
        continue;
      std::map<std::string, TensorType> types = valueTypes(program);
      const GenNode node = program.nodes[i];
      // Uses of results other than 0 (split) cannot be rewired.
      bool otherResults = false, onlyOutputs = true;
      for (const GenNode &n : program.nodes)
        for (const std::string &o : n.operands)
          if (baseOf(o) == node.name) {
            onlyOutputs = false;
            otherResults = otherResults || (o != node.name && o != node.name + ":0");
          }
      for (const std::string &o : program.outputs)
        if (baseOf(o) == node.name)
          otherResults = otherResults || (o != node.name && o != node.name + ":0");
      if (otherResults)
        continue;
      bool done = false;
      // Rewire to an operand of the same type.
      for (const std::string &operand : node.operands) {
        auto a = types.find(operand), r = types.find(node.name);
        if (a == types.end() || r == types.end() || a->second != r->second)
          continue;
        GeneratedProgram c = program;
        c.nodes.erase(c.nodes.begin() + i);
        replaceUses(c, node.name, operand);
        if ((done = attempt(std::move(c))))
          break;
      }
      // Return an operand instead.
      if (!done && onlyOutputs)
        for (const std::string &operand : node.operands) {
          GeneratedProgram c = program;
          c.nodes.erase(c.nodes.begin() + i);
          replaceUses(c, node.name, operand);
          if ((done = attempt(std::move(c))))
            break;
        }
      changed = changed || done;
    }
    // Unused inputs.
    for (size_t i = program.inputs.size(); i-- > 0 && tests < maxTests;) {
      if (i >= program.inputs.size() || program.inputs.size() == 1)
        continue;
      bool used = false;
      for (const GenNode &n : program.nodes)
        for (const std::string &o : n.operands)
          used = used || o == program.inputs[i].name;
      for (const std::string &o : program.outputs)
        used = used || o == program.inputs[i].name;
      if (used)
        continue;
      GeneratedProgram c = program;
      c.inputs.erase(c.inputs.begin() + i);
      changed = attempt(std::move(c)) || changed;
    }
    // Symbol ranges: one value, or half the range.
    for (size_t s = 0; s < program.symbols.size() && tests < maxTests; ++s) {
      GenSymbol sym = program.symbols[s];
      if (sym.min == sym.max)
        continue;
      int64_t m = sym.multipleOf;
      int64_t lo = (sym.min + m - 1) / m * m, hi = sym.max / m * m;
      int64_t mid = (lo + hi) / 2 / m * m;
      std::vector<std::pair<int64_t, int64_t>> ranges = {
          {lo, lo}, {hi, hi}, {sym.min, std::max(mid, lo)}, {std::max(mid, lo), sym.max}};
      for (auto [a, b] : ranges) {
        if (a == sym.min && b == sym.max)
          continue;
        GeneratedProgram c = program;
        c.symbols[s].min = a;
        c.symbols[s].max = b;
        if (attempt(std::move(c))) {
          changed = true;
          break;
        }
      }
    }
  }
  return program;
}
