//===- RunOptionsEmitter.cpp - <p>_run_with_options in LLVM IR ------------===//
//
// <p>_run_with_options takes a caller-owned txc_run_options: the workspace,
// the external weights and the caller's parallel_for in one struct that can
// grow (a field past its struct_size reads as zero), so that threads do not
// double the entry points again. It reads the options, builds the kernel's
// parallel context {parallel_for, ctx, num_threads} on its stack and calls
// a copy of the run entry point that passes this context to the kernel
// instead of NULL: the guards, the workspace checks and their statuses are
// those of the entry points without options, by construction. With
// variants, the copy also passes a per-call dispatch context to the
// dispatch recorder, which counts the call in the caller's statistics
// block (DispatchStats.h).
//
//===----------------------------------------------------------------------===//
#include "RunOptionsEmitter.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/DispatchStats.h"
#include "txc/Target/CpuDispatch.h"
#include "txc/Target/Weights.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace txc;
using namespace llvm;

/// A copy of the entry point `name`, internal, with two more arguments:
/// the parallel context, which its kernel calls (one per variant) pass
/// instead of NULL, and the dispatch context, which its call of the
/// dispatch recorder (if any) passes instead of NULL.
static Function *cloneWithContext(Module &module, StringRef name,
                                  ArrayRef<Function *> kernels,
                                  Function *recorder) {
  Function *original = module.getFunction(name);
  LLVMContext &context = module.getContext();
  SmallVector<Type *> params(original->getFunctionType()->params());
  params.append(2, PointerType::getUnqual(context));
  Function *copy = Function::Create(
      FunctionType::get(original->getReturnType(), params, false),
      GlobalValue::InternalLinkage, name + ".parallel", module);
  ValueToValueMapTy mapping;
  for (auto [from, to] : zip(original->args(), copy->args())) {
    to.setName(from.getName());
    mapping[&from] = &to;
  }
  Argument *parallel = copy->getArg(copy->arg_size() - 2);
  parallel->setName("parallel");
  Argument *dispatch = copy->getArg(copy->arg_size() - 1);
  dispatch->setName("dispatch");
  SmallVector<ReturnInst *> returns;
  CloneFunctionInto(copy, original, mapping,
                    CloneFunctionChangeType::LocalChangesOnly, returns);
  std::string slowName = (name + slowEntrySuffix()).str();
  SmallVector<CallInst *> slowCalls;
  for (Instruction &inst : instructions(copy))
    if (auto *call = dyn_cast<CallInst>(&inst)) {
      Function *callee = call->getCalledFunction();
      if (is_contained(kernels, callee))
        call->setArgOperand(0, parallel);
      else if (recorder && callee == recorder)
        call->setArgOperand(0, dispatch);
      else if (callee && callee->getName() == slowName)
        slowCalls.push_back(call);
    }
  // The fast path's tail calls of the slow copy go to its own copy with the
  // same contexts, so that a call that takes the slow path runs the same.
  if (!slowCalls.empty()) {
    Function *slowCopy = cloneWithContext(module, slowName, kernels, recorder);
    slowCopy->addFnAttr(Attribute::Cold);
    slowCopy->addFnAttr(Attribute::NoInline);
    for (CallInst *call : slowCalls) {
      SmallVector<Value *> args(call->args());
      args.append({parallel, dispatch});
      CallInst *replacement = CallInst::Create(slowCopy, args, "", call);
      replacement->setTailCallKind(call->getTailCallKind());
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }
  return copy;
}

namespace {

/// Reads the fields of a txc_run_options.
class OptionsReader {
public:
  OptionsReader(IRBuilder<> &b, Value *options) : b(b), options(options) {
    // NULL options read as a struct_size of 0: every field is zero.
    Value *noSize = b.CreateAlloca(b.getInt32Ty(), nullptr, "no_options");
    b.CreateStore(b.getInt32(0), noSize);
    Value *sizeAt = b.CreateSelect(b.CreateIsNull(options), noSize, options);
    structSize = b.CreateLoad(b.getInt32Ty(), sizeAt, "struct_size");
  }

  /// The field at `offset`, or zero when the caller's struct ends before it.
  Value *field(Type *type, unsigned offset, const Twine &name) {
    unsigned end = offset + type->getPrimitiveSizeInBits() / 8;
    if (type->isPointerTy())
      end = offset + 8;
    Function *function = b.GetInsertBlock()->getParent();
    BasicBlock *present = BasicBlock::Create(b.getContext(), name + ".present",
                                             function);
    BasicBlock *done = BasicBlock::Create(b.getContext(), name + ".done",
                                          function);
    BasicBlock *from = b.GetInsertBlock();
    b.CreateCondBr(b.CreateICmpUGE(structSize, b.getInt32(end)), present,
                   done);
    b.SetInsertPoint(present);
    Value *value = b.CreateLoad(
        type, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), options, offset),
        name);
    b.CreateBr(done);
    b.SetInsertPoint(done);
    PHINode *phi = b.CreatePHI(type, 2, name);
    phi->addIncoming(Constant::getNullValue(type), from);
    phi->addIncoming(value, present);
    return phi;
  }

private:
  IRBuilder<> &b;
  Value *options;
  Value *structSize;
};

} // namespace

/// The per-call dispatch context {ptr block, i32 dispatched} on the
/// entry point's stack: the caller's block when it is one of this
/// program's (struct_size and layout match), else NULL, so that a block of
/// another program or size is never written.
static Value *createDispatchContext(IRBuilder<> &b, const Contract &contract,
                                    Value *block, Value *&checkedBlock) {
  LLVMContext &context = b.getContext();
  PointerType *ptr = PointerType::getUnqual(context);
  StructType *type = dispatchContextType(context);
  Value *dispatch = b.CreateAlloca(type, nullptr, "dispatch");
  DispatchStatsLayout layout = dispatchStatsLayout(contract);
  Function *function = b.GetInsertBlock()->getParent();
  BasicBlock *from = b.GetInsertBlock();
  BasicBlock *check = BasicBlock::Create(context, "stats.check", function);
  BasicBlock *done = BasicBlock::Create(context, "stats.done", function);
  b.CreateCondBr(b.CreateIsNull(block), done, check);
  b.SetInsertPoint(check);
  Value *accepted = b.CreateSelect(isDispatchStatsBlock(b, layout, block),
                                   block, ConstantPointerNull::get(ptr));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  PHINode *phi = b.CreatePHI(ptr, 2, "stats");
  phi->addIncoming(ConstantPointerNull::get(ptr), from);
  phi->addIncoming(accepted, check);
  checkedBlock = phi;
  b.CreateStore(phi, b.CreateStructGEP(type, dispatch, 0));
  b.CreateStore(b.getInt32(0), b.CreateStructGEP(type, dispatch, 1));
  return dispatch;
}

/// Returns `code` after counting, in the block, a call that ran no code:
/// a check failed before the dispatcher chose one.
static void returnCountingFailure(IRBuilder<> &b, Value *code,
                                  Value *dispatch, Value *block) {
  if (!dispatch) {
    b.CreateRet(code);
    return;
  }
  LLVMContext &context = b.getContext();
  StructType *type = dispatchContextType(context);
  Value *dispatched = b.CreateLoad(b.getInt32Ty(),
                                   b.CreateStructGEP(type, dispatch, 1));
  Value *failed = b.CreateAnd(
      b.CreateIsNotNull(block),
      b.CreateICmpEQ(dispatched, b.getInt32(0)));
  Function *function = b.GetInsertBlock()->getParent();
  BasicBlock *count = BasicBlock::Create(context, "count.failed", function);
  BasicBlock *done = BasicBlock::Create(context, "return", function);
  b.CreateCondBr(failed, count, done);
  b.SetInsertPoint(count);
  b.CreateAtomicRMW(AtomicRMWInst::Add,
                    b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), block,
                                                 AbiLayout::kStatsFailed),
                    b.getInt64(1), Align(8), AtomicOrdering::Monotonic);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRet(code);
}

void txc::emitRunWithOptions(Module &module, const Contract &contract,
                             ArrayRef<Function *> kernels,
                             bool externalWeights,
                             bool hasWorkspace) {
  LLVMContext &context = module.getContext();
  Type *i32 = Type::getInt32Ty(context), *i64 = Type::getInt64Ty(context);
  PointerType *ptr = PointerType::getUnqual(context);
  std::string run = externalWeights ? runWithWeightsSymbol(contract)
                                    : contract.runSymbol();
  // The recorder exists when the entry points dispatch among variants.
  Function *recorder =
      module.getFunction(contract.entryPrefix + ".record_dispatch");
  Function *runCopy = cloneWithContext(module, run, kernels, recorder);
  Function *workspaceCopy =
      hasWorkspace ? cloneWithContext(
                           module, runWithWorkspaceSymbol(contract,
                                                          externalWeights),
                           kernels, recorder)
                     : nullptr;

  Function *function = Function::Create(
      FunctionType::get(i32, {ptr, i64, ptr, i64, ptr, ptr}, false),
      GlobalValue::ExternalLinkage, runWithOptionsSymbol(contract), module);
  function->addFnAttr(Attribute::NoUnwind);
  const char *names[] = {"inputs",      "num_inputs", "outputs",
                         "num_outputs", "status",     "options"};
  for (unsigned i = 0; i < 6; ++i)
    function->getArg(i)->setName(names[i]);
  IRBuilder<> b(BasicBlock::Create(context, "entry", function));
  // The kernel's parallel context: {parallel_for, ctx, num_threads,
  // cpu_level}; the last is read by a multi-CPU object's dispatcher only.
  StructType *parallelType = StructType::get(context, {ptr, ptr, i64, i32});
  Value *parallel = b.CreateAlloca(parallelType, nullptr, "parallel");
  OptionsReader options(b, function->getArg(5));
  using L = RunOptionsLayout;
  Value *threads = options.field(i32, L::kNumThreads, "num_threads");
  Value *workspace = options.field(ptr, L::kWorkspace, "workspace");
  Value *workspaceSize = options.field(i64, L::kWorkspaceBytes, "workspace_bytes");
  Value *weights = options.field(ptr, L::kWeights, "weights");
  Value *weightsSize = options.field(i64, L::kWeightsSize, "weights_size");
  b.CreateStore(options.field(ptr, L::kParallelFor, "parallel_for"),
                b.CreateStructGEP(parallelType, parallel, 0));
  b.CreateStore(options.field(ptr, L::kParallelCtx, "parallel_ctx"),
                b.CreateStructGEP(parallelType, parallel, 1));
  b.CreateStore(b.CreateSExt(threads, i64),
                b.CreateStructGEP(parallelType, parallel, 2));
  Value *dispatch = nullptr, *block = nullptr;
  if (recorder)
    dispatch = createDispatchContext(
        b, contract, options.field(ptr, L::kDispatchStats, "dispatch_stats"),
        block);
  b.CreateStore(options.field(i32, L::kCpuLevel, "cpu_level"),
                b.CreateStructGEP(parallelType, parallel, 3));

  SmallVector<Value *> args;
  if (externalWeights)
    args.append({weights, weightsSize});
  for (unsigned i = 0; i < 5; ++i)
    args.push_back(function->getArg(i));
  auto callWith = [&](IRBuilder<> &at, Function *callee,
                      ArrayRef<Value *> extra) {
    SmallVector<Value *> callArgs(args);
    callArgs.append(extra.begin(), extra.end());
    callArgs.push_back(parallel);
    callArgs.push_back(dispatch ? dispatch
                                : ConstantPointerNull::get(ptr));
    returnCountingFailure(at, at.CreateCall(callee, callArgs), dispatch,
                          block);
  };
  if (!workspaceCopy) {
    // No workspace needed: any workspace is accepted and ignored.
    callWith(b, runCopy, {});
    return;
  }
  // A workspace given: the caller's, checked by the copy of
  // <p>_run_with_workspace against the same size (the static size, or
  // <p>_workspace_size's for a symbol-sized one); none: allocated per call,
  // as <p>_run does.
  BasicBlock *own = BasicBlock::Create(context, "own_workspace", function);
  BasicBlock *given = BasicBlock::Create(context, "given_workspace", function);
  b.CreateCondBr(b.CreateIsNull(workspace), own, given);
  IRBuilder<> ob(own), gb(given);
  callWith(ob, runCopy, {});
  callWith(gb, workspaceCopy, {workspace, workspaceSize});
}
