//===- Sha256.h - SHA-256 of large byte ranges ------------------*- C++ -*-===//
//
// Weights are hashed for deduplication, the manifest and the external blob,
// up to gigabytes per compile; OpenSSL's SHA-256 uses the CPU's SHA
// instructions and is several times faster than llvm::SHA256.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_SUPPORT_SHA256_H
#define TXC_SUPPORT_SHA256_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace txc {

class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;

  void update(llvm::ArrayRef<uint8_t> bytes);
  void update(llvm::StringRef text) {
    update(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  }
  /// The digest of everything passed to update; the object is done after.
  Digest final();

  static Digest hash(llvm::ArrayRef<uint8_t> bytes);
  /// Lower-case hex of a digest.
  static std::string toHex(const Digest &digest);

private:
  struct State;
  std::unique_ptr<State> state;
};

} // namespace txc

#endif
