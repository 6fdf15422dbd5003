//===- CpuDispatchTest.cpp - One kernel per x86-64 level ------------------===//
#include "txc/Target/CpuDispatch.h"
#include "txc/Target/ObjectEmitter.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace txc;

namespace {

/// Two levels' kernels as the pipeline leaves them: the baseline's needs no
/// workspace, the second's a symbol-sized one (five more arguments and a
/// size function of the symbol).
const char *const kLevels = R"(
define void @p_cpu1_kernel(ptr %parallel, i64 %s, ptr %x) {
  ret void
}
define void @p_cpu2_kernel(ptr %parallel, i64 %s, ptr %x, ptr %w0, ptr %w1,
                           i64 %w2, i64 %w3, i64 %w4) {
  ret void
}
define i64 @p_cpu2_kernel.workspace_size(i64 %s) {
  %b = mul i64 %s, 64
  ret i64 %b
}
)";

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &context) {
  llvm::SMDiagnostic error;
  auto module = llvm::parseAssemblyString(kLevels, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  return module;
}

/// The callee of the call in block `name` of `function`.
const llvm::CallInst *callIn(const llvm::Function &function,
                             llvm::StringRef name) {
  for (const llvm::BasicBlock &block : function)
    if (block.getName() == name)
      for (const llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
          return call;
  return nullptr;
}

TEST(CpuDispatch, DispatcherTakesTheWidestSignatureAndTheLargestWorkspace) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(context);
  Contract contract;
  contract.entryPrefix = "p";
  std::vector<CpuKernel> levels = {{"p_cpu1_kernel", 2, {0, false}},
                                   {"p_cpu2_kernel", 3, {128, true}}};
  auto workspace = emitCpuDispatch(*module, contract, "p_kernel", levels);
  ASSERT_TRUE(bool(workspace)) << llvm::toString(workspace.takeError());
  EXPECT_EQ(workspace->staticBytes, 128u);
  EXPECT_TRUE(workspace->dynamic);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  EXPECT_FALSE(llvm::verifyModule(*module, &os)) << errors;

  llvm::Function *dispatcher = module->getFunction("p_kernel");
  ASSERT_TRUE(dispatcher);
  EXPECT_EQ(dispatcher->getFunctionType(),
            module->getFunction("p_cpu2_kernel")->getFunctionType());
  // The level without a workspace gets the arguments before it.
  const llvm::CallInst *baseline = callIn(*dispatcher, "cpu1");
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->getCalledFunction()->getName(), "p_cpu1_kernel");
  EXPECT_EQ(baseline->arg_size(), 3u);
  const llvm::CallInst *second = callIn(*dispatcher, "cpu2");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->arg_size(), 8u);
  EXPECT_TRUE(module->getFunction("p_cpu1_kernel")->hasLocalLinkage());
  EXPECT_TRUE(module->getFunction(cpuLevelSymbol(contract)));

  // The size: the largest of the baseline's static 0 and the second's
  // function, which computed it.
  llvm::Function *size = module->getFunction("p_kernel.workspace_size");
  ASSERT_TRUE(size);
  bool callsSecond = false;
  for (const llvm::BasicBlock &block : *size)
    for (const llvm::Instruction &inst : block)
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
        callsSecond |= call->getCalledFunction() ==
                       module->getFunction("p_cpu2_kernel.workspace_size");
  EXPECT_TRUE(callsSecond);
}

TEST(CpuDispatch, ALevelWithoutItsSizeFunctionIsAnError) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(context);
  module->getFunction("p_cpu2_kernel.workspace_size")->setName("other");
  Contract contract;
  contract.entryPrefix = "p";
  std::vector<CpuKernel> levels = {{"p_cpu1_kernel", 2, {0, false}},
                                   {"p_cpu2_kernel", 3, {128, true}}};
  auto workspace = emitCpuDispatch(*module, contract, "p_kernel", levels);
  ASSERT_FALSE(bool(workspace));
  EXPECT_NE(llvm::toString(workspace.takeError()).find("p_cpu2_kernel"),
            std::string::npos);
}

TEST(CpuDispatch, ListsAreIncreasingX86Levels) {
  EXPECT_EQ(x86Level("x86-64"), 1u);
  EXPECT_EQ(x86Level("x86-64-v4"), 4u);
  EXPECT_EQ(x86Level("znver4"), 0u);
  auto spec = resolveTargetSpec("x86_64-linux-gnu", "x86-64-v2,x86-64-v4", "",
                                2);
  ASSERT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->cpu, "x86-64-v2");
  EXPECT_EQ(spec->moreCPUs, std::vector<std::string>{"x86-64-v4"});
  EXPECT_EQ(spec->forCPU(1).cpu, "x86-64-v4");
  EXPECT_TRUE(spec->forCPU(1).moreCPUs.empty());
  for (const char *bad : {"x86-64-v4,x86-64-v2", "x86-64-v2,x86-64-v2",
                          "x86-64-v2,skylake", "x86-64-v2,"}) {
    auto rejected = resolveTargetSpec("x86_64-linux-gnu", bad, "", 2);
    EXPECT_FALSE(bool(rejected)) << bad;
    llvm::consumeError(rejected.takeError());
  }
}

} // namespace
