//===- WeightsFile.h - .npy and .safetensors weights files ------*- C++ -*-===//
//
// Constants may take their bytes from a weights file next to the program
// (docs/program-format.md, "Weights files"):
//
//   {"name": "W", "dtype": "f32", "shape": [4, 3],
//    "file": "weights.safetensors", "tensor": "fc1.weight"}
//
// A weights file is resolved relative to the program's directory under a
// path policy (no absolute paths, no `..` out of the directory, no symbolic
// links, unless --allow-weights-outside names a directory that holds the
// file), opened once with O_NOFOLLOW, mapped into memory (never copied),
// and checked whole before any constant uses it: the size, the header
// length, the header's syntax, each tensor's dtype string, that its shape
// and dtype need exactly its byte range, that every range lies inside the
// file, and that no two ranges overlap.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_FRONTEND_WEIGHTSFILE_H
#define TXC_FRONTEND_WEIGHTSFILE_H

#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
}

namespace txc {

/// A problem with a weights file, with the category (and so the exit code)
/// and the diagnostic id it is reported under.
class WeightsFileError : public llvm::ErrorInfo<WeightsFileError> {
public:
  static char ID;

  WeightsFileError(DiagCategory category, std::string id, std::string message)
      : category(category), id(std::move(id)), message(std::move(message)) {}

  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  DiagCategory category;
  std::string id;
  std::string message;
};

/// Resolves the path a program gives for a weights file. `programPath` is
/// the program file's path; relative weights paths are relative to its
/// directory. Returns the path to open. Absolute paths, paths that leave
/// the program's directory and paths through a symbolic link are rejected
/// (DiagCategory::Invalid, id "weights-path") unless the file's real path
/// lies inside one of `allowedDirs`. `owner` names the file that refers
/// to the weights in messages ("program", or "model" for ONNX external
/// data).
llvm::Expected<std::string>
resolveWeightsPath(llvm::StringRef programPath, llvm::StringRef written,
                   llvm::ArrayRef<std::string> allowedDirs,
                   llvm::StringRef owner = "program");

/// Opens the file at `path` once, without following a final symbolic
/// link, checks that it is a regular file and maps it read-only (the bytes
/// are read only when touched). `displayName` names it in messages.
/// Problems are DiagCategory::IO with id "weights-io".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapWeightsFile(llvm::StringRef path, llvm::StringRef displayName);

class WeightsFile {
public:
  enum class Format { Npy, Safetensors };

  /// One tensor of the file.
  struct Entry {
    std::string name;           ///< the safetensors key; "" in a .npy file
    std::string dtypeText;      ///< as the file writes it ("F32", "<f4")
    std::optional<DType> dtype; ///< none for dtypes txc has not (U16, F8_*)
    std::vector<int64_t> shape;
    uint64_t offset = 0; ///< of the first byte in the file
    uint64_t size = 0;   ///< bytes
  };

  /// The format of a path by its extension (.npy, .safetensors).
  static std::optional<Format> formatOf(llvm::StringRef path);

  /// Opens (once, without following a final symbolic link), maps and
  /// checks the file at `path`. `displayName` is the path as the program
  /// writes it, used in messages. I/O problems are DiagCategory::IO with id
  /// "weights-io"; a file that is not valid is DiagCategory::IO with id
  /// "weights-format".
  static llvm::Expected<std::unique_ptr<WeightsFile>>
  open(llvm::StringRef path, llvm::StringRef displayName, Format format);
  /// Checks the bytes of a weights file already in memory, as open() does
  /// those it maps (the libFuzzer harnesses call it).
  static llvm::Expected<std::unique_ptr<WeightsFile>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
             llvm::StringRef displayName, Format format);

  ~WeightsFile();

  Format format() const { return fileFormat; }
  llvm::StringRef displayName() const { return name; }
  llvm::ArrayRef<Entry> entries() const { return tensors; }
  /// The tensor called `tensorName`; the only one of a .npy file.
  const Entry *find(llvm::StringRef tensorName) const;
  /// The entry's bytes, sharing the file's mapping.
  Blob bytes(const Entry &entry) const;

private:
  WeightsFile() = default;

  Format fileFormat = Format::Npy;
  std::string name;
  std::shared_ptr<llvm::MemoryBuffer> buffer;
  std::vector<Entry> tensors;
};

/// The number of bytes of one element of a safetensors dtype string
/// ("F32" -> 4), and the txc dtype it is, if any.
std::optional<unsigned> safetensorsDTypeSize(llvm::StringRef dtype);
std::optional<DType> safetensorsDType(llvm::StringRef dtype);
/// The safetensors dtype string of a txc dtype ("F32", "BOOL").
llvm::StringRef safetensorsDTypeName(DType dtype);

} // namespace txc

#endif
