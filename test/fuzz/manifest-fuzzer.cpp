//===- manifest-fuzzer.cpp - libFuzzer harness of manifests and txc diff --===//
//
// The input is a manifest, or two manifests separated by a NUL byte: the old
// and the new artifact of `txc diff`. Each is read back into its contract
// (readManifest), the boundary and random calls of `txc testgen` are
// generated and evaluated against it and written as a calls file, and the
// pair is compared by `txc diff` (runDiff, from files, in both report
// formats). Promises checked: a manifest that is not read has an error
// reported, one that is read has none, and a call testgen generates does
// what testgen expects of it.
//
//===----------------------------------------------------------------------===//
#include "FuzzerCommon.h"

#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"
#include "txc/Tools/Tools.h"

using namespace txc;

static std::unique_ptr<Manifest> readManifestText(llvm::StringRef name,
                                                  llvm::StringRef text) {
  auto file = std::make_shared<SourceFile>(name.str(), text.str());
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  std::unique_ptr<Manifest> manifest = readManifest(file, diags);
  fuzz::check(bool(manifest) != diags.hasErrors(),
              "readManifest's result disagrees with its diagnostics");
  fuzz::renderDiagnostics(diags);
  return manifest;
}

static void generateCalls(const Manifest &manifest) {
  std::vector<CallSpec> calls = boundaryCalls(manifest.contract);
  std::vector<CallSpec> random = randomCalls(manifest.contract, 4, 1);
  calls.insert(calls.end(), random.begin(), random.end());
  std::vector<CallReport> reports;
  for (const CallSpec &call : calls) {
    CallOutcome outcome = evaluateCall(manifest.contract, call);
    fuzz::check(!call.expect || matchesExpectation(*call.expect, outcome),
                "a generated call does not do what testgen expects of it");
    reports.push_back({&call, std::move(outcome), true});
  }
  (void)writeCallsFile(manifest, calls);
  (void)callReportsToJson(manifest, reports);
  (void)callReportsToText(manifest, reports);
}

static void diff(llvm::StringRef oldText, llvm::StringRef newText) {
  fuzz::ScratchFiles &files = fuzz::ScratchFiles::get();
  DiffOptions options;
  options.oldPath = files.write("old.manifest.json", oldText);
  options.newPath = files.write("new.manifest.json", newText);
  for (ReportFormat format : {ReportFormat::Text, ReportFormat::Json}) {
    options.format = format;
    DiagnosticEngine diags;
    llvm::raw_null_ostream out;
    int exitCode = runDiff(options, diags, out);
    fuzz::check(exitCode == ExitOK || exitCode == ExitBreakingChange,
                "txc diff of two readable manifests failed");
    fuzz::renderDiagnostics(diags);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto [oldText, newText] = fuzz::splitAtNul(fuzz::bytesAsText(data, size));
  std::unique_ptr<Manifest> oldManifest =
      readManifestText("old.manifest.json", oldText);
  std::unique_ptr<Manifest> newManifest =
      oldText.data() == newText.data()
          ? nullptr
          : readManifestText("new.manifest.json", newText);
  if (oldManifest)
    generateCalls(*oldManifest);
  if (newManifest)
    generateCalls(*newManifest);
  if (oldManifest && (newManifest || oldText.data() == newText.data()))
    diff(oldText, newText);
  return 0;
}
