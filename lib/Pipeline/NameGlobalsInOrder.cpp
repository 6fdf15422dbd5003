//===- NameGlobalsInOrder.cpp - Constant globals named by first use -------===//
//
// One-shot bufferization turns each dense tensor constant into a private
// `memref.global` (bufferization::getGlobalFor), named after its type with
// a counter, in the order it bufferizes the functions. In MLIR 19 that
// order comes from a DenseMap keyed by pointers
// (getFuncOpsOrderedByCalls), so a module of several functions got other
// names and another order of globals from run to run, and so another
// object. The names are made again here from the module's own order.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_NAMEGLOBALSINORDERPASS
#include "Passes.h.inc"

namespace {

class NameGlobalsInOrderPass
    : public impl::NameGlobalsInOrderPassBase<NameGlobalsInOrderPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The private constant globals, in the order of their first use, and
    // the uses (only memref.get_global reads them).
    llvm::MapVector<memref::GlobalOp, StringAttr> newNames;
    SmallVector<memref::GetGlobalOp> uses;
    module.walk([&](memref::GetGlobalOp use) {
      auto global = symbols.lookup<memref::GlobalOp>(use.getName());
      if (!global || !global.isPrivate() || !global.getConstant())
        return;
      uses.push_back(use);
      if (!newNames.count(global))
        newNames.insert({global, StringAttr::get(&getContext(),
                                                 "__constant_" +
                                                     Twine(newNames.size()))});
    });
    for (memref::GetGlobalOp use : uses)
      use.setNameAttr(FlatSymbolRefAttr::get(
          newNames.lookup(symbols.lookup<memref::GlobalOp>(use.getName()))));
    // Unused ones go, so that no old name is left to clash with a new one.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.isPrivate() && global.getConstant() && !newNames.count(global))
        global.erase();
    Block *body = module.getBody();
    Operation *insertAt = &body->front();
    for (auto &[global, name] : newNames) {
      global.setSymNameAttr(name);
      if (global.getOperation() != insertAt)
        global->moveBefore(insertAt);
      else
        insertAt = global->getNextNode();
    }
  }
};

} // namespace

} // namespace txc
