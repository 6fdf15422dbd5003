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
//    relies on that). The functions of regions are treated the same, and
//    their calls then read the results from the output operands.
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

/// Writes each returned buffer of `function` into its output argument and
/// drops the results; false (with an error) if a result's type is not its
/// output's.
LogicalResult returnResultsInOutputs(func::FuncOp function) {
  unsigned numResults = function.getNumResults();
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
      if (result.getType() != output.getType())
        return ret.emitError("internal error: result ")
               << i << " has type " << result.getType()
               << " but its output is " << output.getType();
      builder.create<memref::CopyOp>(ret.getLoc(), result, output);
    }
    builder.create<func::ReturnOp>(ret.getLoc());
    ret.erase();
  }
  function.setType(FunctionType::get(function.getContext(),
                                     function.getArgumentTypes(), {}));
  return success();
}

/// After its callee returns nothing, a call's results are its output
/// operands, which the callee wrote.
void dropCallResults(func::CallOp call) {
  unsigned numResults = call.getNumResults();
  unsigned firstOutput = call.getNumOperands() - numResults;
  for (unsigned i = 0; i < numResults; ++i)
    call.getResult(i).replaceAllUsesWith(call.getOperand(firstOutput + i));
  OpBuilder builder(call);
  builder.create<func::CallOp>(call.getLoc(), call.getCallee(), TypeRange(),
                               call.getOperands());
  call.erase();
}

class ReturnResultsInOutputsPass
    : public impl::ReturnResultsInOutputsPassBase<ReturnResultsInOutputsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseSet<StringRef> changed;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || function.getNumResults() == 0)
        continue;
      if (failed(returnResultsInOutputs(function)))
        return signalPassFailure();
      changed.insert(function.getSymName());
    }
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (changed.contains(call.getCallee()))
        calls.push_back(call);
    });
    for (func::CallOp call : calls)
      dropCallResults(call);
  }
};

} // namespace

} // namespace txc
