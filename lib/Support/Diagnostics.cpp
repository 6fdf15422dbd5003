//===- Diagnostics.cpp - Reporting and rendering diagnostics --------------===//
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"
#include "txc/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace txc;

int txc::exitCodeFor(DiagCategory category) {
  switch (category) {
  case DiagCategory::Usage:
    return ExitUsage;
  case DiagCategory::IO:
    return ExitIO;
  case DiagCategory::Syntax:
  case DiagCategory::Invalid:
    return ExitInvalidProgram;
  case DiagCategory::NotRepresentable:
    return ExitNotRepresentable;
  case DiagCategory::Target:
    return ExitTarget;
  case DiagCategory::Internal:
    return ExitInternal;
  case DiagCategory::ContractViolation:
    return ExitContractViolation;
  case DiagCategory::BreakingChange:
    return ExitBreakingChange;
  }
  return ExitInternal;
}

/// Lower rank wins when several categories were reported: a malformed program
/// is reported as invalid even if it also uses a host op.
static int categoryRank(DiagCategory category) {
  switch (category) {
  case DiagCategory::Internal:
    return 0;
  case DiagCategory::Usage:
    return 1;
  case DiagCategory::IO:
    return 2;
  case DiagCategory::Syntax:
    return 3;
  case DiagCategory::Invalid:
    return 4;
  case DiagCategory::NotRepresentable:
    return 5;
  case DiagCategory::Target:
    return 6;
  case DiagCategory::ContractViolation:
    return 7;
  case DiagCategory::BreakingChange:
    return 8;
  }
  return 0;
}

Diagnostic &Diagnostic::addNote(const llvm::Twine &text) {
  Diagnostic note;
  note.severity = Severity::Note;
  note.category = category;
  note.id = id;
  note.message = text.str();
  notes.push_back(std::move(note));
  return *this;
}

void DiagnosticEngine::addSourceFile(std::shared_ptr<const SourceFile> file) {
  sources.push_back(std::move(file));
}

Diagnostic &DiagnosticEngine::report(Diagnostic diag) {
  if (diag.severity == Severity::Error) {
    ++numErrors;
    if (!worstCategory ||
        categoryRank(diag.category) < categoryRank(*worstCategory))
      worstCategory = diag.category;
    if (numErrors > errorLimit) {
      ++droppedErrors;
      static thread_local Diagnostic sink;
      sink = std::move(diag);
      return sink;
    }
  }
  diags.push_back(std::move(diag));
  return diags.back();
}

Diagnostic &DiagnosticEngine::error(DiagCategory category, llvm::StringRef id,
                                    llvm::StringRef file, Loc loc,
                                    const llvm::Twine &message) {
  Diagnostic diag;
  diag.severity = Severity::Error;
  diag.category = category;
  diag.id = id.str();
  diag.file = file.str();
  diag.loc = std::move(loc);
  diag.message = message.str();
  return report(std::move(diag));
}

Diagnostic &DiagnosticEngine::warning(DiagCategory category,
                                      llvm::StringRef id, llvm::StringRef file,
                                      Loc loc, const llvm::Twine &message) {
  Diagnostic diag;
  diag.severity = Severity::Warning;
  diag.category = category;
  diag.id = id.str();
  diag.file = file.str();
  diag.loc = std::move(loc);
  diag.message = message.str();
  return report(std::move(diag));
}

int DiagnosticEngine::exitCode() const {
  return worstCategory ? exitCodeFor(*worstCategory) : ExitOK;
}

const SourceFile *DiagnosticEngine::findSource(llvm::StringRef file) const {
  for (const auto &source : sources)
    if (source->name() == file)
      return source.get();
  return nullptr;
}

static llvm::StringRef severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

std::string txc::nearestName(llvm::StringRef word,
                             const std::vector<std::string> &candidates) {
  std::string best;
  unsigned bestDistance = unsigned(std::min<size_t>(
      std::max<size_t>(1, word.size() / 3) + 1, word.size()));
  for (const std::string &candidate : candidates) {
    unsigned distance =
        word.equals_insensitive(candidate)
            ? 0
            : word.edit_distance(candidate, /*AllowReplacements=*/true,
                                 bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string txc::didYouMean(llvm::StringRef word,
                            const std::vector<std::string> &candidates) {
  std::string best = nearestName(word, candidates);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

//===----------------------------------------------------------------------===//
// Untrusted text on a terminal
//===----------------------------------------------------------------------===//

namespace {
/// Quoted values longer than this are cut to kShownValueBytes.
constexpr size_t kMaxValueBytes = 256;
constexpr size_t kShownValueBytes = 64;
/// A longer message (after its values were cut) is cut here.
constexpr size_t kMaxMessageBytes = 4096;
constexpr llvm::StringLiteral kEllipsis = "\u2026";
} // namespace

/// Code points a terminal acts on instead of showing: C1 controls (U+009B
/// is CSI), line and paragraph separators, and the bidirectional embeddings,
/// overrides and isolates that reorder what follows them.
static bool isInvisibleControl(llvm::UTF32 c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

std::string txc::escapeForTerminal(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  auto hexEscape = [&](const char *prefix, unsigned value, unsigned digits) {
    out += prefix;
    out += llvm::utohexstr(value, /*LowerCase=*/true, digits);
  };
  for (size_t i = 0; i < text.size();) {
    uint8_t byte = uint8_t(text[i]);
    if (byte < 0x80) {
      if (byte == '\n')
        out += "\\n";
      else if (byte == '\r')
        out += "\\r";
      else if ((byte < 0x20 && byte != '\t') || byte == 0x7F)
        hexEscape("\\x", byte, 2);
      else
        out += char(byte);
      ++i;
      continue;
    }
    const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data() + i);
    const auto *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
    const llvm::UTF8 *next = begin;
    llvm::UTF32 codePoint;
    if (llvm::convertUTF8Sequence(&next, end, &codePoint,
                                  llvm::strictConversion) != llvm::conversionOK) {
      hexEscape("\\x", byte, 2); // not UTF-8: one byte at a time
      ++i;
      continue;
    }
    size_t length = size_t(next - begin);
    if (isInvisibleControl(codePoint))
      hexEscape("\\u", codePoint, 4);
    else
      out.append(text.data() + i, length);
    i += length;
  }
  return out;
}

/// The first `bytes` bytes of `text`, not cutting a UTF-8 sequence.
static llvm::StringRef prefixOf(llvm::StringRef text, size_t bytes) {
  if (bytes >= text.size())
    return text;
  while (bytes > 0 && (uint8_t(text[bytes]) & 0xC0) == 0x80)
    --bytes;
  return text.take_front(bytes);
}

static std::string lengthNote(size_t bytes) {
  return " (" + std::to_string(bytes) + " bytes)";
}

std::string txc::printableValue(llvm::StringRef value) {
  if (value.size() <= kMaxValueBytes)
    return escapeForTerminal(value);
  return escapeForTerminal(prefixOf(value, kShownValueBytes)) +
         kEllipsis.str() + lengthNote(value.size());
}

static bool isWordChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// `message` with each quoted value longer than kMaxValueBytes cut. A value
/// opens with a quote that does not follow a letter, digit or '_' and
/// closes at the first quote that no such character follows, so that
/// quotes inside a name (`'it's'`) do not end it.
static std::string shortenQuotedValues(llvm::StringRef message) {
  std::string out;
  size_t copied = 0;
  for (size_t open = message.find('\''); open != llvm::StringRef::npos;
       open = message.find('\'', open + 1)) {
    if (open > 0 && isWordChar(message[open - 1]))
      continue;
    size_t close = open + 1;
    while (close < message.size() &&
           !(message[close] == '\'' &&
             (close + 1 == message.size() || !isWordChar(message[close + 1]))))
      ++close;
    if (close == message.size())
      break;
    llvm::StringRef value = message.slice(open + 1, close);
    if (value.size() > kMaxValueBytes) {
      out += message.slice(copied, open + 1);
      out += prefixOf(value, kShownValueBytes);
      out += kEllipsis;
      out += '\'';
      out += lengthNote(value.size());
      copied = close + 1;
    }
    open = close;
  }
  out += message.substr(copied);
  return out;
}

std::string txc::printableMessage(llvm::StringRef message) {
  std::string shortened = shortenQuotedValues(message);
  if (shortened.size() > kMaxMessageBytes)
    shortened = prefixOf(shortened, kMaxMessageBytes).str() + kEllipsis.str() +
                " (a message of " + std::to_string(message.size()) +
                " bytes)";
  return escapeForTerminal(shortened);
}

/// Quotes a source line with a caret under `column`, as compilers do.
static void printSourceLine(llvm::raw_ostream &os, llvm::StringRef line,
                            uint32_t column) {
  // Columns count bytes; the caret line has one space per character on
  // screen: an escape takes as many as it has, a UTF-8 continuation byte
  // none.
  std::string before =
      escapeForTerminal(line.take_front(column ? column - 1 : 0));
  os << "  " << escapeForTerminal(line) << "\n  ";
  for (char c : before) {
    if (c == '\t')
      os << '\t';
    else if ((uint8_t(c) & 0xC0) != 0x80)
      os << ' ';
  }
  os << "^\n";
}

void DiagnosticEngine::printOneText(llvm::raw_ostream &os,
                                    const Diagnostic &diag) const {
  // Everything but txc's own words may come from the program, a manifest or
  // the command line: escaped, and long values cut.
  if (!diag.file.empty()) {
    os << escapeForTerminal(diag.file);
    if (diag.loc.isKnown())
      os << ':' << diag.loc.line << ':' << diag.loc.column;
    os << ": ";
  }
  os << severityName(diag.severity) << ": " << printableMessage(diag.message);
  if (!diag.loc.pointer.empty())
    os << " [at " << printableValue(diag.loc.pointer) << "]";
  os << '\n';
  if (const SourceFile *source = findSource(diag.file);
      source && diag.loc.isKnown()) {
    llvm::StringRef line = source->lineText(diag.loc.line);
    if (line.size() <= 200)
      printSourceLine(os, line, diag.loc.column);
  }
  for (const Diagnostic &note : diag.notes)
    printOneText(os, note);
}

void DiagnosticEngine::printText(llvm::raw_ostream &os) const {
  for (const Diagnostic &diag : diags)
    printOneText(os, diag);
  if (droppedErrors)
    os << "note: " << droppedErrors
       << " more errors were found but not shown (limit " << errorLimit
       << ")\n";
}

static nlohmann::ordered_json toJson(const Diagnostic &diag) {
  nlohmann::ordered_json j;
  j["severity"] = severityName(diag.severity).str();
  j["id"] = diag.id;
  j["file"] = diag.file;
  if (diag.loc.isKnown()) {
    j["line"] = diag.loc.line;
    j["column"] = diag.loc.column;
  }
  j["pointer"] = diag.loc.pointer;
  j["message"] = diag.message;
  if (!diag.notes.empty()) {
    nlohmann::ordered_json notes = nlohmann::ordered_json::array();
    for (const Diagnostic &note : diag.notes)
      notes.push_back(toJson(note));
    j["notes"] = std::move(notes);
  }
  return j;
}

static nlohmann::ordered_json toSarif(const std::vector<Diagnostic> &diags,
                                      llvm::StringRef toolName) {
  using json = nlohmann::ordered_json;
  json rules = json::array();
  std::vector<std::string> ruleIds;
  for (const Diagnostic &diag : diags)
    if (std::find(ruleIds.begin(), ruleIds.end(), diag.id) == ruleIds.end())
      ruleIds.push_back(diag.id);
  for (const std::string &id : ruleIds)
    rules.push_back(json{{"id", id}});

  auto location = [](const Diagnostic &diag) {
    json physical;
    physical["artifactLocation"] = json{{"uri", diag.file}};
    if (diag.loc.isKnown())
      physical["region"] =
          json{{"startLine", diag.loc.line}, {"startColumn", diag.loc.column}};
    json loc;
    loc["physicalLocation"] = std::move(physical);
    if (!diag.loc.pointer.empty())
      loc["logicalLocations"] = json::array(
          {json{{"fullyQualifiedName", diag.loc.pointer}, {"kind", "member"}}});
    return loc;
  };

  json results = json::array();
  for (const Diagnostic &diag : diags) {
    json result;
    result["ruleId"] = diag.id;
    result["level"] = diag.severity == Severity::Error     ? "error"
                      : diag.severity == Severity::Warning ? "warning"
                                                           : "note";
    result["message"] = json{{"text", diag.message}};
    if (!diag.file.empty())
      result["locations"] = json::array({location(diag)});
    if (!diag.notes.empty()) {
      json related = json::array();
      for (const Diagnostic &note : diag.notes) {
        json rel = note.file.empty() ? json::object() : location(note);
        rel["message"] = json{{"text", note.message}};
        related.push_back(std::move(rel));
      }
      result["relatedLocations"] = std::move(related);
    }
    results.push_back(std::move(result));
  }

  json driver;
  driver["name"] = toolName.str();
  driver["version"] = txcVersion();
  driver["rules"] = std::move(rules);
  json run;
  run["tool"] = json{{"driver", std::move(driver)}};
  run["results"] = std::move(results);
  json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = json::array({std::move(run)});
  return log;
}

void DiagnosticEngine::print(llvm::raw_ostream &os, DiagnosticFormat format,
                             llvm::StringRef toolName) const {
  switch (format) {
  case DiagnosticFormat::Text:
    printText(os);
    return;
  case DiagnosticFormat::Json: {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const Diagnostic &diag : diags)
      all.push_back(toJson(diag));
    nlohmann::ordered_json doc;
    doc["diagnostics"] = std::move(all);
    doc["errors"] = numErrors;
    os << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
       << '\n';
    return;
  }
  case DiagnosticFormat::Sarif:
    os << toSarif(diags, toolName)
              .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
       << '\n';
    return;
  }
}
