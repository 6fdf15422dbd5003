//===- BudgetCommand.cpp - txc budget -------------------------------------===//
#include "BudgetCommand.h"

#include "llvm/Support/raw_ostream.h"

using namespace txc;

void BudgetCommand::add(CLI::App &app,
                        const std::function<void(CLI::App *)> &addCommon) {
  const auto takeLast = CLI::MultiOptionPolicy::TakeLast;
  budget = app.add_subcommand(
      "budget", "Measure the compile budget of a workload: compile, warm "
                "call and eager call times, and the cumulative time of "
                "eager, generic, per-shape and specialized strategies");
  budget->add_option("program", options.programPath, "Program file (JSON)")
      ->required();
  budget->add_option("--calls", options.callsFile,
                     "A workload file: the calls' symbol values "
                     "(docs/cli.md, 'Workload files')");
  budget->add_option("--steady", options.steady,
                     "One shape N times: 'B=8:1000' ('B=8,S=128:1000')");
  budget->add_option("--churn", options.churn,
                     "N shapes drawn from ranges with --seed: "
                     "'B=1..64:1000'");
  budget
      ->add_option("--specialize", options.specializations,
                   "Variants of the specialized strategy, as txc compile "
                   "--specialize takes them (repeatable)")
      ->allow_extra_args(false);
  budget->add_option("--cache-capacity", options.cacheCapacity,
                     "Artifacts the per-shape strategy's LRU keeps")
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("--sample-compiles", options.sampleCompiles,
                     "Distinct shapes whose own artifact is compiled and "
                     "measured; a miss costs their median")
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("--repeat", options.repeat,
                     "Timed calls per median (after one warm-up call)")
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("--seed", options.seed,
                     "Seed of --churn and of the random inputs")
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("-O", options.optLevel, "Optimization level 0-3")
      ->check(CLI::Range(0u, 3u))
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("-j,--jobs", options.jobs,
                     "Compile threads (0: one per available core)")
      ->check(CLI::Range(0u, 1024u))
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("--format", format, "Report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str()
      ->multi_option_policy(takeLast);
  budget->add_option("--report-json", options.reportJson,
                     "Also write the JSON report to this file");
  budget
      ->add_option("--allow-weights-outside", options.allowedWeightDirs,
                   "Allow weights files inside DIR although they are "
                   "outside the program's directory (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  addCommon(budget);
}

std::optional<int> BudgetCommand::run(DiagnosticEngine &diags) {
  if (!*budget)
    return std::nullopt;
  options.format = format == "json" ? ReportFormat::Json : ReportFormat::Text;
  return runBudget(options, diags, llvm::outs());
}
