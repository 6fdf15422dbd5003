//===- InputFiles.h - The one rule for opening files txc reads --*- C++ -*-===//
//
// Every file txc reads (programs, manifests, calls files, weights files,
// `txc run` inputs, compile-cache entries) is opened here, by one rule:
//
//  * opened with O_NONBLOCK, so that opening a FIFO cannot hang, then the
//    *opened* descriptor is fstat()ed, so that the checks and the bytes are
//    of the same file even if the path changes meanwhile;
//  * only regular files are read: a directory, a FIFO, a device (a symbolic
//    link to /dev/zero, /dev/stdin on a pipe) or a socket is refused before
//    any byte is read. The exception is the path "-", standard input, for
//    the readers that accept it;
//  * a regular file larger than the limit is refused before reading (its
//    size is known); standard input is read in chunks and refused as soon
//    as it exceeds the limit, never read to the end first.
//
// docs/cli.md ("Input files") describes the rule for users.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_SUPPORT_INPUTFILES_H
#define TXC_SUPPORT_INPUTFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <system_error>

namespace txc {

/// The path that names standard input (or output) on the command line.
inline constexpr llvm::StringLiteral kStdioPath = "-";
/// How diagnostics name standard input.
inline constexpr llvm::StringLiteral kStdinName = "<stdin>";

/// The name diagnostics give the input `path`: kStdinName for "-".
inline llvm::StringRef inputDisplayName(llvm::StringRef path) {
  return path == kStdioPath ? llvm::StringRef(kStdinName) : path;
}

/// What a reader accepts.
struct InputPolicy {
  /// A larger file is refused (std::errc::file_too_large).
  uint64_t maxBytes = std::numeric_limits<uint64_t>::max();
  /// "-" reads standard input. Otherwise "-" is refused: the reader needs
  /// a regular file.
  bool allowStdin = false;
  /// Refuse a final symbolic link ("it is a symbolic link") instead of
  /// following it.
  bool followSymlinks = true;
};

/// The bytes of `path`, read by the rule above. Errors carry a reason
/// without the path ("it is a FIFO, not a regular file") and an error code
/// (file_too_large for the limit, is_a_directory, the errno of open()).
llvm::Expected<std::string> readInputFile(llvm::StringRef path,
                                          const InputPolicy &policy);

/// The bytes of the regular file `path`, mapped (or read, if small) rather
/// than copied: for weights files of gigabytes. Never standard input.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mapInputFile(llvm::StringRef path, const InputPolicy &policy);

/// A failed read's error code and reason, taken out of the error.
struct InputError {
  std::error_code code;
  std::string reason;
};
InputError takeInputError(llvm::Error error);

} // namespace txc

#endif // TXC_SUPPORT_INPUTFILES_H
