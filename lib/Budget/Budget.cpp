//===- Budget.cpp - txc budget: compiles and calls, measured --------------===//
//
// Every figure is a wall-time measurement in this process: the compile of
// an artifact with the timers of `txc compile --time-report`, its load into
// the JIT, and medians of warm calls of the loaded object (through <p>_run
// on buffers allocated once) and of the reference interpreter, on seeded
// random inputs of each distinct shape of the workload.
//
//===----------------------------------------------------------------------===//
#include "txc/Budget/Budget.h"

#include "Measurements.h"

#include "txc/Driver/Compiler.h"
#include "txc/Driver/Driver.h"
#include "txc/Driver/TimeReport.h"
#include "txc/Interp/Interpreter.h"
#include "txc/JIT/Jit.h"
#include "txc/Support/OutputFiles.h"
#include "txc/Testing/InputGenerator.h"
#include "txc/Tools/Calls.h"

#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <chrono>

using namespace txc;
using json = nlohmann::ordered_json;

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/// The phases timed under one root, as --time-report=json prints them.
class PhaseTimer {
public:
  PhaseTimer() {
    manager.setEnabled(true);
    manager.setOutput(createJsonTimingOutput(stream));
  }
  ~PhaseTimer() { manager.setEnabled(false); }
  mlir::TimingScope root() { return manager.getRootScope(); }
  /// The "phases" list; the root scope must have ended.
  json phases() {
    manager.print();
    manager.setEnabled(false);
    json report = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return report.is_object() ? report["phases"] : json::array();
  }

private:
  std::string text;
  llvm::raw_string_ostream stream{text};
  mlir::DefaultTimingManager manager;
};

/// What measuring needs besides the options.
struct Session {
  const BudgetOptions &options;
  DiagnosticEngine &diags;
  Compiler compiler;
  std::unique_ptr<JitEngine> engine;
  TargetSpec target;

  Session(const BudgetOptions &options, DiagnosticEngine &diags)
      : options(options), diags(diags), compiler(options.jobs) {}
};

/// An artifact made and loaded, with what making it cost.
struct Artifact {
  std::unique_ptr<CheckedProgram> checked;
  std::unique_ptr<CompiledProgram> compiled;
  ArtifactCost cost;
};

/// Reads the program with `specializations` (timed as the capture), then
/// compiles and loads either the whole (generic code and variants) or,
/// with `variantOnly`, the first variant alone: the artifact of one shape,
/// every symbol bound, as a JIT that compiles per shape would make it.
std::optional<Artifact> makeArtifact(Session &session, std::string name,
                                     llvm::ArrayRef<std::string> specs,
                                     bool variantOnly) {
  Artifact artifact;
  artifact.cost.name = std::move(name);
  {
    PhaseTimer timer;
    auto start = std::chrono::steady_clock::now();
    {
      mlir::TimingScope root = timer.root();
      mlir::TimingScope frontend = root.nest("frontend");
      artifact.checked = loadProgram(session.options.programPath, "",
                                     session.diags,
                                     {session.options.allowedWeightDirs},
                                     specs, &frontend);
    }
    artifact.cost.captureMs = msSince(start);
    artifact.cost.capturePhases = timer.phases();
  }
  if (!artifact.checked)
    return std::nullopt;
  const CheckedProgram &code =
      variantOnly ? *artifact.checked->variants.front() : *artifact.checked;
  std::optional<std::string> object;
  {
    PhaseTimer timer;
    auto start = std::chrono::steady_clock::now();
    {
      mlir::TimingScope root = timer.root();
      object = session.compiler.compileObject(code, session.target,
                                              session.diags, &root);
    }
    artifact.cost.compileMs = msSince(start);
    artifact.cost.compilePhases = timer.phases();
  }
  if (!object)
    return std::nullopt;
  auto start = std::chrono::steady_clock::now();
  auto loaded = session.engine->load(*object, code.contract,
                                     code.contract.entryPrefix);
  artifact.cost.loadMs = msSince(start);
  if (!loaded) {
    session.diags.error(DiagCategory::Internal, "jit", "", Loc(),
                        llvm::toString(loaded.takeError()));
    return std::nullopt;
  }
  artifact.compiled = std::move(*loaded);
  return artifact;
}

/// The inputs and output buffers of the calls at one shape.
struct ShapeCall {
  std::vector<Tensor> inputs, outputs;
  std::vector<CallTensor> inputDescs, outputDescs;
};

ShapeCall prepareCall(const Contract &contract, llvm::ArrayRef<int64_t> values,
                      uint64_t seed) {
  ShapeCall call;
  call.inputs = generateInputs(contract, values, seed);
  // Random indices would fail the data-dependent guards (gather, scatter):
  // the indices those guards check are 0, valid in any non-empty dim.
  for (const Guard &guard : contract.guards)
    if (guard.kind == GuardKind::IndexInRange &&
        guard.side == TensorSide::Input)
      for (int64_t i = 0; i < call.inputs[guard.tensor].numElements(); ++i)
        call.inputs[guard.tensor].setInt64(i, 0);
  for (const Tensor &input : call.inputs)
    call.inputDescs.push_back(describeForGuards(input));
  // The output shapes, from the guards the workload's shapes passed
  // (Workload.cpp); the outputs' descriptors are not made yet.
  std::vector<CallTensor> outputs = shapeOnlyOutputs(contract);
  CallResult shapes = evaluateGuards(contract, &call.inputDescs, &outputs,
                                     /*checkOutputs=*/false);
  assert(shapes.status.code == StatusCode::OK);
  for (size_t o = 0; o < contract.outputs.size(); ++o)
    call.outputs.emplace_back(contract.outputs[o].type.dtype,
                              shapes.outputShapes[o]);
  // After the last push_back: the descriptors point into the tensors.
  for (const Tensor &output : call.outputs)
    call.outputDescs.push_back(describeForGuards(output));
  return call;
}

/// The median of `repeat` warm calls of `program` (after one call that is
/// not timed), and the variant they ran.
llvm::Expected<std::pair<double, int32_t>>
medianCallMs(const CompiledProgram &program, const ShapeCall &call,
             unsigned repeat) {
  std::vector<double> samples;
  int32_t variant = -1;
  for (unsigned i = 0; i <= repeat; ++i) {
    std::string message;
    std::vector<std::vector<int64_t>> shapes;
    auto start = std::chrono::steady_clock::now();
    CallStatus status =
        program.callWithDescriptors(call.inputDescs, call.outputDescs,
                                    /*shapesOnly=*/false, message, shapes);
    double ms = msSince(start);
    if (status.code != StatusCode::OK)
      return llvm::createStringError("the compiled call failed: " + message);
    variant = status.variant;
    if (i != 0)
      samples.push_back(ms);
  }
  return std::make_pair(median(samples), variant);
}

llvm::Expected<double> medianEagerMs(const CheckedProgram &checked,
                                     const ShapeCall &call, unsigned repeat) {
  std::vector<double> samples;
  for (unsigned i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto result =
        interpretProgram(*checked.program, checked.contract, call.inputs);
    double ms = msSince(start);
    if (!result)
      return result.takeError();
    if (!result->ok())
      return llvm::createStringError("the interpreter's call failed: " +
                                     result->message);
    samples.push_back(ms);
  }
  return median(samples);
}

/// Which distinct shapes get their own artifact compiled: `count` of
/// them, evenly spaced over the order of first use.
std::vector<uint32_t> sampledShapes(size_t distinct, unsigned count) {
  std::vector<uint32_t> sample;
  size_t n = std::min<size_t>(distinct, count);
  for (size_t i = 0; i < n; ++i)
    sample.push_back(uint32_t(i * distinct / n));
  return sample;
}

/// The distinct shapes' calls on every artifact and the interpreter.
llvm::Error measureShapes(Session &session, const Artifact &generic,
                          const Artifact *specialized,
                          const std::vector<std::pair<uint32_t, Artifact>>
                              &perShape,
                          Measurements &measured) {
  const Workload &workload = *measured.workload;
  unsigned repeat = session.options.repeat;
  for (uint32_t i = 0; i < workload.shapes.size(); ++i) {
    ShapeCall call = prepareCall(generic.checked->contract, workload.shapes[i],
                                 session.options.seed + i);
    ShapeCosts costs;
    auto eager = medianEagerMs(*generic.checked, call, repeat);
    if (!eager)
      return eager.takeError();
    costs.eagerMs = *eager;
    auto run = medianCallMs(*generic.compiled, call, repeat);
    if (!run)
      return run.takeError();
    costs.genericMs = run->first;
    if (specialized) {
      auto spec = medianCallMs(*specialized->compiled, call, repeat);
      if (!spec)
        return spec.takeError();
      costs.specializedMs = spec->first;
      costs.specializedVariant = spec->second;
    }
    for (const auto &[shape, artifact] : perShape) {
      if (shape != i)
        continue;
      auto own = medianCallMs(*artifact.compiled, call, repeat);
      if (!own)
        return own.takeError();
      costs.perShapeMs = own->first;
    }
    measured.shapes.push_back(costs);
  }
  return llvm::Error::success();
}

std::optional<Workload> readWorkload(const BudgetOptions &options,
                                     const Contract &contract,
                                     DiagnosticEngine &diags) {
  int given = !options.callsFile.empty() + !options.steady.empty() +
              !options.churn.empty();
  if (given != 1) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "txc budget needs exactly one workload: --calls FILE, "
                "--steady 'SYM=V:N' or --churn 'SYM=LO..HI:N'");
    return std::nullopt;
  }
  if (!options.callsFile.empty())
    return readWorkloadFile(options.callsFile, contract, diags);
  if (!options.steady.empty())
    return steadyWorkload(options.steady, contract, diags);
  return churnWorkload(options.churn, contract, options.seed, diags);
}

bool checkOptions(const BudgetOptions &options, DiagnosticEngine &diags) {
  auto usage = [&](const llvm::Twine &message) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(), message);
    return false;
  };
  if (options.cacheCapacity < 1)
    return usage("--cache-capacity must be at least 1");
  if (options.repeat < 1)
    return usage("--repeat must be at least 1");
  if (options.sampleCompiles < 1)
    return usage("--sample-compiles must be at least 1");
  if (options.optLevel > 3)
    return usage("-O must be 0 to 3");
  // Each artifact's capture reads the program again (and is timed).
  if (options.programPath == "-")
    return usage("txc budget needs a program file, not standard input");
  return true;
}

/// The text `--specialize` takes for one shape: every symbol bound.
std::string shapeBindings(const Contract &contract,
                          llvm::ArrayRef<int64_t> values) {
  return formatSymbolValues(contract, values);
}

bool resolveTarget(Session &session) {
  auto spec = resolveTargetSpec("", "", "", session.options.optLevel);
  if (!spec) {
    reportTargetError(spec.takeError(), session.diags);
    return false;
  }
  session.target = *spec;
  auto engine = JitEngine::create();
  if (!engine) {
    session.diags.error(DiagCategory::Internal, "jit", "", Loc(),
                        llvm::toString(engine.takeError()));
    return false;
  }
  session.engine = std::move(*engine);
  return true;
}

/// Compiles and measures everything the report needs.
bool measure(Session &session, const Workload &workload,
             Measurements &measured) {
  const BudgetOptions &options = session.options;
  // The first compile in a process also initializes MLIR and LLVM (pass
  // registries, target tables: a few milliseconds on its first passes).
  // A serving process pays that once, not per artifact: compile the
  // program once untimed so that every C measured is a warm compiler's.
  if (!makeArtifact(session, "warm-up", {}, false))
    return false;
  auto generic = makeArtifact(session, "generic", {}, false);
  if (!generic)
    return false;
  const Contract &contract = generic->checked->contract;
  std::optional<Artifact> specialized;
  if (!options.specializations.empty()) {
    specialized = makeArtifact(session, "specialized",
                               options.specializations, false);
    if (!specialized)
      return false;
    for (const ContractVariant &variant :
         specialized->checked->contract.variants)
      measured.variantTexts.push_back(
          variant.text(specialized->checked->contract));
    measured.specialized = specialized->cost;
  }
  std::vector<std::pair<uint32_t, Artifact>> perShape;
  for (uint32_t shape : sampledShapes(workload.shapes.size(),
                                      options.sampleCompiles)) {
    std::string text = shapeBindings(contract, workload.shapes[shape]);
    // A program without symbols has one shape: its own artifact is the
    // generic one, compiled again.
    auto artifact = makeArtifact(
        session, "shape " + (text.empty() ? "(no symbols)" : text),
        text.empty() ? llvm::ArrayRef<std::string>{}
                     : llvm::ArrayRef<std::string>{text},
        !text.empty());
    if (!artifact)
      return false;
    measured.perShape.push_back({shape, artifact->cost});
    perShape.push_back({shape, std::move(*artifact)});
  }
  if (llvm::Error err = measureShapes(session, *generic,
                                      specialized ? &*specialized : nullptr,
                                      perShape, measured)) {
    session.diags.error(DiagCategory::Internal, "internal", "", Loc(),
                        llvm::toString(std::move(err)));
    return false;
  }
  measured.generic = generic->cost;
  return true;
}

} // namespace

int txc::runBudget(const BudgetOptions &options, DiagnosticEngine &diags,
                   llvm::raw_ostream &out) {
  if (!checkOptions(options, diags))
    return diags.exitCode();
  std::unique_ptr<CheckedProgram> checked =
      loadProgram(options.programPath, "", diags, {options.allowedWeightDirs},
                  options.specializations);
  if (!checked)
    return diags.exitCode();
  std::optional<Workload> workload =
      readWorkload(options, checked->contract, diags);
  if (!workload)
    return diags.exitCode();
  Session session(options, diags);
  Measurements measured;
  measured.workload = &*workload;
  if (!resolveTarget(session) || !measure(session, *workload, measured))
    return diags.exitCode();
  measured.contract = &checked->contract;
  json report = budgetReport(options, measured);
  if (!options.reportJson.empty()) {
    OutputFileSet files;
    files.add(options.reportJson, report.dump(2) + "\n");
    if (llvm::Error err = files.commit()) {
      diags.error(DiagCategory::IO, "io-write", "", Loc(),
                  llvm::toString(std::move(err)));
      return diags.exitCode();
    }
  }
  if (options.format == ReportFormat::Json)
    out << report.dump(2) << "\n";
  else
    printBudgetText(report, out);
  return diags.exitCode();
}
