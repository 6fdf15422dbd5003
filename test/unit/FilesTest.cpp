//===- FilesTest.cpp ------------------------------------------------------===//
//
// The rule every input file is opened by (InputFiles.h) and where outputs
// go (OutputFiles.h): regular files only, limits applied before and while
// reading, standard input read in bounded chunks; outputs replaced
// atomically through links, devices and FIFOs written in place, and
// nothing renamed when any output fails.
//
//===----------------------------------------------------------------------===//
#include "txc/Support/InputFiles.h"
#include "txc/Support/OutputFiles.h"

#include "TempDir.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace txc;
using test::TempDir;

namespace {

/// A character device that discards what is written to it. /dev/null is the
/// one users name, but a machine (or container) where something already
/// replaced it with a regular file has none there, and the test must not
/// report txc for it: /dev/zero discards writes too.
std::string discardingDevice() {
  for (const char *path : {"/dev/null", "/dev/zero"}) {
    struct stat info;
    if (::stat(path, &info) == 0 && S_ISCHR(info.st_mode))
      return path;
  }
  return "";
}

/// The reason of a failed read, or "ok: <bytes>".
std::string readResult(llvm::StringRef path, const InputPolicy &policy) {
  auto bytes = readInputFile(path, policy);
  if (!bytes)
    return takeInputError(bytes.takeError()).reason;
  return "ok: " + *bytes;
}

std::string contentsOf(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "<missing>";
}

InputPolicy limit(uint64_t maxBytes) {
  InputPolicy policy;
  policy.maxBytes = maxBytes;
  return policy;
}

/// Makes `fd` standard input while it lives.
class StdinFrom {
public:
  explicit StdinFrom(int fd) : saved(::dup(STDIN_FILENO)) {
    ::dup2(fd, STDIN_FILENO);
  }
  ~StdinFrom() {
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
  }

private:
  int saved;
};

/// Reads a FIFO to its end on another thread, as the next command of a
/// pipeline would.
class FifoReader {
public:
  explicit FifoReader(std::string path)
      : fifo(std::move(path)), thread([this]() {
          int fd = ::open(fifo.c_str(), O_RDONLY);
          char chunk[256];
          for (ssize_t n; fd >= 0 && (n = ::read(fd, chunk, sizeof chunk)) > 0;)
            received.append(chunk, size_t(n));
          ::close(fd);
        }) {}
  /// What was read. If nothing ever opened the FIFO for writing, opening
  /// and closing it here ends the reader's wait (and its input).
  std::string finish() {
    int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
    ::close(fd);
    thread.join();
    return received;
  }

private:
  std::string fifo;
  std::string received;
  std::thread thread;
};

TEST(InputFiles, RegularFilesAndTheLimit) {
  TempDir dir;
  dir.write("a.json", "0123456789");
  EXPECT_EQ(readResult(dir.file("a.json"), limit(10)), "ok: 0123456789");
  auto tooLarge = readInputFile(dir.file("a.json"), limit(9));
  ASSERT_FALSE(bool(tooLarge));
  InputError error = takeInputError(tooLarge.takeError());
  EXPECT_EQ(error.code, std::errc::file_too_large);
  EXPECT_EQ(error.reason, "it is 10 bytes, over the limit of 9 bytes");
  auto mapped = mapInputFile(dir.file("a.json"), limit(10));
  ASSERT_TRUE(bool(mapped));
  EXPECT_EQ((*mapped)->getBuffer(), "0123456789");
  EXPECT_EQ(readResult(dir.file("none"), {}), "No such file or directory");
  EXPECT_EQ(readResult(dir.path, {}), "it is a directory");
}

TEST(InputFiles, OnlyRegularFiles) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  // No writer: a reader that opened the FIFO without O_NONBLOCK, or read
  // it, would never return.
  EXPECT_EQ(readResult(dir.file("fifo"), {}),
            "it is a FIFO (pipe), not a regular file");
  ASSERT_FALSE(llvm::sys::fs::create_link("/dev/zero", dir.file("zero")));
  EXPECT_EQ(readResult(dir.file("zero"), {}),
            "it is a character device, not a regular file");
  auto mapped = mapInputFile(dir.file("zero"), {});
  ASSERT_FALSE(bool(mapped));
  EXPECT_EQ(takeInputError(mapped.takeError()).reason,
            "it is a character device, not a regular file");
  // Links are refused outright where the reader asks for it.
  dir.write("real", "x");
  ASSERT_FALSE(llvm::sys::fs::create_link("real", dir.file("link")));
  InputPolicy noLinks;
  noLinks.followSymlinks = false;
  EXPECT_EQ(readResult(dir.file("link"), noLinks), "it is a symbolic link");
  EXPECT_EQ(readResult(dir.file("link"), {}), "ok: x");
}

TEST(InputFiles, StandardInputIsReadInBoundedChunks) {
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  ASSERT_EQ(::write(pipeFds[1], "0123456789abcdef", 16), 16);
  InputPolicy policy = limit(10);
  policy.allowStdin = true;
  {
    // The write end stays open: reading to the end before checking the
    // limit would block here forever.
    StdinFrom stdinFromPipe(pipeFds[0]);
    auto bytes = readInputFile("-", policy);
    ASSERT_FALSE(bool(bytes));
    InputError error = takeInputError(bytes.takeError());
    EXPECT_EQ(error.code, std::errc::file_too_large);
    EXPECT_EQ(error.reason, "it is over the limit of 10 bytes");
  }
  {
    int other[2];
    ASSERT_EQ(::pipe(other), 0);
    ASSERT_EQ(::write(other[1], "{}", 2), 2);
    ::close(other[1]);
    StdinFrom stdinFromPipe(other[0]);
    EXPECT_EQ(readResult("-", policy), "ok: {}");
    // /dev/stdin is that pipe, by another name: refused, with the hint.
    EXPECT_EQ(readResult("/dev/stdin", policy),
              "it is a FIFO (pipe), not a regular file; give - to read "
              "standard input");
    ::close(other[0]);
  }
  ::close(pipeFds[0]);
  ::close(pipeFds[1]);
  EXPECT_EQ(readResult("-", limit(10)),
            "standard input ('-') cannot be read here; give a regular file");
}

TEST(OutputFiles, Destinations) {
  using Kind = OutputDestination::Kind;
  TempDir dir;
  auto kindOf = [](const std::string &path) {
    auto where = resolveOutputDestination(path);
    EXPECT_TRUE(bool(where)) << llvm::toString(where.takeError());
    return where ? where->kind : Kind::Stdout;
  };
  EXPECT_EQ(kindOf("-"), Kind::Stdout);
  EXPECT_EQ(kindOf(dir.file("new.o")), Kind::Replace);
  std::string device = discardingDevice();
  ASSERT_FALSE(device.empty()) << "neither /dev/null nor /dev/zero is a "
                                  "character device";
  EXPECT_EQ(kindOf(device), Kind::InPlace);
  EXPECT_EQ(kindOf("/dev/stdout"), Kind::InPlace);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_EQ(kindOf(dir.file("fifo")), Kind::InPlace);
  // A link to a FIFO is written in place; a link to a file replaces the
  // file, found relative to the link.
  ASSERT_FALSE(llvm::sys::fs::create_link("fifo", dir.file("to-fifo")));
  EXPECT_EQ(kindOf(dir.file("to-fifo")), Kind::InPlace);
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir.file("sub")));
  dir.write("sub/real.o", "old");
  ASSERT_FALSE(llvm::sys::fs::create_link("sub/real.o", dir.file("link.o")));
  auto where = resolveOutputDestination(dir.file("link.o"));
  ASSERT_TRUE(bool(where));
  EXPECT_EQ(where->kind, Kind::Replace);
  EXPECT_EQ(where->file, dir.file("sub/real.o"));
  auto directory = resolveOutputDestination(dir.file("sub"));
  ASSERT_FALSE(bool(directory));
  EXPECT_EQ(llvm::toString(directory.takeError()),
            "cannot write '" + dir.file("sub") + "': it is a directory");
  EXPECT_TRUE(isWrittenInPlace(device));
  EXPECT_FALSE(isWrittenInPlace(dir.file("link.o")));
}

TEST(OutputFiles, AFileThatMayNotBeWrittenIsNotReplaced) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root may write any file";
  TempDir dir;
  dir.write("read-only.o", "old");
  ASSERT_EQ(::chmod(dir.file("read-only.o").c_str(), 0444), 0);
  OutputFileSet outputs;
  outputs.add(dir.file("read-only.o"), "new");
  llvm::Error committed = outputs.commit();
  ASSERT_TRUE(bool(committed));
  EXPECT_EQ(llvm::toString(std::move(committed)),
            "cannot write '" + dir.file("read-only.o") +
                "': Permission denied");
  EXPECT_EQ(contentsOf(dir.file("read-only.o")), "old");
}

TEST(OutputFiles, SymbolicLinksKeepBeingLinks) {
  TempDir dir;
  dir.write("real.h", "old");
  ASSERT_FALSE(llvm::sys::fs::create_link("real.h", dir.file("link.h")));
  ASSERT_FALSE(llvm::sys::fs::create_link("made.json", dir.file("dangling")));
  OutputFileSet outputs;
  outputs.add(dir.file("link.h"), "header");
  outputs.add(dir.file("dangling"), "manifest");
  ASSERT_FALSE(bool(outputs.commit()));
  EXPECT_TRUE(llvm::sys::fs::is_symlink_file(dir.file("link.h")));
  EXPECT_TRUE(llvm::sys::fs::is_symlink_file(dir.file("dangling")));
  EXPECT_EQ(contentsOf(dir.file("real.h")), "header");
  EXPECT_EQ(contentsOf(dir.file("made.json")), "manifest");
}

TEST(OutputFiles, AFifoIsWrittenInPlace) {
  TempDir dir;
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  FifoReader reader(fifo);
  OutputFileSet outputs;
  outputs.addWriter(fifo, [](llvm::raw_ostream &os) {
    os << "written by a writer";
    return llvm::Error::success();
  });
  llvm::Error committed = outputs.commit();
  std::string received = reader.finish();
  ASSERT_FALSE(bool(committed)) << llvm::toString(std::move(committed));
  EXPECT_EQ(received, "written by a writer");
  struct stat info;
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

TEST(OutputFiles, NothingIsRenamedWhenWritingInPlaceFails) {
  if (!llvm::sys::fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  dir.write("a.o", "old");
  OutputFileSet outputs;
  outputs.add(dir.file("a.o"), "new");
  outputs.add("/dev/full", "bytes");
  llvm::Error committed = outputs.commit();
  ASSERT_TRUE(bool(committed));
  EXPECT_EQ(llvm::toString(std::move(committed)),
            "cannot write '/dev/full': No space left on device");
  EXPECT_EQ(contentsOf(dir.file("a.o")), "old");
  std::error_code ec;
  unsigned entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir.path, ec), end; !ec && it != end;
       it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
}

TEST(OutputFiles, StreamedOutputWrittenInPlace) {
  // An output streamed before commit (an object with embedded weights)
  // whose destination is written in place goes through a temporary file in
  // the system's temporary directory.
  TempDir dir;
  std::string fifo = dir.file("obj.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  OutputFileSet outputs;
  auto streamed = outputs.addStreamed(fifo);
  ASSERT_TRUE(bool(streamed)) << llvm::toString(streamed.takeError());
  (*streamed)->stream() << "0123456789";
  (*streamed)->stream().flush();
  ASSERT_EQ(::pwrite((*streamed)->fd(), "AB", 2, 3), 2);
  FifoReader reader(fifo);
  llvm::Error committed = outputs.commit();
  std::string received = reader.finish();
  ASSERT_FALSE(bool(committed)) << llvm::toString(std::move(committed));
  EXPECT_EQ(received, "012AB56789");
}

} // namespace
