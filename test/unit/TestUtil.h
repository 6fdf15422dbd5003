//===- TestUtil.h - Helpers shared by the txc unit tests -------*- C++ -*-===//
//
// Programs are parsed from in-memory text through SourceFile and
// readProgram; no temporary files are written.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TEST_UNIT_TESTUTIL_H
#define TXC_TEST_UNIT_TESTUTIL_H

#include "txc/Analysis/Contract.h"
#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace txc::test {

/// Every diagnostic as "line:col id: message [pointer]", one per line, for
/// failure messages and exact comparisons.
inline std::string dump(const DiagnosticEngine &diags) {
  std::string out;
  for (const Diagnostic &diag : diags.diagnostics()) {
    out += std::to_string(diag.loc.line) + ":" +
           std::to_string(diag.loc.column) + " " + diag.id + ": " +
           diag.message;
    if (!diag.loc.pointer.empty())
      out += " [" + diag.loc.pointer + "]";
    out += "\n";
  }
  return out;
}

/// The ids of the recorded diagnostics, in order.
inline std::vector<std::string> ids(const DiagnosticEngine &diags) {
  std::vector<std::string> result;
  for (const Diagnostic &diag : diags.diagnostics())
    result.push_back(diag.id);
  return result;
}

/// The first diagnostic with `id`, or null.
inline const Diagnostic *find(const DiagnosticEngine &diags,
                              const std::string &id) {
  for (const Diagnostic &diag : diags.diagnostics())
    if (diag.id == id)
      return &diag;
  return nullptr;
}

/// A program file held in memory, read (and optionally verified and turned
/// into a contract) with its own diagnostic engine.
struct Loaded {
  std::shared_ptr<SourceFile> file;
  DiagnosticEngine diags;
  std::unique_ptr<Program> program;
  bool verified = false;
  std::optional<Contract> contract;
};

inline std::unique_ptr<Loaded> read(const std::string &text,
                                    const std::string &name = "test.json") {
  auto loaded = std::make_unique<Loaded>();
  loaded->file = std::make_shared<SourceFile>(name, text);
  loaded->diags.addSourceFile(loaded->file);
  loaded->program = readProgram(*loaded->file, loaded->diags);
  return loaded;
}

inline std::unique_ptr<Loaded> verify(const std::string &text,
                                      const std::string &name = "test.json") {
  auto loaded = read(text, name);
  if (loaded->program)
    loaded->verified = verifyProgram(*loaded->program, loaded->diags);
  return loaded;
}

inline std::unique_ptr<Loaded> contract(const std::string &text,
                                        const std::string &name = "test.json") {
  auto loaded = verify(text, name);
  if (loaded->verified)
    loaded->contract = buildContract(*loaded->program, "", loaded->diags);
  return loaded;
}

/// A whole program from its parts (each the JSON text of an array's items).
inline std::string program(const std::string &symbols,
                           const std::string &inputs, const std::string &nodes,
                           const std::string &outputs,
                           const std::string &constants = "") {
  std::string text = "{\"format\": \"txc.program\", \"version\": 1, "
                     "\"name\": \"p\",\n";
  text += "\"symbols\": [" + symbols + "],\n";
  text += "\"inputs\": [" + inputs + "],\n";
  if (!constants.empty())
    text += "\"constants\": [" + constants + "],\n";
  text += "\"nodes\": [" + nodes + "],\n";
  text += "\"outputs\": [" + outputs + "]}\n";
  return text;
}

/// The text of samples/linear/linear.json.
inline std::shared_ptr<SourceFile> linearSample() {
  auto file = SourceFile::read(TXC_SAMPLES_DIR "/linear/linear.json", 1 << 20);
  if (!file) {
    llvm::consumeError(file.takeError());
    return nullptr;
  }
  return *file;
}

inline std::unique_ptr<Loaded> contractOfLinear() {
  auto sample = linearSample();
  if (!sample)
    return nullptr;
  return contract(sample->contents().str(), "linear.json");
}

} // namespace txc::test

#endif // TXC_TEST_UNIT_TESTUTIL_H
