//===- txc-fuzz.cpp - Random differential testing -------------------------===//
//
// txc-fuzz --seed-start N --count M [-O N]... [--repro-dir DIR]
//          [--min-ops K] [--max-ops K] [--exclude-ops a,b]
//          [--exclude-dtypes bool,...] [--no-minimize] [--verbose]
//
// For each seed: generates a random well-typed program
// (lib/Testing/ProgramGenerator.cpp), verifies it, and runs it with the
// reference interpreter and compiled at each level on inputs at the
// symbols' minimum, maximum and a random value (lib/Testing/DiffTest.cpp).
// Prints one line per program and a summary. A mismatch (or a compile or
// interpreter failure) is minimized and saved with the original program in
// the repro directory. A program the verifier rejects is a generator bug,
// reported as such. Exit codes: 0 when everything agrees, 1 on any
// mismatch, failure or generator bug, 2 usage.
//
//===----------------------------------------------------------------------===//
#include "txc/Testing/DiffTest.h"
#include "../common/DiffTestTarget.h"
#include "txc/Testing/Minimizer.h"
#include "txc/Testing/ProgramGenerator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <map>

using namespace txc;

namespace {

enum class Outcome { Ok, Mismatch, Failed };

struct RunResult {
  Outcome outcome = Outcome::Ok;
  std::string detail; ///< first MISMATCH/FAILED line or error
  DiffTestSummary summary;
};

class Fuzzer {
public:
  Fuzzer(std::unique_ptr<DiffTester> tester, std::string &log,
         llvm::raw_string_ostream &logStream, std::string workDir,
         DiffTestOptions options)
      : tester(std::move(tester)), log(log), logStream(logStream),
        workDir(std::move(workDir)), options(std::move(options)) {}

  RunResult run(const GeneratedProgram &program, uint64_t seed,
                const std::string &fileName) {
    RunResult result;
    std::string path = workDir + "/" + fileName;
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec) {
        result.outcome = Outcome::Failed;
        result.detail = "cannot write " + path + ": " + ec.message();
        return result;
      }
      os << program.toJson();
    }
    log.clear();
    DiagnosticEngine diags;
    DiffTestOptions o = options;
    o.seed = seed;
    bool tested = tester->testProgram(path, o, result.summary, diags);
    logStream.flush();
    if (!tested) {
      result.outcome = Outcome::Failed;
      std::string text;
      llvm::raw_string_ostream os(text);
      diags.printText(os);
      os.flush();
      result.detail = llvm::StringRef(text).split('\n').first.str();
      return result;
    }
    if (result.summary.mismatches) {
      result.outcome = Outcome::Mismatch;
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(log).split(lines, '\n');
      for (llvm::StringRef line : lines)
        if (line.contains("MISMATCH") || line.contains("FAILED")) {
          result.detail = line.str();
          break;
        }
    }
    return result;
  }
  const std::string &lastLog() const { return log; }

private:
  std::unique_ptr<DiffTester> tester;
  std::string &log;
  llvm::raw_string_ostream &logStream;
  std::string workDir;
  DiffTestOptions options;
};

std::set<std::string> splitList(const std::vector<std::string> &items) {
  std::set<std::string> result;
  for (const std::string &item : items) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(item).split(parts, ',', -1, false);
    for (llvm::StringRef p : parts)
      result.insert(p.trim().str());
  }
  return result;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << text;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app{"txc-fuzz: random differential testing of txc (generated "
               "programs, interpreter against compiled code)",
               "txc-fuzz"};
  uint64_t seedStart = 0, count = 100;
  std::vector<unsigned> levels;
  std::string reproDir = "txc-fuzz-repros";
  GeneratorOptions genOptions;
  std::vector<std::string> excludeOps, excludeDTypes;
  bool noMinimize = false, verbose = false, generateOnly = false;
  std::string saveDir;
  unsigned maxTests = 150;
  DiffTestOptions options;
  options.maxBytes = int64_t(4) << 20;
  app.add_option("--seed-start", seedStart, "First seed")->capture_default_str();
  app.add_option("--count", count, "Number of programs (seeds)")
      ->capture_default_str();
  app.add_option("-O", levels,
                 "Optimization level (repeatable; default 0 and 2)")
      ->check(CLI::Range(0u, 3u))
      ->allow_extra_args(false);
  app.add_option("--repro-dir", reproDir,
                 "Where failing programs are saved (created when needed)")
      ->capture_default_str();
  app.add_option("--min-ops", genOptions.minOps, "Fewest ops per program")
      ->capture_default_str();
  app.add_option("--max-ops", genOptions.maxOps, "Most ops per program")
      ->capture_default_str();
  app.add_option("--exclude-ops", excludeOps,
                 "Ops never generated, comma-separated (repeatable)");
  app.add_option("--exclude-dtypes", excludeDTypes,
                 "Dtypes never generated, comma-separated (repeatable)");
  app.add_option("--max-bytes", options.maxBytes,
                 "Bound on the bytes of all tensors of one run")
      ->capture_default_str();
  app.add_flag("--specialize-chosen", options.specializeChosen,
               "Compile each program with a variant at each chosen value "
               "set but the first, binding its first symbol "
               "(docs/specialization.md)");
  app.add_option("--max-minimize-tests", maxTests,
                 "Most difftest runs spent minimizing one failure")
      ->capture_default_str();
  app.add_flag("--no-minimize", noMinimize, "Save failures unminimized");
  app.add_option("--save-programs", saveDir,
                 "Also write every generated program to DIR/fuzz-seed<N>.json");
  app.add_flag("--generate-only", generateOnly,
               "Generate (and verify, and save with --save-programs) only");
  app.add_flag("-v,--verbose", verbose,
               "Print every difftest line, and each program's ops");
  DiffTestTarget target;
  target.add(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (!levels.empty())
    options.optLevels = levels;
  target.apply(options);
  if (genOptions.minOps < 1 || genOptions.maxOps < genOptions.minOps) {
    llvm::errs() << "txc-fuzz: error: need 1 <= --min-ops <= --max-ops\n";
    return 2;
  }
  genOptions.excludedOps = splitList(excludeOps);
  std::set<std::string> known;
  for (const std::string &op : generatableOps())
    known.insert(op);
  for (const std::string &op : genOptions.excludedOps)
    if (!known.count(op)) {
      llvm::errs() << "txc-fuzz: error: --exclude-ops: the generator does not "
                      "make op '"
                   << op << "'\n";
      return 2;
    }
  for (const std::string &name : splitList(excludeDTypes)) {
    auto dtype = parseDType(name);
    if (!dtype) {
      llvm::errs() << "txc-fuzz: error: --exclude-dtypes: unknown dtype '"
                   << name << "'\n";
      return 2;
    }
    genOptions.excludedDTypes.insert(*dtype);
  }

  llvm::SmallString<128> workDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("txc-fuzz", workDir)) {
    llvm::errs() << "txc-fuzz: error: cannot create a temporary directory: "
                 << ec.message() << "\n";
    return 1;
  }
  std::string log;
  llvm::raw_string_ostream logStream(log);
  auto tester = DiffTester::create(logStream);
  if (!tester) {
    llvm::errs() << "txc-fuzz: error: " << llvm::toString(tester.takeError())
                 << "\n";
    return 1;
  }
  Fuzzer fuzzer(std::move(*tester), log, logStream, workDir.str().str(),
                options);

  auto start = std::chrono::steady_clock::now();
  unsigned ok = 0, mismatches = 0, failures = 0, generatorBugs = 0;
  std::map<std::string, unsigned> opCounts;
  for (uint64_t seed = seedStart; seed < seedStart + count; ++seed) {
    GeneratedProgram program = generateProgram(seed, genOptions);
    if (!program.generatorError.empty()) {
      ++generatorBugs;
      llvm::outs() << "seed " << seed << ": GENERATOR BUG, the verifier "
                   << "rejects the generated program:\n"
                   << program.generatorError;
      continue;
    }
    for (const std::string &op : program.ops())
      ++opCounts[op];
    if (!saveDir.empty()) {
      llvm::sys::fs::create_directories(saveDir);
      writeFile(saveDir + "/fuzz-seed" + std::to_string(seed) + ".json",
                program.toJson());
    }
    if (generateOnly) {
      ++ok;
      continue;
    }
    std::string fileName = "fuzz-seed" + std::to_string(seed) + ".json";
    RunResult result = fuzzer.run(program, seed, fileName);
    if (verbose)
      llvm::outs() << fuzzer.lastLog();
    llvm::outs() << "seed " << seed << ": ";
    if (result.outcome == Outcome::Ok) {
      ++ok;
      llvm::outs() << "ok, " << program.nodes.size() << " nodes, "
                   << result.summary.runs << " runs"
                   << llvm::format(" (%.2f s)", result.summary.seconds);
      if (verbose)
        llvm::outs() << " [" << llvm::join(program.ops(), " ") << "]";
      llvm::outs() << "\n";
      llvm::outs().flush();
      continue;
    }
    bool isMismatch = result.outcome == Outcome::Mismatch;
    (isMismatch ? mismatches : failures)++;
    llvm::outs() << (isMismatch ? "MISMATCH" : "FAILED") << ", "
                 << program.nodes.size() << " nodes: " << result.detail
                 << "\n";
    llvm::outs().flush();
    // Save the original, then minimize and save that.
    if (std::error_code ec = llvm::sys::fs::create_directories(reproDir)) {
      llvm::errs() << "txc-fuzz: error: cannot create '" << reproDir
                   << "': " << ec.message() << "\n";
      return 1;
    }
    std::string base = reproDir + "/fuzz-seed" + std::to_string(seed);
    writeFile(base + ".json", program.toJson());
    GeneratedProgram smallest = program;
    RunResult last = result;
    if (!noMinimize) {
      unsigned tests = 0;
      smallest = minimizeProgram(
          program,
          [&](const GeneratedProgram &candidate) {
            RunResult r = fuzzer.run(candidate, seed, "minimize.json");
            if (r.outcome == result.outcome)
              last = r;
            return r.outcome == result.outcome;
          },
          maxTests, tests);
      // Rerun the result so that the log describes it.
      last = fuzzer.run(smallest, seed, "minimized.json");
      writeFile(base + "-min.json", smallest.toJson());
      writeFile(base + "-min.txt",
                "# txc-fuzz seed " + std::to_string(seed) + ", minimized in " +
                    std::to_string(tests) + " difftest runs from " +
                    std::to_string(program.nodes.size()) + " to " +
                    std::to_string(smallest.nodes.size()) + " nodes\n" +
                    "# reproduce: txc-difftest " + base + "-min.json --seed " +
                    std::to_string(seed) +
                    (options.specializeChosen ? " --specialize-chosen" : "") +
                    "\n" + fuzzer.lastLog() +
                    (last.outcome == Outcome::Failed ? last.detail + "\n"
                                                     : ""));
      llvm::outs() << "  minimized to " << smallest.nodes.size()
                   << " nodes [" << llvm::join(smallest.ops(), " ")
                   << "]: " << last.detail << "\n"
                   << "  repro: " << base << "-min.json (original "
                   << base << ".json, log " << base << "-min.txt)\n";
    } else {
      llvm::outs() << "  repro: " << base << ".json\n";
    }
    llvm::outs().flush();
  }
  llvm::sys::fs::remove_directories(workDir);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  llvm::outs() << "txc-fuzz: seeds " << seedStart << ".."
               << (seedStart + count - 1) << ": " << count << " programs, "
               << ok << " ok, " << mismatches << " mismatches, " << failures
               << " failures, " << generatorBugs << " generator bugs"
               << llvm::format(" (%.1f s)", seconds) << "\n";
  if (verbose) {
    llvm::outs() << "op counts:";
    for (auto &[op, n] : opCounts)
      llvm::outs() << " " << op << "=" << n;
    llvm::outs() << "\n";
  }
  return mismatches || failures || generatorBugs ? 1 : 0;
}
