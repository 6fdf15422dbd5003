//===- Report.cpp - txc budget: the strategies' totals and the report -----===//
//
// The totals are sums of the measured parts and nothing else: a strategy's
// total is capture + compile + load + run, its run the sum over the calls of
// the median call at the call's shape. Break-even uses the same figures:
// N* = ceil(C / (E - R)) with C = capture + compile + load and E and R the
// mean per call of the workload (docs/cli.md, "txc budget").
//
//===----------------------------------------------------------------------===//
#include "Measurements.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>

#include <cmath>

using namespace txc;
using json = nlohmann::ordered_json;

namespace {

struct Totals {
  uint64_t compiles = 0;
  double captureMs = 0, compileMs = 0, loadMs = 0, runMs = 0;
};

/// A part of what an artifact costs before its first call. This one table
/// gives, in this order, the JSON fields of artifacts and strategies
/// ("capture_ms", a miss's "capture_ms_per_miss") and the text tables'
/// columns ("capture").
struct CostPart {
  const char *name;
  double ArtifactCost::*ofArtifact;
  double Totals::*ofTotals;

  std::string field(llvm::StringRef suffix = "") const {
    return (llvm::Twine(name) + "_ms" + suffix).str();
  }
};
const CostPart kCostParts[] = {
    {"capture", &ArtifactCost::captureMs, &Totals::captureMs},
    {"compile", &ArtifactCost::compileMs, &Totals::compileMs},
    {"load", &ArtifactCost::loadMs, &Totals::loadMs}};

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

json bindingsJson(const Contract &contract, llvm::ArrayRef<int64_t> values) {
  json bindings = json::object();
  for (size_t s = 0; s < contract.symbols.size(); ++s)
    bindings[contract.symbols[s].name] = values[s];
  return bindings;
}

json artifactJson(const ArtifactCost &cost) {
  json entry;
  entry["name"] = cost.name;
  for (const CostPart &part : kCostParts)
    entry[part.field()] = cost.*part.ofArtifact;
  entry["capture_phases"] = cost.capturePhases;
  entry["compile_phases"] = cost.compilePhases;
  return entry;
}

/// Σ over the calls of the median call at each call's shape.
double runTotal(const Measurements &measured,
                llvm::function_ref<double(const ShapeCosts &)> perCall) {
  std::vector<uint64_t> calls = measured.workload->callsPerShape();
  double total = 0;
  for (size_t i = 0; i < calls.size(); ++i)
    total += double(calls[i]) * perCall(measured.shapes[i]);
  return total;
}

std::string fixed(double value, unsigned digits = 3) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(("%." + std::to_string(digits) + "f").c_str(), value);
  return text;
}

std::string callCount(uint64_t calls) {
  return std::to_string(calls) + (calls == 1 ? " call" : " calls");
}

/// Says in words whether staging wins on this workload, and why not.
std::string verdict(const json &strategy, double eagerMs, uint64_t calls) {
  double total = strategy["total_ms"].get<double>();
  std::string text;
  if (total <= eagerMs) {
    text = "staging wins: " + fixed(eagerMs - total) +
           " ms less than eager over the " + std::to_string(calls) + " calls";
    if (!strategy["break_even_calls"].is_null())
      text += "; its compiles pay back after " +
              std::to_string(strategy["break_even_calls"].get<uint64_t>()) +
              " calls";
    return text;
  }
  text = "staging loses: " + fixed(total - eagerMs) +
         " ms more than eager over the " + std::to_string(calls) + " calls";
  if (strategy["break_even_calls"].is_null())
    return text + "; a compiled call is not faster than the interpreter's "
                  "on this workload, so no number of calls pays back";
  if (strategy.contains("second_compile_after_calls") &&
      !strategy["second_compile_after_calls"].is_null())
    text += "; " + std::to_string(strategy["compiles"].get<uint64_t>()) +
            " compiles, the second after " +
            callCount(strategy["second_compile_after_calls"].get<uint64_t>());
  return text + "; paying back its compiles would take " +
         std::to_string(strategy["break_even_calls"].get<uint64_t>()) +
         " calls at this workload's mean E and R";
}

json strategyJson(llvm::StringRef name, const Totals &totals, double eagerMs,
                  uint64_t calls) {
  json entry;
  entry["name"] = name.str();
  entry["compiles"] = totals.compiles;
  double c = 0; // capture + compile + load
  for (const CostPart &part : kCostParts) {
    entry[part.field()] = totals.*part.ofTotals;
    c += totals.*part.ofTotals;
  }
  entry["run_ms"] = totals.runMs;
  entry["total_ms"] = c + totals.runMs;
  if (name == "eager")
    return entry;
  double e = eagerMs / double(calls), r = totals.runMs / double(calls);
  entry["break_even_calls"] =
      e > r ? json(uint64_t(std::ceil(c / (e - r)))) : json(nullptr);
  entry["saving_ms"] = eagerMs - entry["total_ms"].get<double>();
  entry["loses"] = entry["total_ms"].get<double>() > eagerMs;
  return entry;
}

Totals oneArtifact(const ArtifactCost &cost) {
  Totals totals;
  totals.compiles = 1;
  for (const CostPart &part : kCostParts)
    totals.*part.ofTotals = cost.*part.ofArtifact;
  return totals;
}

/// One artifact per distinct shape behind an LRU: each miss costs the
/// median of the sampled per-shape artifacts, part by part.
json perShapeStrategy(const BudgetOptions &options,
                      const Measurements &measured, double eagerMs) {
  const Workload &workload = *measured.workload;
  LruResult lru = simulateLru(workload, options.cacheCapacity);
  // A miss's cost, part by part.
  std::vector<double> perMiss;
  for (const CostPart &part : kCostParts) {
    std::vector<double> samples;
    for (const auto &[shape, cost] : measured.perShape)
      samples.push_back(cost.*part.ofArtifact);
    perMiss.push_back(median(std::move(samples)));
  }
  Totals totals;
  totals.compiles = lru.misses;
  for (auto [part, cost] : llvm::zip_equal(kCostParts, perMiss))
    totals.*part.ofTotals = double(lru.misses) * cost;
  uint64_t standIn = 0;
  std::vector<uint64_t> calls = workload.callsPerShape();
  for (size_t i = 0; i < calls.size(); ++i)
    standIn += measured.shapes[i].perShapeMs ? 0 : calls[i];
  totals.runMs = runTotal(measured, [](const ShapeCosts &costs) {
    return costs.perShapeMs.value_or(costs.genericMs);
  });
  json entry = strategyJson("per-shape-lru", totals, eagerMs, workload.calls());
  entry["capacity"] = options.cacheCapacity;
  entry["hits"] = lru.hits;
  entry["misses"] = lru.misses;
  entry["hit_rate"] = double(lru.hits) / double(workload.calls());
  entry["second_compile_after_calls"] =
      lru.secondMissCall ? json(*lru.secondMissCall) : json(nullptr);
  entry["sampled_compiles"] = measured.perShape.size();
  entry["distinct_shapes"] = workload.shapes.size();
  for (auto [part, cost] : llvm::zip_equal(kCostParts, perMiss))
    entry[part.field("_per_miss")] = cost;
  entry["calls_run_by_generic_stand_in"] = standIn;
  return entry;
}

json specializedStrategy(const Measurements &measured, double eagerMs) {
  Totals totals = oneArtifact(*measured.specialized);
  totals.runMs = runTotal(measured, [](const ShapeCosts &costs) {
    return *costs.specializedMs;
  });
  json entry = strategyJson("specialized", totals, eagerMs,
                            measured.workload->calls());
  json perVariant = json::object();
  std::vector<uint64_t> calls = measured.workload->callsPerShape();
  for (size_t i = 0; i < calls.size(); ++i) {
    std::string id = std::to_string(measured.shapes[i].specializedVariant);
    perVariant[id] = perVariant.value(id, uint64_t(0)) + calls[i];
  }
  entry["calls_per_variant"] = perVariant;
  entry["variants"] = measured.variantTexts;
  return entry;
}

json shapesJson(const Measurements &measured) {
  json shapes = json::array();
  std::vector<uint64_t> calls = measured.workload->callsPerShape();
  for (size_t i = 0; i < calls.size(); ++i) {
    const ShapeCosts &costs = measured.shapes[i];
    json entry;
    entry["bindings"] =
        bindingsJson(*measured.contract, measured.workload->shapes[i]);
    entry["calls"] = calls[i];
    entry["eager_ms"] = costs.eagerMs;
    entry["generic_ms"] = costs.genericMs;
    if (costs.specializedMs) {
      entry["specialized_ms"] = *costs.specializedMs;
      entry["specialized_variant"] = costs.specializedVariant;
    }
    entry["own_artifact_ms"] =
        costs.perShapeMs ? json(*costs.perShapeMs) : json(nullptr);
    shapes.push_back(std::move(entry));
  }
  return shapes;
}

json workloadJson(const Measurements &measured) {
  const Workload &workload = *measured.workload;
  json entry;
  entry["source"] = workload.source;
  entry["calls"] = workload.calls();
  entry["distinct_shapes"] = workload.shapes.size();
  entry["runs"] = json::array();
  for (const auto &[shape, count] : workload.runs)
    entry["runs"].push_back({shape, count});
  return entry;
}

json optionsJson(const BudgetOptions &options) {
  json entry;
  entry["opt_level"] = options.optLevel;
  entry["repeat"] = options.repeat;
  entry["seed"] = options.seed;
  entry["cache_capacity"] = options.cacheCapacity;
  entry["sample_compiles"] = options.sampleCompiles;
  entry["specialize"] = options.specializations;
  return entry;
}

} // namespace

json txc::budgetReport(const BudgetOptions &options,
                       const Measurements &measured) {
  json report;
  report["format"] = "txc.budget";
  report["version"] = 1;
  report["program"] = measured.contract->programName;
  report["options"] = optionsJson(options);
  report["workload"] = workloadJson(measured);
  report["artifacts"] = json::array({artifactJson(measured.generic)});
  if (measured.specialized)
    report["artifacts"].push_back(artifactJson(*measured.specialized));
  for (const auto &[shape, cost] : measured.perShape)
    report["artifacts"].push_back(artifactJson(cost));
  report["shapes"] = shapesJson(measured);

  uint64_t calls = measured.workload->calls();
  Totals eager;
  eager.runMs = runTotal(measured, [](const ShapeCosts &costs) {
    return costs.eagerMs;
  });
  json strategies = json::array({strategyJson("eager", eager, 0, calls)});
  Totals generic = oneArtifact(measured.generic);
  generic.runMs = runTotal(measured, [](const ShapeCosts &costs) {
    return costs.genericMs;
  });
  strategies.push_back(strategyJson("generic", generic, eager.runMs, calls));
  strategies.push_back(perShapeStrategy(options, measured, eager.runMs));
  if (measured.specialized)
    strategies.push_back(specializedStrategy(measured, eager.runMs));
  for (json &strategy : strategies)
    if (strategy["name"] != "eager")
      strategy["verdict"] = verdict(strategy, eager.runMs, calls);
  report["strategies"] = std::move(strategies);
  return report;
}

//===----------------------------------------------------------------------===//
// The text report: printed from the JSON one, with every figure in it
//===----------------------------------------------------------------------===//

static std::string ms(const json &value) {
  return value.is_null() ? "-" : fixed(value.get<double>(), 3);
}

/// A per-call median in microseconds: a small program's call is well
/// below a millisecond.
static std::string us(const json &value) {
  return value.is_null() ? "-" : fixed(value.get<double>() * 1000, 3);
}

static std::string bindingsText(const json &bindings) {
  std::string text;
  for (const auto &[name, value] : bindings.items())
    text += (text.empty() ? "" : ",") + name + "=" +
            std::to_string(value.get<int64_t>());
  return text.empty() ? "(none)" : text;
}

/// The top-level phases of a --time-report tree: "mlirgen 0.8, ...".
static std::string phasesText(const json &phases) {
  std::string text;
  for (const json &phase : phases)
    text += (text.empty() ? "" : ", ") + phase["name"].get<std::string>() +
            " " + fixed(phase["seconds"].get<double>() * 1000, 1);
  return text;
}

/// kCostParts' column headings, or their figures in `record`.
static void printCostHeadings(llvm::raw_ostream &out) {
  for (const CostPart &part : kCostParts)
    out << llvm::format(" %12s", part.name);
}
static void printCosts(const json &record, llvm::raw_ostream &out) {
  for (const CostPart &part : kCostParts)
    out << llvm::format(" %12s", ms(record[part.field()]).c_str());
}

static void printArtifacts(const json &report, llvm::raw_ostream &out) {
  out << "Artifacts (ms)  ";
  printCostHeadings(out);
  out << "\n";
  for (const json &a : report["artifacts"]) {
    out << llvm::format("  %-16s", a["name"].get<std::string>().c_str());
    printCosts(a, out);
    out << "\n    phases: " << phasesText(a["compile_phases"]) << "\n";
  }
}

static void printShapes(const json &report, llvm::raw_ostream &out) {
  out << "\nCalls, median per call (us)\n"
      << "  shape              calls        eager      generic  specialized"
         " variant own-artifact\n";
  for (const json &s : report["shapes"]) {
    std::string variant = s.contains("specialized_variant")
                              ? std::to_string(s["specialized_variant"]
                                                   .get<int64_t>())
                              : "-";
    out << llvm::format("  %-14s %9llu %12s %12s %12s %7s %12s\n",
                        bindingsText(s["bindings"]).c_str(),
                        (unsigned long long)s["calls"].get<uint64_t>(),
                        us(s["eager_ms"]).c_str(), us(s["generic_ms"]).c_str(),
                        us(s.value("specialized_ms", json())).c_str(),
                        variant.c_str(), us(s["own_artifact_ms"]).c_str());
  }
}

static void printStrategies(const json &report, llvm::raw_ostream &out) {
  out << "\nStrategies over " << report["workload"]["calls"].get<uint64_t>()
      << " calls (ms)\n"
      << "  strategy        compiles";
  printCostHeadings(out);
  out << "          run        total       N*\n";
  for (const json &s : report["strategies"]) {
    std::string breakEven = !s.contains("break_even_calls") ? "-"
                            : s["break_even_calls"].is_null()
                                ? "never"
                                : std::to_string(
                                      s["break_even_calls"].get<uint64_t>());
    out << llvm::format("  %-15s %8llu", s["name"].get<std::string>().c_str(),
                        (unsigned long long)s["compiles"].get<uint64_t>());
    printCosts(s, out);
    out << llvm::format(" %12s %12s %8s\n", ms(s["run_ms"]).c_str(),
                        ms(s["total_ms"]).c_str(), breakEven.c_str());
  }
}

static void printNotes(const json &report, llvm::raw_ostream &out) {
  out << "\n";
  for (const json &s : report["strategies"]) {
    if (s["name"] == "per-shape-lru") {
      out << "per-shape-lru: LRU of " << s["capacity"].get<unsigned>()
          << " artifacts: hits " << s["hits"].get<uint64_t>() << ", misses "
          << s["misses"].get<uint64_t>() << ", hit rate "
          << fixed(s["hit_rate"].get<double>() * 100, 2) << "%\n"
          << "  a miss costs the median of "
          << s["sampled_compiles"].get<uint64_t>()
          << " sampled compiles of the " << s["distinct_shapes"].get<uint64_t>()
          << " distinct shapes: ";
      for (const CostPart &part : kCostParts)
        out << (&part == kCostParts ? "" : ", ") << part.name << " "
            << ms(s[part.field("_per_miss")]);
      out << " ms\n";
      if (s["calls_run_by_generic_stand_in"].get<uint64_t>() != 0)
        out << "  " << s["calls_run_by_generic_stand_in"].get<uint64_t>()
            << " calls of shapes not sampled are counted at the generic "
               "artifact's R\n";
    }
    if (s["name"] == "specialized")
      out << "specialized: calls per variant " << s["calls_per_variant"].dump()
          << " (0 = generic code)\n";
    if (s.contains("verdict"))
      out << s["name"].get<std::string>() << ": "
          << s["verdict"].get<std::string>() << "\n";
  }
}

void txc::printBudgetText(const json &report, llvm::raw_ostream &out) {
  const json &workload = report["workload"];
  const json &options = report["options"];
  out << "txc budget: " << report["program"].get<std::string>() << ", "
      << workload["source"].get<std::string>() << " ("
      << workload["calls"].get<uint64_t>() << " calls, "
      << workload["distinct_shapes"].get<uint64_t>() << " distinct shape"
      << (workload["distinct_shapes"].get<uint64_t>() == 1 ? "" : "s")
      << "), -O" << options["opt_level"].get<unsigned>()
      << ", medians of " << options["repeat"].get<unsigned>() << " calls\n\n";
  printArtifacts(report, out);
  printShapes(report, out);
  printStrategies(report, out);
  printNotes(report, out);
}
