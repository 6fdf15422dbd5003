//===- ControlFlow.cpp - Lowering of cond and while -----------------------===//
//
// cond lowers to scf.if and while to scf.while, both on tensors; their
// regions are lowered by MLIRGen::lowerGraph, so branch and loop graphs may
// use values of the enclosing graphs. One-shot bufferization turns them into
// control flow on buffers (the scf external models are registered in
// Dialects.cpp).
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"

#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// The i1 held by a predicate tensor (shape [] or [1]; verifier).
Value extractPredicate(OpBuilder &b, Value pred, Location at) {
  SmallVector<Value> indices;
  if (cast<RankedTensorType>(pred.getType()).getRank() == 1)
    indices.push_back(b.create<arith::ConstantIndexOp>(at, 0));
  return b.create<tensor::ExtractOp>(at, pred, indices);
}

/// Lowers `graph` at the start of `block` with `inputs` bound to its inputs;
/// returns its outputs with the builder left at the end of the block.
FailureOr<SmallVector<Value>> lowerRegionGraph(MLIRGen &gen, Block *block,
                                               const Graph &graph,
                                               ValueRange inputs) {
  gen.builder().setInsertionPointToEnd(block);
  return gen.lowerGraph(graph, SmallVector<Value>(inputs));
}

/// The outputs of a branch, each a value computed in `block` and yielded
/// once: other values (the branch's inputs, values of enclosing graphs, a
/// value yielded twice) are copied first. Otherwise the scf.if result would
/// alias a caller's input or another result, and one-shot bufferization
/// cannot then write it into its output buffer ("cannot avoid RaW
/// conflict"); a fresh copy can be computed right into that buffer.
SmallVector<Value> ownedOutputs(MLIRGen &gen, const Node &node, Block *block,
                                ArrayRef<Value> outputs, Location at) {
  OpBuilder &b = gen.builder();
  SmallVector<Value> owned;
  llvm::SmallPtrSet<Value, 4> seen;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value value = outputs[i];
    Operation *def = value.getDefiningOp();
    bool local = def && def->getBlock() == block;
    if (!local || !seen.insert(value).second)
      value = b.create<linalg::CopyOp>(at, value,
                                       gen.emptyTensor(node.resultTypes[i], at))
                  .getResult(0);
    owned.push_back(value);
  }
  return owned;
}

SmallVector<Type> resultTensorTypes(MLIRGen &gen, const Node &node) {
  SmallVector<Type> types;
  for (const TensorType &type : node.resultTypes)
    types.push_back(gen.tensorType(type));
  return types;
}

/// cond: scf.if on the predicate; each branch lowers its graph on the args
/// and yields its outputs.
FailureOr<SmallVector<Value>> lowerCond(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const Node &node = lowering.node;
  Value pred = extractPredicate(b, lowering.operands[0], at);
  auto ifOp = b.create<scf::IfOp>(at, resultTensorTypes(gen, node), pred,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  ValueRange args = ValueRange(lowering.operands).drop_front();
  OpBuilder::InsertionGuard guard(b);
  for (auto [name, block] :
       {std::pair<StringRef, Block *>{"then", ifOp.thenBlock()},
        {"else", ifOp.elseBlock()}}) {
    auto outputs = lowerRegionGraph(gen, block, *node.findRegion(name), args);
    if (failed(outputs))
      return failure();
    b.create<scf::YieldOp>(at, ownedOutputs(gen, node, block, *outputs, at));
  }
  return SmallVector<Value>(ifOp.getResults());
}

/// while: scf.while carrying the state and an iteration counter. The
/// "before" region evaluates the cond graph and continues while it holds
/// and the body has run fewer than max_iterations times; at the bound the
/// loop stops and returns the current state (docs/ops.md).
FailureOr<SmallVector<Value>> lowerWhile(MLIRGen &gen,
                                         const NodeLowering &lowering) {
  OpBuilder &b = gen.builder();
  Location at = lowering.loc;
  const Node &node = lowering.node;
  int64_t maxIterations = getIntAttr(node, "max_iterations", 0);
  SmallVector<Type> types = resultTensorTypes(gen, node);
  types.push_back(b.getIndexType());
  SmallVector<Value> inits(lowering.operands);
  inits.push_back(b.create<arith::ConstantIndexOp>(at, 0));
  Value bound = b.create<arith::ConstantIndexOp>(at, maxIterations);
  auto whileOp = b.create<scf::WhileOp>(at, types, inits);
  SmallVector<Location> locs(types.size(), at);
  OpBuilder::InsertionGuard guard(b);

  Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
  ValueRange state = before->getArguments().drop_back();
  Value counter = before->getArguments().back();
  auto condOutputs =
      lowerRegionGraph(gen, before, *node.findRegion("cond"), state);
  if (failed(condOutputs))
    return failure();
  Value inBound =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::ult, counter, bound);
  Value go = b.create<arith::AndIOp>(
      at, inBound, extractPredicate(b, (*condOutputs)[0], at));
  b.create<scf::ConditionOp>(at, go, before->getArguments());

  Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
  auto next = lowerRegionGraph(gen, after, *node.findRegion("body"),
                               after->getArguments().drop_back());
  if (failed(next))
    return failure();
  Value one = b.create<arith::ConstantIndexOp>(at, 1);
  next->push_back(
      b.create<arith::AddIOp>(at, after->getArguments().back(), one));
  b.create<scf::YieldOp>(at, *next);
  return SmallVector<Value>(whileOp.getResults().drop_back());
}

} // namespace

void registerControlFlowLowerings(LoweringTable &table) {
  table.add(OpKind::Cond, lowerCond);
  table.add(OpKind::While, lowerWhile);
}

} // namespace txc
