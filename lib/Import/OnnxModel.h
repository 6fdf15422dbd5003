//===- OnnxModel.h - Parse, check, convert and infer an ONNX model *- C++ -*-===//
#ifndef TXC_LIB_IMPORT_ONNXMODEL_H
#define TXC_LIB_IMPORT_ONNXMODEL_H

#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>

namespace txc::onnximport {

/// Parses the model, runs the ONNX checker, converts it to
/// kOnnxTargetOpset and runs ONNX shape inference (strict). Reports the
/// first problem and returns null.
std::shared_ptr<const onnx::ModelProto>
loadOnnxModel(llvm::StringRef bytes, llvm::StringRef displayName,
              DiagnosticEngine &diags);

/// The version of the default-domain opset the model imports.
std::optional<int64_t> defaultDomainOpset(const onnx::ModelProto &model);

/// The since_version of the schema a node follows at `opset` (0 if the op
/// is unknown to libonnx).
int64_t schemaSinceVersion(const onnx::NodeProto &node, int64_t opset);

} // namespace txc::onnximport

#endif
