//===- txc-difftest.cpp - Compare the interpreter with compiled code ------===//
//
// txc-difftest PROGRAM... [-O N]... [--seed N] [--symbols B=5,S=3]...
//              [--input NAME=FILE.npy]... [--max-bytes N]
//
// Runs each program with the reference interpreter and with its compiled
// object (in process), on generated inputs at the symbols' minimum, maximum
// and a random value (or on the given symbol values or input files), at
// each -O level (default -O0 and -O2), and prints one line per compared
// output. Exit codes: 0 when everything agrees, 1 on any mismatch or
// internal error, otherwise txc's code for the problem (2 usage, 3 I/O,
// 4 invalid program, 5 not representable, 6 target).
//
//===----------------------------------------------------------------------===//
#include "txc/Testing/DiffTest.h"
#include "../common/DiffTestTarget.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

using namespace txc;

/// An option given once per value (-O 0 -O 2): one value each time, so that
/// the program files after it are not taken as more of its values.
template <typename T>
static CLI::Option *addRepeatable(CLI::App &app, const std::string &name,
                                  std::vector<T> &values,
                                  const std::string &help) {
  return app.add_option(name, values, help)->allow_extra_args(false);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app{"txc-difftest: run programs with the reference interpreter "
               "and compiled, and compare the results",
               "txc-difftest"};
  std::vector<std::string> programs;
  DiffTestOptions options;
  std::vector<unsigned> levels;
  std::string diagnosticsFormat = "text";
  app.add_option("programs", programs, "Program files (JSON)")->required();
  addRepeatable(app, "-O", levels,
                "Optimization level to compile at, 0-3 (repeatable; default "
                "0 and 2)")
      ->check(CLI::Range(0u, 3u));
  app.add_option("--seed", options.seed, "Seed of the generated values")
      ->capture_default_str();
  addRepeatable(app, "--symbols", options.symbolSets,
                "Symbol values to test, e.g. B=5,S=3 (repeatable; replaces "
                "min, max and random)");
  addRepeatable(app, "--input", options.inputFiles,
                "An input as NAME=FILE.npy, for every input (one program "
                "only; replaces generated inputs)");
  addRepeatable(app, "--specialize", options.specializations,
                "Compile these variants too, as txc compile --specialize "
                "(repeatable; docs/specialization.md)");
  app.add_flag("--specialize-chosen", options.specializeChosen,
               "Also compile a variant at each chosen value set but the "
               "first, binding the first symbol (as txc-fuzz's)");
  app.add_option("--max-bytes", options.maxBytes,
                 "Bound on the bytes of all tensors of one run when choosing "
                 "the symbols' maximum")
      ->capture_default_str();
  app.add_option("--diagnostics-format", diagnosticsFormat,
                 "How errors are printed on stderr")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  DiffTestTarget target;
  target.add(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ExitUsage;
  }
  if (!levels.empty())
    options.optLevels = levels;
  target.apply(options);

  DiagnosticFormat format = diagnosticsFormat == "json" ? DiagnosticFormat::Json
                            : diagnosticsFormat == "sarif"
                                ? DiagnosticFormat::Sarif
                                : DiagnosticFormat::Text;
  // The worst problem decides the exit code, as in txc.
  int exitCode = ExitOK;
  auto report = [&](const DiagnosticEngine &diags) {
    llvm::outs().flush();
    if (!diags.diagnostics().empty() || format != DiagnosticFormat::Text)
      diags.print(llvm::errs(), format, "txc-difftest");
    if (diags.hasErrors() &&
        (exitCode == ExitOK || diags.exitCode() == ExitInternal))
      exitCode = diags.exitCode();
  };
  if (!options.inputFiles.empty() && programs.size() != 1) {
    DiagnosticEngine diags;
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "--input needs exactly one program");
    report(diags);
    return exitCode;
  }
  auto tester = DiffTester::create(llvm::outs());
  if (!tester) {
    DiagnosticEngine diags;
    diags.error(DiagCategory::Internal, "jit", "", Loc(),
                llvm::toString(tester.takeError()));
    report(diags);
    return exitCode;
  }
  unsigned mismatches = 0;
  for (const std::string &program : programs) {
    DiffTestSummary summary;
    DiagnosticEngine diags;
    bool tested = (*tester)->testProgram(program, options, summary, diags);
    llvm::outs() << program << ": " << summary.runs << " runs, "
                 << summary.comparisons << " comparisons, "
                 << summary.mismatches << " mismatches"
                 << llvm::format(" (%.2f s)", summary.seconds)
                 << (tested ? "" : "; FAILED, see the errors") << "\n";
    report(diags);
    mismatches += summary.mismatches;
  }
  if (mismatches && exitCode == ExitOK)
    exitCode = ExitInternal;
  return exitCode;
}
