//===- Outputs.cpp - Results land in the caller's output buffers ----------===//
//
// MLIRGen returns each output as `materialize_in_destination %value in %out`
// where %out is the output's function argument. Two passes make sure the
// kernel writes every output straight into that argument:
//
//  * on tensors, once the output is computed in place from %out (empty
//    tensor elimination), the materialization is redundant and removed:
//    one-shot bufferization cannot prove the equivalence through tiled loops
//    with peeled slices and would otherwise copy the whole output;
//  * after bufferization, every returned buffer that is not already the
//    output argument is copied into it and the result is dropped, so the
//    kernel has no results whatever bufferization decided (the ABI wrapper
//    relies on that).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_FOLDINPLACEOUTPUTSPASS
#define GEN_PASS_DEF_RETURNRESULTSINOUTPUTSPASS
#include "Passes.h.inc"

namespace {

/// True if `value` is computed by updating `dest` in place: a chain of
/// destination-passing ops, loop-carried values and transfer writes that
/// starts at `dest`.
bool isUpdateOf(Value value, Value dest) {
  while (value != dest) {
    auto result = dyn_cast<OpResult>(value);
    if (!result)
      return false;
    Operation *op = result.getOwner();
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      value = dps.getTiedOpOperand(result)->get();
    else if (auto loop = dyn_cast<scf::ForOp>(op))
      value = loop.getInitArgs()[result.getResultNumber()];
    else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
      value = write.getSource();
    else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      // Both branches must update `dest` in place.
      unsigned i = result.getResultNumber();
      return isUpdateOf(branch.thenYield().getOperand(i), dest) &&
             isUpdateOf(branch.elseYield().getOperand(i), dest);
    } else
      return false;
  }
  return true;
}

class FoldInPlaceOutputsPass
    : public impl::FoldInPlaceOutputsPassBase<FoldInPlaceOutputsPass> {
public:
  void runOnOperation() override {
    getOperation().walk([](bufferization::MaterializeInDestinationOp op) {
      if (op.getResult() && isa<TensorType>(op.getDest().getType()) &&
          isa<BlockArgument>(op.getDest()) &&
          op.getSource().getType() == op.getDest().getType() &&
          isUpdateOf(op.getSource(), op.getDest())) {
        op.getResult().replaceAllUsesWith(op.getSource());
        op.erase();
      }
    });
  }
};

class ReturnResultsInOutputsPass
    : public impl::ReturnResultsInOutputsPassBase<ReturnResultsInOutputsPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    unsigned numResults = function.getNumResults();
    if (numResults == 0)
      return;
    // MLIRGen puts the outputs last, in result order.
    unsigned firstOutput = function.getNumArguments() - numResults;
    for (Block &block : function.getBody()) {
      auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
      if (!ret)
        continue;
      OpBuilder builder(ret);
      for (unsigned i = 0; i < numResults; ++i) {
        Value result = ret.getOperand(i);
        Value output = function.getArgument(firstOutput + i);
        if (result == output)
          continue;
        if (result.getType() != output.getType()) {
          ret.emitError("internal error: result ") << i << " has type "
              << result.getType() << " but its output is " << output.getType();
          return signalPassFailure();
        }
        builder.create<memref::CopyOp>(ret.getLoc(), result, output);
      }
      builder.create<func::ReturnOp>(ret.getLoc());
      ret.erase();
    }
    function.setType(FunctionType::get(function.getContext(),
                                       function.getArgumentTypes(), {}));
  }
};

} // namespace

} // namespace txc
