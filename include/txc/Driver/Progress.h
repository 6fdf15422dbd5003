//===- Progress.h - The status line of a compile ----------------*- C++ -*-===//
//
// While a compile runs on a terminal, stderr shows the phase it is in on
// one line, rewritten in place like ninja's status: `[5/10] linear.json:
// mlir-pipeline` (docs/cli.md, "Progress"). The phases are the top-level
// timers of the compile (those of --time-report), so the line needs no
// call of its own in the code it reports on.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_DRIVER_PROGRESS_H
#define TXC_DRIVER_PROGRESS_H

#include "mlir/Support/Timing.h"

#include <string>
#include <vector>

namespace llvm {
class raw_fd_ostream;
} // namespace llvm

namespace txc {

/// The timing manager of a compile: --time-report's timers, and the status
/// line, which it shows when given a stream for it and clears when
/// destroyed (before the base class prints any time report).
class CompileTiming : public mlir::DefaultTimingManager {
public:
  /// `status`: the terminal the line goes to, or null for none. `label`
  /// names the compile (the program file), escaped for the terminal.
  CompileTiming(llvm::raw_ostream *status, llvm::StringRef label);
  ~CompileTiming() override;

  /// The top-level phases in the order they will run, for the count. A
  /// phase not in the list is shown without a count.
  void setPhases(std::vector<std::string> names) { phases = std::move(names); }

protected:
  std::optional<void *> rootTimer() override;
  void *nestTimer(void *handle, const void *id,
                  llvm::function_ref<std::string()> nameBuilder) override;

private:
  void show(llvm::StringRef phase);

  llvm::raw_ostream *status;
  std::string label;
  std::vector<std::string> phases;
  void *root = nullptr;
  bool shown = false;
};

/// Whether `os` can show a status line: a terminal, and TERM set and not
/// "dumb" (ninja's rule).
bool canShowStatusLine(llvm::raw_fd_ostream &os);

/// Erases what a status line may have left on `os` (a fatal error ends the
/// process without destroying the CompileTiming).
void clearStatusLine(llvm::raw_fd_ostream &os);

} // namespace txc

#endif
