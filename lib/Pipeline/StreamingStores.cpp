//===- StreamingStores.cpp - Non-temporal stores into large outputs -------===//
//
// An elementwise chain over 16M floats is bound by memory: every output
// line is first read into the cache (a write-allocate), then written back.
// Non-temporal stores (MOVNTPS) write whole lines straight to memory, which
// saves that read: the AVX2 streaming-store loop ran 1.4-1.9x faster than
// txc's plain loop. They pay off only when the output does not stay in the
// cache anyway (a consumer reading it next would have hit in L2/L3), so they
// are used only for the kernel's own outputs, which the caller reads after
// the call (not when the kernel itself reads them after the loop: a bias
// broadcast into the output that a matmul then accumulates into), and only
// above a size; and x86 needs them aligned to the vector
// size, which the ABI does not promise (data is element-aligned).
//
// txc-stream-output-stores therefore versions each top-level loop of a
// function that stores full vectors into kernel outputs at offsets that are
// multiples of the vector length:
//
//   scf.if (every such output is vector-aligned and at least min-bytes) {
//     the loop, its stores marked nontemporal; llvm.fence seq_cst
//   } else {
//     the loop as it was
//   }
//
// The fence orders the weakly-ordered streaming stores before the call's
// return (what SFENCE does after glibc's non-temporal memcpy).
// ConvertVectorToLLVM keeps the `nontemporal` flag but gives every vector
// store its element's alignment, which x86 turns into scalar MOVNTI/MOVNTSD
// stores; txc-align-nontemporal-stores then gives those stores, proven
// aligned by the version's condition, a vector register's alignment.
//
// Kernel outputs are the kernel's memref arguments (inputs are never
// stored to; the workspace is reached only through views) and, in a private
// function (a region), the arguments that every call passes a kernel output.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_STREAMOUTPUTSTORESPASS
#define GEN_PASS_DEF_ALIGNNONTEMPORALSTORESPASS
#include "Passes.h.inc"

namespace {

using OutputArgs = llvm::DenseMap<Operation *, llvm::SmallSetVector<Value, 4>>;

/// The memref arguments of each function that are kernel outputs: every
/// memref argument of a public function, and the arguments of a private
/// function that every call passes one of its caller's. Functions are
/// visited until nothing changes (regions may call outlined functions).
OutputArgs findOutputArguments(ModuleOp module) {
  OutputArgs outputs;
  SmallVector<func::FuncOp> privates;
  for (func::FuncOp function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    if (!function.isPrivate()) {
      for (BlockArgument arg : function.getArguments())
        if (isa<MemRefType>(arg.getType()))
          outputs[function].insert(arg);
      continue;
    }
    privates.push_back(function);
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (func::FuncOp function : privates) {
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(function, module);
      if (!uses || uses->empty())
        continue;
      for (BlockArgument arg : function.getArguments()) {
        if (!isa<MemRefType>(arg.getType()) ||
            outputs[function].contains(arg))
          continue;
        bool everyCallPassesAnOutput =
            llvm::all_of(*uses, [&](const SymbolTable::SymbolUse &use) {
              auto call = dyn_cast<func::CallOp>(use.getUser());
              if (!call)
                return false;
              Value operand = call.getOperand(arg.getArgNumber());
              Operation *caller = call->getParentOfType<func::FuncOp>();
              auto found = outputs.find(caller);
              return found != outputs.end() &&
                     found->second.contains(operand);
            });
        if (everyCallPassesAnOutput) {
          outputs[function].insert(arg);
          changed = true;
        }
      }
    }
  }
  return outputs;
}

/// Whether `index` is a multiple of `lanes` whatever the iteration: a
/// constant multiple, the induction variable of a loop that starts at a
/// multiple and steps by one, or a sum or a product of such.
bool isMultipleOf(Value index, int64_t lanes) {
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant)))
    return constant.getSExtValue() % lanes == 0;
  if (auto loop = scf::getForInductionVarOwner(index))
    return isMultipleOf(loop.getLowerBound(), lanes) &&
           isMultipleOf(loop.getStep(), lanes);
  if (auto add = index.getDefiningOp<arith::AddIOp>())
    return isMultipleOf(add.getLhs(), lanes) &&
           isMultipleOf(add.getRhs(), lanes);
  if (auto mul = index.getDefiningOp<arith::MulIOp>())
    return isMultipleOf(mul.getLhs(), lanes) ||
           isMultipleOf(mul.getRhs(), lanes);
  return false;
}

/// Whether `store` writes whole vector registers into an output at an
/// offset that is a multiple of a register's lanes: then every register
/// stored is aligned whenever the output's first element is.
bool isStreamableStore(vector::StoreOp store,
                       const llvm::SmallSetVector<Value, 4> &outputs,
                       unsigned vectorBits) {
  auto memref = dyn_cast<BlockArgument>(store.getBase());
  if (!memref || !outputs.contains(memref))
    return false;
  MemRefType type = store.getMemRefType();
  VectorType vector = store.getVectorType();
  if (!type.getLayout().isIdentity() || vector.getRank() != 1 ||
      vector.isScalable() || !vector.getElementType().isIntOrFloat() ||
      vector.getNumElements() * vector.getElementTypeBitWidth() % vectorBits)
    return false;
  // Lanes of one register: a store of several registers is aligned when
  // each of them is.
  int64_t lanes = vectorBits / vector.getElementTypeBitWidth();
  // Row r starts at r * (row length): aligned when that length is a
  // multiple of the lanes.
  if (type.getRank() > 1 && (type.isDynamicDim(type.getRank() - 1) ||
                             type.getShape().back() % lanes != 0))
    return false;
  return isMultipleOf(store.getIndices().back(), lanes);
}

/// Whether everything `loop` does with `output` is to store into it: a
/// streaming store followed by a read of the same line would wait for
/// memory.
bool onlyStoresInto(Operation *loop, Value output) {
  return llvm::all_of(output.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (!loop->isAncestor(user))
      return true;
    if (auto store = dyn_cast<vector::StoreOp>(user))
      return store.getBase() == output && store.getValueToStore() != output;
    if (auto store = dyn_cast<memref::StoreOp>(user))
      return store.getMemRef() == output;
    return isa<memref::DimOp>(user);
  });
}

/// Whether an op after `loop` in its block reads `output` (through a view
/// of it, too): a linear layer's bias broadcast into its output, which the
/// matmul after it then accumulates into. Streamed, every line the matmul
/// reads would come back from memory instead of the cache.
bool isReadAfter(Operation *loop, Value output) {
  SmallVector<Value> aliases = {output};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (isa<ViewLikeOpInterface>(user)) {
        llvm::append_range(aliases, user->getResults());
        continue;
      }
      // Stores (a masked remainder's too) and size queries do not read; an
      // op that does not say what it does (a call) may.
      if (isa<MemoryEffectOpInterface>(user) &&
          !hasEffect<MemoryEffects::Read>(user, alias))
        continue;
      Operation *top = loop->getBlock()->findAncestorOpInBlock(*user);
      if (top && top != loop && loop->isBeforeInBlock(top))
        return true;
    }
  }
  return false;
}

/// Whether an output of static shape is too small to stream.
bool isStaticallySmall(Value output, int64_t minBytes) {
  auto type = cast<MemRefType>(output.getType());
  return type.hasStaticShape() &&
         type.getNumElements() * type.getElementTypeBitWidth() / 8 < minBytes;
}

/// `output` is aligned to `alignment` bytes and (unless its shape is
/// static) holds at least `minBytes`.
Value buildStreamingCondition(OpBuilder &builder, Location loc, Value output,
                              int64_t alignment, int64_t minBytes) {
  Value address =
      builder.create<memref::ExtractAlignedPointerAsIndexOp>(loc, output);
  Value misalignment = builder.create<arith::AndIOp>(
      loc, address, builder.create<arith::ConstantIndexOp>(loc, alignment - 1));
  Value aligned = builder.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::eq, misalignment,
      builder.create<arith::ConstantIndexOp>(loc, 0));
  auto type = cast<MemRefType>(output.getType());
  if (type.hasStaticShape())
    return aligned;
  Value elements;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    Value size = builder.createOrFold<memref::DimOp>(loc, output, dim);
    elements = elements ? builder.createOrFold<arith::MulIOp>(loc, elements,
                                                              size)
                        : size;
  }
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  Value minElements = builder.create<arith::ConstantIndexOp>(
      loc, llvm::divideCeil(minBytes, elementBytes));
  Value large = builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge,
                                              elements, minElements);
  return builder.create<arith::AndIOp>(loc, large, aligned);
}

/// Replaces `loop` by `if (condition) {loop with streaming stores; fence}
/// else {loop}`.
void versionLoop(Operation *loop, ArrayRef<vector::StoreOp> stores,
                 Value condition) {
  OpBuilder builder(loop);
  Location loc = loop->getLoc();
  auto version = builder.create<scf::IfOp>(loc, condition,
                                           /*withElseRegion=*/true);
  builder.setInsertionPointToStart(version.thenBlock());
  IRMapping mapping;
  // Each version gets its own copy of the stack buffers only the loop uses
  // (a softmax's row, hoisted out of it): still private to one loop, they
  // let ParallelTasks give each task its own.
  auto function = loop->getParentOfType<func::FuncOp>();
  function.walk([&](memref::AllocaOp buffer) {
    if (!loop->isAncestor(buffer) && !buffer->getUsers().empty() &&
        llvm::all_of(buffer->getUsers(), [&](Operation *user) {
          return loop->isAncestor(user);
        }))
      builder.clone(*buffer, mapping);
  });
  builder.clone(*loop, mapping);
  for (vector::StoreOp store : stores)
    cast<vector::StoreOp>(mapping.lookup(store.getOperation()))
        .setNontemporal(true);
  builder.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::seq_cst);
  loop->moveBefore(version.elseBlock()->getTerminator());
}

class StreamOutputStoresPass
    : public impl::StreamOutputStoresPassBase<StreamOutputStoresPass> {
public:
  using StreamOutputStoresPassBase::StreamOutputStoresPassBase;

  void runOnOperation() override {
    OutputArgs outputs = findOutputArguments(getOperation());
    // In module order, so that the IR built does not depend on pointers.
    for (func::FuncOp function : getOperation().getOps<func::FuncOp>()) {
      auto args = outputs.find(function);
      if (args == outputs.end() || args->second.empty())
        continue;
      for (Operation &op :
           llvm::make_early_inc_range(function.getBody().front()))
        if (op.getNumRegions() > 0)
          streamLoop(&op, args->second);
    }
  }

private:
  /// Versions `loop`, a top-level op of its function, if it stores into
  /// outputs that qualify.
  void streamLoop(Operation *loop,
                  const llvm::SmallSetVector<Value, 4> &outputs) {
    llvm::MapVector<Value, SmallVector<vector::StoreOp>> storesByOutput;
    loop->walk([&](vector::StoreOp store) {
      if (isStreamableStore(store, outputs, vectorBits))
        storesByOutput[store.getBase()].push_back(store);
    });
    SmallVector<vector::StoreOp> stores;
    SmallVector<Value> streamed;
    for (auto &[output, outputStores] : storesByOutput) {
      if (isStaticallySmall(output, minBytes) ||
          !onlyStoresInto(loop, output) || isReadAfter(loop, output))
        continue;
      streamed.push_back(output);
      llvm::append_range(stores, outputStores);
    }
    if (stores.empty())
      return;
    OpBuilder builder(loop);
    Value condition;
    for (Value output : streamed) {
      Value fits = buildStreamingCondition(builder, loop->getLoc(), output,
                                           vectorBits / 8, minBytes);
      condition = condition ? builder.create<arith::AndIOp>(loop->getLoc(),
                                                            condition, fits)
                            : fits;
    }
    versionLoop(loop, stores, condition);
  }
};

/// Gives each non-temporal `llvm.store` of a vector the alignment of a
/// vector register (the condition of its version proved it).
class AlignNontemporalStoresPass
    : public impl::AlignNontemporalStoresPassBase<AlignNontemporalStoresPass> {
public:
  using AlignNontemporalStoresPassBase::AlignNontemporalStoresPassBase;

  void runOnOperation() override {
    getOperation()->walk([&](LLVM::StoreOp store) {
      auto vector = dyn_cast<VectorType>(store.getValue().getType());
      if (!store.getNontemporal() || !vector)
        return;
      int64_t bits = vector.getNumElements() * vector.getElementTypeBitWidth();
      store.setAlignment(std::min<int64_t>(bits, vectorBits) / 8);
    });
  }
};

} // namespace

} // namespace txc
