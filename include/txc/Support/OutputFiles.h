//===- OutputFiles.h - All-or-nothing writing of output files ---*- C++ -*-===//
//
// txc never leaves a partial output behind: every output is first written to
// a temporary file next to its destination, and only when all of them were
// written are they renamed into place. On any error the temporaries are
// removed and existing files at the destinations are left untouched.
//
// Small outputs are queued as strings. Large ones (an object with a
// gigabyte of weights, the external weights blob) are never held in memory:
// either a writer function produces them at commit time, or they are
// streamed into their temporary file before commit (addStreamed).
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

class OutputFileSet {
public:
  using Writer = std::function<llvm::Error(llvm::raw_ostream &)>;

  /// The temporary file of an output written before commit().
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
  /// Queues an output that `write` produces when commit() writes the files
  /// (not for "-").
  void addWriter(llvm::StringRef path, Writer write);
  /// Creates the temporary file of `path` now, for an output written
  /// through the returned object before commit() (not for "-").
  llvm::Expected<Streamed *> addStreamed(llvm::StringRef path);
  /// Writes every queued file atomically. On failure nothing is renamed.
  llvm::Error commit();

private:
  struct Pending {
    std::string path;
    std::string contents;
    Writer writer;
    std::unique_ptr<Streamed> streamed;
  };
  void discardStreamed();
  std::vector<Pending> pending;
};

/// Writes one file atomically (temp file + rename).
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

} // namespace txc

#endif
