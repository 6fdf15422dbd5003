//===- InputFiles.cpp - The one rule for opening files txc reads ----------===//
#include "txc/Support/InputFiles.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace txc;

static llvm::Error inputError(std::error_code code, const llvm::Twine &reason) {
  return llvm::createStringError(code, reason);
}

static llvm::Error errnoError(int error) {
  std::error_code code(error, std::generic_category());
  return inputError(code, code.message());
}

/// The limit's refusal; `size` is 0 when the size is not known (standard
/// input, or a file that grew while it was read).
static llvm::Error tooLarge(uint64_t maxBytes, uint64_t size) {
  std::string sizeText = size ? std::to_string(size) + " bytes, " : "";
  return inputError(std::make_error_code(std::errc::file_too_large),
                    "it is " + sizeText + "over the limit of " +
                        llvm::Twine(maxBytes) + " bytes");
}

/// What a file that is not a regular file is, for messages.
static const char *kindOf(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO (pipe)";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// Whether `info` is of the file that is txc's standard input.
static bool isStandardInput(const struct stat &info) {
  struct stat in;
  return ::fstat(STDIN_FILENO, &in) == 0 && in.st_dev == info.st_dev &&
         in.st_ino == info.st_ino;
}

/// Success for a regular file; otherwise the refusal. A reader that takes
/// "-" says so when the path is standard input by another name
/// (/dev/stdin on a pipe).
static llvm::Error checkRegular(const struct stat &info, bool allowStdin) {
  if (S_ISREG(info.st_mode))
    return llvm::Error::success();
  if (S_ISDIR(info.st_mode))
    return inputError(std::make_error_code(std::errc::is_a_directory),
                      "it is a directory");
  bool hint = allowStdin && isStandardInput(info);
  return inputError(std::make_error_code(std::errc::invalid_argument),
                    llvm::Twine("it is ") + kindOf(info.st_mode) +
                        ", not a regular file" +
                        (hint ? "; give - to read standard input" : ""));
}

namespace {
/// A descriptor opened by the rule, closed when done unless it is standard
/// input. `size` is the bytes left to read when it is known (regular
/// files), else 0.
struct OpenedInput {
  int fd = -1;
  bool isStdin = false;
  uint64_t size = 0;

  OpenedInput() = default;
  OpenedInput(const OpenedInput &) = delete;
  OpenedInput(OpenedInput &&other)
      : fd(std::exchange(other.fd, -1)), isStdin(other.isStdin),
        size(other.size) {}
  ~OpenedInput() {
    if (fd >= 0 && !isStdin)
      ::close(fd);
  }
};
} // namespace

static llvm::Expected<OpenedInput> openStdin(const InputPolicy &policy) {
  OpenedInput input;
  input.fd = STDIN_FILENO;
  input.isStdin = true;
  struct stat info;
  if (::fstat(input.fd, &info) != 0)
    return errnoError(errno);
  if (S_ISDIR(info.st_mode))
    return checkRegular(info, false);
  // A redirected regular file: its size is known, so the limit is checked
  // before reading, as for a path.
  if (S_ISREG(info.st_mode)) {
    off_t at = ::lseek(input.fd, 0, SEEK_CUR);
    if (at >= 0 && at <= info.st_size) {
      input.size = uint64_t(info.st_size - at);
      if (input.size > policy.maxBytes)
        return tooLarge(policy.maxBytes, input.size);
    }
  }
  return input;
}

static llvm::Expected<OpenedInput> openInput(llvm::StringRef path,
                                             const InputPolicy &policy) {
  if (path == kStdioPath) {
    if (policy.allowStdin)
      return openStdin(policy);
    return inputError(std::make_error_code(std::errc::invalid_argument),
                      "standard input ('-') cannot be read here; give a "
                      "regular file");
  }
  std::string name = path.str();
  // Refused before opening when the path already shows it is not a regular
  // file: opening a device can have effects of its own.
  struct stat info;
  int statResult = policy.followSymlinks ? ::stat(name.c_str(), &info)
                                         : ::lstat(name.c_str(), &info);
  if (statResult == 0 && !S_ISLNK(info.st_mode))
    if (llvm::Error err = checkRegular(info, policy.allowStdin))
      return err;
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  if (!policy.followSymlinks)
    flags |= O_NOFOLLOW;
  OpenedInput input;
  do
    input.fd = ::open(name.c_str(), flags);
  while (input.fd < 0 && errno == EINTR);
  if (input.fd < 0) {
    if (errno == ELOOP && !policy.followSymlinks)
      return inputError(
          std::make_error_code(std::errc::too_many_symbolic_link_levels),
          "it is a symbolic link");
    return errnoError(errno);
  }
  // The descriptor decides: the path may name another file by now.
  if (::fstat(input.fd, &info) != 0)
    return errnoError(errno);
  if (llvm::Error err = checkRegular(info, policy.allowStdin))
    return err;
  int status = ::fcntl(input.fd, F_GETFL);
  if (status < 0 || ::fcntl(input.fd, F_SETFL, status & ~O_NONBLOCK) < 0)
    return errnoError(errno);
  input.size = uint64_t(info.st_size);
  if (input.size > policy.maxBytes)
    return tooLarge(policy.maxBytes, input.size);
  return input;
}

/// Waits until a non-blocking descriptor (a standard input inherited with
/// O_NONBLOCK) has bytes or reaches the end.
static bool waitReadable(int fd) {
  struct pollfd request = {fd, POLLIN, 0};
  int n;
  do
    n = ::poll(&request, 1, -1);
  while (n < 0 && errno == EINTR);
  return n > 0;
}

/// Reads to the end, but never more than `maxBytes` + 1 bytes: one byte
/// over the limit is enough to refuse the input. A file of known size is
/// read in one go (and one byte more, to see that it did not grow).
static llvm::Expected<std::string> readBounded(const OpenedInput &input,
                                               uint64_t maxBytes) {
  constexpr uint64_t kChunk = 1 << 18;
  std::string bytes;
  while (true) {
    size_t before = bytes.size();
    uint64_t expected = input.size > before ? input.size - before + 1 : 0;
    uint64_t want = std::max(kChunk, expected);
    uint64_t left = maxBytes - before;
    size_t room = size_t(left < want ? left + 1 : want);
    bytes.resize(before + room);
    ssize_t n = ::read(input.fd, &bytes[before], room);
    int error = errno;
    bytes.resize(before + size_t(std::max<ssize_t>(n, 0)));
    if (n == 0)
      return bytes;
    if (n < 0) {
      if (error == EINTR || ((error == EAGAIN || error == EWOULDBLOCK) &&
                             waitReadable(input.fd)))
        continue;
      return errnoError(error);
    }
    if (bytes.size() > maxBytes)
      return tooLarge(maxBytes, 0);
  }
}

llvm::Expected<std::string> txc::readInputFile(llvm::StringRef path,
                                               const InputPolicy &policy) {
  auto input = openInput(path, policy);
  if (!input)
    return input.takeError();
  return readBounded(*input, policy.maxBytes);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
txc::mapInputFile(llvm::StringRef path, const InputPolicy &policy) {
  InputPolicy regularOnly = policy;
  regularOnly.allowStdin = false;
  auto input = openInput(path, regularOnly);
  if (!input)
    return input.takeError();
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      input->fd, path, input->size, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return inputError(buffer.getError(), buffer.getError().message());
  return std::move(*buffer);
}

InputError txc::takeInputError(llvm::Error error) {
  InputError result;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    result.code = e.convertToErrorCode();
    result.reason = e.message();
  });
  return result;
}
