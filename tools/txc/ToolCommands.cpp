//===- ToolCommands.cpp - txc verify, diff, testgen, explain, cache -------===//
#include "ToolCommands.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace txc;

std::optional<uint64_t> txc::parseByteCount(llvm::StringRef text) {
  text = text.trim();
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      scale = uint64_t(1) << 10;
      break;
    case 'M':
      scale = uint64_t(1) << 20;
      break;
    case 'G':
      scale = uint64_t(1) << 30;
      break;
    case 'T':
      scale = uint64_t(1) << 40;
      break;
    default:
      break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  uint64_t value;
  if (text.empty() || text.getAsInteger(10, value) ||
      value > UINT64_MAX / scale)
    return std::nullopt;
  return value * scale;
}

void ToolCommands::add(CLI::App &app,
                       const std::function<void(CLI::App *)> &addCommon) {
  const std::vector<std::string> reportFormats = {"text", "json"};

  verify = app.add_subcommand(
      "verify", "Would these calls pass the artifact's guards? Evaluates the "
                "guards of a manifest on input shapes");
  verify
      ->add_option("manifest", verifyOptions.manifestPath,
                   "Manifest file (txc compile --manifest)")
      ->required();
  verify
      ->add_option("--shape", verifyOptions.shapes,
                   "An input of the call as NAME=[DTYPE:]DIMS, e.g. X=8x4 or "
                   "X=f32:8x4 (once per input; [] or nothing after = for "
                   "rank 0)")
      ->allow_extra_args(false);
  verify->add_option("--shapes-file", verifyOptions.shapesFile,
                     "A calls file with many calls (e.g. from txc testgen)");
  verify->add_flag("--check-expected", verifyOptions.checkExpected,
                   "Compare each call with its expected outcome ('expect' "
                   "in the calls file) instead of requiring it to pass");
  verify->add_option("--format", verifyFormat, "Report format")
      ->check(CLI::IsMember(reportFormats))
      ->capture_default_str();
  addCommon(verify);

  diff = app.add_subcommand(
      "diff", "Classify the differences between two manifests as breaking, "
              "compatible or informational");
  diff->add_option("old", diffOptions.oldPath, "The old manifest")->required();
  diff->add_option("new", diffOptions.newPath, "The new manifest")->required();
  diff->add_flag("--allow-breaking", diffOptions.allowBreaking,
                 "Exit 0 even when a change is breaking (reported as "
                 "warnings)");
  diff->add_option("--format", diffFormat, "Report format")
      ->check(CLI::IsMember(reportFormats))
      ->capture_default_str();
  addCommon(diff);

  testgen = app.add_subcommand(
      "testgen", "Generate the boundary calls of a manifest's contract, each "
                 "with its expected outcome, as a calls file");
  testgen->add_option("manifest", testgenOptions.manifestPath, "Manifest file")
      ->required();
  testgen
      ->add_option("-o,--output", testgenOptions.outputPath,
                   "Calls file to write ('-' for stdout)")
      ->capture_default_str();
  testgen->add_option("--random", testgenOptions.random,
                      "Also generate this many random calls");
  testgen->add_option("--seed", testgenOptions.seed, "Seed of the random calls")
      ->capture_default_str();
  addCommon(testgen);

  explain = app.add_subcommand(
      "explain", "Show the captured region: inputs, ops with their symbolic "
                 "shapes, outputs, and the assumptions and guards");
  explain
      ->add_option("program", explainOptions.programPath, "Program file (JSON)")
      ->required();
  explain->add_option("--format", explainFormat, "text, json or dot (Graphviz)")
      ->check(CLI::IsMember({"text", "json", "dot"}))
      ->capture_default_str();
  explain
      ->add_option("-o,--output", explainOptions.outputPath,
                   "Output file ('-' for stdout)")
      ->capture_default_str();
  explain->add_option("--entry-prefix", explainOptions.entryPrefix,
                      "Prefix of the C entry points (default: the program "
                      "name)");
  addCommon(explain);

  cache = app.add_subcommand("cache", "Inspect or clear a compile cache");
  cache->require_subcommand(1);
  auto cacheCommand = [&](const char *name, const char *help) {
    CLI::App *command = cache->add_subcommand(name, help);
    command
        ->add_option("--cache-dir", cacheDir,
                     "The cache directory (default: $TXC_CACHE_DIR)")
        ->envname("TXC_CACHE_DIR");
    command->add_option("--format", cacheFormat, "Report format")
        ->check(CLI::IsMember(reportFormats))
        ->capture_default_str();
    addCommon(command);
    return command;
  };
  cacheStats = cacheCommand("stats", "Print hits, misses, hit rate and size");
  cacheCheck = cacheCommand("check", "Check every entry's checksum");
  cacheClear = cacheCommand("clear", "Delete every entry and the counters");
}

static ReportFormat reportFormat(const std::string &name) {
  return name == "json" ? ReportFormat::Json : ReportFormat::Text;
}

std::optional<int> ToolCommands::run(DiagnosticEngine &diags) {
  if (*verify) {
    verifyOptions.format = reportFormat(verifyFormat);
    return runVerify(verifyOptions, diags, llvm::outs());
  }
  if (*diff) {
    diffOptions.format = reportFormat(diffFormat);
    return runDiff(diffOptions, diags, llvm::outs());
  }
  if (*testgen)
    return runTestGen(testgenOptions, diags);
  if (*explain) {
    explainOptions.format = explainFormat == "json"  ? ExplainFormat::Json
                            : explainFormat == "dot" ? ExplainFormat::Dot
                                                     : ExplainFormat::Text;
    return runExplain(explainOptions, diags);
  }
  if (*cache) {
    CacheCommand command = *cacheStats   ? CacheCommand::Stats
                           : *cacheCheck ? CacheCommand::Check
                                         : CacheCommand::Clear;
    return runCacheCommand(command, cacheDir, cacheFormat == "json", diags,
                           llvm::outs());
  }
  return std::nullopt;
}
