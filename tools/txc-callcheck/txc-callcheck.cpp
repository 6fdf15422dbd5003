//===- txc-callcheck.cpp - Run shape-only calls against a compiled object -===//
//
// txc-callcheck OBJECT MANIFEST --calls FILE [--check-expected]
//               [--format text|json] [--max-bytes N]
//
// The object side of the test that `txc verify` agrees with the compiled
// guards. It loads OBJECT (compiled by `txc compile` for this machine) in
// process and makes each call of the calls file (`txc testgen`) the way
// `txc verify` assumes it is made: every input and output passed, non-NULL
// data, buffers exactly as large as the tensors need, no overlap. Then it
// prints the outcomes in exactly the format of `txc verify`, so the two
// reports can be compared byte for byte.
//
// Each call first goes to <p>_output_shapes, which reads no tensor data.
// If that fails, <p>_run is called on small dummy buffers: the guards must
// fail at the same guard before any data is touched, and the two statuses
// must agree. If it passes, the input and output buffers are allocated at
// their exact sizes and <p>_run is called (unless they would exceed
// --max-bytes; the call then counts as checked by <p>_output_shapes only).
//
// Exit codes: 0 when every call was made (whatever its outcome), 1 when the
// object contradicts itself (the two entry points disagree) or cannot be
// loaded, 2 for usage errors, 3 for I/O errors, 4 for an invalid manifest or
// calls file.
//
//===----------------------------------------------------------------------===//
#include "txc/JIT/Jit.h"
#include "txc/Program/DType.h"
#include "txc/Support/InputFiles.h"
#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

using namespace txc;

namespace {

/// Bytes of a tensor of `dims` with elements of `elementSize` bytes, or
/// nullopt for a negative dim or an overflow.
std::optional<int64_t> bytesOf(llvm::ArrayRef<int64_t> dims,
                               int64_t elementSize) {
  int64_t bytes = elementSize;
  for (int64_t dim : dims) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && bytes > INT64_MAX / dim)
      return std::nullopt;
    bytes *= dim;
  }
  return bytes;
}

bool sameStatus(const CallStatus &a, const CallStatus &b) {
  return a.code == b.code && a.guard == b.guard && a.side == b.side &&
         a.tensor == b.tensor && a.dim == b.dim && a.symbol == b.symbol &&
         a.expectedMin == b.expectedMin && a.expectedMax == b.expectedMax &&
         a.actual == b.actual;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app{"txc-callcheck: make shape-only calls of a compiled object "
               "and report them like txc verify",
               "txc-callcheck"};
  std::string objectPath, manifestPath, callsPath, format = "text";
  bool checkExpected = false;
  int64_t maxBytes = int64_t(256) << 20;
  app.add_option("object", objectPath, "Object file (txc compile)")->required();
  app.add_option("manifest", manifestPath, "Its manifest")->required();
  app.add_option("--calls", callsPath, "Calls file (txc testgen)")->required();
  app.add_flag("--check-expected", checkExpected,
               "Compare each call with its expected outcome");
  app.add_option("--format", format, "Report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--max-bytes", maxBytes,
                 "Largest total of buffers to allocate for one passing call")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ExitUsage;
  }

  DiagnosticEngine diags;
  auto finish = [&](int code) {
    llvm::outs().flush();
    if (!diags.diagnostics().empty())
      diags.print(llvm::errs(), DiagnosticFormat::Text, "txc-callcheck");
    return code;
  };
  std::unique_ptr<Manifest> manifest = readManifestFile(manifestPath, diags);
  if (!manifest)
    return finish(diags.exitCode());
  const Contract &contract = manifest->contract;
  auto calls = readCallsFile(callsPath, contract, diags);
  if (!calls)
    return finish(diags.exitCode());
  if (checkExpected)
    for (const CallSpec &call : *calls)
      if (!call.expect) {
        diags.error(DiagCategory::Usage, "usage", callsPath, call.loc,
                    "--check-expected: a call has no expected outcome");
        return finish(diags.exitCode());
      }

  auto object = mapInputFile(objectPath, InputPolicy());
  if (!object) {
    diags.error(DiagCategory::IO, "io-read", objectPath, Loc(),
                "cannot read the object: " +
                    takeInputError(object.takeError()).reason);
    return finish(diags.exitCode());
  }
  auto engine = JitEngine::create();
  if (!engine) {
    diags.error(DiagCategory::Internal, "jit", "", Loc(),
                llvm::toString(engine.takeError()));
    return finish(diags.exitCode());
  }
  auto program = (*engine)->load((*object)->getBuffer(), contract, objectPath);
  if (!program) {
    diags.error(DiagCategory::Internal, "jit", objectPath, Loc(),
                llvm::toString(program.takeError()));
    return finish(diags.exitCode());
  }

  size_t numInputs = contract.inputs.size();
  size_t numOutputs = contract.outputs.size();
  // Small, distinct, 8-byte aligned stand-ins for the tensors of calls that
  // the guards reject (the object must not touch them).
  std::vector<uint64_t> dummies(8 * (numInputs + numOutputs + 1));
  auto dummy = [&](size_t k) {
    return uint64_t(reinterpret_cast<uintptr_t>(&dummies[8 * k]));
  };

  std::vector<CallReport> reports;
  unsigned shapesOnly = 0, run = 0;
  bool contradiction = false;
  for (size_t c = 0; c < calls->size(); ++c) {
    const CallSpec &call = (*calls)[c];
    std::string what = describeCall(contract, c, call);
    std::vector<CallTensor> inputs(numInputs);
    int64_t inputBytes = 0;
    bool sized = true;
    for (size_t i = 0; i < numInputs; ++i) {
      inputs[i].data = dummy(i);
      inputs[i].dtype = call.inputs[i].dtype;
      inputs[i].dims = call.inputs[i].dims;
      auto bytes =
          bytesOf(inputs[i].dims, dtypeSize(contract.inputs[i].type.dtype));
      inputs[i].sizeBytes = bytes ? *bytes : INT64_MAX;
      sized &= bytes.has_value() && *bytes <= INT64_MAX - inputBytes;
      if (sized)
        inputBytes += *bytes;
    }
    std::vector<CallTensor> outputs(numOutputs);
    for (size_t o = 0; o < numOutputs; ++o) {
      outputs[o].data = dummy(numInputs + o);
      outputs[o].sizeBytes = INT64_MAX;
    }

    CallReport report{&call, {}, std::nullopt};
    CallOutcome &outcome = report.outcome;
    std::string shapesMessage;
    std::vector<std::vector<int64_t>> shapes;
    CallStatus shapesStatus = program->get()->callWithDescriptors(
        inputs, outputs, /*shapesOnly=*/true, shapesMessage, shapes);
    if (shapesStatus.code != StatusCode::OK) {
      // Rejected by an input guard: <p>_run must reject it the same way
      // before touching the dummy buffers.
      outcome.status = program->get()->callWithDescriptors(
          inputs, outputs, /*shapesOnly=*/false, outcome.message,
          outcome.outputShapes);
      if (!sameStatus(outcome.status, shapesStatus) ||
          outcome.message != shapesMessage) {
        diags.error(DiagCategory::Internal, "entry-points-disagree", "", Loc(),
                    what + ": <p>_output_shapes says '" + shapesMessage +
                        "', <p>_run says '" + outcome.message + "'");
        contradiction = true;
      }
    } else {
      int64_t total = sized ? inputBytes : INT64_MAX;
      std::vector<int64_t> outputBytes(numOutputs, 0);
      for (size_t o = 0; o < numOutputs && total != INT64_MAX; ++o) {
        auto bytes =
            bytesOf(shapes[o], dtypeSize(contract.outputs[o].type.dtype));
        if (!bytes || *bytes > INT64_MAX - total)
          total = INT64_MAX;
        else {
          outputBytes[o] = *bytes;
          total += *bytes;
        }
      }
      if (total > maxBytes) {
        ++shapesOnly;
        outcome.status = shapesStatus;
        outcome.outputShapes = shapes;
      } else {
        ++run;
        std::vector<std::vector<uint64_t>> buffers;
        auto allocate = [&](CallTensor &tensor, int64_t bytes) {
          buffers.emplace_back(size_t(bytes + 7) / 8 + 1, 0);
          tensor.data =
              uint64_t(reinterpret_cast<uintptr_t>(buffers.back().data()));
          tensor.sizeBytes = bytes;
        };
        buffers.reserve(numInputs + numOutputs);
        for (size_t i = 0; i < numInputs; ++i)
          allocate(inputs[i], inputs[i].sizeBytes);
        for (size_t o = 0; o < numOutputs; ++o)
          allocate(outputs[o], outputBytes[o]);
        outcome.status = program->get()->callWithDescriptors(
            inputs, outputs, /*shapesOnly=*/false, outcome.message,
            outcome.outputShapes);
        if (outcome.status.code != StatusCode::OK ||
            outcome.outputShapes != shapes) {
          diags.error(DiagCategory::Internal, "entry-points-disagree", "",
                      Loc(),
                      what +
                          ": <p>_output_shapes accepts the call, but "
                          "<p>_run " +
                          (outcome.status.code != StatusCode::OK
                               ? "rejects it: " + outcome.message
                               : std::string("writes other output shapes")));
          contradiction = true;
        }
      }
    }
    if (outcome.pass())
      outcome.message.clear();
    if (checkExpected)
      report.asExpected = matchesExpectation(*call.expect, outcome);
    reports.push_back(std::move(report));
  }
  llvm::outs() << (format == "json" ? callReportsToJson(*manifest, reports)
                                    : callReportsToText(*manifest, reports));
  llvm::errs() << "txc-callcheck: " << reports.size() << " calls, " << run
               << " run with buffers, " << shapesOnly
               << " checked by <p>_output_shapes only\n";
  return finish(contradiction ? ExitInternal : diags.exitCode());
}
