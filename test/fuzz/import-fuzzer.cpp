//===- import-fuzzer.cpp - libFuzzer harness of `txc import onnx` ---------===//
//
// The input is an .onnx file's bytes, given to importOnnxModel as the CLI
// gives them (docs/onnx.md). Every dim_param of the model's inputs is
// pinned to 2 with --static, so that mutated models get past the dims and
// reach the converters. The model's path is in the harness's scratch
// directory, which holds the external data files of test/lit/import's
// external-data.test (w.bin: 16 zero bytes and the f32 values 1 to 4;
// b.bin: 5 and 6): a `location` of w.bin or b.bin is read and its offset
// and length checked; any other is resolved under the path rules and fails.
//
// Beyond "no crash", the harness checks what the importer promises:
//   * an import that fails reports an error, and one that succeeds reports
//     none;
//   * every diagnostic renders in the text, JSON and SARIF formats;
//   * a successful import's program is JSON that txc's reader parses, and
//     importing the same bytes again gives byte-identical outputs.
// A broken promise aborts, which libFuzzer reports like a crash.
//
// Seeds (make_seeds.py): the models of test/lit/import's `#--- *.txtpb`
// sections (protoc --encode) and the node tests' model.onnx files of
// libonnx-testdata. libonnx and protobuf are Debian's shared libraries,
// built by GCC and not instrumented: the harness sees their bugs only as
// crashes, and ASan sees txc's reads of the protobuf objects.
//
//===----------------------------------------------------------------------===//
#include "FuzzerCommon.h"

#include "txc/Frontend/Json.h"
#include "txc/Import/OnnxImport.h"
#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <set>

using namespace txc;
using txc::fuzz::check;

namespace {

/// --static NAME=2 for every dim_param of the graph's inputs, when the
/// bytes parse as a model at all.
std::vector<std::string> staticDims(llvm::StringRef bytes) {
  onnx::ModelProto model;
  if (bytes.size() > uint64_t(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return {};
  std::set<std::string> params;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (input.type().has_tensor_type())
      for (const auto &dim : input.type().tensor_type().shape().dim())
        if (dim.has_dim_param())
          params.insert(dim.dim_param());
  std::vector<std::string> flags;
  for (const std::string &param : params)
    if (param.find('=') == std::string::npos)
      flags.push_back(param + "=2");
  return flags;
}

/// The model's path: beside the external data files, written once.
std::string modelPathBesideData() {
  static const std::string path = [] {
    const float w[8] = {0, 0, 0, 0, 1, 2, 3, 4}, b[2] = {5, 6};
    fuzz::ScratchFiles &files = fuzz::ScratchFiles::get();
    files.write("b.bin", llvm::StringRef(reinterpret_cast<const char *>(b),
                                         sizeof b));
    std::string data = files.write(
        "w.bin", llvm::StringRef(reinterpret_cast<const char *>(w), sizeof w));
    llvm::SmallString<256> model(data);
    llvm::sys::path::remove_filename(model);
    llvm::sys::path::append(model, "fuzz.onnx");
    return std::string(model);
  }();
  return path;
}

std::optional<OnnxImportResult> import(llvm::StringRef bytes,
                                       const OnnxImportOptions &options,
                                       DiagnosticEngine &diags) {
  return importOnnxModel(bytes, "fuzz.onnx", options, "fuzz.safetensors",
                         diags);
}

void checkProgramJson(const std::string &json) {
  SourceFile file("fuzz.json", json);
  DiagnosticEngine diags;
  std::unique_ptr<JsonValue> root =
      parseJson(file, diags, ProgramLimits::kMaxJsonDepth);
  check(root && !diags.hasErrors(), "the imported program is not valid JSON");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes = fuzz::bytesAsText(data, size);
  OnnxImportOptions options;
  options.modelPath = modelPathBesideData();
  options.outputPath = "fuzz.json";
  options.statics = staticDims(bytes);
  DiagnosticEngine diags;
  std::optional<OnnxImportResult> result = import(bytes, options, diags);
  fuzz::renderDiagnostics(diags);
  check(result.has_value() != diags.hasErrors(),
        "an import failed without an error, or succeeded with one");
  if (!result)
    return 0;
  checkProgramJson(result->programJson);
  DiagnosticEngine again;
  std::optional<OnnxImportResult> second = import(bytes, options, again);
  check(second && second->programJson == result->programJson &&
            second->weights == result->weights,
        "importing the same model twice gave different outputs");
  return 0;
}
