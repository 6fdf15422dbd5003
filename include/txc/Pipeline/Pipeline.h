//===- Pipeline.h - The MLIR pass pipelines of txc --------------*- C++ -*-===//
//
// The MLIR part of compilation, from linalg on tensors to the LLVM dialect,
// assembled from small add...Passes helpers (one per stage) so that the whole
// pipeline reads top to bottom in one place (buildTxcPipeline).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PIPELINE_PIPELINE_H
#define TXC_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;
class PassManager;
class TimingScope;
} // namespace mlir

namespace txc {

/// Stages of the MLIR pipeline, in order; `txc compile --emit` can stop
/// after any of them.
enum class MLIRStage {
  Tensor,     ///< MLIRGen output: linalg on tensors
  Optimized,  ///< fused, still on tensors
  Bufferized, ///< on memrefs, writing into the caller's buffers
  Loops,      ///< scf/cf loops
  LLVM,       ///< the LLVM dialect, ready for translation
};

std::optional<MLIRStage> parseMLIRStage(llvm::StringRef name);
llvm::StringRef mlirStageName(MLIRStage stage);

/// What codegen needs to know about the target's vector unit.
struct VectorTarget {
  unsigned vectorBits = 128;   ///< 128 (SSE/NEON), 256 (AVX2), 512 (AVX-512)
  unsigned vectorRegisters = 16;
  /// Large kernel outputs are written with non-temporal stores when
  /// aligned (x86's MOVNTPS; txc-stream-output-stores).
  bool streamingStores = false;

  unsigned lanes(unsigned elementBits) const {
    return vectorBits / elementBits;
  }
};

struct PipelineOptions {
  unsigned optLevel = 2; ///< 0..3
  VectorTarget vector;
  bool printIRAfterAll = false;
  bool verifyEachPass = true;
  /// False: MLIRGen lowers the whole program into the kernel function
  /// instead of one function per region (`txc compile --regions one`).
  bool cutRegions = true;
};

void addTensorOptimizationPasses(mlir::OpPassManager &pm,
                                 const PipelineOptions &options);
void addBufferizationPasses(mlir::OpPassManager &pm,
                            const PipelineOptions &options);
void addLoopLoweringPasses(mlir::OpPassManager &pm,
                           const PipelineOptions &options);
void addLLVMLoweringPasses(mlir::OpPassManager &pm,
                           const PipelineOptions &options);

/// The whole pipeline from MLIRStage::Tensor up to and including `last`.
void buildTxcPipeline(mlir::OpPassManager &pm, MLIRStage last,
                      const PipelineOptions &options);

/// Runs buildTxcPipeline on `module`, timing each pass under `timing`.
mlir::LogicalResult runTxcPipeline(mlir::ModuleOp module, MLIRStage last,
                                   const PipelineOptions &options,
                                   mlir::TimingScope &timing);

/// Registers txc's passes (lib/Pipeline/Passes.td) and each stage above as
/// a pass pipeline (txc-tensor-optimization, txc-bufferization,
/// txc-loop-lowering, txc-llvm-lowering, and txc-pipeline for all), for
/// tools/txc-opt.
void registerTxcPassesAndPipelines();

} // namespace txc

#endif
