//===- Weights.h - Where the program's constants live -----------*- C++ -*-===//
//
// Stored constants (ConstantDecl::isStored: every constant from a weights
// file, and inline constants of 64 KiB and more) never pass through MLIR as
// attributes. The kernel takes each as a read-only memref argument after the
// inputs, and the entry points pass it:
//
// * embedded (default): the address of a local global in the section
//   `.rodata.txc_weights`, 64-byte aligned, one global per distinct run of
//   bytes. Code generation sees each global with a zero initializer that is
//   marked externally_initialized, so nothing folds its value; the bytes are
//   written into the object afterwards (fillEmbeddedWeights), straight from
//   the mapped weights files.
// * external (--weights external): an offset into the weights blob that the
//   caller passes to <p>_run_with_weights (docs/abi.md).
//
// Small inline constants stay dense attributes in the kernel ("code").
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_WEIGHTS_H
#define TXC_TARGET_WEIGHTS_H

#include "txc/Analysis/Contract.h"
#include "txc/Program/Program.h"
#include "txc/Support/Sha256.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class MemoryBufferRef;
class raw_ostream;
} // namespace llvm

namespace txc {

enum class WeightsMode { Embedded, External };

/// How constants are stored: where a constant lives.
enum class ConstantStorage {
  Code,     ///< a dense attribute compiled into the kernel
  Embedded, ///< a global in the object's weights section
  External, ///< a range of the weights blob
};

/// One distinct run of bytes: several constants with equal bytes share it.
struct WeightsBlob {
  Blob bytes;
  Sha256::Digest sha256{};
  std::string symbol;  ///< embedded: the global's name
  uint64_t offset = 0; ///< external: the offset in the blob file
};

struct ConstantPlacement {
  std::string name;
  TensorType type;
  ConstantStorage storage = ConstantStorage::Code;
  int blob = -1; ///< index in WeightsPlan::blobs unless storage is Code
  Sha256::Digest sha256{};
};

/// The weights blob's header (docs/abi.md, "External weights").
struct WeightsBlobLayout {
  static constexpr char kMagic[8] = {'T', 'X', 'C', 'W', 'G', 'T', 'S', '\0'};
  static constexpr uint32_t kVersion = 1;
  static constexpr uint32_t kHeaderBytes = 64;
  static constexpr uint64_t kAlignment = 64;
  // Offsets in the header.
  static constexpr unsigned kMagicOffset = 0;
  static constexpr unsigned kVersionOffset = 8;
  static constexpr unsigned kHeaderBytesOffset = 12;
  static constexpr unsigned kTotalBytesOffset = 16;
  static constexpr unsigned kFingerprintOffset = 24;
  static constexpr unsigned kCountOffset = 32;
};

/// Why <p>_run_with_weights returned StatusCode::Weights, in txc_status.dim.
enum class WeightsCheck : int32_t { Pointer = 0, Size = 1, Marker = 2 };

/// "<p>_run_with_weights".
inline std::string runWithWeightsSymbol(const Contract &contract) {
  return contract.entryPrefix + "_run_with_weights";
}

/// The name of the section that holds embedded weights.
inline constexpr llvm::StringLiteral kWeightsSection = ".rodata.txc_weights";

struct WeightsPlan {
  WeightsMode mode = WeightsMode::Embedded;
  std::vector<ConstantPlacement> constants; ///< one per program constant
  std::vector<WeightsBlob> blobs;
  /// External: the blob file's size, the fingerprint in its header (the
  /// first 8 bytes of the SHA-256 of its layout and contents, little-endian)
  /// and its SHA-256.
  uint64_t blobFileBytes = 0;
  uint64_t fingerprint = 0;
  Sha256::Digest blobFileSha256{};

  /// The stored constants, in program order: the kernel's extra arguments.
  std::vector<size_t> storedConstants() const;
  /// Bytes of the distinct stored runs (what the section or blob holds,
  /// without padding).
  uint64_t storedBytes() const;
  /// The 64-byte header of the blob file.
  std::string blobHeader() const;
  /// Writes the blob file: the header, then each run at its offset,
  /// zero-padded to the alignment.
  llvm::Error writeBlob(llvm::raw_ostream &os) const;
};

/// Hashes every constant, deduplicates the stored ones by content and lays
/// them out (symbol names from `entryPrefix`).
WeightsPlan planWeights(const Program &program, llvm::StringRef entryPrefix,
                        WeightsMode mode);

/// Embedded mode: gives each weights global of `module` its zero
/// initializer, section and alignment. Call after LLVM's optimization and
/// before code generation.
void finalizeWeightGlobals(llvm::Module &module, const WeightsPlan &plan);

/// Embedded mode: finds each weights global in the object `object` and
/// writes its bytes through `write(offsetInObject, bytes)`.
llvm::Error fillEmbeddedWeights(
    llvm::MemoryBufferRef object, const WeightsPlan &plan,
    const std::function<llvm::Error(uint64_t, llvm::ArrayRef<uint8_t>)> &write);

} // namespace txc

#endif
