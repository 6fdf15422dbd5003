//===- JsonReader.h - Typed, located access to a JSON document --*- C++ -*-===//
//
// The manifest and calls-file readers walk txc's positioned JSON DOM with
// these accessors. Each reports its own error (with the file, line, column
// and JSON pointer of the offending value) and returns null or nullopt, so
// that a reader can go on and report every problem of a document.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_TOOLS_JSONREADER_H
#define TXC_LIB_TOOLS_JSONREADER_H

#include "txc/Frontend/Json.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace txc {

class JsonReader {
public:
  JsonReader(const SourceFile &file, DiagnosticEngine &diags,
             llvm::StringRef errorId, llvm::StringRef what)
      : file(file), diags(diags), errorId(errorId.str()), what(what.str()) {}

  Loc locOf(const JsonValue &value, llvm::StringRef pointer) const;
  void error(const JsonValue &value, llvm::StringRef pointer,
             const llvm::Twine &message);
  bool failed() const { return errors != 0; }
  unsigned errorCount() const { return errors; }
  const SourceFile &source() const { return file; }

  /// `key` of an object, or null after reporting that it is missing.
  const JsonValue *required(const JsonValue &object, llvm::StringRef pointer,
                            llvm::StringRef key);
  bool isObject(const JsonValue &value, llvm::StringRef pointer);
  bool isArray(const JsonValue &value, llvm::StringRef pointer);
  std::optional<std::string> string(const JsonValue &value,
                                    llvm::StringRef pointer);
  std::optional<int64_t> integer(const JsonValue &value,
                                 llvm::StringRef pointer);
  std::optional<bool> boolean(const JsonValue &value, llvm::StringRef pointer);

  /// The same for `object[key]`, reporting a missing key.
  std::optional<std::string> stringAt(const JsonValue &object,
                                      llvm::StringRef pointer,
                                      llvm::StringRef key);
  std::optional<int64_t> integerAt(const JsonValue &object,
                                   llvm::StringRef pointer,
                                   llvm::StringRef key);
  std::optional<bool> booleanAt(const JsonValue &object,
                                llvm::StringRef pointer, llvm::StringRef key);

private:
  const SourceFile &file;
  DiagnosticEngine &diags;
  std::string errorId;
  std::string what; ///< "manifest", "calls file": for messages
  unsigned errors = 0;
};

/// A JSON file read and parsed, its text registered with the diagnostics.
struct JsonDocument {
  std::shared_ptr<SourceFile> file;
  std::unique_ptr<JsonValue> root;
};

/// Reads the file at `path` (a calls file, a workload file: `what` names
/// it in the I/O error) and parses it; nullopt after reporting an I/O
/// error or a JSON syntax error.
std::optional<JsonDocument> readJsonDocument(llvm::StringRef path,
                                             llvm::StringRef what,
                                             DiagnosticEngine &diags);

/// The same document as an nlohmann value (for comparisons and printing;
/// txc parses JSON only in lib/Frontend).
nlohmann::ordered_json toNlohmann(const JsonValue &value);

/// The value at an RFC 6901 pointer, or null.
const JsonValue *resolvePointer(const JsonValue &root, llvm::StringRef pointer);

} // namespace txc

#endif
