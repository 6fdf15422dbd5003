//===- FuzzerCommon.cpp - What the libFuzzer harnesses share --------------===//
#include "FuzzerCommon.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <fstream>

using namespace txc::fuzz;

ScratchFiles &ScratchFiles::get() {
  static ScratchFiles files;
  return files;
}

ScratchFiles::ScratchFiles() {
  llvm::SmallString<128> path;
  check(!llvm::sys::fs::createUniqueDirectory("txc-fuzz", path),
        "cannot create the scratch directory");
  directory = std::string(path);
}

ScratchFiles::~ScratchFiles() {
  llvm::sys::fs::remove_directories(directory, /*IgnoreErrors=*/true);
}

std::string ScratchFiles::write(llvm::StringRef name,
                                llvm::StringRef contents) {
  llvm::SmallString<128> path(directory);
  llvm::sys::path::append(path, name);
  std::ofstream out(std::string(path), std::ios::binary | std::ios::trunc);
  out.write(contents.data(), std::streamsize(contents.size()));
  out.close();
  check(out.good(), "cannot write a scratch file");
  return std::string(path);
}
