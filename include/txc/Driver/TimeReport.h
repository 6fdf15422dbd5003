//===- TimeReport.h - --time-report=json ------------------------*- C++ -*-===//
#ifndef TXC_DRIVER_TIMEREPORT_H
#define TXC_DRIVER_TIMEREPORT_H

#include "mlir/Support/Timing.h"

#include <memory>

namespace txc {

/// An output strategy for mlir::DefaultTimingManager that prints the time
/// report as one JSON object (docs/cli.md, "--time-report"):
/// `{"total_seconds": T, "phases": [{"name": ..., "seconds": S,
/// "phases": [...]}, ...], "rest_seconds": R}`.
std::unique_ptr<mlir::OutputStrategy>
createJsonTimingOutput(llvm::raw_ostream &os);

/// An output strategy that prints nothing: the timers of a compile run for
/// its status line (Progress.h) without --time-report.
std::unique_ptr<mlir::OutputStrategy> createSilentTimingOutput();

} // namespace txc

#endif
