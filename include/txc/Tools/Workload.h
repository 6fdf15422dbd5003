//===- Workload.h - Sequences of call shapes for txc budget -----*- C++ -*-===//
//
// A workload is the sequence of call shapes a deployment sees, given as the
// values of the program's symbols (docs/cli.md, "txc budget"): a workload
// file, `--steady B=8:1000` (one shape N times) or `--churn B=1..64:1000`
// (N shapes drawn from ranges with a fixed seed). `txc budget` measures what
// each compile strategy costs on it; the LRU of one artifact per distinct
// shape is simulated here, so that its hits and misses are a function of
// the workload alone.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_WORKLOAD_H
#define TXC_TOOLS_WORKLOAD_H

#include "txc/Analysis/Contract.h"
#include "txc/Support/Diagnostics.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace txc {

/// The most calls a workload may have: the budget sums per call.
inline constexpr uint64_t kMaxWorkloadCalls = 10'000'000;

struct Workload {
  /// How it was given: "file w.json", "steady B=8:1000",
  /// "churn B=1..64:1000 seed 1".
  std::string source;
  /// The distinct shapes (symbol values by symbol id), in the order the
  /// workload first calls them.
  std::vector<std::vector<int64_t>> shapes;
  /// The calls in order, run-length encoded: (index into shapes, count),
  /// consecutive runs of one shape merged.
  std::vector<std::pair<uint32_t, uint64_t>> runs;

  uint64_t calls() const;
  /// The number of calls of each distinct shape.
  std::vector<uint64_t> callsPerShape() const;
  /// Appends `count` calls of `values`.
  void add(const std::vector<int64_t> &values, uint64_t count);
};

/// Reads a workload file: `{"format": "txc.workload", "version": 1,
/// "calls": [...]}` or just the array; each call an object with every
/// symbol's value and an optional positive `repeat`. Reports I/O errors
/// (exit 3) and invalid contents with file:line:col and JSON pointer (exit
/// 4); nullopt after reporting.
std::optional<Workload> readWorkloadFile(llvm::StringRef path,
                                         const Contract &contract,
                                         DiagnosticEngine &diags);

/// `--steady 'B=8,S=128:1000'`: one shape, N calls. Usage errors.
std::optional<Workload> steadyWorkload(llvm::StringRef text,
                                       const Contract &contract,
                                       DiagnosticEngine &diags);

/// `--churn 'B=1..64,S=128:1000'`: N calls, each symbol drawn uniformly
/// from the valid values (multiples of its multiple_of) of its range with
/// a std::mt19937_64 seeded by `seed`, so the same text and seed give the
/// same calls everywhere. Usage errors.
std::optional<Workload> churnWorkload(llvm::StringRef text,
                                      const Contract &contract, uint64_t seed,
                                      DiagnosticEngine &diags);

/// One artifact per distinct shape, compiled on the first call of a shape
/// that is not cached, in a least-recently-used cache of `capacity`
/// artifacts (the lesson's cache lab); `capacity` is at least 1.
struct LruResult {
  uint64_t hits = 0, misses = 0;
  /// The 0-based index of the call of the second compile, if any: when a
  /// one-artifact budget stops holding.
  std::optional<uint64_t> secondMissCall;
  /// Misses per distinct shape.
  std::vector<uint64_t> missesPerShape;
};
LruResult simulateLru(const Workload &workload, unsigned capacity);

} // namespace txc

#endif
