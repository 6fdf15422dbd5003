//===- OutlineLoops.cpp - Top-level loop nests into their own functions ---===//
//
// A program of N ops becomes one kernel function with N loop nests. LLVM's
// optimizations and code generation take time that grows faster than the
// size of a function (register allocation, GVN, the SLP vectorizer), and so
// do MLIR's control-flow lowering and block splitting: 100 ops compiled in
// 13 s at -O2 and 1000 ops did not finish in 300 s. A kernel with many
// loop nests therefore gets each nest outlined into a private function that
// LLVM must not inline back (passthrough "noinline"), so that the work per
// function stays bounded and the total grows with the number of nests.
// Kernels with few nests (every sample, the benchmark kernels) are left as
// they are: a call per nest costs a few nanoseconds.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_OUTLINELOOPSPASS
#include "Passes.h.inc"

namespace {

/// Kernels with at most this many top-level loop nests stay whole.
constexpr size_t kMaxInlineNests = 16;

class OutlineLoopsPass
    : public impl::OutlineLoopsPassBase<OutlineLoopsPass> {
public:
  void runOnOperation() override {
    SmallVector<func::FuncOp> kernels(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp kernel : kernels)
      if (!kernel.isExternal() && failed(outlineNests(kernel)))
        return signalPassFailure();
  }

private:
  /// A loop, or the versions of a loop (txc-stream-output-stores).
  static bool isLoopNest(Operation *op) {
    if (isa<scf::ForOp>(op))
      return true;
    auto versions = dyn_cast<scf::IfOp>(op);
    return versions && versions.getNumResults() == 0 &&
           !versions.getElseRegion().empty() &&
           llvm::any_of(versions.thenBlock()->getOperations(),
                        [](Operation &nested) { return isa<scf::ForOp>(nested); });
  }

  LogicalResult outlineNests(func::FuncOp kernel) {
    SmallVector<Operation *> nests;
    for (Operation &op : kernel.getBody().front())
      if (isLoopNest(&op))
        nests.push_back(&op);
    if (nests.size() <= kMaxInlineNests)
      return success();
    IRRewriter rewriter(kernel.getContext());
    unsigned index = 0;
    for (Operation *nest : nests) {
      // outlineSingleBlockRegion outlines a region: wrap the nest in one.
      Location loc = nest->getLoc();
      rewriter.setInsertionPoint(nest);
      auto wrapper =
          rewriter.create<scf::ExecuteRegionOp>(loc, nest->getResultTypes());
      Block *block = rewriter.createBlock(&wrapper.getRegion());
      nest->moveBefore(block, block->end());
      for (auto [inner, outer] :
           llvm::zip(nest->getResults(), wrapper.getResults()))
        inner.replaceAllUsesWith(outer);
      rewriter.setInsertionPointToEnd(block);
      rewriter.create<scf::YieldOp>(loc, nest->getResults());
      std::string name = (kernel.getName() + "_nest" + Twine(index++)).str();
      FailureOr<func::FuncOp> outlined =
          outlineSingleBlockRegion(rewriter, loc, wrapper.getRegion(), name);
      if (failed(outlined))
        return failure();
      outlined->setPrivate();
      // Internal in the object, like the kernel itself.
      outlined->getOperation()->setAttr(
          "llvm.linkage", LLVM::LinkageAttr::get(rewriter.getContext(),
                                                 LLVM::Linkage::Internal));
      outlined->getOperation()->setAttr(
          "passthrough",
          rewriter.getArrayAttr({rewriter.getStringAttr("noinline")}));
    }
    return success();
  }
};

} // namespace

} // namespace txc
