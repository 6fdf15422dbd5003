//===- Diagnostics.cpp - Reporting and rendering diagnostics --------------===//
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"
#include "txc/Support/Version.h"

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

void DiagnosticEngine::printOneText(llvm::raw_ostream &os,
                                    const Diagnostic &diag) const {
  if (!diag.file.empty()) {
    os << diag.file;
    if (diag.loc.isKnown())
      os << ':' << diag.loc.line << ':' << diag.loc.column;
    os << ": ";
  }
  os << severityName(diag.severity) << ": " << diag.message;
  if (!diag.loc.pointer.empty())
    os << " [at " << diag.loc.pointer << "]";
  os << '\n';
  // Quote the line with a caret, as compilers do, when the text is known.
  if (const SourceFile *source = findSource(diag.file);
      source && diag.loc.isKnown()) {
    llvm::StringRef line = source->lineText(diag.loc.line);
    if (line.size() <= 200) {
      // Columns count bytes; the caret line has one space per character
      // (UTF-8 continuation bytes take no column on screen).
      os << "  " << line << "\n  ";
      for (uint32_t i = 1; i < diag.loc.column && i <= line.size(); ++i) {
        char c = line[i - 1];
        if (c == '\t')
          os << '\t';
        else if ((uint8_t(c) & 0xC0) != 0x80)
          os << ' ';
      }
      os << "^\n";
    }
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
