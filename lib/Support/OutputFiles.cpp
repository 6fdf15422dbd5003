//===- OutputFiles.cpp ----------------------------------------------------===//
#include "txc/Support/OutputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace txc;

void OutputFileSet::add(llvm::StringRef path, std::string contents) {
  pending.push_back({path.str(), std::move(contents)});
}

static llvm::Expected<llvm::sys::fs::TempFile>
writeTemp(llvm::StringRef path, llvm::StringRef contents) {
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%%%";
  auto temp = llvm::sys::fs::TempFile::create(model, /*Mode=*/0644);
  if (!temp) {
    std::error_code ec = llvm::errorToErrorCode(temp.takeError());
    return llvm::createStringError(
        ec, "cannot create a temporary file next to '%s': %s",
        path.str().c_str(), ec.message().c_str());
  }
  llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
  os << contents;
  os.flush();
  if (os.has_error()) {
    std::error_code ec = os.error();
    os.clear_error();
    llvm::consumeError(temp->discard());
    return llvm::createStringError(ec, "cannot write '%s': %s",
                                   path.str().c_str(), ec.message().c_str());
  }
  return std::move(*temp);
}

llvm::Error OutputFileSet::commit() {
  std::vector<std::pair<llvm::sys::fs::TempFile, std::string>> temps;
  auto discardAll = [&]() {
    for (auto &entry : temps)
      llvm::consumeError(entry.first.discard());
  };
  // Once the temporaries exist, renaming one onto a directory is the only
  // likely failure; rule it out first, so that no destination is replaced
  // when another cannot be.
  for (Pending &file : pending)
    if (file.path != "-" && llvm::sys::fs::is_directory(file.path))
      return llvm::createStringError(
          std::make_error_code(std::errc::is_a_directory),
          "cannot write '%s': it is a directory", file.path.c_str());
  for (Pending &file : pending) {
    if (file.path == "-")
      continue;
    auto temp = writeTemp(file.path, file.contents);
    if (!temp) {
      discardAll();
      return temp.takeError();
    }
    temps.emplace_back(std::move(*temp), file.path);
  }
  for (auto &entry : temps) {
    if (llvm::Error err = entry.first.keep(entry.second)) {
      std::error_code ec = llvm::errorToErrorCode(std::move(err));
      discardAll();
      return llvm::createStringError(ec, "cannot write '%s': %s",
                                     entry.second.c_str(),
                                     ec.message().c_str());
    }
  }
  for (Pending &file : pending)
    if (file.path == "-")
      llvm::outs() << file.contents;
  llvm::outs().flush();
  pending.clear();
  return llvm::Error::success();
}

llvm::Error txc::writeFileAtomically(llvm::StringRef path,
                                     llvm::StringRef contents) {
  OutputFileSet set;
  set.add(path, contents.str());
  return set.commit();
}
