//===- RunOptionsEmitter.cpp - <p>_run_with_options in LLVM IR ------------===//
//
// <p>_run_with_options takes a caller-owned txc_run_options: the workspace,
// the external weights and the caller's parallel_for in one struct that can
// grow (a field past its struct_size reads as zero), so that threads do not
// double the entry points again. It reads the options, builds the kernel's
// parallel context {parallel_for, ctx, num_threads} on its stack and calls
// a copy of the run entry point that passes this context to the kernel
// instead of NULL: the guards, the workspace checks and their statuses are
// those of the entry points without options, by construction.
//
//===----------------------------------------------------------------------===//
#include "RunOptionsEmitter.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/Weights.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace txc;
using namespace llvm;

/// A copy of the entry point `name`, internal, with one more argument: the
/// parallel context, which its kernel calls (one per variant) pass instead
/// of NULL.
static Function *cloneWithContext(Module &module, StringRef name,
                                  ArrayRef<Function *> kernels) {
  Function *original = module.getFunction(name);
  LLVMContext &context = module.getContext();
  SmallVector<Type *> params(original->getFunctionType()->params());
  params.push_back(PointerType::getUnqual(context));
  Function *copy = Function::Create(
      FunctionType::get(original->getReturnType(), params, false),
      GlobalValue::InternalLinkage, name + ".parallel", module);
  ValueToValueMapTy mapping;
  for (auto [from, to] : zip(original->args(), copy->args())) {
    to.setName(from.getName());
    mapping[&from] = &to;
  }
  Argument *parallel = copy->getArg(copy->arg_size() - 1);
  parallel->setName("parallel");
  SmallVector<ReturnInst *> returns;
  CloneFunctionInto(copy, original, mapping,
                    CloneFunctionChangeType::LocalChangesOnly, returns);
  for (Instruction &inst : instructions(copy))
    if (auto *call = dyn_cast<CallInst>(&inst))
      if (is_contained(kernels, call->getCalledFunction()))
        call->setArgOperand(0, parallel);
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

void txc::emitRunWithOptions(Module &module, const Contract &contract,
                             ArrayRef<Function *> kernels,
                             bool externalWeights,
                             bool hasWorkspace) {
  LLVMContext &context = module.getContext();
  Type *i32 = Type::getInt32Ty(context), *i64 = Type::getInt64Ty(context);
  PointerType *ptr = PointerType::getUnqual(context);
  std::string run = externalWeights ? runWithWeightsSymbol(contract)
                                    : contract.runSymbol();
  Function *runCopy = cloneWithContext(module, run, kernels);
  Function *workspaceCopy =
      hasWorkspace ? cloneWithContext(
                           module, runWithWorkspaceSymbol(contract,
                                                          externalWeights),
                           kernels)
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
  // The kernel's parallel context: {parallel_for, ctx, num_threads}.
  StructType *parallelType = StructType::get(context, {ptr, ptr, i64});
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
    at.CreateRet(at.CreateCall(callee, callArgs));
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
