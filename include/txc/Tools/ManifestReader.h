//===- ManifestReader.h - A manifest back to its contract -------*- C++ -*-===//
//
// `txc verify`, `txc testgen` and `txc diff` work on manifests, not on
// programs: the manifest is what is released with an object. The reader
// rebuilds the Contract the manifest was written from (symbols, inputs,
// outputs and every guard with its operands), so that the tools evaluate
// exactly the guard list the object was generated from, with the same code
// (evaluateGuards, formatStatusMessage).
//
// The reader is strict about what it uses: every guard must be consistent
// with the tensors and symbols it names (indices in range, a dim guard after
// its tensor's rank guard, operands that agree with the shapes), so that a
// hand-edited manifest cannot make the evaluation read out of bounds. Keys
// it does not use are ignored, so newer manifests with additional sections
// stay readable.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_MANIFESTREADER_H
#define TXC_TOOLS_MANIFESTREADER_H

#include "txc/Analysis/Contract.h"
#include "txc/Frontend/Json.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/SourceFile.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace txc {

struct ManifestTarget {
  std::string triple;
  std::string cpu;
  bool cpuFromHost = false;
  /// `cpus`: the CPUs of an object compiled for several, the baseline
  /// first; empty for one CPU.
  std::vector<std::string> cpus;
  std::string features;
  int64_t optLevel = 0;
};

/// A manifest read back: its contract and the facts around it.
struct Manifest {
  std::shared_ptr<const SourceFile> source; ///< the file as read
  std::unique_ptr<JsonValue> root;          ///< its positioned DOM

  Contract contract;
  std::string programFile;   ///< program.file
  std::string programSha256; ///< program.sha256
  std::string txcVersion;
  std::string llvmVersion;
  ManifestTarget target;
  /// Per symbol: "X.shape[0]", or "" when no input determines it.
  std::vector<std::string> determinedBy;
  /// Per output: max_bytes.
  std::vector<int64_t> outputMaxBytes;

  /// The location of the value at `pointer` in the manifest file (for
  /// diagnostics about an item of the manifest).
  Loc locate(llvm::StringRef pointer) const;
  /// Whether the symbol is computed from an input dimension at run time.
  bool isDetermined(size_t symbol) const {
    return !determinedBy[symbol].empty();
  }
};

/// Reads a manifest file. Reports every problem found (I/O errors as
/// DiagCategory::IO, anything else as DiagCategory::Invalid with the id
/// "invalid-manifest") and returns null if there was one.
std::unique_ptr<Manifest> readManifestFile(llvm::StringRef path,
                                           DiagnosticEngine &diags);
/// The same for text already in memory.
std::unique_ptr<Manifest> readManifest(std::shared_ptr<const SourceFile> file,
                                       DiagnosticEngine &diags);

/// "input_count" -> GuardKind::InputCount.
std::optional<GuardKind> parseGuardKind(llvm::StringRef name);
/// The status code a guard of this kind returns.
StatusCode statusCodeOfGuardKind(GuardKind kind);

} // namespace txc

#endif
