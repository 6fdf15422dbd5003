//===- txc-opt.cpp - mlir-opt with txc's dialects and passes --------------===//
//
// Runs txc's passes and pipeline stages, and MLIR's common transforms, on
// `.mlir` input: the IR-level lit tests (test/lit/passes) and re-running a
// file dumped by `txc compile --emit mlir-<stage>` through later stages.
//
//===----------------------------------------------------------------------===//
#include "txc/Conversion/ProgramToMLIR.h"
#include "txc/Pipeline/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  txc::registerTxcDialects(registry);
  // canonicalize, cse, and the other passes of mlir/Transforms.
  mlir::registerTransformsPasses();
  txc::registerTxcPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "txc's MLIR passes and pipelines\n", registry));
}
