//===- Pipeline.cpp - The MLIR pass pipelines of txc ----------------------===//
#include "txc/Pipeline/Pipeline.h"
#include "Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace txc {

std::optional<MLIRStage> parseMLIRStage(llvm::StringRef name) {
  for (MLIRStage stage : {MLIRStage::Tensor, MLIRStage::Optimized,
                          MLIRStage::Bufferized, MLIRStage::Loops,
                          MLIRStage::LLVM})
    if (mlirStageName(stage) == name)
      return stage;
  return std::nullopt;
}

llvm::StringRef mlirStageName(MLIRStage stage) {
  switch (stage) {
  case MLIRStage::Tensor: return "tensor";
  case MLIRStage::Optimized: return "optimized";
  case MLIRStage::Bufferized: return "bufferized";
  case MLIRStage::Loops: return "loops";
  case MLIRStage::LLVM: return "llvm";
  }
  return "";
}

void addTensorOptimizationPasses(OpPassManager &pm,
                                 const PipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  if (options.optLevel == 0)
    return;
  // The bias of a linear layer becomes the matmul's initial accumulator
  // (before fusion, which would merge the bias add into its consumers).
  if (options.optLevel >= 2)
    pm.addNestedPass<func::FuncOp>(createFoldBiasIntoMatmulPass());
  // Fuse producer/consumer elementwise chains so that no intermediate
  // tensor is materialized.
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.optLevel >= 2) {
    // Outputs are written in place from the start, so that the tiled loops
    // carry the caller's buffer instead of a temporary copied at the end.
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
    pm.addNestedPass<func::FuncOp>(createFoldInPlaceOutputsPass());
    pm.addNestedPass<func::FuncOp>(createTileAndVectorizePass(options.vector));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

namespace {

/// Gives every output its own tensor before empty tensor elimination, which
/// (MLIR 19) replaces all uses of a tensor.empty with the destination of the
/// first output it finds, and before one-shot bufferization, which cannot
/// materialize one value in two destinations. Otherwise two outputs end up
/// sharing a buffer and bufferization fails ("cannot avoid RaW conflict")
/// when CSE merged the tensor.empty ops of two results, or two identical
/// nodes, or when a program returns one value twice.
class SeparateOutputsPass
    : public PassWrapper<SeparateOutputsPass, OperationPass<func::FuncOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SeparateOutputsPass)

  StringRef getArgument() const final { return "txc-separate-outputs"; }
  StringRef getDescription() const final {
    return "Give every output its own tensor before bufferization";
  }

  void runOnOperation() override {
    copyRepeatedOutputs();
    unshareEmptyTensors();
  }

private:
  /// A value materialized in several outputs is copied for all but the
  /// first; the copy's tensor.empty then becomes that output's buffer. The
  /// copies come before the first materialization, which one-shot analysis
  /// counts as a write of the value's buffer.
  void copyRepeatedOutputs() {
    llvm::DenseMap<Value, Operation *> first;
    getOperation().walk([&](bufferization::MaterializeInDestinationOp op) {
      Value source = op.getSource();
      auto [it, inserted] = first.try_emplace(source, op);
      if (inserted)
        return;
      OpBuilder builder(it->second);
      Location loc = op.getLoc();
      auto type = cast<RankedTensorType>(source.getType());
      Value empty = builder.create<tensor::EmptyOp>(
          loc, tensor::getMixedSizes(builder, loc, source),
          type.getElementType());
      Value copy =
          builder.create<linalg::CopyOp>(loc, source, empty).getResult(0);
      op.getSourceMutable().set(copy);
    });
  }

  /// The tensor.empty use an output's value is computed into: the start of
  /// its chain of destination-passing ops, which is where empty tensor
  /// elimination puts the output's buffer.
  static OpOperand *emptyInitOf(Value value) {
    while (auto result = dyn_cast<OpResult>(value)) {
      auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner());
      if (!dps)
        return nullptr;
      OpOperand *init = dps.getTiedOpOperand(result);
      if (init->get().getDefiningOp<tensor::EmptyOp>())
        return init;
      value = init->get();
    }
    return nullptr;
  }

  /// When the chains of two outputs start at the same tensor.empty, the
  /// second one gets its own copy of it. Other uses keep sharing (a matmul
  /// accumulating into the buffer of the output its result feeds).
  void unshareEmptyTensors() {
    llvm::DenseSet<Operation *> claimed;
    getOperation().walk([&](bufferization::MaterializeInDestinationOp op) {
      OpOperand *init = emptyInitOf(op.getSource());
      if (!init || claimed.insert(init->get().getDefiningOp()).second)
        return;
      Operation *empty = init->get().getDefiningOp();
      OpBuilder builder(empty);
      init->set(builder.clone(*empty)->getResult(0));
    });
  }
};

} // namespace

void addBufferizationPasses(OpPassManager &pm, const PipelineOptions &options) {
  // Results are written straight into the output arguments: empty tensors
  // that end up in an output are replaced by the output buffer.
  pm.addNestedPass<func::FuncOp>(std::make_unique<SeparateOutputsPass>());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  // Loops that only forward a buffer fold away first, so that a result
  // computed in place is seen as the output argument itself.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createReturnResultsInOutputsPass());
  pm.addPass(createCanonicalizerPass());
  if (options.optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
    // Small temporaries live on the stack instead of the heap.
    pm.addNestedPass<func::FuncOp>(
        bufferization::createPromoteBuffersToStackPass(
            /*maxAllocSizeInBytes=*/16384, /*maxRankOfAllocatedMemRef=*/2));
  }
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  if (options.optLevel >= 2)
    pm.addNestedPass<func::FuncOp>(createLowerVectorsPass());
}

void addLoopLoweringPasses(OpPassManager &pm, const PipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createCanonicalizerPass());
}

void addLLVMLoweringPasses(OpPassManager &pm, const PipelineOptions &options) {
  // Arith ops without a direct LLVM counterpart (ceildivsi, ...) become
  // simpler arith ops; math ops without an LLVM intrinsic (erf, ...) become
  // libm calls. bf16 conversions become integer ops: LLVM would call
  // __truncsfbf2, which libgcc before GCC 13 does not have.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void buildTxcPipeline(OpPassManager &pm, MLIRStage last,
                      const PipelineOptions &options) {
  if (last == MLIRStage::Tensor)
    return;
  addTensorOptimizationPasses(pm, options);
  if (last == MLIRStage::Optimized)
    return;
  addBufferizationPasses(pm, options);
  if (last == MLIRStage::Bufferized)
    return;
  addLoopLoweringPasses(pm, options);
  if (last == MLIRStage::Loops)
    return;
  addLLVMLoweringPasses(pm, options);
}

LogicalResult runTxcPipeline(ModuleOp module, MLIRStage last,
                             const PipelineOptions &options,
                             TimingScope &timing) {
  PassManager pm(module->getName());
  pm.enableVerifier(options.verifyEachPass);
  pm.enableTiming(timing);
  if (options.printIRAfterAll) {
    module->getContext()->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  buildTxcPipeline(pm, last, options);
  return pm.run(module);
}

} // namespace txc
