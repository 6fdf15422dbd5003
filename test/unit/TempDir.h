//===- TempDir.h - A temporary directory for unit tests ---------*- C++ -*-===//
#ifndef TXC_TEST_UNIT_TEMPDIR_H
#define TXC_TEST_UNIT_TEMPDIR_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace txc::test {

/// A fresh directory under the system's temporary directory, removed at the
/// end of the test.
class TempDir {
public:
  explicit TempDir(llvm::StringRef prefix = "txc-test") {
    std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, path);
    EXPECT_FALSE(ec) << ec.message();
  }
  // std::filesystem rather than llvm::sys::fs::remove_directories: LLVM's
  // leaves the directory behind when it holds a FIFO (the output tests
  // make some), and every unit-test run then left directories in /tmp.
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(std::string(path), ec);
  }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<256> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  void write(llvm::StringRef name, llvm::StringRef bytes) const {
    std::error_code ec;
    llvm::raw_fd_ostream os(file(name), ec);
    ASSERT_FALSE(ec) << ec.message();
    os << bytes;
  }

  llvm::SmallString<256> path;
};

} // namespace txc::test

#endif // TXC_TEST_UNIT_TEMPDIR_H
