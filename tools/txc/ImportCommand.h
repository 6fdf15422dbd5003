//===- ImportCommand.h - txc import onnx ------------------------*- C++ -*-===//
//
// The command-line side of `txc import onnx` (docs/cli.md): its options
// (CLI11) and the call of the job in lib/Import. Kept out of txc.cpp like
// ToolCommands.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_TXC_IMPORTCOMMAND_H
#define TXC_TOOLS_TXC_IMPORTCOMMAND_H

#include "txc/Import/OnnxImport.h"
#include "txc/Support/Diagnostics.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>

namespace txc {

struct ImportCommand {
  CLI::App *importCommand = nullptr, *onnx = nullptr;
  OnnxImportOptions onnxOptions;

  /// Adds `import` and its subcommand `onnx` to `app`; `addCommon` adds the
  /// options every command has.
  void add(CLI::App &app, const std::function<void(CLI::App *)> &addCommon);
  /// Runs the import if it was given on the command line.
  std::optional<int> run(DiagnosticEngine &diags);
};

} // namespace txc

#endif
