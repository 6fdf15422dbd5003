//===- CompileCacheTest.cpp -----------------------------------------------===//
//
// The compile cache: what the key covers, round trips, damaged entries,
// least recently used eviction and the size limit.
//
//===----------------------------------------------------------------------===//
#include "txc/Driver/CompileCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>

using namespace txc;
namespace fs = llvm::sys::fs;

namespace {

std::string errorText(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : "";
}

CacheKeyInputs baseKey() {
  CacheKeyInputs in;
  in.programFileName = "linear.json";
  in.programSha256 = std::string(64, 'a');
  in.emitKind = "obj";
  in.optLevel = 2;
  in.target.triple = "x86_64-pc-linux-gnu";
  in.target.cpu = "znver3";
  in.target.features = "+avx2";
  in.target.hostCPU = true;
  in.entryPrefix = "linear";
  return in;
}

class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> path;
    EXPECT_FALSE(fs::createUniqueDirectory("txc-cache-test", path));
    dir = std::string(path);
  }
  ~TempDir() { fs::remove_directories(dir); }
  const std::string &path() const { return dir; }

private:
  std::string dir;
};

std::string entryFile(const std::string &dir, const std::string &key) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "txc-cache-v1", "entries", key.substr(0, 2),
                          key);
  return std::string(path);
}

CacheArtifacts artifacts(const std::string &tag, size_t size = 100) {
  return {std::string(size, 'o') + tag, "header " + tag, "manifest " + tag};
}

void setTime(const std::string &file, int secondsAgo) {
  int fd;
  ASSERT_FALSE(
      fs::openFileForWrite(file, fd, fs::CD_OpenExisting, fs::OF_Append));
  auto time =
      std::chrono::system_clock::now() - std::chrono::seconds(secondsAgo);
  EXPECT_FALSE(fs::setLastAccessAndModificationTime(
      fd, std::chrono::time_point_cast<std::chrono::nanoseconds>(time)));
  fs::file_t f = fd;
  fs::closeFile(f);
}

} // namespace

TEST(CompileCache, KeyCoversEveryInput) {
  const std::string base = cacheKey(baseKey());
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(cacheKey(baseKey()), base);
  std::vector<std::pair<const char *, std::function<void(CacheKeyInputs &)>>>
      edits = {
          {"file name",
           [](CacheKeyInputs &k) { k.programFileName = "b.json"; }},
          {"program", [](CacheKeyInputs &k) { k.programSha256[0] = 'b'; }},
          {"weights",
           [](CacheKeyInputs &k) {
             k.referencedFiles.push_back({"w.bin", std::string(64, 'c')});
           }},
          {"emit", [](CacheKeyInputs &k) { k.emitKind = "asm"; }},
          {"opt", [](CacheKeyInputs &k) { k.optLevel = 3; }},
          {"triple",
           [](CacheKeyInputs &k) {
             k.target.triple = "aarch64-unknown-linux-gnu";
           }},
          {"cpu", [](CacheKeyInputs &k) { k.target.cpu = "znver4"; }},
          {"features",
           [](CacheKeyInputs &k) { k.target.features = "+avx2,+fma"; }},
          {"host cpu", [](CacheKeyInputs &k) { k.target.hostCPU = false; }},
          {"prefix", [](CacheKeyInputs &k) { k.entryPrefix = "lin"; }},
      };
  for (auto &[what, edit] : edits) {
    CacheKeyInputs in = baseKey();
    edit(in);
    EXPECT_NE(cacheKey(in), base) << what;
  }
  // The versions are part of the material.
  EXPECT_NE(cacheKeyMaterial(baseKey()).find("\ntxc "), std::string::npos);
  EXPECT_NE(cacheKeyMaterial(baseKey()).find("\nllvm "), std::string::npos);
  // A referenced file's content changes the key.
  CacheKeyInputs a = baseKey(), b = baseKey();
  a.referencedFiles.push_back({"w.bin", std::string(64, 'c')});
  b.referencedFiles.push_back({"w.bin", std::string(64, 'd')});
  EXPECT_NE(cacheKey(a), cacheKey(b));
}

TEST(CompileCache, StoreLookupAndStats) {
  TempDir dir;
  auto cache = CompileCache::open(dir.path(), kDefaultCacheMaxBytes);
  ASSERT_TRUE(bool(cache)) << llvm::toString(cache.takeError());
  std::string key = cacheKey(baseKey());
  EXPECT_FALSE(cache->lookup(key));
  ASSERT_EQ(errorText(cache->store(key, artifacts("x"))), "");
  auto hit = cache->lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->primary, artifacts("x").primary);
  EXPECT_EQ(hit->header, "header x");
  EXPECT_EQ(hit->manifest, "manifest x");
  auto stats = cache->stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->hits, 1u);
  EXPECT_EQ(stats->misses, 1u);
  EXPECT_EQ(stats->stores, 1u);
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_GT(stats->bytes, 100u);
  EXPECT_TRUE(fs::exists(dir.path() + "/CACHEDIR.TAG"));
  // Another key is a miss, not the stored entry.
  CacheKeyInputs other = baseKey();
  other.optLevel = 0;
  EXPECT_FALSE(cache->lookup(cacheKey(other)));
}

TEST(CompileCache, DamagedEntriesAreNeverUsed) {
  TempDir dir;
  auto cache = CompileCache::open(dir.path(), kDefaultCacheMaxBytes);
  ASSERT_TRUE(bool(cache));
  std::string key = cacheKey(baseKey());
  std::string file = entryFile(dir.path(), key);
  auto damage = [&](const std::function<void(std::string &)> &edit) {
    ASSERT_EQ(errorText(cache->store(key, artifacts("x"))), "");
    auto bytes = llvm::MemoryBuffer::getFile(file);
    ASSERT_TRUE(bool(bytes));
    std::string text = (*bytes)->getBuffer().str();
    edit(text);
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    os << text;
  };
  // One flipped byte in the object, a truncated file, an entry under
  // another key's name.
  damage([](std::string &t) { t[t.size() - 150] ^= 1; });
  {
    auto check = cache->check();
    ASSERT_TRUE(bool(check));
    EXPECT_EQ(check->size(), 1u);
  }
  EXPECT_FALSE(cache->lookup(key));
  EXPECT_FALSE(fs::exists(file)); // dropped
  damage([](std::string &t) { t.resize(t.size() / 2); });
  EXPECT_FALSE(cache->lookup(key));
  damage([](std::string &t) {
    size_t at = t.find("key ") + 4;
    t[at] = t[at] == 'a' ? 'b' : 'a';
  });
  EXPECT_FALSE(cache->lookup(key));
  auto stats = cache->stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->corrupt, 3u);
  EXPECT_EQ(stats->hits, 0u);
  // A good entry is used again.
  ASSERT_EQ(errorText(cache->store(key, artifacts("x"))), "");
  EXPECT_TRUE(cache->lookup(key));
  auto check = cache->check();
  ASSERT_TRUE(bool(check));
  EXPECT_TRUE(check->empty());
}

TEST(CompileCache, EvictsLeastRecentlyUsed) {
  TempDir dir;
  // Room for two entries of about 1100 bytes, not three.
  auto cache = CompileCache::open(dir.path(), 2600);
  ASSERT_TRUE(bool(cache));
  std::vector<std::string> keys;
  for (unsigned level = 0; level < 3; ++level) {
    CacheKeyInputs in = baseKey();
    in.optLevel = level;
    keys.push_back(cacheKey(in));
  }
  ASSERT_EQ(errorText(cache->store(keys[0], artifacts("0", 1000))), "");
  setTime(entryFile(dir.path(), keys[0]), 300);
  ASSERT_EQ(errorText(cache->store(keys[1], artifacts("1", 1000))), "");
  setTime(entryFile(dir.path(), keys[1]), 200);
  // Using entry 0 makes entry 1 the least recently used.
  ASSERT_TRUE(cache->lookup(keys[0]));
  ASSERT_EQ(errorText(cache->store(keys[2], artifacts("2", 1000))), "");
  EXPECT_TRUE(fs::exists(entryFile(dir.path(), keys[0])));
  EXPECT_FALSE(fs::exists(entryFile(dir.path(), keys[1])));
  EXPECT_TRUE(fs::exists(entryFile(dir.path(), keys[2])));
  auto stats = cache->stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->evictions, 1u);
  EXPECT_LE(stats->bytes, 2600u);
  // An entry larger than the whole cache is not stored.
  CacheKeyInputs big = baseKey();
  big.emitKind = "asm";
  ASSERT_EQ(errorText(cache->store(cacheKey(big), artifacts("big", 5000))), "");
  EXPECT_FALSE(fs::exists(entryFile(dir.path(), cacheKey(big))));
  // clear() empties it.
  ASSERT_EQ(errorText(cache->clear()), "");
  stats = cache->stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 0u);
  EXPECT_EQ(stats->hits, 0u);
}

TEST(CompileCache, ReferencedFilesAreHashed) {
  TempDir dir;
  auto write = [&](const std::string &name, const std::string &text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dir.path() + "/" + name, ec);
    os << text;
  };
  auto sha = [](llvm::StringRef text) {
    auto digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(text.data()), text.size()));
    return llvm::toHex(digest, true);
  };
  std::string program =
      R"({"constants": [{"name": "w", "file": "w.bin"}, {"name": "c"},
                        {"name": "v", "file": {"path": "sub/v.bin"}}]})";
  write("p.json", program);
  write("w.bin", "AAAA");
  fs::create_directories(dir.path() + "/sub");
  write("sub/v.bin", "BB");
  std::string error;
  auto files = hashReferencedFiles(dir.path() + "/p.json", sha(program), error);
  ASSERT_TRUE(files) << error;
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].first, "w.bin");
  EXPECT_EQ((*files)[0].second, sha("AAAA"));
  EXPECT_EQ((*files)[1].first, "sub/v.bin");
  EXPECT_EQ((*files)[1].second, sha("BB"));
  // Other bytes, another hash.
  write("w.bin", "AAAB");
  files = hashReferencedFiles(dir.path() + "/p.json", sha(program), error);
  ASSERT_TRUE(files) << error;
  EXPECT_EQ((*files)[0].second, sha("AAAB"));
  // A missing file, or a program that changed since it was compiled: the
  // cache is not used.
  fs::remove(dir.path() + "/w.bin");
  EXPECT_FALSE(
      hashReferencedFiles(dir.path() + "/p.json", sha(program), error));
  EXPECT_NE(error.find("w.bin"), std::string::npos);
  EXPECT_FALSE(
      hashReferencedFiles(dir.path() + "/p.json", sha("other"), error));
  EXPECT_NE(error.find("changed while it was compiled"), std::string::npos);
}
