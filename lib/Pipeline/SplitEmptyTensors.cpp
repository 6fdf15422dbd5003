//===- SplitEmptyTensors.cpp - One tensor.empty per use -------------------===//
//
// CSE merges identical `tensor.empty` ops: in a program of N ops on [B,64]
// tensors, one empty tensor becomes the destination of every op of that
// shape. One-shot bufferization then sees all those ops writing into one
// buffer, and its read-after-write analysis compares every write with every
// read of the whole alias set, for each write: a 1000-op program spent 90 s
// in EmptyTensorElimination and OneShotBufferize (cubic growth). An empty
// tensor has no contents, so giving groups of its users copies of their own
// changes nothing but the size of the alias sets.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_SPLITEMPTYTENSORSPASS
#include "Passes.h.inc"

namespace {

/// Uses that keep sharing one empty tensor. Neighbouring ops whose results
/// do not overlap in time still bufferize into one buffer (splitting every
/// use apart doubled the allocations of a 100-op program), while the alias
/// sets, and so the analysis per write, stay bounded.
constexpr size_t kUsesPerEmpty = 8;

class SplitEmptyTensorsPass
    : public impl::SplitEmptyTensorsPassBase<SplitEmptyTensorsPass> {
public:
  void runOnOperation() override {
    // Uses in program order, so that each group holds neighbouring ops.
    llvm::MapVector<tensor::EmptyOp, SmallVector<OpOperand *>> uses;
    OpBuilder builder(&getContext());
    getOperation().walk([&](Operation *user) {
      for (OpOperand &operand : user->getOpOperands()) {
        auto empty = operand.get().getDefiningOp<tensor::EmptyOp>();
        if (!empty)
          continue;
        if (isa<tensor::InsertSliceOp>(user) &&
            operand.getOperandNumber() == 1) {
          // The destination of an insert_slice gets an empty tensor of its
          // own: when the inserted value was computed into the same empty
          // tensor (a cumsum's or a one-operand concat's result of the
          // shape of its operand, merged by CSE), EmptyTensorElimination
          // of MLIR 19 replaces every use of the empty tensor by a slice of
          // the destination and builds an op that uses itself ("operand #0
          // does not dominate this use").
          builder.setInsertionPointAfter(empty);
          operand.set(builder.clone(*empty)->getResult(0));
          continue;
        }
        uses[empty].push_back(&operand);
      }
    });
    for (auto &[empty, operands] : uses) {
      // The clones sit right after the original, where its dynamic sizes
      // are defined, and so dominate every use.
      builder.setInsertionPointAfter(empty);
      for (size_t i = kUsesPerEmpty; i < operands.size(); i += kUsesPerEmpty) {
        Value clone = builder.clone(*empty)->getResult(0);
        for (OpOperand *operand :
             ArrayRef(operands).slice(i).take_front(kUsesPerEmpty))
          operand->set(clone);
      }
    }
  }
};

} // namespace

} // namespace txc
