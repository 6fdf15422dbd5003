//===- ArtifactInfo.h - What the header and manifest describe ---*- C++ -*-===//
#ifndef TXC_TARGET_ARTIFACTINFO_H
#define TXC_TARGET_ARTIFACTINFO_H

#include "txc/Analysis/Contract.h"
#include "txc/Pipeline/Workspace.h"
#include "txc/Target/ObjectEmitter.h"

#include <optional>
#include <string>
#include <vector>

namespace txc {

/// Facts about one compiled artifact besides its contract.
struct WeightsPlan;

struct ArtifactInfo {
  std::string programFile;   ///< file name only (no directories)
  std::string programSha256; ///< of the program file's bytes
  TargetSpec target;
  /// The program and where its constants live (null: no constants listed).
  const Program *program = nullptr;
  const WeightsPlan *weights = nullptr;
  std::string weightsFile; ///< external weights: the blob's file name
  /// The kernel's workspace (docs/abi.md): its static part (0 if none) and
  /// whether a part whose size depends on the symbols follows.
  uint64_t workspaceBytes = 0;
  bool workspaceDynamic = false;
  void setWorkspace(WorkspaceSize workspace) {
    workspaceBytes = workspace.staticBytes;
    workspaceDynamic = workspace.dynamic;
  }
  bool needsWorkspace() const { return workspaceBytes != 0 || workspaceDynamic; }
  /// The functions the object imports, sorted (docs/abi.md, "Imports");
  /// unknown when the primary output is not an object.
  std::optional<std::vector<std::string>> imports;
};

/// The C99 header declaring the artifact's entry points (docs/abi.md).
std::string emitCHeader(const Contract &contract, const ArtifactInfo &info);

/// The C++17 header of `txc compile --header-cxx` (docs/abi.md, "C++
/// API"): `cHeader` (emitCHeader's text for the same artifact), then the
/// C++ API wrapping its entry points.
std::string emitCxxHeader(const Contract &contract, const ArtifactInfo &info,
                          llvm::StringRef cHeader);

/// txc_runtime.hpp, installed with txc (runtime/txc_runtime.hpp): the C++
/// part every generated C++ header shares.
std::string emitCxxRuntimeHeader();

/// txc_runtime.h, installed with txc (runtime/txc_runtime.h): the part
/// every generated C header shares.
std::string emitRuntimeHeader();

/// The constraint manifest as JSON text (docs/manifest.md).
std::string emitManifest(const Contract &contract, const ArtifactInfo &info);

/// The manifest's format identifier and version.
inline constexpr const char *kManifestFormat = "txc.manifest";
inline constexpr int kManifestVersion = 1;

} // namespace txc

#endif
