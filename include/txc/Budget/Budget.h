//===- Budget.h - txc budget: the compile budget, measured ------*- C++ -*-===//
//
// T_staged = C + N·R against T_eager = N·E, with every term measured on this
// machine rather than modeled (docs/cli.md, "txc budget";
// docs/specialization.md, "The budget"): the compile of each artifact by
// phase, the warm compiled call and the interpreter's call at each distinct
// shape of a workload, and the cumulative time of four strategies on it:
// eager, one generic artifact, one artifact per distinct shape compiled on
// first use behind an LRU, and the chosen specializations.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_BUDGET_BUDGET_H
#define TXC_BUDGET_BUDGET_H

#include "txc/Support/Diagnostics.h"
#include "txc/Tools/Tools.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace txc {

struct BudgetOptions {
  std::string programPath;
  /// Exactly one of the three: a workload file, `B=8:1000`, `B=1..64:1000`.
  std::string callsFile, steady, churn;
  std::vector<std::string> specializations; ///< --specialize, as written
  unsigned cacheCapacity = 4;               ///< artifacts the LRU keeps
  /// Distinct shapes whose own artifact is compiled and measured; the cost
  /// of a miss is the median over them.
  unsigned sampleCompiles = 4;
  unsigned repeat = 9; ///< timed calls per median (after one warm-up)
  uint64_t seed = 1;   ///< of --churn and of the random inputs
  unsigned optLevel = 2;
  unsigned jobs = 0; ///< compile threads, as txc compile -j
  ReportFormat format = ReportFormat::Text;
  std::string reportJson; ///< also write the JSON report here ("" = no)
  std::vector<std::string> allowedWeightDirs;
};

/// `txc budget`. Prints the report on `out`; returns the exit code.
int runBudget(const BudgetOptions &options, DiagnosticEngine &diags,
              llvm::raw_ostream &out);

} // namespace txc

#endif
