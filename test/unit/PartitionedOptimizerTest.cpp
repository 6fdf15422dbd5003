//===- PartitionedOptimizerTest.cpp ---------------------------------------===//
//
// LLVM's optimization on partitions of a module (docs/architecture.md,
// "Regions"): which partition each function goes to, and that the linked
// module keeps every function a partition's callers need, with its
// signature and its local linkage, whatever the thread pool.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/ObjectEmitter.h"
#include "txc/Target/PartitionedOptimizer.h"

#include "mlir/Support/Timing.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

using namespace txc;

namespace {

/// A kernel calling two noinline region functions, the first with an
/// argument it never reads and an inlinable helper, the second reading a
/// constant table at a constant index.
constexpr const char *kModule = R"(
@table = internal constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]

define internal i32 @helper(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

define internal void @r0(ptr %out, i32 %unused, i32 %i) noinline {
  %p = getelementptr [4 x i32], ptr @table, i32 0, i32 %i
  %v = load i32, ptr %p
  %w = call i32 @helper(i32 %v)
  store i32 %w, ptr %out
  ret void
}

define internal void @r1(ptr %out) noinline {
  %p = getelementptr [4 x i32], ptr @table, i32 0, i32 2
  %v = load i32, ptr %p
  store i32 %v, ptr %out
  ret void
}

define internal void @kernel(ptr %out) noinline {
  call void @r0(ptr %out, i32 7, i32 1)
  %o1 = getelementptr i32, ptr %out, i64 1
  call void @r1(ptr %o1)
  ret void
}

define void @entry(ptr %out) {
  call void @kernel(ptr %out)
  ret void
}
)";

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &context) {
  llvm::SMDiagnostic error;
  auto module = llvm::parseAssemblyString(kModule, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  return module;
}

std::map<std::string, unsigned> partitionsByName(const PartitionPlan &plan) {
  std::map<std::string, unsigned> byName;
  for (auto [function, partition] : plan.functions)
    byName[function->getName().str()] = partition;
  return byName;
}

TEST(PartitionedOptimizerTest, EachRootGroupIsAPartitionWithItsCallees) {
  llvm::LLVMContext context;
  auto module = parse(context);
  PartitionPlan plan = planPartitions(*module, {"r0", "r1"}, 1);
  EXPECT_EQ(plan.count, 3u);
  std::map<std::string, unsigned> expected = {
      {"helper", 1}, {"r0", 1}, {"r1", 2}, {"kernel", 0}, {"entry", 0}};
  EXPECT_EQ(partitionsByName(plan), expected);
}

TEST(PartitionedOptimizerTest, SmallRootsShareAPartition) {
  llvm::LLVMContext context;
  auto module = parse(context);
  PartitionPlan plan = planPartitions(*module, {"r0", "r1"}, 1000);
  EXPECT_EQ(plan.count, 2u);
  EXPECT_EQ(partitionsByName(plan)["r1"], 1u);
  EXPECT_EQ(planPartitions(*module, {}, 1).count, 1u);
}

/// The module optimized at -O2 in partitions of one root each, printed.
std::string optimized(llvm::ThreadPoolInterface *threads) {
  auto spec = resolveTargetSpec("", "", "", 2);
  EXPECT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
  auto machine = createTargetMachine(*spec);
  EXPECT_TRUE(bool(machine)) << llvm::toString(machine.takeError());
  llvm::LLVMContext context;
  auto module = parse(context);
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple().str());
  mlir::TimingScope timing;
  auto linked = optimizeInPartitions(std::move(module), {"r0", "r1"},
                                     **machine, 2, threads, timing, 1);
  EXPECT_TRUE(bool(linked)) << llvm::toString(linked.takeError());
  std::string text;
  llvm::raw_string_ostream os(text);
  (*linked)->print(os, nullptr);
  return text;
}

TEST(PartitionedOptimizerTest, CalleesInOtherPartitionsStayLocalAndWhole) {
  std::string text = optimized(nullptr);
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  auto module = llvm::parseAssemblyString(text, error, context);
  ASSERT_TRUE(module) << error.getMessage().str() << "\n" << text;
  ASSERT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  // Called only from another partition: not deleted, and internal again.
  for (const char *name : {"r0", "r1", "kernel"}) {
    llvm::Function *function = module->getFunction(name);
    ASSERT_TRUE(function && !function->isDeclaration()) << name << "\n" << text;
    EXPECT_TRUE(function->hasInternalLinkage()) << name;
    EXPECT_TRUE(function->hasDefaultVisibility()) << name;
  }
  // Once linked, r0 loses the argument it never reads and the constant
  // index its one call passes, as in a module optimized whole; local
  // functions get the fast calling convention.
  llvm::Function *r0 = module->getFunction("r0");
  EXPECT_EQ(r0->arg_size(), 1u);
  EXPECT_EQ(r0->getCallingConv(), llvm::CallingConv::Fast);
  // Every load from the table was folded, and the unused table deleted.
  EXPECT_FALSE(module->getGlobalVariable("table", true)) << text;
  // The helper was inlined into r0 (its partition) and is gone; r1 folded
  // its load from the table, whose initializer its partition could see.
  EXPECT_FALSE(module->getFunction("helper")) << text;
  for (const llvm::Instruction &inst :
       llvm::instructions(*module->getFunction("r1")))
    EXPECT_FALSE(llvm::isa<llvm::LoadInst>(inst)) << text;
  // The functions keep the order of the unsplit module.
  std::vector<std::string> order;
  for (const llvm::Function &function : *module)
    order.push_back(function.getName().str());
  EXPECT_EQ(order,
            (std::vector<std::string>{"r0", "r1", "kernel", "entry"}));
}

TEST(PartitionedOptimizerTest, ThreadsDoNotChangeTheModule) {
  llvm::DefaultThreadPool threads(llvm::hardware_concurrency(3));
  EXPECT_EQ(optimized(nullptr), optimized(&threads));
}

} // namespace
