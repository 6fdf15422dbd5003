//===- Measurements.h - What txc budget measured ----------------*- C++ -*-===//
//
// Budget.cpp measures (compiles, calls), Report.cpp adds the figures up per
// strategy and prints them. Times are in milliseconds of wall time.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_BUDGET_MEASUREMENTS_H
#define TXC_LIB_BUDGET_MEASUREMENTS_H

#include "txc/Analysis/Contract.h"
#include "txc/Budget/Budget.h"
#include "txc/Tools/Workload.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace txc {

/// The cost of making one artifact, never merged into one number: reading
/// and verifying the program (capture), compiling it (by phase, as
/// `txc compile --time-report=json` names them), loading the object.
struct ArtifactCost {
  std::string name; ///< "generic", "specialized", "shape B=8"
  double captureMs = 0, compileMs = 0, loadMs = 0;
  nlohmann::ordered_json capturePhases, compilePhases;
};

/// The medians measured at one distinct shape of the workload.
struct ShapeCosts {
  double eagerMs = 0;   ///< the interpreter's call
  double genericMs = 0; ///< the generic artifact's warm call
  std::optional<double> specializedMs; ///< with --specialize
  int32_t specializedVariant = 0;      ///< the code that call ran
  /// The shape's own artifact's call, if its compile was sampled.
  std::optional<double> perShapeMs;
};

struct Measurements {
  const Contract *contract = nullptr;
  const Workload *workload = nullptr;
  ArtifactCost generic;
  std::optional<ArtifactCost> specialized;
  std::vector<std::string> variantTexts; ///< by id - 1: "B=8"
  /// The sampled per-shape artifacts, with the shape each is for.
  std::vector<std::pair<uint32_t, ArtifactCost>> perShape;
  std::vector<ShapeCosts> shapes; ///< by workload shape index
};

/// The report (docs/cli.md, "txc budget"): the strategies' totals from the
/// measurements, as JSON; the text report is printed from it, so that the
/// two hold the same numbers.
nlohmann::ordered_json budgetReport(const BudgetOptions &options,
                                    const Measurements &measured);
void printBudgetText(const nlohmann::ordered_json &report,
                     llvm::raw_ostream &out);

} // namespace txc

#endif
