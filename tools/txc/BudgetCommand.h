//===- BudgetCommand.h - txc budget -----------------------------*- C++ -*-===//
//
// The command-line side of `txc budget` (docs/cli.md): its options (CLI11)
// and the call of the job in lib/Budget. Kept out of txc.cpp like
// ToolCommands.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_TXC_BUDGETCOMMAND_H
#define TXC_TOOLS_TXC_BUDGETCOMMAND_H

#include "txc/Budget/Budget.h"
#include "txc/Support/Diagnostics.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>

namespace txc {

struct BudgetCommand {
  CLI::App *budget = nullptr;
  BudgetOptions options;
  std::string format = "text";

  /// Adds `budget` to `app`; `addCommon` adds the options every command
  /// has.
  void add(CLI::App &app, const std::function<void(CLI::App *)> &addCommon);
  /// Runs the budget if it was given on the command line.
  std::optional<int> run(DiagnosticEngine &diags);
};

} // namespace txc

#endif
