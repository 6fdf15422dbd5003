//===- MergeIdenticalFunctions.cpp - One function per distinct loop nest --===//
//
// A program that repeats a block (the layers of an encoder, the blocks of a
// ResNet stage) becomes a kernel whose outlined loop nests (OutlineLoops)
// repeat too: the 100-op benchmark program has 69 functions but 14
// distinct ones. Everything after this pass (loop and LLVM-dialect
// lowering, LLVM's optimizer and code generator, about 85% of an -O2
// compile) then works on each distinct function once: every call of a
// private function goes to the first function of the module that is
// identical to it, and the others are erased.
//
// Two functions are identical when their IR, printed without locations
// and without their names, is: the printer is lossless and deterministic,
// so this compares every op, attribute (constants included) and type, and
// the result does not depend on anything but the module.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_MERGEIDENTICALFUNCTIONSPASS
#include "Passes.h.inc"

namespace {

/// The function's IR with its symbol name left out.
std::string printedWithoutName(func::FuncOp function) {
  StringAttr name = function.getSymNameAttr();
  function.setSymNameAttr(StringAttr::get(function.getContext(), ""));
  std::string text;
  llvm::raw_string_ostream os(text);
  function->print(os, OpPrintingFlags().useLocalScope());
  function.setSymNameAttr(name);
  return text;
}

class MergeIdenticalFunctionsPass
    : public impl::MergeIdenticalFunctionsPassBase<
          MergeIdenticalFunctionsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Private functions only: a public one is part of the object's ABI.
    // Keyed by a hash of the text, so that memory stays one function's text;
    // a hash match is confirmed by comparing the texts.
    llvm::DenseMap<uint64_t, SmallVector<func::FuncOp, 1>> byHash;
    llvm::DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
    SmallVector<func::FuncOp> duplicates;
    for (func::FuncOp function : module.getOps<func::FuncOp>()) {
      if (!function.isPrivate() || function.isExternal())
        continue;
      std::string text = printedWithoutName(function);
      SmallVector<func::FuncOp, 1> &candidates =
          byHash[llvm::xxh3_64bits(text)];
      auto first = llvm::find_if(candidates, [&](func::FuncOp candidate) {
        return printedWithoutName(candidate) == text;
      });
      if (first == candidates.end()) {
        candidates.push_back(function);
        continue;
      }
      replacement[function.getSymNameAttr()] =
          FlatSymbolRefAttr::get(first->getSymNameAttr());
      duplicates.push_back(function);
    }
    if (duplicates.empty())
      return;
    module.walk([&](func::CallOp call) {
      auto it = replacement.find(call.getCalleeAttr().getAttr());
      if (it != replacement.end())
        call.setCalleeAttr(it->second);
    });
    // The address of a task function (ParallelTasks.cpp) goes to the
    // caller's parallel_for.
    module.walk([&](func::ConstantOp constant) {
      auto it = replacement.find(constant.getValueAttr().getAttr());
      if (it != replacement.end())
        constant.setValueAttr(it->second);
    });
    for (func::FuncOp duplicate : duplicates)
      duplicate.erase();
  }
};

} // namespace

} // namespace txc
