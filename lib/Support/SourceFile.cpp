//===- SourceFile.cpp -----------------------------------------------------===//
#include "txc/Support/SourceFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

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
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return llvm::createStringError(ec, "cannot open '%s': %s",
                                   path.str().c_str(), ec.message().c_str());
  if (llvm::sys::fs::is_directory(status))
    return llvm::createStringError(
        std::make_error_code(std::errc::is_a_directory),
        "cannot read '%s': it is a directory", path.str().c_str());
  if (status.getSize() > maxBytes)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "'%s' is %llu bytes, over the limit of %llu bytes", path.str().c_str(),
        (unsigned long long)status.getSize(), (unsigned long long)maxBytes);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s': %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  // The size is checked again: the file may have grown since stat().
  if ((*buffer)->getBufferSize() > maxBytes)
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "'%s' is over the limit of %llu bytes", path.str().c_str(),
        (unsigned long long)maxBytes);
  return std::make_shared<SourceFile>(path.str(),
                                      (*buffer)->getBuffer().str());
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
