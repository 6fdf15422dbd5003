//===- CpuDispatch.cpp - One kernel per x86-64 level, chosen by cpuid -----===//
//
// The dispatcher reads the CPU's features itself (cpuid, xgetbv) instead of
// libgcc's __cpu_model: an object imports nothing but libc (docs/abi.md,
// "Imports"). Its only mutable global is the mask of the levels this CPU
// runs, computed at the first call and stored with a relaxed atomic: every
// thread computes the same value, so a race stores the same bits twice.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/CpuDispatch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

using namespace txc;
using namespace llvm;

namespace {
/// What a psABI level needs of the CPU and the OS, cumulatively: bits of
/// cpuid(1).ecx, cpuid(7,0).ebx, cpuid(0x80000001).ecx and of XCR0 (the
/// register state the OS saves and restores).
struct LevelRequirements {
  StringRef cpu;
  uint32_t leaf1Ecx, leaf7Ebx, ext1Ecx, xcr0;
};
} // namespace

// x86-64-v2: SSE3 0, SSSE3 9, CMPXCHG16B 13, SSE4.1 19, SSE4.2 20, POPCNT 23;
// LAHF/SAHF (ext 0). v3 adds FMA 12, MOVBE 22, OSXSAVE 27, AVX 28, F16C 29;
// BMI1 3, AVX2 5, BMI2 8; LZCNT (ext 5); XMM and YMM state. v4 adds
// AVX512F 16, DQ 17, CD 28, BW 30, VL 31; opmask, ZMM_Hi256, Hi16_ZMM state.
static constexpr uint32_t kV2Ecx = 1u << 0 | 1u << 9 | 1u << 13 | 1u << 19 |
                                   1u << 20 | 1u << 23;
static constexpr uint32_t kV3Ecx =
    kV2Ecx | 1u << 12 | 1u << 22 | 1u << 27 | 1u << 28 | 1u << 29;
static constexpr uint32_t kV3Ebx = 1u << 3 | 1u << 5 | 1u << 8;
static constexpr uint32_t kV4Ebx =
    kV3Ebx | 1u << 16 | 1u << 17 | 1u << 28 | 1u << 30 | 1u << 31;

static const LevelRequirements kLevels[] = {
    {"x86-64", 0, 0, 0, 0},
    {"x86-64-v2", kV2Ecx, 0, 1u << 0, 0},
    {"x86-64-v3", kV3Ecx, kV3Ebx, 1u << 0 | 1u << 5, 0x6},
    {"x86-64-v4", kV3Ecx, kV4Ebx, 1u << 0 | 1u << 5, 0xe6},
};

ArrayRef<StringRef> txc::x86LevelCPUs() {
  static const StringRef names[] = {kLevels[0].cpu, kLevels[1].cpu,
                                    kLevels[2].cpu, kLevels[3].cpu};
  return names;
}

unsigned txc::x86Level(StringRef cpu) {
  for (auto [index, level] : enumerate(kLevels))
    if (level.cpu == cpu)
      return index + 1;
  return 0;
}

std::string txc::cpuLevelPrefix(const Contract &contract, unsigned index) {
  return contract.entryPrefix + "_cpu" + std::to_string(index);
}

std::string txc::cpuLevelSymbol(const Contract &contract) {
  return contract.entryPrefix + "_cpu_level";
}

void txc::setTargetAttributes(Module &module, const TargetMachine &machine) {
  for (Function &function : module)
    if (!function.isDeclaration()) {
      function.addFnAttr("target-cpu", machine.getTargetCPU());
      if (!machine.getTargetFeatureString().empty())
        function.addFnAttr("target-features",
                           machine.getTargetFeatureString());
    }
}

namespace {
/// Builds the level choice: the cached mask of the levels the CPU runs and
/// `<p>_cpu_level`.
class DispatchEmitter {
public:
  DispatchEmitter(Module &module, const Contract &contract,
                  ArrayRef<CpuKernel> levels)
      : module(module), context(module.getContext()), contract(contract),
        levels(levels), i32(Type::getInt32Ty(context)) {}

  /// `<p>_cpu_level(int32_t requested)`: the 1-based index in the list of
  /// the most capable CPU this machine runs among the first `requested`
  /// (all of them when `requested` is not in 1..n).
  Function *emitChoice();

private:
  /// {eax, ebx, ecx, edx} of cpuid(leaf, subleaf).
  Value *cpuid(IRBuilder<> &b, uint32_t leaf, uint32_t subleaf);
  /// The mask of the listed levels the CPU runs (bit k-1 for the k-th),
  /// computed once; the baseline's bit is always set, so 0 means "not yet".
  Value *supportedLevels(IRBuilder<> &b);
  Function *emitDetection();

  Module &module;
  LLVMContext &context;
  const Contract &contract;
  ArrayRef<CpuKernel> levels;
  Type *i32;
};
} // namespace

Value *DispatchEmitter::cpuid(IRBuilder<> &b, uint32_t leaf, uint32_t subleaf) {
  auto *result = StructType::get(context, {i32, i32, i32, i32});
  auto *asmType = FunctionType::get(result, {i32, i32}, false);
  InlineAsm *cpuid = InlineAsm::get(
      asmType, "cpuid",
      "={ax},={bx},={cx},={dx},{ax},{cx},~{dirflag},~{fpsr},~{flags}",
      /*hasSideEffects=*/false);
  return b.CreateCall(cpuid, {b.getInt32(leaf), b.getInt32(subleaf)});
}

/// The features each listed level needs are tested against the words cpuid
/// returned; a leaf the CPU does not have reads as zero. xgetbv faults
/// unless the OS enabled XSAVE (OSXSAVE), so it runs only then.
Function *DispatchEmitter::emitDetection() {
  Function *function = Function::Create(
      FunctionType::get(i32, {}, false), GlobalValue::InternalLinkage,
      contract.entryPrefix + ".detect_cpu", module);
  function->addFnAttr(Attribute::NoInline);
  function->addFnAttr(Attribute::Cold);
  function->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(context, "entry", function));
  auto has = [&](Value *words, uint32_t leaf) {
    return b.CreateICmpUGE(b.CreateExtractValue(words, 0), b.getInt32(leaf));
  };
  Value *basic = cpuid(b, 0, 0), *extended = cpuid(b, 0x80000000, 0);
  auto word = [&](Value *max, uint32_t leaf, unsigned reg) {
    return b.CreateSelect(has(max, leaf),
                          b.CreateExtractValue(cpuid(b, leaf, 0), reg),
                          b.getInt32(0));
  };
  Value *leaf1Ecx = word(basic, 1, 2), *leaf7Ebx = word(basic, 7, 1);
  Value *ext1Ecx = word(extended, 0x80000001, 2);
  BasicBlock *entry = b.GetInsertBlock();
  BasicBlock *xsave = BasicBlock::Create(context, "xgetbv", function);
  BasicBlock *done = BasicBlock::Create(context, "done", function);
  Value *osxsave = b.CreateICmpNE(b.CreateAnd(leaf1Ecx, 1u << 27),
                                  b.getInt32(0));
  b.CreateCondBr(osxsave, xsave, done);
  b.SetInsertPoint(xsave);
  // xgetbv as bytes: the assembler need not know the XSAVE feature.
  InlineAsm *xgetbv = InlineAsm::get(
      FunctionType::get(StructType::get(context, {i32, i32}), {i32}, false),
      ".byte 0x0f, 0x01, 0xd0", "={ax},={dx},{cx},~{dirflag},~{fpsr},~{flags}",
      /*hasSideEffects=*/true);
  Value *xcr0Read = b.CreateExtractValue(b.CreateCall(xgetbv, {b.getInt32(0)}),
                                         0);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  PHINode *xcr0 = b.CreatePHI(i32, 2, "xcr0");
  xcr0->addIncoming(b.getInt32(0), entry);
  xcr0->addIncoming(xcr0Read, xsave);
  auto hasAll = [&](Value *value, uint32_t bits) {
    return b.CreateICmpEQ(b.CreateAnd(value, bits), b.getInt32(bits));
  };
  Value *mask = b.getInt32(1); // the baseline runs wherever the object does
  for (auto [index, level] : enumerate(levels.drop_front())) {
    const LevelRequirements &needs = kLevels[level.x86Level - 1];
    Value *runs = b.CreateAnd(
        b.CreateAnd(hasAll(leaf1Ecx, needs.leaf1Ecx),
                    hasAll(leaf7Ebx, needs.leaf7Ebx)),
        b.CreateAnd(hasAll(ext1Ecx, needs.ext1Ecx), hasAll(xcr0, needs.xcr0)));
    mask = b.CreateOr(mask, b.CreateSelect(runs, b.getInt32(2u << index),
                                           b.getInt32(0)));
  }
  b.CreateRet(mask);
  return function;
}

Value *DispatchEmitter::supportedLevels(IRBuilder<> &b) {
  auto *cache = new GlobalVariable(
      module, i32, /*isConstant=*/false, GlobalValue::InternalLinkage,
      b.getInt32(0), contract.entryPrefix + ".cpu_levels");
  cache->setAlignment(Align(4));
  Function *function = b.GetInsertBlock()->getParent();
  LoadInst *cached = b.CreateAlignedLoad(i32, cache, Align(4), "cached");
  cached->setAtomic(AtomicOrdering::Monotonic);
  BasicBlock *from = b.GetInsertBlock();
  BasicBlock *detect = BasicBlock::Create(context, "detect", function);
  BasicBlock *known = BasicBlock::Create(context, "known", function);
  b.CreateCondBr(b.CreateICmpEQ(cached, b.getInt32(0)), detect, known);
  b.SetInsertPoint(detect);
  Value *detected = b.CreateCall(emitDetection());
  b.CreateAlignedStore(detected, cache, Align(4))
      ->setAtomic(AtomicOrdering::Monotonic);
  b.CreateBr(known);
  b.SetInsertPoint(known);
  PHINode *mask = b.CreatePHI(i32, 2, "levels");
  mask->addIncoming(cached, from);
  mask->addIncoming(detected, detect);
  return mask;
}

Function *DispatchEmitter::emitChoice() {
  Function *function = Function::Create(
      FunctionType::get(i32, {i32}, false), GlobalValue::ExternalLinkage,
      cpuLevelSymbol(contract), module);
  function->addFnAttr(Attribute::NoUnwind);
  Argument *requested = function->getArg(0);
  requested->setName("requested");
  IRBuilder<> b(BasicBlock::Create(context, "entry", function));
  Value *mask = supportedLevels(b);
  int32_t count = levels.size();
  Value *inRange = b.CreateAnd(b.CreateICmpSGE(requested, b.getInt32(1)),
                               b.CreateICmpSLE(requested, b.getInt32(count)));
  Value *limit = b.CreateSelect(inRange, requested, b.getInt32(count));
  Value *chosen = b.getInt32(1);
  for (int32_t k = 2; k <= count; ++k) {
    Value *runs = b.CreateICmpNE(b.CreateAnd(mask, 1u << (k - 1)),
                                 b.getInt32(0));
    Value *allowed = b.CreateICmpSLE(b.getInt32(k), limit);
    chosen = b.CreateSelect(b.CreateAnd(runs, allowed), b.getInt32(k), chosen);
  }
  b.CreateRet(chosen);
  return function;
}

/// `<kernelName>.workspace_size`: the largest of the levels' sizes.
static Error emitWorkspaceSizeMax(Module &module, StringRef kernelName,
                                  ArrayRef<CpuKernel> levels) {
  Function *sizeFunction = nullptr;
  for (const CpuKernel &level : levels)
    if (level.workspace.dynamic) {
      sizeFunction = module.getFunction(level.kernelName + ".workspace_size");
      if (!sizeFunction)
        return createStringError(inconvertibleErrorCode(),
                                 "internal error: kernel '%s' has no "
                                 "workspace size function",
                                 level.kernelName.c_str());
    }
  FunctionType *type = sizeFunction->getFunctionType();
  Function *function =
      Function::Create(type, GlobalValue::InternalLinkage,
                       kernelName + ".workspace_size", module);
  IRBuilder<> b(BasicBlock::Create(module.getContext(), "entry", function));
  SmallVector<Value *> symbols(make_pointer_range(function->args()));
  Value *largest = ConstantInt::get(type->getReturnType(), 0);
  for (const CpuKernel &level : levels) {
    Value *bytes = ConstantInt::get(type->getReturnType(),
                                    level.workspace.staticBytes);
    if (level.workspace.dynamic)
      bytes = b.CreateCall(
          module.getFunction(level.kernelName + ".workspace_size"), symbols);
    largest = b.CreateBinaryIntrinsic(Intrinsic::umax, largest, bytes);
  }
  b.CreateRet(largest);
  return Error::success();
}

Expected<WorkspaceSize> txc::emitCpuDispatch(Module &module,
                                             const Contract &contract,
                                             StringRef kernelName,
                                             ArrayRef<CpuKernel> levels) {
  WorkspaceSize workspace;
  Function *widest = nullptr;
  SmallVector<Function *> kernels;
  for (const CpuKernel &level : levels) {
    Function *kernel = module.getFunction(level.kernelName);
    if (!kernel)
      return createStringError(inconvertibleErrorCode(),
                               "internal error: kernel '%s' not found",
                               level.kernelName.c_str());
    kernel->setLinkage(GlobalValue::InternalLinkage);
    kernel->addFnAttr(Attribute::NoInline);
    kernels.push_back(kernel);
    if (!widest || kernel->arg_size() > widest->arg_size())
      widest = kernel;
    workspace.staticBytes =
        std::max(workspace.staticBytes, level.workspace.staticBytes);
    workspace.dynamic |= level.workspace.dynamic;
  }
  if (workspace.dynamic)
    if (Error err = emitWorkspaceSizeMax(module, kernelName, levels))
      return err;

  LLVMContext &context = module.getContext();
  Function *choice = DispatchEmitter(module, contract, levels).emitChoice();
  Function *dispatcher =
      Function::Create(widest->getFunctionType(), GlobalValue::ExternalLinkage,
                       kernelName, module);
  dispatcher->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(context, "entry", dispatcher));
  // The caller's choice, from the parallel context <p>_run_with_options
  // builds ({parallel_for, ctx, num_threads, cpu_level}); none without it.
  Argument *parallel = dispatcher->getArg(0);
  BasicBlock *entry = b.GetInsertBlock();
  BasicBlock *read = BasicBlock::Create(context, "requested", dispatcher);
  BasicBlock *choose = BasicBlock::Create(context, "choose", dispatcher);
  b.CreateCondBr(b.CreateIsNull(parallel), choose, read);
  b.SetInsertPoint(read);
  Value *field = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), parallel,
                                              kParallelContextCpuLevelOffset);
  Value *given = b.CreateLoad(b.getInt32Ty(), field, "cpu_level");
  b.CreateBr(choose);
  b.SetInsertPoint(choose);
  PHINode *requested = b.CreatePHI(b.getInt32Ty(), 2, "requested");
  requested->addIncoming(b.getInt32(0), entry);
  requested->addIncoming(given, read);
  Value *chosen = b.CreateCall(choice, {requested});
  SmallVector<Value *> args(make_pointer_range(dispatcher->args()));
  BasicBlock *baseline = nullptr;
  SwitchInst *dispatch = nullptr;
  for (auto [index, kernel] : enumerate(kernels)) {
    BasicBlock *call = BasicBlock::Create(
        context, "cpu" + Twine(index + 1), dispatcher);
    IRBuilder<> cb(call);
    // A level without a workspace ignores the dispatcher's.
    cb.CreateCall(kernel, ArrayRef(args).take_front(kernel->arg_size()));
    cb.CreateRetVoid();
    if (!baseline) {
      baseline = call;
      dispatch = b.CreateSwitch(chosen, baseline, kernels.size() - 1);
      continue;
    }
    dispatch->addCase(b.getInt32(index + 1), call);
  }
  return workspace;
}
