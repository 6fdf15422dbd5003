//===- Tools.h - The contract commands of the txc CLI -----------*- C++ -*-===//
//
// `txc verify`, `txc diff`, `txc testgen` and `txc explain`: the commands a
// CI job runs on a program and on the manifests of its artifacts
// (docs/cli.md, docs/ci.md). Each job reports problems to the
// DiagnosticEngine, prints its result on standard output (or writes it to a
// file) and returns the exit code.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_TOOLS_H
#define TXC_TOOLS_TOOLS_H

#include "txc/Support/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace txc {

enum class ReportFormat { Text, Json };

struct VerifyOptions {
  std::string manifestPath;
  std::vector<std::string> shapes; ///< --shape NAME=[DTYPE:]DIMS: one call
  std::string shapesFile;          ///< --shapes-file: many calls
  bool checkExpected = false;      ///< compare with each call's "expect"
  ReportFormat format = ReportFormat::Text;
};

/// `txc verify`: would these calls pass the artifact's guards? Exit 0 when
/// every call passes (or, with checkExpected, does what it is expected to
/// do), ExitContractViolation otherwise.
int runVerify(const VerifyOptions &options, DiagnosticEngine &diags,
              llvm::raw_ostream &out);

struct DiffOptions {
  std::string oldPath, newPath;
  bool allowBreaking = false;
  ReportFormat format = ReportFormat::Text;
};

/// `txc diff`: classifies every difference between two manifests. Exit
/// ExitBreakingChange on a breaking change unless allowBreaking.
int runDiff(const DiffOptions &options, DiagnosticEngine &diags,
            llvm::raw_ostream &out);

struct TestGenOptions {
  std::string manifestPath;
  std::string outputPath = "-";
  unsigned random = 0; ///< random calls added after the boundary calls
  uint64_t seed = 1;
};

/// `txc testgen`: the boundary calls of a contract (and random ones), each
/// labelled with its expected outcome, as a calls file.
int runTestGen(const TestGenOptions &options, DiagnosticEngine &diags);

enum class ExplainFormat { Text, Json, Dot };

struct ExplainOptions {
  std::string programPath;
  std::string outputPath = "-";
  std::string entryPrefix;
  ExplainFormat format = ExplainFormat::Text;
};

/// `txc explain`: the captured region as a reviewer sees it.
int runExplain(const ExplainOptions &options, DiagnosticEngine &diags);

} // namespace txc

#endif
