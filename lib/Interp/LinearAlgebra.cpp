//===- LinearAlgebra.cpp - Evaluators of contractions ---------------------===//
//
// matmul (torch.matmul), linear (torch.nn.functional.linear) and gemm (ONNX
// Gemm); docs/ops.md, "Linear algebra".
//
// Every output element is one dot product, accumulated from k = 0 upwards
// with each multiply and add rounded separately (no FMA; the library is
// built with -ffp-contract=off). The accumulator has the compute type:
// f32/f64 and the integers accumulate in their own type (integers wrap),
// f16/bf16 in float, rounded once when the result is stored. matmul and gemm
// start from zero; linear starts from its bias, which docs/ops.md makes the
// initial value of the contraction.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/Broadcast.h"
#include "txc/Interp/ElementTypes.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Program/Attributes.h"

using namespace txc;

namespace {

/// Element `i` of `t`, widened to the compute type of `T`.
template <class T> typename T::Compute read(const Tensor &t, int64_t i) {
  return T::load(t.load<typename T::Storage>(i));
}

/// acc + x * y, rounding the product and the sum separately.
template <class C> C multiplyAdd(C acc, C x, C y) {
  return computeAdd(acc, computeMul(x, y));
}

/// Fails unless every operand has the result's dtype, which is not bool.
llvm::Error checkDTypes(const OpEvalContext &ctx, const Tensor &result) {
  for (size_t i = 0; i < ctx.numOperands(); ++i)
    if (ctx.operand(i).dtype() != result.dtype())
      return ctx.internalError("operand " + llvm::Twine(i) + " is " +
                               ctx.operand(i).typeString() +
                               ", the result is " + result.typeString());
  if (result.dtype() == DType::Bool)
    return ctx.internalError("not defined for bool");
  return llvm::Error::success();
}

/// Fails unless the result has the shape the operands give.
llvm::Error checkResultShape(const OpEvalContext &ctx, const Tensor &result,
                             llvm::ArrayRef<int64_t> expected) {
  if (result.shape() == expected)
    return llvm::Error::success();
  return ctx.internalError("the operands give shape " + shapeString(expected) +
                           ", the result is " + result.typeString());
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// An operand of matmul as a stack of matrices: its batch dims, then one
/// [rows, cols] matrix per batch index, stored contiguously. A 1-D operand
/// is a single matrix: a row [1, K] on the left, a column [K, 1] on the
/// right (torch.matmul's rule).
struct MatrixStack {
  std::vector<int64_t> batch;
  int64_t rows = 1, cols = 1;

  int64_t matrixSize() const { return rows * cols; }
};

MatrixStack leftStack(llvm::ArrayRef<int64_t> shape) {
  if (shape.size() == 1)
    return {{}, 1, shape[0]};
  size_t r = shape.size();
  return {shape.drop_back(2).vec(), shape[r - 2], shape[r - 1]};
}

MatrixStack rightStack(llvm::ArrayRef<int64_t> shape) {
  if (shape.size() == 1)
    return {{}, shape[0], 1};
  size_t r = shape.size();
  return {shape.drop_back(2).vec(), shape[r - 2], shape[r - 1]};
}

/// numpy's broadcast of two batch shapes: aligned from the right, a dim of
/// size 1 stretches. Nullopt if they do not broadcast.
std::optional<std::vector<int64_t>> broadcastBatch(llvm::ArrayRef<int64_t> x,
                                                   llvm::ArrayRef<int64_t> y) {
  size_t rank = std::max(x.size(), y.size());
  std::vector<int64_t> result(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t dx = d + x.size() >= rank ? x[d + x.size() - rank] : 1;
    int64_t dy = d + y.size() >= rank ? y[d + y.size() - rank] : 1;
    if (dx != dy && dx != 1 && dy != 1)
      return std::nullopt;
    result[d] = dx == 1 ? dy : dx;
  }
  return result;
}

/// torch.matmul: C[b, i, j] = sum over k of A[bA, i, k] * B[bB, k, j], where
/// bA and bB are the batch index b broadcast to each operand's batch dims.
/// The unit dims a 1-D operand adds do not change the row-major layout of
/// the result, so C is written as [batch..., M, N] in every case.
llvm::Expected<std::vector<Tensor>> evalMatMul(const OpEvalContext &ctx) {
  const Tensor &a = ctx.operand(0), &b = ctx.operand(1);
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (llvm::Error err = checkDTypes(ctx, *result))
    return err;
  if (a.rank() == 0 || b.rank() == 0)
    return ctx.internalError("rank-0 operand");
  MatrixStack lhs = leftStack(a.shape()), rhs = rightStack(b.shape());
  auto batch = broadcastBatch(lhs.batch, rhs.batch);
  if (lhs.cols != rhs.rows || !batch)
    return ctx.internalError("cannot multiply " + a.typeString() + " by " +
                             b.typeString());
  std::vector<int64_t> expected = *batch;
  if (a.rank() >= 2)
    expected.push_back(lhs.rows);
  if (b.rank() >= 2)
    expected.push_back(rhs.cols);
  if (llvm::Error err = checkResultShape(ctx, *result, expected))
    return err;

  auto walker = BroadcastWalker::create(*batch, {lhs.batch, rhs.batch});
  if (!walker)
    return ctx.internalError(llvm::toString(walker.takeError()));
  int64_t m = lhs.rows, k = lhs.cols, n = rhs.cols;
  dispatchNumeric(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using C = typename T::Compute;
    for (; !walker->done(); walker->next()) {
      int64_t aBase = walker->operandIndex(0) * lhs.matrixSize();
      int64_t bBase = walker->operandIndex(1) * rhs.matrixSize();
      int64_t cBase = walker->resultIndex() * m * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          C acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc = multiplyAdd(acc, read<T>(a, aBase + i * k + p),
                              read<T>(b, bBase + p * n + j));
          result->store(cBase + i * n + j, T::store(acc));
        }
    }
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

/// linear(x, weight[, bias]): y[r, n] = bias[n] + sum over k of x[r, k] *
/// weight[n, k], where r runs over all leading dims of x.
llvm::Expected<std::vector<Tensor>> evalLinear(const OpEvalContext &ctx) {
  const Tensor &x = ctx.operand(0), &weight = ctx.operand(1);
  const Tensor *bias = ctx.numOperands() > 2 ? &ctx.operand(2) : nullptr;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (llvm::Error err = checkDTypes(ctx, *result))
    return err;
  if (x.rank() == 0 || weight.rank() != 2 ||
      x.shape().back() != weight.shape()[1] ||
      (bias && bias->shape() != llvm::ArrayRef<int64_t>{weight.shape()[0]}))
    return ctx.internalError("cannot apply weight " + weight.typeString() +
                             " to " + x.typeString());
  std::vector<int64_t> expected = x.shape().drop_back().vec();
  expected.push_back(weight.shape()[0]);
  if (llvm::Error err = checkResultShape(ctx, *result, expected))
    return err;

  int64_t k = weight.shape()[1], n = weight.shape()[0];
  int64_t rows = 1;
  for (int64_t dim : x.shape().drop_back())
    rows *= dim;
  dispatchNumeric(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using C = typename T::Compute;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        C acc = bias ? read<T>(*bias, j) : C(0);
        for (int64_t p = 0; p < k; ++p)
          acc = multiplyAdd(acc, read<T>(x, r * k + p),
                            read<T>(weight, j * k + p));
        result->store(r * n + j, T::store(acc));
      }
  });
  return singleResult(std::move(*result));
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

/// A gemm factor in the compute type C: rounded to nearest for floats;
/// for integers (where the verifier requires an integral value) converted
/// to the dtype, wrapping like the dtype's arithmetic.
template <class C> C factorIn(double value) {
  if constexpr (std::is_floating_point_v<C>)
    return C(value);
  else
    return C(uint64_t(int64_t(value)));
}

/// The operand a (or b) of gemm read as a' (or b'), transposed or not.
struct GemmOperand {
  const Tensor &tensor;
  bool transposed;

  /// Element (i, j) of the operand as used, a' or b'.
  int64_t index(int64_t i, int64_t j) const {
    int64_t cols = tensor.shape()[1];
    return transposed ? j * cols + i : i * cols + j;
  }
  int64_t rows() const { return tensor.shape()[transposed ? 1 : 0]; }
  int64_t cols() const { return tensor.shape()[transposed ? 0 : 1]; }
};

/// gemm(a, b[, c]) = alpha * a'·b' + beta * c, ONNX Gemm. Like the ONNX
/// reference, a factor of exactly 1 is not applied and any other is, so
/// beta = 0 still propagates NaN and infinity from c.
llvm::Expected<std::vector<Tensor>> evalGemm(const OpEvalContext &ctx) {
  const Node &node = ctx.getNode();
  GemmOperand a{ctx.operand(0), getBoolAttr(node, "trans_a", false)};
  GemmOperand b{ctx.operand(1), getBoolAttr(node, "trans_b", false)};
  const Tensor *c = ctx.numOperands() > 2 ? &ctx.operand(2) : nullptr;
  auto result = ctx.makeResult();
  if (!result)
    return result.takeError();
  if (llvm::Error err = checkDTypes(ctx, *result))
    return err;
  if (a.tensor.rank() != 2 || b.tensor.rank() != 2 || a.cols() != b.rows())
    return ctx.internalError("cannot multiply " + a.tensor.typeString() +
                             " by " + b.tensor.typeString());
  int64_t m = a.rows(), k = a.cols(), n = b.cols();
  if (llvm::Error err = checkResultShape(ctx, *result, {m, n}))
    return err;

  // The element of c that each result element reads (unidirectional
  // broadcast to [M, N]).
  std::vector<int64_t> cIndex;
  if (c) {
    auto walker = BroadcastWalker::create(result->shape(), {c->shape()});
    if (!walker)
      return ctx.internalError(llvm::toString(walker.takeError()));
    for (; !walker->done(); walker->next())
      cIndex.push_back(walker->operandIndex(0));
  }
  double alpha = getFloatAttr(node, "alpha", 1.0);
  double beta = getFloatAttr(node, "beta", 1.0);
  dispatchNumeric(result->dtype(), [&](auto traits) {
    using T = decltype(traits);
    using C = typename T::Compute;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        C acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc = multiplyAdd(acc, read<T>(a.tensor, a.index(i, p)),
                            read<T>(b.tensor, b.index(p, j)));
        if (alpha != 1.0)
          acc = computeMul(factorIn<C>(alpha), acc);
        if (c) {
          C term = read<T>(*c, cIndex[i * n + j]);
          if (beta != 1.0)
            term = computeMul(factorIn<C>(beta), term);
          acc = computeAdd(acc, term);
        }
        result->store(i * n + j, T::store(acc));
      }
  });
  return singleResult(std::move(*result));
}

} // namespace

void txc::registerLinearAlgebraOps(OpEvaluatorTable &table) {
  table.add(OpKind::MatMul, evalMatMul);
  table.add(OpKind::Linear, evalLinear);
  table.add(OpKind::Gemm, evalGemm);
}
