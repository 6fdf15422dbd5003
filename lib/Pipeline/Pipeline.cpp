//===- Pipeline.cpp - The MLIR pass pipelines of txc ----------------------===//
#include "txc/Pipeline/Pipeline.h"
#include "LoweringConfig.h"
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
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
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

void addTileAndVectorizePasses(OpPassManager &pm, VectorTarget target) {
  // The strategy is chosen once, as data on the ops (LoweringConfig.h);
  // each pass after it applies one kind of config, in the order in which
  // they must run: a row chain's producers are what the matmuls and
  // convolutions left.
  SelectLoweringStrategyPassOptions select;
  select.vectorBits = target.vectorBits;
  select.vectorRegisters = target.vectorRegisters;
  pm.addPass(createSelectLoweringStrategyPass(select));
  pm.addPass(createTileMatmulPass());
  pm.addPass(createTileConvolutionPass());
  pm.addPass(createTileRowChainsPass());
  pm.addPass(createTileElementwisePass());
  VectorizeStaticOpsPassOptions vectorize;
  if (const TargetTuning *tuning = lookupTuning(target))
    vectorize.maxElements = tuning->maxVectorElements;
  pm.addPass(createVectorizeStaticOpsPass(vectorize));
}

void addTensorOptimizationPasses(OpPassManager &pm,
                                 const PipelineOptions &options) {
  if (options.optLevel >= 1) {
    // The bias of a linear layer becomes the matmul's initial accumulator
    // (before fusion, which would merge the bias add into its consumers).
    if (options.optLevel >= 2)
      pm.addNestedPass<func::FuncOp>(createFoldBiasIntoMatmulPass());
    // Fuse producer/consumer elementwise chains so that no intermediate
    // tensor is materialized.
    pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  }
  // Outputs are computed in place in their buffers from here on. This runs
  // before CSE, which would merge the identical empty tensors of two
  // outputs into one that cannot live in both buffers.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addNestedPass<func::FuncOp>(createFoldInPlaceOutputsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.optLevel >= 2) {
    addTileAndVectorizePasses(pm.nest<func::FuncOp>(), options.vector);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

void addBufferizationPasses(OpPassManager &pm, const PipelineOptions &options) {
  // CSE merged equal empty tensors; split them again, or the one-shot
  // analysis below takes time cubic in the number of ops.
  pm.addNestedPass<func::FuncOp>(createSplitEmptyTensorsPass());
  // Results are written straight into the output arguments: empty tensors
  // that end up in an output are replaced by the output buffer. An output
  // that only now reaches its empty tensor (a loop the canonicalizer folded
  // away left an empty tensor behind a reshape that folded too) is then
  // computed in place, and its materialization is dropped as in the first
  // stage: one-shot analysis would see a write to the output after a loop
  // that updates it, a conflict it cannot resolve.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addNestedPass<func::FuncOp>(createFoldInPlaceOutputsPass());
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  // A `while` body returns its next state in new buffers when it cannot
  // compute it in place; the deallocation pipeline frees the old ones.
  bufferization.allowReturnAllocsFromLoops = true;
  // Copies between strided views (tensor.pad, insert_slice) would become
  // calls to MLIR's runtime `memrefCopy`; as linalg.copy they become loops,
  // so the object needs no runtime library (docs/abi.md, "Imports"; the
  // copies that become strided later are LowerStridedCopies'). Contiguous
  // copies stay memref.copy (memcpy).
  bufferization.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                              Value to) {
    auto isContiguous = [](Value v) {
      auto type = dyn_cast<MemRefType>(v.getType());
      return !type || type.getLayout().isIdentity();
    };
    if (isContiguous(from) && isContiguous(to))
      b.create<memref::CopyOp>(loc, from, to);
    else
      b.create<linalg::CopyOp>(loc, from, to);
    return success();
  };
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  pm.addPass(createNameGlobalsInOrderPass());
  // Loops that only forward a buffer fold away first, so that a result
  // computed in place is seen as the output argument itself.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createReturnResultsInOutputsPass());
  pm.addPass(createCanonicalizerPass());
  // Before the Workspace pass: LowerVectors hoists a register tile's
  // accumulators out of its K loop only while the tile's buffer is not a
  // view of the memory the loop also reads; once the workspace holds both
  // the packed panel and the matmul's result, every K step would load and
  // store the accumulators (the encoder's feed-forward layers ran at a
  // third of the sgemm kernel's speed).
  if (options.optLevel >= 2)
    pm.addNestedPass<func::FuncOp>(createLowerVectorsPass());
  if (options.optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
    // Small temporaries live on the stack instead of the heap.
    pm.addNestedPass<func::FuncOp>(
        bufferization::createPromoteBuffersToStackPass(
            /*maxAllocSizeInBytes=*/16384, /*maxRankOfAllocatedMemRef=*/2));
    // The remaining static temporaries live in the workspace (no malloc).
    pm.addPass(createWorkspacePass());
  }
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  if (options.optLevel >= 2 && options.vector.streamingStores) {
    StreamOutputStoresPassOptions streaming;
    streaming.vectorBits = options.vector.vectorBits;
    pm.addPass(createStreamOutputStoresPass(streaming));
  }
  // Before outlining, which then passes the parallel context on to the
  // outlined nests like any other value.
  pm.addPass(createParallelTasksPass());
  pm.addPass(createOutlineLoopsPass());
  // Repeated layers outline into identical nests: compile each once.
  pm.addPass(createMergeIdenticalFunctionsPass());
}

void addLoopLoweringPasses(OpPassManager &pm, const PipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createLowerStridedCopiesPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createCanonicalizerPass());
}

void addLLVMLoweringPasses(OpPassManager &pm, const PipelineOptions &options) {
  // Arith ops without a direct LLVM counterpart (ceildivsi, ...) become
  // simpler arith ops; math ops without an LLVM intrinsic (erf, ...) become
  // libm calls.
  // bf16 arithmetic computes in f32 (one rounding per op, as documented)
  // and the conversions are expanded to integer code: LLVM would otherwise
  // call __truncsfbf2, which the C libraries txc objects link against (and
  // GCC 12's libgcc) do not provide.
  {
    static const std::string bf16[] = {"bf16"};
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = bf16;
    emulate.targetTypeStr = "f32";
    pm.addNestedPass<func::FuncOp>(
        arith::createArithEmulateUnsupportedFloats(emulate));
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass(expand));
  }
  // The erf approximation's fused multiply-adds stay FMA instructions
  // (FmaToLLVM.cpp); the math functions without an intrinsic become libm
  // calls.
  pm.addPass(createFmaToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertVectorToLLVMPass());
  if (options.optLevel >= 2 && options.vector.streamingStores) {
    AlignNontemporalStoresPassOptions align;
    align.vectorBits = options.vector.vectorBits;
    pm.addPass(createAlignNontemporalStoresPass(align));
  }
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
  // One pass manager per stage, so that --time-report shows each stage with
  // its passes under it. The passes are those of buildTxcPipeline.
  static const struct {
    MLIRStage stage;
    const char *timerName;
    void (*addPasses)(OpPassManager &, const PipelineOptions &);
  } stages[] = {
      {MLIRStage::Optimized, "tensor-optimization",
       addTensorOptimizationPasses},
      {MLIRStage::Bufferized, "bufferization", addBufferizationPasses},
      {MLIRStage::Loops, "loop-lowering", addLoopLoweringPasses},
      {MLIRStage::LLVM, "llvm-dialect-lowering", addLLVMLoweringPasses},
  };
  if (options.printIRAfterAll)
    module->getContext()->disableMultithreading();
  for (const auto &stage : stages) {
    if (int(stage.stage) > int(last))
      break;
    PassManager pm(module->getName());
    pm.enableVerifier(options.verifyEachPass);
    TimingScope stageTiming = timing.nest(stage.timerName);
    pm.enableTiming(stageTiming);
    if (options.printIRAfterAll)
      pm.enableIRPrinting(
          /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
          /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    stage.addPasses(pm, options);
    if (failed(pm.run(module)))
      return failure();
  }
  return success();
}

} // namespace txc
