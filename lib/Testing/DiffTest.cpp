//===- DiffTest.cpp - The interpreter against compiled code ---------------===//
#include "txc/Testing/DiffTest.h"

#include "txc/Driver/Execution.h"
#include "txc/Interp/Interpreter.h"
#include "txc/Interp/Npy.h"
#include "txc/Testing/InputGenerator.h"
#include "txc/Testing/Tolerance.h"

#include "llvm/Support/Format.h"

#include <chrono>

using namespace txc;

llvm::Expected<std::unique_ptr<DiffTester>>
DiffTester::create(llvm::raw_ostream &out) {
  auto engine = JitEngine::create();
  if (!engine)
    return engine.takeError();
  std::unique_ptr<DiffTester> tester(new DiffTester(out));
  tester->engine = std::move(*engine);
  return tester;
}

bool DiffTester::makeInputSets(const CheckedProgram &checked,
                               const DiffTestOptions &options,
                               InputSets &sets, DiagnosticEngine &diags) {
  const Contract &contract = checked.contract;
  if (!options.inputFiles.empty()) {
    // Inputs from files, matched by name; the guards may reject them.
    std::vector<std::string> paths(contract.inputs.size());
    for (const std::string &spec : options.inputFiles) {
      auto [name, path] = llvm::StringRef(spec).split('=');
      size_t i = 0;
      while (i < contract.inputs.size() && contract.inputs[i].name != name)
        ++i;
      if (i == contract.inputs.size() || !paths[i].empty() || path.empty()) {
        diags.error(DiagCategory::Usage, "difftest-input", "", Loc(),
                    "--input '" + spec + "' names no input of program '" +
                        contract.programName + "', or repeats one");
        return false;
      }
      paths[i] = path.str();
    }
    std::string label;
    for (size_t i = 0; i < paths.size(); ++i) {
      if (paths[i].empty()) {
        diags.error(DiagCategory::Usage, "difftest-input", "", Loc(),
                    "input '" + contract.inputs[i].name + "' is not given");
        return false;
      }
      label += (i ? "," : "") + contract.inputs[i].name + "=" + paths[i];
    }
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < paths.size(); ++i) {
      auto tensor = readNpyFileAs(paths[i], contract.inputs[i].type.dtype);
      if (!tensor) {
        diags.error(DiagCategory::IO, "bad-npy", "", Loc(),
                    llvm::toString(tensor.takeError()));
        return false;
      }
      tensors.push_back(std::move(*tensor));
    }
    sets.labels.push_back(std::move(label));
    sets.tensors.push_back(std::move(tensors));
    return true;
  }

  std::vector<SymbolValues> choices;
  for (const std::string &text : options.symbolSets) {
    auto values = parseSymbolValues(contract, text);
    if (!values) {
      diags.error(DiagCategory::Usage, "difftest-symbols", "", Loc(),
                  llvm::toString(values.takeError()));
      return false;
    }
    choices.push_back(std::move(*values));
  }
  if (choices.empty())
    choices = chooseSymbolValues(*checked.program, contract, options.seed,
                                 options.maxBytes);
  for (size_t k = 0; k < choices.size(); ++k) {
    const SymbolValues &choice = choices[k];
    std::string values = formatSymbolValues(contract, choice.values);
    sets.labels.push_back((values.empty() ? "" : values + " ") + "(" +
                          choice.label +
                          (choice.capped ? ", capped by --max-bytes" : "") +
                          ")");
    sets.tensors.push_back(
        generateInputs(contract, choice.values, options.seed + k));
    sets.symbolValues.push_back(choice.values);
  }
  return true;
}

/// --specialize-chosen: `<first symbol>=<value>` at each value set but the
/// first, each value once, in the order of the sets.
static std::vector<std::string>
chosenSpecializations(const Contract &contract,
                      llvm::ArrayRef<std::vector<int64_t>> symbolValues) {
  std::vector<std::string> variants;
  if (contract.symbols.empty())
    return variants;
  for (size_t k = 1; k < symbolValues.size(); ++k) {
    std::string text = contract.symbols[0].name + "=" +
                       std::to_string(symbolValues[k][0]);
    if (!llvm::is_contained(variants, text) &&
        symbolValues[k][0] != symbolValues[0][0])
      variants.push_back(std::move(text));
  }
  return variants;
}

static std::string describeStatus(const ExecutionResult &result) {
  std::string text = "status " + std::to_string(int(result.status.code)) +
                     " (" + statusCodeMacro(result.status.code).str() + ")";
  if (result.status.guard >= 0)
    text += " at guard " + std::to_string(result.status.guard);
  return text;
}

void DiffTester::compare(const CheckedProgram &checked,
                         const std::string &prefix,
                         const ExecutionResult &interpreted,
                         const ExecutionResult &compiled,
                         DiffTestSummary &summary) {
  if (!interpreted.ok() || !compiled.ok()) {
    ++summary.comparisons;
    bool same = interpreted.status.code == compiled.status.code &&
                interpreted.status.guard == compiled.status.guard &&
                interpreted.message == compiled.message;
    if (same) {
      out << prefix << ": ok, both report " << describeStatus(compiled) << "\n";
      return;
    }
    ++summary.mismatches;
    out << prefix << ": MISMATCH, the interpreter reports "
        << describeStatus(interpreted) << " '" << interpreted.message
        << "', the compiled code " << describeStatus(compiled) << " '"
        << compiled.message << "'\n";
    return;
  }
  const Contract &contract = checked.contract;
  for (size_t o = 0; o < contract.outputs.size(); ++o) {
    ++summary.comparisons;
    const Tensor &want = interpreted.outputs[o];
    const Tensor &got = compiled.outputs[o];
    Tolerance tolerance = toleranceFor(want.dtype());
    TensorComparison c = compareTensors(want, got, tolerance);
    out << prefix << " " << contract.outputs[o].name << ": "
        << (c.match ? "ok" : "MISMATCH") << " " << want.typeString()
        << llvm::format(" max_abs=%g max_rel=%g", c.maxAbsError, c.maxRelError);
    if (!c.match) {
      ++summary.mismatches;
      out << " " << c.mismatches << " of " << want.numElements()
          << " elements differ, " << c.firstMismatch
          << llvm::format(" (atol=%g rtol=%g)", tolerance.atol, tolerance.rtol);
    }
    out << "\n";
  }
}

/// The object compiled for the options' target, linked and run under the
/// emulator: every input set in one process.
static std::optional<DiffTester::Outcomes>
runEmulated(EmulatedRunner &runner, llvm::StringRef object,
            const CheckedProgram &checked, llvm::StringRef name,
            llvm::ArrayRef<std::vector<Tensor>> sets, DiagnosticEngine &diags) {
  auto program = runner.load(object, checked.contract, name);
  if (!program) {
    diags.error(DiagCategory::Internal, "emulator", checked.program->file,
                Loc(), llvm::toString(program.takeError()));
    return std::nullopt;
  }
  auto outcomes = (*program)->runAll(sets);
  if (!outcomes) {
    // The process failed as a whole: every call failed with it.
    std::string message = llvm::toString(outcomes.takeError());
    DiffTester::Outcomes failed;
    for (size_t i = 0; i < sets.size(); ++i)
      failed.push_back(llvm::createStringError(message));
    return failed;
  }
  return std::move(*outcomes);
}

std::optional<DiffTester::Outcomes>
DiffTester::runCompiled(const CheckedProgram &checked, unsigned level,
                        const DiffTestOptions &options, const InputSets &sets,
                        DiagnosticEngine &diags) {
  std::string name = checked.program->name + "-O" + std::to_string(level);
  if (!options.emulate) {
    std::unique_ptr<CompiledProgram> program =
        compileAndLoad(compiler, *engine, checked, options.triple,
                       options.cpu, options.features, level, diags);
    if (!program)
      return std::nullopt;
    Outcomes outcomes;
    for (const std::vector<Tensor> &inputs : sets.tensors)
      outcomes.push_back(program->run(inputs));
    return outcomes;
  }
  if (!emulated) {
    auto runner = EmulatedRunner::create(options.emulator);
    if (!runner) {
      diags.error(DiagCategory::Internal, "emulator", "", Loc(),
                  llvm::toString(runner.takeError()));
      return std::nullopt;
    }
    emulated = std::move(*runner);
  }
  auto spec = resolveTargetSpec(options.triple, options.cpu, options.features,
                                level);
  if (!spec) {
    reportTargetError(spec.takeError(), diags);
    return std::nullopt;
  }
  std::optional<std::string> object =
      compiler.compileObject(checked, *spec, diags);
  if (!object)
    return std::nullopt;
  return runEmulated(*emulated, *object, checked, name, sets.tensors, diags);
}

bool DiffTester::testProgram(llvm::StringRef path,
                             const DiffTestOptions &options,
                             DiffTestSummary &summary,
                             DiagnosticEngine &diags) {
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CheckedProgram> checked =
      loadProgram(path, "", diags, ReaderOptions(), options.specializations);
  if (!checked)
    return false;
  InputSets sets;
  if (!makeInputSets(*checked, options, sets, diags))
    return false;
  if (options.specializeChosen) {
    std::vector<std::string> variants = options.specializations;
    for (std::string &variant :
         chosenSpecializations(checked->contract, sets.symbolValues))
      if (!llvm::is_contained(variants, variant))
        variants.push_back(std::move(variant));
    checked = loadProgram(path, "", diags, ReaderOptions(), variants);
    if (!checked)
      return false;
  }
  std::vector<Outcomes> compiled;
  for (unsigned level : options.optLevels) {
    std::optional<Outcomes> outcomes =
        runCompiled(*checked, level, options, sets, diags);
    if (!outcomes)
      return false;
    compiled.push_back(std::move(*outcomes));
  }
  const std::string &name = checked->program->name;
  bool ok = true;
  for (size_t s = 0; s < sets.labels.size(); ++s) {
    auto interpreted = interpretProgram(*checked->program, checked->contract,
                                        sets.tensors[s]);
    if (!interpreted) {
      diags.error(DiagCategory::Internal, "interpreter", path, Loc(),
                  name + " " + sets.labels[s] + ": " +
                      llvm::toString(interpreted.takeError()));
      ok = false;
      for (Outcomes &level : compiled)
        llvm::consumeError(level[s].takeError());
      continue;
    }
    for (size_t k = 0; k < options.optLevels.size(); ++k) {
      ++summary.runs;
      std::string prefix = name + " " + sets.labels[s] + " -O" +
                           std::to_string(options.optLevels[k]);
      llvm::Expected<ExecutionResult> &result = compiled[k][s];
      if (!result) {
        ++summary.mismatches;
        out << prefix << ": FAILED, " << llvm::toString(result.takeError())
            << "\n";
        continue;
      }
      if (result->status.variant > 0)
        prefix += " variant " + std::to_string(result->status.variant);
      compare(*checked, prefix, *interpreted, *result, summary);
    }
  }
  summary.seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return ok;
}
