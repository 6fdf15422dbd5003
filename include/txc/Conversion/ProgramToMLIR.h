//===- ProgramToMLIR.h - MLIRGen: Program to linalg on tensors --*- C++ -*-===//
//
// Lowers a verified program to one `func.func` on tensors using the linalg,
// tensor, arith and math dialects. The function's signature is
//
//   func.func @<prefix>_kernel(%sym0: index, ..., %in0: tensor<...>, ...,
//                              %weight0: tensor<...>, ...,
//                              %out0: tensor<...>, ...) -> (tensor<...>, ...)
//
// Symbols arrive as index arguments (the ABI wrapper has already computed
// and checked them); inputs are read-only; stored constants
// (ConstantDecl::isStored, the weights) are read-only arguments between the
// inputs and the outputs, in program order; every result is materialized into
// its output argument so that bufferization writes straight into the
// caller's buffers. Every op carries the location of the program node it
// comes from. An input whose dims are not all constant has them as
// expressions of the symbols in its argument attribute `txc.dims`
// (kArgumentDimsAttr); so do the inputs of the functions of regions.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_CONVERSION_PROGRAMTOMLIR_H
#define TXC_CONVERSION_PROGRAMTOMLIR_H

#include "txc/Analysis/Contract.h"
#include "txc/Analysis/Regions.h"
#include "txc/Program/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace txc {

/// The argument attribute of a tensor argument whose dims are not all
/// constant: an AffineMapAttr `()[s0, ..., sN-1] -> (dims...)` over the
/// contract's N symbols (the function's first N arguments). The guards
/// make every caller's tensor have exactly these dims, so later passes may
/// take the symbols for `memref.dim` of the argument (the Workspace pass
/// sizes the padded copy of an input from them).
inline constexpr llvm::StringLiteral kArgumentDimsAttr = "txc.dims";

/// Registers every dialect, interface and translation txc uses.
void registerTxcDialects(mlir::DialectRegistry &registry);

/// True when MLIRGen can lower ops of this kind (every registered op must).
bool hasLowering(OpKind kind);

/// The name of the kernel function MLIRGen creates.
std::string kernelFunctionName(const Contract &contract);

/// The name of the function of a region (docs/architecture.md, "Regions").
std::string regionFunctionName(const Contract &contract, unsigned function);

/// Lowers `program`; returns null after reporting through the context's
/// diagnostic handler if the generated IR does not verify.
mlir::OwningOpRef<mlir::ModuleOp>
lowerProgramToMLIR(mlir::MLIRContext &context, const Program &program,
                   const Contract &contract,
                   const RegionOptions &regions = RegionOptions());

} // namespace txc

#endif
