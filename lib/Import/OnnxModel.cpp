//===- OnnxModel.cpp - Parse, check, convert and infer an ONNX model ------===//
//
// The only place of the importer that calls libonnx's checker, version
// converter and shape inference, and so the only place where their
// exceptions (onnx::checker::ValidationError, onnx::InferenceError,
// std::exception) are caught: each becomes one diagnostic.
//
//===----------------------------------------------------------------------===//
#include "OnnxModel.h"

#include "txc/Import/OnnxImport.h"

#include "llvm/ADT/StringExtras.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

using namespace txc;
using namespace txc::onnximport;

/// The first lines of a libonnx message: its exceptions append long
/// "==> Context:" dumps of the node.
static std::string shortMessage(const char *what) {
  llvm::SmallVector<llvm::StringRef, 4> lines;
  llvm::StringRef(what).split(lines, '\n', 3, /*KeepEmpty=*/false);
  std::string message;
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (line.empty())
      continue;
    if (line.consume_front("==> Context:"))
      line = line.trim();
    message += (message.empty() ? "" : "; ") + line.str();
  }
  return message;
}

std::optional<int64_t>
txc::onnximport::defaultDomainOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return std::nullopt;
}

/// Parses the bytes; protobuf reports no reason, so the message names the
/// usual ones.
static std::shared_ptr<onnx::ModelProto>
parseModel(llvm::StringRef bytes, llvm::StringRef displayName,
           DiagnosticEngine &diags) {
  auto model = std::make_shared<onnx::ModelProto>();
  if (bytes.size() > uint64_t(INT32_MAX) ||
      !model->ParseFromArray(bytes.data(), int(bytes.size()))) {
    diags.error(DiagCategory::Syntax, "onnx-parse", displayName, Loc(),
                "the file is not a valid ONNX model: its protobuf cannot be "
                "parsed (truncated, corrupted or not an .onnx file)");
    return nullptr;
  }
  if (!model->has_graph()) {
    diags.error(DiagCategory::Invalid, "onnx-invalid", displayName, Loc(),
                "the ONNX model has no graph");
    return nullptr;
  }
  return model;
}

/// Runs `step`, turning a libonnx exception into a diagnostic.
template <typename Step>
static bool guarded(llvm::StringRef displayName, llvm::StringRef id,
                    const llvm::Twine &what, DiagnosticEngine &diags,
                    Step step) {
  try {
    step();
    return true;
  } catch (const std::exception &e) {
    diags.error(DiagCategory::Invalid, id, displayName, Loc(),
                what + ": " + shortMessage(e.what()));
  }
  return false;
}

std::shared_ptr<const onnx::ModelProto>
txc::onnximport::loadOnnxModel(llvm::StringRef bytes,
                               llvm::StringRef displayName,
                               DiagnosticEngine &diags) {
  std::shared_ptr<onnx::ModelProto> model =
      parseModel(bytes, displayName, diags);
  if (!model)
    return nullptr;
  std::optional<int64_t> opset = defaultDomainOpset(*model);
  if (!opset) {
    diags.error(DiagCategory::Invalid, "onnx-invalid", displayName, Loc(),
                "the ONNX model imports no opset of the default domain "
                "(ai.onnx)");
    return nullptr;
  }
  if (*opset > kOnnxTargetOpset || *opset < kOnnxMinOpset) {
    diags.error(DiagCategory::NotRepresentable, "onnx-opset", displayName,
                Loc(),
                "the model uses opset " + llvm::Twine(*opset) +
                    "; txc imports opsets " + llvm::Twine(kOnnxMinOpset) +
                    " to " + llvm::Twine(kOnnxTargetOpset) +
                    " (export with opset_version=" +
                    llvm::Twine(kOnnxTargetOpset) + ")");
    return nullptr;
  }
  if (!guarded(displayName, "onnx-checker", "the ONNX checker rejects the model",
               diags, [&] { onnx::checker::check_model(*model); }))
    return nullptr;
  if (*opset != kOnnxTargetOpset) {
    auto converted = std::make_shared<onnx::ModelProto>();
    if (!guarded(displayName, "onnx-version-converter",
                 "the ONNX version converter cannot convert the model from "
                 "opset " +
                     llvm::Twine(*opset) + " to " +
                     llvm::Twine(kOnnxTargetOpset),
                 diags, [&] {
                   *converted = onnx::version_conversion::ConvertVersion(
                       *model, int(kOnnxTargetOpset));
                 }))
      return nullptr;
    model = std::move(converted);
  }
  // Strict: a node whose types or shapes contradict its op's schema is an
  // error that names the node. Data propagation lets ONNX follow shape
  // computations too (its results are only cross-checked).
  onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1,
                                      /*enable_data_propagation=*/true);
  if (!guarded(displayName, "onnx-shape-inference",
               "ONNX shape inference rejects the model", diags, [&] {
                 onnx::shape_inference::InferShapes(
                     *model, onnx::OpSchemaRegistry::Instance(), options);
               }))
    return nullptr;
  return model;
}

int64_t txc::onnximport::schemaSinceVersion(const onnx::NodeProto &node,
                                            int64_t opset) {
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), int(opset), node.domain());
  return schema ? schema->since_version() : 0;
}
