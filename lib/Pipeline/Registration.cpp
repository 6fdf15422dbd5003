//===- Registration.cpp - txc's passes and pipelines for txc-opt ----------===//
//
// txc-opt runs any of txc's passes (Passes.td) or pipeline stages on a
// `.mlir` file, e.g. one dumped by `txc compile --emit mlir-<stage>`, so
// that each can be tested alone and a dump re-run through the rest.
//
//===----------------------------------------------------------------------===//
#include "txc/Pipeline/Pipeline.h"
#include "Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace txc {
namespace {
#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"

/// The options of every txc pipeline registered below: the PipelineOptions
/// that `txc compile` derives from -O and --cpu, given explicitly.
struct PipelineCommandLineOptions
    : public PassPipelineOptions<PipelineCommandLineOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimization level, 0 to 3"),
                            llvm::cl::init(2)};
  Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width: 128, 256 or 512"),
      llvm::cl::init(256)};
  Option<unsigned> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Number of vector registers"), llvm::cl::init(16)};
  Option<bool> streamingStores{
      *this, "streaming-stores",
      llvm::cl::desc("Non-temporal stores into large outputs (x86)"),
      llvm::cl::init(false)};

  PipelineOptions toPipelineOptions() const {
    PipelineOptions options;
    options.optLevel = optLevel;
    options.vector = VectorTarget{vectorBits, vectorRegisters, streamingStores};
    return options;
  }
};

template <void (*AddPasses)(OpPassManager &, const PipelineOptions &)>
void registerStage(StringRef argument, StringRef description) {
  PassPipelineRegistration<PipelineCommandLineOptions>(
      argument, description,
      [](OpPassManager &pm, const PipelineCommandLineOptions &options) {
        AddPasses(pm, options.toPipelineOptions());
      });
}

void addWholePipeline(OpPassManager &pm, const PipelineOptions &options) {
  buildTxcPipeline(pm, MLIRStage::LLVM, options);
}

} // namespace

void registerTxcPassesAndPipelines() {
  registerTxcPasses();
  registerStage<addTensorOptimizationPasses>(
      "txc-tensor-optimization",
      "txc's stage 1: fusion and tiling on tensors (--emit mlir-optimized)");
  registerStage<addBufferizationPasses>(
      "txc-bufferization",
      "txc's stage 2: to buffers in the caller's outputs (mlir-bufferized)");
  registerStage<addLoopLoweringPasses>(
      "txc-loop-lowering", "txc's stage 3: to scf/cf loops (mlir-loops)");
  registerStage<addLLVMLoweringPasses>(
      "txc-llvm-lowering", "txc's stage 4: to the LLVM dialect (mlir-llvm)");
  registerStage<addWholePipeline>(
      "txc-pipeline", "Every stage of txc's pipeline, from mlir-tensor");
}

} // namespace txc
