//===- CompileCache.cpp - A content-addressed cache of artifacts ----------===//
#include "txc/Driver/CompileCache.h"

#include "txc/Frontend/Json.h"
#include "txc/Program/Program.h"
#include "txc/Support/InputFiles.h"
#include "txc/Support/SourceFile.h"
#include "txc/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

using namespace txc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static constexpr llvm::StringLiteral kEntryMagic = "txc-cache-entry 1";
static constexpr llvm::StringLiteral kLayoutDir = "txc-cache-v1";
static constexpr llvm::StringLiteral kTempPrefix = ".tmp-";
/// Temporary files older than this are left over from a crashed writer.
static constexpr auto kStaleTemp = std::chrono::hours(1);

static std::string sha256Hex(llvm::StringRef bytes) {
  auto digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// The key
//===----------------------------------------------------------------------===//

std::string txc::cacheKeyMaterial(const CacheKeyInputs &in) {
  // Every input on its own line; values cannot contain newlines (names are
  // identifiers, paths are from JSON strings with newlines escaped below).
  auto clean = [](llvm::StringRef text) {
    std::string out;
    for (char c : text)
      out += c == '\n' ? std::string("\\n") : std::string(1, c);
    return out;
  };
  std::string text = "txc compile cache key v1\n";
  text += "txc " + txcVersion() + "\n";
  text += "llvm " + llvmVersion() + "\n";
  text += "program-file " + clean(in.programFileName) + "\n";
  text += "program-sha256 " + in.programSha256 + "\n";
  for (const auto &[name, hash] : in.referencedFiles)
    text += "referenced-file " + hash + " " + clean(name) + "\n";
  text += "emit " + in.emitKind + "\n";
  text += "opt-level " + std::to_string(in.optLevel) + "\n";
  text += "triple " + in.target.triple + "\n";
  text += "cpu " + in.target.cpu + "\n";
  text += "cpu-from-host " + std::to_string(in.target.hostCPU) + "\n";
  // Only with a list of CPUs, so that the keys of other compiles stay the
  // same.
  for (const std::string &cpu : in.target.moreCPUs)
    text += "more-cpu " + cpu + "\n";
  text += "features " + in.target.features + "\n";
  text += "entry-prefix " + in.entryPrefix + "\n";
  text += std::string("regions ") + (in.cutRegions ? "auto" : "one") + "\n";
  // Only with variants, so that the keys of other compiles stay the same.
  for (const std::string &variant : in.specializations)
    text += "specialize " + variant + "\n";
  return text;
}

std::string txc::cacheKey(const CacheKeyInputs &inputs) {
  return sha256Hex(cacheKeyMaterial(inputs));
}

std::optional<std::vector<std::pair<std::string, std::string>>>
txc::hashReferencedFiles(llvm::StringRef programPath,
                         llvm::StringRef programSha256, std::string &error) {
  std::vector<std::pair<std::string, std::string>> files;
  auto source = SourceFile::read(programPath, ProgramLimits::kMaxFileBytes);
  if (!source) {
    error = "cannot read '" + programPath.str() +
            "': " + takeInputError(source.takeError()).reason;
    return std::nullopt;
  }
  if (sha256Hex((*source)->contents()) != programSha256) {
    error = "the program file '" + programPath.str() +
            "' changed while it was compiled";
    return std::nullopt;
  }
  DiagnosticEngine ignored;
  auto root = parseJson(**source, ignored, ProgramLimits::kMaxJsonDepth);
  if (!root || !root->isObject()) {
    error = "the program is not a JSON object";
    return std::nullopt;
  }
  const JsonValue *constants = root->find("constants");
  if (!constants || !constants->isArray())
    return files;
  llvm::SmallString<256> directory(programPath);
  path::remove_filename(directory);
  for (const JsonValue &constant : constants->items()) {
    const JsonValue *file =
        constant.isObject() ? constant.find("file") : nullptr;
    if (file && file->isObject())
      file = file->find("path");
    if (!file || !file->isString())
      continue;
    llvm::SmallString<256> resolved(file->getString());
    if (!path::is_absolute(resolved)) {
      resolved = directory;
      path::append(resolved, file->getString());
    }
    auto bytes = mapInputFile(resolved, InputPolicy());
    if (!bytes) {
      error = "cannot read '" + std::string(resolved) +
              "': " + takeInputError(bytes.takeError()).reason;
      return std::nullopt;
    }
    files.emplace_back(file->getString(), sha256Hex((*bytes)->getBuffer()));
  }
  return files;
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

static std::string encodeEntry(llvm::StringRef key, const CacheArtifacts &a) {
  std::string body = "key " + key.str() + "\n";
  body += "primary " + std::to_string(a.primary.size()) + "\n";
  body += "header " + std::to_string(a.header.size()) + "\n";
  body += "manifest " + std::to_string(a.manifest.size()) + "\n\n";
  body += a.primary + a.header + a.manifest;
  return kEntryMagic.str() + "\nsha256 " + sha256Hex(body) + "\n" + body;
}

/// The artifacts of an entry, or nullopt if it is damaged in any way.
static std::optional<CacheArtifacts> decodeEntry(llvm::StringRef bytes,
                                                 llvm::StringRef key) {
  auto line = [&](llvm::StringRef prefix) -> std::optional<llvm::StringRef> {
    size_t end = bytes.find('\n');
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef text = bytes.take_front(end);
    bytes = bytes.drop_front(end + 1);
    if (!text.consume_front(prefix))
      return std::nullopt;
    return text;
  };
  if (!line(kEntryMagic))
    return std::nullopt;
  auto checksum = line("sha256 ");
  if (!checksum || sha256Hex(bytes) != *checksum)
    return std::nullopt;
  auto storedKey = line("key ");
  if (!storedKey || *storedKey != key)
    return std::nullopt;
  uint64_t sizes[3];
  const char *names[3] = {"primary ", "header ", "manifest "};
  for (int i = 0; i < 3; ++i) {
    auto size = line(names[i]);
    if (!size || size->getAsInteger(10, sizes[i]))
      return std::nullopt;
  }
  if (!line("") || sizes[0] + sizes[1] + sizes[2] != bytes.size())
    return std::nullopt;
  CacheArtifacts artifacts;
  artifacts.primary = bytes.substr(0, sizes[0]).str();
  artifacts.header = bytes.substr(sizes[0], sizes[1]).str();
  artifacts.manifest = bytes.substr(sizes[0] + sizes[1]).str();
  return artifacts;
}

/// Files under the cache directory are txc's own: read only if they are
/// regular files, never through a symbolic link (a damaged entry), and at
/// most `maxBytes`.
static InputPolicy cacheFilePolicy(uint64_t maxBytes) {
  InputPolicy policy;
  policy.maxBytes = maxBytes;
  policy.followSymlinks = false;
  return policy;
}

/// The counters file is a few lines.
static constexpr uint64_t kMaxStatsBytes = 1 << 16;

namespace {
/// An exclusive lock on DIR/lock while it lives (flock-style, between
/// processes).
class CacheLock {
public:
  explicit CacheLock(llvm::StringRef root) {
    llvm::SmallString<256> file(root);
    path::append(file, "lock");
    // Not through a symbolic link, and without blocking on a FIFO put in
    // its place: only a regular file is locked.
    fd = ::open(file.c_str(),
                O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
                    O_NONBLOCK,
                0666);
    struct stat info;
    if (fd >= 0 && (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
                    fs::lockFile(fd))) {
      ::close(fd);
      fd = -1;
    }
  }
  ~CacheLock() {
    if (fd < 0)
      return;
    fs::unlockFile(fd);
    fs::file_t f = fd;
    fs::closeFile(f);
  }
  bool held() const { return fd >= 0; }

private:
  int fd = -1;
};

struct EntryFile {
  std::string path;
  uint64_t size;
  llvm::sys::TimePoint<> modified;
  bool temporary;
};

/// Every file under DIR/entries (entries and temporary files), whatever its
/// type.
std::vector<EntryFile> listEntries(llvm::StringRef root) {
  std::vector<EntryFile> files;
  llvm::SmallString<256> entries(root);
  path::append(entries, "entries");
  std::error_code ec;
  for (fs::directory_iterator shard(entries, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    std::error_code inner;
    for (fs::directory_iterator it(shard->path(), inner), last;
         !inner && it != last; it.increment(inner)) {
      // Not followed: a symbolic link or a FIFO in place of an entry is a
      // damaged entry, which check() reports and eviction removes.
      fs::file_status status;
      if (fs::status(it->path(), status, /*follow=*/false) ||
          fs::is_directory(status))
        continue;
      files.push_back({it->path(), status.getSize(),
                       status.getLastModificationTime(),
                       path::filename(it->path()).starts_with(kTempPrefix)});
    }
  }
  return files;
}

std::map<std::string, uint64_t> readCounters(llvm::StringRef root) {
  std::map<std::string, uint64_t> counters;
  llvm::SmallString<256> file(root);
  path::append(file, "stats");
  auto text = readInputFile(file, cacheFilePolicy(kMaxStatsBytes));
  if (!text) {
    llvm::consumeError(text.takeError());
    return counters;
  }
  llvm::SmallVector<llvm::StringRef, 8> lines;
  llvm::StringRef(*text).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    auto [name, value] = line.split(' ');
    uint64_t number;
    if (!value.trim().getAsInteger(10, number))
      counters[name.str()] = number;
  }
  return counters;
}

llvm::Error writeFileAtomicallyIn(llvm::StringRef directory,
                                  llvm::StringRef name,
                                  llvm::StringRef contents) {
  llvm::SmallString<256> model(directory);
  path::append(model, kTempPrefix + name + "-%%%%%%%%");
  int fd;
  llvm::SmallString<256> temp;
  if (std::error_code ec = fs::createUniqueFile(model, fd, temp))
    return llvm::createStringError(ec, "cannot create a file in '%s': %s",
                                   directory.str().c_str(),
                                   ec.message().c_str());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      fs::remove(temp);
      return llvm::createStringError(ec, "cannot write '%s': %s", temp.c_str(),
                                     ec.message().c_str());
    }
  }
  llvm::SmallString<256> final(directory);
  path::append(final, name);
  if (std::error_code ec = fs::rename(temp, final)) {
    fs::remove(temp);
    return llvm::createStringError(ec, "cannot rename '%s' to '%s': %s",
                                   temp.c_str(), final.c_str(),
                                   ec.message().c_str());
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<CompileCache> CompileCache::open(llvm::StringRef dir,
                                                uint64_t maxBytes) {
  llvm::SmallString<256> root(dir);
  path::append(root, kLayoutDir);
  llvm::SmallString<256> entries(root);
  path::append(entries, "entries");
  if (std::error_code ec = fs::create_directories(entries))
    return llvm::createStringError(ec,
                                   "cannot create the cache directory "
                                   "'%s': %s",
                                   entries.c_str(), ec.message().c_str());
  llvm::SmallString<256> tag(dir);
  path::append(tag, "CACHEDIR.TAG");
  if (!fs::exists(tag))
    llvm::consumeError(writeFileAtomicallyIn(
        dir, "CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by txc.\n"
        "# For information about cache directory tags, see "
        "https://bford.info/cachedir/\n"));
  return CompileCache(std::string(root), maxBytes);
}

std::string CompileCache::entryPath(llvm::StringRef key) const {
  llvm::SmallString<256> file(root);
  path::append(file, "entries", key.take_front(2), key);
  return std::string(file);
}

void CompileCache::count(const char *counter, uint64_t delta) {
  CacheLock lock(root);
  if (!lock.held())
    return; // counters are best effort; entries never depend on them
  std::map<std::string, uint64_t> counters = readCounters(root);
  counters[counter] += delta;
  std::string text;
  for (const auto &[name, value] : counters)
    text += name + " " + std::to_string(value) + "\n";
  llvm::consumeError(writeFileAtomicallyIn(root, "stats", text));
}

std::optional<CacheArtifacts> CompileCache::lookup(llvm::StringRef key) {
  std::string file = entryPath(key);
  auto buffer = mapInputFile(file, cacheFilePolicy(maxBytes));
  std::optional<CacheArtifacts> artifacts;
  if (buffer) {
    artifacts = decodeEntry((*buffer)->getBuffer(), key);
  } else {
    // No entry is a miss, and so is one over this cache's limit (stored
    // with a larger one). Anything else (a symbolic link, a FIFO, a
    // device) is a damaged entry, never read.
    std::error_code code = takeInputError(buffer.takeError()).code;
    if (code == std::errc::no_such_file_or_directory ||
        code == std::errc::file_too_large) {
      count("misses");
      return std::nullopt;
    }
  }
  if (!artifacts) {
    // Never use a damaged entry: drop it; the compile stores a good one.
    fs::remove(file);
    count("corrupt");
    count("misses");
    return std::nullopt;
  }
  // Least recently used eviction goes by modification time. Set by path,
  // without opening whatever the path names by now.
  ::utimensat(AT_FDCWD, file.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  count("hits");
  return artifacts;
}

llvm::Error CompileCache::store(llvm::StringRef key,
                                const CacheArtifacts &artifacts) {
  std::string bytes = encodeEntry(key, artifacts);
  if (bytes.size() > maxBytes)
    return llvm::Error::success();
  std::string file = entryPath(key);
  llvm::StringRef directory = path::parent_path(file);
  if (std::error_code ec = fs::create_directories(directory))
    return llvm::createStringError(ec, "cannot create '%s': %s",
                                   directory.str().c_str(),
                                   ec.message().c_str());
  if (llvm::Error err =
          writeFileAtomicallyIn(directory, path::filename(file), bytes))
    return err;
  count("stores");
  return evict();
}

llvm::Error CompileCache::evict() {
  CacheLock lock(root);
  if (!lock.held())
    return llvm::createStringError("cannot lock the cache in '%s'",
                                   root.c_str());
  std::vector<EntryFile> files = listEntries(root);
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::vector<EntryFile> entries;
  for (EntryFile &file : files) {
    if (file.temporary) {
      if (now - file.modified > kStaleTemp)
        fs::remove(file.path);
      continue;
    }
    total += file.size;
    entries.push_back(std::move(file));
  }
  if (total <= maxBytes)
    return llvm::Error::success();
  std::sort(entries.begin(), entries.end(),
            [](const EntryFile &a, const EntryFile &b) {
              return a.modified != b.modified ? a.modified < b.modified
                                              : a.path < b.path;
            });
  uint64_t evicted = 0;
  for (const EntryFile &entry : entries) {
    if (total <= maxBytes)
      break;
    if (!fs::remove(entry.path)) {
      total -= entry.size;
      ++evicted;
    }
  }
  // The lock is held: update the counter directly.
  std::map<std::string, uint64_t> counters = readCounters(root);
  counters["evictions"] += evicted;
  std::string text;
  for (const auto &[name, value] : counters)
    text += name + " " + std::to_string(value) + "\n";
  return writeFileAtomicallyIn(root, "stats", text);
}

llvm::Expected<CacheStats> CompileCache::stats() {
  CacheStats stats;
  std::map<std::string, uint64_t> counters = readCounters(root);
  stats.hits = counters["hits"];
  stats.misses = counters["misses"];
  stats.stores = counters["stores"];
  stats.evictions = counters["evictions"];
  stats.corrupt = counters["corrupt"];
  for (const EntryFile &file : listEntries(root)) {
    if (file.temporary) {
      ++stats.tempFiles;
      continue;
    }
    ++stats.entries;
    stats.bytes += file.size;
  }
  return stats;
}

/// Why the entry file `file` is damaged, or nullopt if it is intact.
static std::optional<std::string> entryProblem(llvm::StringRef file) {
  static constexpr llvm::StringLiteral kMismatch =
      "checksum, key or size mismatch";
  llvm::StringRef key = path::filename(file);
  if (key.size() != 64 ||
      path::filename(path::parent_path(file)) != key.take_front(2))
    return kMismatch.str();
  // Entries are mapped, and any size is checked: an entry over this run's
  // limit was stored with a larger one.
  auto buffer = mapInputFile(file, cacheFilePolicy(UINT64_MAX));
  if (!buffer)
    return takeInputError(buffer.takeError()).reason;
  if (!decodeEntry((*buffer)->getBuffer(), key))
    return kMismatch.str();
  return std::nullopt;
}

llvm::Expected<std::vector<DamagedEntry>> CompileCache::check() {
  std::vector<DamagedEntry> damaged;
  for (const EntryFile &file : listEntries(root))
    if (!file.temporary)
      if (std::optional<std::string> problem = entryProblem(file.path))
        damaged.push_back({file.path, *problem});
  llvm::sort(damaged, [](const DamagedEntry &a, const DamagedEntry &b) {
    return a.path < b.path;
  });
  return damaged;
}

llvm::Error CompileCache::clear() {
  CacheLock lock(root);
  if (!lock.held())
    return llvm::createStringError("cannot lock the cache in '%s'",
                                   root.c_str());
  for (const EntryFile &file : listEntries(root))
    fs::remove(file.path);
  llvm::SmallString<256> stats(root);
  path::append(stats, "stats");
  fs::remove(stats);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// txc cache
//===----------------------------------------------------------------------===//

int txc::runCacheCommand(CacheCommand command, llvm::StringRef dir, bool json,
                         DiagnosticEngine &diags, llvm::raw_ostream &out) {
  if (dir.empty()) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "no cache directory: give --cache-dir DIR or set "
                "TXC_CACHE_DIR");
    return diags.exitCode();
  }
  auto cache = CompileCache::open(dir, kDefaultCacheMaxBytes);
  if (!cache) {
    diags.error(DiagCategory::IO, "cache", "", Loc(),
                llvm::toString(cache.takeError()));
    return diags.exitCode();
  }
  auto quote = [](llvm::StringRef text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    return out + "\"";
  };
  switch (command) {
  case CacheCommand::Stats: {
    auto stats = cache->stats();
    if (!stats) {
      diags.error(DiagCategory::IO, "cache", "", Loc(),
                  llvm::toString(stats.takeError()));
      break;
    }
    uint64_t lookups = stats->hits + stats->misses;
    double rate = lookups ? double(stats->hits) / double(lookups) : 0.0;
    char rateText[32];
    snprintf(rateText, sizeof rateText, "%.1f%%", 100.0 * rate);
    if (json) {
      char rateJson[32];
      snprintf(rateJson, sizeof rateJson, "%.4f", rate);
      out << "{\n  \"directory\": " << quote(dir) << ",\n"
          << "  \"entries\": " << stats->entries << ",\n"
          << "  \"bytes\": " << stats->bytes << ",\n"
          << "  \"hits\": " << stats->hits << ",\n"
          << "  \"misses\": " << stats->misses << ",\n"
          << "  \"hit_rate\": " << rateJson << ",\n"
          << "  \"stores\": " << stats->stores << ",\n"
          << "  \"evictions\": " << stats->evictions << ",\n"
          << "  \"corrupt\": " << stats->corrupt << ",\n"
          << "  \"temp_files\": " << stats->tempFiles << "\n}\n";
    } else {
      out << "cache: " << dir << "\n"
          << "entries: " << stats->entries << " (" << stats->bytes
          << " bytes)\n"
          << "hits: " << stats->hits << "\n"
          << "misses: " << stats->misses << "\n"
          << "hit rate: " << rateText << "\n"
          << "stores: " << stats->stores << "\n"
          << "evictions: " << stats->evictions << "\n"
          << "damaged entries dropped: " << stats->corrupt << "\n";
      if (stats->tempFiles)
        out << "temporary files: " << stats->tempFiles << "\n";
    }
    break;
  }
  case CacheCommand::Check: {
    auto stats = cache->stats();
    auto damaged = cache->check();
    if (!stats || !damaged) {
      if (!stats)
        diags.error(DiagCategory::IO, "cache", "", Loc(),
                    llvm::toString(stats.takeError()));
      if (!damaged)
        diags.error(DiagCategory::IO, "cache", "", Loc(),
                    llvm::toString(damaged.takeError()));
      break;
    }
    for (const DamagedEntry &entry : *damaged)
      diags.error(DiagCategory::IO, "cache-damaged", entry.path, Loc(),
                  "damaged cache entry (" + entry.reason +
                      "); txc compile drops it and compiles again");
    if (json) {
      out << "{\n  \"directory\": " << quote(dir) << ",\n"
          << "  \"entries\": " << stats->entries << ",\n"
          << "  \"damaged\": [";
      for (size_t i = 0; i < damaged->size(); ++i)
        out << (i ? ", " : "") << quote((*damaged)[i].path);
      out << "]\n}\n";
    } else {
      out << stats->entries << " entries checked, " << damaged->size()
          << " damaged\n";
    }
    break;
  }
  case CacheCommand::Clear:
    if (llvm::Error err = cache->clear())
      diags.error(DiagCategory::IO, "cache", "", Loc(),
                  llvm::toString(std::move(err)));
    else if (!json)
      out << "cache cleared: " << dir << "\n";
    else
      out << "{\"directory\": " << quote(dir) << ", \"cleared\": true}\n";
    break;
  }
  out.flush();
  return diags.exitCode();
}
