//===- OutputFiles.cpp ----------------------------------------------------===//
#include "txc/Support/OutputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace txc;

void OutputFileSet::add(llvm::StringRef path, std::string contents) {
  pending.push_back({path.str(), std::move(contents), nullptr, nullptr});
}

void OutputFileSet::addWriter(llvm::StringRef path, Writer write) {
  pending.push_back({path.str(), std::string(), std::move(write), nullptr});
}

static llvm::Error cannotWrite(llvm::StringRef path, std::error_code ec) {
  return llvm::createStringError(ec, "cannot write '%s': %s",
                                 path.str().c_str(), ec.message().c_str());
}

static llvm::Error notADirectory(llvm::StringRef path) {
  return llvm::createStringError(
      std::make_error_code(std::errc::is_a_directory),
      "cannot write '%s': it is a directory", path.str().c_str());
}

static llvm::Expected<llvm::sys::fs::TempFile>
createTemp(llvm::StringRef path) {
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%%%";
  auto temp = llvm::sys::fs::TempFile::create(model, /*Mode=*/0644);
  if (!temp) {
    std::error_code ec = llvm::errorToErrorCode(temp.takeError());
    return llvm::createStringError(
        ec, "cannot create a temporary file next to '%s': %s",
        path.str().c_str(), ec.message().c_str());
  }
  return std::move(*temp);
}

llvm::Expected<OutputFileSet::Streamed *>
OutputFileSet::addStreamed(llvm::StringRef path) {
  if (llvm::sys::fs::is_directory(path))
    return notADirectory(path);
  auto temp = createTemp(path);
  if (!temp)
    return temp.takeError();
  auto streamed = std::make_unique<Streamed>();
  streamed->destination = path.str();
  streamed->temp.emplace(std::move(*temp));
  streamed->os = std::make_unique<llvm::raw_fd_ostream>(streamed->temp->FD,
                                                        /*shouldClose=*/false);
  Streamed *result = streamed.get();
  pending.push_back({path.str(), std::string(), nullptr, std::move(streamed)});
  return result;
}

void OutputFileSet::discardStreamed() {
  for (Pending &file : pending)
    if (file.streamed && file.streamed->temp) {
      file.streamed->os.reset();
      llvm::consumeError(file.streamed->temp->discard());
      file.streamed->temp.reset();
    }
}

OutputFileSet::~OutputFileSet() { discardStreamed(); }

/// Writes one queued output into a new temporary file.
static llvm::Expected<llvm::sys::fs::TempFile>
writeTemp(llvm::StringRef path, llvm::StringRef contents,
          const OutputFileSet::Writer &writer) {
  auto temp = createTemp(path);
  if (!temp)
    return temp.takeError();
  llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
  llvm::Error written = llvm::Error::success();
  if (writer)
    written = writer(os);
  else
    os << contents;
  os.flush();
  if (written || os.has_error()) {
    std::error_code ec = os.has_error() ? os.error() : std::error_code();
    os.clear_error();
    llvm::consumeError(temp->discard());
    if (written)
      return written;
    return cannotWrite(path, ec);
  }
  return std::move(*temp);
}

llvm::Error OutputFileSet::commit() {
  std::vector<std::pair<llvm::sys::fs::TempFile, std::string>> temps;
  auto discardAll = [&]() {
    for (auto &entry : temps)
      llvm::consumeError(entry.first.discard());
    discardStreamed();
  };
  // Once the temporaries exist, renaming one onto a directory is the only
  // likely failure; rule it out first, so that no destination is replaced
  // when another cannot be.
  for (Pending &file : pending)
    if (file.path != "-" && llvm::sys::fs::is_directory(file.path)) {
      discardStreamed();
      return notADirectory(file.path);
    }
  for (Pending &file : pending) {
    if (file.path == "-")
      continue;
    if (file.streamed) {
      llvm::raw_fd_ostream &os = *file.streamed->os;
      os.flush();
      if (os.has_error()) {
        std::error_code ec = os.error();
        os.clear_error();
        discardAll();
        return cannotWrite(file.path, ec);
      }
      file.streamed->os.reset();
      temps.emplace_back(std::move(*file.streamed->temp), file.path);
      file.streamed->temp.reset();
      continue;
    }
    auto temp = writeTemp(file.path, file.contents, file.writer);
    if (!temp) {
      discardAll();
      return temp.takeError();
    }
    temps.emplace_back(std::move(*temp), file.path);
  }
  for (size_t i = 0; i < temps.size(); ++i) {
    auto &entry = temps[i];
    if (llvm::Error err = entry.first.keep(entry.second)) {
      std::error_code ec = llvm::errorToErrorCode(std::move(err));
      for (size_t j = i; j < temps.size(); ++j)
        llvm::consumeError(temps[j].first.discard());
      return cannotWrite(entry.second, ec);
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
