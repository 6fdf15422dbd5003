//===- OnnxModel.h - Parse, check, convert and infer an ONNX model *- C++ -*-===//
#ifndef TXC_LIB_IMPORT_ONNXMODEL_H
#define TXC_LIB_IMPORT_ONNXMODEL_H

#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>

namespace txc {
struct OnnxImportOptions;
}

namespace txc::onnximport {

/// Parses the model, reads its tensors' external data (relative to
/// `options.modelPath`, under txc's weights-file path rules), runs the
/// ONNX checker, converts it to kOnnxTargetOpset and runs ONNX shape
/// inference (strict). Reports the problems and returns null.
std::shared_ptr<const onnx::ModelProto>
loadOnnxModel(llvm::StringRef bytes, llvm::StringRef displayName,
              const OnnxImportOptions &options, DiagnosticEngine &diags);

/// Copies the external data of every tensor of the model (initializers,
/// attribute tensors, subgraphs) into its raw_data (ExternalData.cpp).
/// Reports each problem, naming the tensor; false if there was one.
bool inlineExternalData(onnx::ModelProto &model,
                        const OnnxImportOptions &options,
                        llvm::StringRef displayName, DiagnosticEngine &diags);

/// `text`, or, when it is not valid UTF-8 or has control characters, the
/// text with each such byte written as \xNN (for messages and names).
std::string printable(llvm::StringRef text);

/// The version of the default-domain opset the model imports.
std::optional<int64_t> defaultDomainOpset(const onnx::ModelProto &model);

/// The since_version of the schema a node follows at `opset` (0 if the op
/// is unknown to libonnx).
int64_t schemaSinceVersion(const onnx::NodeProto &node, int64_t opset);

} // namespace txc::onnximport

#endif
