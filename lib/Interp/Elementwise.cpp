//===- Elementwise.cpp - Evaluators of elementwise ops --------------------===//
//
// Each op is a small struct with a generic `apply` on the compute type
// (ElementTypes.h): floats use the C++ operators (IEEE, round to nearest;
// the library is built with -ffp-contract=off so nothing is fused), integers
// use the wrapping helpers. f16/bf16 values arrive widened to float and the
// result is rounded back by the store, once per op.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/Broadcast.h"
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"

#include <cmath>
#include <type_traits>

using namespace txc;

namespace {

template <class C> constexpr bool kIsFloat = std::is_floating_point_v<C>;

struct AddOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x + y;
    else
      return wrapAdd(x, y);
  }
};

struct SubOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x - y;
    else
      return wrapSub(x, y);
  }
};

struct MulOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x * y;
    else
      return wrapMul(x, y);
  }
};

struct DivOp {
  template <class C> static C apply(C x, C y) {
    if constexpr (kIsFloat<C>)
      return x / y; // IEEE: x/0 is +-inf, 0/0 is NaN
    else
      return safeDiv(x, y);
  }
};

struct ReluOp {
  template <class C> static C apply(C x) {
    if constexpr (kIsFloat<C>) {
      // max(x, 0) that propagates NaN and maps -0 to +0, like the
      // compiled arith.maximumf.
      if (std::isnan(x))
        return x;
      return x > 0 ? x : C(0);
    } else if constexpr (std::is_signed_v<C>) {
      return x > 0 ? x : C(0);
    } else {
      return x; // u8: already non-negative
    }
  }
};

/// Arithmetic ops are not defined on bool; the verifier rejects that.
llvm::Error rejectBool(const OpEvalContext &ctx, DType dtype) {
  if (dtype != DType::Bool)
    return llvm::Error::success();
  return ctx.internalError("'" + getOpInfo(ctx.getNode().kind).name +
                           "' is not defined for bool");
}

template <class Op>
llvm::Expected<std::vector<Tensor>> evalBinary(const OpEvalContext &ctx) {
  const Tensor &lhs = ctx.operand(0), &rhs = ctx.operand(1);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (lhs.dtype() != result->dtype() || rhs.dtype() != result->dtype())
    return ctx.internalError("operand dtypes " + lhs.typeString() + " and " +
                             rhs.typeString() + " differ from the result's");
  if (llvm::Error err = rejectBool(ctx, result->dtype()))
    return err;
  auto walker =
      BroadcastWalker::create(result->shape(), {lhs.shape(), rhs.shape()});
  if (!walker)
    return ctx.internalError(llvm::toString(walker.takeError()));
  dispatchDType(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    for (; !walker->done(); walker->next()) {
      auto x = T::load(lhs.load<S>(walker->operandIndex(0)));
      auto y = T::load(rhs.load<S>(walker->operandIndex(1)));
      result->store<S>(walker->resultIndex(), T::store(Op::apply(x, y)));
    }
  });
  return singleResult(std::move(*result));
}

template <class Op>
llvm::Expected<std::vector<Tensor>> evalUnary(const OpEvalContext &ctx) {
  const Tensor &input = ctx.operand(0);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (input.dtype() != result->dtype() || input.shape() != result->shape())
    return ctx.internalError("operand " + input.typeString() +
                             " differs from the result " +
                             result->typeString());
  if (llvm::Error err = rejectBool(ctx, result->dtype()))
    return err;
  dispatchDType(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    for (int64_t i = 0; i < result->numElements(); ++i)
      result->store<S>(i, T::store(Op::apply(T::load(input.load<S>(i)))));
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerElementwiseOps(OpEvaluatorTable &table) {
  table.add(OpKind::Add, evalBinary<AddOp>);
  table.add(OpKind::Sub, evalBinary<SubOp>);
  table.add(OpKind::Mul, evalBinary<MulOp>);
  table.add(OpKind::Div, evalBinary<DivOp>);
  table.add(OpKind::Relu, evalUnary<ReluOp>);
}
