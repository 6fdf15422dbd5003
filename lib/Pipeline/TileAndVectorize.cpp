//===- TileAndVectorize.cpp - The whole codegen strategy as one pass ------===//
//
// txc-tile-and-vectorize runs the codegen strategy's passes in the
// pipeline's order (addTileAndVectorizePasses) for the target of its
// options: a shorthand for tests and for re-running a dumped
// `mlir-optimized` input through the strategy as `txc compile` does.
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"
#include "Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "Passes.h.inc"

namespace {

class TileAndVectorizePass
    : public impl::TileAndVectorizePassBase<TileAndVectorizePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    VectorTarget target{vectorBits, vectorRegisters};
    if (!lookupTuning(target)) {
      getOperation().emitError("txc-tile-and-vectorize: vector-bits is ")
          << unsigned(vectorBits) << "; 128, 256 or 512 are supported";
      return signalPassFailure();
    }
    OpPassManager pm(func::FuncOp::getOperationName());
    addTileAndVectorizePasses(pm, target);
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
} // namespace txc
