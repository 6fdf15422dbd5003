//===- Usage.h - Usage errors of the txc command line -----------*- C++ -*-===//
//
// What txc says about a command line it cannot run: no command, a
// misspelled command or option (with the closest one), or any other CLI11
// parse error. Each is a usage error (exit 2) reported to the diagnostic
// engine, so that it is printed in the --diagnostics-format the command
// line asks for, read before parsing because parsing may fail.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_TXC_USAGE_H
#define TXC_TOOLS_TXC_USAGE_H

#include "txc/Support/Diagnostics.h"

#include <CLI/CLI.hpp>

#include <optional>

namespace txc {

/// The format a --diagnostics-format name means, if it is one.
std::optional<DiagnosticFormat> parseDiagnosticFormat(llvm::StringRef name);

/// The last valid `--diagnostics-format F` (or `=F`) of the command line,
/// else text.
DiagnosticFormat diagnosticsFormatIn(int argc, char **argv);

/// The command the command line names: at each level of `app` that has
/// subcommands the next word must be one of them (`txc cache stats`).
/// Null after reporting a missing or unknown command, with the closest
/// name and the list of commands. `--help` and `--version` in place of a
/// command are left to CLI11.
CLI::App *findCommand(CLI::App &app, int argc, char **argv,
                      DiagnosticEngine &diags);

/// Reports a CLI11 parse error of `command` (from findCommand) as a usage
/// error. An unexpected argument that looks like an option is named as an
/// unknown option of the command, with the closest of its options.
void reportParseError(const CLI::ParseError &error, CLI::App &command,
                      int argc, char **argv, DiagnosticEngine &diags);

} // namespace txc

#endif
