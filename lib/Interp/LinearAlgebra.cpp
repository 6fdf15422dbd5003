//===- LinearAlgebra.cpp - Evaluators of contractions ---------------------===//
//
// matmul: C[i][j] = sum over k of A[i][k] * B[k][j], accumulated from k = 0
// upwards starting at zero, each multiply and add rounded separately (no
// FMA). f32/f64 and the integers accumulate in the element type (integers
// wrap); f16/bf16 accumulate in float and round once at the end.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"

#include <type_traits>

using namespace txc;

namespace {

/// The type a dot product accumulates in: float for the 16-bit floats (they
/// already compute in float), the element's compute type otherwise.
template <class Traits> using Accumulator = typename Traits::Compute;

template <class C> C multiplyAdd(C acc, C x, C y) {
  if constexpr (std::is_floating_point_v<C>) {
    C product = x * y;
    return acc + product;
  } else {
    return wrapAdd(acc, wrapMul(x, y));
  }
}

llvm::Expected<std::vector<Tensor>> evalMatMul(const OpEvalContext &ctx) {
  const Tensor &a = ctx.operand(0), &b = ctx.operand(1);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (a.rank() != 2 || b.rank() != 2 || a.shape()[1] != b.shape()[0] ||
      result->shape()[0] != a.shape()[0] ||
      result->shape()[1] != b.shape()[1] || a.dtype() != result->dtype() ||
      b.dtype() != result->dtype())
    return ctx.internalError("cannot multiply " + a.typeString() + " by " +
                             b.typeString() + " into " + result->typeString());
  if (result->dtype() == DType::Bool)
    return ctx.internalError("'matmul' is not defined for bool");
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  dispatchDType(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using S = typename T::Storage;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Accumulator<T> acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc = multiplyAdd<Accumulator<T>>(acc, T::load(a.load<S>(i * k + p)),
                                            T::load(b.load<S>(p * n + j)));
        result->store<S>(i * n + j, T::store(acc));
      }
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerLinearAlgebraOps(OpEvaluatorTable &table) {
  table.add(OpKind::MatMul, evalMatMul);
}
