//===- IRExprOps.h - Shape expressions in LLVM IR ---------------*- C++ -*-===//
//
// Private to lib/Target: the entry points (AbiEmitter.cpp) and the guard
// interpreter (GuardInterpreter.cpp) compute dims the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_TARGET_IREXPROPS_H
#define TXC_LIB_TARGET_IREXPROPS_H

#include "llvm/IR/IRBuilder.h"

namespace txc {

/// ShapeExpr::fold operations in LLVM IR, with the semantics of
/// evaluateGuards (Contract.cpp): sums and products wrap in `type` (i64 or
/// i128; no nsw: an expanded polynomial may have intermediate terms that
/// wrap although the value itself is in range, e.g. S*T-S near 2^47);
/// divisions are done on i64 (their operands fit, as the verifier proved,
/// and an i128 division would be a call to __divti3).
struct IRExprOps {
  llvm::IRBuilder<> &b;
  llvm::ArrayRef<llvm::Value *> symbols; ///< i64 values
  llvm::Type *type;

  llvm::Value *constant(int64_t value) {
    return llvm::ConstantInt::get(type, value, true);
  }
  llvm::Value *symbol(uint32_t id) { return b.CreateSExt(symbols[id], type); }
  llvm::Value *add(llvm::Value *x, llvm::Value *y) { return b.CreateAdd(x, y); }
  llvm::Value *mul(llvm::Value *x, llvm::Value *y) { return b.CreateMul(x, y); }
  llvm::Value *exactDiv(llvm::Value *x, int64_t d) {
    return exactDivBy(x, b.getInt64(d));
  }
  llvm::Value *floorDiv(llvm::Value *x, int64_t d) {
    return floorDivBy(x, b.getInt64(d));
  }
  llvm::Value *mod(llvm::Value *x, int64_t d) {
    return modBy(x, b.getInt64(d));
  }
  /// The same by an i64 value `d` > 0 (the guard table's interpreter).
  llvm::Value *exactDivBy(llvm::Value *x, llvm::Value *d) {
    return widen(b.CreateSDiv(narrow(x), d));
  }
  llvm::Value *floorDivBy(llvm::Value *x, llvm::Value *d) {
    // floor(x/d) for d > 0: the truncated quotient, minus 1 when the
    // remainder is negative.
    llvm::Value *narrowed = narrow(x);
    llvm::Value *quotient = b.CreateSDiv(narrowed, d);
    llvm::Value *negative =
        b.CreateICmpSLT(b.CreateSRem(narrowed, d), b.getInt64(0));
    return widen(b.CreateSub(quotient, b.CreateZExt(negative, b.getInt64Ty())));
  }
  llvm::Value *modBy(llvm::Value *x, llvm::Value *d) {
    llvm::Value *remainder = b.CreateSRem(narrow(x), d);
    llvm::Value *negative = b.CreateICmpSLT(remainder, b.getInt64(0));
    return widen(
        b.CreateSelect(negative, b.CreateAdd(remainder, d), remainder));
  }
  llvm::Value *narrow(llvm::Value *x) {
    return b.CreateTrunc(x, b.getInt64Ty());
  }
  llvm::Value *widen(llvm::Value *x) { return b.CreateSExt(x, type); }
};

} // namespace txc

#endif
