//===- ImportsTest.cpp ----------------------------------------------------===//
//
// The imports of generated objects (docs/abi.md, "Imports"): read from the
// object's undefined symbols, and a function outside Imports.def is an
// internal error rather than a silent new link-time dependency.
//
//===----------------------------------------------------------------------===//
#include "txc/Driver/Compiler.h"
#include "txc/Target/Imports.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

#include <set>

using namespace txc;

namespace {

/// An object (for this machine) with one function that calls each of
/// `callees`, declared as `void name(void)`.
std::string objectCalling(const std::vector<std::string> &callees) {
  auto spec = resolveTargetSpec("", "", "", 2);
  EXPECT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
  auto machine = createTargetMachine(*spec);
  EXPECT_TRUE(bool(machine)) << llvm::toString(machine.takeError());
  llvm::LLVMContext context;
  llvm::Module module("imports", context);
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple().str());
  auto *voidFn = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  auto *caller = llvm::Function::Create(
      voidFn, llvm::GlobalValue::ExternalLinkage, "caller", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", caller));
  for (const std::string &callee : callees)
    b.CreateCall(module.getOrInsertFunction(callee, voidFn));
  b.CreateRetVoid();
  auto object = emitMachineCode(module, **machine, MachineCodeKind::Object);
  EXPECT_TRUE(bool(object)) << llvm::toString(object.takeError());
  return *object;
}

TEST(Imports, AreTheObjectsUndefinedSymbolsSorted) {
  std::string object = objectCalling({"snprintf", "expf", "snprintf"});
  DiagnosticEngine diags;
  auto imports = checkedObjectImports(llvm::MemoryBufferRef(object, "t.o"),
                                      "t.json", diags);
  ASSERT_TRUE(imports) << diags.errorCount();
  EXPECT_EQ(*imports, (std::vector<std::string>{"expf", "snprintf"}));
}

TEST(Imports, AnUnlistedImportIsAnInternalError) {
  std::string object = objectCalling({"expf", "puts", "abort"});
  DiagnosticEngine diags;
  EXPECT_FALSE(checkedObjectImports(llvm::MemoryBufferRef(object, "t.o"),
                                    "t.json", diags));
  ASSERT_EQ(diags.diagnostics().size(), 2u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "internal compiler error: the object imports 'abort', which is "
            "not among the functions a txc object may import (docs/abi.md, "
            "\"Imports\")");
  EXPECT_NE(diags.diagnostics()[1].message.find("'puts'"), std::string::npos);
  EXPECT_EQ(diags.exitCode(), 1);
}

TEST(Imports, TheListHasEachNameOnce) {
  std::set<std::string> names;
  for (const ImportInfo &info : kObjectImports) {
    EXPECT_TRUE(names.insert(info.name.str()).second) << info.name.str();
    EXPECT_EQ(findObjectImport(info.name), &info);
    EXPECT_FALSE(info.neededFor.empty()) << info.name.str();
  }
  EXPECT_EQ(findObjectImport("puts"), nullptr);
}

} // namespace
