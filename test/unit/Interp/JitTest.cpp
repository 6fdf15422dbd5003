//===- JitTest.cpp - Objects run in process, and resolve libc and libm ----===//
#include "txc/JIT/Jit.h"

#include "txc/Target/ObjectEmitter.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

using namespace txc;

namespace {

/// Entry points written by hand in LLVM IR that call what compiled
/// kernels call: malloc, free, memset, memcpy, a libm function, snprintf.
/// t_run returns 0 when every call gave the expected result, 5 otherwise;
/// u_run always fails with 5.
const char *kEntryPoints = R"(
@fmt = private constant [6 x i8] c"%d-%s\00"
@word = private constant [3 x i8] c"ok\00"
@x = global float 1.0

declare i32 @snprintf(ptr, i64, ptr, ...)
declare ptr @malloc(i64)
declare void @free(ptr)
declare ptr @memset(ptr, i32, i64)
declare ptr @memcpy(ptr, ptr, i64)
declare float @expf(float)
declare double @tanh(double)

define i32 @PREFIX_output_shapes(ptr %in, i64 %ni, ptr %out, i64 %no, ptr %st) {
  ret i32 0
}
define i32 @PREFIX_error_message(ptr %st, ptr %buf, i64 %size) {
  %r = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %buf, i64 %size, ptr @fmt, i32 7, ptr @word)
  ret i32 %r
}
define i32 @PREFIX_run(ptr %in, i64 %ni, ptr %out, i64 %no, ptr %st) {
  %p = call ptr @malloc(i64 16)
  %p1 = call ptr @memset(ptr %p, i32 65, i64 16)
  %q = call ptr @malloc(i64 16)
  %q1 = call ptr @memcpy(ptr %q, ptr %p, i64 16)
  %c = load i8, ptr %q
  call void @free(ptr %p)
  call void @free(ptr %q)
  %xv = load float, ptr @x
  %e = call float @expf(float %xv)
  %t = call double @tanh(double 1.0)
  %ok1 = icmp eq i8 %c, 65
  %ed = fpext float %e to double
  %ok2 = fcmp ogt double %ed, 2.718
  %ok3 = fcmp olt double %ed, 2.719
  %ok4 = fcmp ogt double %t, 0.76
  %a = and i1 %ok1, %ok2
  %b = and i1 %ok3, %ok4
  %all = and i1 %a, %b
  %fail = select i1 %all, i32 0, i32 5
  %rc = add i32 %fail, FAILURE
  ret i32 %rc
}
)";

std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// An object for this machine from IR text.
std::string objectFromIR(const std::string &ir) {
  auto spec = resolveTargetSpec("", "", "", 0);
  EXPECT_TRUE(bool(spec));
  auto machine = createTargetMachine(*spec);
  EXPECT_TRUE(bool(machine));
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  if (!module) {
    ADD_FAILURE() << error.getMessage().str();
    return "";
  }
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple().str());
  auto object = emitMachineCode(*module, **machine, MachineCodeKind::Object);
  EXPECT_TRUE(bool(object));
  return *object;
}

Contract emptyContract(const std::string &prefix) {
  Contract contract;
  contract.programName = prefix;
  contract.entryPrefix = prefix;
  return contract;
}

std::string entryPoints(const std::string &prefix, int failure) {
  return replaceAll(replaceAll(kEntryPoints, "PREFIX", prefix), "FAILURE",
                    std::to_string(failure));
}

TEST(Jit, ResolvesLibcAndLibmInProcess) {
  auto engine = JitEngine::create();
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  auto program = (*engine)->load(objectFromIR(entryPoints("t", 0)),
                                 emptyContract("t"), "t.o");
  ASSERT_TRUE(bool(program)) << llvm::toString(program.takeError());
  auto result = (*program)->run({});
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->ok()) << "a libc or libm call gave a wrong result";
}

TEST(Jit, FailedCallsUseTheObjectsMessageFunction) {
  auto engine = JitEngine::create();
  ASSERT_TRUE(bool(engine));
  // The same names in two programs: each lives in its own library.
  auto first = (*engine)->load(objectFromIR(entryPoints("t", 0)),
                               emptyContract("t"), "t.o");
  auto second = (*engine)->load(objectFromIR(entryPoints("t", 4)),
                                emptyContract("t"), "t-failing.o");
  ASSERT_TRUE(first && second);
  auto ok = (*first)->run({});
  auto failed = (*second)->run({});
  ASSERT_TRUE(ok && failed);
  EXPECT_TRUE(ok->ok());
  EXPECT_EQ(failed->status.code, StatusCode(4));
  EXPECT_EQ(failed->message, "7-ok");
}

TEST(Jit, UnresolvedSymbolsAreNamed) {
  auto engine = JitEngine::create();
  ASSERT_TRUE(bool(engine));
  std::string ir = entryPoints("u", 0);
  ir = replaceAll(ir, "@tanh", "@txc_no_such_function");
  auto program = (*engine)->load(objectFromIR(ir), emptyContract("u"), "u.o");
  ASSERT_FALSE(bool(program));
  std::string error = llvm::toString(program.takeError());
  EXPECT_NE(error.find("cannot load 'u.o' in process"), std::string::npos);
  EXPECT_NE(error.find("txc_no_such_function"), std::string::npos) << error;
}

} // namespace
