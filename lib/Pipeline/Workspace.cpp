//===- Workspace.cpp - Large static temporaries in one workspace ----------===//
//
// After loop hoisting and stack promotion, the kernel's remaining top-level
// allocations of static shape are buffers it would malloc and free on every
// call (a matmul's packed panels: up to 512 KiB). This pass places them in
// one workspace, the kernel's new last argument, so that a caller can
// provide the memory once for many calls (docs/abi.md, "Workspace").
// Buffers whose lifetimes do not overlap share bytes (planWorkspace). The
// functions of regions get workspaces of their own the same way, which the
// kernel places in its workspace at each call.
//
// Allocations inside loops and of dynamic shape keep malloc: their number
// or size is only known while the kernel runs. A view of an argument is not
// owned by the kernel, so the deallocation pipeline, which runs next,
// frees none of them.
//
//===----------------------------------------------------------------------===//
#include "txc/Pipeline/Workspace.h"
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/Support/MathExtras.h"

#include <numeric>
#include <optional>

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_WORKSPACEPASS
#include "Passes.h.inc"


WorkspacePlan planWorkspace(llvm::ArrayRef<WorkspaceBuffer> buffers) {
  WorkspacePlan plan;
  plan.offsets.assign(buffers.size(), 0);
  llvm::SmallVector<unsigned> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first: small buffers then fill the gaps between large ones.
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  llvm::SmallVector<unsigned> placed;
  for (unsigned i : order) {
    const WorkspaceBuffer &buffer = buffers[i];
    if (buffer.bytes == 0)
      continue;
    // The placed buffers live at the same time as this one, by offset.
    llvm::SmallVector<unsigned> live;
    for (unsigned p : placed)
      if (buffers[p].begin <= buffer.end && buffer.begin <= buffers[p].end)
        live.push_back(p);
    llvm::sort(live, [&](unsigned a, unsigned b) {
      return plan.offsets[a] < plan.offsets[b];
    });
    uint64_t offset = 0;
    for (unsigned p : live) {
      if (offset + buffer.bytes <= plan.offsets[p])
        break; // fits in the gap before p
      offset = std::max(offset, llvm::alignTo(plan.offsets[p] + buffers[p].bytes,
                                              kWorkspaceAlignment));
    }
    plan.offsets[i] = offset;
    plan.totalBytes = std::max(plan.totalBytes, offset + buffer.bytes);
    placed.push_back(i);
  }
  plan.totalBytes = llvm::alignTo(plan.totalBytes, kWorkspaceAlignment);
  return plan;
}

uint64_t workspaceBytes(ModuleOp module) {
  auto bytes = module->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr);
  return bytes ? bytes.getValue().getZExtValue() : 0;
}

namespace {

/// The bytes of an allocation that can live in the workspace: static shape,
/// identity layout, default memory space, no alignment beyond the
/// workspace's, elements of a known size.
std::optional<uint64_t> workspaceBytesOf(memref::AllocOp alloc,
                                         const DataLayout &layout) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace() || alloc.getAlignment().value_or(1) >
                                   kWorkspaceAlignment)
    return std::nullopt;
  Type element = type.getElementType();
  if (!element.isIntOrIndexOrFloat() && !isa<VectorType>(element))
    return std::nullopt;
  return uint64_t(type.getNumElements()) * layout.getTypeSize(element);
}

/// True if `user` may make a new alias of its memref operand that is not a
/// view (a loop's iteration argument, a yielded or returned value, a call's
/// argument): the buffer's lifetime is then taken to last to the end.
bool mayEscape(Operation *user) {
  // The function of a region reads and writes its arguments and keeps no
  // pointer (it returns nothing once its results are in its outputs).
  if (auto call = dyn_cast<func::CallOp>(user))
    return call.getNumResults() != 0;
  if (user->hasTrait<OpTrait::IsTerminator>() ||
      isa<RegionBranchOpInterface, CallOpInterface>(user))
    return true;
  return llvm::any_of(user->getResultTypes(),
                      [](Type type) { return isa<BaseMemRefType>(type); });
}

/// True if `user` frees `value` (the buffer cannot then be a view).
bool frees(Operation *user, Value value) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  return effects && effects.getEffectOnValue<MemoryEffects::Free>(value);
}

/// The position in `body` of the last op that uses `alloc` or one of its
/// views, or nothing if a user frees it.
std::optional<unsigned>
lastUse(memref::AllocOp alloc, Block &body,
        const llvm::DenseMap<Operation *, unsigned> &position) {
  unsigned last = position.lookup(alloc);
  SmallVector<Value> aliases = {alloc.getResult()};
  while (!aliases.empty()) {
    Value value = aliases.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (frees(user, value))
        return std::nullopt;
      Operation *top = body.findAncestorOpInBlock(*user);
      last = std::max(last, position.lookup(top));
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (view && view.getViewSource() == value)
        aliases.append(user->result_begin(), user->result_end());
      else if (mayEscape(user))
        last = unsigned(body.getOperations().size());
    }
  }
  return last;
}

/// The bytes of workspace each function of a region needs, by name.
using CalleeWorkspaces = llvm::DenseMap<StringRef, uint64_t>;

/// Moves the top-level static allocations of `function` into a workspace
/// argument, together with the workspaces of the functions it calls (each
/// a view at its call, live during the call only); returns its size (0: no
/// workspace, the signature is unchanged).
uint64_t placeInWorkspace(func::FuncOp function,
                          const CalleeWorkspaces &callees) {
  if (!function.getBody().hasOneBlock())
    return 0;
  Block &body = function.getBody().front();
  DataLayout layout = DataLayout::closest(function);
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = unsigned(index);
  SmallVector<Operation *> users;
  SmallVector<WorkspaceBuffer> buffers;
  for (Operation &op : body) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      // Empty buffers stay allocations: a workspace of 0 bytes is none.
      std::optional<uint64_t> bytes = workspaceBytesOf(alloc, layout);
      if (!bytes || *bytes == 0)
        continue;
      std::optional<unsigned> end = lastUse(alloc, body, position);
      if (!end)
        continue;
      users.push_back(alloc);
      buffers.push_back({*bytes, position[alloc], *end});
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      uint64_t bytes = callees.lookup(call.getCallee());
      if (bytes == 0)
        continue;
      users.push_back(call);
      buffers.push_back({bytes, position[call], position[call]});
    }
  }
  if (users.empty())
    return 0;
  WorkspacePlan plan = planWorkspace(buffers);
  OpBuilder b(function.getContext());
  auto type = MemRefType::get({int64_t(plan.totalBytes)}, b.getI8Type());
  function.insertArgument(function.getNumArguments(), type, nullptr,
                          function.getLoc());
  // Its alignment is told to LLVM by the ABI emitter: the deallocation
  // pipeline rejects memref.assume_alignment (no memory effects).
  Value workspace = body.getArguments().back();
  for (auto [user, buffer, offset] : llvm::zip(users, buffers, plan.offsets)) {
    b.setInsertionPoint(user);
    Value shift = b.create<arith::ConstantIndexOp>(user->getLoc(), offset);
    if (auto alloc = dyn_cast<memref::AllocOp>(user)) {
      Value view = b.create<memref::ViewOp>(alloc.getLoc(), alloc.getType(),
                                            workspace, shift, ValueRange());
      alloc.replaceAllUsesWith(view);
      alloc.erase();
      continue;
    }
    // The callee's workspace is its last argument.
    auto calleeType = MemRefType::get({int64_t(buffer.bytes)}, b.getI8Type());
    Value view = b.create<memref::ViewOp>(user->getLoc(), calleeType,
                                          workspace, shift, ValueRange());
    user->insertOperands(user->getNumOperands(), view);
  }
  return plan.totalBytes;
}

class WorkspacePass
    : public impl::WorkspacePassBase<WorkspacePass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The functions of regions (private, called by the kernel at its top
    // level) first: the kernel's plan places their workspaces.
    CalleeWorkspaces callees;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPrivate() && !function.isExternal())
        if (uint64_t bytes = placeInWorkspace(function, {}))
          callees[function.getSymName()] = bytes;
    if (failed(checkCallsAtTopLevel(module, callees)))
      return signalPassFailure();
    // The kernel is the module's only public function.
    uint64_t total = 0;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPublic() && !function.isExternal()) {
        if (total != 0) {
          function.emitError("internal error: a second kernel needs a "
                             "workspace");
          return signalPassFailure();
        }
        total = placeInWorkspace(function, callees);
      }
    if (total != 0)
      module->setAttr(kWorkspaceBytesAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                       total));
  }

private:
  /// A function with a workspace can only be called where the kernel's
  /// plan sees the call: at the kernel's top level.
  static LogicalResult checkCallsAtTopLevel(ModuleOp module,
                                            const CalleeWorkspaces &callees) {
    WalkResult result = module.walk([&](func::CallOp call) {
      auto caller = call->getParentOfType<func::FuncOp>();
      if (callees.count(call.getCallee()) &&
          (!caller.isPublic() || call->getParentOp() != caller)) {
        call.emitError("internal error: a function with a workspace is "
                       "called below the kernel's top level");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace

} // namespace txc
