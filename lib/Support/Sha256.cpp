//===- Sha256.cpp - SHA-256 through OpenSSL's libcrypto -------------------===//
#include "txc/Support/Sha256.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <openssl/evp.h>

using namespace txc;

struct Sha256::State {
  EVP_MD_CTX *context = nullptr;
};

Sha256::Sha256() : state(std::make_unique<State>()) {
  state->context = EVP_MD_CTX_new();
  if (!state->context ||
      EVP_DigestInit_ex(state->context, EVP_sha256(), nullptr) != 1)
    llvm::report_fatal_error("OpenSSL cannot compute SHA-256");
}

Sha256::~Sha256() { EVP_MD_CTX_free(state->context); }

void Sha256::update(llvm::ArrayRef<uint8_t> bytes) {
  // EVP_DigestUpdate takes any size; feed large ranges in pieces anyway so
  // that no size_t conversion can matter.
  constexpr size_t kChunk = size_t(1) << 30;
  while (!bytes.empty()) {
    size_t n = std::min(bytes.size(), kChunk);
    EVP_DigestUpdate(state->context, bytes.data(), n);
    bytes = bytes.drop_front(n);
  }
}

Sha256::Digest Sha256::final() {
  Digest digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(state->context, digest.data(), &length);
  return digest;
}

Sha256::Digest Sha256::hash(llvm::ArrayRef<uint8_t> bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  return hasher.final();
}

std::string Sha256::toHex(const Digest &digest) {
  return llvm::toHex(digest, /*LowerCase=*/true);
}
