//===- calls-fuzzer.cpp - libFuzzer harness of txc verify -----------------===//
//
// The input is a manifest and a calls file separated by a NUL byte (without
// one, the whole input is both). `txc verify --shapes-file` runs
// on them from files (runVerify), with and without --check-expected, in both
// report formats, and the calls file's lines are also tried as `--shape`
// options. Promise checked: verify exits with a documented code, and with a
// usage, I/O or invalid-input code only when it reported an error.
//
//===----------------------------------------------------------------------===//
#include "FuzzerCommon.h"

#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"
#include "txc/Tools/Tools.h"

#include "llvm/ADT/SmallVector.h"

using namespace txc;

static void verify(const std::string &manifestPath,
                   const std::string &callsPath) {
  VerifyOptions options;
  options.manifestPath = manifestPath;
  options.shapesFile = callsPath;
  for (bool checkExpected : {false, true})
    for (ReportFormat format : {ReportFormat::Text, ReportFormat::Json}) {
      options.checkExpected = checkExpected;
      options.format = format;
      DiagnosticEngine diags;
      llvm::raw_null_ostream out;
      int exitCode = runVerify(options, diags, out);
      fuzz::check(exitCode == ExitOK || exitCode == ExitContractViolation ||
                      diags.hasErrors(),
                  "txc verify failed without reporting an error");
      fuzz::check(exitCode >= ExitOK && exitCode <= ExitBreakingChange,
                  "txc verify exited with an undocumented code");
      fuzz::renderDiagnostics(diags);
    }
}

/// Each line of the calls file as a --shape option of one call.
static void verifyShapeOptions(const std::string &manifestPath,
                               llvm::StringRef callsText) {
  DiagnosticEngine readDiags;
  std::unique_ptr<Manifest> manifest =
      readManifestFile(manifestPath, readDiags);
  if (!manifest)
    return;
  llvm::SmallVector<llvm::StringRef, 8> lines;
  callsText.split(lines, '\n', /*MaxSplit=*/8, /*KeepEmpty=*/false);
  std::vector<std::string> shapes(lines.begin(), lines.end());
  DiagnosticEngine diags;
  if (auto call = callFromShapeOptions(manifest->contract, shapes, diags))
    (void)evaluateCall(manifest->contract, *call);
  else
    fuzz::check(diags.hasErrors(),
                "callFromShapeOptions failed without reporting an error");
  fuzz::renderDiagnostics(diags);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input = fuzz::bytesAsText(data, size);
  auto [manifestText, callsText] = fuzz::splitAtNul(input);
  fuzz::ScratchFiles &files = fuzz::ScratchFiles::get();
  std::string manifestPath = files.write("artifact.manifest.json", manifestText);
  std::string callsPath = files.write("calls.json", callsText);
  verify(manifestPath, callsPath);
  verifyShapeOptions(manifestPath, callsText);
  return 0;
}
