//===- PartitionedCodegenTest.cpp -----------------------------------------===//
//
// Code generation in partitions (docs/architecture.md, "Regions"): the
// assembly of each partition is made into one text that assembles into one
// object whose symbols are those of the module compiled whole, the same
// bytes whatever the thread pool.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/ObjectEmitter.h"
#include "txc/Target/PartitionedCodegen.h"

#include "mlir/Support/Timing.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

#include <map>

using namespace txc;

namespace {

TEST(PartitionedCodegenTest, LabelsArePerPartitionAndCrossingLocalsLocal) {
  llvm::StringSet<> local = {"r0", "fmt"}, privates = {"fmt"};
  const char *text = "\t.file\t\"p.json\"\n"
                     "\t.globl\tr0\n"
                     "\t.hidden\tr0\n"
                     "\t.globl\tentry\n"
                     "r0:\n"
                     ".LBB0_1:\n"
                     "\tvmovaps .LCPI0_0(%rip), %ymm0 # .Lnot_a_label\n"
                     "\tmovl $.LCPI0_1, %eax\n"
                     "\tleaq fmt(%rip), %rdi\n"
                     "\tleaq fmt.1(%rip), %rsi\n"
                     "\tjne .LBB0_1\n"
                     "\t.size r0, .Lfunc_end0-r0\n"
                     "\t.asciz \"a .Lstring \\\" .Lstill fmt\"\n";
  EXPECT_EQ(mergeablePartitionAssembly(text, 2, "#", local, privates),
            "\t.globl\tentry\n"
            "r0:\n"
            ".Lt2_BB0_1:\n"
            "\tvmovaps .Lt2_CPI0_0(%rip), %ymm0 # .Lnot_a_label\n"
            "\tmovl $.Lt2_CPI0_1, %eax\n"
            "\tleaq .Lx_fmt(%rip), %rdi\n"
            "\tleaq fmt.1(%rip), %rsi\n"
            "\tjne .Lt2_BB0_1\n"
            "\t.size r0, .Lt2_func_end0-r0\n"
            "\t.asciz \"a .Lstring \\\" .Lstill fmt\"\n");
  // Only the first partition keeps its .file.
  EXPECT_EQ(mergeablePartitionAssembly("\t.file\t\"p.json\"\n", 0, "#", local,
                                       privates),
            "\t.file\t\"p.json\"\n");
}

/// Two noinline internal functions called from an entry point, one of them
/// reading a private constant and a private string defined in partition 0.
constexpr const char *kModule = R"(
@table = private unnamed_addr constant [8 x float] [float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0], align 32
@name = internal constant [4 x i8] c"abc\00"

define internal void @r0(ptr %out, ptr %in) noinline {
  %v = load <8 x float>, ptr %in, align 4
  %t = load <8 x float>, ptr @table, align 32
  %s = fadd <8 x float> %v, %t
  %c = fcmp olt <8 x float> %s, zeroinitializer
  %r = select <8 x i1> %c, <8 x float> <float 0.5, float 1.5, float 2.5, float 3.5, float 4.5, float 5.5, float 6.5, float 7.5>, <8 x float> %s
  store <8 x float> %r, ptr %out, align 4
  ret void
}

define internal ptr @r1(ptr %out, i64 %n) noinline {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr float, ptr %out, i64 %i
  store float 1.0, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret ptr @name
}

define ptr @entry(ptr %out, ptr %in, i64 %n) {
  call void @r0(ptr %out, ptr %in)
  %name = call ptr @r1(ptr %out, i64 %n)
  ret ptr %name
}
)";

/// The object of kModule: in partitions of one root each on `threads`
/// (`split`), or compiled whole.
std::string object(bool split, llvm::ThreadPoolInterface *threads) {
  auto spec = resolveTargetSpec("x86_64-unknown-linux-gnu", "x86-64-v3", "", 2);
  EXPECT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
  auto machine = createTargetMachine(*spec);
  EXPECT_TRUE(bool(machine)) << llvm::toString(machine.takeError());
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  auto module = llvm::parseAssemblyString(kModule, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple().str());
  EXPECT_FALSE(bool(prepareForCodegen(*module)));
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  mlir::TimingScope timing;
  std::vector<std::string> errors;
  CodegenPartitions partitions{split ? std::vector<std::string>{"r0", "r1"}
                                     : std::vector<std::string>{},
                               threads};
  llvm::Error err = emitMachineCodeInPartitions(
      *module, **machine, MachineCodeKind::Object, partitions, timing, errors,
      os);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_TRUE(errors.empty());
  return std::string(bytes.begin(), bytes.end());
}

/// The object's named symbols that are not assembler temporaries, with
/// whether each is global.
std::map<std::string, bool> symbols(const std::string &bytes) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(bytes, "object"));
  EXPECT_TRUE(bool(file)) << llvm::toString(file.takeError());
  std::map<std::string, bool> out;
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto name = symbol.getName();
    auto flags = symbol.getFlags();
    if (!name || !flags || name->empty() || name->starts_with(".L"))
      continue;
    auto type = symbol.getType();
    // The file's and the sections' symbols (which relocations may use).
    if (type && (*type == llvm::object::SymbolRef::ST_File ||
                 *type == llvm::object::SymbolRef::ST_Debug))
      continue;
    out[name->str()] = *flags & llvm::object::SymbolRef::SF_Global;
  }
  return out;
}

TEST(PartitionedCodegenTest, OneObjectWithTheSymbolsOfTheWholeModule) {
  std::string whole = object(/*split=*/false, nullptr);
  std::string split = object(/*split=*/true, nullptr);
  std::map<std::string, bool> expected = {
      {"r0", false}, {"r1", false}, {"name", false}, {"entry", true}};
  EXPECT_EQ(symbols(whole), expected);
  EXPECT_EQ(symbols(split), expected);
  EXPECT_NE(whole, split);
}

TEST(PartitionedCodegenTest, ThreadsDoNotChangeTheObject) {
  llvm::DefaultThreadPool threads(llvm::hardware_concurrency(3));
  EXPECT_EQ(object(true, nullptr), object(true, &threads));
}

} // namespace

namespace {

/// A function of one block of `calls` calls of an external function.
std::unique_ptr<llvm::Module> manyCalls(llvm::LLVMContext &context,
                                        unsigned calls) {
  std::string text = "declare void @f(i64)\ndefine void @g() {\n";
  for (unsigned i = 0; i < calls; ++i)
    text += "  call void @f(i64 " + std::to_string(i) + ")\n";
  text += "  ret void\n}\n";
  llvm::SMDiagnostic error;
  auto module = llvm::parseAssemblyString(text, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  return module;
}

TEST(PrepareForCodegenTest, BlocksOfManyCallsAreCut) {
  llvm::LLVMContext context;
  // 130 calls: cut after the 64th and the 128th.
  auto module = manyCalls(context, 130);
  ASSERT_FALSE(bool(prepareForCodegen(*module)));
  llvm::Function *g = module->getFunction("g");
  ASSERT_EQ(g->size(), 3u);
  std::vector<size_t> sizes;
  for (const llvm::BasicBlock &block : *g)
    sizes.push_back(block.size());
  // 64 calls and a branch, 64 calls and a branch, 2 calls and the return.
  EXPECT_EQ(sizes, (std::vector<size_t>{65, 65, 3}));
  // A block of 64 calls and its return is left whole.
  auto small = manyCalls(context, 64);
  ASSERT_FALSE(bool(prepareForCodegen(*small)));
  EXPECT_EQ(small->getFunction("g")->size(), 1u);
}

} // namespace
