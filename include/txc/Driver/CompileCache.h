//===- CompileCache.h - A content-addressed cache of artifacts --*- C++ -*-===//
//
// `txc compile --cache-dir DIR` (or TXC_CACHE_DIR) keeps the artifacts of a
// compile (the primary output, the header and the manifest) under a key
// that covers everything the bytes depend on: the program's bytes, the
// bytes of every file it references, every option that changes the output,
// the resolved target (triple, CPU, features) and the txc and LLVM
// versions. A hit writes exactly the bytes a compile would have written,
// without running MLIR or LLVM.
//
// Layout (docs/cli.md, "The compile cache"):
//
//   DIR/CACHEDIR.TAG
//   DIR/txc-cache-v1/lock            flock()ed for stats and eviction
//   DIR/txc-cache-v1/stats           hits, misses, ... (text)
//   DIR/txc-cache-v1/entries/ab/ab12...ef   one file per entry
//
// An entry is one file: a header with the SHA-256 of the rest, the key and
// the part sizes, then the parts. It is written to a temporary file in the
// same directory and renamed into place, so readers never see a partial
// entry, and two processes storing the same key both store complete,
// identical files. A damaged entry (checksum, key or size mismatch, or not
// a regular file: a symbolic link, a FIFO) is deleted and counted, never
// used; one that is not a regular file is never even read. Hits refresh the entry's modification
// time; when the entries exceed the size limit, the least recently used are
// deleted (under the lock).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_DRIVER_COMPILECACHE_H
#define TXC_DRIVER_COMPILECACHE_H

#include "txc/Support/Diagnostics.h"
#include "txc/Target/ObjectEmitter.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace txc {

struct Program;

/// The default --cache-max-bytes: 1 GiB.
inline constexpr uint64_t kDefaultCacheMaxBytes = uint64_t(1) << 30;

/// What a compile writes.
struct CacheArtifacts {
  std::string primary;
  std::string header;
  std::string manifest;
};

/// Everything the artifacts' bytes depend on.
struct CacheKeyInputs {
  std::string programFileName; ///< recorded in the object and manifest
  std::string programSha256;   ///< of the bytes that were compiled
  /// Files the program references (external weights), as written in the
  /// program, with the SHA-256 of their bytes.
  std::vector<std::pair<std::string, std::string>> referencedFiles;
  std::string emitKind;
  unsigned optLevel = 2;
  TargetSpec target;       ///< resolved: host CPU and features filled in
  std::string entryPrefix;
  bool cutRegions = true; ///< --regions auto (true) or one ///< resolved: the program name if not given
  /// The variants (--specialize) by id, as ContractVariant::text writes
  /// them: "B=1,S=128".
  std::vector<std::string> specializations;
};

/// The text the key hashes: one `name value` line per input.
std::string cacheKeyMaterial(const CacheKeyInputs &inputs);
/// Lower-case hex SHA-256 of cacheKeyMaterial.
std::string cacheKey(const CacheKeyInputs &inputs);

/// The files the program at `programPath` references, resolved relative to
/// the program's directory, with their SHA-256; nullopt (with the reason in
/// `error`) if one cannot be read or the program's bytes no longer have the
/// SHA-256 `programSha256` (they were compiled). These are the `file`
/// entries of constants (external weights): a string, or an object with a
/// `path`.
std::optional<std::vector<std::pair<std::string, std::string>>>
hashReferencedFiles(llvm::StringRef programPath, llvm::StringRef programSha256,
                    std::string &error);

/// An entry `txc cache check` found damaged, and why.
struct DamagedEntry {
  std::string path;
  std::string reason; ///< "checksum, key or size mismatch", "it is a FIFO ..."
};

struct CacheStats {
  uint64_t hits = 0, misses = 0, stores = 0, evictions = 0, corrupt = 0;
  uint64_t entries = 0, bytes = 0, tempFiles = 0;
};

class CompileCache {
public:
  /// Opens the cache at `dir`, creating it if needed.
  static llvm::Expected<CompileCache> open(llvm::StringRef dir,
                                           uint64_t maxBytes);

  /// The intact entry for `key` (counting a hit, refreshing its time), or
  /// nullopt (counting a miss; a damaged entry is deleted and counted).
  std::optional<CacheArtifacts> lookup(llvm::StringRef key);

  /// Stores an entry atomically, then evicts the least recently used
  /// entries until the cache fits its limit. An entry larger than the limit
  /// is not stored.
  llvm::Error store(llvm::StringRef key, const CacheArtifacts &artifacts);

  /// Counters and the current size.
  llvm::Expected<CacheStats> stats();

  /// Checks every entry; returns the damaged ones: files that are not
  /// regular files (never read), and checksum, key or size mismatches.
  llvm::Expected<std::vector<DamagedEntry>> check();

  /// Deletes every entry and resets the counters.
  llvm::Error clear();

  const std::string &directory() const { return root; }

private:
  CompileCache(std::string root, uint64_t maxBytes)
      : root(std::move(root)), maxBytes(maxBytes) {}

  std::string entryPath(llvm::StringRef key) const;
  /// Adds to the counters in `stats` under the lock.
  void count(const char *counter, uint64_t delta = 1);
  llvm::Error evict();

  std::string root; ///< DIR/txc-cache-v1
  uint64_t maxBytes;
};

enum class CacheCommand { Stats, Check, Clear };

/// `txc cache stats|check|clear --cache-dir DIR`. Returns the exit code.
int runCacheCommand(CacheCommand command, llvm::StringRef dir, bool json,
                    DiagnosticEngine &diags, llvm::raw_ostream &out);

} // namespace txc

#endif
