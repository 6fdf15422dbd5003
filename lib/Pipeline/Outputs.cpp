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
//    their calls then read the results from the output operands. A returned
//    buffer may be another output's (empty tensor elimination let an op
//    compute into it, and bufferization put the output's own value
//    elsewhere): it is copied before that output is overwritten.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/STLExtras.h"

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

/// A returned buffer to copy into output `output`, and the output whose
/// buffer it is a view of (bufferization may compute one output's value in
/// another output's buffer), or -1.
struct OutputCopy {
  Value source;
  unsigned output;
  int sourceOutput;
};

/// The index of the output argument `value` is a view of, or -1; the
/// outputs are the function's last `numOutputs` arguments.
int outputBehind(Value value, func::FuncOp function, unsigned numOutputs) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  auto argument = dyn_cast<BlockArgument>(value);
  unsigned firstOutput = function.getNumArguments() - numOutputs;
  if (!argument || argument.getOwner() != &function.getBody().front() ||
      argument.getArgNumber() < firstOutput)
    return -1;
  return int(argument.getArgNumber() - firstOutput);
}

/// A new buffer of `type` (an output's: identity layout) holding `source`.
Value copyToTemporary(OpBuilder &b, Location at, Value source,
                      MemRefType type) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(b.create<memref::DimOp>(at, source, d));
  Value temporary = b.create<memref::AllocOp>(at, type, sizes);
  b.create<memref::CopyOp>(at, source, temporary);
  return temporary;
}

/// Emits the copies in an order in which none overwrites an output that a
/// copy still to come reads, as parallel moves: a copy goes first when no
/// other pending one reads its output; a cycle (two outputs computed in
/// each other's buffers) is broken by a temporary.
void emitOutputCopies(OpBuilder &b, Location at, func::FuncOp function,
                      SmallVector<OutputCopy> pending) {
  unsigned numOutputs = function.getNumResults();
  unsigned firstOutput = function.getNumArguments() - numOutputs;
  auto readByAnother = [&](const OutputCopy &copy) {
    return llvm::any_of(pending, [&](const OutputCopy &other) {
      return &other != &copy && other.sourceOutput == int(copy.output);
    });
  };
  while (!pending.empty()) {
    auto ready = llvm::find_if(pending, [&](const OutputCopy &copy) {
      return !readByAnother(copy);
    });
    if (ready == pending.end()) {
      OutputCopy &first = pending.front();
      first.source = copyToTemporary(
          b, at, first.source,
          cast<MemRefType>(function.getArgument(firstOutput + first.output)
                               .getType()));
      first.sourceOutput = -1;
      continue;
    }
    b.create<memref::CopyOp>(at, ready->source,
                             function.getArgument(firstOutput + ready->output));
    pending.erase(ready);
  }
}

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
    SmallVector<OutputCopy> copies;
    for (unsigned i = 0; i < numResults; ++i) {
      Value result = ret.getOperand(i);
      Value output = function.getArgument(firstOutput + i);
      if (result == output)
        continue;
      if (result.getType() != output.getType())
        return ret.emitError("internal error: result ")
               << i << " has type " << result.getType()
               << " but its output is " << output.getType();
      copies.push_back({result, i, outputBehind(result, function, numResults)});
    }
    OpBuilder builder(ret);
    emitOutputCopies(builder, ret.getLoc(), function, std::move(copies));
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
