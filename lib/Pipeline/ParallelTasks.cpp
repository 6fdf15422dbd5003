//===- ParallelTasks.cpp - Parallel tile loops into tasks of the caller ---===//
//
// The object has no thread pool and no global state: a caller that wants
// threads hands it a parallel-for (docs/abi.md, "Threads"). The kernel
// receives the call's parallel context as its first argument, a pointer to
// `{parallel_for, ctx, num_threads}` (NULL for the entry points without
// options). The tiling marks the loops it creates over parallel dimensions
// (`txc.parallel`); here, after bufferization, the outermost marked loop of
// each nest whose iterations write disjoint memory becomes a task launch:
//
//   * its body is outlined into `void <kernel>_task<k>(void *arg, int64_t i)`,
//     which runs iteration i; the values the body uses from outside (memref
//     descriptors, indices, scalars) are packed in a struct on the
//     launcher's stack and unpacked by the task;
//   * the loop is replaced by `parallel_for(ctx, n, task, &arg)` when the
//     caller gave one, more than one thread and enough work, and otherwise
//     by a serial loop calling the same task function.
//
// Every output element is computed by one task with the same code whatever
// the thread count (a task is one iteration of a loop over a parallel
// dimension: a reduction is never split), so results are bitwise identical
// for every thread count. A task never calls the hook again: marked loops
// inside a launched loop stay serial loops in the task. A launched loop
// with too few iterations for the threads (a convolution's loop over the
// batch at batch 1) has a nested copy that runs it on the caller's thread
// and launches the marked loops inside it instead.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_PARALLELTASKSPASS
#include "Passes.h.inc"

namespace {

constexpr StringLiteral kParallel = kParallelLoopAttr;

/// A launch goes to the caller's parallel_for only when the loop does at
/// least this many operations (one per scalar op, one per vector lane, an
/// estimate counted in the IR): about 20-50 us of work on one core, well
/// above what a thread pool's wake-up and join cost (a few us). Smaller
/// loops run serially, where a launch would cost more than it saves.
constexpr int64_t kMinParallelWork = int64_t(1) << 16;

/// Operations a task should do at least when the loop has enough
/// iterations (about 5-10 us on one core): consecutive iterations of a
/// short body (a row chunk of an elementwise op) are grouped into one task.
constexpr int64_t kTaskWork = int64_t(1) << 14;

/// Trip count assumed in the work estimate for an inner loop whose bounds
/// change from one iteration to the next (the bounds known before the loop
/// are used as they are): such loops are the remainders that peeling left
/// (the last rows or columns that do not fill a tile), a few iterations.
constexpr int64_t kDynamicTrips = 2;

} // namespace

void markParallelTileLoops(TilingInterface op, ArrayRef<int64_t> sizes,
                           ArrayRef<int64_t> interchange,
                           ArrayRef<LoopLikeOpInterface> loops) {
  // tileUsingSCF creates one loop per non-zero tile size, outermost first,
  // in the interchanged order of the dimensions.
  SmallVector<utils::IteratorType> iterators = op.getLoopIteratorTypes();
  SmallVector<unsigned> tiledDims;
  for (size_t i = 0; i < sizes.size(); ++i) {
    unsigned dim = interchange.empty() ? i : unsigned(interchange[i]);
    if (dim < sizes.size() && sizes[dim] != 0)
      tiledDims.push_back(dim);
  }
  if (tiledDims.size() != loops.size())
    return;
  for (auto [dim, loop] : llvm::zip(tiledDims, loops))
    if (dim < iterators.size() &&
        iterators[dim] == utils::IteratorType::parallel)
      loop->setAttr(kParallel, UnitAttr::get(op->getContext()));
}

namespace {

/// Whether the view `op` moves to a position that depends on the loop's
/// induction variable (`dependent`: the ops that do). Only offsets count:
/// a view of the same bytes whose sizes follow the iteration (a tile
/// remainder's buffer the Workspace pass hoisted out of the loop,
/// `memref.view %buffer[%c0][%rows]`) is the same memory in every
/// iteration.
bool movesWithIteration(Operation *op, scf::ForOp loop,
                        const llvm::SetVector<Operation *> &dependent) {
  auto isDependent = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return v == loop.getInductionVar() || (def && dependent.contains(def));
  };
  if (auto view = dyn_cast<memref::ViewOp>(op))
    return isDependent(view.getByteShift());
  if (auto sliced = dyn_cast<OffsetSizeAndStrideOpInterface>(op))
    return llvm::any_of(sliced.getOffsets(), isDependent);
  // Reshapes and casts keep their source's position.
  return false;
}

/// Whether every use of `buffer` and of the views taken of it is inside
/// `loop`: a temporary of each iteration that was placed outside the loop
/// (by buffer hoisting, or the Workspace pass's hoisting of bounded
/// allocations), which every iteration overwrites.
bool onlyUsedInside(Value buffer, scf::ForOp loop) {
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (loop->isAncestor(user))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    return view && view.getViewSource() == buffer &&
           llvm::all_of(user->getResults(), [&](Value result) {
             return onlyUsedInside(result, loop);
           });
  });
}

/// Where a write through `view` goes, seen from `loop`.
struct WrittenBuffer {
  /// The buffer the views are taken of.
  Value root;
  /// A view on the way moves with the induction variable.
  bool depends = false;
  /// A buffer on the way lives outside the loop and only the loop uses it:
  /// scratch shared by the iterations.
  bool scratch = false;
  /// Such a buffer on the way has a copy per task slot (taskSlotsOf): each
  /// task writes its own.
  bool slotted = false;
};

WrittenBuffer viewRoot(Value view, scf::ForOp loop,
                       const llvm::SetVector<Operation *> &dependent) {
  WrittenBuffer written;
  // An argument is the caller's memory (an output), never scratch, and so
  // is a memref a nested copy (createSerial) loads from its argument struct:
  // what the outer loop captured is no buffer only its iterations use.
  auto outside = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return def && !isa<UnrealizedConversionCastOp>(def) &&
           !loop->isAncestor(def);
  };
  while (true) {
    if (outside(view) && onlyUsedInside(view, loop))
      (taskSlotsOf(view) ? written.slotted : written.scratch) = true;
    auto viewLike = dyn_cast_or_null<ViewLikeOpInterface>(view.getDefiningOp());
    if (!viewLike)
      break;
    if (dependent.contains(viewLike) &&
        movesWithIteration(viewLike, loop, dependent))
      written.depends = true;
    view = viewLike.getViewSource();
  }
  written.root = view;
  return written;
}

/// Whether `value` is a stack buffer that only `loop` uses: a temporary of
/// each iteration that buffer hoisting moved out of the loop (the row of a
/// softmax). Each task gets its own copy of it.
bool isPrivateBuffer(Value value, scf::ForOp loop) {
  auto alloca = value.getDefiningOp<memref::AllocaOp>();
  return alloca && alloca.getType().hasStaticShape() &&
         alloca->getNumOperands() == 0 &&
         llvm::all_of(alloca->getUsers(),
                      [&](Operation *user) { return loop->isAncestor(user); });
}

/// The indices at which `op` stores into a memref, if it is a store.
std::optional<ValueRange> storeIndices(Operation *op) {
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return ValueRange(store.getIndices());
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return ValueRange(store.getIndices());
  if (auto store = dyn_cast<vector::MaskedStoreOp>(op))
    return ValueRange(store.getIndices());
  if (auto store = dyn_cast<vector::TransferWriteOp>(op))
    return ValueRange(store.getIndices());
  return std::nullopt;
}

/// Whether the iterations of `loop` write disjoint memory: every write to
/// a buffer that lives outside the loop goes through a view, or stores at
/// indices, that depend on the induction variable (a tile of the output,
/// which the tiling made disjoint per iteration). A buffer written whole by
/// each iteration (a temporary hoisted out of the loop, a slot of the
/// workspace) or an op whose effects are unknown keep the loop serial.
bool writesDisjointTiles(scf::ForOp loop) {
  llvm::SetVector<Operation *> dependent;
  getForwardSlice(loop.getInductionVar(), &dependent);
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value written = effect.getValue();
      if (!written)
        return WalkResult::interrupt();
      auto [root, depends, scratch, slotted] =
          viewRoot(written, loop, dependent);
      // A buffer allocated inside the loop is the iteration's own, and so
      // is a private buffer, which each task recreates. Other scratch is
      // shared by the iterations (a workspace slot): the loop stays serial.
      bool isPrivate = isPrivateBuffer(root, loop);
      if (scratch && !isPrivate)
        return WalkResult::interrupt();
      bool local = loop->isAncestor(root.getParentRegion()->getParentOp()) ||
                   isPrivate || slotted;
      if (std::optional<ValueRange> indices = storeIndices(op))
        depends |= llvm::any_of(*indices, [&](Value index) {
          return index == loop.getInductionVar() ||
                 (index.getDefiningOp() &&
                  dependent.contains(index.getDefiningOp()));
        });
      if (!local && !depends)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Trip count of a loop with a positive step, as an index:
/// max(ceil((ub - lb) / step), 0).
Value tripCount(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  Value span = b.create<arith::SubIOp>(loc, ub, lb);
  return b.create<arith::MaxSIOp>(
      loc, b.create<arith::CeilDivSIOp>(loc, span, step),
      b.create<arith::ConstantIndexOp>(loc, 0));
}

/// The operations one iteration of `loop` performs, computed before the
/// loop and clamped to kMinParallelWork (i64): every op counts once per
/// lane of its vector result (a move of lanes between vectors once) and
/// once per iteration of the loops around it
/// inside `loop`. The trip counts of those loops are constants, values
/// computed before `loop` (a dynamic row length), or, when they depend on
/// the iteration, kDynamicTrips.
Value estimateWork(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  auto invariant = [&](Value v) {
    return !loop->isAncestor(v.getParentRegion()->getParentOp());
  };
  // Ops grouped by the loops of run-time trip count around them, in the
  // order the groups appear (deterministic IR).
  SmallVector<std::pair<SmallVector<Operation *>, int64_t>> groups;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::YieldOp>(op))
      return;
    // Moving lanes between vectors costs one op, not one per lane.
    bool laneMove =
        isa<vector::InsertOp, vector::ExtractOp, vector::InsertStridedSliceOp,
            vector::ExtractStridedSliceOp, vector::ShuffleOp,
            vector::BroadcastOp, vector::SplatOp, vector::ShapeCastOp>(op);
    int64_t count = 1;
    for (Type type : op->getResultTypes())
      if (auto vector = dyn_cast<VectorType>(type); vector && !laneMove)
        count = std::max(count, vector.getNumElements());
    SmallVector<Operation *> dynamicLoops;
    for (Operation *parent = op->getParentOp(); parent != loop;
         parent = parent->getParentOp()) {
      auto inner = dyn_cast<scf::ForOp>(parent);
      if (!inner)
        continue;
      std::optional<int64_t> trips = constantTripCount(
          inner.getLowerBound(), inner.getUpperBound(), inner.getStep());
      if (!trips && llvm::all_of(inner.getOperands().take_front(3), invariant))
        dynamicLoops.push_back(inner);
      else
        count = std::min(count * (trips ? *trips : kDynamicTrips),
                         kMinParallelWork);
    }
    auto group = llvm::find_if(
        groups, [&](const auto &g) { return g.first == dynamicLoops; });
    if (group == groups.end())
      group = groups.insert(groups.end(), {dynamicLoops, 0});
    group->second = std::min(group->second + count, kMinParallelWork);
  });
  auto clamp = [&](Value v) {
    return b.create<arith::MinSIOp>(
        loc, v, b.create<arith::ConstantIntOp>(loc, kMinParallelWork, 64));
  };
  Value work = b.create<arith::ConstantIntOp>(loc, 0, 64);
  for (auto &[dynamicLoops, count] : groups) {
    Value product = b.create<arith::ConstantIntOp>(loc, count, 64);
    for (Operation *op : dynamicLoops) {
      auto inner = cast<scf::ForOp>(op);
      Value trips = b.create<arith::IndexCastOp>(
          loc, b.getI64Type(),
          tripCount(b, loc, inner.getLowerBound(), inner.getUpperBound(),
                    inner.getStep()));
      product = b.create<arith::MulIOp>(loc, product, clamp(trips));
      product = clamp(product);
    }
    work = clamp(b.create<arith::AddIOp>(loc, work, product));
  }
  return work;
}

/// How a value the task uses from outside is stored in its argument struct.
Type fieldType(Type type) {
  MLIRContext *context = type.getContext();
  if (isa<IndexType>(type))
    return IntegerType::get(context, 64);
  if (type.isIntOrFloat())
    return type;
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return nullptr;
  // The descriptor of the LLVM lowering: allocated and aligned pointers,
  // offset, sizes and strides.
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (memref.getRank() > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, memref.getRank());
    fields.append({array, array});
  }
  return LLVM::LLVMStructType::getLiteral(context, fields);
}

/// `value` of type `to`, converted from or to its field type.
Value castTo(OpBuilder &b, Location loc, Value value, Type to) {
  if (value.getType() == to)
    return value;
  if (isa<IndexType>(to) || isa<IndexType>(value.getType()))
    return b.create<arith::IndexCastOp>(loc, to, value);
  return b.create<UnrealizedConversionCastOp>(loc, to, value).getResult(0);
}

/// The values `loop` uses from outside, with its bounds and step.
llvm::SetVector<Value> usedValues(scf::ForOp loop) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(loop.getRegion(), used);
  for (Value bound :
       {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    used.insert(bound);
  return used;
}

/// Whether the task computes `op` again rather than receiving its results:
/// an op without memory effects or regions (a constant, index arithmetic
/// on the symbols, a view of a buffer at a fixed offset), or a private
/// buffer. The task then sees what the serial code sees (a constant tile
/// size, a view's constant offset and strides) instead of values loaded
/// from its argument, which LLVM could not fold: recomputing them costs the
/// serial path nothing, loading them cost it up to 5% (attention).
bool isRecreated(Operation *op, scf::ForOp loop) {
  if (op->getNumResults() == 1 && isPrivateBuffer(op->getResult(0), loop))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         !isa<UnrealizedConversionCastOp>(op);
}

/// What the task receives in its argument struct (`captured`) and what it
/// computes again (`recreated`, each op after those defining its operands).
struct TaskInputs {
  llvm::SetVector<Value> captured;
  llvm::SetVector<Operation *> recreated;
};

/// Collects the inputs `value` needs: recreated ops after their operands'
/// inputs, everything else captured.
void collectInput(Value value, scf::ForOp loop, TaskInputs &inputs) {
  Operation *def = value.getDefiningOp();
  if (!def || !isRecreated(def, loop)) {
    inputs.captured.insert(value);
    return;
  }
  if (inputs.recreated.contains(def))
    return;
  for (Value operand : def->getOperands())
    collectInput(operand, loop, inputs);
  inputs.recreated.insert(def);
}

TaskInputs taskInputs(scf::ForOp loop) {
  TaskInputs inputs;
  for (Value value : usedValues(loop))
    collectInput(value, loop, inputs);
  return inputs;
}

/// Stores `value` in field `field` of the argument struct at `arg`.
void storeField(OpBuilder &b, Location loc, Value arg,
                LLVM::LLVMStructType argType, unsigned field, Value value) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value slot = b.create<LLVM::GEPOp>(loc, ptr, argType, arg,
                                     ArrayRef<LLVM::GEPArg>{0, int32_t(field)});
  b.create<LLVM::StoreOp>(loc, value, slot);
}

/// Iterations per task (i64): enough for about kTaskWork operations each,
/// so that a task costs more than handing it out, but at most
/// trips / (4 * threads), so that every thread gets several tasks to
/// balance the load; at least 1.
Value taskGrain(OpBuilder &b, Location loc, Value trips, Value work,
                Value threads, int64_t slots) {
  auto c = [&](int64_t v) { return b.create<arith::ConstantIntOp>(loc, v, 64); };
  Value byWork = b.create<arith::CeilDivSIOp>(
      loc, c(kTaskWork), b.create<arith::MaxSIOp>(loc, work, c(1)));
  Value byThreads = b.create<arith::DivSIOp>(
      loc, trips,
      b.create<arith::MulIOp>(loc, b.create<arith::MaxSIOp>(loc, threads, c(1)),
                              c(4)));
  Value grain = b.create<arith::MaxSIOp>(
      loc, b.create<arith::MinSIOp>(loc, byWork, byThreads), c(1));
  if (slots == 0)
    return grain;
  // At most `slots` tasks: ceil(trips / grain) <= slots.
  return b.create<arith::MaxSIOp>(
      loc, grain, b.create<arith::CeilDivSIOp>(loc, trips, c(slots)));
}

/// The views of a per-task-slot temporary (taskSlotsOf) among `recreated`
/// that only `loop` uses: each task moves its copy to its own slot. Views
/// that other code uses too (the loop is a packing loop inside the loop the
/// temporary belongs to) stay the serial code's slot 0.
SmallVector<Operation *> slottedViews(ArrayRef<Operation *> recreated,
                                      scf::ForOp loop) {
  SmallVector<Operation *> views;
  for (Operation *op : recreated)
    if (op->getNumResults() == 1 && taskSlotsOf(op->getResult(0)) &&
        onlyUsedInside(op->getResult(0), loop))
      views.push_back(op);
  return views;
}

/// The fewest slots of `views` (0 if there are none: no limit).
int64_t fewestSlots(ArrayRef<Operation *> views) {
  int64_t fewest = 0;
  for (Operation *view : views) {
    int64_t slots = taskSlotsOf(view->getResult(0))->second;
    fewest = fewest ? std::min(fewest, slots) : slots;
  }
  return fewest;
}

/// Moves the copies in `task` of `views` to the slot of the task's index
/// `index` (the task's i64 argument): the byte shift grows by k * stride.
void moveToTaskSlot(OpBuilder &b, ArrayRef<Operation *> views,
                    IRMapping &mapping, Value index) {
  for (Operation *original : views) {
    auto view = cast<memref::ViewOp>(
        mapping.lookup(original->getResult(0)).getDefiningOp());
    int64_t stride = taskSlotsOf(original->getResult(0))->first;
    b.setInsertionPoint(view);
    Location loc = view.getLoc();
    Value k = b.create<arith::IndexCastOp>(loc, b.getIndexType(), index);
    Value shift = b.create<arith::AddIOp>(
        loc, view.getByteShift(),
        b.create<arith::MulIOp>(
            loc, k, b.create<arith::ConstantIndexOp>(loc, stride)));
    view.getByteShiftMutable().assign(shift);
  }
}

/// Constant trip count the loops of a collapsed nest reach at least: a
/// launch over fewer iterations leaves threads idle.
constexpr int64_t kMinCollapsedTrips = 8;

/// The loop marked parallel that is the only op in `loop`'s body, with
/// bounds that do not depend on `loop`'s iteration and iterations that
/// write disjoint memory too, if any: the two nested loops can run as one
/// loop over their trip counts' product.
scf::ForOp perfectlyNestedParallelLoop(scf::ForOp loop) {
  Block *body = loop.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()))
    return {};
  auto inner = dyn_cast<scf::ForOp>(body->front());
  if (!inner || !inner->hasAttr(kParallel) || inner.getNumResults() != 0)
    return {};
  auto definedOutside = [&](Value v) {
    return !loop.getRegion().isAncestor(v.getParentRegion());
  };
  if (!definedOutside(inner.getLowerBound()) ||
      !definedOutside(inner.getUpperBound()) ||
      !definedOutside(inner.getStep()) || !writesDisjointTiles(inner))
    return {};
  return inner;
}

/// The trip count of `loop` if it is a constant, else 1.
int64_t knownTrips(scf::ForOp loop) {
  return constantTripCount(loop.getLowerBound(), loop.getUpperBound(),
                           loop.getStep())
      .value_or(1);
}

/// Collapses `loop` with the parallel loops perfectly nested in it until the
/// known trip counts reach kMinCollapsedTrips: a loop over the batch of a
/// convolution (one iteration at batch 1) becomes one over the batch and
/// the tiles of output channels, so that a batch-1 call has tasks for
/// every thread. Each iteration still computes the same tile with the same
/// code, only the iteration order is linear. Returns the product of the
/// constant trip counts of the loops now in `loop` (1 for a symbol's).
int64_t collapseParallelNest(scf::ForOp loop) {
  SmallVector<scf::ForOp> nest = {loop};
  int64_t trips = knownTrips(loop);
  while (trips < kMinCollapsedTrips) {
    scf::ForOp inner = perfectlyNestedParallelLoop(nest.back());
    if (!inner)
      break;
    nest.push_back(inner);
    trips *= knownTrips(inner);
  }
  if (nest.size() < 2)
    return trips;
  IRRewriter rewriter(loop.getContext());
  if (failed(coalesceLoops(rewriter, nest)))
    return knownTrips(loop);
  loop->setAttr(kParallel, UnitAttr::get(loop.getContext()));
  return trips;
}

/// Whether a marked loop is nested in `loop`'s body.
bool hasMarkedLoopInside(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](scf::ForOp inner) {
        return inner->hasAttr(kParallel) ? WalkResult::interrupt()
                                         : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A loop to launch, whether its serial copy for a call with threads keeps
/// the marked loops inside it (createSerial), and its slotted views
/// (slottedViews), found before any loop of the function became a task:
/// once the packing loop of a panel is a task, the panel's views are used
/// by the row loop alone, yet what they view is the slot the packing
/// wrote.
struct LaunchableLoop {
  scf::ForOp loop;
  bool nests;
  SmallVector<Operation *> slotted;
};

class ParallelTasksPass
    : public impl::ParallelTasksPassBase<ParallelTasksPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions;
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      if (!function.isExternal())
        functions.push_back(function);
    passContext(functions);
    // The functions whose loops become tasks, with their context: those of
    // passContext, then the nested serial copies formTask creates.
    // A nested copy's loops get no nested copies of their own: the copies
    // would multiply (a row loop over S in a loop over the batch in the
    // encoder) for loops that are launched anyway.
    SmallVector<std::pair<func::FuncOp, Value>> worklist;
    for (func::FuncOp function : functions)
      if (withContext.contains(function.getName()))
        worklist.push_back({function, function.getArgument(0)});
    llvm::DenseSet<Operation *> nestedCopies;
    while (!worklist.empty()) {
      auto [function, parallel] = worklist.pop_back_val();
      unsigned index = 0;
      for (const LaunchableLoop &loop :
           launchableLoops(function, !nestedCopies.contains(function)))
        if (func::FuncOp nested = formTask(
                loop, parallel,
                (function.getName() + "_task" + Twine(index++)).str())) {
          worklist.push_back({nested, nested.getArgument(1)});
          nestedCopies.insert(nested);
        }
    }
    module.walk([](scf::ForOp loop) { loop->removeAttr(kParallel); });
    module.walk([](memref::ViewOp view) {
      view->removeAttr(kTaskSlotsAttr);
      view->removeAttr(kTaskSlotStrideAttr);
    });
  }

private:
  /// Gives the kernel, and every function that has a marked loop or calls
  /// one that does (the functions of regions), the parallel context as
  /// first argument, and passes it on at every call of them. The others
  /// keep their signature: the workspace size functions, which the entry
  /// points call with the symbols alone.
  void passContext(ArrayRef<func::FuncOp> functions) {
    llvm::DenseSet<StringRef> names;
    for (func::FuncOp function : functions)
      if (function.isPublic() ||
          function.walk([](scf::ForOp loop) {
                    return loop->hasAttr(kParallel) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                  }).wasInterrupted())
        names.insert(function.getName());
    // Callers of such functions too, until nothing changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (func::FuncOp function : functions)
        if (!names.contains(function.getName()) &&
            function.walk([&](func::CallOp call) {
                      return names.contains(call.getCallee())
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    }).wasInterrupted())
          changed = names.insert(function.getName()).second;
    }
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    for (func::FuncOp function : functions)
      if (names.contains(function.getName()))
        function.insertArgument(0, ptr, {}, function.getLoc());
    for (func::FuncOp function : functions)
      if (names.contains(function.getName()))
        function.walk([&](func::CallOp call) {
          if (names.contains(call.getCallee()))
            prependContext(call, function.getArgument(0));
        });
    withContext = std::move(names);
  }

  static void prependContext(func::CallOp call, Value context) {
    SmallVector<Value> operands = {context};
    llvm::append_range(operands, call.getOperands());
    OpBuilder b(call);
    auto newCall = b.create<func::CallOp>(call.getLoc(), call.getCallee(),
                                          call.getResultTypes(), operands);
    newCall->setAttrs(call->getAttrs());
    call.replaceAllUsesWith(newCall.getResults());
    call.erase();
  }

  /// The functions whose first argument is the parallel context.
  llvm::DenseSet<StringRef> withContext;

  /// The outermost marked loops whose iterations can run concurrently. Such
  /// a loop nests (if `nesting`) when its trip count is not a constant, its
  /// known trip counts stay below kMinCollapsedTrips (a batch loop that
  /// could not be collapsed: one iteration at batch 1) and marked loops
  /// remain inside it. A constant trip count of 2 or more is launched
  /// whenever the inner loops would be.
  SmallVector<LaunchableLoop> launchableLoops(func::FuncOp function,
                                              bool nesting) {
    SmallVector<LaunchableLoop> loops;
    function.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(kParallel) || loop.getNumResults() != 0 ||
          !writesDisjointTiles(loop))
        return WalkResult::advance();
      // A captured slotted view would be slot 0 in every task.
      if (llvm::any_of(taskInputs(loop).captured, [](Value v) {
            return !fieldType(v.getType()) || taskSlotsOf(v);
          }))
        return WalkResult::advance();
      int64_t trips = collapseParallelNest(loop);
      bool nests = nesting && trips < kMinCollapsedTrips &&
                   !constantTripCount(loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep()) &&
                   hasMarkedLoopInside(loop);
      loops.push_back(
          {loop, nests,
           slottedViews(taskInputs(loop).recreated.getArrayRef(), loop)});
      return WalkResult::skip();
    });
    return loops;
  }

  func::FuncOp formTask(const LaunchableLoop &launchable, Value parallel,
                        StringRef name);
  func::FuncOp createTaskFunction(StringRef name, FunctionType type,
                                  ArrayRef<Value> captured,
                                  ArrayRef<Operation *> recreated,
                                  LLVM::LLVMStructType argType, Location loc,
                                  IRMapping &mapping);
  func::FuncOp createTask(scf::ForOp loop, ArrayRef<Value> captured,
                          ArrayRef<Operation *> recreated,
                          ArrayRef<Operation *> slotted,
                          LLVM::LLVMStructType argType, StringRef name);
  func::FuncOp createSerial(scf::ForOp loop, ArrayRef<Value> captured,
                            ArrayRef<Operation *> recreated,
                            LLVM::LLVMStructType argType, bool nested,
                            StringRef name);
  func::FuncOp createLauncher(func::FuncOp task, func::FuncOp serial,
                              func::FuncOp nested, LLVM::LLVMStructType argType,
                              unsigned grainField, int64_t slots,
                              StringRef name);
  Value packArguments(OpBuilder &b, scf::ForOp loop, ArrayRef<Value> captured,
                      LLVM::LLVMStructType argType);
  Value shouldLaunch(OpBuilder &b, Location loc, Value parallel, Value trips,
                     Value work);
  Value hasThreads(OpBuilder &b, Location loc, Value parallel, Value condition);
};

/// A new internal function `name` of `type` at the end of the module whose
/// entry block has loaded the captured values from the argument struct (its
/// first argument) and recomputed the recreated ops; `mapping` maps the
/// loop's values to theirs.
func::FuncOp ParallelTasksPass::createTaskFunction(
    StringRef name, FunctionType type, ArrayRef<Value> captured,
    ArrayRef<Operation *> recreated, LLVM::LLVMStructType argType,
    Location loc, IRMapping &mapping) {
  MLIRContext *context = &getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  OpBuilder mb = OpBuilder::atBlockEnd(getOperation().getBody());
  auto function = mb.create<func::FuncOp>(loc, name, type);
  function.setPrivate();
  function->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  Block *entry = function.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  for (auto [field, value] : llvm::enumerate(captured)) {
    Value slot = b.create<LLVM::GEPOp>(
        loc, ptr, argType, entry->getArgument(0),
        ArrayRef<LLVM::GEPArg>{0, int32_t(field)});
    Value stored =
        b.create<LLVM::LoadOp>(loc, argType.getBody()[field], slot);
    mapping.map(value, castTo(b, loc, stored, value.getType()));
  }
  for (Operation *op : recreated)
    b.clone(*op, mapping);
  return function;
}

/// The task: loads the captured values from its argument and runs the
/// iterations [k * grain, min((k + 1) * grain, trips)) of the loop's body,
/// iteration i at induction value lb + i * step.
func::FuncOp ParallelTasksPass::createTask(scf::ForOp loop,
                                           ArrayRef<Value> captured,
                                           ArrayRef<Operation *> recreated,
                                           ArrayRef<Operation *> slotted,
                                           LLVM::LLVMStructType argType,
                                           StringRef name) {
  MLIRContext *context = &getContext();
  Location loc = loop.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  IRMapping mapping;
  func::FuncOp task = createTaskFunction(
      name, FunctionType::get(context, {ptr, i64}, {}), captured, recreated,
      argType, loc, mapping);
  Block *entry = &task.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  auto loadIndex = [&](unsigned field) {
    Value slot = b.create<LLVM::GEPOp>(
        loc, ptr, argType, entry->getArgument(0),
        ArrayRef<LLVM::GEPArg>{0, int32_t(field)});
    return castTo(b, loc, b.create<LLVM::LoadOp>(loc, i64, slot),
                  b.getIndexType());
  };
  Value grain = loadIndex(captured.size());
  Value trips = loadIndex(captured.size() + 1);
  Value k = castTo(b, loc, entry->getArgument(1), b.getIndexType());
  moveToTaskSlot(b, slotted, mapping, entry->getArgument(1));
  b.setInsertionPointToEnd(entry);
  Value begin = b.create<arith::MulIOp>(loc, k, grain);
  Value end = b.create<arith::MinSIOp>(
      loc, b.create<arith::AddIOp>(loc, begin, grain), trips);
  auto iterations = b.create<scf::ForOp>(
      loc, begin, end, b.create<arith::ConstantIndexOp>(loc, 1));
  OpBuilder ib = OpBuilder::atBlockBegin(iterations.getBody());
  Value iv = ib.create<arith::AddIOp>(
      loc, mapping.lookupOrDefault(loop.getLowerBound()),
      ib.create<arith::MulIOp>(loc, iterations.getInductionVar(),
                               mapping.lookupOrDefault(loop.getStep())));
  mapping.map(loop.getInductionVar(), iv);
  for (Operation &op : loop.getBody()->without_terminator())
    ib.clone(op, mapping);
  // Streaming stores (txc-stream-output-stores) are weakly ordered: fenced
  // before the task returns, they are visible to whichever thread the
  // caller's parallel_for then signals, however it signals.
  bool streams = false;
  task.walk([&](vector::StoreOp store) { streams |= store.getNontemporal(); });
  if (streams)
    b.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::seq_cst);
  b.create<func::ReturnOp>(loc);
  // Marked loops inside the task stay serial: a task never calls the hook.
  task.walk([](scf::ForOp inner) { inner->removeAttr(kParallel); });
  return task;
}

/// What the launcher runs without threads: the loop itself, with its own
/// bounds, in `<task>_serial(arg)`. Its ops are the task's, so every
/// element gets the same bits (LLVM fuses no floating-point ops on its
/// own: FPOpFusion::Standard), but constant bounds stay constants: a loop
/// of two heads run by task(arg, 0) over [0, grain) cost attention's P.V
/// matmul 10% more instructions.
///
/// `nested`: the copy for a call with threads whose loop has too few
/// iterations to launch, `<task>_nested(arg, parallel)`, which keeps the
/// marks of the loops inside (the row tiles of a batch-1 convolution's
/// matmul) for runOnOperation to launch those; the loop itself, run on
/// the caller's thread only, is no longer marked.
func::FuncOp ParallelTasksPass::createSerial(scf::ForOp loop,
                                             ArrayRef<Value> captured,
                                             ArrayRef<Operation *> recreated,
                                             LLVM::LLVMStructType argType,
                                             bool nested, StringRef name) {
  MLIRContext *context = &getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  IRMapping mapping;
  SmallVector<Type> arguments = {ptr};
  if (nested)
    arguments.push_back(ptr);
  func::FuncOp serial =
      createTaskFunction(name, FunctionType::get(context, arguments, {}),
                         captured, recreated, argType, loop.getLoc(), mapping);
  OpBuilder b = OpBuilder::atBlockEnd(&serial.getBody().front());
  Operation *copy = b.clone(*loop, mapping);
  b.create<func::ReturnOp>(loop.getLoc());
  if (nested)
    copy->removeAttr(kParallel);
  else
    serial.walk([](scf::ForOp inner) { inner->removeAttr(kParallel); });
  return serial;
}

/// Stores the captured values in a struct on the stack (allocated once, in
/// the function's entry block); returns its address.
Value ParallelTasksPass::packArguments(OpBuilder &b, scf::ForOp loop,
                                       ArrayRef<Value> captured,
                                       LLVM::LLVMStructType argType) {
  Location loc = loop.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(&getContext());
  auto function = loop->getParentOfType<FunctionOpInterface>();
  OpBuilder entry = OpBuilder::atBlockBegin(&function.getFunctionBody().front());
  Value one = entry.create<LLVM::ConstantOp>(loc, entry.getI64Type(),
                                             entry.getI64IntegerAttr(1));
  Value arg = entry.create<LLVM::AllocaOp>(loc, ptr, argType, one,
                                           /*alignment=*/8);
  for (auto [field, value] : llvm::enumerate(captured))
    storeField(b, loc, arg, argType, field,
               castTo(b, loc, value, argType.getBody()[field]));
  return arg;
}

/// Whether to call the hook: the context and its parallel_for are not NULL,
/// it has more than one thread, the loop has at least two iterations and
/// they do at least kMinParallelWork operations (`work` per iteration).
Value ParallelTasksPass::shouldLaunch(OpBuilder &b, Location loc,
                                      Value parallel, Value trips, Value work) {
  // Both factors are at most kMinParallelWork (2^16): no overflow.
  Value limit = b.create<arith::ConstantIntOp>(loc, kMinParallelWork, 64);
  Value total = b.create<arith::MulIOp>(
      loc, b.create<arith::MinSIOp>(loc, trips, limit), work);
  Value enough = b.create<arith::AndIOp>(
      loc,
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, trips,
                              b.create<arith::ConstantIntOp>(loc, 2, 64)),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, total, limit));
  return hasThreads(b, loc, parallel, enough);
}

/// `condition` and the context and its parallel_for are not NULL and it has
/// more than one thread (the context is read only when it is not NULL).
Value ParallelTasksPass::hasThreads(OpBuilder &b, Location loc, Value parallel,
                                    Value condition) {
  auto ptr = LLVM::LLVMPointerType::get(&getContext());
  auto i64 = b.getI64Type();
  Value null = b.create<LLVM::ZeroOp>(loc, ptr);
  Value hasContext =
      b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, parallel, null);
  auto ifContext =
      b.create<scf::IfOp>(loc, TypeRange{b.getI1Type()},
                          b.create<arith::AndIOp>(loc, hasContext, condition),
                          /*withElseRegion=*/true);
  {
    OpBuilder tb = ifContext.getThenBodyBuilder();
    Value hook = tb.create<LLVM::LoadOp>(loc, ptr, parallel);
    Value threadsSlot = tb.create<LLVM::GEPOp>(
        loc, ptr, i64, parallel, ArrayRef<LLVM::GEPArg>{2});
    Value threads = tb.create<LLVM::LoadOp>(loc, i64, threadsSlot);
    Value hasHook =
        tb.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, hook, null);
    Value several = tb.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sgt, threads,
        tb.create<arith::ConstantIntOp>(loc, 1, 64));
    tb.create<scf::YieldOp>(
        loc, ValueRange{tb.create<arith::AndIOp>(loc, hasHook, several)});
    OpBuilder eb = ifContext.getElseBodyBuilder();
    eb.create<scf::YieldOp>(
        loc, ValueRange{eb.create<arith::ConstantIntOp>(loc, 0, 1)});
  }
  return ifContext.getResult(0);
}

/// Replaces `loop` by parallel_for(ctx, trips, task, &arg) when
/// shouldLaunch, else by the serial loop `for (i = 0; i < trips; ++i)
/// task(&arg, i)`. When the loop nests, returns the nested serial copy
/// (createSerial), whose marked loops are still to be launched.
func::FuncOp ParallelTasksPass::formTask(const LaunchableLoop &launchable,
                                         Value parallel, StringRef name) {
  scf::ForOp loop = launchable.loop;
  MLIRContext *context = &getContext();
  Location loc = loop.getLoc();
  auto i64 = IntegerType::get(context, 64);
  TaskInputs inputs = taskInputs(loop);
  ArrayRef<Value> captured = inputs.captured.getArrayRef();
  SmallVector<Type> fields;
  for (Value value : captured)
    fields.push_back(fieldType(value.getType()));
  // The iterations per task and the trip count.
  fields.append({i64, i64});
  auto argType = LLVM::LLVMStructType::getLiteral(context, fields);
  ArrayRef<Operation *> recreated = inputs.recreated.getArrayRef();
  ArrayRef<Operation *> slotted = launchable.slotted;
  func::FuncOp task =
      createTask(loop, captured, recreated, slotted, argType, name);
  func::FuncOp serial =
      createSerial(loop, captured, recreated, argType,
                   /*nested=*/false, (name + "_serial").str());
  func::FuncOp nested;
  if (launchable.nests)
    nested = createSerial(loop, captured, recreated, argType, /*nested=*/true,
                          (name + "_nested").str());
  func::FuncOp launcher =
      createLauncher(task, serial, nested, argType, captured.size(),
                     fewestSlots(slotted), (name + "_launch").str());

  OpBuilder b(loop);
  Value arg = packArguments(b, loop, captured, argType);
  Value trips = castTo(b, loc,
                       tripCount(b, loc, loop.getLowerBound(),
                                 loop.getUpperBound(), loop.getStep()),
                       i64);
  storeField(b, loc, arg, argType, captured.size() + 1, trips);
  b.create<func::CallOp>(
      loc, launcher, ValueRange{parallel, arg, trips, estimateWork(b, loop)});
  loop.erase();
  return nested;
}

/// The launcher of `task`, `void launch(parallel, arg, trips, work)`:
/// parallel_for(ctx, ceil(trips / grain), task, arg) when shouldLaunch,
/// else nested(arg, parallel) if there is a nested copy and the context
/// has threads, else serial(arg), the whole loop. A function of its own, not
/// branches in the kernel: MLIR 19's block merging (in the greedy rewrites
/// of the LLVM lowering) merged the launches of two loops in the branches
/// of a `cond` into one block and then rewired a later use of one
/// argument struct to an unrelated i64 (an internal error on
/// test/e2e/cond-O2.test). LLVM inlines it again.
func::FuncOp ParallelTasksPass::createLauncher(func::FuncOp task,
                                               func::FuncOp serial,
                                               func::FuncOp nested,
                                               LLVM::LLVMStructType argType,
                                               unsigned grainField,
                                               int64_t slots, StringRef name) {
  MLIRContext *context = &getContext();
  Location loc = task.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  OpBuilder mb(task);
  auto launcher = mb.create<func::FuncOp>(
      loc, name, FunctionType::get(context, {ptr, ptr, i64, i64}, {}));
  launcher.setPrivate();
  launcher->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  Block *entry = launcher.addEntryBlock();
  Value parallel = entry->getArgument(0), arg = entry->getArgument(1),
        trips = entry->getArgument(2), work = entry->getArgument(3);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  auto launch = b.create<scf::IfOp>(
      loc, shouldLaunch(b, loc, parallel, trips, work),
      /*withElseRegion=*/true);
  {
    OpBuilder tb = launch.getThenBodyBuilder();
    Value hook = tb.create<LLVM::LoadOp>(loc, ptr, parallel);
    Value ctxSlot = tb.create<LLVM::GEPOp>(loc, ptr, ptr, parallel,
                                           ArrayRef<LLVM::GEPArg>{1});
    Value ctx = tb.create<LLVM::LoadOp>(loc, ptr, ctxSlot);
    Value threadsSlot = tb.create<LLVM::GEPOp>(loc, ptr, i64, parallel,
                                               ArrayRef<LLVM::GEPArg>{2});
    Value threads = tb.create<LLVM::LoadOp>(loc, i64, threadsSlot);
    Value grain = taskGrain(tb, loc, trips, work, threads, slots);
    storeField(tb, loc, arg, argType, grainField, grain);
    Value tasks = tb.create<arith::CeilDivSIOp>(loc, trips, grain);
    Value taskRef = tb.create<func::ConstantOp>(
        loc, task.getFunctionType(), SymbolRefAttr::get(task));
    Value taskPtr = castTo(tb, loc, taskRef, ptr);
    auto hookType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(context), {ptr, i64, ptr, ptr});
    tb.create<LLVM::CallOp>(loc, hookType,
                            ValueRange{hook, ctx, tasks, taskPtr, arg});
  }
  OpBuilder eb = launch.getElseBodyBuilder();
  if (nested) {
    auto withThreads = eb.create<scf::IfOp>(
        loc,
        hasThreads(eb, loc, parallel,
                   eb.create<arith::ConstantIntOp>(loc, 1, 1)),
        /*withElseRegion=*/true);
    withThreads.getThenBodyBuilder().create<func::CallOp>(
        loc, nested, ValueRange{arg, parallel});
    eb = withThreads.getElseBodyBuilder();
  }
  eb.create<func::CallOp>(loc, serial, ValueRange{arg});
  b.create<func::ReturnOp>(loc);
  return launcher;
}

} // namespace

} // namespace txc
