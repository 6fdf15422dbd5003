//===- Workload.cpp - Sequences of call shapes for txc budget -------------===//
#include "txc/Tools/Workload.h"

#include "JsonReader.h"

#include "txc/Frontend/Json.h"
#include "txc/Program/Program.h"
#include "txc/Support/InputFiles.h"
#include "txc/Support/SourceFile.h"
#include "txc/Tools/Calls.h"

#include "llvm/ADT/StringExtras.h"

#include <list>
#include <random>

using namespace txc;

uint64_t Workload::calls() const {
  uint64_t total = 0;
  for (const auto &[shape, count] : runs)
    total += count;
  return total;
}

std::vector<uint64_t> Workload::callsPerShape() const {
  std::vector<uint64_t> counts(shapes.size(), 0);
  for (const auto &[shape, count] : runs)
    counts[shape] += count;
  return counts;
}

void Workload::add(const std::vector<int64_t> &values, uint64_t count) {
  auto it = llvm::find(shapes, values);
  uint32_t index = it - shapes.begin();
  if (it == shapes.end())
    shapes.push_back(values);
  if (!runs.empty() && runs.back().first == index)
    runs.back().second += count;
  else
    runs.push_back({index, count});
}

/// Why `value` cannot be symbol `s`'s, or "".
static std::string badSymbolValue(const Contract &contract, size_t s,
                                  int64_t value) {
  const ContractSymbol &symbol = contract.symbols[s];
  if (value < symbol.min || value > symbol.max)
    return "symbol " + symbol.name + " must be in [" +
           std::to_string(symbol.min) + ", " + std::to_string(symbol.max) +
           "], got " + std::to_string(value);
  if (value % symbol.multipleOf != 0)
    return "symbol " + symbol.name + " must be a multiple of " +
           std::to_string(symbol.multipleOf) + ", got " +
           std::to_string(value);
  return "";
}

/// Why a call with these symbol values would not pass the contract's
/// guards (a guard that relates symbols), or "".
static std::string failedGuard(const Contract &contract,
                               llvm::ArrayRef<int64_t> values) {
  CallSpec call;
  for (const ContractTensor &input : contract.inputs) {
    CallInput in;
    in.dtype = int32_t(input.type.dtype);
    for (const ShapeExpr &dim : input.type.shape) {
      std::optional<int64_t> value = dim.evaluate(values);
      if (!value)
        return "the dims of input '" + input.name + "' overflow";
      in.dims.push_back(*value);
    }
    call.inputs.push_back(std::move(in));
  }
  CallOutcome outcome = evaluateCall(contract, call);
  return outcome.pass() ? "" : "the call fails: " + outcome.message;
}

static std::string symbolList(const Contract &contract) {
  std::string names;
  for (const ContractSymbol &symbol : contract.symbols)
    names += (names.empty() ? "" : ", ") + symbol.name;
  return names.empty() ? "none" : names;
}

//===----------------------------------------------------------------------===//
// Workload files
//===----------------------------------------------------------------------===//

namespace {
class WorkloadParser {
public:
  WorkloadParser(const SourceFile &file, const Contract &contract,
                 DiagnosticEngine &diags)
      : r(file, diags, "invalid-workload", "workload file"),
        contract(contract) {}

  std::optional<Workload> parse(const JsonValue &root);

private:
  const JsonValue *callList(const JsonValue &root, std::string &pointer);
  void parseCall(const JsonValue &value, const std::string &pointer);

  JsonReader r;
  const Contract &contract;
  Workload workload;
};
} // namespace

const JsonValue *WorkloadParser::callList(const JsonValue &root,
                                          std::string &pointer) {
  if (!root.isObject())
    return &root;
  if (auto format = r.stringAt(root, "", "format");
      format && *format != "txc.workload")
    r.error(*root.find("format"), "/format",
            "not a workload file: format is '" + *format +
                "', expected 'txc.workload'");
  if (auto version = r.integerAt(root, "", "version");
      version && *version != 1)
    r.error(*root.find("version"), "/version",
            "workload file version " + llvm::Twine(*version) +
                " is not supported; this txc reads version 1");
  pointer = "/calls";
  const JsonValue *list = r.required(root, "", "calls");
  return r.failed() ? nullptr : list;
}

void WorkloadParser::parseCall(const JsonValue &value,
                               const std::string &pointer) {
  if (!r.isObject(value, pointer))
    return;
  std::vector<std::optional<int64_t>> values(contract.symbols.size());
  uint64_t repeat = 1;
  bool ok = true;
  for (const JsonMember &member : value.members()) {
    std::string at = appendPointer(pointer, member.key);
    if (member.key == "repeat") {
      std::optional<int64_t> n = r.integer(member.value, at);
      if (n && (*n < 1 || uint64_t(*n) > kMaxWorkloadCalls))
        r.error(member.value, at,
                "repeat must be in [1, " + std::to_string(kMaxWorkloadCalls) +
                    "], got " + std::to_string(*n));
      else if (n)
        repeat = *n;
      ok &= n.has_value();
      continue;
    }
    auto symbol = llvm::find_if(contract.symbols, [&](const auto &s) {
      return s.name == member.key;
    });
    if (symbol == contract.symbols.end()) {
      r.error(member.value, at,
              "program '" + contract.programName + "' has no symbol '" +
                  member.key + "' (its symbols: " + symbolList(contract) +
                  "; and 'repeat')");
      ok = false;
      continue;
    }
    size_t s = symbol - contract.symbols.begin();
    std::optional<int64_t> v = r.integer(member.value, at);
    std::string bad = v ? badSymbolValue(contract, s, *v) : "";
    if (!bad.empty())
      r.error(member.value, at, bad);
    ok &= v && bad.empty();
    values[s] = v;
  }
  std::vector<int64_t> shape;
  for (size_t s = 0; s < values.size(); ++s) {
    if (!values[s]) {
      if (ok)
        r.error(value, pointer,
                "the call has no value for symbol '" +
                    contract.symbols[s].name + "'");
      return;
    }
    shape.push_back(*values[s]);
  }
  if (!ok)
    return;
  if (std::string failed = failedGuard(contract, shape); !failed.empty()) {
    r.error(value, pointer, failed);
    return;
  }
  if (workload.calls() + repeat > kMaxWorkloadCalls) {
    r.error(value, pointer,
            "the workload has more than " + std::to_string(kMaxWorkloadCalls) +
                " calls");
    return;
  }
  workload.add(shape, repeat);
}

std::optional<Workload> WorkloadParser::parse(const JsonValue &root) {
  std::string pointer;
  const JsonValue *list = callList(root, pointer);
  if (!list || !r.isArray(*list, pointer))
    return std::nullopt;
  if (list->items().empty()) {
    r.error(*list, pointer, "the workload has no calls");
    return std::nullopt;
  }
  for (size_t i = 0; i < list->items().size(); ++i)
    parseCall(list->items()[i], appendPointer(pointer, i));
  if (r.failed())
    return std::nullopt;
  return std::move(workload);
}

std::optional<Workload> txc::readWorkloadFile(llvm::StringRef path,
                                              const Contract &contract,
                                              DiagnosticEngine &diags) {
  std::optional<JsonDocument> document =
      readJsonDocument(path, "workload file", diags);
  if (!document)
    return std::nullopt;
  WorkloadParser parser(*document->file, contract, diags);
  std::optional<Workload> workload = parser.parse(*document->root);
  if (workload)
    workload->source = ("file " + document->file->name()).str();
  return workload;
}

//===----------------------------------------------------------------------===//
// --steady and --churn
//===----------------------------------------------------------------------===//

namespace {
/// A symbol's values in `--steady`/`--churn`: lo..hi (lo == hi for one).
struct SymbolRange {
  int64_t lo = 0, hi = 0;
  bool given = false;
};

/// `SYM=V,...:N` or with ranges `SYM=LO..HI`: the ranges by symbol id and
/// the call count.
struct GeneratedSpec {
  std::vector<SymbolRange> ranges;
  uint64_t calls = 0;
};
} // namespace

static std::optional<GeneratedSpec>
parseGenerated(llvm::StringRef option, llvm::StringRef text,
               const Contract &contract, bool allowRanges,
               DiagnosticEngine &diags) {
  auto usage = [&](const llvm::Twine &message) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                option + " '" + text + "': " + message);
    return std::nullopt;
  };
  auto [bindings, count] = text.rsplit(':');
  GeneratedSpec spec;
  spec.ranges.resize(contract.symbols.size());
  if (count.size() == text.size() || count.trim().getAsInteger(10, spec.calls) ||
      spec.calls < 1 || spec.calls > kMaxWorkloadCalls)
    return usage("expected " +
                 llvm::Twine(allowRanges ? "SYM=LO..HI,...:N" : "SYM=V,...:N") +
                 " with N calls in [1, " + std::to_string(kMaxWorkloadCalls) +
                 "]");
  llvm::SmallVector<llvm::StringRef> terms;
  // ":N" for a program without symbols.
  if (!bindings.trim().empty())
    bindings.split(terms, ',');
  for (llvm::StringRef term : terms) {
    auto [name, value] = term.trim().split('=');
    auto symbol = llvm::find_if(contract.symbols, [&](const auto &s) {
      return s.name == name.trim();
    });
    if (symbol == contract.symbols.end())
      return usage("program '" + contract.programName + "' has no symbol '" +
                   name.trim() + "' (its symbols: " + symbolList(contract) +
                   ")");
    SymbolRange &range = spec.ranges[symbol - contract.symbols.begin()];
    if (range.given)
      return usage("symbol " + symbol->name + " is given twice");
    auto [lo, hi] = value.trim().split("..");
    if (hi.empty() && value.trim().contains(".."))
      return usage("'" + term.trim() + "' is not SYM=LO..HI");
    if (!hi.empty() && !allowRanges)
      return usage("a steady workload has one value per symbol, not a range");
    if (lo.trim().getAsInteger(10, range.lo) ||
        (hi.empty() ? (range.hi = range.lo, false)
                    : hi.trim().getAsInteger(10, range.hi)))
      return usage("'" + term.trim() + "' is not SYM=" +
                   (allowRanges ? "LO..HI" : "VALUE") + " with integers");
    if (range.lo > range.hi)
      return usage("the range of " + symbol->name + " is empty");
    size_t s = symbol - contract.symbols.begin();
    for (int64_t end : {range.lo, range.hi})
      if (std::string bad = badSymbolValue(contract, s, end); !bad.empty())
        return usage(bad);
    range.given = true;
  }
  for (size_t s = 0; s < spec.ranges.size(); ++s)
    if (!spec.ranges[s].given)
      return usage("symbol " + contract.symbols[s].name +
                   " has no value; give every symbol (" +
                   symbolList(contract) + ")");
  return spec;
}

/// Checks every distinct shape against the contract's guards.
static bool checkShapes(llvm::StringRef option, llvm::StringRef text,
                        const Contract &contract, const Workload &workload,
                        DiagnosticEngine &diags) {
  for (const std::vector<int64_t> &shape : workload.shapes)
    if (std::string failed = failedGuard(contract, shape); !failed.empty()) {
      diags.error(DiagCategory::Usage, "usage", "", Loc(),
                  option + " '" + text + "': " + failed);
      return false;
    }
  return true;
}

std::optional<Workload> txc::steadyWorkload(llvm::StringRef text,
                                            const Contract &contract,
                                            DiagnosticEngine &diags) {
  auto spec = parseGenerated("--steady", text, contract, false, diags);
  if (!spec)
    return std::nullopt;
  Workload workload;
  workload.source = ("steady " + text).str();
  std::vector<int64_t> values;
  for (const SymbolRange &range : spec->ranges)
    values.push_back(range.lo);
  workload.add(values, spec->calls);
  if (!checkShapes("--steady", text, contract, workload, diags))
    return std::nullopt;
  return workload;
}

std::optional<Workload> txc::churnWorkload(llvm::StringRef text,
                                           const Contract &contract,
                                           uint64_t seed,
                                           DiagnosticEngine &diags) {
  auto spec = parseGenerated("--churn", text, contract, true, diags);
  if (!spec)
    return std::nullopt;
  Workload workload;
  workload.source = ("churn " + text + " seed " + llvm::Twine(seed)).str();
  // mt19937_64's sequence is fixed by the standard; the reduction to a
  // range is ours (a modulo), so the calls do not depend on the library.
  std::mt19937_64 random(seed);
  std::vector<int64_t> values(spec->ranges.size());
  for (uint64_t call = 0; call < spec->calls; ++call) {
    for (size_t s = 0; s < values.size(); ++s) {
      int64_t step = contract.symbols[s].multipleOf;
      uint64_t choices = uint64_t(spec->ranges[s].hi - spec->ranges[s].lo) /
                             uint64_t(step) + 1;
      values[s] = spec->ranges[s].lo + int64_t(random() % choices) * step;
    }
    workload.add(values, 1);
  }
  if (!checkShapes("--churn", text, contract, workload, diags))
    return std::nullopt;
  return workload;
}

LruResult txc::simulateLru(const Workload &workload, unsigned capacity) {
  assert(capacity >= 1 && "an LRU holds at least one artifact");
  LruResult result;
  result.missesPerShape.assign(workload.shapes.size(), 0);
  std::list<uint32_t> order; // most recently used first
  uint64_t call = 0;
  for (const auto &[shape, count] : workload.runs) {
    auto it = llvm::find(order, shape);
    if (it != order.end()) {
      order.erase(it);
      result.hits += count;
    } else {
      // The first call of the run compiles; the others of the run hit.
      if (result.misses == 1)
        result.secondMissCall = call;
      ++result.misses;
      ++result.missesPerShape[shape];
      result.hits += count - 1;
      if (order.size() == capacity)
        order.pop_back();
    }
    order.push_front(shape);
    call += count;
  }
  return result;
}
