//===- AbiEmitter.cpp - Guards and C entry points in LLVM IR --------------===//
//
// The entry points are generated directly as LLVM IR: they only move scalars
// between the C descriptors and the kernel's memref arguments, and LLVM IR
// gives exact control over what the per-call path costs (a few compares and
// branches, all marked unlikely to fail). The guards themselves are constant
// tables (GuardTable.h) checked by one interpreter loop, so that the code
// LLVM optimizes does not grow with the contract; small contracts are also
// checked inline, which keeps the cost of a call that passes at a few loads.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/AbiEmitter.h"
#include "GuardInterpreter.h"
#include "IRExprOps.h"
#include "RunOptionsEmitter.h"
#include "txc/Analysis/Specialization.h"
#include "txc/Target/DispatchStats.h"
#include "txc/Pipeline/Workspace.h"
#include "txc/Target/GuardTable.h"
#include "txc/Target/Weights.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

#include <map>

using namespace txc;
using namespace llvm;

namespace {

/// The failure exit of an entry point: one block whose PHIs receive the
/// status fields from every guard that branches to it.
struct FailExit {
  BasicBlock *block = nullptr;
  PHINode *code, *guard, *tensorKind, *tensorIndex, *dim, *symbol;
  PHINode *expectedMin, *expectedMax, *actual;
};

/// How emitGuards reacts to a failing guard.
struct GuardSink {
  /// Reporting: branch to the failure exit, which fills the status.
  FailExit *exit = nullptr;
  /// Combining (the fast path): OR every condition into `anyFailed` without
  /// branching; only the guards that protect later loads (argument counts
  /// and arrays) branch, to `unsafe`.
  Value *anyFailed = nullptr;
  BasicBlock *unsafe = nullptr;
  /// Combining: where the combined condition branches when it holds. The
  /// alias guards branch there once before they start, so that the values
  /// of the guards before them are not kept live across them.
  BasicBlock *failed = nullptr;
};

/// Up to this many descriptor guards, an entry point checks them inline,
/// branch-free (the fast path of small contracts: a few loads and
/// compares); past it, by calling the table interpreter, whose IR does not
/// grow with the guards.
static constexpr size_t kMaxInlineGuards = 64;

/// Where the kernel's workspace comes from in an entry point.
enum class WorkspaceSource {
  None,   ///< the kernel has none
  Caller, ///< the entry point's last two arguments, checked first
  Malloc, ///< allocated after the guards passed, freed before returning
};

/// One kernel an entry point may call: the generic one or a variant's.
struct KernelCode {
  Function *kernel = nullptr;
  /// The workspace's static part; with a size function, the whole size
  /// depends on the symbols.
  uint64_t workspaceBytes = 0;
  Function *workspaceSizeFunction = nullptr;
  /// Null for the generic kernel.
  const ContractVariant *variant = nullptr;

  KernelCode(Module &module, Function *kernel, WorkspaceSize workspace,
             const ContractVariant *variant)
      : kernel(kernel), workspaceBytes(workspace.staticBytes),
        workspaceSizeFunction(
            workspace.dynamic
                ? module.getFunction(
                      workspaceSizeFunctionName(kernel->getName()))
                : nullptr),
        variant(variant) {}
  bool needsWorkspace() const {
    return workspaceBytes || workspaceSizeFunction;
  }
};

class EntryPointEmitter {
public:
  EntryPointEmitter(Module &module, const Contract &contract,
                    ArrayRef<KernelCode> kernels, const WeightsPlan *weights)
      : module(module), context(module.getContext()), contract(contract),
        kernels(kernels), kernel(kernels[0].kernel), weights(weights),
        workspaceBytes(kernels[0].workspaceBytes),
        workspaceSizeFunction(kernels[0].workspaceSizeFunction),
        i32(Type::getInt32Ty(context)), i64(Type::getInt64Ty(context)),
        i128(Type::getIntNTy(context, 128)),
        ptr(PointerType::getUnqual(context)), table(buildGuardTable(contract)) {
  }

  /// <p>_run and <p>_run_with_workspace, or their variants with weights.
  void emitRun();
  void emitOutputShapes();
  void emitErrorMessage();
  /// <p>_workspace_size.
  void emitWorkspaceSize();

private:
  /// Values the guards compute on the way (symbols, byte sizes).
  struct CallState {
    SmallVector<Value *> symbols;
    SmallVector<Value *> inputBytes, outputBytes;
    /// The data pointers the guards loaded and checked (null where the
    /// table interpreter checked them): the kernel gets these, without
    /// loading them again after the output descriptors were written.
    SmallVector<Value *> inputData, outputData;
    /// With variants: the index in `kernels` of the code the call takes
    /// (its variant id, 0 for the generic code), once the guards passed.
    Value *variant = nullptr;
  };

  /// Whether the entry points choose among several kernels.
  bool dispatches() const { return kernels.size() > 1; }
  /// Whether the size of the caller's workspace can only be checked after
  /// the guards: it depends on the symbols or on the variant.
  bool sizeAfterGuards() const {
    return workspaceSizeFunction || dispatches();
  }
  /// Once the guards passed, tells LLVM that each bound symbol is in its
  /// range: the kernel's loops then need no test for an empty trip count
  /// that the guards already excluded (B >= 1).
  void assumeSymbolRanges(IRBuilder<> &b, const CallState &state);
  /// Sets state.variant: the first variant in dispatch order whose bound
  /// symbols have their values, else the generic code.
  void chooseVariant(IRBuilder<> &b, CallState &state);
  /// With variants: tells the dispatch statistics (DispatchStats.h) which
  /// code is about to run. The call's context is NULL here; the copies of
  /// <p>_run_with_options pass theirs (RunOptionsEmitter.cpp).
  void recordDispatch(IRBuilder<> &b, const CallState &state);
  /// Calls kernels[index] with `args` (and the workspace's, if it has one).
  void callKernelCode(IRBuilder<> &b, const KernelCode &code,
                      ArrayRef<Value *> args, ArrayRef<Value *> workspaceArgs);

  /// An entry point with the arguments of <p>_run, and the workspace's
  /// after them if `withWorkspace`.
  Function *createEntryPoint(StringRef name, bool withWorkspace = false);
  /// <p>_run_with_weights or its variant with a workspace.
  void emitRunWithWeights(StringRef name, WorkspaceSource source);
  /// `name` with a workspace that the kernel does not need: calls `target`
  /// with the other arguments.
  void emitForwarder(StringRef name, StringRef target, unsigned numArgs);
  /// The checks of a caller's workspace: aligned and large enough.
  void emitWorkspaceChecks(IRBuilder<> &b, FailExit &exit, Value *workspace,
                           Value *workspaceSize);
  /// The bytes of workspace the call needs, once the guards passed: the
  /// static part, or what the kernel's size function computes from the
  /// symbols.
  Value *neededWorkspace(IRBuilder<> &b, const CallState &state);
  /// After the guards: checks that the caller's workspace (`callerBytes`
  /// long) is large enough for these shapes when its size depends on them,
  /// or allocates one (`source` Malloc, setting `workspace` and
  /// `allocation`). Returns the bytes the call needs.
  Value *prepareWorkspace(IRBuilder<> &b, Function *function, Value *status,
                          WorkspaceSource source, const CallState &state,
                          Value *callerBytes, Value *&workspace,
                          Value *&allocation);
  /// Allocates a workspace of `bytes`; returns its aligned start and sets
  /// `allocation` to what free() takes.
  Value *allocateWorkspace(IRBuilder<> &b, FailExit &exit, Value *bytes,
                           Value *&allocation);
  void freeWorkspace(IRBuilder<> &b, Value *allocation);
  FailExit createFailExit(Function *function, Value *status);
  void finishFailExit(FailExit &exit);
  /// Reports (or, combining, records) that guard `g` fails when `failed`.
  void failIf(IRBuilder<> &b, GuardSink &sink, Value *failed, const Guard &g,
              Value *expectedMin, Value *expectedMax, Value *actual);
  /// Branches to the failure exit with these status fields.
  void failWith(IRBuilder<> &b, FailExit &exit, Value *failed,
                ArrayRef<int32_t> ids, Value *expectedMin, Value *expectedMax,
                Value *actual);
  /// The checks of the weights blob of <p>_run_with_weights.
  void emitWeightsChecks(IRBuilder<> &b, FailExit &exit, Value *blob,
                         Value *blobSize);
  void emitGuards(IRBuilder<> &b, GuardSink &sink, Value *inputs,
                  Value *numInputs, Value *outputs, Value *numOutputs,
                  bool checkOutputs, CallState &state);
  /// The static fields (dtype, rank, static dims) a combining sink checks
  /// against a constant template, by descriptor: on a little-endian target,
  /// where the template has the descriptor's layout.
  using StaticFields =
      std::map<std::pair<TensorSide, int32_t>, SmallVector<const Guard *>>;
  StaticFields staticFieldGuards(const GuardSink &sink, bool checkOutputs);
  /// The combined condition of every guard in `fields`: each descriptor's
  /// 64-bit words from its dtype to its last checked dim differ from a
  /// constant template (dtype and rank are one word, each static dim one).
  /// A call that passes pays one load and compare per word instead of one
  /// per field; which guard failed is found by the interpreter, on the cold
  /// path. (Vector compares of whole descriptors were tried: LLVM 19 made
  /// them no shorter on AVX2 and longer on SSE2.)
  void emitStaticFieldTemplates(IRBuilder<> &b, GuardSink &sink,
                                Value *inputs, Value *outputs,
                                const StaticFields &fields);
  /// The NoAlias guard `g` of an output over [start, start + bytes).
  void emitAliasGuard(IRBuilder<> &b, GuardSink &sink, const Guard &g,
                      Value *inputs, Value *outputs, CallState &state);
  /// [start, end) of `bytes` and [otherStart, +otherBytes) share a byte
  /// (empty ranges overlap nothing). With `superset`, the answer may also
  /// be true where they do not (see mayOverlap).
  Value *overlaps(IRBuilder<> &b, Value *start, Value *end, Value *bytes,
                  Value *otherStart, Value *otherBytes, bool superset) {
    if (superset && positiveBytes.count(bytes) &&
        positiveBytes.count(otherBytes))
      return mayOverlap(b, start, bytes, otherStart, otherBytes);
    Value *otherEnd = b.CreateAdd(otherStart, otherBytes);
    Value *overlap = b.CreateAnd(b.CreateICmpULT(start, otherEnd),
                                 b.CreateICmpULT(otherStart, end));
    // A size that cannot be 0 once the earlier guards passed needs no test:
    // the alias guard is only reached, or only matters, when they passed.
    for (Value *size : {bytes, otherBytes})
      if (!positiveBytes.count(size))
        overlap = b.CreateAnd(b.CreateICmpSGT(size, c64(0)), overlap);
    return overlap;
  }
  /// One compare instead of two for the fast path, when both sizes are
  /// positive: with a = start, b = otherStart, m = bytes, n = otherBytes
  /// (1 <= m, n <= 2^48, the verifier's bound) and arithmetic mod 2^64,
  ///   T:  a - b + (m - 1)  <u  m + n - 1,
  /// against the guard's own test (overlaps, the interpreter, the host
  /// evaluator), E: a <u b + n && b <u a + m.
  /// * E implies T. Let d = a - b as an integer. If neither a + m nor b + n
  ///   reaches 2^64, E is -m < d < n, so d + m - 1 is in [0, m + n - 2] and
  ///   T holds without wrapping. If a + m >= 2^64, E needs b <u a + m - 2^64
  ///   < m <= 2^48 and a < b + n, so 0 < d < n and T holds. If b + n >=
  ///   2^64, symmetrically 0 < -d < m, and d + m - 1 + 2^64 wraps to d + m -
  ///   1 in [0, m - 2]. Both cannot reach 2^64 when E holds (b < 2^48 and
  ///   b >= 2^64 - n exclude each other).
  /// * T implies E when neither range wraps (a + m < 2^64, b + n < 2^64):
  ///   if d + m - 1 < 0, T needs d + m - 1 + 2^64 < m + n - 1, i.e. a +
  ///   2^64 < b + n, impossible; d + m - 1 >= 2^64 needs a + m > 2^64 + b,
  ///   impossible too; so T is 0 <= d + m - 1 < m + n - 1, which is E.
  /// So T differs from E only where a range wraps past the top of the
  /// address space; there T says "overlap" and the slow path, which decides
  /// by E, gives the verdict: the call's outcome and status are E's.
  /// (GuardTableTest checks both claims exhaustively in a 7-bit model.)
  Value *mayOverlap(IRBuilder<> &b, Value *start, Value *bytes,
                    Value *otherStart, Value *otherBytes) {
    Value *shifted =
        b.CreateAdd(b.CreateSub(start, otherStart), b.CreateSub(bytes, c64(1)));
    Value *bound = b.CreateSub(b.CreateAdd(bytes, otherBytes), c64(1));
    return b.CreateICmpULT(shifted, bound, "may_overlap");
  }
  /// Whether `bytes` is positive for every value of the symbols in their
  /// ranges (which their guards check before any size is used).
  bool alwaysPositive(const ShapeExpr &bytes) const {
    SmallVector<Interval> ranges;
    for (const ContractSymbol &symbol : contract.symbols)
      ranges.push_back({symbol.min, symbol.max});
    std::optional<Interval> bounds = bytes.checkedBounds(ranges);
    return bounds && bounds->min > 0;
  }
  /// The byte sizes emitGuards computed that alwaysPositive proved.
  SmallPtrSet<Value *, 8> positiveBytes;
  /// The guard interpreter, `<p>_run.guards` (GuardInterpreter.h), emitted
  /// on first use.
  Function *guardInterpreter();
  /// The descriptor guards an entry point checks (with or without those
  /// about outputs).
  size_t countCheckedGuards(bool checkOutputs) const;
  /// Checks the guards by calling the interpreter: returns its code and
  /// binds the symbols in `state` from what it computed.
  Value *callGuardInterpreter(IRBuilder<> &b, ArrayRef<Value *> args,
                              bool checkOutputs, CallState &state);
  /// The guards of an entry point, branching to `passed` when they pass.
  /// When any may have failed, the call continues in `slow` (the same entry
  /// point checking its guards with the interpreter) by a tail call, if
  /// given; else the interpreter is called here.
  void emitInlineGuards(IRBuilder<> &b, ArrayRef<Value *> args,
                        bool checkOutputs, CallState &state, BasicBlock *passed,
                        Function *slow = nullptr);
  void emitTableGuards(IRBuilder<> &b, ArrayRef<Value *> args,
                       bool checkOutputs, CallState &state, BasicBlock *passed);
  /// An entry point; `slow` makes it the out-of-line copy that the fast
  /// path of a small contract tail-calls when a guard may have failed.
  Function *emitEntryPoint(StringRef name, bool checkOutputs, bool runKernel,
                           WorkspaceSource source = WorkspaceSource::None,
                           bool slow = false);
  void writeOutputShapes(IRBuilder<> &b, Value *outputs, CallState &state);
  /// Success, with the variant the call took (or would take): state.variant,
  /// or null for the generic code.
  void writeSuccess(IRBuilder<> &b, Value *status, Value *variant);
  /// Calls the kernel; returns its status buffer ([2 x i64]: failed guard
  /// id or -1, offending value) when the contract has data-dependent guards.
  /// `blob` is the caller's weights blob (external weights) or null;
  /// `workspace` the kernel's workspace (`workspaceSize` bytes) or null.
  Value *callKernel(IRBuilder<> &b, Value *inputs, Value *outputs,
                    CallState &state, Value *blob, Value *workspace,
                    Value *workspaceSize = nullptr);
  /// The index of the symbol whose value 1 gets its own kernel call
  /// (callKernelAtOne), or -1.
  int symbolAtOne(const CallState &state) const;
  /// Calls the kernel, with the symbol `symbol` constant in a second call
  /// taken when its value is 1: where LLVM inlines a small kernel, the
  /// batch-1 call runs straight-line code instead of the general loops.
  void callKernelAtOne(IRBuilder<> &b, Value *inputs, Value *outputs,
                       CallState &state, int symbol, Value *workspace,
                       Value *workspaceSize);
  /// Fails with the data-dependent guard the kernel reported, if any.
  void checkKernelStatus(IRBuilder<> &b, FailExit &exit, Value *kernelStatus,
                         CallState &state);

  Value *descriptor(IRBuilder<> &b, Value *array, unsigned index) {
    return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), array,
                                        uint64_t(index) * AbiLayout::kTensorSize);
  }
  Value *field(IRBuilder<> &b, Value *base, unsigned offset) {
    return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset);
  }
  Value *load(IRBuilder<> &b, Type *type, Value *base, unsigned offset,
              const Twine &name = "") {
    return b.CreateLoad(type, field(b, base, offset), name);
  }
  /// The data pointer of array[index]: as its data_pointer guard loaded it
  /// (`checked`, CallState::inputData or outputData), else loaded now.
  Value *dataPointer(IRBuilder<> &b, Value *array, unsigned index,
                     ArrayRef<Value *> checked) {
    if (index < checked.size() && checked[index])
      return checked[index];
    return load(b, ptr, descriptor(b, array, index), AbiLayout::kTensorData,
                "data");
  }
  Value *dimPtr(IRBuilder<> &b, Value *desc, unsigned dim) {
    return field(b, desc, AbiLayout::kTensorDims + 8 * dim);
  }
  Value *evaluate(IRBuilder<> &b, const ShapeExpr &expr,
                  ArrayRef<Value *> symbols, Type *type);
  Value *tensorOf(IRBuilder<> &b, const Guard &g, Value *inputs,
                  Value *outputs) {
    return descriptor(b, g.side == TensorSide::Input ? inputs : outputs,
                      unsigned(g.tensor));
  }
  Constant *c64(int64_t value) { return ConstantInt::get(i64, value, true); }
  Constant *c32(int64_t value) { return ConstantInt::get(i32, value, true); }

  Module &module;
  LLVMContext &context;
  const Contract &contract;
  /// The generic kernel first, then the variants' by id.
  ArrayRef<KernelCode> kernels;
  Function *kernel;
  const WeightsPlan *weights;
  /// The generic kernel's workspace: its static part; with a size
  /// function, the whole size depends on the symbols.
  uint64_t workspaceBytes;
  Function *workspaceSizeFunction;
  Type *i32, *i64, *i128;
  PointerType *ptr;
  GuardTable table;
  Function *interpreter = nullptr;
};

} // namespace

Function *EntryPointEmitter::createEntryPoint(StringRef name,
                                              bool withWorkspace) {
  SmallVector<Type *> params = {ptr, i64, ptr, i64, ptr};
  if (withWorkspace)
    params.append({ptr, i64});
  FunctionType *type = FunctionType::get(i32, params, /*isVarArg=*/false);
  Function *function =
      Function::Create(type, GlobalValue::ExternalLinkage, name, module);
  const char *argNames[] = {"inputs", "num_inputs",  "outputs",
                            "num_outputs", "status", "workspace",
                            "workspace_bytes"};
  for (unsigned i = 0; i < params.size(); ++i)
    function->getArg(i)->setName(argNames[i]);
  function->addFnAttr(Attribute::NoUnwind);
  return function;
}

FailExit EntryPointEmitter::createFailExit(Function *function, Value *status) {
  FailExit exit;
  exit.block = BasicBlock::Create(context, "guard.failed", function);
  BasicBlock *store = BasicBlock::Create(context, "guard.store", function);
  BasicBlock *done = BasicBlock::Create(context, "guard.return", function);
  IRBuilder<> b(exit.block);
  exit.code = b.CreatePHI(i32, 4, "code");
  exit.guard = b.CreatePHI(i32, 4, "guard");
  exit.tensorKind = b.CreatePHI(i32, 4, "tensor_kind");
  exit.tensorIndex = b.CreatePHI(i32, 4, "tensor_index");
  exit.dim = b.CreatePHI(i32, 4, "dim");
  exit.symbol = b.CreatePHI(i32, 4, "symbol");
  exit.expectedMin = b.CreatePHI(i64, 4, "expected_min");
  exit.expectedMax = b.CreatePHI(i64, 4, "expected_max");
  exit.actual = b.CreatePHI(i64, 4, "actual");
  // The status is optional: a NULL status only gets the return code.
  b.CreateCondBr(b.CreateIsNull(status), done, store);
  b.SetInsertPoint(store);
  auto put = [&](Value *value, unsigned offset) {
    b.CreateStore(value, field(b, status, offset));
  };
  put(exit.code, AbiLayout::kStatusCode);
  put(exit.guard, AbiLayout::kStatusGuard);
  put(exit.tensorKind, AbiLayout::kStatusTensorKind);
  put(exit.tensorIndex, AbiLayout::kStatusTensorIndex);
  put(exit.dim, AbiLayout::kStatusDim);
  put(exit.symbol, AbiLayout::kStatusSymbol);
  put(exit.expectedMin, AbiLayout::kStatusExpectedMin);
  put(exit.expectedMax, AbiLayout::kStatusExpectedMax);
  put(exit.actual, AbiLayout::kStatusActual);
  put(c32(-1), AbiLayout::kStatusVariant); // no code ran
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRet(exit.code);
  return exit;
}

void EntryPointEmitter::failIf(IRBuilder<> &b, GuardSink &sink, Value *failed,
                               const Guard &g, Value *expectedMin,
                               Value *expectedMax, Value *actual) {
  if (!sink.exit) {
    bool protectsLoads =
        g.kind == GuardKind::InputCount || g.kind == GuardKind::OutputCount ||
        g.kind == GuardKind::InputsArray || g.kind == GuardKind::OutputsArray;
    if (!protectsLoads) {
      sink.anyFailed = b.CreateOr(sink.anyFailed, failed);
      return;
    }
    BasicBlock *next = BasicBlock::Create(context, "guard.ok",
                                          b.GetInsertBlock()->getParent());
    b.CreateCondBr(failed, sink.unsafe, next,
                   MDBuilder(context).createUnlikelyBranchWeights());
    b.SetInsertPoint(next);
    return;
  }
  FailExit &exit = *sink.exit;
  failWith(b, exit, failed,
           {int32_t(g.code), int32_t(g.id), int32_t(g.side), g.tensor, g.dim,
            g.symbol},
           expectedMin, expectedMax, actual);
}

void EntryPointEmitter::failWith(IRBuilder<> &b, FailExit &exit, Value *failed,
                                 ArrayRef<int32_t> ids, Value *expectedMin,
                                 Value *expectedMax, Value *actual) {
  BasicBlock *from = b.GetInsertBlock();
  BasicBlock *next = BasicBlock::Create(context, "guard.ok", from->getParent(),
                                        exit.block);
  MDNode *unlikely = MDBuilder(context).createUnlikelyBranchWeights();
  b.CreateCondBr(failed, exit.block, next, unlikely);
  exit.code->addIncoming(c32(ids[0]), from);
  exit.guard->addIncoming(c32(ids[1]), from);
  exit.tensorKind->addIncoming(c32(ids[2]), from);
  exit.tensorIndex->addIncoming(c32(ids[3]), from);
  exit.dim->addIncoming(c32(ids[4]), from);
  exit.symbol->addIncoming(c32(ids[5]), from);
  exit.expectedMin->addIncoming(expectedMin, from);
  exit.expectedMax->addIncoming(expectedMax, from);
  exit.actual->addIncoming(actual, from);
  b.SetInsertPoint(next);
}

Value *EntryPointEmitter::evaluate(IRBuilder<> &b, const ShapeExpr &expr,
                                   ArrayRef<Value *> symbols, Type *type) {
  // Only called once the symbols were checked against their ranges and
  // multiples, where the verifier proved that no dim or size overflows.
  IRExprOps ops{b, symbols, type};
  return expr.fold(ops);
}

/// The guards a descriptor template checks (emitStaticFieldTemplates).
static bool isStaticField(const Guard &g) {
  return g.kind == GuardKind::DType || g.kind == GuardKind::Rank ||
         g.kind == GuardKind::StaticDim;
}

void EntryPointEmitter::emitGuards(IRBuilder<> &b, GuardSink &exit,
                                   Value *inputs, Value *numInputs,
                                   Value *outputs, Value *numOutputs,
                                   bool checkOutputs, CallState &state) {
  state.symbols.assign(contract.symbols.size(), nullptr);
  state.inputBytes.assign(contract.inputs.size(), nullptr);
  state.outputBytes.assign(contract.outputs.size(), nullptr);
  state.inputData.assign(contract.inputs.size(), nullptr);
  state.outputData.assign(contract.outputs.size(), nullptr);
  positiveBytes.clear();
  Constant *zero = c64(0);
  // Combining, the static fields of every descriptor are checked together,
  // where the first such guard is.
  StaticFields staticFields = staticFieldGuards(exit, checkOutputs);
  const Guard *firstStaticField = nullptr;
  for (const auto &entry : staticFields)
    if (!firstStaticField || entry.second.front()->id < firstStaticField->id)
      firstStaticField = entry.second.front();
  for (const Guard &g : contract.guards) {
    // Data-dependent guards are checked by the kernel (checkKernelStatus).
    if ((!checkOutputs && g.side == TensorSide::Output) ||
        isDataDependent(g.kind))
      continue;
    Value *desc = g.side == TensorSide::None
                      ? nullptr
                      : tensorOf(b, g, inputs, outputs);
    if (!staticFields.empty() && isStaticField(g)) {
      if (&g == firstStaticField)
        emitStaticFieldTemplates(b, exit, inputs, outputs, staticFields);
      continue;
    }
    auto dimValue = [&]() {
      return b.CreateLoad(i64, dimPtr(b, desc, unsigned(g.dim)), "dim");
    };
    // (dims[d] - rest) as i128 so that no caller-provided value overflows.
    auto numerator = [&]() {
      Value *rest = evaluate(b, g.expr, state.symbols, i128);
      return b.CreateSub(b.CreateSExt(dimValue(), i128), rest);
    };
    switch (g.kind) {
    case GuardKind::InputCount:
    case GuardKind::OutputCount: {
      Value *count = g.kind == GuardKind::InputCount ? numInputs : numOutputs;
      failIf(b, exit, b.CreateICmpNE(count, c64(g.value)), g, c64(g.value),
             c64(g.value), count);
      break;
    }
    case GuardKind::InputsArray:
    case GuardKind::OutputsArray:
      failIf(b, exit,
             b.CreateIsNull(g.kind == GuardKind::InputsArray ? inputs : outputs),
             g, zero, zero, zero);
      break;
    case GuardKind::DataPointer: {
      Value *data = load(b, ptr, desc, AbiLayout::kTensorData, "data");
      (g.side == TensorSide::Input ? state.inputData
                                   : state.outputData)[g.tensor] = data;
      failIf(b, exit, b.CreateIsNull(data), g, zero, zero, zero);
      break;
    }
    case GuardKind::DType:
    case GuardKind::Rank: {
      Value *actual = load(b, i32, desc,
                           g.kind == GuardKind::DType ? AbiLayout::kTensorDType
                                                      : AbiLayout::kTensorRank);
      failIf(b, exit, b.CreateICmpNE(actual, c32(g.value)), g, c64(g.value),
             c64(g.value), b.CreateSExt(actual, i64));
      break;
    }
    case GuardKind::StaticDim: {
      Value *actual = dimValue();
      failIf(b, exit, b.CreateICmpNE(actual, c64(g.value)), g, c64(g.value),
             c64(g.value), actual);
      break;
    }
    case GuardKind::SymbolForm: {
      Value *remainder =
          b.CreateSRem(numerator(), ConstantInt::get(i128, g.value, true));
      failIf(b, exit, b.CreateICmpNE(remainder, ConstantInt::get(i128, 0)), g,
             zero, zero, dimValue());
      break;
    }
    case GuardKind::SymbolRange: {
      const ContractSymbol &symbol = contract.symbols[g.symbol];
      Value *value = numerator();
      if (g.value != 1)
        value = b.CreateSDiv(value, ConstantInt::get(i128, g.value, true));
      Value *outside = b.CreateOr(
          b.CreateICmpSLT(value, ConstantInt::get(i128, symbol.min, true)),
          b.CreateICmpSGT(value, ConstantInt::get(i128, symbol.max, true)));
      // Report the value clamped to int64, as evaluateGuards does.
      Value *clamped = b.CreateSelect(
          b.CreateICmpSGT(value, ConstantInt::get(i128, INT64_MAX)),
          ConstantInt::get(i128, INT64_MAX),
          b.CreateSelect(
              b.CreateICmpSLT(value, ConstantInt::get(i128, INT64_MIN, true)),
              ConstantInt::get(i128, INT64_MIN, true), value));
      failIf(b, exit, outside, g, c64(symbol.min), c64(symbol.max),
             b.CreateTrunc(clamped, i64));
      state.symbols[g.symbol] = b.CreateTrunc(value, i64, symbol.name);
      break;
    }
    case GuardKind::SymbolMultiple: {
      Value *value = state.symbols[g.symbol];
      failIf(b, exit, b.CreateICmpNE(b.CreateSRem(value, c64(g.value)), zero),
             g, c64(g.value), c64(g.value), value);
      break;
    }
    case GuardKind::SymbolValues: {
      Value *value = state.symbols[g.symbol];
      Value *member = b.getFalse();
      for (int64_t allowed : g.values)
        member = b.CreateOr(member, b.CreateICmpEQ(value, c64(allowed)));
      failIf(b, exit, b.CreateNot(member), g, c64(g.values.front()),
             c64(g.values.back()), value);
      break;
    }
    case GuardKind::DimEquals: {
      Value *expected = evaluate(b, g.expr, state.symbols, i64);
      Value *actual = dimValue();
      failIf(b, exit, b.CreateICmpNE(actual, expected), g, expected, expected,
             actual);
      break;
    }
    case GuardKind::BufferSize: {
      Value *needed = evaluate(b, g.expr, state.symbols, i64);
      if (alwaysPositive(g.expr))
        positiveBytes.insert(needed);
      (g.side == TensorSide::Input ? state.inputBytes
                                   : state.outputBytes)[g.tensor] = needed;
      Value *actual = load(b, i64, desc, AbiLayout::kTensorSizeBytes, "size");
      failIf(b, exit, b.CreateICmpSLT(actual, needed), g, needed,
             c64(INT64_MAX), actual);
      break;
    }
    case GuardKind::NoAlias:
      if (exit.failed && !isa<Constant>(exit.anyFailed)) {
        Function *function = b.GetInsertBlock()->getParent();
        BasicBlock *next =
            BasicBlock::Create(context, "guards.alias", function);
        b.CreateCondBr(exit.anyFailed, exit.failed, next,
                       MDBuilder(context).createUnlikelyBranchWeights());
        b.SetInsertPoint(next);
        exit.anyFailed = b.getFalse();
      }
      emitAliasGuard(b, exit, g, inputs, outputs, state);
      break;
    case GuardKind::IndexInRange:
      break; // skipped above
    }
  }
}

EntryPointEmitter::StaticFields
EntryPointEmitter::staticFieldGuards(const GuardSink &sink, bool checkOutputs) {
  StaticFields fields;
  if (sink.exit || !module.getDataLayout().isLittleEndian())
    return fields;
  for (const Guard &g : contract.guards)
    if (isStaticField(g) && (checkOutputs || g.side != TensorSide::Output))
      fields[{g.side, g.tensor}].push_back(&g);
  return fields;
}

void EntryPointEmitter::emitStaticFieldTemplates(IRBuilder<> &b,
                                                 GuardSink &sink,
                                                 Value *inputs, Value *outputs,
                                                 const StaticFields &fields) {
  // Word 0 holds the dtype (low half) and the rank (high half), word 1 + d
  // dims[d]: txc_tensor's layout on a little-endian target.
  static_assert(AbiLayout::kTensorRank == AbiLayout::kTensorDType + 4 &&
                    AbiLayout::kTensorDims == AbiLayout::kTensorDType + 8,
                "the template assumes txc_tensor's layout");
  Value *failed = b.getFalse();
  for (const auto &[tensor, guards] : fields) {
    SmallVector<uint64_t> expected(1, 0), mask(1, 0);
    for (const Guard *g : guards) {
      uint64_t value = uint64_t(g->value);
      if (g->kind != GuardKind::StaticDim) {
        unsigned shift = g->kind == GuardKind::Rank ? 32 : 0;
        expected[0] |= (value & 0xffffffffu) << shift;
        mask[0] |= uint64_t(0xffffffffu) << shift;
        continue;
      }
      size_t word = size_t(g->dim) + 1;
      expected.resize(std::max(expected.size(), word + 1), 0);
      mask.resize(std::max(mask.size(), word + 1), 0);
      expected[word] = value;
      mask[word] = ~uint64_t(0);
    }
    Value *desc = descriptor(b, tensor.first == TensorSide::Input ? inputs
                                                                   : outputs,
                             unsigned(tensor.second));
    for (size_t word = 0; word < expected.size(); ++word) {
      if (!mask[word])
        continue;
      Value *actual =
          load(b, i64, desc, AbiLayout::kTensorDType + 8 * unsigned(word),
               "fields");
      if (~mask[word])
        actual = b.CreateAnd(actual, ConstantInt::get(i64, mask[word]));
      Value *differs =
          b.CreateICmpNE(actual, ConstantInt::get(i64, expected[word]));
      failed = b.CreateOr(failed, differs);
    }
  }
  // Any of the guards stands for all of them: combining only ORs.
  Constant *zero = c64(0);
  failIf(b, sink, failed, *fields.begin()->second.front(), zero, zero, zero);
}

void EntryPointEmitter::emitAliasGuard(IRBuilder<> &b, GuardSink &sink,
                                       const Guard &g, Value *inputs,
                                       Value *outputs, CallState &state) {
  Constant *zero = c64(0);
  Value *bytes = state.outputBytes[g.tensor];
  auto dataOf = [&](Value *array, unsigned index, ArrayRef<Value *> checked) {
    return b.CreatePtrToInt(dataPointer(b, array, index, checked), i64);
  };
  Value *start = dataOf(outputs, unsigned(g.tensor), state.outputData);
  Value *end = b.CreateAdd(start, bytes);
  auto checkAgainst = [&](Value *array, unsigned index, Value *otherBytes,
                          TensorSide otherSide) {
    Value *otherStart = dataOf(
        array, index,
        otherSide == TensorSide::Input ? state.inputData : state.outputData);
    // Combining, a superset of the overlaps is enough: the cold path
    // decides (mayOverlap).
    Value *overlap = overlaps(b, start, end, bytes, otherStart, otherBytes,
                              /*superset=*/!sink.exit);
    failIf(b, sink, overlap, g, c64(int64_t(otherSide)), c64(index), zero);
  };
  for (unsigned i = 0; i < contract.inputs.size(); ++i)
    checkAgainst(inputs, i, state.inputBytes[i], TensorSide::Input);
  for (unsigned o = 0; o < unsigned(g.tensor); ++o)
    checkAgainst(outputs, o, state.outputBytes[o], TensorSide::Output);
}

void EntryPointEmitter::writeOutputShapes(IRBuilder<> &b, Value *outputs,
                                          CallState &state) {
  for (unsigned o = 0; o < contract.outputs.size(); ++o) {
    const TensorType &type = contract.outputs[o].type;
    Value *desc = descriptor(b, outputs, o);
    b.CreateStore(c32(int32_t(type.dtype)),
                  field(b, desc, AbiLayout::kTensorDType));
    b.CreateStore(c32(int32_t(type.rank())),
                  field(b, desc, AbiLayout::kTensorRank));
    for (unsigned d = 0; d < type.rank(); ++d)
      b.CreateStore(evaluate(b, type.shape[d], state.symbols, i64),
                    dimPtr(b, desc, d));
  }
}

void EntryPointEmitter::writeSuccess(IRBuilder<> &b, Value *status,
                                     Value *variant) {
  BasicBlock *store = BasicBlock::Create(context, "status.ok",
                                         b.GetInsertBlock()->getParent());
  BasicBlock *done = BasicBlock::Create(context, "return",
                                        b.GetInsertBlock()->getParent());
  b.CreateCondBr(b.CreateIsNull(status), done, store);
  b.SetInsertPoint(store);
  b.CreateStore(c32(0), field(b, status, AbiLayout::kStatusCode));
  b.CreateStore(c32(-1), field(b, status, AbiLayout::kStatusGuard));
  b.CreateStore(variant ? variant : c32(0),
                field(b, status, AbiLayout::kStatusVariant));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRet(c32(0));
}

static bool hasDataDependentGuards(const Contract &contract) {
  return llvm::any_of(contract.guards,
                      [](const Guard &g) { return isDataDependent(g.kind); });
}

Value *EntryPointEmitter::callKernel(IRBuilder<> &b, Value *inputs,
                                     Value *outputs, CallState &state,
                                     Value *blob, Value *workspace,
                                     Value *workspaceSize) {
  // The kernel's memref arguments, expanded by the LLVM lowering to
  // (allocated, aligned, offset, sizes..., strides...).
  // The parallel context comes first: NULL, serial (<p>_run_with_options
  // passes its own, RunOptionsEmitter.cpp).
  SmallVector<Value *> args = {ConstantPointerNull::get(ptr)};
  // A declared symbol that no input uses is never bound; no tensor depends
  // on it, so the kernel ignores its value.
  for (Value *symbol : state.symbols)
    args.push_back(symbol ? symbol : c64(0));
  auto addPointer = [&](Value *data, const TensorType &type) {
    args.push_back(data);
    args.push_back(data);
    args.push_back(c64(0));
    SmallVector<Value *> sizes;
    for (const ShapeExpr &dim : type.shape)
      sizes.push_back(evaluate(b, dim, state.symbols, i64));
    SmallVector<Value *> strides(sizes.size());
    Value *stride = c64(1);
    for (size_t d = sizes.size(); d-- > 0;) {
      strides[d] = stride;
      stride = b.CreateMul(stride, sizes[d]);
    }
    args.append(sizes.begin(), sizes.end());
    args.append(strides.begin(), strides.end());
  };
  auto addMemRef = [&](Value *array, unsigned index, const TensorType &type,
                       ArrayRef<Value *> checked) {
    addPointer(dataPointer(b, array, index, checked), type);
  };
  for (unsigned i = 0; i < contract.inputs.size(); ++i)
    addMemRef(inputs, i, contract.inputs[i].type, state.inputData);
  // The weights: a global of the object, or a range of the caller's blob.
  if (weights)
    for (size_t c : weights->storedConstants()) {
      const ConstantPlacement &placement = weights->constants[c];
      const WeightsBlob &run = weights->blobs[placement.blob];
      Value *data;
      if (placement.storage == ConstantStorage::External) {
        data = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), blob, run.offset,
                                            placement.name);
      } else {
        data = module.getGlobalVariable(run.symbol, /*AllowInternal=*/true);
        if (!data) {
          auto *global = new GlobalVariable(
              module, ArrayType::get(b.getInt8Ty(), run.bytes.size),
              /*isConstant=*/true, GlobalValue::ExternalLinkage, nullptr,
              run.symbol);
          // Defined by finalizeWeightGlobals after optimization; until then
          // a declaration, so that nothing can assume its contents.
          global->setVisibility(GlobalValue::HiddenVisibility);
          global->setDSOLocal(true);
          global->setAlignment(Align(WeightsBlobLayout::kAlignment));
          data = global;
        }
      }
      addPointer(data, placement.type);
    }
  Value *kernelStatus = nullptr;
  if (hasDataDependentGuards(contract)) {
    // memref<2xi64> on the stack, between the inputs and the outputs:
    // (allocated, aligned, offset, size, stride).
    Function *function = b.GetInsertBlock()->getParent();
    IRBuilder<> entry(&function->getEntryBlock(),
                      function->getEntryBlock().begin());
    Type *type = ArrayType::get(i64, 2);
    kernelStatus = entry.CreateAlloca(type, nullptr, "kernel_status");
    b.CreateStore(c64(-1), kernelStatus);
    b.CreateStore(c64(0),
                  b.CreateConstInBoundsGEP2_64(type, kernelStatus, 0, 1));
    args.append({kernelStatus, kernelStatus, c64(0), c64(2), c64(1)});
  }
  for (unsigned o = 0; o < contract.outputs.size(); ++o)
    addMemRef(outputs, o, contract.outputs[o].type, state.outputData);
  // The workspace, memref<Nxi8>, comes last.
  SmallVector<Value *> workspaceArgs;
  if (workspace)
    workspaceArgs = {workspace, workspace, c64(0),
                     workspaceSize ? workspaceSize
                                   : c64(int64_t(workspaceBytes)),
                     c64(1)};
  if (!dispatches()) {
    callKernelCode(b, kernels[0], args, workspaceArgs);
    return kernelStatus;
  }
  Function *function = b.GetInsertBlock()->getParent();
  BasicBlock *done = BasicBlock::Create(context, "kernel.done", function);
  SwitchInst *dispatch = b.CreateSwitch(state.variant, done, kernels.size());
  for (const KernelCode &code : kernels) {
    BasicBlock *call = BasicBlock::Create(
        context, code.variant ? "variant" + Twine(code.variant->id) : "generic",
        function);
    dispatch->addCase(
        cast<ConstantInt>(c32(code.variant ? code.variant->id : 0)), call);
    IRBuilder<> cb(call);
    callKernelCode(cb, code, args, workspaceArgs);
    cb.CreateBr(done);
  }
  b.SetInsertPoint(done);
  return kernelStatus;
}

void EntryPointEmitter::callKernelCode(IRBuilder<> &b, const KernelCode &code,
                                       ArrayRef<Value *> args,
                                       ArrayRef<Value *> workspaceArgs) {
  SmallVector<Value *> all(args);
  // A variant may need no workspace where another does.
  if (code.needsWorkspace())
    all.append(workspaceArgs.begin(), workspaceArgs.end());
  b.CreateCall(code.kernel->getFunctionType(), code.kernel, all);
}

int EntryPointEmitter::symbolAtOne(const CallState &state) const {
  // Variants are the caller's own specializations, and a kernel status
  // would need merging: neither gets the copy.
  if (dispatches() || hasDataDependentGuards(contract))
    return -1;
  for (auto [index, symbol] : llvm::enumerate(contract.symbols))
    if (state.symbols[index] && symbol.min <= 1 && 1 <= symbol.max)
      return int(index);
  return -1;
}

void EntryPointEmitter::callKernelAtOne(IRBuilder<> &b, Value *inputs,
                                        Value *outputs, CallState &state,
                                        int symbol, Value *workspace,
                                        Value *workspaceSize) {
  Function *function = b.GetInsertBlock()->getParent();
  BasicBlock *one = BasicBlock::Create(context, "kernel.at_one", function);
  BasicBlock *general = BasicBlock::Create(context, "kernel", function);
  BasicBlock *done = BasicBlock::Create(context, "kernel.done", function);
  b.CreateCondBr(b.CreateICmpEQ(state.symbols[symbol], c64(1)), one, general);
  // The sizes and strides of the copy are computed from the constant too.
  CallState atOne = state;
  atOne.symbols[symbol] = c64(1);
  for (auto [block, callState] :
       {std::pair{one, &atOne}, std::pair{general, &state}}) {
    b.SetInsertPoint(block);
    callKernel(b, inputs, outputs, *callState, /*blob=*/nullptr, workspace,
               workspaceSize);
    b.CreateBr(done);
  }
  b.SetInsertPoint(done);
}

void EntryPointEmitter::assumeSymbolRanges(IRBuilder<> &b,
                                           const CallState &state) {
  for (auto [symbol, value] : llvm::zip(contract.symbols, state.symbols))
    if (value)
      b.CreateAssumption(
          b.CreateAnd(b.CreateICmpSGE(value, c64(symbol.min)),
                      b.CreateICmpSLE(value, c64(symbol.max))));
}

void EntryPointEmitter::chooseVariant(IRBuilder<> &b, CallState &state) {
  if (!dispatches())
    return;
  // Tried from the least to the most specific, each overriding the last:
  // the most specific match wins, as dispatchOrder says.
  std::vector<const ContractVariant *> order =
      dispatchOrder(contract.variants);
  Value *chosen = c32(0);
  for (const ContractVariant *variant : llvm::reverse(order)) {
    Value *matches = b.getTrue();
    for (const SymbolBinding &binding : variant->bindings)
      matches = b.CreateAnd(
          matches,
          b.CreateICmpEQ(state.symbols[binding.symbol], c64(binding.value)));
    chosen = b.CreateSelect(matches, c32(variant->id), chosen);
  }
  state.variant = chosen;
  state.variant->setName("variant");
}

void EntryPointEmitter::recordDispatch(IRBuilder<> &b,
                                       const CallState &state) {
  if (!dispatches())
    return;
  SmallVector<Value *> args = {ConstantPointerNull::get(ptr), state.variant};
  for (Value *symbol : state.symbols)
    args.push_back(symbol ? symbol : c64(0));
  b.CreateCall(getOrEmitDispatchRecorder(module, contract), args);
}

void EntryPointEmitter::checkKernelStatus(IRBuilder<> &b, FailExit &exit,
                                          Value *kernelStatus,
                                          CallState &state) {
  GuardSink sink;
  sink.exit = &exit;
  Type *type = ArrayType::get(i64, 2);
  Value *failed = b.CreateLoad(i64, kernelStatus, "failed_guard");
  Value *actual = b.CreateLoad(
      i64, b.CreateConstInBoundsGEP2_64(type, kernelStatus, 0, 1), "actual");
  for (const Guard &g : contract.guards) {
    if (g.kind != GuardKind::IndexInRange)
      continue;
    Value *lowest = evaluate(b, lowestValidIndex(g), state.symbols, i64);
    Value *highest = evaluate(b, highestValidIndex(g), state.symbols, i64);
    failIf(b, sink, b.CreateICmpEQ(failed, c64(g.id)), g, lowest, highest,
           actual);
  }
}

/// An entry point. Its guards are checked branch-free (one combined
/// condition): a call that passes them costs a few loads and compares.
/// When any fails, the reporting guards find the first failing one and fill
/// the status.
Function *EntryPointEmitter::guardInterpreter() {
  // Small contracts call it only when a guard failed.
  if (!interpreter)
    interpreter = emitGuardInterpreter(
        module, contract, table,
        /*cold=*/countCheckedGuards(/*checkOutputs=*/true) <= kMaxInlineGuards);
  return interpreter;
}

size_t EntryPointEmitter::countCheckedGuards(bool checkOutputs) const {
  return llvm::count_if(table.rows, [&](const GuardRow &row) {
    return checkOutputs || row.side != int32_t(TensorSide::Output);
  });
}

Value *EntryPointEmitter::callGuardInterpreter(IRBuilder<> &b,
                                               ArrayRef<Value *> args,
                                               bool checkOutputs,
                                               CallState &state) {
  Function *function = b.GetInsertBlock()->getParent();
  IRBuilder<> entry(&function->getEntryBlock(),
                    function->getEntryBlock().begin());
  Type *arrayType =
      ArrayType::get(i64, std::max<size_t>(contract.symbols.size(), 1));
  Value *symbols = entry.CreateAlloca(arrayType, nullptr, "symbols");
  SmallVector<Value *> callArgs(args.begin(), args.begin() + 5);
  callArgs.append({symbols, c32(checkOutputs)});
  Value *code = b.CreateCall(guardInterpreter(), callArgs, "guards");
  state.symbols.assign(contract.symbols.size(), nullptr);
  state.inputBytes.assign(contract.inputs.size(), nullptr);
  state.outputBytes.assign(contract.outputs.size(), nullptr);
  // A symbol is bound by its range guard (the first use in the inputs).
  // The values are only used once every guard passed: the interpreter then
  // wrote them.
  for (const Guard &g : contract.guards)
    if (g.kind == GuardKind::SymbolRange &&
        (checkOutputs || g.side != TensorSide::Output))
      state.symbols[g.symbol] = b.CreateLoad(
          i64, b.CreateConstInBoundsGEP2_64(arrayType, symbols, 0, g.symbol),
          contract.symbols[g.symbol].name);
  return code;
}

/// An entry point. Small contracts check their guards inline, branch-free
/// (one combined condition): a call that passes them costs a few loads and
/// compares; when any fails, the interpreter finds the first failing one and
/// fills the status. Larger ones call the interpreter directly.
Function *EntryPointEmitter::emitEntryPoint(StringRef name, bool checkOutputs,
                                            bool runKernel,
                                            WorkspaceSource source, bool slow) {
  Function *function =
      createEntryPoint(name, source == WorkspaceSource::Caller);
  bool inlineGuards =
      !slow && countCheckedGuards(checkOutputs) <= kMaxInlineGuards;
  // The fast path's cold side: this entry point again, with the guards
  // checked by the interpreter. A tail call to it keeps the fast path free
  // of calls, so that nothing it computed stays live across one (no
  // callee-saved registers to save and restore on every call). It comes
  // after the entry point in the module, so that the kernel goes with the
  // entry point in LLVM's partitions (partitionRoots in Compiler.cpp).
  Function *slowCopy = nullptr;
  if (inlineGuards) {
    slowCopy = emitEntryPoint((name + slowEntrySuffix()).str(), checkOutputs,
                              runKernel, source, /*slow=*/true);
    slowCopy->setLinkage(GlobalValue::InternalLinkage);
    slowCopy->addFnAttr(Attribute::Cold);
    slowCopy->addFnAttr(Attribute::NoInline);
  }
  Value *status = function->getArg(4);
  SmallVector<Value *> args;
  for (unsigned i = 0; i < 5; ++i)
    args.push_back(function->getArg(i));
  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  BasicBlock *passed = BasicBlock::Create(context, "guards.passed", function);
  IRBuilder<> b(entry);
  Value *workspace = nullptr;
  if (source == WorkspaceSource::Caller) {
    // Like the weights blob, the workspace is checked before any guard.
    workspace = function->getArg(5);
    FailExit exit = createFailExit(function, status);
    emitWorkspaceChecks(b, exit, workspace, function->getArg(6));
  }
  CallState state;
  if (inlineGuards)
    emitInlineGuards(b, args, checkOutputs, state, passed, slowCopy);
  else
    emitTableGuards(b, args, checkOutputs, state, passed);
  b.SetInsertPoint(passed);
  assumeSymbolRanges(b, state);
  chooseVariant(b, state);
  // A failed allocation, like a failed guard, leaves the outputs alone.
  Value *allocation = nullptr, *workspaceSize = nullptr;
  if (source != WorkspaceSource::None)
    workspaceSize = prepareWorkspace(
        b, function, status, source, state,
        source == WorkspaceSource::Caller ? function->getArg(6) : nullptr,
        workspace, allocation);
  writeOutputShapes(b, function->getArg(2), state);
  if (runKernel) {
    recordDispatch(b, state);
    Value *kernelStatus = nullptr;
    if (int symbol = symbolAtOne(state); symbol >= 0)
      callKernelAtOne(b, function->getArg(0), function->getArg(2), state,
                      symbol, workspace, workspaceSize);
    else
      kernelStatus =
          callKernel(b, function->getArg(0), function->getArg(2), state,
                     /*blob=*/nullptr, workspace, workspaceSize);
    if (allocation)
      freeWorkspace(b, allocation);
    if (kernelStatus) {
      // Data-dependent guards (index ranges) are known only after the
      // kernel ran; they report through their own failure exit.
      FailExit exit = createFailExit(function, status);
      checkKernelStatus(b, exit, kernelStatus, state);
    }
  }
  writeSuccess(b, status, state.variant);
  return function;
}

void EntryPointEmitter::emitInlineGuards(IRBuilder<> &b, ArrayRef<Value *> args,
                                         bool checkOutputs, CallState &state,
                                         BasicBlock *passed, Function *slow) {
  Function *function = b.GetInsertBlock()->getParent();
  BasicBlock *unsafe = BasicBlock::Create(context, "guards.unsafe", function);
  BasicBlock *failed = BasicBlock::Create(context, "guards.failed", function);
  if (slow) {
    // Both the unsafe and the failed side continue in the slow copy, which
    // checks every guard again (the interpreter reports the first failing
    // one) and runs the call if none failed: the same verdict and status.
    for (BasicBlock *block : {unsafe, failed}) {
      IRBuilder<> sb(block);
      SmallVector<Value *> all;
      for (Argument &arg : function->args())
        all.push_back(&arg);
      CallInst *call = sb.CreateCall(slow, all);
      call->setTailCallKind(CallInst::TCK_MustTail);
      sb.CreateRet(call);
    }
  } else {
    // Counts or arrays are wrong: nothing else may be loaded.
    IRBuilder<> ub(unsafe);
    CallState unused;
    ub.CreateRet(callGuardInterpreter(ub, args, checkOutputs, unused));
  }
  GuardSink sink;
  sink.anyFailed = b.getFalse();
  sink.unsafe = unsafe;
  sink.failed = failed;
  emitGuards(b, sink, args[0], args[1], args[2], args[3], checkOutputs, state);
  b.CreateCondBr(sink.anyFailed, failed, passed,
                 MDBuilder(context).createUnlikelyBranchWeights());
  if (slow)
    return;
  // The interpreter agrees with the combined condition; should it ever find
  // nothing, the call proceeds as if all passed.
  IRBuilder<> fb(failed);
  CallState unused;
  Value *code = callGuardInterpreter(fb, args, checkOutputs, unused);
  BasicBlock *done = BasicBlock::Create(context, "guards.report", function);
  fb.CreateCondBr(fb.CreateICmpNE(code, c32(0)), done, passed);
  IRBuilder<> db(done);
  db.CreateRet(code);
}

void EntryPointEmitter::emitTableGuards(IRBuilder<> &b, ArrayRef<Value *> args,
                                        bool checkOutputs, CallState &state,
                                        BasicBlock *passed) {
  Function *function = b.GetInsertBlock()->getParent();
  Value *code = callGuardInterpreter(b, args, checkOutputs, state);
  BasicBlock *failed = BasicBlock::Create(context, "guards.failed", function);
  b.CreateCondBr(b.CreateICmpNE(code, c32(0)), failed, passed,
                 MDBuilder(context).createUnlikelyBranchWeights());
  IRBuilder<>(failed).CreateRet(code);
}

void EntryPointEmitter::emitRun() {
  bool external = weights && weights->mode == WeightsMode::External;
  std::string run =
      external ? runWithWeightsSymbol(contract) : contract.runSymbol();
  std::string withWorkspace = runWithWorkspaceSymbol(contract, external);
  bool needsWorkspace = llvm::any_of(
      kernels, [](const KernelCode &code) { return code.needsWorkspace(); });
  WorkspaceSource own =
      needsWorkspace ? WorkspaceSource::Malloc : WorkspaceSource::None;
  if (external)
    emitRunWithWeights(run, own);
  else
    emitEntryPoint(run, /*checkOutputs=*/true, /*runKernel=*/true, own);
  if (!needsWorkspace) {
    emitForwarder(withWorkspace, run, external ? 7 : 5);
    return;
  }
  if (external)
    emitRunWithWeights(withWorkspace, WorkspaceSource::Caller);
  else
    emitEntryPoint(withWorkspace, /*checkOutputs=*/true, /*runKernel=*/true,
                   WorkspaceSource::Caller);
}

void EntryPointEmitter::emitForwarder(StringRef name, StringRef target,
                                      unsigned numArgs) {
  Function *callee = module.getFunction(target);
  SmallVector<Type *> params(callee->getFunctionType()->params());
  params.append({ptr, i64});
  Function *function = Function::Create(
      FunctionType::get(i32, params, /*isVarArg=*/false),
      GlobalValue::ExternalLinkage, name, module);
  function->addFnAttr(Attribute::NoUnwind);
  for (unsigned i = 0; i < numArgs; ++i)
    function->getArg(i)->setName(callee->getArg(i)->getName());
  function->getArg(numArgs)->setName("workspace");
  function->getArg(numArgs + 1)->setName("workspace_bytes");
  IRBuilder<> b(BasicBlock::Create(context, "entry", function));
  SmallVector<Value *> args;
  for (unsigned i = 0; i < numArgs; ++i)
    args.push_back(function->getArg(i));
  CallInst *call = b.CreateCall(callee, args);
  call->setTailCall();
  b.CreateRet(call);
}

void EntryPointEmitter::emitRunWithWeights(StringRef name,
                                           WorkspaceSource source) {
  // The blob's checks, then the guards, reporting as they go (this entry
  // point has no separate fast path).
  SmallVector<Type *> params = {ptr, i64, ptr, i64, ptr, i64, ptr};
  if (source == WorkspaceSource::Caller)
    params.append({ptr, i64});
  FunctionType *type = FunctionType::get(i32, params, /*isVarArg=*/false);
  Function *function =
      Function::Create(type, GlobalValue::ExternalLinkage, name, module);
  const char *argNames[] = {"weights",     "weights_size", "inputs",
                            "num_inputs",  "outputs",      "num_outputs",
                            "status",      "workspace",    "workspace_bytes"};
  for (unsigned i = 0; i < params.size(); ++i)
    function->getArg(i)->setName(argNames[i]);
  function->addFnAttr(Attribute::NoUnwind);
  Value *blob = function->getArg(0), *blobSize = function->getArg(1);
  Value *inputs = function->getArg(2), *numInputs = function->getArg(3);
  Value *outputs = function->getArg(4), *numOutputs = function->getArg(5);
  Value *status = function->getArg(6);
  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  FailExit exit = createFailExit(function, status);
  IRBuilder<> b(entry);
  emitWeightsChecks(b, exit, blob, blobSize);
  Value *workspace = nullptr, *allocation = nullptr;
  if (source == WorkspaceSource::Caller) {
    workspace = function->getArg(7);
    emitWorkspaceChecks(b, exit, workspace, function->getArg(8));
  }
  CallState state;
  if (countCheckedGuards(/*checkOutputs=*/true) <= kMaxInlineGuards) {
    GuardSink sink;
    sink.exit = &exit;
    emitGuards(b, sink, inputs, numInputs, outputs, numOutputs,
               /*checkOutputs=*/true, state);
  } else {
    BasicBlock *passed = BasicBlock::Create(context, "guards.passed", function);
    emitTableGuards(b, {inputs, numInputs, outputs, numOutputs, status},
                    /*checkOutputs=*/true, state, passed);
    b.SetInsertPoint(passed);
  }
  chooseVariant(b, state);
  Value *workspaceSize = nullptr;
  if (source != WorkspaceSource::None)
    workspaceSize = prepareWorkspace(
        b, function, status, source, state,
        source == WorkspaceSource::Caller ? function->getArg(8) : nullptr,
        workspace, allocation);
  writeOutputShapes(b, outputs, state);
  recordDispatch(b, state);
  Value *kernelStatus = callKernel(b, inputs, outputs, state, blob, workspace,
                                   workspaceSize);
  if (allocation)
    freeWorkspace(b, allocation);
  if (kernelStatus)
    checkKernelStatus(b, exit, kernelStatus, state);
  writeSuccess(b, status, state.variant);
}

static SmallVector<int32_t> workspaceStatusIds(WorkspaceCheck check) {
  return {int32_t(StatusCode::Workspace), -1, int32_t(TensorSide::None), -1,
          int32_t(check), -1};
}

void EntryPointEmitter::emitWorkspaceChecks(IRBuilder<> &b, FailExit &exit,
                                            Value *workspace,
                                            Value *workspaceSize) {
  Value *address = b.CreatePtrToInt(workspace, i64, "workspace_address");
  Constant *alignment = c64(int64_t(kWorkspaceAlignment));
  Value *badPointer = b.CreateOr(
      b.CreateIsNull(workspace),
      b.CreateICmpNE(b.CreateAnd(address, c64(kWorkspaceAlignment - 1)),
                     c64(0)));
  failWith(b, exit, badPointer, workspaceStatusIds(WorkspaceCheck::Pointer),
           alignment, alignment, address);
  // A size that depends on the shapes or the variant is checked after the
  // guards (prepareWorkspace).
  if (sizeAfterGuards())
    return;
  Constant *needed = c64(int64_t(workspaceBytes));
  failWith(b, exit, b.CreateICmpULT(workspaceSize, needed),
           workspaceStatusIds(WorkspaceCheck::Size), needed, c64(INT64_MAX),
           workspaceSize);
}

Value *EntryPointEmitter::neededWorkspace(IRBuilder<> &b,
                                          const CallState &state) {
  // Its arguments are the kernel's index arguments: the symbols.
  SmallVector<Value *> symbols;
  for (Value *symbol : state.symbols)
    symbols.push_back(symbol ? symbol : c64(0));
  auto bytesOf = [&](const KernelCode &code) -> Value * {
    if (!code.workspaceSizeFunction)
      return c64(int64_t(code.workspaceBytes));
    return b.CreateCall(code.workspaceSizeFunction, symbols,
                        "workspace_needed");
  };
  if (!dispatches())
    return bytesOf(kernels[0]);
  // The workspace of the code the call takes.
  Value *needed = bytesOf(kernels[0]);
  for (const KernelCode &code : kernels.drop_front())
    needed = b.CreateSelect(
        b.CreateICmpEQ(state.variant, c32(code.variant->id)), bytesOf(code),
        needed);
  return needed;
}

Value *EntryPointEmitter::prepareWorkspace(IRBuilder<> &b, Function *function,
                                           Value *status,
                                           WorkspaceSource source,
                                           const CallState &state,
                                           Value *callerBytes,
                                           Value *&workspace,
                                           Value *&allocation) {
  Value *needed = neededWorkspace(b, state);
  if (source == WorkspaceSource::Caller && !sizeAfterGuards())
    return needed; // checked before the guards
  FailExit exit = createFailExit(function, status);
  if (source == WorkspaceSource::Malloc) {
    workspace = allocateWorkspace(b, exit, needed, allocation);
    return needed;
  }
  failWith(b, exit, b.CreateICmpULT(callerBytes, needed),
           workspaceStatusIds(WorkspaceCheck::Size), needed, c64(INT64_MAX),
           callerBytes);
  return needed;
}

Value *EntryPointEmitter::allocateWorkspace(IRBuilder<> &b, FailExit &exit,
                                            Value *bytes, Value *&allocation) {
  // malloc's alignment (16) is less than the workspace's: over-allocate
  // and round the start up, rather than depend on aligned_alloc.
  FunctionCallee mallocFn = module.getOrInsertFunction(
      "malloc", FunctionType::get(ptr, {i64}, /*isVarArg=*/false));
  allocation = b.CreateCall(
      mallocFn, {b.CreateAdd(bytes, c64(int64_t(kWorkspaceAlignment - 1)))},
      "allocation");
  failWith(b, exit, b.CreateIsNull(allocation),
           workspaceStatusIds(WorkspaceCheck::Allocation), bytes, bytes,
           c64(0));
  Value *address = b.CreatePtrToInt(allocation, i64);
  Value *padding =
      b.CreateAnd(b.CreateNeg(address), c64(kWorkspaceAlignment - 1));
  return b.CreateInBoundsGEP(b.getInt8Ty(), allocation, padding, "workspace");
}

void EntryPointEmitter::freeWorkspace(IRBuilder<> &b, Value *allocation) {
  FunctionCallee freeFn = module.getOrInsertFunction(
      "free", FunctionType::get(Type::getVoidTy(context), {ptr},
                                /*isVarArg=*/false));
  b.CreateCall(freeFn, {allocation});
}

void EntryPointEmitter::emitWeightsChecks(IRBuilder<> &b, FailExit &exit,
                                          Value *blob, Value *blobSize) {
  auto ids = [&](WeightsCheck check) {
    return SmallVector<int32_t>{
        int32_t(StatusCode::Weights), -1, int32_t(TensorSide::None), -1,
        int32_t(check), -1};
  };
  // Before anything is read: a usable pointer...
  Value *address = b.CreatePtrToInt(blob, i64, "weights_address");
  Constant *alignment = c64(int64_t(WeightsBlobLayout::kAlignment));
  Value *badPointer = b.CreateOr(
      b.CreateIsNull(blob),
      b.CreateICmpNE(
          b.CreateAnd(address, c64(int64_t(WeightsBlobLayout::kAlignment - 1))),
          c64(0)));
  failWith(b, exit, badPointer, ids(WeightsCheck::Pointer), alignment,
           alignment, address);
  // ... the size this object was compiled for ...
  Constant *expectedSize = c64(int64_t(weights->blobFileBytes));
  failWith(b, exit, b.CreateICmpNE(blobSize, expectedSize),
           ids(WeightsCheck::Size), expectedSize, expectedSize, blobSize);
  // ... and the marker: magic, version, header size, total size and the
  // fingerprint of the layout and contents, four aligned 64-bit loads.
  std::string header = weights->blobHeader();
  Value *differs = b.getFalse();
  Value *fingerprint = nullptr;
  for (unsigned word = 0; word < 4; ++word) {
    uint64_t expected = 0;
    for (unsigned i = 0; i < 8; ++i)
      expected |= uint64_t(uint8_t(header[8 * word + i])) << (8 * i);
    Value *loaded = b.CreateAlignedLoad(
        i64, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), blob, 8 * word),
        Align(8), "weights_marker");
    if (8 * word == WeightsBlobLayout::kFingerprintOffset)
      fingerprint = loaded;
    differs = b.CreateOr(
        differs, b.CreateICmpNE(loaded, ConstantInt::get(i64, expected)));
  }
  Constant *expectedFingerprint = ConstantInt::get(i64, weights->fingerprint);
  failWith(b, exit, differs, ids(WeightsCheck::Marker), expectedFingerprint,
           expectedFingerprint, fingerprint);
}

void EntryPointEmitter::emitOutputShapes() {
  emitEntryPoint(contract.shapesSymbol(), /*checkOutputs=*/false,
                 /*runKernel=*/false);
}

void EntryPointEmitter::emitWorkspaceSize() {
  FunctionType *type =
      FunctionType::get(i32, {ptr, i64, ptr, ptr}, /*isVarArg=*/false);
  Function *function = Function::Create(type, GlobalValue::ExternalLinkage,
                                        workspaceSizeSymbol(contract), module);
  const char *argNames[] = {"inputs", "num_inputs", "bytes", "status"};
  for (unsigned i = 0; i < 4; ++i)
    function->getArg(i)->setName(argNames[i]);
  function->addFnAttr(Attribute::NoUnwind);
  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  BasicBlock *passed = BasicBlock::Create(context, "guards.passed", function);
  IRBuilder<> b(entry);
  // The guards of <p>_output_shapes, which read no output descriptor but
  // want the right count and a non-NULL array: a blank one of our own.
  size_t numOutputs = contract.outputs.size();
  Value *outputs = b.CreateAlloca(
      ArrayType::get(b.getInt8Ty(),
                     std::max<size_t>(numOutputs, 1) * AbiLayout::kTensorSize),
      nullptr, "outputs");
  Value *status = function->getArg(3);
  SmallVector<Value *> args = {function->getArg(0), function->getArg(1),
                               outputs, c64(int64_t(numOutputs)), status};
  CallState state;
  if (countCheckedGuards(/*checkOutputs=*/false) <= kMaxInlineGuards)
    emitInlineGuards(b, args, /*checkOutputs=*/false, state, passed);
  else
    emitTableGuards(b, args, /*checkOutputs=*/false, state, passed);
  b.SetInsertPoint(passed);
  chooseVariant(b, state);
  Value *bytes = function->getArg(2);
  Value *needed = neededWorkspace(b, state);
  BasicBlock *store = BasicBlock::Create(context, "bytes.store", function);
  BasicBlock *done = BasicBlock::Create(context, "bytes.done", function);
  b.CreateCondBr(b.CreateIsNull(bytes), done, store);
  b.SetInsertPoint(store);
  b.CreateStore(needed, bytes);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  writeSuccess(b, status, state.variant);
}

//===----------------------------------------------------------------------===//
// The error message function
//===----------------------------------------------------------------------===//

void EntryPointEmitter::emitErrorMessage() {
  FunctionType *type = FunctionType::get(i32, {ptr, ptr, i64}, false);
  Function *function = Function::Create(type, GlobalValue::ExternalLinkage,
                                        contract.messageSymbol(), module);
  function->addFnAttr(Attribute::NoUnwind);
  Value *status = function->getArg(0);
  Value *buffer = function->getArg(1);
  Value *size = function->getArg(2);
  status->setName("status");
  buffer->setName("buffer");
  size->setName("size");

  FunctionCallee snprintfFn = module.getOrInsertFunction(
      "snprintf", FunctionType::get(i32, {ptr, i64, ptr}, /*isVarArg=*/true));
  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  IRBuilder<> b(entry);
  auto print = [&](IRBuilder<> &at, StringRef format, ArrayRef<Value *> args) {
    SmallVector<Value *> callArgs = {buffer, size,
                                     at.CreateGlobalStringPtr(format, "fmt")};
    callArgs.append(args.begin(), args.end());
    at.CreateRet(at.CreateCall(snprintfFn, callArgs));
  };

  BasicBlock *haveStatus = BasicBlock::Create(context, "have_status", function);
  BasicBlock *noStatus = BasicBlock::Create(context, "no_status", function);
  b.CreateCondBr(b.CreateIsNull(status), noStatus, haveStatus);
  {
    IRBuilder<> nb(noStatus);
    print(nb, "no status (NULL)", {});
  }
  b.SetInsertPoint(haveStatus);
  Value *code = load(b, i32, status, AbiLayout::kStatusCode, "code");
  Value *guardId = load(b, i32, status, AbiLayout::kStatusGuard, "guard");
  Value *fields[3] = {
      load(b, i64, status, AbiLayout::kStatusExpectedMin, "expected_min"),
      load(b, i64, status, AbiLayout::kStatusExpectedMax, "expected_max"),
      load(b, i64, status, AbiLayout::kStatusActual, "actual")};

  // Messages of statuses that name no known guard: by code alone.
  BasicBlock *byCode = BasicBlock::Create(context, "by_code", function);
  {
    IRBuilder<> cb(byCode);
    BasicBlock *unknown = BasicBlock::Create(context, "unknown_code", function);
    SwitchInst *codes = cb.CreateSwitch(code, unknown);
    auto genericMessage = [](StatusCode code) {
      CallStatus generic;
      generic.code = code;
      return genericStatusMessage(generic);
    };
    for (const StatusCodeInfo &info : kStatusCodes) {
      if (info.scope != StatusCodeScope::Guards)
        continue;
      BasicBlock *block = BasicBlock::Create(context, "code", function);
      IRBuilder<> kb(block);
      print(kb, genericMessage(info.code), {});
      codes->addCase(cast<ConstantInt>(c32(int32_t(info.code))), block);
    }
    // The checks before the guards (weights blob, workspace): which one
    // failed is in dim.
    struct CheckMessage {
      int32_t check;
      StringRef format;
      SmallVector<Value *, 2> args;
    };
    auto byCheck = [&](StatusCode statusCode, StringRef name,
                       ArrayRef<CheckMessage> messages) {
      BasicBlock *block = BasicBlock::Create(context, name, function);
      codes->addCase(cast<ConstantInt>(c32(int32_t(statusCode))), block);
      IRBuilder<> wb(block);
      Value *check = load(wb, i32, status, AbiLayout::kStatusDim, "check");
      BasicBlock *other = BasicBlock::Create(context, name, function);
      SwitchInst *checks = wb.CreateSwitch(check, other);
      for (const CheckMessage &message : messages) {
        BasicBlock *at = BasicBlock::Create(context, name, function);
        IRBuilder<> mb(at);
        print(mb, message.format, message.args);
        checks->addCase(cast<ConstantInt>(c32(message.check)), at);
      }
      IRBuilder<> ob(other);
      print(ob, genericMessage(statusCode), {});
    };
    if (weights && weights->mode == WeightsMode::External)
      byCheck(StatusCode::Weights, "weights",
              {{int32_t(WeightsCheck::Pointer),
                "the weights pointer must be non-NULL and aligned to %lld "
                "bytes, got address %#llx [weights pointer]",
                {fields[0], fields[2]}},
               {int32_t(WeightsCheck::Size),
                "the weights blob has %lld bytes, but this object needs "
                "%lld [weights size]",
                {fields[2], fields[0]}},
               {int32_t(WeightsCheck::Marker),
                "the weights blob does not match this object: its header "
                "(magic, version, size or fingerprint) differs; expected "
                "fingerprint %#llx, found %#llx [weights marker]",
                {fields[0], fields[2]}}});
    if (workspaceBytes)
      byCheck(StatusCode::Workspace, "workspace",
              {{int32_t(WorkspaceCheck::Pointer),
                "the workspace pointer must be non-NULL and aligned to %lld "
                "bytes, got address %#llx [workspace pointer]",
                {fields[0], fields[2]}},
               {int32_t(WorkspaceCheck::Size),
                "the workspace has %llu bytes, but this object needs at "
                "least %lld [workspace size]",
                {fields[2], fields[0]}},
               {int32_t(WorkspaceCheck::Allocation),
                "could not allocate the workspace of %lld bytes [workspace "
                "allocation]",
                {fields[0]}}});
    IRBuilder<> ub(unknown);
    print(ub, "error %d: unknown status code", {code});
  }

  // The {other} name of alias failures: inputs first, then outputs.
  GlobalVariable *nameTable = nullptr;
  ArrayType *tableType =
      ArrayType::get(ptr, contract.inputs.size() + contract.outputs.size());
  auto otherNameValue = [&](IRBuilder<> &at) -> Value * {
    if (!nameTable) {
      std::vector<Constant *> names;
      for (const ContractTensor &input : contract.inputs)
        names.push_back(at.CreateGlobalStringPtr("input '" + input.name + "'"));
      for (const ContractTensor &output : contract.outputs)
        names.push_back(
            at.CreateGlobalStringPtr("output '" + output.name + "'"));
      nameTable = new GlobalVariable(
          module, tableType, /*isConstant=*/true, GlobalValue::PrivateLinkage,
          ConstantArray::get(tableType, names), "tensor_names");
    }
    Value *kind = fields[0], *index = fields[1];
    auto inRange = [&](TensorSide side, size_t count) {
      return at.CreateAnd(
          at.CreateICmpEQ(kind, c64(int64_t(side))),
          at.CreateAnd(at.CreateICmpSGE(index, c64(0)),
                       at.CreateICmpSLT(index, c64(int64_t(count)))));
    };
    Value *validInput = inRange(TensorSide::Input, contract.inputs.size());
    Value *validOutput = inRange(TensorSide::Output, contract.outputs.size());
    // Anything else (a status not produced by this artifact) reads slot 0
    // and is replaced by the fallback below.
    Value *slot = at.CreateSelect(
        validInput, index,
        at.CreateSelect(validOutput,
                        at.CreateAdd(index, c64(contract.inputs.size())),
                        c64(0)));
    Value *entryPtr =
        at.CreateInBoundsGEP(tableType, nameTable, {c64(0), slot});
    Value *name = at.CreateLoad(ptr, entryPtr);
    return at.CreateSelect(at.CreateOr(validInput, validOutput), name,
                           at.CreateGlobalStringPtr("another tensor"));
  };

  // The {actual_dtype} name of dtype failures: a table indexed by the
  // code, NULL where a code is no dtype.
  GlobalVariable *dtypeTable = nullptr;
  int64_t maxCode = 0;
  for (DType type : kAllDTypes)
    maxCode = std::max<int64_t>(maxCode, int64_t(type));
  ArrayType *dtypeTableType = ArrayType::get(ptr, maxCode + 1);
  auto dtypeNameValue = [&](IRBuilder<> &at) -> Value * {
    if (!dtypeTable) {
      std::vector<Constant *> names(maxCode + 1,
                                    ConstantPointerNull::get(ptr));
      for (DType type : kAllDTypes)
        names[int64_t(type)] = at.CreateGlobalStringPtr(dtypeName(type));
      dtypeTable = new GlobalVariable(
          module, dtypeTableType, /*isConstant=*/true,
          GlobalValue::PrivateLinkage,
          ConstantArray::get(dtypeTableType, names), "dtype_names");
    }
    Value *actual = fields[2];
    Value *inRange = at.CreateICmpULE(actual, c64(maxCode));
    Value *slot = at.CreateSelect(inRange, actual, c64(0));
    Value *name = at.CreateLoad(
        ptr, at.CreateInBoundsGEP(dtypeTableType, dtypeTable, {c64(0), slot}));
    return at.CreateSelect(inRange, name, ConstantPointerNull::get(ptr));
  };
  BasicBlock *byGuard = BasicBlock::Create(context, "by_guard", function);
  b.CreateCondBr(b.CreateICmpEQ(code, c32(0)), byCode, byGuard);
  IRBuilder<> gb(byGuard);
  BasicBlock *message = BasicBlock::Create(context, "guard", function);
  gb.CreateCondBr(
      gb.CreateICmpULT(guardId, c32(int32_t(contract.guards.size()))), message,
      byCode);
  IRBuilder<> mb(message);
  emitGuardMessage(mb, contract, table, guardId, buffer, size, fields,
                   otherNameValue, dtypeNameValue);
}

/// Checks that `kernel` has the parameters the entry points pass, and
/// prepares it to be called from them: internal, its workspace aligned.
static Error checkKernel(Function *kernel, StringRef kernelName,
                         const Contract &contract, const WeightsPlan *weights,
                         WorkspaceSize workspace) {
  if (!kernel)
    return createStringError(inconvertibleErrorCode(),
                             "internal error: kernel '%s' not found",
                             kernelName.str().c_str());
  unsigned expected = 1 + contract.symbols.size(); // the parallel context
  for (const ContractTensor &input : contract.inputs)
    expected += 3 + 2 * input.type.rank();
  for (const ContractTensor &output : contract.outputs)
    expected += 3 + 2 * output.type.rank();
  if (weights)
    for (size_t c : weights->storedConstants())
      expected += 3 + 2 * weights->constants[c].type.rank();
  if (hasDataDependentGuards(contract))
    expected += 5; // the status buffer, memref<2xi64>
  if (workspace.needed())
    expected += 5; // the workspace, memref<Nxi8> or memref<?xi8>
  if (kernel->arg_size() != expected || !kernel->getReturnType()->isVoidTy())
    return createStringError(
        inconvertibleErrorCode(),
        "internal error: kernel '%s' has %u parameters (expected %u) or "
        "returns a value; the outputs were not bufferized in place",
        kernelName.str().c_str(), kernel->arg_size(), expected);
  kernel->setLinkage(GlobalValue::InternalLinkage);
  Module &module = *kernel->getParent();
  if (workspace.dynamic &&
      !module.getFunction(workspaceSizeFunctionName(kernelName)))
    return createStringError(inconvertibleErrorCode(),
                             "internal error: kernel '%s' has no workspace "
                             "size function",
                             kernelName.str().c_str());
  if (workspace.needed()) {
    // The workspace's aligned pointer (its memref's second field): every
    // entry point passes a 64-byte aligned block of its own.
    unsigned aligned = kernel->arg_size() - 4;
    kernel->addParamAttr(aligned, Attribute::NoAlias);
    kernel->addParamAttr(aligned, Attribute::getWithAlignment(
                                      module.getContext(),
                                      Align(kWorkspaceAlignment)));
    // Two entry points call it: one copy of the kernel, not two.
    kernel->addFnAttr(Attribute::NoInline);
  }
  return Error::success();
}

Error txc::emitAbiEntryPoints(Module &module, const Contract &contract,
                              StringRef kernelName, const WeightsPlan *weights,
                              WorkspaceSize workspace,
                              ArrayRef<VariantKernel> variants) {
  Function *kernel = module.getFunction(kernelName);
  if (Error err = checkKernel(kernel, kernelName, contract, weights, workspace))
    return err;
  SmallVector<KernelCode> kernels = {
      KernelCode(module, kernel, workspace, /*variant=*/nullptr)};
  SmallVector<Function *> kernelFunctions = {kernel};
  for (const VariantKernel &variant : variants) {
    Function *function = module.getFunction(variant.kernelName);
    if (Error err = checkKernel(function, variant.kernelName, contract,
                                weights, variant.workspace))
      return err;
    kernels.emplace_back(module, function, variant.workspace, variant.variant);
    kernelFunctions.push_back(function);
  }
  EntryPointEmitter emitter(module, contract, kernels, weights);
  emitter.emitRun();
  emitRunWithOptions(module, contract, kernelFunctions,
                     weights && weights->mode == WeightsMode::External,
                     llvm::any_of(kernels, [](const KernelCode &code) {
                       return code.needsWorkspace();
                     }));
  emitter.emitOutputShapes();
  emitter.emitWorkspaceSize();
  emitter.emitErrorMessage();
  if (!contract.variants.empty())
    emitFormatDispatchStats(module, contract);
  return Error::success();
}
