//===- SourceFile.cpp -----------------------------------------------------===//
#include "txc/Support/SourceFile.h"

#include "txc/Support/InputFiles.h"

#include <algorithm>

using namespace txc;

SourceFile::SourceFile(std::string displayName, std::string contents)
    : displayName(std::move(displayName)), text(std::move(contents)) {
  lineStarts.push_back(0);
  for (uint64_t i = 0, e = text.size(); i != e; ++i)
    if (text[i] == '\n')
      lineStarts.push_back(i + 1);
}

llvm::Expected<std::shared_ptr<SourceFile>>
SourceFile::read(llvm::StringRef path, uint64_t maxBytes) {
  InputPolicy policy;
  policy.maxBytes = maxBytes;
  policy.allowStdin = true;
  auto bytes = readInputFile(path, policy);
  if (!bytes)
    return bytes.takeError();
  return std::make_shared<SourceFile>(inputDisplayName(path).str(),
                                      std::move(*bytes));
}

/// A UTF-8 byte order mark is not part of the first line's text: editors do
/// not show it, so columns on line 1 are counted after it.
static uint64_t bomSize(llvm::StringRef text) {
  return text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
}

std::pair<uint32_t, uint32_t> SourceFile::lineAndColumn(uint64_t offset) const {
  offset = std::min<uint64_t>(offset, text.size());
  auto it = std::upper_bound(lineStarts.begin(), lineStarts.end(), offset);
  size_t lineIndex = (it - lineStarts.begin()) - 1;
  uint64_t lineStart = lineStarts[lineIndex];
  if (lineIndex == 0)
    lineStart = std::min(offset, bomSize(text));
  return {uint32_t(lineIndex + 1), uint32_t(offset - lineStart + 1)};
}

llvm::StringRef SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts.size())
    return {};
  uint64_t begin = line == 1 ? bomSize(text) : lineStarts[line - 1];
  uint64_t end = line < lineStarts.size() ? lineStarts[line] : text.size();
  llvm::StringRef result(text.data() + begin, end - begin);
  return result.rtrim("\r\n");
}
