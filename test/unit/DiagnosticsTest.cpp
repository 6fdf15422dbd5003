//===- DiagnosticsTest.cpp ------------------------------------------------===//
//
// The diagnostic engine: exit codes, the error limit, and the text, JSON and
// SARIF renderings.
//
//===----------------------------------------------------------------------===//
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"
#include "txc/Support/Version.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace txc;
using json = nlohmann::ordered_json;

namespace {

Loc at(uint32_t line, uint32_t column, std::string pointer = "") {
  Loc loc;
  loc.line = line;
  loc.column = column;
  loc.pointer = std::move(pointer);
  return loc;
}

std::string render(const DiagnosticEngine &diags, DiagnosticFormat format,
                   llvm::StringRef tool = "txc") {
  std::string text;
  llvm::raw_string_ostream os(text);
  diags.print(os, format, tool);
  return text;
}

//===----------------------------------------------------------------------===//
// Exit codes
//===----------------------------------------------------------------------===//

TEST(Diagnostics, ExitCodeOfEachCategory) {
  EXPECT_EQ(exitCodeFor(DiagCategory::Internal), 1);
  EXPECT_EQ(exitCodeFor(DiagCategory::Usage), 2);
  EXPECT_EQ(exitCodeFor(DiagCategory::IO), 3);
  EXPECT_EQ(exitCodeFor(DiagCategory::Syntax), 4);
  EXPECT_EQ(exitCodeFor(DiagCategory::Invalid), 4);
  EXPECT_EQ(exitCodeFor(DiagCategory::NotRepresentable), 5);
  EXPECT_EQ(exitCodeFor(DiagCategory::Target), 6);
  EXPECT_EQ(ExitContractViolation, 7);
  EXPECT_EQ(ExitBreakingChange, 8);
}

TEST(Diagnostics, ExitCodePrecedence) {
  // From the most to the least important category.
  const DiagCategory order[] = {
      DiagCategory::Internal, DiagCategory::Usage,
      DiagCategory::IO,       DiagCategory::Syntax,
      DiagCategory::Invalid,  DiagCategory::NotRepresentable,
      DiagCategory::Target};
  for (size_t worst = 0; worst < std::size(order); ++worst) {
    // Report every less important category before and after the worst one.
    for (bool worstFirst : {true, false}) {
      DiagnosticEngine diags;
      if (worstFirst)
        diags.error(order[worst], "w", "f", Loc(), "worst");
      for (size_t i = worst + 1; i < std::size(order); ++i)
        diags.error(order[i], "x", "f", Loc(), "other");
      if (!worstFirst)
        diags.error(order[worst], "w", "f", Loc(), "worst");
      EXPECT_EQ(diags.exitCode(), exitCodeFor(order[worst]))
          << "worst " << worst << (worstFirst ? " first" : " last");
    }
  }
}

TEST(Diagnostics, WarningsAndNotesDoNotChangeTheExitCode) {
  DiagnosticEngine diags;
  EXPECT_EQ(diags.exitCode(), ExitOK);
  EXPECT_FALSE(diags.hasErrors());
  Diagnostic &warning =
      diags.warning(DiagCategory::Internal, "w", "f", Loc(), "just a warning");
  EXPECT_EQ(warning.severity, Severity::Warning);
  EXPECT_EQ(warning.category, DiagCategory::Internal);
  Diagnostic note;
  note.severity = Severity::Note;
  note.category = DiagCategory::Internal;
  diags.report(note);
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(diags.errorCount(), 0u);
  EXPECT_EQ(diags.exitCode(), ExitOK);
  EXPECT_EQ(diags.diagnostics().size(), 2u);
  diags.error(DiagCategory::Target, "t", "f", Loc(), "target");
  EXPECT_EQ(diags.exitCode(), ExitTarget);
}

//===----------------------------------------------------------------------===//
// The error limit
//===----------------------------------------------------------------------===//

TEST(Diagnostics, ErrorLimit) {
  DiagnosticEngine diags;
  diags.setErrorLimit(2);
  for (int i = 0; i < 5; ++i)
    diags.error(DiagCategory::Invalid, "e", "f.json", Loc(),
                "error " + llvm::Twine(i));
  EXPECT_EQ(diags.errorCount(), 5u);
  ASSERT_EQ(diags.diagnostics().size(), 2u);
  EXPECT_EQ(diags.diagnostics()[1].message, "error 1");
  EXPECT_EQ(render(diags, DiagnosticFormat::Text),
            "f.json: error: error 0\n"
            "f.json: error: error 1\n"
            "note: 3 more errors were found but not shown (limit 2)\n");
  json doc = json::parse(render(diags, DiagnosticFormat::Json));
  EXPECT_EQ(doc["errors"], 5);
  EXPECT_EQ(doc["diagnostics"].size(), 2u);
  // A dropped error can still be given notes.
  Diagnostic &dropped =
      diags.error(DiagCategory::Invalid, "e", "f.json", Loc(), "dropped");
  dropped.notes.push_back(Diagnostic());
  EXPECT_EQ(diags.diagnostics().size(), 2u);
}

TEST(Diagnostics, DroppedErrorsStillDecideTheExitCode) {
  DiagnosticEngine diags;
  diags.setErrorLimit(1);
  diags.error(DiagCategory::NotRepresentable, "a", "f", Loc(), "shown");
  diags.error(DiagCategory::Invalid, "b", "f", Loc(), "dropped");
  EXPECT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.exitCode(), ExitInvalidProgram);
  diags.error(DiagCategory::Internal, "c", "f", Loc(), "dropped");
  EXPECT_EQ(diags.exitCode(), ExitInternal);
}

TEST(Diagnostics, WarningsAreNotErrorsPastTheLimit) {
  DiagnosticEngine diags;
  diags.setErrorLimit(1);
  diags.error(DiagCategory::Invalid, "e", "f", Loc(), "error");
  diags.warning(DiagCategory::Invalid, "w", "f", Loc(), "warning");
  diags.warning(DiagCategory::Invalid, "w", "f", Loc(), "warning 2");
  EXPECT_EQ(diags.errorCount(), 1u);
  // Warnings are not limited and never counted as dropped errors.
  EXPECT_EQ(render(diags, DiagnosticFormat::Text), "f: error: error\n"
                                                   "f: warning: warning\n"
                                                   "f: warning: warning 2\n");
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

TEST(Diagnostics, TextWithCaretLine) {
  auto file = std::make_shared<SourceFile>(
      "p.json", "{\n  \"version\": 2,\n\t\"x\": 1\n}\n");
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  diags.error(DiagCategory::Invalid, "bad-version", "p.json",
              at(2, 14, "/version"), "version 2 is not supported");
  diags.error(DiagCategory::Invalid, "tab", "p.json", at(3, 7, "/x"),
              "after a tab");
  EXPECT_EQ(render(diags, DiagnosticFormat::Text),
            "p.json:2:14: error: version 2 is not supported [at /version]\n"
            "    \"version\": 2,\n"
            "               ^\n"
            "p.json:3:7: error: after a tab [at /x]\n"
            "  \t\"x\": 1\n"
            "  \t     ^\n");
}

TEST(Diagnostics, TextCaretAfterMultiByteCharacters) {
  // "é" is two bytes but one column on screen.
  auto file = std::make_shared<SourceFile>(
      "u.json", "{\"k\": \"\xC3\xA9\xC3\xA9\", \"x\": 1}");
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  diags.error(DiagCategory::Invalid, "e", "u.json", at(1, 16), "here");
  EXPECT_EQ(render(diags, DiagnosticFormat::Text),
            "u.json:1:16: error: here\n"
            "  {\"k\": \"\xC3\xA9\xC3\xA9\", \"x\": 1}\n"
            "               ^\n");
}

TEST(Diagnostics, TextCaretPastTheEndOfTheLine) {
  auto file = std::make_shared<SourceFile>("e.json", "{\"a\": [1, 2\r\n");
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  diags.error(DiagCategory::Syntax, "e", "e.json", at(1, 20), "end");
  EXPECT_EQ(render(diags, DiagnosticFormat::Text), "e.json:1:20: error: end\n"
                                                   "  {\"a\": [1, 2\n"
                                                   "             ^\n");
}

TEST(Diagnostics, TextWithoutSourceOrLocation) {
  DiagnosticEngine diags;
  diags.error(DiagCategory::IO, "io-read", "missing.json", Loc(),
              "cannot read");
  diags.error(DiagCategory::Usage, "usage", "", Loc(), "bad flag");
  // A known location in a file whose text is not registered: no quote.
  diags.error(DiagCategory::Invalid, "e", "other.json", at(3, 4, "/a/0"),
              "no text");
  Diagnostic &withNotes =
      diags.error(DiagCategory::Invalid, "dup", "p.json", at(5, 1), "twice");
  Diagnostic note;
  note.severity = Severity::Note;
  note.file = "p.json";
  note.loc = at(2, 3);
  note.message = "first defined here";
  withNotes.notes.push_back(note);
  Diagnostic hint;
  hint.severity = Severity::Note;
  hint.message = "hint: do this";
  withNotes.notes.push_back(hint);
  EXPECT_EQ(render(diags, DiagnosticFormat::Text),
            "missing.json: error: cannot read\n"
            "error: bad flag\n"
            "other.json:3:4: error: no text [at /a/0]\n"
            "p.json:5:1: error: twice\n"
            "p.json:2:3: note: first defined here\n"
            "note: hint: do this\n");
}

TEST(Diagnostics, LongLinesAreNotQuoted) {
  std::string line(201, 'x');
  auto file = std::make_shared<SourceFile>("l.json", line + "\nshort\n");
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  diags.error(DiagCategory::Syntax, "e", "l.json", at(1, 5), "long");
  diags.error(DiagCategory::Syntax, "e", "l.json", at(2, 2), "short");
  EXPECT_EQ(render(diags, DiagnosticFormat::Text), "l.json:1:5: error: long\n"
                                                   "l.json:2:2: error: short\n"
                                                   "  short\n"
                                                   "   ^\n");
}

//===----------------------------------------------------------------------===//
// Untrusted text
//===----------------------------------------------------------------------===//

TEST(Diagnostics, NearestName) {
  std::vector<std::string> names = {"compile", "check", "stats", "x"};
  EXPECT_EQ(nearestName("comple", names), "compile");
  EXPECT_EQ(nearestName("stat", names), "stats");
  EXPECT_EQ(nearestName("CHECK", names), "check");
  // About one typo per three characters, never a whole word.
  EXPECT_EQ(nearestName("chekc", names), "");
  EXPECT_EQ(nearestName("y", names), "");
  EXPECT_EQ(didYouMean("stat", names), " (did you mean 'stats'?)");
  EXPECT_EQ(didYouMean("bogus", names), "");
}

TEST(Diagnostics, EscapeForTerminal) {
  EXPECT_EQ(escapeForTerminal("p\x1b[2J"), "p\\x1b[2J");
  EXPECT_EQ(escapeForTerminal("a\nb\rc\td\x7f"), "a\\nb\\rc\td\\x7f");
  // C1 CSI, a right-to-left override and a line separator; then a byte
  // that is not UTF-8 and a sequence cut short.
  EXPECT_EQ(escapeForTerminal("\xC2\x9B\xE2\x80\xAE\xE2\x80\xA8"),
            "\\u009b\\u202e\\u2028");
  EXPECT_EQ(escapeForTerminal("x\xFFy\xC3"), "x\\xffy\\xc3");
  // Printable UTF-8 and backslashes stay, so escaping twice is escaping once.
  EXPECT_EQ(escapeForTerminal("\xC3\xA9 \\x1b \xE2\x80\xA6"),
            "\xC3\xA9 \\x1b \xE2\x80\xA6");
  std::string once = escapeForTerminal("\x1b\xC2\x9B\xFF");
  EXPECT_EQ(escapeForTerminal(once), once);
}

TEST(Diagnostics, PrintableValueCutsLongValues) {
  EXPECT_EQ(printableValue(std::string(256, 'a')), std::string(256, 'a'));
  EXPECT_EQ(printableValue(std::string(257, 'a')),
            std::string(64, 'a') + "\xE2\x80\xA6 (257 bytes)");
  // The cut does not split a UTF-8 sequence: 63 bytes, then "é".
  std::string accented(63, 'a');
  for (int i = 0; i < 100; ++i)
    accented += "\xC3\xA9";
  EXPECT_EQ(printableValue(accented),
            std::string(63, 'a') + "\xE2\x80\xA6 (263 bytes)");
}

TEST(Diagnostics, PrintableMessageCutsQuotedValues) {
  std::string name(1 << 20, 'a');
  EXPECT_EQ(printableMessage("the name '" + name + "' is not valid"),
            "the name '" + std::string(64, 'a') +
                "\xE2\x80\xA6' (1048576 bytes) is not valid");
  // Short values, and quotes inside a value, are kept.
  EXPECT_EQ(printableMessage("node 'it's' uses 'x'"), "node 'it's' uses 'x'");
  std::string quoted = "'" + std::string(300, 'b') + "'s'";
  EXPECT_EQ(printableMessage("key " + quoted + " and 'y'"),
            "key '" + std::string(64, 'b') +
                "\xE2\x80\xA6' (302 bytes) and 'y'");
  // Escaped after cutting; unquoted text is cut as a whole.
  EXPECT_EQ(printableMessage("op '\x1b[2J'"), "op '\\x1b[2J'");
  std::string longMessage(5000, 'm');
  EXPECT_EQ(printableMessage(longMessage),
            std::string(4096, 'm') +
                "\xE2\x80\xA6 (a message of 5000 bytes)");
}

TEST(Diagnostics, TextEscapesFileMessagePointerAndSourceLine) {
  // The ESC is at column 8: the caret goes under its escape.
  auto file = std::make_shared<SourceFile>("e\x1b.json",
                                           "{\"k\": \"\x1b[2J\", \"x\": 1}");
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  diags.error(DiagCategory::Syntax, "e", "e\x1b.json", at(1, 8, "/k\x1b"),
              "bad '\x1b[2J'");
  diags.error(DiagCategory::Syntax, "e", "e\x1b.json", at(1, 15), "after");
  EXPECT_EQ(render(diags, DiagnosticFormat::Text),
            "e\\x1b.json:1:8: error: bad '\\x1b[2J' [at /k\\x1b]\n"
            "  {\"k\": \"\\x1b[2J\", \"x\": 1}\n"
            "         ^\n"
            "e\\x1b.json:1:15: error: after\n"
            "  {\"k\": \"\\x1b[2J\", \"x\": 1}\n"
            "                   ^\n");
  // JSON keeps the exact text.
  json doc = json::parse(render(diags, DiagnosticFormat::Json));
  EXPECT_EQ(doc["diagnostics"][0]["message"], "bad '\x1b[2J'");
  EXPECT_EQ(doc["diagnostics"][0]["pointer"], "/k\x1b");
}

//===----------------------------------------------------------------------===//
// JSON and SARIF
//===----------------------------------------------------------------------===//

DiagnosticEngine sampleDiagnostics() {
  DiagnosticEngine diags;
  Diagnostic &dup =
      diags.error(DiagCategory::Invalid, "duplicate-name", "dir/p.json",
                  at(5, 7, "/inputs/1"), "the name 'x' is defined twice");
  Diagnostic note;
  note.severity = Severity::Note;
  note.id = "duplicate-name";
  note.file = "dir/p.json";
  note.loc = at(4, 7, "/inputs/0");
  note.message = "first defined here";
  dup.notes.push_back(note);
  diags.warning(DiagCategory::Invalid, "unused-symbol", "dir/p.json",
                at(2, 3, "/symbols/0"), "symbol 'T' is not used");
  diags.error(DiagCategory::IO, "io-read", "gone.json", Loc(), "cannot read");
  diags.error(DiagCategory::Invalid, "duplicate-name", "dir/p.json", at(9, 1),
              "again");
  return diags;
}

TEST(Diagnostics, JsonRendering) {
  DiagnosticEngine diags = sampleDiagnostics();
  std::string text = render(diags, DiagnosticFormat::Json);
  EXPECT_EQ(text.back(), '\n');
  json doc = json::parse(text);
  EXPECT_EQ(doc["errors"], 3);
  ASSERT_EQ(doc["diagnostics"].size(), 4u);
  const json &first = doc["diagnostics"][0];
  std::vector<std::string> keys;
  for (auto it = first.begin(); it != first.end(); ++it)
    keys.push_back(it.key());
  EXPECT_EQ(keys, std::vector<std::string>({"severity", "id", "file", "line",
                                            "column", "pointer", "message",
                                            "notes"}));
  EXPECT_EQ(first["severity"], "error");
  EXPECT_EQ(first["id"], "duplicate-name");
  EXPECT_EQ(first["file"], "dir/p.json");
  EXPECT_EQ(first["line"], 5);
  EXPECT_EQ(first["column"], 7);
  EXPECT_EQ(first["pointer"], "/inputs/1");
  EXPECT_EQ(first["message"], "the name 'x' is defined twice");
  ASSERT_EQ(first["notes"].size(), 1u);
  EXPECT_EQ(first["notes"][0]["severity"], "note");
  EXPECT_EQ(first["notes"][0]["line"], 4);
  EXPECT_EQ(doc["diagnostics"][1]["severity"], "warning");
  // Unknown locations have no line or column.
  const json &io = doc["diagnostics"][2];
  EXPECT_FALSE(io.contains("line"));
  EXPECT_FALSE(io.contains("column"));
  EXPECT_EQ(io["pointer"], "");
  EXPECT_FALSE(io.contains("notes"));
}

TEST(Diagnostics, JsonRenderingOfInvalidUtf8) {
  DiagnosticEngine diags;
  diags.error(DiagCategory::Syntax, "e", "bad\xFF.json", Loc(),
              "bad byte \xC3");
  json doc = json::parse(render(diags, DiagnosticFormat::Json));
  EXPECT_EQ(doc["diagnostics"][0]["file"], "bad\xEF\xBF\xBD.json");
}

TEST(Diagnostics, SarifStructure) {
  DiagnosticEngine diags = sampleDiagnostics();
  json log = json::parse(render(diags, DiagnosticFormat::Sarif, "txc-check"));
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  ASSERT_EQ(log["runs"].size(), 1u);
  const json &run = log["runs"][0];
  const json &driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "txc-check");
  EXPECT_EQ(driver["version"], txcVersion());
  // One rule per distinct id, in order of first use.
  EXPECT_EQ(driver["rules"],
            json::parse(R"([{"id": "duplicate-name"}, {"id": "unused-symbol"},
                             {"id": "io-read"}])"));

  const json &results = run["results"];
  ASSERT_EQ(results.size(), 4u);
  const json &dup = results[0];
  EXPECT_EQ(dup["ruleId"], "duplicate-name");
  EXPECT_EQ(dup["level"], "error");
  EXPECT_EQ(dup["message"]["text"], "the name 'x' is defined twice");
  ASSERT_EQ(dup["locations"].size(), 1u);
  const json &physical = dup["locations"][0]["physicalLocation"];
  EXPECT_EQ(physical["artifactLocation"]["uri"], "dir/p.json");
  EXPECT_EQ(physical["region"]["startLine"], 5);
  EXPECT_EQ(physical["region"]["startColumn"], 7);
  EXPECT_EQ(dup["locations"][0]["logicalLocations"],
            json::parse(R"([{"fullyQualifiedName": "/inputs/1",
                             "kind": "member"}])"));
  ASSERT_EQ(dup["relatedLocations"].size(), 1u);
  const json &related = dup["relatedLocations"][0];
  EXPECT_EQ(related["physicalLocation"]["region"]["startLine"], 4);
  EXPECT_EQ(related["message"]["text"], "first defined here");

  EXPECT_EQ(results[1]["level"], "warning");
  EXPECT_EQ(results[1]["ruleId"], "unused-symbol");
  // A file without a known position: a location without a region.
  const json &io = results[2];
  EXPECT_EQ(io["level"], "error");
  EXPECT_EQ(io["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "gone.json");
  EXPECT_FALSE(io["locations"][0]["physicalLocation"].contains("region"));
  EXPECT_FALSE(io["locations"][0].contains("logicalLocations"));
  EXPECT_FALSE(io.contains("relatedLocations"));
  EXPECT_EQ(
      results[3]["locations"][0]["physicalLocation"]["region"]["startLine"], 9);
}

TEST(Diagnostics, SarifWithoutFileHasNoLocations) {
  DiagnosticEngine diags;
  diags.error(DiagCategory::Usage, "usage", "", Loc(), "bad flag");
  Diagnostic note;
  note.severity = Severity::Note;
  note.message = "hint";
  Diagnostic &error =
      diags.error(DiagCategory::Invalid, "e", "p.json", at(1, 1), "x");
  error.notes.push_back(note);
  json log = json::parse(render(diags, DiagnosticFormat::Sarif));
  const json &results = log["runs"][0]["results"];
  EXPECT_FALSE(results[0].contains("locations"));
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_EQ(results[1]["relatedLocations"],
            json::parse(R"([{"message": {"text": "hint"}}])"));
  EXPECT_EQ(log["runs"][0]["tool"]["driver"]["name"], "txc");
}

TEST(Diagnostics, EmptyRenderings) {
  DiagnosticEngine diags;
  EXPECT_EQ(render(diags, DiagnosticFormat::Text), "");
  json doc = json::parse(render(diags, DiagnosticFormat::Json));
  EXPECT_EQ(doc, json::parse(R"({"diagnostics": [], "errors": 0})"));
  json log = json::parse(render(diags, DiagnosticFormat::Sarif));
  EXPECT_TRUE(log["runs"][0]["results"].empty());
  EXPECT_TRUE(log["runs"][0]["tool"]["driver"]["rules"].empty());
}

//===----------------------------------------------------------------------===//
// SourceFile
//===----------------------------------------------------------------------===//

TEST(SourceFile, LineAndColumn) {
  SourceFile file("s", "ab\ncd\r\n\nef");
  using LC = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(file.lineAndColumn(0), LC(1, 1));
  EXPECT_EQ(file.lineAndColumn(2), LC(1, 3)); // the '\n'
  EXPECT_EQ(file.lineAndColumn(3), LC(2, 1));
  EXPECT_EQ(file.lineAndColumn(7), LC(3, 1));
  EXPECT_EQ(file.lineAndColumn(9), LC(4, 2));
  // Past the end: clamped to the end.
  EXPECT_EQ(file.lineAndColumn(1000), LC(4, 3));
  EXPECT_EQ(file.lineText(1), "ab");
  EXPECT_EQ(file.lineText(2), "cd");
  EXPECT_EQ(file.lineText(3), "");
  EXPECT_EQ(file.lineText(4), "ef");
  EXPECT_EQ(file.lineText(0), "");
  EXPECT_EQ(file.lineText(5), "");
}

TEST(SourceFile, ByteOrderMark) {
  SourceFile file("s", "\xEF\xBB\xBFx\ny");
  using LC = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(file.lineAndColumn(0), LC(1, 1));
  EXPECT_EQ(file.lineAndColumn(3), LC(1, 1));
  EXPECT_EQ(file.lineAndColumn(4), LC(1, 2));
  EXPECT_EQ(file.lineAndColumn(5), LC(2, 1));
  EXPECT_EQ(file.lineText(1), "x");
  EXPECT_EQ(file.lineText(2), "y");
  SourceFile empty("e", "");
  EXPECT_EQ(empty.lineAndColumn(0), LC(1, 1));
  EXPECT_EQ(empty.lineText(1), "");
}

TEST(SourceFile, ReadRefusesLargeFilesAndDirectories) {
  auto dir = SourceFile::read(TXC_SAMPLES_DIR, 1 << 20);
  ASSERT_FALSE(dir);
  EXPECT_NE(llvm::toString(dir.takeError()).find("it is a directory"),
            std::string::npos);
  auto big = SourceFile::read(TXC_SAMPLES_DIR "/linear/linear.json", 10);
  ASSERT_FALSE(big);
  EXPECT_EQ(llvm::errorToErrorCode(big.takeError()), std::errc::file_too_large);
  auto ok = SourceFile::read(TXC_SAMPLES_DIR "/linear/linear.json", 1 << 20);
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ((*ok)->name(), TXC_SAMPLES_DIR "/linear/linear.json");
}

} // namespace
