//===- OutputFiles.h - All-or-nothing writing of output files ---*- C++ -*-===//
//
// txc never leaves a partial output behind: every output is first written to
// a temporary file next to its destination, and only when all of them were
// written are they renamed into place. On any error the temporaries are
// removed and existing files at the destinations are left untouched.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_SUPPORT_OUTPUTFILES_H
#define TXC_SUPPORT_OUTPUTFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace txc {

class OutputFileSet {
public:
  /// Queues `contents` to be written to `path` ("-" means standard output).
  void add(llvm::StringRef path, std::string contents);
  /// Writes every queued file atomically. On failure nothing is renamed.
  llvm::Error commit();

private:
  struct Pending {
    std::string path;
    std::string contents;
  };
  std::vector<Pending> pending;
};

/// Writes one file atomically (temp file + rename).
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

} // namespace txc

#endif
