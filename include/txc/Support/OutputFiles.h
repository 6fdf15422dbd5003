//===- OutputFiles.h - All-or-nothing writing of output files ---*- C++ -*-===//
//
// txc never leaves a partial output behind, and never damages what an
// output path names. Like clang (CompilerInstance::createOutputFile), each
// destination is looked at first:
//
//  * a regular file, or a path that does not exist yet, is replaced
//    atomically: the output is written to a temporary file next to it and
//    renamed over it once every output is complete. For a symbolic link the
//    file replaced is the link's final target (the temporary file is made
//    next to the target), so the link stays a link; a dangling link gets
//    its target created. A file txc may not write (mode 0444 for a user
//    other than root) is an error, not replaced;
//  * "-" (standard output), a character device (/dev/null), a FIFO, a
//    socket, and a path through /proc's links to open files (/dev/stdout,
//    /dev/fd/N) are written in place: opened for writing without creating
//    or truncating anything;
//  * a directory is an error.
//
// All or nothing: no destination is touched before every temporary file is
// complete; then the outputs written in place are written (they cannot be
// taken back, so they come after everything that can fail first); then the
// temporaries are renamed. If writing in place fails, nothing is renamed.
//
// Small outputs are queued as strings. Large ones (an object with a
// gigabyte of weights, the external weights blob) are never held in memory:
// either a writer function produces them at commit time, or they are
// streamed into a temporary file before commit (addStreamed).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_SUPPORT_OUTPUTFILES_H
#define TXC_SUPPORT_OUTPUTFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace txc {

/// Where the bytes of one output go.
struct OutputDestination {
  enum class Kind {
    Replace, ///< `file` is replaced atomically (temporary file + rename)
    InPlace, ///< `file` is opened and written as it is
    Stdout,  ///< "-"
  };
  Kind kind = Kind::Replace;
  /// Replace: the regular file or new path (a link's final target);
  /// InPlace: the path to open.
  std::string file;
};

/// How `path` would be written; an error for a directory, a loop of
/// symbolic links, or a path that cannot be looked at.
llvm::Expected<OutputDestination> resolveOutputDestination(llvm::StringRef path);

class OutputFileSet {
public:
  using Writer = std::function<llvm::Error(llvm::raw_ostream &)>;

  /// The temporary file of an output written before commit(): next to the
  /// file it replaces, or in the system's temporary directory for an
  /// output written in place (copied into it at commit).
  class Streamed {
  public:
    /// A seekable stream on the temporary file (what code generation needs).
    llvm::raw_fd_ostream &stream() { return *os; }
    /// The temporary file's descriptor, for reading back and pwrite.
    int fd() const { return temp->FD; }
    const std::string &path() const { return destination; }

  private:
    friend class OutputFileSet;
    std::string destination;
    OutputDestination where;
    std::optional<llvm::sys::fs::TempFile> temp;
    std::unique_ptr<llvm::raw_fd_ostream> os;
  };

  OutputFileSet() = default;
  OutputFileSet(const OutputFileSet &) = delete;
  OutputFileSet &operator=(const OutputFileSet &) = delete;
  /// Removes the temporary files of a set that was not committed.
  ~OutputFileSet();

  /// Queues `contents` to be written to `path` ("-" means standard output).
  void add(llvm::StringRef path, std::string contents);
  /// Queues an output that `write` produces when commit() writes the files.
  void addWriter(llvm::StringRef path, Writer write);
  /// Resolves `path` and creates its temporary file now, for an output
  /// written through the returned object before commit().
  llvm::Expected<Streamed *> addStreamed(llvm::StringRef path);
  /// Writes every queued output (see the file comment for the order). On
  /// failure nothing is renamed.
  llvm::Error commit();

private:
  struct Pending {
    std::string path;
    std::string contents;
    Writer writer;
    std::unique_ptr<Streamed> streamed;
  };
  struct Prepared;
  llvm::Error writeInPlace(Pending &file, const OutputDestination &where);
  void discardStreamed();
  std::vector<Pending> pending;
};

/// Whether `path` is written in place ("-", a device, a FIFO): several
/// outputs may then name it, since none replaces another.
bool isWrittenInPlace(llvm::StringRef path);

} // namespace txc

#endif
