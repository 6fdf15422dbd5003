//===- Run.cpp - The run job: a program on .npy inputs --------------------===//
#include "txc/Driver/Driver.h"

#include "txc/Driver/Execution.h"
#include "txc/Interp/Interpreter.h"
#include "txc/Interp/Npy.h"
#include "txc/Support/OutputFiles.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace txc;

namespace {

/// An input read from its --input file.
struct InputFile {
  std::string path;
  Tensor tensor;
};

/// Matches the --input NAME=FILE arguments with the contract's inputs and
/// reads the files; reports every problem before giving up.
std::optional<std::vector<InputFile>>
readInputs(const Contract &contract, const std::vector<std::string> &specs,
           DiagnosticEngine &diags) {
  llvm::StringMap<size_t> index;
  std::string names;
  for (size_t i = 0; i < contract.inputs.size(); ++i) {
    index[contract.inputs[i].name] = i;
    names += (i ? ", " : "") + contract.inputs[i].name;
  }
  std::vector<std::optional<std::string>> paths(contract.inputs.size());
  bool ok = true;
  auto usage = [&](const llvm::Twine &message) {
    diags.error(DiagCategory::Usage, "run-input", "", Loc(), message);
    ok = false;
  };
  for (const std::string &spec : specs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (name.size() == spec.size() || name.empty() || path.empty()) {
      usage("--input '" + spec + "' is not of the form NAME=FILE.npy");
      continue;
    }
    auto it = index.find(name);
    if (it == index.end()) {
      usage("--input '" + spec + "': program '" + contract.programName +
            "' has no input '" + name + "' (its inputs: " + names + ")");
      continue;
    }
    if (paths[it->second]) {
      usage("input '" + name + "' is given twice (--input " + name + "=" +
            *paths[it->second] + " and --input " + spec + ")");
      continue;
    }
    paths[it->second] = path.str();
  }
  for (size_t i = 0; i < paths.size(); ++i)
    if (!paths[i])
      usage("input '" + contract.inputs[i].name +
            "' is not given; add --input " + contract.inputs[i].name +
            "=FILE.npy");
  if (!ok)
    return std::nullopt;

  std::vector<InputFile> inputs;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto tensor = readNpyFileAs(*paths[i], contract.inputs[i].type.dtype);
    if (!tensor) {
      diags.error(DiagCategory::IO, "bad-npy", "", Loc(),
                  "input '" + contract.inputs[i].name +
                      "': " + llvm::toString(tensor.takeError()));
      ok = false;
      continue;
    }
    inputs.push_back({*paths[i], std::move(*tensor)});
  }
  if (!ok)
    return std::nullopt;
  return inputs;
}

/// How a <u2 file was read: as bf16 bits for a bf16 input, else as u16.
const char *npyDTypeNote(DType dtype) {
  if (dtype == DType::BF16)
    return " (<u2 is read as bf16 for a bf16 input)";
  if (dtype == DType::U16)
    return " (<u2 is read as u16, and as bf16 only for a bf16 input)";
  return "";
}

/// Reports a failed call with the message the object's error-message
/// function gives, and a note on the input file it is about.
void reportFailedCall(const CheckedProgram &checked,
                      const ExecutionResult &result,
                      const std::vector<InputFile> &inputs,
                      DiagnosticEngine &diags) {
  const Contract &contract = checked.contract;
  // Point at the declaration the failed guard comes from.
  std::string file;
  Loc loc;
  if (result.status.guard >= 0 &&
      size_t(result.status.guard) < contract.guards.size()) {
    file = checked.program->file;
    loc = contract.guards[result.status.guard].origin;
  }
  Diagnostic &diag =
      diags.error(DiagCategory::ContractViolation, "contract-violation", file,
                  loc, result.message);
  auto note = [&](const std::string &message) {
    Diagnostic n;
    n.severity = Severity::Note;
    n.category = DiagCategory::ContractViolation;
    n.id = "contract-violation";
    n.message = message;
    diag.notes.push_back(std::move(n));
  };
  if (!result.detail.empty())
    note(result.detail);
  const CallStatus &status = result.status;
  if (status.side == TensorSide::Input && status.tensor >= 0 &&
      size_t(status.tensor) < inputs.size()) {
    const InputFile &file = inputs[status.tensor];
    note("input '" + contract.inputs[status.tensor].name + "' is '" +
         file.path + "', which holds " + file.tensor.typeString() +
         npyDTypeNote(file.tensor.dtype()));
  }
}

llvm::Expected<ExecutionResult> execute(const RunOptions &options,
                                        const CheckedProgram &checked,
                                        llvm::ArrayRef<Tensor> inputs,
                                        DiagnosticEngine &diags) {
  if (options.eager)
    return interpretProgram(*checked.program, checked.contract, inputs);
  auto engine = JitEngine::create();
  if (!engine)
    return engine.takeError();
  Compiler compiler;
  std::unique_ptr<CompiledProgram> program = compileForThisMachine(
      compiler, **engine, checked, options.optLevel, diags);
  if (!program)
    return llvm::createStringError("compilation failed");
  return program->run(inputs);
}

} // namespace

int txc::runRun(const RunOptions &options, DiagnosticEngine &diags) {
  std::unique_ptr<CheckedProgram> checked = loadProgram(
      options.programPath, "", diags, ReaderOptions{options.allowedWeightDirs});
  if (!checked)
    return diags.exitCode();
  const Contract &contract = checked->contract;
  auto inputFiles = readInputs(contract, options.inputs, diags);
  if (!inputFiles)
    return diags.exitCode();
  std::vector<Tensor> inputs;
  for (const InputFile &file : *inputFiles)
    inputs.push_back(file.tensor);

  auto result = execute(options, *checked, inputs, diags);
  if (!result) {
    std::string message = llvm::toString(result.takeError());
    if (!diags.hasErrors())
      diags.error(DiagCategory::Internal, "internal", checked->program->file,
                  Loc(), message);
    return diags.exitCode();
  }
  if (!result->ok()) {
    reportFailedCall(*checked, *result, *inputFiles, diags);
    return diags.exitCode();
  }

  if (std::error_code ec =
          llvm::sys::fs::create_directories(options.outputDir)) {
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                "cannot create the output directory '" + options.outputDir +
                    "': " + ec.message());
    return diags.exitCode();
  }
  OutputFileSet files;
  std::string summary;
  for (size_t o = 0; o < contract.outputs.size(); ++o) {
    llvm::SmallString<256> path(options.outputDir);
    llvm::sys::path::append(path, contract.outputs[o].name + ".npy");
    files.add(path, writeNpy(result->outputs[o]));
    // The names are identifiers; the directory comes from the command line.
    summary += contract.outputs[o].name + ": " +
               result->outputs[o].typeString() + " -> " +
               escapeForTerminal(path) + "\n";
  }
  if (llvm::Error err = files.commit()) {
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                llvm::toString(std::move(err)));
    return diags.exitCode();
  }
  llvm::outs() << summary;
  return diags.exitCode();
}
