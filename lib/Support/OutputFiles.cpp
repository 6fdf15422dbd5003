//===- OutputFiles.cpp ----------------------------------------------------===//
#include "txc/Support/OutputFiles.h"

#include "txc/Support/InputFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

using namespace txc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// As many links as Linux follows (MAXSYMLINKS).
static constexpr int kMaxLinks = 40;

static llvm::Error cannotWrite(llvm::StringRef path, std::error_code ec) {
  return llvm::createStringError(ec, "cannot write '%s': %s",
                                 path.str().c_str(), ec.message().c_str());
}

static llvm::Error cannotWrite(llvm::StringRef path, int error) {
  return cannotWrite(path, std::error_code(error, std::generic_category()));
}

/// A link in /proc (what /dev/stdout and /dev/fd/N lead to) names an open
/// file, not a path: only opening it reaches that file.
static bool isProcLink(llvm::StringRef link) {
  llvm::SmallString<256> directory(path::parent_path(link));
  if (directory.empty())
    directory = ".";
  struct statfs info;
  return ::statfs(directory.c_str(), &info) == 0 &&
         info.f_type == PROC_SUPER_MAGIC;
}

/// The target of the symbolic link `link`, relative to the link's
/// directory if the link is relative.
static llvm::Expected<std::string> readLink(llvm::StringRef link,
                                            llvm::StringRef shownPath) {
  std::string name = link.str();
  char target[PATH_MAX];
  ssize_t n = ::readlink(name.c_str(), target, sizeof target);
  if (n < 0)
    return cannotWrite(shownPath, errno);
  if (size_t(n) == sizeof target)
    return cannotWrite(shownPath, ENAMETOOLONG);
  llvm::StringRef text(target, size_t(n));
  if (path::is_absolute(text))
    return text.str();
  llvm::SmallString<256> resolved(path::parent_path(link));
  path::append(resolved, text);
  return std::string(resolved);
}

llvm::Expected<OutputDestination>
txc::resolveOutputDestination(llvm::StringRef path) {
  using Kind = OutputDestination::Kind;
  if (path == kStdioPath)
    return OutputDestination{Kind::Stdout, ""};
  std::string current = path.str();
  for (int links = 0; links <= kMaxLinks; ++links) {
    struct stat info;
    if (::lstat(current.c_str(), &info) != 0) {
      if (errno == ENOENT)
        return OutputDestination{Kind::Replace, current};
      return cannotWrite(path, errno);
    }
    if (S_ISDIR(info.st_mode))
      return llvm::createStringError(
          std::make_error_code(std::errc::is_a_directory),
          "cannot write '%s': it is a directory", path.str().c_str());
    if (S_ISREG(info.st_mode)) {
      // As clang does: a file txc may not write is not replaced, although
      // renaming over it would work.
      if (::access(current.c_str(), W_OK) != 0)
        return cannotWrite(path, errno);
      return OutputDestination{Kind::Replace, current};
    }
    if (!S_ISLNK(info.st_mode))
      return OutputDestination{Kind::InPlace, current};
    if (isProcLink(current))
      return OutputDestination{Kind::InPlace, current};
    auto target = readLink(current, path);
    if (!target)
      return target.takeError();
    current = std::move(*target);
  }
  return cannotWrite(path, ELOOP);
}

bool txc::isWrittenInPlace(llvm::StringRef path) {
  auto where = resolveOutputDestination(path);
  if (!where) {
    llvm::consumeError(where.takeError());
    return false;
  }
  return where->kind != OutputDestination::Kind::Replace;
}

/// A temporary file next to `file`, with the mode clang gives its outputs
/// (0666 less the umask); or, for `file` empty, a private one in the
/// system's temporary directory.
static llvm::Expected<fs::TempFile> createTemp(llvm::StringRef file,
                                               llvm::StringRef shownPath) {
  llvm::SmallString<256> model(file);
  unsigned mode = fs::all_read | fs::all_write;
  if (file.empty()) {
    path::system_temp_directory(/*erasedOnReboot=*/true, model);
    path::append(model, "txc-%%%%%%%%.tmp");
    mode = fs::owner_read | fs::owner_write;
  } else {
    model += ".tmp-%%%%%%%%";
  }
  auto temp = fs::TempFile::create(model, mode);
  if (!temp) {
    std::error_code ec = llvm::errorToErrorCode(temp.takeError());
    return llvm::createStringError(
        ec, "cannot create a temporary file next to '%s': %s",
        (file.empty() ? shownPath : file).str().c_str(), ec.message().c_str());
  }
  return std::move(*temp);
}

void OutputFileSet::add(llvm::StringRef path, std::string contents) {
  pending.push_back({path.str(), std::move(contents), nullptr, nullptr});
}

void OutputFileSet::addWriter(llvm::StringRef path, Writer write) {
  pending.push_back({path.str(), std::string(), std::move(write), nullptr});
}

llvm::Expected<OutputFileSet::Streamed *>
OutputFileSet::addStreamed(llvm::StringRef path) {
  auto where = resolveOutputDestination(path);
  if (!where)
    return where.takeError();
  bool replaces = where->kind == OutputDestination::Kind::Replace;
  auto temp = createTemp(replaces ? llvm::StringRef(where->file) : "", path);
  if (!temp)
    return temp.takeError();
  auto streamed = std::make_unique<Streamed>();
  streamed->destination = path.str();
  streamed->where = std::move(*where);
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

/// Flushes a streamed output's temporary file.
static llvm::Error finishStreamed(llvm::raw_fd_ostream &os,
                                  llvm::StringRef path) {
  os.flush();
  if (!os.has_error())
    return llvm::Error::success();
  std::error_code ec = os.error();
  os.clear_error();
  return cannotWrite(path, ec);
}

/// Writes a queued (not streamed) output's bytes to `os`.
static llvm::Error produce(const OutputFileSet::Writer &writer,
                           llvm::StringRef contents, llvm::raw_ostream &os) {
  if (writer)
    return writer(os);
  os << contents;
  return llvm::Error::success();
}

/// Flushes `os` and turns a write error into an error naming `path`; an
/// error of the producer wins.
static llvm::Error checkWritten(llvm::raw_fd_ostream &os, llvm::StringRef path,
                                llvm::Error produced) {
  os.flush();
  std::error_code ec = os.has_error() ? os.error() : std::error_code();
  os.clear_error();
  if (produced)
    return produced;
  return ec ? cannotWrite(path, ec) : llvm::Error::success();
}

/// Writes one queued output into a new temporary file next to `file`.
static llvm::Expected<fs::TempFile>
writeTemp(llvm::StringRef file, llvm::StringRef shownPath,
          llvm::StringRef contents, const OutputFileSet::Writer &writer) {
  auto temp = createTemp(file, shownPath);
  if (!temp)
    return temp.takeError();
  llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
  if (llvm::Error err =
          checkWritten(os, shownPath, produce(writer, contents, os))) {
    llvm::consumeError(temp->discard());
    return err;
  }
  return std::move(*temp);
}

/// Opens a destination written in place: for writing only, never created,
/// never truncated (a device or FIFO has nothing to truncate, and O_TRUNC
/// on some devices means more). Null when it is txc's own standard output
/// (/dev/stdout), which is then written through llvm::outs(), in order and
/// at the offset of everything else written there.
static llvm::Expected<std::unique_ptr<llvm::raw_fd_ostream>>
openInPlace(llvm::StringRef file, llvm::StringRef shownPath) {
  std::string name = file.str();
  int fd;
  do
    fd = ::open(name.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return cannotWrite(shownPath, errno);
  struct stat opened, out;
  if (::fstat(fd, &opened) == 0 && ::fstat(STDOUT_FILENO, &out) == 0 &&
      opened.st_dev == out.st_dev && opened.st_ino == out.st_ino) {
    ::close(fd);
    return nullptr;
  }
  // A regular file reached through /proc (/dev/fd/3 on a file) gets exactly
  // the output, as if it were replaced.
  if (S_ISREG(opened.st_mode) && ::ftruncate(fd, 0) != 0) {
    int error = errno;
    ::close(fd);
    return cannotWrite(shownPath, error);
  }
  return std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
}

llvm::Error OutputFileSet::writeInPlace(Pending &file,
                                        const OutputDestination &where) {
  std::unique_ptr<llvm::raw_fd_ostream> opened;
  if (where.kind == OutputDestination::Kind::InPlace) {
    auto stream = openInPlace(where.file, file.path);
    if (!stream)
      return stream.takeError();
    opened = std::move(*stream);
  }
  llvm::raw_fd_ostream &os = opened ? *opened : llvm::outs();
  llvm::Error produced = llvm::Error::success();
  if (file.streamed) {
    // Copied from its temporary file, mapped: it may be gigabytes.
    Streamed &streamed = *file.streamed;
    if (llvm::Error err = finishStreamed(*streamed.os, file.path))
      return err;
    auto bytes = llvm::MemoryBuffer::getOpenFile(
        streamed.fd(), streamed.temp->TmpName, streamed.os->tell(),
        /*RequiresNullTerminator=*/false);
    if (!bytes)
      return cannotWrite(file.path, bytes.getError());
    os << (*bytes)->getBuffer();
  } else {
    produced = produce(file.writer, file.contents, os);
  }
  return checkWritten(os, file.path, std::move(produced));
}

/// `file` with its directory's real path, to tell whether two outputs
/// replace the same file (through links, or `a/../b`).
static std::string canonicalFile(llvm::StringRef file) {
  llvm::SmallString<256> directory(path::parent_path(file));
  if (directory.empty())
    directory = ".";
  llvm::SmallString<256> result;
  if (fs::real_path(directory, result))
    result = directory;
  path::append(result, path::filename(file));
  return std::string(result);
}

llvm::Error OutputFileSet::commit() {
  using Kind = OutputDestination::Kind;
  // Where each output goes. A directory, or two outputs that replace the
  // same file through links, stops everything before a byte is written.
  std::vector<OutputDestination> where;
  for (Pending &file : pending) {
    if (file.streamed) {
      where.push_back(file.streamed->where);
      continue;
    }
    auto destination = resolveOutputDestination(file.path);
    if (!destination) {
      discardStreamed();
      return destination.takeError();
    }
    where.push_back(std::move(*destination));
  }
  std::vector<std::string> replaced;
  for (const OutputDestination &destination : where)
    replaced.push_back(destination.kind == Kind::Replace
                           ? canonicalFile(destination.file)
                           : std::string());
  for (size_t i = 0; i < where.size(); ++i)
    for (size_t j = i + 1; j < where.size(); ++j)
      if (!replaced[i].empty() && replaced[i] == replaced[j]) {
        discardStreamed();
        return llvm::createStringError(
            std::make_error_code(std::errc::file_exists),
            "cannot write both '%s' and '%s': they name the same file '%s'",
            pending[i].path.c_str(), pending[j].path.c_str(),
            replaced[i].c_str());
      }

  // Every temporary file complete before any destination is touched.
  std::vector<std::pair<fs::TempFile, size_t>> temps;
  auto discardAll = [&]() {
    for (auto &entry : temps)
      llvm::consumeError(entry.first.discard());
    discardStreamed();
  };
  for (size_t i = 0; i < pending.size(); ++i) {
    if (where[i].kind != Kind::Replace)
      continue;
    Pending &file = pending[i];
    if (file.streamed) {
      if (llvm::Error err = finishStreamed(*file.streamed->os, file.path)) {
        discardAll();
        return err;
      }
      file.streamed->os.reset();
      temps.emplace_back(std::move(*file.streamed->temp), i);
      file.streamed->temp.reset();
      continue;
    }
    auto temp = writeTemp(where[i].file, file.path, file.contents, file.writer);
    if (!temp) {
      discardAll();
      return temp.takeError();
    }
    temps.emplace_back(std::move(*temp), i);
  }
  // Then the outputs written in place, which cannot be taken back: a
  // failure there still replaces nothing.
  for (size_t i = 0; i < pending.size(); ++i)
    if (where[i].kind != Kind::Replace)
      if (llvm::Error err = writeInPlace(pending[i], where[i])) {
        discardAll();
        return err;
      }
  // Last, the renames.
  for (size_t t = 0; t < temps.size(); ++t) {
    auto &[temp, index] = temps[t];
    if (llvm::Error err = temp.keep(where[index].file)) {
      std::error_code ec = llvm::errorToErrorCode(std::move(err));
      for (size_t rest = t; rest < temps.size(); ++rest)
        llvm::consumeError(temps[rest].first.discard());
      discardStreamed();
      return cannotWrite(pending[index].path, ec);
    }
  }
  discardStreamed();
  pending.clear();
  return llvm::Error::success();
}
