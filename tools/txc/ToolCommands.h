//===- ToolCommands.h - txc verify, diff, testgen, explain, cache -*- C++
//-*-===//
//
// The command-line side of the contract commands and of `txc cache`: their
// options (CLI11) and the dispatch to the jobs of lib/Tools and lib/Driver.
// Kept out of txc.cpp so that the compile command's file stays small.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_TXC_TOOLCOMMANDS_H
#define TXC_TOOLS_TXC_TOOLCOMMANDS_H

#include "txc/Driver/CompileCache.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Tools/Tools.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>

namespace txc {

struct ToolCommands {
  CLI::App *verify = nullptr, *diff = nullptr, *testgen = nullptr,
           *explain = nullptr, *cache = nullptr;
  CLI::App *cacheStats = nullptr, *cacheCheck = nullptr, *cacheClear = nullptr;

  VerifyOptions verifyOptions;
  DiffOptions diffOptions;
  TestGenOptions testgenOptions;
  ExplainOptions explainOptions;
  std::string verifyFormat = "text", diffFormat = "text",
              explainFormat = "text", cacheFormat = "text";
  std::string cacheDir;

  /// Adds the commands to `app`; `addCommon` adds the options every command
  /// has (--diagnostics-format).
  void add(CLI::App &app, const std::function<void(CLI::App *)> &addCommon);
  /// Runs the command given on the command line if it is one of these.
  std::optional<int> run(DiagnosticEngine &diags);
};

/// Parses a byte count: digits with an optional K, M, G or T suffix
/// (powers of 1024, e.g. 512M). Returns nullopt if it is not one.
std::optional<uint64_t> parseByteCount(llvm::StringRef text);

} // namespace txc

#endif
