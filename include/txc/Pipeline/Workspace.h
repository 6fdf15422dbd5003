//===- Workspace.h - Caller-provided scratch memory of a kernel -*- C++ -*-===//
//
// At -O1 and above, the large temporaries of a kernel whose size is known at
// compile time or follows from the symbols (the packed panels of a matmul,
// intermediate tensors that are neither fused away nor small enough for the
// stack) live in one workspace instead of being allocated per call. The
// Workspace pass (lib/Pipeline) gives each such buffer an offset, adds the
// workspace as the kernel's last argument (`memref<Nxi8>`, or `memref<?xi8>`
// when its size depends on the symbols) and records N, the static part, on
// the module, and the function computing the whole size from the symbols if
// there is one; the ABI (docs/abi.md) lets the caller provide it or mallocs
// it once per call.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PIPELINE_WORKSPACE_H
#define TXC_PIPELINE_WORKSPACE_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace txc {

/// Alignment of the workspace and of every buffer in it: a cache line, and
/// enough for any vector load.
inline constexpr uint64_t kWorkspaceAlignment = 64;

/// The module attribute holding the kernel's workspace size in bytes;
/// absent when the kernel needs none.
inline constexpr llvm::StringLiteral kWorkspaceBytesAttr =
    "txc.workspace_bytes";

/// The module attribute naming the kernel's size function (a
/// FlatSymbolRefAttr): `(symbols...) -> index`, the bytes of the whole
/// workspace; absent when the size is the static part.
inline constexpr llvm::StringLiteral kWorkspaceSizeFunctionAttr =
    "txc.workspace_size_function";

/// A buffer to place: its size and the positions (in the kernel's body) of
/// its allocation and of its last use, both inclusive.
struct WorkspaceBuffer {
  uint64_t bytes = 0;
  unsigned begin = 0, end = 0;
};

/// Where each buffer lives in the workspace and how large the workspace is.
struct WorkspacePlan {
  llvm::SmallVector<uint64_t> offsets; ///< one per buffer, in order
  uint64_t totalBytes = 0;
};

/// Gives each buffer an offset, a multiple of kWorkspaceAlignment, such that
/// buffers whose lifetimes overlap do not share bytes; buffers that are
/// never live at the same time may. Largest first, each at the lowest
/// offset that fits: deterministic, and the total is at least the peak of
/// the live bytes.
WorkspacePlan planWorkspace(llvm::ArrayRef<WorkspaceBuffer> buffers);

/// The workspace size the Workspace pass recorded on `module` (0 if none):
/// its static part.
uint64_t workspaceBytes(mlir::ModuleOp module);

/// The kernel's workspace as the ABI sees it.
struct WorkspaceSize {
  uint64_t staticBytes = 0; ///< the static part, at its start
  /// Whether buffers of symbol-dependent size follow: the whole size is
  /// then computed at run time by the kernel's size function.
  bool dynamic = false;
  bool needed() const { return staticBytes != 0 || dynamic; }
};

/// What the Workspace pass recorded on `module`.
WorkspaceSize workspaceSize(mlir::ModuleOp module);

} // namespace txc

#endif
