//===- txc.cpp - The txc command-line tool --------------------------------===//
//
// A thin driver: parses the command line with CLI11 and runs a job from the
// Driver library. CLI11's exceptions are caught here and nowhere else.
//
//===----------------------------------------------------------------------===//
#include "BudgetCommand.h"
#include "ImportCommand.h"
#include "ToolCommands.h"
#include "Usage.h"

#include "txc/Driver/Driver.h"
#include "txc/Driver/Progress.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/Version.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cstdlib>

using namespace txc;

namespace {
struct CommonOptions {
  std::string diagnosticsFormat = "text";

  DiagnosticFormat format() const {
    return parseDiagnosticFormat(diagnosticsFormat)
        .value_or(DiagnosticFormat::Text);
  }
};

void addCommonOptions(CLI::App *command, CommonOptions &common) {
  command
      ->add_option("--diagnostics-format", common.diagnosticsFormat,
                   "How errors are printed on stderr")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

/// What the fatal error handler needs to report an LLVM fatal error.
struct FatalErrorContext {
  DiagnosticEngine *diags;
  DiagnosticFormat format;
};

/// LLVM calls this for a fatal error, e.g. a backend that cannot legalize an
/// operation for the chosen target, instead of printing "LLVM ERROR" with a
/// stack dump and aborting. It reports the error like any other and exits;
/// it must not return. No output file exists at this point: outputs are
/// written only after code generation succeeded.
void reportFatalError(void *data, const char *reason, bool) {
  auto *context = static_cast<FatalErrorContext *>(data);
  clearStatusLine(llvm::errs());
  context->diags
      ->error(DiagCategory::Target, "codegen", "", Loc(),
              llvm::Twine("LLVM cannot compile the program for this target: ") +
                  reason)
      .addNote("hint: the target's default CPU may lack a feature the "
               "program needs, such as hardware floating point; choose one "
               "with --cpu or --features");
  context->diags->print(llvm::errs(), context->format);
  llvm::errs().flush();
  std::_Exit(context->diags->exitCode());
}

void addWeightsDirOption(CLI::App *command, std::vector<std::string> &dirs) {
  command
      ->add_option(
          "--allow-weights-outside", dirs,
          "Allow weights files inside DIR although they are outside the "
          "program's directory, absolute or reached through a symbolic link "
          "(repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
}

void addOptLevelOption(CLI::App *command, unsigned &level) {
  command->add_option("-O", level, "Optimization level 0-3")
      ->check(CLI::Range(0u, 3u))
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

std::string emitKindHelp() {
  std::string help = "What to write:";
  for (const EmitKindInfo &info : emitKinds())
    help += std::string("\n  ") + info.name + ": " + info.description;
  return help;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app{"txc: an ahead-of-time export compiler for tensor programs",
               "txc"};
  app.set_version_flag("--version", "txc " + txcVersion() + " (LLVM " +
                                        llvmVersion() + ")");
  app.require_subcommand(1);

  CommonOptions common;
  CompileOptions compile;
  std::string emitName = "obj";
  CLI::App *compileCommand = app.add_subcommand(
      "compile", "Compile a program to an object file, a C header and a "
                 "constraint manifest");
  // Not required by CLI11: --cpu help and the like need no program.
  compileCommand->add_option("program", compile.programPath,
                             "Program file (JSON)");
  compileCommand->add_option("-o,--output", compile.outputPath,
                             "Output file ('-' for stdout; default "
                             "<program name>.<ext>)");
  compileCommand->add_option("--header", compile.headerPath,
                             "Also write the C header here");
  compileCommand->add_option("--header-cxx", compile.headerCxxPath,
                             "Also write the C++17 API (with the C header "
                             "in it) here");
  compileCommand->add_option("--manifest", compile.manifestPath,
                             "Also write the constraint manifest here");
  compileCommand->add_option("--depfile", compile.depfilePath,
                             "Also write a Make rule listing the files the "
                             "compile reads (the program, its weights "
                             "files), as clang's -MD -MF");
  std::vector<std::string> emitNames;
  for (const EmitKindInfo &info : emitKinds())
    emitNames.push_back(info.name);
  // As with clang, the last of a repeated option wins (-O2 ... -O3).
  const auto lastWins = CLI::MultiOptionPolicy::TakeLast;
  compileCommand->add_option("--emit", emitName, emitKindHelp())
      ->check(CLI::IsMember(emitNames))
      ->capture_default_str()
      ->multi_option_policy(lastWins);
  addOptLevelOption(compileCommand, compile.optLevel);
  compileCommand
      ->add_option("-j,--jobs", compile.jobs,
                   "Threads to compile on (0: one per available core; 1: "
                   "strictly serial); the outputs are the same bytes for "
                   "every value")
      ->check(CLI::Range(0u, 1024u))
      ->capture_default_str()
      ->multi_option_policy(lastWins);
  std::string regionsMode = "auto";
  compileCommand
      ->add_option("--regions", regionsMode,
                   "auto: one kernel function per region of the program, "
                   "identical regions sharing one (docs/architecture.md, "
                   "Regions); one: the whole program in the kernel function "
                   "(its IR in one piece; compile time grows faster)")
      ->check(CLI::IsMember({"auto", "one"}))
      ->capture_default_str()
      ->multi_option_policy(lastWins);
  compileCommand
      ->add_option("--target", compile.triple,
                   "Target triple (default: this machine; 'help' lists "
                   "the targets)")
      ->multi_option_policy(lastWins);
  compileCommand
      ->add_option("--cpu", compile.cpu,
                   "Target CPU, e.g. x86-64-v3, znver4, neoverse-n1, "
                   "native (default: the target's portable CPU, x86-64-v2 "
                   "or generic; 'help' lists the target's)")
      ->multi_option_policy(lastWins);
  compileCommand
      ->add_option("--features", compile.features,
                   "Extra target features, e.g. +avx2,-avx512f ('help' "
                   "lists the target's)")
      ->multi_option_policy(lastWins);
  compileCommand
      ->add_option("--specialize", compile.specializations,
                   "Also compile a variant with symbols bound, e.g. B=8, "
                   "'B=1,S=128' or 'S in {128,256,512}' (one variant per "
                   "value); <p>_run dispatches to it when the call's symbols "
                   "have these values (docs/specialization.md)")
      ->allow_extra_args(false);
  compileCommand->add_option("--entry-prefix", compile.entryPrefix,
                             "Prefix of the C entry points (default: the "
                             "program name)");
  compileCommand->add_flag("--print-ir-after-all", compile.printIRAfterAll,
                           "Print the MLIR after every pass (on stderr)");
  compileCommand->add_flag("-q,--quiet", compile.quiet,
                           "Do not show the phase being compiled on stderr "
                           "(shown only on a terminal)");
  std::string weightsMode = "embedded";
  compileCommand
      ->add_option("--weights", weightsMode,
                   "Where stored constants (weights) go: embedded in the "
                   "object, or external in a blob file passed to "
                   "<p>_run_with_weights")
      ->check(CLI::IsMember({"embedded", "external"}))
      ->capture_default_str();
  compileCommand->add_option("--weights-file", compile.weightsPath,
                             "With --weights external: the blob file "
                             "(default: the output with extension "
                             ".weights)");
  addWeightsDirOption(compileCommand, compile.allowedWeightDirs);
  std::string timeReport;
  compileCommand
      ->add_flag("--time-report{text}", timeReport,
                 "Print the time of each compilation phase on stderr "
                 "(--time-report=json: as one JSON object)")
      ->check(CLI::IsMember({"text", "json"}));
  std::string cacheMaxBytes;
  bool noCache = false;
  compileCommand
      ->add_option("--cache-dir", compile.cacheDir,
                   "Reuse and store the outputs in this compile cache "
                   "(default: $TXC_CACHE_DIR)")
      ->envname("TXC_CACHE_DIR");
  compileCommand
      ->add_option("--cache-max-bytes", cacheMaxBytes,
                   "Size limit of the cache, e.g. 512M (default 1G; "
                   "$TXC_CACHE_MAX_BYTES)")
      ->envname("TXC_CACHE_MAX_BYTES")
      ->check([](const std::string &text) {
        return parseByteCount(text) ? std::string()
                                    : "'" + text + "' is not a byte count "
                                                   "such as 1048576 or 512M";
      });
  compileCommand->add_flag("--no-cache", noCache,
                           "Do not use the compile cache (even if "
                           "TXC_CACHE_DIR is set)");
  addCommonOptions(compileCommand, common);

  std::string checkPath;
  ReaderOptions checkReader;
  CLI::App *checkCommand = app.add_subcommand(
      "check", "Parse and verify a program without compiling it");
  checkCommand->add_option("program", checkPath, "Program file (JSON)")
      ->required();
  addWeightsDirOption(checkCommand, checkReader.allowedWeightDirs);
  addCommonOptions(checkCommand, common);

  RunOptions run;
  CLI::App *runCommand = app.add_subcommand(
      "run", "Run a program on .npy inputs and write its outputs as .npy "
             "files (compiled for this machine and run in process, or "
             "interpreted with --eager)");
  runCommand->add_option("program", run.programPath, "Program file (JSON)")
      ->required();
  runCommand
      ->add_option("--input", run.inputs,
                   "An input as NAME=FILE.npy (once per program input; bf16 "
                   "inputs are <u2 files of the raw bits)")
      ->allow_extra_args(false);
  runCommand
      ->add_option("--output-dir", run.outputDir,
                   "Directory for the outputs, written as <output name>.npy")
      ->required();
  runCommand->add_flag("--eager", run.eager,
                       "Run the reference interpreter instead of compiled "
                       "code");
  addOptLevelOption(runCommand, run.optLevel);
  addWeightsDirOption(runCommand, run.allowedWeightDirs);
  addCommonOptions(runCommand, common);

  std::string targetsTriple;
  CLI::App *targetsCommand = app.add_subcommand(
      "targets", "List the targets, their default CPUs and vector units "
                 "(with a triple: its CPUs and features)");
  targetsCommand->add_option("triple", targetsTriple,
                             "A target triple, e.g. aarch64-linux-gnu");
  addCommonOptions(targetsCommand, common);

  ToolCommands tools;
  tools.add(app, [&](CLI::App *command) { addCommonOptions(command, common); });
  ImportCommand imports;
  imports.add(app,
              [&](CLI::App *command) { addCommonOptions(command, common); });
  BudgetCommand budget;
  budget.add(app,
             [&](CLI::App *command) { addCommonOptions(command, common); });

  // Usage errors are diagnostics like any other, printed in the format the
  // command line asks for even when it cannot be parsed.
  DiagnosticEngine diags;
  DiagnosticFormat usageFormat = diagnosticsFormatIn(argc, argv);
  CLI::App *command = findCommand(app, argc, argv, diags);
  if (!command) {
    diags.print(llvm::errs(), usageFormat);
    return ExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    reportParseError(e, *command, argc, argv, diags);
    diags.print(llvm::errs(), usageFormat);
    return ExitUsage;
  }

  FatalErrorContext fatalContext{&diags, common.format()};
  llvm::install_fatal_error_handler(reportFatalError, &fatalContext);
  int exitCode = ExitOK;
  if (*compileCommand) {
    compile.emit = *parseEmitKind(emitName);
    compile.timeReport = timeReport == "text";
    compile.timeReportJson = timeReport == "json";
    if (!cacheMaxBytes.empty())
      compile.cacheMaxBytes = *parseByteCount(cacheMaxBytes);
    if (noCache)
      compile.cacheDir.clear();
    compile.externalWeights = weightsMode == "external";
    compile.cutRegions = regionsMode == "auto";
    if (!compile.weightsPath.empty() && !compile.externalWeights) {
      diags.error(DiagCategory::Usage, "usage", "", Loc(),
                  "--weights-file is only used with --weights external");
      exitCode = diags.exitCode();
    } else {
      exitCode = runCompile(compile, diags);
    }
  } else if (*checkCommand) {
    exitCode = runCheck(checkPath, diags, checkReader);
  } else if (*runCommand) {
    exitCode = runRun(run, diags);
  } else if (*targetsCommand) {
    exitCode = runTargets(targetsTriple, diags);
  } else if (std::optional<int> code = tools.run(diags)) {
    exitCode = *code;
  } else if (std::optional<int> code = imports.run(diags)) {
    exitCode = *code;
  } else if (std::optional<int> code = budget.run(diags)) {
    exitCode = *code;
  }
  if (!diags.diagnostics().empty() || common.format() != DiagnosticFormat::Text)
    diags.print(llvm::errs(), common.format());
  return exitCode;
}
