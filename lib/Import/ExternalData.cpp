//===- ExternalData.cpp - Tensors whose bytes are in other files ----------===//
//
// ONNX may keep a tensor's bytes outside the .onnx file: `data_location:
// EXTERNAL` and the `external_data` entries `location` (a path relative to
// the model's directory), `offset` and `length` (decimal strings). ONNX's
// own loaders joined `location` to the model's directory unchecked, so a
// model could read any file (CVE-2022-25882: "../../etc/passwd";
// CVE-2024-27318: "sub/../../etc/passwd" past a fix that stripped leading
// dots) or past a file's end. txc resolves `location` exactly as it
// resolves a program's weights files (resolveWeightsPath: inside the
// model's directory, no absolute paths, no `..` out of it, no symbolic
// links, unless --allow-weights-outside names a directory that holds the
// file), opens each file once without following links, and checks the
// byte range against the file's size and the tensor's dims before reading
// it.
//
// The bytes are copied into the tensor's raw_data before libonnx's checker
// sees the model: libonnx 1.12's checker would otherwise stat() `location`
// relative to the working directory, and its version converter does not
// carry external data over.
//
//===----------------------------------------------------------------------===//
#include "OnnxModel.h"

#include "Importer.h"

#include "txc/Frontend/WeightsFile.h"
#include "txc/Import/OnnxImport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

using namespace txc;
using namespace txc::onnximport;

namespace {

/// Where one tensor's bytes are, as its external_data entries say.
struct ExternalDataRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

llvm::Error invalid(const llvm::Twine &message) {
  return llvm::make_error<WeightsFileError>(
      DiagCategory::Invalid, "onnx-external-data", message.str());
}

/// A decimal string of digits only (ONNX writes offset and length so).
std::optional<uint64_t> parseDecimal(llvm::StringRef text) {
  uint64_t value;
  if (text.empty() || !llvm::all_of(text, llvm::isDigit) ||
      text.getAsInteger(10, value))
    return std::nullopt;
  return value;
}

llvm::Expected<ExternalDataRef> parseRef(const onnx::TensorProto &tensor) {
  ExternalDataRef ref;
  std::set<std::string> seen;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    if (!seen.insert(key).second)
      return invalid("has the external_data key '" + printable(key) +
                     "' twice");
    if (key == "location") {
      ref.location = entry.value();
    } else if (key == "offset" || key == "length") {
      std::optional<uint64_t> value = parseDecimal(entry.value());
      if (!value)
        return invalid("has the external_data " + key + " '" +
                       printable(entry.value()) +
                       "', which is not a non-negative decimal integer");
      if (key == "offset")
        ref.offset = *value;
      else
        ref.length = *value;
    } else if (key != "checksum" && key != "basepath") {
      // checksum is advisory and basepath a loader's hint: neither
      // changes where the bytes are.
      return invalid("has the unknown external_data key '" + printable(key) +
                     "' (ONNX's are location, offset, length, checksum)");
    }
  }
  if (ref.location.empty())
    return invalid("keeps its data in an external file but has no "
                   "external_data location");
  if (ref.location.find('\0') != std::string::npos)
    return invalid("has an external_data location with a NUL byte");
  if (tensor.has_raw_data())
    return invalid("has both raw_data and external data");
  return ref;
}

/// A weights-file error of the external data's file, said of the tensor.
llvm::Error unreadable(llvm::Error error) {
  return llvm::handleErrors(
      std::move(error), [](const WeightsFileError &problem) -> llvm::Error {
        return llvm::make_error<WeightsFileError>(
            problem.category, problem.id,
            "keeps its data in an external file: " +
                problem.message);
      });
}

/// The bytes the tensor's dims and element type need, when both are
/// valid (readTensorProto reports them otherwise).
std::optional<uint64_t> neededBytes(const onnx::TensorProto &tensor) {
  std::optional<DType> dtype = dtypeOfOnnx(tensor.data_type());
  if (!dtype)
    return std::nullopt;
  uint64_t count = 1;
  for (int64_t dim : tensor.dims())
    if (dim < 0 || __builtin_mul_overflow(count, uint64_t(dim), &count) ||
        count > uint64_t(ProgramLimits::kMaxTensorBytes))
      return std::nullopt;
  return count * dtypeSize(*dtype);
}

/// Reads the external data of a model's tensors into their raw_data.
class ExternalDataReader {
public:
  ExternalDataReader(const OnnxImportOptions &options,
                     llvm::StringRef displayName, DiagnosticEngine &diags)
      : options(options), displayName(displayName), diags(diags) {}

  void inlineGraph(onnx::GraphProto &graph, const std::string &pointer);

private:
  void inlineNode(onnx::NodeProto &node, unsigned index,
                  const std::string &pointer);
  void inlineTensor(onnx::TensorProto &tensor, const std::string &what,
                    const std::string &pointer);
  llvm::Error readInto(onnx::TensorProto &tensor);
  llvm::Expected<const llvm::MemoryBuffer *> open(llvm::StringRef location);

  const OnnxImportOptions &options;
  llvm::StringRef displayName;
  DiagnosticEngine &diags;
  /// Each file once, by its resolved path.
  std::map<std::string, std::shared_ptr<llvm::MemoryBuffer>> files;
};

llvm::Expected<const llvm::MemoryBuffer *>
ExternalDataReader::open(llvm::StringRef location) {
  if (options.modelPath.empty())
    return invalid("keeps its data in the external file '" +
                   printable(location) +
                   "', but the model was not read from a file");
  llvm::Expected<std::string> path = resolveWeightsPath(
      options.modelPath, location, options.allowedWeightsDirs, "model");
  if (!path)
    return unreadable(path.takeError());
  auto it = files.find(*path);
  if (it == files.end()) {
    auto buffer = mapWeightsFile(*path, printable(location));
    if (!buffer)
      return unreadable(buffer.takeError());
    it = files.emplace(*path, std::move(*buffer)).first;
  }
  return it->second.get();
}

llvm::Error ExternalDataReader::readInto(onnx::TensorProto &tensor) {
  llvm::Expected<ExternalDataRef> ref = parseRef(tensor);
  if (!ref)
    return ref.takeError();
  llvm::Expected<const llvm::MemoryBuffer *> file = open(ref->location);
  if (!file)
    return file.takeError();
  std::string name = "'" + printable(ref->location) + "'";
  uint64_t size = (*file)->getBufferSize();
  if (ref->offset > size)
    return invalid("has its external data at offset " +
                   llvm::Twine(ref->offset) + ", past the end of " + name +
                   " (" + llvm::Twine(size) + " bytes)");
  uint64_t length = ref->length.value_or(size - ref->offset);
  std::string where = std::to_string(length) + " bytes at offset " +
                      std::to_string(ref->offset) + " of " + name;
  if (length > size - ref->offset)
    return invalid("has its external data in the " + where + ", which has " +
                   llvm::Twine(size) +
                   " bytes: the file is truncated or the offset or length "
                   "is wrong");
  std::optional<uint64_t> needed = neededBytes(tensor);
  if (needed && length != *needed)
    return invalid("has its external data in the " + where +
                   ", but its dims and element type need " +
                   llvm::Twine(*needed) + " bytes" +
                   (!ref->length && length < *needed
                        ? ": the file is truncated"
                        : ""));
  tensor.set_raw_data((*file)->getBufferStart() + ref->offset, length);
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return llvm::Error::success();
}

void ExternalDataReader::inlineTensor(onnx::TensorProto &tensor,
                                      const std::string &what,
                                      const std::string &pointer) {
  if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
    return;
  llvm::handleAllErrors(readInto(tensor), [&](const WeightsFileError &error) {
    Loc loc;
    loc.pointer = pointer;
    diags.error(error.category, error.id, displayName, loc,
                what + " " + error.message);
  });
}

void ExternalDataReader::inlineNode(onnx::NodeProto &node, unsigned index,
                                    const std::string &pointer) {
  for (int a = 0; a < node.attribute_size(); ++a) {
    onnx::AttributeProto &attr = *node.mutable_attribute(a);
    std::string at = pointer + "/attribute/" + std::to_string(a);
    std::string what = "the tensor of attribute '" + printable(attr.name()) +
                       "' of node " + nodeLabel(node, index);
    if (attr.has_t())
      inlineTensor(*attr.mutable_t(), what, at + "/t");
    for (int i = 0; i < attr.tensors_size(); ++i)
      inlineTensor(*attr.mutable_tensors(i), what,
                   at + "/tensors/" + std::to_string(i));
    if (attr.has_g())
      inlineGraph(*attr.mutable_g(), at + "/g");
    for (int i = 0; i < attr.graphs_size(); ++i)
      inlineGraph(*attr.mutable_graphs(i), at + "/graphs/" + std::to_string(i));
  }
}

void ExternalDataReader::inlineGraph(onnx::GraphProto &graph,
                                     const std::string &pointer) {
  for (int i = 0; i < graph.initializer_size(); ++i) {
    onnx::TensorProto &tensor = *graph.mutable_initializer(i);
    inlineTensor(tensor, "initializer '" + printable(tensor.name()) + "'",
                 pointer + "/initializer/" + std::to_string(i));
  }
  for (int i = 0; i < graph.sparse_initializer_size(); ++i) {
    onnx::SparseTensorProto &sparse = *graph.mutable_sparse_initializer(i);
    std::string at = pointer + "/sparse_initializer/" + std::to_string(i);
    inlineTensor(*sparse.mutable_values(), "sparse initializer values",
                 at + "/values");
    inlineTensor(*sparse.mutable_indices(), "sparse initializer indices",
                 at + "/indices");
  }
  for (int i = 0; i < graph.node_size(); ++i)
    inlineNode(*graph.mutable_node(i), i,
               pointer + "/node/" + std::to_string(i));
}

} // namespace

bool txc::onnximport::inlineExternalData(onnx::ModelProto &model,
                                         const OnnxImportOptions &options,
                                         llvm::StringRef displayName,
                                         DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.errorCount();
  ExternalDataReader reader(options, displayName, diags);
  reader.inlineGraph(*model.mutable_graph(), "/graph");
  return diags.errorCount() == errorsBefore;
}
