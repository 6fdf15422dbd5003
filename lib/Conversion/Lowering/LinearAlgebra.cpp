//===- LinearAlgebra.cpp - Lowering of matmul, linear and gemm ------------===//
//
// Each op is one contraction into a zero- (or bias-) initialized accumulator:
// a linalg named op (matmul, batch_matmul, matvec, vecmat, dot,
// matmul_transpose_a/b) when one has exactly the op's indexing, after
// merging leading dims into one where that makes one fit, otherwise a
// linalg.generic with a reduction loop whose maps broadcast batch dims, so
// that no broadcast or transpose is ever materialized. f16/bf16 accumulate
// in f32; a final elementwise op scales (gemm) and rounds once.
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"
#include "Accumulation.h"
#include "Views.h"
#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// The indexing of a contraction over `numLoops` loops, the last of which
/// is the reduction.
struct ContractionMaps {
  unsigned numLoops;
  AffineMap lhs, rhs, out;
};

/// A tensor of `type` filled with zero, to accumulate into.
Value zeroTensor(MLIRGen &gen, const TensorType &type, Location at) {
  Value zero = gen.scalar(type.dtype, 0, at);
  Value init = gen.emptyTensor(type, at);
  return gen.builder().create<linalg::FillOp>(at, zero, init).getResult(0);
}

/// out[maps.out] += lhs[maps.lhs] * rhs[maps.rhs], in the element type of
/// `init` (operands are widened to it first).
Value buildGenericContraction(MLIRGen &gen, Location at, Value lhs, Value rhs,
                              const ContractionMaps &maps, Value init) {
  OpBuilder &b = gen.builder();
  SmallVector<utils::IteratorType> iterators(maps.numLoops - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = b.create<linalg::GenericOp>(
      at, TypeRange{init.getType()}, ValueRange{lhs, rhs}, ValueRange{init},
      ArrayRef<AffineMap>{maps.lhs, maps.rhs, maps.out}, iterators,
      [&](OpBuilder &nested, Location l, ValueRange args) {
        Type accType = args[2].getType();
        Value x = convertFloat(nested, l, args[0], accType);
        Value y = convertFloat(nested, l, args[1], accType);
        Value sum = addValues(nested, l, args[2], mulValues(nested, l, x, y));
        nested.create<linalg::YieldOp>(l, sum);
      });
  return generic.getResult(0);
}

/// Creates the named op `NamedOp` accumulating lhs·rhs into `init`.
template <typename NamedOp>
Value buildNamed(MLIRGen &gen, Location at, Value lhs, Value rhs, Value init) {
  return gen.builder()
      .create<NamedOp>(at, TypeRange{init.getType()}, ValueRange{lhs, rhs},
                       ValueRange{init})
      .getResult(0);
}

/// Maps the batch dims `operand` (a suffix-aligned prefix of the result's
/// batch dims `batch`) into loops 0..batch.size()-1; a static 1 broadcast
/// against a larger dim reads index 0.
SmallVector<AffineExpr> batchExprs(MLIRGen &gen,
                                   llvm::ArrayRef<ShapeExpr> operand,
                                   llvm::ArrayRef<ShapeExpr> batch) {
  size_t offset = batch.size() - operand.size();
  SmallVector<AffineExpr> exprs;
  for (size_t i = 0; i < operand.size(); ++i) {
    bool stretched =
        operand[i].getConstant() == 1 && batch[offset + i].getConstant() != 1;
    exprs.push_back(stretched ? gen.builder().getAffineConstantExpr(0)
                              : gen.builder().getAffineDimExpr(offset + i));
  }
  return exprs;
}

/// The generic indexing of torch.matmul: loops are (batch..., m?, n?, k),
/// where m exists when a has rank >= 2 and n when b has rank >= 2.
ContractionMaps matmulMaps(MLIRGen &gen, const TensorType &a,
                           const TensorType &b, const TensorType &result) {
  MLIRContext &ctx = gen.context();
  bool hasM = a.rank() >= 2, hasN = b.rank() >= 2;
  unsigned numBatch = result.rank() - hasM - hasN;
  unsigned m = numBatch, n = numBatch + hasM, k = result.rank();
  llvm::ArrayRef<ShapeExpr> batch(result.shape.data(), numBatch);
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, &ctx); };

  SmallVector<AffineExpr> lhs, rhs;
  if (hasM)
    lhs = batchExprs(gen, llvm::ArrayRef(a.shape).drop_back(2), batch);
  lhs.append(hasM ? SmallVector<AffineExpr>{dim(m), dim(k)}
                  : SmallVector<AffineExpr>{dim(k)});
  if (hasN)
    rhs = batchExprs(gen, llvm::ArrayRef(b.shape).drop_back(2), batch);
  rhs.append(hasN ? SmallVector<AffineExpr>{dim(k), dim(n)}
                  : SmallVector<AffineExpr>{dim(k)});
  AffineMap out = AffineMap::getMultiDimIdentityMap(k + 1, &ctx)
                      .getMajorSubMap(result.rank());
  return {k + 1, AffineMap::get(k + 1, 0, lhs, &ctx),
          AffineMap::get(k + 1, 0, rhs, &ctx), out};
}

/// The groups that merge all but the last `kept` dims of a rank-`rank`
/// tensor into its first dim.
SmallVector<ReassociationIndices> leadingGroups(unsigned rank, unsigned kept) {
  SmallVector<ReassociationIndices> groups(1);
  for (unsigned d = 0; d + kept < rank; ++d)
    groups.front().push_back(d);
  for (unsigned d = rank - kept; d < rank; ++d)
    groups.push_back({d});
  return groups;
}

/// `type` with all but its last `kept` dims merged into one; nullopt when
/// their product does not fit.
std::optional<TensorType> mergeLeading(const TensorType &type, unsigned kept) {
  ShapeExpr lead = ShapeExpr::constant(1);
  for (size_t d = 0; d + kept < type.shape.size(); ++d) {
    std::optional<ShapeExpr> product = ShapeExpr::mul(lead, type.shape[d]);
    if (!product)
      return std::nullopt;
    lead = *product;
  }
  TensorType merged{type.dtype, {lead}};
  merged.shape.insert(merged.shape.end(), type.shape.end() - kept,
                      type.shape.end());
  return merged;
}

/// Rounds the f32 accumulator of an f16/bf16 op to the result dtype.
Value roundToResult(MLIRGen &gen, Location at, Value acc,
                    const TensorType &accType, const TensorType &result) {
  if (accType.dtype == result.dtype)
    return acc;
  Type element = gen.elementType(result.dtype);
  return gen.buildElementwise(at, result, {acc}, {accType},
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                return convertFloat(b, l, args[0], element);
                              });
}

/// lhs·rhs of matmul's 2-D and 3-D forms and the vector forms, as the
/// linalg named op of exactly that indexing, or null.
Value buildNamedMatMul(MLIRGen &gen, Location at, const TensorType &a,
                       const TensorType &b, Value lhs, Value rhs, Value init) {
  if (a.rank() == 2 && b.rank() == 2)
    return buildNamed<linalg::MatmulOp>(gen, at, lhs, rhs, init);
  if (a.rank() == 3 && b.rank() == 3 && a.shape[0] == b.shape[0])
    return buildNamed<linalg::BatchMatmulOp>(gen, at, lhs, rhs, init);
  if (a.rank() == 2 && b.rank() == 1)
    return buildNamed<linalg::MatvecOp>(gen, at, lhs, rhs, init);
  if (a.rank() == 1 && b.rank() == 2)
    return buildNamed<linalg::VecmatOp>(gen, at, lhs, rhs, init);
  if (a.rank() == 1 && b.rank() == 1)
    return buildNamed<linalg::DotOp>(gen, at, lhs, rhs, init);
  return nullptr;
}

/// The number of trailing dims matmul keeps when the leading dims of both
/// operands are merged into one: 1 for [lead..., m, k]·[k, n] (more rows of
/// one matmul), 2 for equal batch dims of rank >= 4 (one batch dim); 0 when
/// the operands do not have such a form.
unsigned keptDimsOfMergedMatMul(const TensorType &a, const TensorType &b) {
  if (a.rank() >= 3 && b.rank() == 2)
    return 1;
  if (a.rank() >= 4 && a.rank() == b.rank() &&
      std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin()))
    return 2;
  return 0;
}

FailureOr<SmallVector<Value>> lowerMatMul(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  TensorType a = lowering.operandTypes[0], b = lowering.operandTypes[1];
  const TensorType &result = lowering.resultType();
  Location at = lowering.loc;
  Value lhs = lowering.operands[0], rhs = lowering.operands[1];
  // Leading dims are merged into one (views, no copies), so that the
  // contraction is a named matmul or batch_matmul, which the matmul
  // strategy (lib/Pipeline/TileMatmul.cpp) tiles and packs; a generic
  // contraction is only vectorized as it is.
  TensorType product = result;
  if (unsigned kept = keptDimsOfMergedMatMul(a, b)) {
    std::optional<TensorType> mergedA = mergeLeading(a, kept);
    std::optional<TensorType> mergedB = kept == 2 ? mergeLeading(b, kept) : b;
    std::optional<TensorType> mergedResult = mergeLeading(result, kept);
    if (mergedA && mergedB && mergedResult) {
      lhs = collapseView(gen, at, lhs, *mergedA, leadingGroups(a.rank(), kept));
      if (kept == 2)
        rhs = collapseView(gen, at, rhs, *mergedB,
                           leadingGroups(b.rank(), kept));
      a = *mergedA;
      b = *mergedB;
      product = *mergedResult;
    }
  }
  TensorType accType{accumulatorDType(result.dtype), product.shape};
  Value init = zeroTensor(gen, accType, at);
  Value acc = buildNamedMatMul(gen, at, a, b, lhs, rhs, init);
  if (!acc)
    acc = buildGenericContraction(gen, at, lhs, rhs,
                                  matmulMaps(gen, a, b, product), init);
  Value value = roundToResult(gen, at, acc, accType, product);
  if (product.shape != result.shape)
    value = expandView(gen, at, value, result,
                       leadingGroups(result.rank(), product.rank() - 1));
  return SmallVector<Value>{value};
}

/// linear: y[..., n] = bias[n] + sum_k x[..., k] * weight[n, k]. The bias
/// (widened to the accumulator) is the contraction's initial value.
FailureOr<SmallVector<Value>> lowerLinear(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  TensorType x = lowering.operandTypes[0];
  const TensorType &result = lowering.resultType();
  Location at = lowering.loc;
  Value input = lowering.operands[0], weight = lowering.operands[1];
  // Leading dims are more rows of one matmul (as in lowerMatMul).
  TensorType product = result;
  if (x.rank() >= 3) {
    std::optional<TensorType> rows = mergeLeading(x, 1);
    std::optional<TensorType> mergedResult = mergeLeading(result, 1);
    if (rows && mergedResult) {
      input = collapseView(gen, at, input, *rows, leadingGroups(x.rank(), 1));
      x = *rows;
      product = *mergedResult;
    }
  }
  TensorType accType{accumulatorDType(result.dtype), product.shape};
  Value init;
  if (lowering.operands.size() == 3) {
    Type accElement = gen.elementType(accType.dtype);
    init = gen.buildElementwise(
        at, accType, {lowering.operands[2]}, {lowering.operandTypes[2]},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return convertFloat(b, l, args[0], accElement);
        });
  } else {
    init = zeroTensor(gen, accType, at);
  }
  Value acc;
  if (x.rank() == 2) {
    acc = buildNamed<linalg::MatmulTransposeBOp>(gen, at, input, weight, init);
  } else {
    // Loops (lead..., n, k): x[lead..., k], weight[n, k], y[lead..., n].
    MLIRContext &ctx = gen.context();
    unsigned n = x.rank() - 1, k = x.rank();
    SmallVector<AffineExpr> xExprs;
    for (unsigned i = 0; i < n; ++i)
      xExprs.push_back(getAffineDimExpr(i, &ctx));
    xExprs.push_back(getAffineDimExpr(k, &ctx));
    ContractionMaps maps{
        k + 1, AffineMap::get(k + 1, 0, xExprs, &ctx),
        AffineMap::get(k + 1, 0,
                       {getAffineDimExpr(n, &ctx), getAffineDimExpr(k, &ctx)},
                       &ctx),
        AffineMap::getMultiDimIdentityMap(k + 1, &ctx).getMajorSubMap(k)};
    acc = buildGenericContraction(gen, at, input, weight, maps, init);
  }
  Value value = roundToResult(gen, at, acc, accType, product);
  if (product.shape != result.shape)
    value = expandView(gen, at, value, result,
                       leadingGroups(result.rank(), 1));
  return SmallVector<Value>{value};
}

/// The product a'·b' of gemm, accumulated from zero.
Value gemmProduct(MLIRGen &gen, const NodeLowering &lowering,
                  const TensorType &accType) {
  bool transA = getBoolAttr(lowering.node, "trans_a", false);
  bool transB = getBoolAttr(lowering.node, "trans_b", false);
  Location at = lowering.loc;
  Value a = lowering.operands[0], b = lowering.operands[1];
  Value init = zeroTensor(gen, accType, at);
  if (!transA && !transB)
    return buildNamed<linalg::MatmulOp>(gen, at, a, b, init);
  if (!transA)
    return buildNamed<linalg::MatmulTransposeBOp>(gen, at, a, b, init);
  if (!transB)
    return buildNamed<linalg::MatmulTransposeAOp>(gen, at, a, b, init);
  // Loops (m, n, k): a[k, m], b[n, k], y[m, n].
  MLIRContext &ctx = gen.context();
  AffineExpr m = getAffineDimExpr(0, &ctx), n = getAffineDimExpr(1, &ctx),
             k = getAffineDimExpr(2, &ctx);
  ContractionMaps maps{3, AffineMap::get(3, 0, {k, m}, &ctx),
                       AffineMap::get(3, 0, {n, k}, &ctx),
                       AffineMap::get(3, 0, {m, n}, &ctx)};
  return buildGenericContraction(gen, at, a, b, maps, init);
}

/// gemm: y = alpha * a'·b' + beta * c. The scaling, the broadcast of c and
/// the rounding of f16/bf16 are one elementwise op after the contraction;
/// a factor of 1 is not multiplied, anything else is (so beta = 0 still
/// propagates NaN and infinity in c, like the ONNX reference).
FailureOr<SmallVector<Value>> lowerGemm(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  const TensorType &result = lowering.resultType();
  TensorType accType{accumulatorDType(result.dtype), result.shape};
  Location at = lowering.loc;
  Value acc = gemmProduct(gen, lowering, accType);
  double alpha = getFloatAttr(lowering.node, "alpha", 1.0);
  double beta = getFloatAttr(lowering.node, "beta", 1.0);
  bool hasC = lowering.operands.size() == 3;
  if (alpha == 1.0 && !hasC)
    return SmallVector<Value>{roundToResult(gen, at, acc, accType, result)};

  SmallVector<Value> operands{acc};
  SmallVector<TensorType> operandTypes{accType};
  if (hasC) {
    operands.push_back(lowering.operands[2]);
    operandTypes.push_back(lowering.operandTypes[2]);
  }
  Value alphaValue =
      alpha != 1.0 ? gen.scalar(accType.dtype, alpha, at) : Value();
  Value betaValue =
      hasC && beta != 1.0 ? gen.scalar(accType.dtype, beta, at) : Value();
  Type accElement = gen.elementType(accType.dtype);
  Type resultElement = gen.elementType(result.dtype);
  Value y =
      gen.buildElementwise(at, result, operands, operandTypes,
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             Value value = args[0];
                             if (alphaValue)
                               value = mulValues(b, l, alphaValue, value);
                             if (hasC) {
                               Value c =
                                   convertFloat(b, l, args[1], accElement);
                               if (betaValue)
                                 c = mulValues(b, l, betaValue, c);
                               value = addValues(b, l, value, c);
                             }
                             return convertFloat(b, l, value, resultElement);
                           });
  return SmallVector<Value>{y};
}

} // namespace

void registerLinearAlgebraLowerings(LoweringTable &table) {
  table.add(OpKind::MatMul, lowerMatMul);
  table.add(OpKind::Linear, lowerLinear);
  table.add(OpKind::Gemm, lowerGemm);
}

} // namespace txc
