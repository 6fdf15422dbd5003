//===- SourceFile.h - A program file's bytes and line table -----*- C++ -*-===//
#ifndef TXC_SUPPORT_SOURCEFILE_H
#define TXC_SUPPORT_SOURCEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace txc {

/// The bytes of one input file with a table of line starts, so that a byte
/// offset can be turned into a 1-based line and column.
class SourceFile {
public:
  SourceFile(std::string displayName, std::string contents);

  /// Reads `path` ("-": standard input, named kStdinName) by the rule of
  /// InputFiles.h, refusing more than `maxBytes` bytes. Errors are those of
  /// readInputFile: a reason without the path.
  static llvm::Expected<std::shared_ptr<SourceFile>>
  read(llvm::StringRef path, uint64_t maxBytes);

  llvm::StringRef name() const { return displayName; }
  llvm::StringRef contents() const { return text; }

  /// 1-based line and column (in bytes) of a byte offset. A UTF-8 byte
  /// order mark does not count: it is not part of line 1.
  std::pair<uint32_t, uint32_t> lineAndColumn(uint64_t offset) const;
  /// The text of a 1-based line without its line terminator.
  llvm::StringRef lineText(uint32_t line) const;

private:
  std::string displayName;
  std::string text;
  std::vector<uint64_t> lineStarts;
};

} // namespace txc

#endif // TXC_SUPPORT_SOURCEFILE_H
