//===- FmaToLLVM.cpp - math.fma to llvm.intr.fma before the libm calls ----===//
//
// MLIR's erf approximation (VectorErf.cpp) evaluates its polynomials with
// math.fma. ConvertMathToLibm, which must run before ConvertMathToLLVM (the
// latter would approximate expm1 and log1p as exp(x) - 1 and log(1 + x)),
// turns every math.fma into a call of fmaf, one per vector lane: eight
// calls per element of gelu, 17% of the zoo encoder's time. Converted here
// first, math.fma becomes llvm.intr.fma: one FMA instruction where the CPU
// has FMA, still an fmaf call (LLVM's lowering of the intrinsic) where it
// does not, so the result is the exactly rounded a*b+c everywhere.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/LLVMCommon/VectorPattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_FMATOLLVMPASS
#include "Passes.h.inc"

namespace {

class FmaToLLVMPass
    : public impl::FmaToLLVMPassBase<FmaToLLVMPass> {
public:
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    patterns.add<VectorConvertToLLVMPattern<math::FmaOp, LLVM::FMAOp>>(
        converter);
    // Only math.fma changes; the n-D vector operands it had are cast to
    // LLVM arrays of 1-D vectors, casts the final conversion reconciles.
    ConversionTarget target(*context);
    target.addIllegalOp<math::FmaOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace txc
