//===- Workspace.cpp - A kernel's temporaries in one workspace -----------===//
//
// After loop hoisting and stack promotion, the kernel's remaining top-level
// allocations are buffers it would malloc and free on every call (a
// matmul's packed panels: up to 512 KiB; attention's [heads, S, S] scores).
// This pass places them in one workspace, the kernel's new last argument,
// so that a caller can provide the memory once for many calls (docs/abi.md,
// "Workspace"). Those of static shape get offsets now; buffers whose
// lifetimes do not overlap share bytes (planWorkspace). Those whose shape
// follows from the kernel's index arguments (the symbols), or from the dims
// of an argument whose dims MLIRGen recorded as expressions of the symbols
// (txc.dims: a padded copy of an input), come after them,
// at offsets computed at run time in a fixed order, and a size function
// (`<kernel>.workspace_size`) computes the whole size from the symbols for
// the ABI's `<p>_workspace_size`. An allocation inside a loop whose sizes
// have constant upper bounds (a tile's remainder) becomes a view of one
// buffer of the bound's size before the loop. The functions of regions get
// workspaces of their own the same way, which the kernel places in its
// workspace at each call.
//
// The other allocations keep malloc: inside loops without a constant bound
// or kept past an iteration (a `while` body's new state), or sized by data
// the symbols do not determine. A view of an argument is not owned by the
// kernel, so the deallocation pipeline, which runs next, frees none of
// them.
//
//===----------------------------------------------------------------------===//
#include "txc/Pipeline/Workspace.h"
#include "Passes.h"
#include "txc/Conversion/ProgramToMLIR.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
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

void markTaskSlots(Operation *view, uint64_t stride, uint64_t slots) {
  Builder b(view->getContext());
  view->setAttr(kTaskSlotStrideAttr, b.getI64IntegerAttr(int64_t(stride)));
  view->setAttr(kTaskSlotsAttr, b.getI64IntegerAttr(int64_t(slots)));
}

std::optional<std::pair<int64_t, int64_t>> taskSlotsOf(Value value) {
  auto view = value.getDefiningOp<memref::ViewOp>();
  if (!view)
    return std::nullopt;
  auto stride = view->getAttrOfType<IntegerAttr>(kTaskSlotStrideAttr);
  auto slots = view->getAttrOfType<IntegerAttr>(kTaskSlotsAttr);
  if (!stride || !slots)
    return std::nullopt;
  return std::make_pair(stride.getInt(), slots.getInt());
}

uint64_t workspaceBytes(ModuleOp module) {
  auto bytes = module->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr);
  return bytes ? bytes.getValue().getZExtValue() : 0;
}

WorkspaceSize workspaceSize(ModuleOp module) {
  auto function =
      module->getAttrOfType<FlatSymbolRefAttr>(kWorkspaceSizeFunctionAttr);
  return {workspaceBytes(module), bool(function)};
}

namespace {

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

/// The workspace of a function of a region, as its caller sees it.
struct CalleeWorkspace {
  uint64_t staticBytes = 0;
  /// Computes the whole size from the callee's index arguments; null when
  /// the size is `staticBytes`.
  func::FuncOp sizeFunction;
};
using CalleeWorkspaces = llvm::DenseMap<StringRef, CalleeWorkspace>;

/// The expression of the symbols that `value` equals when it is a
/// `memref.dim` of an argument of the function whose body is `body` and
/// whose dims MLIRGen recorded (kArgumentDimsAttr: the guards checked the
/// caller's tensor against them). A padded copy of an input, sized by the
/// input's dim, is then sized by the symbols.
std::optional<AffineExpr> symbolicDim(Value value, Block &body) {
  auto dim = value.getDefiningOp<memref::DimOp>();
  auto function = dyn_cast<func::FuncOp>(body.getParentOp());
  if (!dim || !function)
    return std::nullopt;
  auto argument = dyn_cast<BlockArgument>(dim.getSource());
  std::optional<int64_t> index = dim.getConstantIndex();
  if (!argument || argument.getOwner() != &body || !index)
    return std::nullopt;
  auto dims = function.getArgAttrOfType<AffineMapAttr>(
      argument.getArgNumber(), kArgumentDimsAttr);
  if (!dims || *index < 0 || *index >= dims.getValue().getNumResults() ||
      dims.getValue().getNumSymbols() > body.getNumArguments())
    return std::nullopt;
  // The symbols are the function's first arguments.
  for (BlockArgument symbol :
       body.getArguments().take_front(dims.getValue().getNumSymbols()))
    if (!symbol.getType().isIndex())
      return std::nullopt;
  return dims.getValue().getResult(*index);
}

/// True if `value` is computed from the index arguments of the function
/// whose body is `body` by side-effect-free ops without regions: it can
/// then be recomputed at the function's entry and in its size function.
bool computableFromArguments(Value value, Block &body) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner() == &body && argument.getType().isIndex();
  if (symbolicDim(value, body))
    return true;
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
      op->getBlock() != &body)
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return computableFromArguments(operand, body);
  });
}

bool computableFromArguments(ValueRange values, Block &body) {
  return llvm::all_of(
      values, [&](Value v) { return computableFromArguments(v, body); });
}

/// Recomputes `value` (computableFromArguments) at `b`'s insertion point,
/// the function's index arguments replaced as `mapping` says (in the
/// function itself, not at all).
Value cloneFromArguments(OpBuilder &b, Value value, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *op = value.getDefiningOp();
  if (!op)
    return value;
  Block &body = *op->getBlock();
  if (std::optional<AffineExpr> dim = symbolicDim(value, body)) {
    // The symbols are the leading index arguments (symbolicDim checked).
    SmallVector<Value> symbols;
    for (BlockArgument argument : body.getArguments()) {
      if (!argument.getType().isIndex())
        break;
      symbols.push_back(mapping.lookupOrDefault(argument));
    }
    Value computed =
        affine::expandAffineExpr(b, op->getLoc(), *dim, {}, symbols);
    mapping.map(value, computed);
    return computed;
  }
  for (Value operand : op->getOperands())
    cloneFromArguments(b, operand, mapping);
  b.clone(*op, mapping);
  return mapping.lookup(value);
}

/// An allocation the workspace can hold, whatever its shape: identity
/// layout, default memory space, no alignment beyond the workspace's,
/// elements of a known size.
bool isWorkspaceType(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  Type element = type.getElementType();
  return type.getLayout().isIdentity() && !type.getMemorySpace() &&
         alloc.getAlignment().value_or(1) <= kWorkspaceAlignment &&
         (element.isIntOrIndexOrFloat() || isa<VectorType>(element));
}

/// The bytes of one element times the static dimensions of `type`.
uint64_t staticBytesOf(MemRefType type, const DataLayout &layout) {
  uint64_t bytes = layout.getTypeSize(type.getElementType());
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size))
      bytes *= uint64_t(size);
  return bytes;
}

/// The users of `alloc` and of its views other than those views, each with
/// the value (the buffer or a view) it uses.
SmallVector<std::pair<Operation *, Value>>
usersThroughViews(memref::AllocOp alloc) {
  SmallVector<std::pair<Operation *, Value>> users;
  SmallVector<Value> aliases = {alloc.getResult()};
  while (!aliases.empty()) {
    Value value = aliases.pop_back_val();
    for (Operation *user : value.getUsers()) {
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (view && view.getViewSource() == value)
        aliases.append(user->result_begin(), user->result_end());
      else
        users.push_back({user, value});
    }
  }
  return users;
}

/// True if a user of `alloc` or of one of its views may keep the buffer
/// past its own op (mayEscape) or frees it.
bool mayOutliveItsUsers(memref::AllocOp alloc) {
  return llvm::any_of(usersThroughViews(alloc), [](auto use) {
    return frees(use.first, use.second) || mayEscape(use.first);
  });
}

/// The largest buffer a bounded allocation becomes (4 MiB): past it, a
/// rarely reached bound would make every caller's workspace large.
constexpr uint64_t kMaxBoundedBytes = uint64_t(4) << 20;

/// The bytes of the largest buffer `alloc` can ask for, if each of its
/// dynamic sizes has a constant upper bound.
std::optional<uint64_t> boundedBytes(memref::AllocOp alloc,
                                     const DataLayout &layout) {
  uint64_t bytes = staticBytesOf(alloc.getType(), layout);
  for (Value size : alloc.getDynamicSizes()) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, size, /*stopCondition=*/nullptr,
        /*closedUB=*/true);
    if (failed(bound) || *bound < 0 || uint64_t(*bound) > kMaxBoundedBytes)
      return std::nullopt;
    bytes *= uint64_t(*bound);
    if (bytes > kMaxBoundedBytes)
      return std::nullopt;
  }
  return bytes;
}

/// An allocation of dynamic shape below the top level (a tile's remainder
/// buffer in a loop: `affine.min(6, M - i)` rows) that no user keeps past
/// itself and whose sizes have constant upper bounds becomes a view of one
/// buffer of the largest size, allocated at the top level just before the
/// op that holds it: its iterations reuse that buffer instead of calling
/// malloc and free each time, and placeInWorkspace places it like any
/// static temporary.
void hoistBoundedAllocations(func::FuncOp function, const DataLayout &layout) {
  Block &body = function.getBody().front();
  SmallVector<memref::AllocOp> nested;
  function.walk([&](memref::AllocOp alloc) {
    if (alloc->getBlock() != &body && !alloc.getType().hasStaticShape() &&
        isWorkspaceType(alloc))
      nested.push_back(alloc);
  });
  OpBuilder b(function.getContext());
  for (memref::AllocOp alloc : nested) {
    std::optional<uint64_t> bytes = boundedBytes(alloc, layout);
    if (!bytes || *bytes == 0 || mayOutliveItsUsers(alloc))
      continue;
    b.setInsertionPoint(body.findAncestorOpInBlock(*alloc));
    auto bufferType = MemRefType::get({int64_t(*bytes)}, b.getI8Type());
    Value buffer = b.create<memref::AllocOp>(
        alloc.getLoc(), bufferType, b.getI64IntegerAttr(kWorkspaceAlignment));
    b.setInsertionPoint(alloc);
    Value zero = b.create<arith::ConstantIndexOp>(alloc.getLoc(), 0);
    Value view = b.create<memref::ViewOp>(alloc.getLoc(), alloc.getType(),
                                          buffer, zero,
                                          alloc.getDynamicSizes());
    alloc.replaceAllUsesWith(view);
    alloc.erase();
  }
}

/// The index operands of `call`, which its callee's size function takes.
SmallVector<Value> indexOperands(func::CallOp call) {
  return llvm::to_vector(llvm::make_filter_range(
      call.getOperands(), [](Value v) { return v.getType().isIndex(); }));
}

/// The buffers of one function's workspace: those of static size, placed
/// at compile time (planWorkspace), then those whose size follows from the
/// function's index arguments (the symbols), placed at run time after them.
struct WorkspaceBuffers {
  SmallVector<Operation *> staticUsers, dynamicUsers;
  /// For dynamic buffers, `bytes` is that of the static dimensions only.
  SmallVector<WorkspaceBuffer> staticBuffers, dynamicBuffers;
  /// The static buffers with a copy per task slot (taskSlots): the bytes
  /// of one copy and the number of copies.
  llvm::DenseMap<Operation *, std::pair<uint64_t, uint64_t>> slots;
};

/// Task slots a buffer gets at most, and the bytes of all its slots at
/// most: a task packs its own panels of B (up to 512 KiB each), and a
/// matmul's panel loop has a few to a few dozen iterations.
constexpr uint64_t kMaxTaskSlots = 16;
constexpr uint64_t kMaxSlottedBytes = uint64_t(8) << 20;

/// The outermost loop marked parallel (txc.parallel) that holds every use
/// of `alloc` and of its views, if any.
scf::ForOp parallelLoopOfUses(memref::AllocOp alloc) {
  SmallVector<std::pair<Operation *, Value>> users = usersThroughViews(alloc);
  if (users.empty())
    return {};
  scf::ForOp outermost;
  for (auto loop = users.front().first->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (loop->hasAttr(kParallelLoopAttr) &&
        llvm::all_of(users, [&](auto use) {
          return loop->isAncestor(use.first);
        }))
      outermost = loop;
  return outermost;
}

/// How many copies of the static temporary `alloc` (`bytes` long) the
/// workspace holds: one per task slot when only the iterations of a loop
/// marked parallel use it (a matmul's packed panel of B, written and read
/// by each panel's iteration), so that ParallelTasks can run those
/// iterations as concurrent tasks, task k in slot k, instead of keeping
/// the loop serial; 1 otherwise. At most the loop's trip count when it is
/// a constant.
uint64_t taskSlots(memref::AllocOp alloc, uint64_t bytes) {
  scf::ForOp loop = parallelLoopOfUses(alloc);
  if (!loop || bytes == 0)
    return 1;
  uint64_t slots = std::min(kMaxTaskSlots, kMaxSlottedBytes / bytes);
  if (std::optional<int64_t> trips = constantTripCount(
          loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
    slots = std::min(slots, uint64_t(std::max<int64_t>(*trips, 1)));
  return std::max<uint64_t>(slots, 1);
}

/// Sorts the top-level allocations and calls of `body` into `buffers`.
void collectBuffers(Block &body, const DataLayout &layout,
                    const CalleeWorkspaces &callees,
                    WorkspaceBuffers &buffers) {
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = unsigned(index);
  auto add = [&](Operation *user, WorkspaceBuffer buffer, bool isStatic) {
    (isStatic ? buffers.staticUsers : buffers.dynamicUsers).push_back(user);
    (isStatic ? buffers.staticBuffers : buffers.dynamicBuffers)
        .push_back(buffer);
  };
  for (Operation &op : body) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      // Empty buffers stay allocations: a workspace of 0 bytes is none.
      uint64_t bytes = staticBytesOf(alloc.getType(), layout);
      if (!isWorkspaceType(alloc) || bytes == 0 ||
          !computableFromArguments(alloc.getDynamicSizes(), body))
        continue;
      std::optional<unsigned> end = lastUse(alloc, body, position);
      if (!end)
        continue;
      bool isStatic = alloc.getType().hasStaticShape();
      uint64_t slots = isStatic ? taskSlots(alloc, bytes) : 1;
      // Every slot starts at the workspace's alignment.
      uint64_t stride = llvm::alignTo(bytes, kWorkspaceAlignment);
      if (slots > 1)
        buffers.slots[alloc] = {stride, slots};
      add(alloc, {slots > 1 ? stride * slots : bytes, position[alloc], *end},
          isStatic);
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      // checkCallees made sure the sizes of dynamic ones are computable.
      auto it = callees.find(call.getCallee());
      if (it != callees.end())
        add(call, {it->second.staticBytes, position[call], position[call]},
            !it->second.sizeFunction);
    }
  }
}

/// The bytes `user` (an allocation of dynamic shape or a call of a
/// function with a dynamic workspace) needs, computed at `b`.
Value emitDynamicBytes(OpBuilder &b, Operation *user, uint64_t staticBytes,
                       IRMapping &mapping, const CalleeWorkspaces &callees) {
  Location loc = user->getLoc();
  if (auto call = dyn_cast<func::CallOp>(user)) {
    SmallVector<Value> operands;
    for (Value operand : indexOperands(call))
      operands.push_back(cloneFromArguments(b, operand, mapping));
    func::FuncOp size = callees.lookup(call.getCallee()).sizeFunction;
    return b.create<func::CallOp>(loc, size, operands).getResult(0);
  }
  Value bytes = b.create<arith::ConstantIndexOp>(loc, int64_t(staticBytes));
  for (Value size : cast<memref::AllocOp>(user).getDynamicSizes())
    bytes = b.create<arith::MulIOp>(loc, bytes,
                                    cloneFromArguments(b, size, mapping));
  return bytes;
}

/// Where the buffers of dynamic size live, computed at run time.
struct DynamicLayout {
  SmallVector<Value> offsets, bytes;
  Value total; ///< the whole workspace's bytes, a multiple of 64
};

/// Computes at `b` the offsets of the dynamic buffers: in program order,
/// each at the first multiple of 64 past the static part and past every
/// earlier dynamic buffer whose lifetime overlaps its own (buffers never
/// live at the same time may share bytes). A fixed order: deterministic.
DynamicLayout emitDynamicLayout(OpBuilder &b, Location loc,
                                const WorkspaceBuffers &buffers,
                                uint64_t staticBytes, IRMapping &mapping,
                                const CalleeWorkspaces &callees) {
  auto constant = [&](int64_t value) -> Value {
    return b.create<arith::ConstantIndexOp>(loc, value);
  };
  Value base = constant(int64_t(staticBytes));
  Value roundUp = constant(int64_t(kWorkspaceAlignment - 1));
  Value mask = constant(-int64_t(kWorkspaceAlignment));
  DynamicLayout layout;
  layout.total = base;
  SmallVector<Value> ends;
  for (auto [i, user] : llvm::enumerate(buffers.dynamicUsers)) {
    const WorkspaceBuffer &buffer = buffers.dynamicBuffers[i];
    Value offset = base;
    for (unsigned j = 0; j < i; ++j) {
      const WorkspaceBuffer &other = buffers.dynamicBuffers[j];
      if (other.begin <= buffer.end && buffer.begin <= other.end)
        offset = b.create<arith::MaxUIOp>(loc, offset, ends[j]);
    }
    Value bytes = emitDynamicBytes(b, user, buffer.bytes, mapping, callees);
    Value aligned = b.create<arith::AndIOp>(
        loc, b.create<arith::AddIOp>(loc, bytes, roundUp), mask);
    ends.push_back(b.create<arith::AddIOp>(loc, offset, aligned));
    layout.offsets.push_back(offset);
    layout.bytes.push_back(bytes);
    layout.total = b.create<arith::MaxUIOp>(loc, layout.total, ends.back());
  }
  return layout;
}

/// `function`'s size function, `<function>.workspace_size`: its index
/// arguments in, its workspace's bytes out. Internal in the object, like
/// the functions of regions; `<p>_workspace_size` and the entry points
/// call the kernel's.
func::FuncOp createSizeFunction(func::FuncOp function,
                                const WorkspaceBuffers &buffers,
                                uint64_t staticBytes,
                                const CalleeWorkspaces &callees) {
  Block &body = function.getBody().front();
  auto indexArguments = llvm::to_vector(llvm::make_filter_range(
      body.getArguments(),
      [](BlockArgument argument) { return argument.getType().isIndex(); }));
  OpBuilder b(function);
  MLIRContext *context = function.getContext();
  SmallVector<Type> types(indexArguments.size(), b.getIndexType());
  auto size = b.create<func::FuncOp>(
      function.getLoc(), (function.getSymName() + ".workspace_size").str(),
      FunctionType::get(context, types, {b.getIndexType()}));
  size.setPrivate();
  size->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  Block *entry = size.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [from, to] : llvm::zip(indexArguments, entry->getArguments()))
    mapping.map(from, to);
  DynamicLayout layout = emitDynamicLayout(b, function.getLoc(), buffers,
                                           staticBytes, mapping, callees);
  b.create<func::ReturnOp>(function.getLoc(), layout.total);
  return size;
}

/// Replaces `user` by a view of `workspace` at `offset`: an allocation by
/// a view of its type, a call gets the view of its callee's workspace
/// (`bytes` long: a constant or `dynamicBytes`) as its new last operand.
/// Returns the view.
Operation *replaceByView(OpBuilder &b, Value workspace, Operation *user,
                         Value offset, uint64_t bytes, Value dynamicBytes) {
  b.setInsertionPoint(user);
  Location loc = user->getLoc();
  if (auto alloc = dyn_cast<memref::AllocOp>(user)) {
    auto view = b.create<memref::ViewOp>(loc, alloc.getType(), workspace,
                                         offset, alloc.getDynamicSizes());
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
    return view;
  }
  SmallVector<Value> sizes;
  if (dynamicBytes)
    sizes.push_back(dynamicBytes);
  auto type = MemRefType::get(
      {dynamicBytes ? ShapedType::kDynamic : int64_t(bytes)}, b.getI8Type());
  auto view = b.create<memref::ViewOp>(loc, type, workspace, offset, sizes);
  user->insertOperands(user->getNumOperands(), view.getResult());
  return view;
}

/// What placeInWorkspace made of a function's workspace: none when both
/// are null.
using PlacedWorkspace = CalleeWorkspace;

/// Moves the top-level allocations of `function` whose size is static or
/// follows from its index arguments into a workspace, its new last
/// argument, together with the workspaces of the functions it calls (each
/// a view at its call, live during the call only). The static ones come
/// first, at offsets fixed now; the others after them, at offsets computed
/// at the function's entry (and in its size function) from its arguments.
PlacedWorkspace placeInWorkspace(func::FuncOp function,
                                 const CalleeWorkspaces &callees) {
  if (!function.getBody().hasOneBlock())
    return {};
  Block &body = function.getBody().front();
  DataLayout dataLayout = DataLayout::closest(function);
  hoistBoundedAllocations(function, dataLayout);
  WorkspaceBuffers buffers;
  collectBuffers(body, dataLayout, callees, buffers);
  if (buffers.staticUsers.empty() && buffers.dynamicUsers.empty())
    return {};
  PlacedWorkspace placed;
  WorkspacePlan plan = planWorkspace(buffers.staticBuffers);
  placed.staticBytes = plan.totalBytes;
  bool dynamic = !buffers.dynamicUsers.empty();
  if (dynamic)
    placed.sizeFunction =
        createSizeFunction(function, buffers, plan.totalBytes, callees);
  OpBuilder b(function.getContext());
  auto type = MemRefType::get(
      {dynamic ? ShapedType::kDynamic : int64_t(plan.totalBytes)},
      b.getI8Type());
  function.insertArgument(function.getNumArguments(), type, nullptr,
                          function.getLoc());
  // Its alignment is told to LLVM by the ABI emitter: the deallocation
  // pipeline rejects memref.assume_alignment (no memory effects).
  Value workspace = body.getArguments().back();
  DynamicLayout layout;
  if (dynamic) {
    // At the entry: the offsets are then defined wherever they are used.
    b.setInsertionPointToStart(&body);
    IRMapping mapping;
    layout = emitDynamicLayout(b, function.getLoc(), buffers, plan.totalBytes,
                               mapping, callees);
  }
  for (auto [user, buffer, offset] :
       llvm::zip(buffers.staticUsers, buffers.staticBuffers, plan.offsets)) {
    b.setInsertionPoint(user);
    Value shift = b.create<arith::ConstantIndexOp>(user->getLoc(), offset);
    auto slotted = buffers.slots.find(user);
    Operation *view =
        replaceByView(b, workspace, user, shift, buffer.bytes, nullptr);
    if (slotted != buffers.slots.end())
      markTaskSlots(view, slotted->second.first, slotted->second.second);
  }
  for (auto [user, offset, bytes] :
       llvm::zip(buffers.dynamicUsers, layout.offsets, layout.bytes))
    replaceByView(b, workspace, user, offset, 0, bytes);
  return placed;
}

class WorkspacePass
    : public impl::WorkspacePassBase<WorkspacePass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The functions of regions (private, called by the kernel at its top
    // level) first: the kernel's plan places their workspaces.
    // Size functions are added as functions are placed: iterate a copy.
    auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
    CalleeWorkspaces callees;
    for (func::FuncOp function : functions)
      if (function.isPrivate() && !function.isExternal()) {
        PlacedWorkspace placed = placeInWorkspace(function, {});
        if (placed.staticBytes != 0 || placed.sizeFunction)
          callees[function.getSymName()] = placed;
      }
    if (failed(checkCallees(module, callees)))
      return signalPassFailure();
    // The kernel is the module's only public function.
    std::optional<PlacedWorkspace> kernel;
    for (func::FuncOp function : functions)
      if (function.isPublic() && !function.isExternal()) {
        if (kernel) {
          function.emitError("internal error: a second kernel needs a "
                             "workspace");
          return signalPassFailure();
        }
        kernel = placeInWorkspace(function, callees);
        if (kernel->staticBytes == 0 && !kernel->sizeFunction)
          kernel.reset();
      }
    if (!kernel)
      return;
    module->setAttr(kWorkspaceBytesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     kernel->staticBytes));
    if (kernel->sizeFunction)
      module->setAttr(kWorkspaceSizeFunctionAttr,
                      FlatSymbolRefAttr::get(kernel->sizeFunction));
  }

private:
  /// A function with a workspace can only be called where the kernel's
  /// plan sees the call: at the kernel's top level, with index operands
  /// that the kernel's size function can compute when the callee's
  /// workspace size depends on them.
  static LogicalResult checkCallees(ModuleOp module,
                                    const CalleeWorkspaces &callees) {
    WalkResult result = module.walk([&](func::CallOp call) {
      auto callee = callees.find(call.getCallee());
      if (callee == callees.end())
        return WalkResult::advance();
      auto caller = call->getParentOfType<func::FuncOp>();
      if (!caller.isPublic() || call->getParentOp() != caller) {
        call.emitError("internal error: a function with a workspace is "
                       "called below the kernel's top level");
        return WalkResult::interrupt();
      }
      if (callee->second.sizeFunction &&
          !computableFromArguments(indexOperands(call), *call->getBlock())) {
        call.emitError("internal error: the workspace size of a call does "
                       "not follow from the kernel's index arguments");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace

} // namespace txc
