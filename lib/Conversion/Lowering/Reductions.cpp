//===- Reductions.cpp - Lowering of reductions and normalizations ---------===//
//
// Every reduction is a linalg.generic with reduction iterators that writes
// the reduced shape (the reduced dims removed); keepdims then inserts the
// unit dims with tensor.expand_shape. Softmax and the norms are written as
// their mathematical steps (max-reduce, exp, sum-reduce, divide; mean,
// variance, scale) so that later passes can fuse them; each step reads the
// reduced tensors it needs through indexing maps, never through a
// materialized broadcast. f16/bf16 are computed in f32 and rounded once.
// cumsum, whose every element depends on the ones before it, is an scf.for
// along its axis (lowerCumSum); topk an scf.for of k selection steps
// (lowerTopK).
//
//===----------------------------------------------------------------------===//
#include "../MLIRGen.h"
#include "Accumulation.h"
#include "Views.h"
#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

using BodyFn =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// The iteration space of a reduction: the operand's dims, of which `axes`
/// (sorted) are reduced.
struct ReductionSpace {
  TensorType full;
  SmallVector<unsigned> axes;

  bool isReduced(unsigned dim) const { return llvm::is_contained(axes, dim); }

  /// The type of the result: the shape without the reduced dims.
  TensorType reduced(DType dtype) const {
    TensorType type{dtype, {}};
    for (unsigned d = 0; d < full.rank(); ++d)
      if (!isReduced(d))
        type.shape.push_back(full.shape[d]);
    return type;
  }

  AffineMap identityMap(MLIRContext &ctx) const {
    return AffineMap::getMultiDimIdentityMap(full.rank(), &ctx);
  }

  /// Reads a tensor of the reduced shape in the full iteration space.
  AffineMap reducedMap(MLIRContext &ctx) const {
    SmallVector<AffineExpr> exprs;
    for (unsigned d = 0; d < full.rank(); ++d)
      if (!isReduced(d))
        exprs.push_back(getAffineDimExpr(d, &ctx));
    return AffineMap::get(full.rank(), 0, exprs, &ctx);
  }

  /// Reads a tensor of the trailing `count` dims in the full space.
  AffineMap trailingMap(MLIRContext &ctx, unsigned count) const {
    return AffineMap::getMinorIdentityMap(full.rank(), count, &ctx);
  }
};

/// The axes an `axes` attribute names (verified), sorted; every axis when
/// it is absent.
SmallVector<unsigned> readAxes(const Node &node, unsigned rank) {
  SmallVector<unsigned> axes;
  if (!hasAttr(node, "axes")) {
    for (unsigned d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  for (int64_t axis : getIntListAttr(node, "axes"))
    axes.push_back(*normalizeAxis(axis, rank));
  llvm::sort(axes);
  return axes;
}

/// A tensor of `type` filled with the scalar `value`.
Value filledTensor(MLIRGen &gen, const TensorType &type, Value value,
                   Location at) {
  Value init = gen.emptyTensor(type, at);
  return gen.builder().create<linalg::FillOp>(at, value, init).getResult(0);
}

/// A linalg.generic over `space` with the given inputs and maps, reducing
/// into accumulators of the reduced shape, one per entry of `inits` (a
/// scalar start value and its dtype). `combine` gets the input elements
/// followed by the accumulators and returns the new accumulators.
SmallVector<Value> buildReduction(MLIRGen &gen, Location at,
                                  const ReductionSpace &space,
                                  ValueRange inputs, ArrayRef<AffineMap> maps,
                                  ArrayRef<std::pair<Value, DType>> inits,
                                  BodyFn combine) {
  MLIRContext &ctx = gen.context();
  SmallVector<Value> outputs;
  SmallVector<Type> types;
  SmallVector<AffineMap> allMaps(maps);
  for (auto [value, dtype] : inits) {
    TensorType type = space.reduced(dtype);
    outputs.push_back(filledTensor(gen, type, value, at));
    types.push_back(gen.tensorType(type));
    allMaps.push_back(space.reducedMap(ctx));
  }
  SmallVector<utils::IteratorType> iterators;
  for (unsigned d = 0; d < space.full.rank(); ++d)
    iterators.push_back(space.isReduced(d) ? utils::IteratorType::reduction
                                           : utils::IteratorType::parallel);
  auto generic = gen.builder().create<linalg::GenericOp>(
      at, types, inputs, outputs, allMaps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        b.create<linalg::YieldOp>(l, combine(b, l, args));
      });
  return SmallVector<Value>(generic.getResults());
}

/// One reduction with one accumulator.
Value buildReduction(
    MLIRGen &gen, Location at, const ReductionSpace &space, ValueRange inputs,
    ArrayRef<AffineMap> maps, Value init, DType accDType,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> combine) {
  return buildReduction(gen, at, space, inputs, maps, {{init, accDType}},
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          return SmallVector<Value>{combine(b, l, args)};
                        })[0];
}

/// A parallel linalg.generic producing `resultType`, whose iteration space
/// is the result's; each input is read through its map.
Value buildMap(
    MLIRGen &gen, Location at, const TensorType &resultType, ValueRange inputs,
    ArrayRef<AffineMap> maps,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(
      AffineMap::getMultiDimIdentityMap(resultType.rank(), &gen.context()));
  SmallVector<utils::IteratorType> iterators(resultType.rank(),
                                             utils::IteratorType::parallel);
  auto generic = gen.builder().create<linalg::GenericOp>(
      at, TypeRange{gen.tensorType(resultType)}, inputs,
      ValueRange{gen.emptyTensor(resultType, at)}, allMaps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        b.create<linalg::YieldOp>(l, body(b, l, args.drop_back()));
      });
  return generic.getResult(0);
}

/// Inserts the reduced dims of `kept` (the keepdims result type, whose
/// `axes` are 1) into `value`, which has the shape without them.
Value expandReducedDims(MLIRGen &gen, Location at, Value value,
                        const TensorType &kept, ArrayRef<unsigned> axes) {
  // Each kept dim forms a group with the unit dims after it; unit dims
  // before the first kept dim join its group. A rank-0 source has no groups.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (unsigned d = 0; d < kept.rank(); ++d) {
    if (!llvm::is_contained(axes, d)) {
      groups.push_back(leading);
      groups.back().push_back(d);
      leading.clear();
    } else if (groups.empty()) {
      leading.push_back(d);
    } else {
      groups.back().push_back(d);
    }
  }
  SmallVector<OpFoldResult> sizes;
  for (const ShapeExpr &dim : kept.shape) {
    if (auto constant = dim.getConstant())
      sizes.push_back(gen.builder().getIndexAttr(*constant));
    else
      sizes.push_back(gen.dimValue(dim, at));
  }
  return gen.builder().create<tensor::ExpandShapeOp>(at, gen.tensorType(kept),
                                                     value, groups, sizes);
}

/// The number of elements reduced into each result element, as a float of
/// `type`: a constant, or computed from the symbols at run time.
Value reducedCount(MLIRGen &gen, Location at, const ReductionSpace &space,
                   Type type) {
  OpBuilder &b = gen.builder();
  ShapeExpr count = ShapeExpr::constant(1);
  for (unsigned axis : space.axes)
    count = *ShapeExpr::mul(count, space.full.shape[axis]);
  if (auto constant = count.getConstant())
    return b.create<arith::ConstantOp>(at, b.getFloatAttr(type, *constant));
  Value size =
      b.create<arith::IndexCastOp>(at, b.getI64Type(), gen.dimValue(count, at));
  return b.create<arith::SIToFPOp>(at, type, size);
}

//===----------------------------------------------------------------------===//
// sum, mean, max, min, prod
//===----------------------------------------------------------------------===//

/// The start value of a reduction: 0 (sum, mean), 1 (prod), the lowest
/// value (max) or the highest (min) of the element type.
Value identityValue(OpBuilder &b, Location at, Type type, DType dtype,
                    OpKind kind) {
  bool isMax = kind == OpKind::ReduceMax || kind == OpKind::ArgMax;
  bool isMin = kind == OpKind::ReduceMin || kind == OpKind::ArgMin;
  if (!isMax && !isMin) {
    bool one = kind == OpKind::ReduceProd;
    return b.create<arith::ConstantOp>(at, one ? b.getOneAttr(type)
                                               : b.getZeroAttr(type));
  }
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        at, b.getFloatAttr(type, APFloat::getInf(floatType.getFloatSemantics(),
                                                 /*Negative=*/isMax)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = isUnsigned(dtype) ? (isMax ? APInt::getMinValue(width)
                                           : APInt::getMaxValue(width))
                                  : (isMax ? APInt::getSignedMinValue(width)
                                           : APInt::getSignedMaxValue(width));
  return b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, value));
}

/// Combines an element into the accumulator. max/min propagate NaN.
Value combineElement(OpBuilder &b, Location at, OpKind kind, DType dtype,
                     Value x, Value acc) {
  bool floating = isFloatValue(x), isUnsigned = txc::isUnsigned(dtype);
  switch (kind) {
  case OpKind::ReduceSum:
  case OpKind::ReduceMean:
    return addValues(b, at, acc, x);
  case OpKind::ReduceProd:
    return mulValues(b, at, acc, x);
  case OpKind::ReduceMax:
    if (floating)
      return b.create<arith::MaximumFOp>(at, acc, x);
    if (isUnsigned)
      return b.create<arith::MaxUIOp>(at, acc, x);
    return b.create<arith::MaxSIOp>(at, acc, x);
  case OpKind::ReduceMin:
    if (floating)
      return b.create<arith::MinimumFOp>(at, acc, x);
    if (isUnsigned)
      return b.create<arith::MinUIOp>(at, acc, x);
    return b.create<arith::MinSIOp>(at, acc, x);
  default:
    llvm_unreachable("not a reduction");
  }
}

FailureOr<SmallVector<Value>> lowerReduce(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  const Node &node = lowering.node;
  const TensorType &type = lowering.operandTypes[0];
  Location at = lowering.loc;
  ReductionSpace space{type, readAxes(node, type.rank())};
  // max and min are exact in the operand's dtype.
  bool accumulates = node.kind == OpKind::ReduceSum ||
                     node.kind == OpKind::ReduceMean ||
                     node.kind == OpKind::ReduceProd;
  DType accDType = accumulates ? accumulatorDType(type.dtype) : type.dtype;
  Type accType = gen.elementType(accDType);
  Value init = identityValue(gen.builder(), at, accType, type.dtype, node.kind);
  Value acc = buildReduction(
      gen, at, space, lowering.operands[0], space.identityMap(gen.context()),
      init, accDType, [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = convertFloat(b, l, args[0], accType);
        return combineElement(b, l, node.kind, type.dtype, x, args[1]);
      });

  TensorType reduced = space.reduced(type.dtype);
  Value result = acc;
  if (node.kind == OpKind::ReduceMean || accDType != type.dtype) {
    // mean divides by the element count (NaN for zero elements, like
    // PyTorch); f16/bf16 round once here.
    Value count = node.kind == OpKind::ReduceMean
                      ? reducedCount(gen, at, space, accType)
                      : Value();
    Type element = gen.elementType(type.dtype);
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(reduced.rank(), &gen.context());
    result = buildMap(gen, at, reduced, acc, identity,
                      [&](OpBuilder &b, Location l, ValueRange args) {
                        Value value = args[0];
                        if (count)
                          value = b.create<arith::DivFOp>(l, value, count);
                        return convertFloat(b, l, value, element);
                      });
  }
  // A rank-0 operand has no axes to keep.
  if (getBoolAttr(node, "keepdims", false) && !space.axes.empty())
    result =
        expandReducedDims(gen, at, result, lowering.resultType(), space.axes);
  return SmallVector<Value>{result};
}

//===----------------------------------------------------------------------===//
// argmax, argmin
//===----------------------------------------------------------------------===//

/// Whether the candidate (x, j) replaces the current best (v, i). The order
/// is total and independent of the visiting order: a larger (argmax) or
/// smaller (argmin) value wins, equal values go to the lower index (the
/// higher one with `selectLast`), and NaN beats every number (like PyTorch,
/// for both argmax and argmin).
Value takesOver(OpBuilder &b, Location at, bool isMax, bool isUnsigned,
                bool selectLast, Value x, Value j, Value v, Value i) {
  // Whether index j beats index i when the values are equal.
  Value winsTie = b.create<arith::CmpIOp>(
      at, selectLast ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
      j, i);
  if (!isFloatValue(x)) {
    arith::CmpIPredicate better =
        isUnsigned
            ? (isMax ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult)
            : (isMax ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt);
    Value wins = b.create<arith::CmpIOp>(at, better, x, v);
    Value ties = b.create<arith::AndIOp>(
        at, b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, x, v),
        winsTie);
    return b.create<arith::OrIOp>(at, wins, ties);
  }
  // Ordered comparisons are false when either side is NaN.
  Value wins = b.create<arith::CmpFOp>(
      at, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, v);
  Value ties = b.create<arith::AndIOp>(
      at, b.create<arith::CmpFOp>(at, arith::CmpFPredicate::OEQ, x, v),
      winsTie);
  Value xIsNaN = b.create<arith::CmpFOp>(at, arith::CmpFPredicate::UNO, x, x);
  Value vIsNaN = b.create<arith::CmpFOp>(at, arith::CmpFPredicate::UNO, v, v);
  Value trueValue = b.create<arith::ConstantOp>(at, b.getBoolAttr(true));
  Value vIsNumber = b.create<arith::XOrIOp>(at, vIsNaN, trueValue);
  // x NaN: wins over a number, or over a NaN at a higher index.
  Value nanCase = b.create<arith::OrIOp>(at, vIsNumber, winsTie);
  // x a number: wins only over a number.
  Value numberCase = b.create<arith::AndIOp>(
      at, vIsNumber, b.create<arith::OrIOp>(at, wins, ties));
  return b.create<arith::SelectOp>(at, xIsNaN, nanCase, numberCase);
}

/// Flattens `value` of `type` to one dim (row-major), for argmax without an
/// axis.
std::pair<Value, TensorType> flatten(MLIRGen &gen, Location at, Value value,
                                     const TensorType &type) {
  ShapeExpr count = ShapeExpr::constant(1);
  for (const ShapeExpr &dim : type.shape)
    count = *ShapeExpr::mul(count, dim);
  TensorType flat{type.dtype, {count}};
  if (type.rank() == 1)
    return {value, flat};
  ReassociationIndices all;
  for (unsigned d = 0; d < type.rank(); ++d)
    all.push_back(d);
  Value collapsed = gen.builder().create<tensor::CollapseShapeOp>(
      at, gen.tensorType(flat), value, ArrayRef<ReassociationIndices>{all});
  return {collapsed, flat};
}

FailureOr<SmallVector<Value>> lowerArgReduce(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  const Node &node = lowering.node;
  const TensorType &type = lowering.operandTypes[0];
  const TensorType &result = lowering.resultType();
  Location at = lowering.loc;
  OpBuilder &builder = gen.builder();
  bool isMax = node.kind == OpKind::ArgMax;
  if (type.rank() == 0) // the only element
    return SmallVector<Value>{
        filledTensor(gen, result, gen.scalar(DType::I64, 0, at), at)};

  Value input = lowering.operands[0];
  ReductionSpace space{type, {}};
  SmallVector<unsigned> keptAxes;
  if (hasAttr(node, "axis")) {
    space.axes.push_back(
        *normalizeAxis(getIntAttr(node, "axis", 0), type.rank()));
    keptAxes = space.axes;
  } else {
    std::tie(input, space.full) = flatten(gen, at, input, type);
    space.axes.push_back(0);
    for (unsigned d = 0; d < type.rank(); ++d)
      keptAxes.push_back(d);
  }
  Type element = gen.elementType(type.dtype);
  Value start = identityValue(builder, at, element, type.dtype, node.kind);
  Value zero = gen.scalar(DType::I64, 0, at);
  unsigned axis = space.axes[0];
  bool isUnsigned = txc::isUnsigned(type.dtype);
  bool selectLast = getBoolAttr(node, "select_last_index", false);
  SmallVector<Value> reduced = buildReduction(
      gen, at, space, input, space.identityMap(gen.context()),
      {{start, type.dtype}, {zero, DType::I64}},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = args[0], v = args[1], i = args[2];
        Value j = b.create<arith::IndexCastOp>(
            l, b.getI64Type(), b.create<linalg::IndexOp>(l, axis));
        Value take =
            takesOver(b, l, isMax, isUnsigned, selectLast, x, j, v, i);
        return SmallVector<Value>{b.create<arith::SelectOp>(l, take, x, v),
                                  b.create<arith::SelectOp>(l, take, j, i)};
      });
  Value indices = reduced[1];
  if (getBoolAttr(node, "keepdims", false))
    indices = expandReducedDims(gen, at, indices, result, keptAxes);
  return SmallVector<Value>{indices};
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

/// Whether (a, i) comes before (c, j) in topk's order: a larger value first
/// (a smaller one unless `largest`), NaN larger than every number and equal
/// to NaN, -0 equal to +0, equal values by the lower index. Indices differ,
/// so the order is strict and total.
Value comesBefore(OpBuilder &b, Location at, bool largest, bool isUnsigned,
                  Value a, Value i, Value c, Value j) {
  Value first, equal;
  if (!isFloatValue(a)) {
    arith::CmpIPredicate order =
        isUnsigned
            ? (largest ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult)
            : (largest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt);
    first = b.create<arith::CmpIOp>(at, order, a, c);
    equal = b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, a, c);
  } else {
    // Ordered comparisons are false when either side is NaN.
    Value aIsNaN = b.create<arith::CmpFOp>(at, arith::CmpFPredicate::UNO, a, a);
    Value cIsNaN = b.create<arith::CmpFOp>(at, arith::CmpFPredicate::UNO, c, c);
    Value ordered = b.create<arith::CmpFOp>(
        at, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a,
        c);
    // The NaN goes first when largest, the number otherwise.
    Value nan = largest ? aIsNaN : cIsNaN, number = largest ? cIsNaN : aIsNaN;
    Value trueValue = b.create<arith::ConstantOp>(at, b.getBoolAttr(true));
    Value nanFirst = b.create<arith::AndIOp>(
        at, nan, b.create<arith::XOrIOp>(at, number, trueValue));
    first = b.create<arith::OrIOp>(at, ordered, nanFirst);
    Value equalNumbers =
        b.create<arith::CmpFOp>(at, arith::CmpFPredicate::OEQ, a, c);
    Value bothNaN = b.create<arith::AndIOp>(at, aIsNaN, cIsNaN);
    equal = b.create<arith::OrIOp>(at, equalNumbers, bothNaN);
  }
  Value lowerIndex =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::slt, i, j);
  Value tie = b.create<arith::AndIOp>(at, equal, lowerIndex);
  return b.create<arith::OrIOp>(at, first, tie);
}

/// topk by k selection steps: an scf.for over r in [0, k) whose step is one
/// reduction along the axis (a linalg.generic like argmax's, all rows in
/// parallel) that finds, in every row, the first element in topk's order
/// after the one step r-1 found; it inserts that value and index at r of
/// the results. The order is total, so no element is taken twice and no
/// mask is needed, and each reduction's result does not depend on the
/// visiting order: O(n*k) comparisons per row, any shape, no sort buffer.
/// Index -1 stands for "none yet" (the previous element of step 0, the best
/// so far before the first element). The loop carries the two results,
/// updated in place, and the previous step's values and indices (rows of
/// the operand without the axis), which bufferization copies once per step:
/// O(rows) next to the step's O(rows*n) comparisons.
FailureOr<SmallVector<Value>> lowerTopK(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  const Node &node = lowering.node;
  const TensorType &type = lowering.operandTypes[0];
  Location at = lowering.loc;
  OpBuilder &b = gen.builder();
  unsigned axis = *normalizeAxis(getIntAttr(node, "axis", -1), type.rank());
  int64_t k = getIntAttr(node, "k", 0);
  bool largest = getBoolAttr(node, "largest", true);
  bool isUnsigned = txc::isUnsigned(type.dtype);
  ReductionSpace space{type, {axis}};
  TensorType rowType = space.reduced(type.dtype);
  TensorType sliceType = type; // one element along the axis
  sliceType.shape[axis] = ShapeExpr::constant(1);
  Type element = gen.elementType(type.dtype);
  Value zero = b.create<arith::ConstantOp>(at, b.getZeroAttr(element));
  Value none = gen.scalar(DType::I64, -1, at);

  Value prevValues = filledTensor(gen, rowType, zero, at);
  Value prevIndices = filledTensor(gen, space.reduced(DType::I64), none, at);
  Value lower = b.create<arith::ConstantIndexOp>(at, 0);
  Value upper = b.create<arith::ConstantIndexOp>(at, k);
  Value step = b.create<arith::ConstantIndexOp>(at, 1);
  auto loop = b.create<scf::ForOp>(
      at, lower, upper, step,
      ValueRange{gen.emptyTensor(lowering.resultType(0), at),
                 gen.emptyTensor(lowering.resultType(1), at), prevValues,
                 prevIndices});

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value r = loop.getInductionVar();
  MLIRContext &ctx = gen.context();
  SmallVector<Value> inputs{lowering.operands[0], loop.getRegionIterArg(2),
                           loop.getRegionIterArg(3)};
  SmallVector<Value> best = buildReduction(
      gen, at, space, inputs,
      {space.identityMap(ctx), space.reducedMap(ctx), space.reducedMap(ctx)},
      {{zero, type.dtype}, {none, DType::I64}},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0], pv = args[1], pi = args[2], bv = args[3],
              bi = args[4];
        Value j = nb.create<arith::IndexCastOp>(
            l, nb.getI64Type(), nb.create<linalg::IndexOp>(l, axis));
        Value zeroIndex = gen.scalar(nb, DType::I64, 0, l);
        auto isNone = [&](Value index) {
          return nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, index,
                                          zeroIndex);
        };
        // Statements, not nested calls, so that the IR's order does not
        // depend on the compiler's order of evaluating arguments.
        Value first = isNone(pi);
        Value after = comesBefore(nb, l, largest, isUnsigned, pv, pi, x, j);
        Value eligible = nb.create<arith::OrIOp>(l, first, after);
        Value noBest = isNone(bi);
        Value before = comesBefore(nb, l, largest, isUnsigned, x, j, bv, bi);
        Value better = nb.create<arith::OrIOp>(l, noBest, before);
        Value take = nb.create<arith::AndIOp>(l, eligible, better);
        return SmallVector<Value>{nb.create<arith::SelectOp>(l, take, x, bv),
                                  nb.create<arith::SelectOp>(l, take, j, bi)};
      });

  SmallVector<OpFoldResult> offsets(type.rank(), b.getIndexAttr(0));
  offsets[axis] = r;
  SmallVector<OpFoldResult> sizes = foldResults(gen, sliceType.shape, at);
  SmallVector<OpFoldResult> strides(type.rank(), b.getIndexAttr(1));
  SmallVector<Value> next;
  for (unsigned i = 0; i < 2; ++i) {
    TensorType slice{i ? DType::I64 : type.dtype, sliceType.shape};
    Value expanded = expandReducedDims(gen, at, best[i], slice, {axis});
    next.push_back(b.create<tensor::InsertSliceOp>(
        at, expanded, loop.getRegionIterArg(i), offsets, sizes, strides));
  }
  b.create<scf::YieldOp>(at, ValueRange{next[0], next[1], best[0], best[1]});
  return SmallVector<Value>{loop.getResult(0), loop.getResult(1)};
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

/// max over the space of the operand widened to `accType` (NaN propagates).
Value reduceMax(MLIRGen &gen, Location at, const ReductionSpace &space,
                Value input, DType accDType) {
  Type accType = gen.elementType(accDType);
  Value init =
      identityValue(gen.builder(), at, accType, accDType, OpKind::ReduceMax);
  return buildReduction(gen, at, space, input, space.identityMap(gen.context()),
                        init, accDType,
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          Value x = convertFloat(b, l, args[0], accType);
                          return b.create<arith::MaximumFOp>(l, args[1], x);
                        });
}

/// What softmax and log_softmax share: the space reduced along `axis`, the
/// accumulator type, and the maximum along the axis, which both subtract
/// before exp so that it cannot overflow.
struct ShiftedExp {
  ShiftedExp(MLIRGen &gen, const NodeLowering &lowering)
      : type(lowering.operandTypes[0]),
        at(lowering.loc), space{type,
                                {*normalizeAxis(
                                    getIntAttr(lowering.node, "axis", -1),
                                    type.rank())}},
        accDType(accumulatorDType(type.dtype)),
        accType(gen.elementType(accDType)), x(lowering.operands[0]),
        full(space.identityMap(gen.context())),
        reduced(space.reducedMap(gen.context())),
        max(reduceMax(gen, at, space, x, accDType)) {}

  const TensorType &type;
  Location at;
  ReductionSpace space;
  DType accDType;
  Type accType;
  Value x;
  AffineMap full, reduced;
  Value max;
};

/// softmax(x) = exp(x - max) / sum(exp(x - max)), along `axis`.
FailureOr<SmallVector<Value>> lowerSoftmax(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  ShiftedExp e(gen, lowering);
  Value exps = buildMap(
      gen, e.at, TensorType{e.accDType, e.type.shape}, {e.x, e.max},
      {e.full, e.reduced}, [&](OpBuilder &b, Location l, ValueRange args) {
        Value value = convertFloat(b, l, args[0], e.accType);
        Value shifted = b.create<arith::SubFOp>(l, value, args[1]);
        return b.create<math::ExpOp>(l, shifted);
      });
  Value zero = gen.scalar(e.accDType, 0, e.at);
  Value sum = buildReduction(gen, e.at, e.space, exps, e.full, zero, e.accDType,
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               return addValues(b, l, args[1], args[0]);
                             });
  // One division per row, then a multiply per element: vector divisions
  // (one per 5 cycles on Zen 4) bound the last pass over the row, and the
  // multiply made the [4096,1024] softmax 13% faster. e * (1/sum) rounds
  // twice: within 1.5 ulp of the quotient instead of 0.5 (docs/ops.md). A
  // residual step with two FMAs, which restores the rounded quotient, gave
  // back all but 1% of the gain.
  TensorType reducedType = e.space.reduced(e.accDType);
  Value one = gen.scalar(e.accDType, 1, e.at);
  Value reciprocal = buildMap(
      gen, e.at, reducedType, sum,
      AffineMap::getMultiDimIdentityMap(reducedType.rank(), &gen.context()),
      [&](OpBuilder &b, Location l, ValueRange args) {
        return b.create<arith::DivFOp>(l, one, args[0]);
      });
  Type element = gen.elementType(e.type.dtype);
  Value y = buildMap(gen, e.at, e.type, {exps, reciprocal},
                     {e.full, e.reduced},
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value q = b.create<arith::MulFOp>(l, args[0], args[1]);
                       return convertFloat(b, l, q, element);
                     });
  return SmallVector<Value>{y};
}

/// log_softmax(x) = (x - max) - log(sum(exp(x - max))), along `axis`.
FailureOr<SmallVector<Value>> lowerLogSoftmax(MLIRGen &gen,
                                              const NodeLowering &lowering) {
  ShiftedExp e(gen, lowering);
  Value zero = gen.scalar(e.accDType, 0, e.at);
  Value sum = buildReduction(
      gen, e.at, e.space, {e.x, e.max}, {e.full, e.reduced}, zero, e.accDType,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value value = convertFloat(b, l, args[0], e.accType);
        Value shifted = b.create<arith::SubFOp>(l, value, args[1]);
        return addValues(b, l, args[2], b.create<math::ExpOp>(l, shifted));
      });
  Type element = gen.elementType(e.type.dtype);
  Value y = buildMap(
      gen, e.at, e.type, {e.x, e.max, sum}, {e.full, e.reduced, e.reduced},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value value = convertFloat(b, l, args[0], e.accType);
        Value shifted = b.create<arith::SubFOp>(l, value, args[1]);
        Value logSum = b.create<math::LogOp>(l, args[2]);
        Value r = b.create<arith::SubFOp>(l, shifted, logSum);
        return convertFloat(b, l, r, element);
      });
  return SmallVector<Value>{y};
}

//===----------------------------------------------------------------------===//
// layer_norm, rms_norm
//===----------------------------------------------------------------------===//

/// The space of a norm: the trailing `normalized_ndim` dims are reduced.
ReductionSpace normSpace(const NodeLowering &lowering) {
  const TensorType &type = lowering.operandTypes[0];
  int64_t ndim = getIntAttr(lowering.node, "normalized_ndim", 1);
  ReductionSpace space{type, {}};
  for (unsigned d = type.rank() - ndim; d < type.rank(); ++d)
    space.axes.push_back(d);
  return space;
}

/// 1 / sqrt(sum / count + eps) on the reduced shape: the reciprocal
/// standard deviation of the norms. (math.rsqrt has no scalar lowering to
/// LLVM in MLIR 19; 1/sqrt is also what PyTorch computes.)
Value reciprocalDeviation(MLIRGen &gen, Location at,
                          const ReductionSpace &space, Value sum, Value count,
                          DType accDType, double eps) {
  Value epsValue = gen.scalar(accDType, eps, at);
  Value one = gen.scalar(accDType, 1, at);
  TensorType reduced = space.reduced(accDType);
  return buildMap(
      gen, at, reduced, sum,
      AffineMap::getMultiDimIdentityMap(reduced.rank(), &gen.context()),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value mean = b.create<arith::DivFOp>(l, args[0], count);
        Value shifted = b.create<arith::AddFOp>(l, mean, epsValue);
        Value deviation = b.create<math::SqrtOp>(l, shifted);
        return b.create<arith::DivFOp>(l, one, deviation);
      });
}

/// layer_norm: y = (x - mean) * rsqrt(var + eps) * weight + bias over the
/// trailing dims, with the biased variance of the centered values (two
/// passes, like PyTorch's reference).
FailureOr<SmallVector<Value>> lowerLayerNorm(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  const TensorType &type = lowering.operandTypes[0];
  Location at = lowering.loc;
  MLIRContext &ctx = gen.context();
  ReductionSpace space = normSpace(lowering);
  DType accDType = accumulatorDType(type.dtype);
  Type accType = gen.elementType(accDType);
  Value x = lowering.operands[0];
  AffineMap full = space.identityMap(ctx), reduced = space.reducedMap(ctx);
  Value zero = gen.scalar(accDType, 0, at);

  Value sum = buildReduction(gen, at, space, x, full, zero, accDType,
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               Value v = convertFloat(b, l, args[0], accType);
                               return addValues(b, l, args[1], v);
                             });
  Value count = reducedCount(gen, at, space, accType);
  TensorType reducedType = space.reduced(accDType);
  Value mean =
      buildMap(gen, at, reducedType, sum,
               AffineMap::getMultiDimIdentityMap(reducedType.rank(), &ctx),
               [&](OpBuilder &b, Location l, ValueRange args) {
                 return b.create<arith::DivFOp>(l, args[0], count);
               });
  Value squares =
      buildReduction(gen, at, space, {x, mean}, {full, reduced}, zero, accDType,
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value v = convertFloat(b, l, args[0], accType);
                       Value d = b.create<arith::SubFOp>(l, v, args[1]);
                       return addValues(b, l, args[2], mulValues(b, l, d, d));
                     });
  double eps = getFloatAttr(lowering.node, "eps", 1e-5);
  Value rstd =
      reciprocalDeviation(gen, at, space, squares, count, accDType, eps);

  SmallVector<Value> inputs{x, mean, rstd};
  SmallVector<AffineMap> maps{full, reduced, reduced};
  for (size_t i = 1; i < lowering.operands.size(); ++i) {
    inputs.push_back(lowering.operands[i]);
    maps.push_back(space.trailingMap(ctx, space.axes.size()));
  }
  Type element = gen.elementType(type.dtype);
  Value y =
      buildMap(gen, at, type, inputs, maps,
               [&](OpBuilder &b, Location l, ValueRange args) {
                 Value v = convertFloat(b, l, args[0], accType);
                 Value d = b.create<arith::SubFOp>(l, v, args[1]);
                 Value r = mulValues(b, l, d, args[2]);
                 if (args.size() > 3)
                   r = mulValues(b, l, r, convertFloat(b, l, args[3], accType));
                 if (args.size() > 4)
                   r = addValues(b, l, r, convertFloat(b, l, args[4], accType));
                 return convertFloat(b, l, r, element);
               });
  return SmallVector<Value>{y};
}

/// The default eps of rms_norm, as PyTorch: the machine epsilon of the
/// dtype it computes in (f32 for f16/bf16/f32, f64 for f64).
double defaultRmsEps(DType accDType) {
  return accDType == DType::F64 ? std::numeric_limits<double>::epsilon()
                                : std::numeric_limits<float>::epsilon();
}

/// rms_norm: y = x * rsqrt(mean(x^2) + eps) * weight over the trailing dims.
FailureOr<SmallVector<Value>> lowerRmsNorm(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  const TensorType &type = lowering.operandTypes[0];
  Location at = lowering.loc;
  MLIRContext &ctx = gen.context();
  ReductionSpace space = normSpace(lowering);
  DType accDType = accumulatorDType(type.dtype);
  Type accType = gen.elementType(accDType);
  Value x = lowering.operands[0];
  AffineMap full = space.identityMap(ctx), reduced = space.reducedMap(ctx);
  Value zero = gen.scalar(accDType, 0, at);

  Value squares =
      buildReduction(gen, at, space, x, full, zero, accDType,
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value v = convertFloat(b, l, args[0], accType);
                       return addValues(b, l, args[1], mulValues(b, l, v, v));
                     });
  double eps = getFloatAttr(lowering.node, "eps", defaultRmsEps(accDType));
  Value count = reducedCount(gen, at, space, accType);
  Value rstd =
      reciprocalDeviation(gen, at, space, squares, count, accDType, eps);

  SmallVector<Value> inputs{x, rstd};
  SmallVector<AffineMap> maps{full, reduced};
  if (lowering.operands.size() > 1) {
    inputs.push_back(lowering.operands[1]);
    maps.push_back(space.trailingMap(ctx, space.axes.size()));
  }
  Type element = gen.elementType(type.dtype);
  Value y =
      buildMap(gen, at, type, inputs, maps,
               [&](OpBuilder &b, Location l, ValueRange args) {
                 Value v = convertFloat(b, l, args[0], accType);
                 Value r = mulValues(b, l, v, args[1]);
                 if (args.size() > 2)
                   r = mulValues(b, l, r, convertFloat(b, l, args[2], accType));
                 return convertFloat(b, l, r, element);
               });
  return SmallVector<Value>{y};
}

//===----------------------------------------------------------------------===//
// cumsum
//===----------------------------------------------------------------------===//

/// The operand index `k`-th step of cumsum reads along an axis of `n`
/// elements: k, or n-1-k with `reverse`.
Value cumSumReadIndex(OpBuilder &b, Location at, Value k, Value n,
                      bool reverse) {
  if (!reverse)
    return k;
  Value last = b.create<arith::SubIOp>(
      at, n, b.create<arith::ConstantIndexOp>(at, 1));
  return b.create<arith::SubIOp>(at, last, k);
}

/// cumsum: an scf.for along the axis whose iteration k adds slice k of the
/// operand (the elements with index k on the axis) into a running sum of
/// one slice and inserts that sum into the result, so every element is
/// summed in the interpreter's order (from the start of the axis, or from
/// its end with `reverse`). The loop carries the result and the running
/// sum as separate tensors, and each is only read before it is overwritten
/// in place, so one-shot bufferization needs no copies in any context. The
/// sum starts at -0.0, the identity of float addition (+0.0 would turn a
/// leading -0.0 into +0.0), in f32 for f16/bf16, each result rounded once.
/// `exclusive` shifts the sums one step along the axis into a result filled
/// with zeros: the first element is the sum of no elements, +0.0.
FailureOr<SmallVector<Value>> lowerCumSum(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  const Node &node = lowering.node;
  const TensorType &type = lowering.operandTypes[0];
  Location at = lowering.loc;
  OpBuilder &b = gen.builder();
  unsigned axis = *normalizeAxis(getIntAttr(node, "axis", 0), type.rank());
  bool exclusive = getBoolAttr(node, "exclusive", false);
  bool reverse = getBoolAttr(node, "reverse", false);
  DType accDType = accumulatorDType(type.dtype);
  Type accType = gen.elementType(accDType);
  Type element = gen.elementType(type.dtype);

  TensorType sliceType = type;
  sliceType.shape[axis] = ShapeExpr::constant(1);
  TensorType accSliceType{accDType, sliceType.shape};
  Value identity =
      isa<FloatType>(accType)
          ? b.create<arith::ConstantOp>(at, b.getFloatAttr(accType, -0.0))
                .getResult()
          : b.create<arith::ConstantOp>(at, b.getZeroAttr(accType))
                .getResult();
  Value accInit = filledTensor(gen, accSliceType, identity, at);
  Value resultInit = gen.emptyTensor(type, at);
  if (exclusive)
    resultInit =
        b.create<linalg::FillOp>(
             at, b.create<arith::ConstantOp>(at, b.getZeroAttr(element))
                     .getResult(),
             resultInit)
            .getResult(0);

  Value n = getValueOrCreateConstantIndexOp(
      b, at, foldResult(gen, type.shape[axis], at));
  Value zero = b.create<arith::ConstantIndexOp>(at, 0);
  Value one = b.create<arith::ConstantIndexOp>(at, 1);
  // Exclusive: the last element's sum is never stored (with n = 0 the
  // bound -1 runs no iteration).
  Value steps = exclusive ? b.create<arith::SubIOp>(at, n, one).getResult() : n;
  auto loop = b.create<scf::ForOp>(at, zero, steps, one,
                                   ValueRange{resultInit, accInit});

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar();
  Value result = loop.getRegionIterArg(0), acc = loop.getRegionIterArg(1);
  Value read = cumSumReadIndex(b, at, k, n, reverse);
  Value write = read;
  if (exclusive)
    write = reverse ? b.create<arith::SubIOp>(at, read, one).getResult()
                    : b.create<arith::AddIOp>(at, read, one).getResult();
  SmallVector<OpFoldResult> sizes = foldResults(gen, sliceType.shape, at);
  SmallVector<OpFoldResult> strides(type.rank(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets(type.rank(), b.getIndexAttr(0));
  offsets[axis] = read;
  Value x = b.create<tensor::ExtractSliceOp>(
      at, gen.tensorType(sliceType), lowering.operands[0], offsets, sizes,
      strides);
  AffineMap identityMap =
      AffineMap::getMultiDimIdentityMap(type.rank(), &gen.context());
  SmallVector<utils::IteratorType> iterators(type.rank(),
                                             utils::IteratorType::parallel);
  Value sum =
      b.create<linalg::GenericOp>(
           at, TypeRange{acc.getType()}, ValueRange{x}, ValueRange{acc},
           SmallVector<AffineMap>{identityMap, identityMap}, iterators,
           [&](OpBuilder &nested, Location l, ValueRange args) {
             Value widened = convertFloat(nested, l, args[0], accType);
             nested.create<linalg::YieldOp>(
                 l, addValues(nested, l, args[1], widened));
           })
          .getResult(0);
  Value stored = sum;
  if (accDType != type.dtype)
    stored = buildMap(gen, at, sliceType, sum, identityMap,
                      [&](OpBuilder &nested, Location l, ValueRange args) {
                        return convertFloat(nested, l, args[0], element);
                      });
  offsets[axis] = write;
  Value next = b.create<tensor::InsertSliceOp>(at, stored, result, offsets,
                                               sizes, strides);
  b.create<scf::YieldOp>(at, ValueRange{next, sum});
  return SmallVector<Value>{loop.getResult(0)};
}

} // namespace

void registerReductionLowerings(LoweringTable &table) {
  for (OpKind kind : {OpKind::ReduceSum, OpKind::ReduceMean, OpKind::ReduceMax,
                      OpKind::ReduceMin, OpKind::ReduceProd})
    table.add(kind, lowerReduce);
  table.add(OpKind::ArgMax, lowerArgReduce);
  table.add(OpKind::ArgMin, lowerArgReduce);
  table.add(OpKind::TopK, lowerTopK);
  table.add(OpKind::Softmax, lowerSoftmax);
  table.add(OpKind::LogSoftmax, lowerLogSoftmax);
  table.add(OpKind::CumSum, lowerCumSum);
  table.add(OpKind::LayerNorm, lowerLayerNorm);
  table.add(OpKind::RmsNorm, lowerRmsNorm);
}

} // namespace txc
