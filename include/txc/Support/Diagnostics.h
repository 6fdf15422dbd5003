//===- Diagnostics.h - One diagnostic engine for every txc stage -*- C++ -*-===//
//
// Every user-facing problem (bad JSON, a shape mismatch, an op that cannot be
// exported, an MLIR verifier failure) becomes a Diagnostic reported to one
// DiagnosticEngine. A diagnostic carries a category, which decides the exit
// code of the tool, a stable id (for SARIF rules and tests), a source location
// (file:line:col) and the JSON pointer of the offending value.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_SUPPORT_DIAGNOSTICS_H
#define TXC_SUPPORT_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace txc {

class SourceFile;

/// A place in a program file. Line and column are 1-based; line 0 means the
/// location is unknown (e.g. a program built in memory by a test).
struct Loc {
  std::string pointer; ///< RFC 6901 JSON pointer, "" for the whole document.
  uint32_t line = 0;
  uint32_t column = 0;

  bool isKnown() const { return line != 0; }
};

enum class Severity { Error, Warning, Note };

/// What kind of problem a diagnostic reports. The tool's exit code is derived
/// from the most severe category reported (see exitCodeFor).
enum class DiagCategory {
  Usage,            ///< bad command line
  IO,               ///< missing, unreadable or unwritable files
  Syntax,           ///< malformed JSON or limits exceeded while reading
  Invalid,          ///< well-formed JSON that is not a valid program
  NotRepresentable, ///< a valid program that cannot be exported whole
  Target,           ///< unknown target triple / CPU, codegen failure
  Internal,         ///< a bug in txc
  ContractViolation, ///< `txc run`/`txc verify`: a call fails a guard or a
                     ///< runtime check
  BreakingChange,    ///< `txc diff`: the new manifest breaks old callers
};

/// Documented exit codes of the txc tool (docs/cli.md).
enum ExitCode : int {
  ExitOK = 0,
  ExitInternal = 1,
  ExitUsage = 2,
  ExitIO = 3,
  ExitInvalidProgram = 4,
  ExitNotRepresentable = 5,
  ExitTarget = 6,
  ExitContractViolation = 7, ///< `txc run`/`txc verify`: a call fails a
                             ///< guard (or a runtime status)
  ExitBreakingChange = 8,    ///< `txc diff`: a breaking difference
};

int exitCodeFor(DiagCategory category);

struct Diagnostic {
  Severity severity = Severity::Error;
  DiagCategory category = DiagCategory::Invalid;
  std::string id; ///< stable identifier such as "shape-mismatch"
  std::string file;
  Loc loc;
  std::string message;
  std::vector<Diagnostic> notes;

  /// Adds a note without a location, of this diagnostic's category and id.
  Diagnostic &addNote(const llvm::Twine &text);
};

enum class DiagnosticFormat { Text, Json, Sarif };

/// Text from a program, a manifest, a file name or the command line, made
/// safe to print on a terminal: control characters (C0 but the tab, DEL,
/// C1), the line and paragraph separators, bidirectional-override
/// characters and bytes that are not UTF-8 become escapes (`\n`, `\x1b`,
/// `\u202e`). Backslashes are kept, so that escaping twice changes nothing.
std::string escapeForTerminal(llvm::StringRef text);

/// A value for a text report: escaped, and if longer than 256 bytes cut to
/// its first 64 with an ellipsis and its length (`aaaa… (1048576 bytes)`).
std::string printableValue(llvm::StringRef value);

/// A message as text diagnostics print it: escaped, each quoted value
/// ('...') longer than 256 bytes cut like printableValue (`'aaaa…'
/// (1048576 bytes)`), and the whole message cut after 4096 bytes. JSON and
/// SARIF keep the message as it is.
std::string printableMessage(llvm::StringRef message);

/// The candidate closest to `word`, for a "did you mean" hint: about one
/// typo per three characters, never all of a word's characters, a
/// difference of case counting as none. "" if none is that close.
std::string nearestName(llvm::StringRef word,
                        const std::vector<std::string> &candidates);
/// " (did you mean 'x'?)" for the nearestName x of `candidates`, or "".
std::string didYouMean(llvm::StringRef word,
                       const std::vector<std::string> &candidates);

/// Collects diagnostics; renders them when asked. Rendering is separate from
/// reporting so that the same diagnostics can be printed as text, JSON or
/// SARIF and so that tests can inspect them.
class DiagnosticEngine {
public:
  DiagnosticEngine() = default;

  /// Registers the text of a file so that text diagnostics can quote the
  /// offending line with a caret under the column.
  void addSourceFile(std::shared_ptr<const SourceFile> file);

  Diagnostic &report(Diagnostic diag);
  Diagnostic &error(DiagCategory category, llvm::StringRef id,
                    llvm::StringRef file, Loc loc,
                    const llvm::Twine &message);
  Diagnostic &warning(DiagCategory category, llvm::StringRef id,
                      llvm::StringRef file, Loc loc,
                    const llvm::Twine &message);

  bool hasErrors() const { return numErrors != 0; }
  unsigned errorCount() const { return numErrors; }
  const std::vector<Diagnostic> &diagnostics() const { return diags; }

  /// The exit code the tool should return: 0 without errors, otherwise the
  /// code of the most important category (Internal > Usage > IO > Syntax >
  /// Invalid > NotRepresentable > Target > ContractViolation >
  /// BreakingChange).
  int exitCode() const;

  /// Stops recording (but still counts) after this many errors. Warnings
  /// and notes are not limited.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }

  void print(llvm::raw_ostream &os, DiagnosticFormat format,
             llvm::StringRef toolName = "txc") const;
  void printText(llvm::raw_ostream &os) const;

private:
  const SourceFile *findSource(llvm::StringRef file) const;
  void printOneText(llvm::raw_ostream &os, const Diagnostic &diag) const;

  std::vector<Diagnostic> diags;
  std::vector<std::shared_ptr<const SourceFile>> sources;
  unsigned numErrors = 0;
  /// The most important category of all errors, including those dropped
  /// past the limit.
  std::optional<DiagCategory> worstCategory;
  unsigned errorLimit = 200;
  unsigned droppedErrors = 0;
};

} // namespace txc

#endif // TXC_SUPPORT_DIAGNOSTICS_H
