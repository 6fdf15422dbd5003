//===- Verify.cpp - txc verify: would these calls pass the guards? --------===//
//
// The manifest is read back into the Contract the object's guard code was
// generated from, and each call is evaluated with evaluateGuards, the
// reference semantics of that code: the status, the guard id and the
// message are those the object returns (docs/cli.md, "txc verify").
//
//===----------------------------------------------------------------------===//
#include "txc/Tools/Tools.h"

#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"

using namespace txc;

/// Reports a call that does not do what is expected of it: a failing call
/// at the guard's origin in the program, an unexpected pass at the call.
static void reportUnexpected(const Manifest &manifest, size_t index,
                             const CallSpec &call, const CallOutcome &outcome,
                             llvm::StringRef callsFile,
                             DiagnosticEngine &diags) {
  const Contract &contract = manifest.contract;
  std::string what = describeCall(contract, index, call);
  std::string expected;
  if (call.expect && !call.expect->pass)
    expected = "; expected " + statusCodeMacro(call.expect->code).str() +
               " at guard " + std::to_string(call.expect->guard);
  Diagnostic diag;
  diag.severity = Severity::Error;
  diag.category = DiagCategory::ContractViolation;
  diag.id = "contract-violation";
  if (outcome.pass()) {
    diag.file = callsFile.str();
    diag.loc = call.loc;
    diag.message = what + " passes" + expected;
  } else {
    const Guard &guard = contract.guards[outcome.status.guard];
    diag.file = manifest.programFile;
    diag.loc = guard.origin;
    diag.message = what + " fails: " + outcome.message + expected;
    if (!callsFile.empty()) {
      Diagnostic note;
      note.severity = Severity::Note;
      note.category = diag.category;
      note.id = diag.id;
      note.file = callsFile.str();
      note.loc = call.loc;
      note.message = "the call is defined here";
      diag.notes.push_back(std::move(note));
    }
  }
  diags.report(std::move(diag));
}

int txc::runVerify(const VerifyOptions &options, DiagnosticEngine &diags,
                   llvm::raw_ostream &out) {
  if (options.shapes.empty() == options.shapesFile.empty()) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                options.shapes.empty()
                    ? "give the call's input shapes with --shape NAME=DIMS "
                      "(one per input) or a calls file with --shapes-file"
                    : "--shape and --shapes-file cannot be combined");
    return diags.exitCode();
  }
  std::unique_ptr<Manifest> manifest =
      readManifestFile(options.manifestPath, diags);
  if (!manifest)
    return diags.exitCode();
  const Contract &contract = manifest->contract;

  std::vector<CallSpec> calls;
  if (!options.shapes.empty()) {
    auto call = callFromShapeOptions(contract, options.shapes, diags);
    if (!call)
      return diags.exitCode();
    calls.push_back(std::move(*call));
  } else {
    auto read = readCallsFile(options.shapesFile, contract, diags);
    if (!read)
      return diags.exitCode();
    calls = std::move(*read);
  }
  if (options.checkExpected)
    for (size_t i = 0; i < calls.size(); ++i)
      if (!calls[i].expect) {
        diags.error(DiagCategory::Usage, "usage", options.shapesFile,
                    calls[i].loc,
                    "--check-expected: " + describeCall(contract, i, calls[i]) +
                        " has no expected outcome ('expect')");
        return diags.exitCode();
      }

  std::vector<CallReport> reports;
  for (size_t i = 0; i < calls.size(); ++i) {
    CallReport report{&calls[i], evaluateCall(contract, calls[i]),
                      std::nullopt};
    bool ok = report.outcome.pass();
    if (options.checkExpected) {
      ok = matchesExpectation(*calls[i].expect, report.outcome);
      report.asExpected = ok;
    }
    if (!ok)
      reportUnexpected(*manifest, i, calls[i], report.outcome,
                       options.shapesFile, diags);
    reports.push_back(std::move(report));
  }
  out << (options.format == ReportFormat::Json
              ? callReportsToJson(*manifest, reports)
              : callReportsToText(*manifest, reports));
  out.flush();
  return diags.exitCode();
}
