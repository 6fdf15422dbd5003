//===- Diff.cpp - txc diff: what a new manifest changes for callers -------===//
//
// Both manifests are read back into contracts and compared semantically:
// tensors by position (the ABI is positional) and name, dims as symbolic
// expressions (with symbols matched by name or, for a renamed symbol, by
// the input dimension that determines it), and each symbol's range as the
// set of values its guards accept. A change is
//
//  * breaking when a call the old artifact accepts may be rejected by the
//    new one, or may mean something else (an input removed, renamed,
//    reordered, a dtype, rank or dim changed, a range narrowed, divisibility
//    added, an entry point renamed, another target, the ABI or the
//    numerical guarantees changed);
//  * compatible when every old call still works (a range widened, the code
//    changed but not the contract: optimization level, a CPU whose features
//    are a subset);
//  * informational otherwise (program hash, compiler version, guard ids and
//    messages, declared ranges that accept the same values).
//
// As a safety net, the boundary calls of the old contract (txc testgen) are
// evaluated against both contracts; a call the old one accepts and the new
// one rejects is listed as an example and, if no other change explains it,
// is itself a breaking change.
//
//===----------------------------------------------------------------------===//
#include "txc/Tools/Tools.h"

#include "JsonReader.h"

#include "txc/Program/DType.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/Triple.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace txc;
using json = nlohmann::ordered_json;

namespace {

enum class ChangeClass { Breaking, Compatible, Informational };

llvm::StringRef className(ChangeClass c) {
  switch (c) {
  case ChangeClass::Breaking:
    return "breaking";
  case ChangeClass::Compatible:
    return "compatible";
  case ChangeClass::Informational:
    return "informational";
  }
  return "";
}

struct Change {
  ChangeClass cls;
  std::string kind; ///< stable id, e.g. "input-removed"
  std::string message;
  bool inOld = false;  ///< `pointer` is in the old manifest
  std::string pointer; ///< the item the change is about
};

struct Example {
  CallSpec call;
  CallOutcome outcome; ///< of the new contract
};

/// The values a symbol accepts: first, first + step, ..., last (step is
/// multiple_of; first and last are its multiples). Empty when first > last.
struct ValueSet {
  int64_t first, last, step;

  static ValueSet of(const ContractSymbol &s) {
    int64_t rem = s.min % s.multipleOf;
    int64_t first = rem == 0 ? s.min : s.min + (s.multipleOf - rem);
    return {first, s.max - s.max % s.multipleOf, s.multipleOf};
  }
  bool empty() const { return first > last; }
  bool contains(int64_t v) const {
    return v >= first && v <= last && v % step == 0;
  }
  /// The part of this set in [lo, hi].
  ValueSet clip(int64_t lo, int64_t hi) const {
    if (empty() || lo > hi || lo > last || hi < first)
      return {1, 0, step};
    ValueSet r = *this;
    if (lo > first)
      r.first = first + (lo - first + step - 1) / step * step;
    if (hi < last)
      r.last = first + (hi - first) / step * step;
    return r;
  }
  /// A value of this set that `other` does not contain, if any.
  std::optional<int64_t> outside(const ValueSet &other) const {
    if (empty())
      return std::nullopt;
    if (!other.contains(first))
      return first;
    if (!other.contains(last))
      return last;
    // first and last are in `other`; if `other`'s step does not divide
    // ours, first + step is not a multiple of it.
    if (first != last && !other.contains(first + step))
      return first + step;
    return std::nullopt;
  }
  bool subsetOf(const ValueSet &other) const {
    return !outside(other).has_value();
  }
  bool operator==(const ValueSet &o) const {
    if (empty() || o.empty())
      return empty() == o.empty();
    return first == o.first && last == o.last &&
           (first == last || step == o.step);
  }
  std::string str() const {
    if (empty())
      return "no value";
    std::string text =
        "[" + std::to_string(first) + ", " + std::to_string(last) + "]";
    if (step != 1 && first != last)
      text += " in steps of " + std::to_string(step);
    return text;
  }
};

std::string declared(const ContractSymbol &s) {
  std::string text =
      "[" + std::to_string(s.min) + ", " + std::to_string(s.max) + "]";
  if (s.multipleOf != 1)
    text += " multiple_of " + std::to_string(s.multipleOf);
  if (!s.values.empty())
    text += " values " + valuesText(s.values);
  return text;
}

/// A value `a` accepts and `b` rejects because of b's declared values (the
/// ranges and divisors were compared before): a few candidates suffice,
/// since b declares at most ProgramLimits::kMaxSymbolValues values.
std::optional<int64_t> valueNoLongerDeclared(const ContractSymbol &a,
                                             const ContractSymbol &b) {
  if (b.values.empty())
    return std::nullopt;
  ValueSet accepted = ValueSet::of(a).clip(b.min, b.max);
  auto rejected = [&](int64_t v) { return !llvm::is_contained(b.values, v); };
  if (!a.values.empty()) {
    for (int64_t v : a.values)
      if (rejected(v))
        return v;
    return std::nullopt;
  }
  for (int64_t v = accepted.first, k = 0;
       !accepted.empty() && v <= accepted.last && k <= int64_t(b.values.size());
       v += accepted.step, ++k)
    if (rejected(v))
      return v;
  return std::nullopt;
}

std::string typeText(const ContractTensor &t,
                     const std::vector<std::string> &names) {
  return dtypeName(t.type.dtype).str() + shapeToString(t.type.shape, names);
}

std::string shortHash(const std::string &hash) {
  return hash.size() > 12 ? hash.substr(0, 12) : hash;
}

/// The enabled features ("+x") of an LLVM feature string.
std::set<std::string> enabledFeatures(llvm::StringRef features) {
  std::set<std::string> enabled;
  llvm::SmallVector<llvm::StringRef, 64> parts;
  features.split(parts, ',', -1, false);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part.consume_front("+"))
      enabled.insert(part.str());
    else if (part.consume_front("-"))
      enabled.erase(part.str());
  }
  return enabled;
}

/// The manifest's `abi` without the workspace's entries, which
/// compareWorkspace classifies by themselves.
json withoutWorkspace(json abi) {
  if (abi.is_object()) {
    abi.erase("workspace_bytes");
    abi.erase("workspace_alignment");
    abi.erase("workspace_dynamic");
  }
  return abi;
}

/// The status codes without TXC_E_WORKSPACE, listed only when the program
/// needs a workspace (compareWorkspace reports that change).
json withoutWorkspaceCode(json codes) {
  if (codes.is_array())
    codes.erase(std::remove_if(codes.begin(), codes.end(),
                               [](const json &code) {
                                 return code.is_object() &&
                                        code.value("code", json()) ==
                                            json(int(StatusCode::Workspace));
                               }),
                codes.end());
  return codes;
}

class Differ {
public:
  Differ(const Manifest &oldM, const Manifest &newM, const json &oldJson,
         const json &newJson)
      : o(oldM), n(newM), oj(oldJson), nj(newJson),
        oldNames(oldM.contract.symbolNames()),
        newNames(newM.contract.symbolNames()) {}

  void run();

  std::vector<Change> changes;
  std::vector<Example> examples;

private:
  void add(ChangeClass cls, llvm::StringRef kind, const std::string &message,
           const std::string &pointer, bool inOld = false) {
    changes.push_back({cls, kind.str(), message, inOld, pointer});
  }
  bool hasBreaking() const {
    return llvm::any_of(changes, [](const Change &c) {
      return c.cls == ChangeClass::Breaking;
    });
  }

  void compareProgram();
  void compareTarget();
  void compareCPU();
  void compareCPULists();
  void compareFixedSections();
  /// The workspace size: growing breaks callers of ..._run_with_workspace.
  void compareWorkspace();
  void matchSymbols();
  void compareTensors(bool outputs);
  void compareTensorPair(bool outputs, size_t oi, size_t ni);
  void compareSymbols();
  void compareGuards();
  void compareOtherSections();
  /// Variants (docs/specialization.md), matched by their bindings: one
  /// removed or added changes which code runs, never which calls pass.
  void compareVariants();
  void findRejectedCalls();

  /// An old dim expression in the new symbol ids; nullopt if it uses a
  /// symbol the new manifest does not have, or divides one by a multiple
  /// that its new multiple_of does not guarantee.
  std::optional<ShapeExpr> mapExpr(const ShapeExpr &expr) const;

  const Manifest &o, &n;
  const json &oj, &nj;
  std::vector<std::string> oldNames, newNames;
  std::vector<int> symbolMap; ///< old symbol id -> new id, or -1
};

} // namespace

void Differ::compareProgram() {
  if (o.contract.programName != n.contract.programName)
    add(ChangeClass::Informational, "program-name",
        "the program is now named '" + n.contract.programName + "' (was '" +
            o.contract.programName + "')",
        "/program/name");
  if (o.programFile != n.programFile)
    add(ChangeClass::Informational, "program-file",
        "the program file is now '" + n.programFile + "' (was '" +
            o.programFile + "')",
        "/program/file");
  if (o.programSha256 != n.programSha256)
    add(ChangeClass::Informational, "program-sha256",
        "the program file changed (sha256 " + shortHash(o.programSha256) +
            "... -> " + shortHash(n.programSha256) + "...)",
        "/program/sha256");
  if (o.txcVersion != n.txcVersion)
    add(ChangeClass::Informational, "compiler-version",
        "compiled by txc " + n.txcVersion + " (was " + o.txcVersion + ")",
        "/compiler/txc");
  if (o.llvmVersion != n.llvmVersion)
    add(ChangeClass::Informational, "compiler-version",
        "compiled with LLVM " + n.llvmVersion + " (was " + o.llvmVersion + ")",
        "/compiler/llvm");
}

/// Vendors that say nothing about where code runs: the same Linux target
/// is x86_64-pc-linux-gnu from one host and x86_64-unknown-linux-gnu from
/// another (or as normalized from x86_64-linux-gnu).
static bool isGenericVendor(llvm::Triple::VendorType vendor) {
  return vendor == llvm::Triple::UnknownVendor || vendor == llvm::Triple::PC;
}

/// Whether code for one triple runs where code for the other does: the
/// same architecture, OS and environment (and object format), the vendor
/// only when it is a specific one.
static bool sameTarget(const llvm::Triple &a, const llvm::Triple &b) {
  return a.getArch() == b.getArch() && a.getSubArch() == b.getSubArch() &&
         a.getOS() == b.getOS() && a.getEnvironment() == b.getEnvironment() &&
         a.getObjectFormat() == b.getObjectFormat() &&
         (a.getVendor() == b.getVendor() ||
          (isGenericVendor(a.getVendor()) && isGenericVendor(b.getVendor())));
}

void Differ::compareTarget() {
  const ManifestTarget &a = o.target, &b = n.target;
  llvm::Triple oldTriple(llvm::Triple::normalize(a.triple));
  llvm::Triple newTriple(llvm::Triple::normalize(b.triple));
  if (!sameTarget(oldTriple, newTriple))
    add(ChangeClass::Breaking, "target-triple",
        "the target is now " + b.triple + " (was " + a.triple +
            "): the new object does not run where the old one did",
        "/target/triple");
  else if (a.triple != b.triple)
    add(ChangeClass::Informational, "target-triple",
        "the target triple is now " + b.triple + " (was " + a.triple +
            "): the same architecture, OS and environment",
        "/target/triple");
  // CPUs and features only compare within one architecture.
  if (oldTriple.getArch() == newTriple.getArch())
    compareCPU();
  if (a.optLevel != b.optLevel)
    add(ChangeClass::Compatible, "opt-level",
        "optimization level -O" + std::to_string(b.optLevel) + " (was -O" +
            std::to_string(a.optLevel) +
            "): the code changed, the contract did not",
        "/target/opt_level");
}

/// The CPUs of an object compiled for several (the first, its baseline,
/// is compared as `cpu`): one removed runs its calls on a less capable
/// listed CPU's code, one added on a more capable one's.
void Differ::compareCPULists() {
  const ManifestTarget &a = o.target, &b = n.target;
  auto further = [](const ManifestTarget &t) {
    return t.cpus.empty() ? std::vector<std::string>()
                          : std::vector<std::string>(t.cpus.begin() + 1,
                                                     t.cpus.end());
  };
  std::vector<std::string> before = further(a), after = further(b);
  for (const std::string &cpu : before)
    if (!llvm::is_contained(after, cpu))
      add(ChangeClass::Compatible, "cpu-removed",
          "the object no longer has code for " + cpu +
              ": machines with it run less capable code, slower but with the "
              "same contract",
          "/target/cpus");
  for (const std::string &cpu : after)
    if (!llvm::is_contained(before, cpu))
      add(ChangeClass::Compatible, "cpu-added",
          "the object has code for " + cpu +
              " too, chosen on machines that have it",
          "/target/cpus");
}

void Differ::compareCPU() {
  const ManifestTarget &a = o.target, &b = n.target;
  compareCPULists();
  if (a.cpu != b.cpu || a.features != b.features) {
    std::string what = a.cpu != b.cpu ? "the target CPU is now " + b.cpu +
                                            " (was " + a.cpu + ")"
                                      : "the target features changed";
    // Complete feature lists (from the host) or the same CPU: compare the
    // features; otherwise the CPU name decides what the code may use.
    if ((a.cpuFromHost && b.cpuFromHost) || a.cpu == b.cpu) {
      std::set<std::string> oldOn = enabledFeatures(a.features);
      std::string missing;
      unsigned count = 0;
      for (const std::string &f : enabledFeatures(b.features))
        if (!oldOn.count(f) && count++ < 8)
          missing += (missing.empty() ? "+" : ", +") + f;
      if (count)
        add(ChangeClass::Breaking, "target-features",
            what +
                "; the new object may use features the old target "
                "lacks: " +
                missing + (count > 8 ? ", ..." : ""),
            "/target/features");
      else
        add(ChangeClass::Compatible, "target-features",
            what + "; the new object needs no feature the old one did not",
            "/target/features");
    } else {
      add(ChangeClass::Breaking, "target-cpu",
          what + ": the new object may use instructions that the machines "
                 "running the old one lack",
          "/target/cpu");
    }
  } else if (a.cpuFromHost != b.cpuFromHost) {
    add(ChangeClass::Informational, "target-cpu",
        b.cpuFromHost ? "the CPU is now taken from the build machine"
                      : "the CPU is no longer taken from the build machine",
        "/target/cpu_from_host");
  }
}

void Differ::compareFixedSections() {
  if (o.contract.runSymbol() != n.contract.runSymbol())
    add(ChangeClass::Breaking, "entry-points",
        "the entry points are now " + n.contract.runSymbol() + ", " +
            n.contract.shapesSymbol() + " and " + n.contract.messageSymbol() +
            " (was " + o.contract.runSymbol() +
            ", ...): callers no longer "
            "link",
        "/entry_points");
  json oldAbi = withoutWorkspace(oj.value("abi", json()));
  json newAbi = withoutWorkspace(nj.value("abi", json()));
  if (oldAbi != newAbi)
    add(ChangeClass::Breaking, "abi",
        "the ABI changed: " + newAbi.dump() + " (was " + oldAbi.dump() + ")",
        "/abi");
  compareWorkspace();
  if (withoutWorkspaceCode(oj.value("status_codes", json())) !=
      withoutWorkspaceCode(nj.value("status_codes", json())))
    add(ChangeClass::Breaking, "status-codes",
        "the status codes changed: callers may misread a returned status",
        "/status_codes");
  json oldNum = oj.value("numerics", json::object());
  json newNum = nj.value("numerics", json::object());
  std::vector<std::string> keys;
  for (auto it = oldNum.begin(); it != oldNum.end(); ++it)
    keys.push_back(it.key());
  for (auto it = newNum.begin(); it != newNum.end(); ++it)
    if (!oldNum.contains(it.key()))
      keys.push_back(it.key());
  for (const std::string &key : keys) {
    json a = oldNum.value(key, json()), b = newNum.value(key, json());
    if (a != b)
      add(ChangeClass::Breaking, "numerics",
          "the numerical guarantee '" + key + "' is now " + b.dump() +
              " (was " + a.dump() + ")",
          b.is_null() ? "/numerics" : "/numerics/" + key, b.is_null());
  }
}

void Differ::compareWorkspace() {
  // Absent in manifests of txc before the workspace: none.
  auto bytesOf = [](const json &manifest) {
    json abi = manifest.value("abi", json::object());
    return abi.is_object() ? abi.value("workspace_bytes", uint64_t(0))
                           : uint64_t(0);
  };
  auto dynamicOf = [](const json &manifest) {
    json abi = manifest.value("abi", json::object());
    return abi.is_object() && abi.value("workspace_dynamic", false);
  };
  std::string withWorkspace =
      nj.value("entry_points", json::object())
          .value("run_with_workspace", n.contract.entryPrefix +
                                           "_run_with_workspace");
  // When the size depends on the shapes, callers ask <p>_workspace_size:
  // only the change to or from that matters, not the static part.
  bool dynamicA = dynamicOf(oj), dynamicB = dynamicOf(nj);
  if (!dynamicA && dynamicB)
    add(ChangeClass::Breaking, "workspace-dynamic",
        "the workspace's size now depends on the inputs' shapes: callers of " +
            withWorkspace + " that pass a workspace of the old size get "
            "TXC_E_WORKSPACE; " + n.contract.entryPrefix +
            "_workspace_size gives the size",
        "/abi/workspace_dynamic");
  else if (dynamicA && !dynamicB)
    add(ChangeClass::Compatible, "workspace-static",
        "the workspace's size no longer depends on the inputs' shapes",
        "/abi/workspace_dynamic");
  uint64_t a = bytesOf(oj), b = bytesOf(nj);
  if (a == b || dynamicA || dynamicB)
    return;
  std::string sizes = "the workspace is now " + std::to_string(b) +
                      " bytes (was " + std::to_string(a) + ")";
  if (b > a)
    add(ChangeClass::Breaking, "workspace-grown",
        sizes + ": callers of " + withWorkspace +
            " that pass a workspace of the old size get TXC_E_WORKSPACE; " +
            n.contract.runSymbol() + " allocates its own",
        "/abi/workspace_bytes");
  else
    add(ChangeClass::Compatible, "workspace-shrunk",
        sizes + ": workspaces of the old size are still large enough",
        "/abi/workspace_bytes");
}

void Differ::matchSymbols() {
  const auto &os = o.contract.symbols, &ns = n.contract.symbols;
  symbolMap.assign(os.size(), -1);
  std::vector<bool> taken(ns.size(), false);
  for (size_t i = 0; i < os.size(); ++i)
    for (size_t j = 0; j < ns.size(); ++j)
      if (!taken[j] && os[i].name == ns[j].name) {
        symbolMap[i] = int(j);
        taken[j] = true;
      }
  // A renamed symbol is determined by the same input dimension.
  for (size_t i = 0; i < os.size(); ++i) {
    if (symbolMap[i] >= 0 || o.determinedBy[i].empty())
      continue;
    for (size_t j = 0; j < ns.size(); ++j)
      if (!taken[j] && n.determinedBy[j] == o.determinedBy[i]) {
        symbolMap[i] = int(j);
        taken[j] = true;
        break;
      }
  }
}

std::optional<ShapeExpr> Differ::mapExpr(const ShapeExpr &expr) const {
  return expr.substitute([&](uint32_t id) -> std::optional<ShapeExpr> {
    if (id >= symbolMap.size() || symbolMap[id] < 0)
      return std::nullopt;
    const ContractSymbol &symbol = n.contract.symbols[symbolMap[id]];
    return ShapeExpr::symbol({uint32_t(symbolMap[id]), symbol.multipleOf});
  });
}

void Differ::compareTensorPair(bool outputs, size_t oi, size_t ni) {
  const ContractTensor &a =
      outputs ? o.contract.outputs[oi] : o.contract.inputs[oi];
  const ContractTensor &b =
      outputs ? n.contract.outputs[ni] : n.contract.inputs[ni];
  std::string side = outputs ? "output" : "input";
  std::string pointer = "/" + side + "s/" + std::to_string(ni);
  if (a.type.dtype != b.type.dtype)
    add(ChangeClass::Breaking, side + "-dtype",
        side + " '" + b.name + "' is now " + dtypeName(b.type.dtype).str() +
            " (was " + dtypeName(a.type.dtype).str() + ")",
        pointer + "/dtype");
  if (a.type.rank() != b.type.rank()) {
    add(ChangeClass::Breaking, side + "-rank",
        side + " '" + b.name + "' now has rank " +
            std::to_string(b.type.rank()) + ": " + typeText(b, newNames) +
            " (was " + typeText(a, oldNames) + ")",
        pointer + "/shape");
  } else {
    for (size_t d = 0; d < a.type.rank(); ++d) {
      std::optional<ShapeExpr> mapped = mapExpr(a.type.shape[d]);
      if (mapped && *mapped == b.type.shape[d])
        continue;
      add(ChangeClass::Breaking, side + "-shape",
          b.name + ".shape[" + std::to_string(d) + "] is now " +
              b.type.shape[d].toString(newNames) + " (was " +
              a.type.shape[d].toString(oldNames) + ")",
          pointer + "/shape/" + std::to_string(d));
    }
  }
  if (outputs) {
    if (a.value != b.value)
      add(ChangeClass::Informational, "output-value",
          "output '" + b.name + "' now returns the value '" + b.value +
              "' (was '" + a.value + "')",
          pointer + "/value");
    int64_t oldMax = o.outputMaxBytes[oi], newMax = n.outputMaxBytes[ni];
    if (oldMax != newMax)
      add(ChangeClass::Informational, "output-max-bytes",
          "output '" + b.name + "' needs at most " + std::to_string(newMax) +
              " bytes (was " + std::to_string(oldMax) + ")",
          pointer + "/max_bytes");
  }
}

void Differ::compareTensors(bool outputs) {
  const auto &as = outputs ? o.contract.outputs : o.contract.inputs;
  const auto &bs = outputs ? n.contract.outputs : n.contract.inputs;
  std::string side = outputs ? "output" : "input";
  std::string list = "/" + side + "s";
  auto indexIn = [](const std::vector<ContractTensor> &ts,
                    const std::string &name) -> std::optional<size_t> {
    for (size_t i = 0; i < ts.size(); ++i)
      if (ts[i].name == name)
        return i;
    return std::nullopt;
  };
  if (as.size() != bs.size())
    add(ChangeClass::Breaking, side + "-count",
        "the program now has " + std::to_string(bs.size()) + " " + side +
            (bs.size() == 1 ? "" : "s") + " (was " + std::to_string(as.size()) +
            "): the " + side +
            "_count guard rejects every call made for the old one" +
            (outputs ? " (outputs are positional and all of them are "
                       "required)"
                     : ""),
        list);
  std::vector<bool> newMatched(bs.size(), false);
  for (size_t i = 0; i < as.size(); ++i) {
    if (auto j = indexIn(bs, as[i].name)) {
      newMatched[*j] = true;
      if (*j != i)
        add(ChangeClass::Breaking, side + "-moved",
            side + " '" + as[i].name + "' is now " + side + " " +
                std::to_string(*j) + " (was " + std::to_string(i) + ")",
            list + "/" + std::to_string(*j));
      compareTensorPair(outputs, i, *j);
      continue;
    }
    // Renamed: the same position holds a name the old manifest lacks.
    if (i < bs.size() && !indexIn(as, bs[i].name)) {
      newMatched[i] = true;
      add(ChangeClass::Breaking, side + "-renamed",
          side + " " + std::to_string(i) + " is now named '" + bs[i].name +
              "' (was '" + as[i].name + "')",
          list + "/" + std::to_string(i) + "/name");
      compareTensorPair(outputs, i, i);
      continue;
    }
    add(ChangeClass::Breaking, side + "-removed",
        side + " '" + as[i].name + "' (" + side + " " + std::to_string(i) +
            ", " + typeText(as[i], oldNames) + ") was removed",
        list + "/" + std::to_string(i), /*inOld=*/true);
  }
  for (size_t j = 0; j < bs.size(); ++j)
    if (!newMatched[j])
      add(ChangeClass::Breaking, side + "-added",
          side + " '" + bs[j].name + "' (" + side + " " + std::to_string(j) +
              ", " + typeText(bs[j], newNames) + ") was added",
          list + "/" + std::to_string(j));
}

void Differ::compareSymbols() {
  const auto &os = o.contract.symbols, &ns = n.contract.symbols;
  std::vector<bool> newMatched(ns.size(), false);
  for (size_t i = 0; i < os.size(); ++i) {
    const ContractSymbol &a = os[i];
    if (symbolMap[i] < 0) {
      add(o.isDetermined(i) ? ChangeClass::Breaking
                            : ChangeClass::Informational,
          "symbol-removed",
          "symbol " + a.name + " " + declared(a) + " was removed",
          "/symbols/" + std::to_string(i), /*inOld=*/true);
      continue;
    }
    size_t j = size_t(symbolMap[i]);
    newMatched[j] = true;
    const ContractSymbol &b = ns[j];
    std::string pointer = "/symbols/" + std::to_string(j);
    if (a.name != b.name)
      add(ChangeClass::Breaking, "symbol-renamed",
          "symbol " + a.name + " is now named " + b.name + " (determined by " +
              n.determinedBy[j] +
              "); header macros and manifest readers refer to it by name",
          pointer + "/name");
    if (i != j)
      add(ChangeClass::Informational, "symbol-index",
          "symbol " + b.name + " is now symbol " + std::to_string(j) +
              " (was " + std::to_string(i) + ") in txc_status.symbol",
          pointer);
    if (o.determinedBy[i] != n.determinedBy[j] && n.isDetermined(j) &&
        o.isDetermined(i))
      add(ChangeClass::Informational, "symbol-determined-by",
          "symbol " + b.name + " is now computed from " + n.determinedBy[j] +
              " (was " + o.determinedBy[i] + ")",
          pointer + "/determined_by");
    if (!o.isDetermined(i) || !n.isDetermined(j)) {
      if (a.min != b.min || a.max != b.max || a.multipleOf != b.multipleOf)
        add(ChangeClass::Informational, "symbol-range",
            "symbol " + b.name + " (not used by any input) is now declared " +
                declared(b) + " (was " + declared(a) + ")",
            pointer);
      continue;
    }
    ValueSet oldSet = ValueSet::of(a), newSet = ValueSet::of(b);
    bool breaking = false;
    // Values cut off at either end.
    ValueSet below = oldSet.clip(oldSet.first, b.min - 1);
    ValueSet above = oldSet.clip(b.max + 1, oldSet.last);
    if (!below.empty() || !above.empty()) {
      int64_t witness = !above.empty() ? above.last : below.first;
      add(ChangeClass::Breaking, "symbol-range-narrowed",
          "symbol " + b.name + " is now declared " + declared(b) + " (was " +
              declared(a) + "): " + b.name + " = " + std::to_string(witness) +
              " was accepted and is now rejected",
          pointer);
      breaking = true;
    }
    // Values in the new range that are not multiples of the new divisor.
    ValueSet inside = oldSet.clip(b.min, b.max);
    if (auto witness = inside.outside(newSet)) {
      add(ChangeClass::Breaking, "symbol-divisibility",
          "symbol " + b.name + " must now be a multiple of " +
              std::to_string(b.multipleOf) + " (was " +
              std::to_string(a.multipleOf) + "): " + b.name + " = " +
              std::to_string(*witness) + " was accepted and is now rejected",
          pointer + "/multiple_of");
      breaking = true;
    }
    if (!breaking)
      if (auto witness = valueNoLongerDeclared(a, b)) {
        add(ChangeClass::Breaking, "symbol-values-narrowed",
            "symbol " + b.name + " now accepts only " +
                valuesText(b.values) + ": " + b.name + " = " +
                std::to_string(*witness) +
                " was accepted and is now rejected",
            pointer + "/values");
        breaking = true;
      }
    if (breaking)
      continue;
    if (a.values != b.values)
      add(ChangeClass::Compatible, "symbol-values-widened",
          "symbol " + b.name + " now accepts " +
              (b.values.empty() ? std::string("every value of its range")
                                : valuesText(b.values)) +
              " (was " + valuesText(a.values) + ")",
          pointer + "/values");
    if (!(oldSet == newSet))
      add(ChangeClass::Compatible, "symbol-range-widened",
          "symbol " + b.name + " now accepts " + newSet.str() + " (was " +
              oldSet.str() + ")",
          pointer);
    else if (a.min != b.min || a.max != b.max || a.multipleOf != b.multipleOf)
      add(ChangeClass::Informational, "symbol-range",
          "symbol " + b.name + " is now declared " + declared(b) + " (was " +
              declared(a) + "), which accepts the same values",
          pointer);
  }
  for (size_t j = 0; j < ns.size(); ++j)
    if (!newMatched[j])
      add(n.isDetermined(j) ? ChangeClass::Breaking
                            : ChangeClass::Informational,
          "symbol-added",
          "symbol " + ns[j].name + " " + declared(ns[j]) + " was added" +
              (n.isDetermined(j) ? " (determined by " + n.determinedBy[j] + ")"
                                 : std::string()),
          "/symbols/" + std::to_string(j));
}

void Differ::compareGuards() {
  const auto &a = o.contract.guards, &b = n.contract.guards;
  auto key = [](const Guard &g) {
    return guardKindName(g.kind).str() + ": " + g.expression;
  };
  std::multiset<std::string> oldKeys, newKeys;
  for (const Guard &g : a)
    oldKeys.insert(key(g));
  for (const Guard &g : b)
    newKeys.insert(key(g));
  std::vector<std::string> added, removed;
  for (const Guard &g : b)
    if (!oldKeys.count(key(g)))
      added.push_back("guard " + std::to_string(g.id) + " (" + key(g) + ")");
  for (const Guard &g : a)
    if (!newKeys.count(key(g)))
      removed.push_back("guard " + std::to_string(g.id) + " (" + key(g) + ")");
  auto list = [](const std::vector<std::string> &items) {
    std::string text;
    for (size_t i = 0; i < items.size() && i < 4; ++i)
      text += (i ? "; " : "") + items[i];
    if (items.size() > 4)
      text += "; and " + std::to_string(items.size() - 4) + " more";
    return text;
  };
  if (!added.empty())
    add(ChangeClass::Informational, "guards-added",
        std::to_string(added.size()) + " new guard" +
            (added.size() == 1 ? "" : "s") + ": " + list(added),
        "/guards");
  if (!removed.empty())
    add(ChangeClass::Informational, "guards-removed",
        std::to_string(removed.size()) + " guard" +
            (removed.size() == 1 ? "" : "s") +
            " no longer checked: " + list(removed),
        "/guards", /*inOld=*/true);
  bool renumbered = a.size() != b.size();
  for (size_t i = 0; i < a.size() && i < b.size() && !renumbered; ++i)
    renumbered = key(a[i]) != key(b[i]);
  if (renumbered)
    add(ChangeClass::Informational, "guard-ids",
        "the guard list changed: failures may report other guard ids in "
        "txc_status.guard",
        "/guards");
  else
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].message != b[i].message)
        add(ChangeClass::Informational, "guard-message",
            "guard " + std::to_string(i) + " has a new message: \"" +
                b[i].message + "\" (was \"" + a[i].message + "\")",
            "/guards/" + std::to_string(i) + "/message");
}

void Differ::compareOtherSections() {
  static const std::set<std::string> known = {
      "format",       "version",      "program", "compiler", "target",
      "entry_points", "abi",          "symbols", "inputs",   "outputs",
      "guards",       "status_codes", "numerics", "variants"};
  std::vector<std::string> keys;
  for (auto it = oj.begin(); it != oj.end(); ++it)
    if (!known.count(it.key()))
      keys.push_back(it.key());
  for (auto it = nj.begin(); it != nj.end(); ++it)
    if (!known.count(it.key()) && !oj.contains(it.key()))
      keys.push_back(it.key());
  for (const std::string &key : keys) {
    bool inOld = oj.contains(key), inNew = nj.contains(key);
    if (inOld && inNew && oj[key] == nj[key])
      continue;
    add(ChangeClass::Informational, "section",
        "the section '" + key + "' " +
            (!inNew   ? "was removed"
             : !inOld ? "was added"
                      : "changed"),
        "/" + key, !inNew);
  }
}

void Differ::compareVariants() {
  auto find = [](const Manifest &in, const Manifest &from,
                 const ContractVariant &variant) {
    std::string text = variant.text(from.contract);
    return llvm::find_if(in.contract.variants, [&](const ContractVariant &v) {
      return v.text(in.contract) == text;
    });
  };
  for (const ContractVariant &variant : o.contract.variants)
    if (find(n, o, variant) == n.contract.variants.end())
      add(ChangeClass::Compatible, "variant-removed",
          "the variant " + variant.text(o.contract) + " (id " +
              std::to_string(variant.id) +
              ") was removed: its calls run the generic code, slower but "
              "with the same results",
          "/variants/" + std::to_string(variant.id - 1), /*inOld=*/true);
  for (const ContractVariant &variant : n.contract.variants) {
    auto old = find(o, n, variant);
    if (old == o.contract.variants.end())
      add(ChangeClass::Compatible, "variant-added",
          "the variant " + variant.text(n.contract) + " (id " +
              std::to_string(variant.id) + ") was added",
          "/variants/" + std::to_string(variant.id - 1));
    else if (old->id != variant.id)
      add(ChangeClass::Informational, "variant-id",
          "the variant " + variant.text(n.contract) + " has the id " +
              std::to_string(variant.id) + " (was " +
              std::to_string(old->id) +
              "): txc_status.variant and <P>_VARIANT_* changed",
          "/variants/" + std::to_string(variant.id - 1));
  }
}

void Differ::findRejectedCalls() {
  const Contract &a = o.contract, &b = n.contract;
  if (a.inputs.size() != b.inputs.size())
    return; // every call is rejected; already reported
  for (CallSpec &call : boundaryCalls(a)) {
    if (!call.expect || !call.expect->pass)
      continue;
    CallOutcome outcome = evaluateCall(b, call);
    if (outcome.pass())
      continue;
    call.expect.reset();
    examples.push_back({std::move(call), std::move(outcome)});
    if (examples.size() == 3)
      break;
  }
  if (!examples.empty() && !hasBreaking()) {
    const Example &e = examples.front();
    add(ChangeClass::Breaking, "guards-reject",
        "the new guards reject calls the old ones accepted, e.g. " +
            e.call.name + ": " + e.outcome.message,
        "/guards/" + std::to_string(e.outcome.status.guard));
  }
}

void Differ::run() {
  compareProgram();
  compareTarget();
  compareFixedSections();
  matchSymbols();
  compareTensors(false);
  compareTensors(true);
  compareSymbols();
  compareGuards();
  compareOtherSections();
  compareVariants();
  findRejectedCalls();
  // Breaking first, then compatible, then informational; stable otherwise.
  std::stable_sort(
      changes.begin(), changes.end(),
      [](const Change &x, const Change &y) { return int(x.cls) < int(y.cls); });
}

int txc::runDiff(const DiffOptions &options, DiagnosticEngine &diags,
                 llvm::raw_ostream &out) {
  std::unique_ptr<Manifest> oldM = readManifestFile(options.oldPath, diags);
  std::unique_ptr<Manifest> newM = readManifestFile(options.newPath, diags);
  if (!oldM || !newM)
    return diags.exitCode();
  json oldJson = toNlohmann(*oldM->root);
  json newJson = toNlohmann(*newM->root);
  Differ differ(*oldM, *newM, oldJson, newJson);
  differ.run();
  size_t counts[3] = {0, 0, 0};
  for (const Change &c : differ.changes)
    ++counts[int(c.cls)];

  for (const Change &c : differ.changes) {
    if (c.cls != ChangeClass::Breaking)
      continue;
    const Manifest &m = c.inOld ? *oldM : *newM;
    Diagnostic diag;
    diag.severity = options.allowBreaking ? Severity::Warning : Severity::Error;
    diag.category = DiagCategory::BreakingChange;
    diag.id = "breaking-change";
    diag.file = m.source->name().str();
    diag.loc = m.locate(c.pointer);
    diag.message = c.message;
    diags.report(std::move(diag));
  }

  if (options.format == ReportFormat::Json) {
    json root;
    root["old"] = options.oldPath;
    root["new"] = options.newPath;
    json list = json::array();
    for (const Change &c : differ.changes)
      list.push_back({{"class", className(c.cls).str()},
                      {"kind", c.kind},
                      {"message", c.message},
                      {"manifest", c.inOld ? "old" : "new"},
                      {"pointer", c.pointer}});
    root["changes"] = std::move(list);
    json examples = json::array();
    for (const Example &e : differ.examples) {
      json entry;
      entry["name"] = e.call.name;
      json inputs = json::object();
      for (size_t i = 0; i < e.call.inputs.size(); ++i)
        inputs[oldM->contract.inputs[i].name] =
            describeCallTensor(e.call.inputs[i].dtype, e.call.inputs[i].dims);
      entry["inputs"] = std::move(inputs);
      entry["new_code"] = int(e.outcome.status.code);
      entry["new_code_name"] = statusCodeMacro(e.outcome.status.code).str();
      entry["new_guard"] = e.outcome.status.guard;
      entry["new_message"] = e.outcome.message;
      examples.push_back(std::move(entry));
    }
    root["rejected_examples"] = std::move(examples);
    root["summary"] = {{"breaking", counts[0]},
                       {"compatible", counts[1]},
                       {"informational", counts[2]}};
    out << root.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    for (const Change &c : differ.changes)
      out << className(c.cls) << ": " << c.message << " [" << c.kind << "]\n";
    if (!differ.examples.empty()) {
      out << "calls the old artifact accepts and the new one rejects:\n";
      for (const Example &e : differ.examples)
        out << "  " << e.call.name << ": "
            << statusCodeMacro(e.outcome.status.code) << ": "
            << e.outcome.message << "\n";
    }
    if (differ.changes.empty())
      out << "no differences\n";
    else
      out << counts[0] << " breaking, " << counts[1] << " compatible, "
          << counts[2] << " informational\n";
  }
  out.flush();
  return diags.exitCode();
}
