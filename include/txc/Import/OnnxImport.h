//===- OnnxImport.h - ONNX models to txc programs ---------------*- C++ -*-===//
//
// `txc import onnx MODEL.onnx -o PROGRAM.json` (docs/onnx.md): reads an ONNX
// model with Debian's libonnx (protobuf classes, checker, version converter,
// shape inference), converts every node with the converter registered for
// its op type and opset, folds the shape arithmetic of exporters on
// symbolic dims, and writes a txc program plus a .safetensors file with the
// initializers. Nothing of libonnx or protobuf appears in this header.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_IMPORT_ONNXIMPORT_H
#define TXC_IMPORT_ONNXIMPORT_H

#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace txc {

/// The opset every model is converted to before its nodes are read; the
/// converters implement the semantics of this opset (docs/onnx.md).
inline constexpr int64_t kOnnxTargetOpset = 17;
/// The oldest default-domain opset accepted (older ones are converted).
inline constexpr int64_t kOnnxMinOpset = 1;
/// The largest .onnx file read (protobuf's limit for one message).
inline constexpr uint64_t kMaxOnnxModelBytes = (2ull << 30) - 1;
/// Initializers of at most this many elements stay inline in the program;
/// larger ones go to the weights file.
inline constexpr int64_t kMaxInlineInitializerElements = 16;

struct OnnxImportOptions {
  /// The model file; tensors' external data is found relative to its
  /// directory (none is read when it is empty).
  std::string modelPath;
  std::string outputPath;
  /// Default: the output's path with the extension .safetensors.
  std::string weightsPath;
  /// "NAME=MIN:MAX[:MULTIPLE]" for a dim_param of the model (--dim).
  std::vector<std::string> dims;
  /// "NAME=VALUE": the dim_param is the static dim VALUE (--static).
  std::vector<std::string> statics;
  /// The program's name; default: the model file's stem, made an identifier.
  std::string programName;
  /// Directories outside the model's own where external data files may be
  /// (--allow-weights-outside), as for txc's weights files.
  std::vector<std::string> allowedWeightsDirs;
};

/// What an import produced, before anything is written.
struct OnnxImportResult {
  std::string programJson;
  /// The .safetensors file's bytes; empty when no initializer is stored.
  std::string weights;
  /// The weights file name as the program refers to it.
  std::string weightsFileName;
};

/// Imports a model from its serialized bytes. `displayName` names the model
/// in diagnostics; `weightsFileName` is what the program's constants write
/// as their `file`. Every problem is reported to `diags`.
std::optional<OnnxImportResult>
importOnnxModel(llvm::StringRef modelBytes, llvm::StringRef displayName,
                const OnnxImportOptions &options,
                llvm::StringRef weightsFileName, DiagnosticEngine &diags);

/// The ONNX op types (of the default domain) the importer has a converter
/// for, sorted: the ops docs/onnx.md's "Supported ops" table lists.
std::vector<std::string> supportedOnnxOps();

/// The `txc import onnx` job: reads the model, imports it and writes the
/// program and the weights atomically. Returns the exit code.
int runOnnxImport(const OnnxImportOptions &options, DiagnosticEngine &diags);

} // namespace txc

#endif
