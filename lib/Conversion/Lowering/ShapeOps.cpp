//===- ShapeOps.cpp - Lowering of ops that rearrange tensors --------------===//
//
// Shape ops become tensor-dialect views where one fits (collapse/expand for
// reshape, squeeze, unsqueeze and flatten; extract_slice for slice and split;
// insert_slice for concat; tensor.pad), so that bufferization turns them
// into subviews or copies straight into the destination; transpose becomes
// linalg.transpose, the border-reading pad modes a linalg.generic, and tile
// a broadcasting linalg.generic seen through a collapse_shape.
// Symbolic sizes and offsets are index values computed from the symbols.
//
//===----------------------------------------------------------------------===//
#include "Views.h"
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Program/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

// Inside namespace txc, txc::TensorType hides mlir::TensorType.
namespace txc {

namespace {

/// Re-runs the node's attribute resolution (it passed verification).
InferenceContext contextOf(MLIRGen &gen, const NodeLowering &lowering) {
  return InferenceContext(gen.program(), lowering.node,
                          std::vector<TensorType>(lowering.operandTypes.begin(),
                                                  lowering.operandTypes.end()));
}

SmallVector<Value> one(Value value) { return SmallVector<Value>{value}; }

/// Groups the dims of the higher-rank side of a collapse/expand whose only
/// difference is the unit dims `units` (static 1s): each kept dim starts a
/// group and unit dims join the group of the kept dim before them (leading
/// ones the first group). With no kept dim at all the other side has rank 0
/// and the reassociation is empty.
SmallVector<ReassociationIndices>
unitDimGroups(unsigned rank, llvm::ArrayRef<unsigned> units) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (unsigned d = 0; d < rank; ++d) {
    if (!llvm::is_contained(units, d)) {
      groups.push_back(leading);
      groups.back().push_back(d);
      leading.clear();
    } else if (groups.empty()) {
      leading.push_back(d);
    } else {
      groups.back().push_back(d);
    }
  }
  return groups;
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerBroadcast(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  Value result = gen.buildElementwise(
      lowering.loc, lowering.resultType(), lowering.operands,
      lowering.operandTypes,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  return one(result);
}

/// tensor.reshape with the result dims as a shape tensor: for a group of
/// several symbolic dims, which an expand_shape cannot express in MLIR 19
/// (its bufferization infers the sizes of a group from the source).
Value reshapeWithShapeTensor(MLIRGen &gen, Location at, Value source,
                             const TensorType &resultType) {
  OpBuilder &b = gen.builder();
  SmallVector<Value> dims;
  for (const ShapeExpr &dim : resultType.shape)
    dims.push_back(getValueOrCreateConstantIndexOp(
        b, at, foldResult(gen, dim, at)));
  Value shape = b.create<tensor::FromElementsOp>(at, dims);
  return b.create<tensor::ReshapeOp>(at, gen.tensorType(resultType), source,
                                     shape);
}

/// reshape: collapse to one dim, then expand to the result (both views of
/// the row-major elements, so any reshape of equal element counts works).
FailureOr<SmallVector<Value>> lowerReshape(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  const TensorType &from = lowering.operandTypes[0];
  const TensorType &to = lowering.resultType();
  Value value = lowering.operands[0];
  if (from.shape == to.shape)
    return one(value);
  auto allDims = [](unsigned rank) {
    ReassociationIndices group;
    for (unsigned d = 0; d < rank; ++d)
      group.push_back(d);
    return SmallVector<ReassociationIndices>{group};
  };
  // Rank 0 holds one element: the other side is all static 1s.
  SmallVector<ReassociationIndices> none;
  if (from.rank() == 0)
    return one(expandView(gen, lowering.loc, value, to, none));
  if (to.rank() == 0)
    return one(collapseView(gen, lowering.loc, value, to, none));
  auto product = ShapeExpr::constant(1);
  for (const ShapeExpr &dim : to.shape)
    product = *ShapeExpr::mul(product, dim); // checked by the shape rule
  TensorType flat{from.dtype, {product}};
  if (from.rank() != 1)
    value = collapseView(gen, lowering.loc, value, flat, allDims(from.rank()));
  if (to.rank() == 1)
    return one(value);
  return one(expandView(gen, lowering.loc, value, to, allDims(to.rank())));
}

FailureOr<SmallVector<Value>> lowerTranspose(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  std::vector<unsigned> perm = *resolvePermutation(ctx);
  if (llvm::is_sorted(perm))
    return one(lowering.operands[0]);
  SmallVector<int64_t> permutation(perm.begin(), perm.end());
  Value init = gen.emptyTensor(lowering.resultType(), lowering.loc);
  auto op = gen.builder().create<linalg::TransposeOp>(
      lowering.loc, lowering.operands[0], init, permutation);
  return one(op->getResult(0));
}

FailureOr<SmallVector<Value>> lowerSqueeze(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  std::vector<unsigned> axes = *resolveSqueezeAxes(ctx);
  if (axes.empty())
    return one(lowering.operands[0]);
  auto groups = unitDimGroups(lowering.operandTypes[0].rank(), axes);
  return one(collapseView(gen, lowering.loc, lowering.operands[0],
                      lowering.resultType(), groups));
}

FailureOr<SmallVector<Value>> lowerUnsqueeze(MLIRGen &gen,
                                             const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  std::vector<unsigned> axes = *resolveUnsqueezeAxes(ctx);
  if (axes.empty())
    return one(lowering.operands[0]);
  auto groups = unitDimGroups(lowering.resultType().rank(), axes);
  return one(expandView(gen, lowering.loc, lowering.operands[0],
                    lowering.resultType(), groups));
}

FailureOr<SmallVector<Value>> lowerFlatten(MLIRGen &gen,
                                           const NodeLowering &lowering) {
  const TensorType &from = lowering.operandTypes[0];
  if (from.rank() == 0)
    return one(expandView(gen, lowering.loc, lowering.operands[0],
                      lowering.resultType(), {}));
  InferenceContext ctx = contextOf(gen, lowering);
  auto [first, last] = *resolveFlattenRange(ctx);
  if (first == last)
    return one(lowering.operands[0]);
  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d < from.rank(); ++d) {
    if (d <= first || d > last)
      groups.emplace_back();
    groups.back().push_back(d);
  }
  return one(collapseView(gen, lowering.loc, lowering.operands[0],
                      lowering.resultType(), groups));
}

/// A linalg.generic of the result's shape whose element at (i_0, ...) is
/// the operand's element at (sourceIndex(d, i_d), ...): the lowering of the
/// shape ops that no tensor op expresses (reversal, reflect and edge pads).
Value readEachElement(
    MLIRGen &gen, const NodeLowering &lowering,
    llvm::function_ref<Value(OpBuilder &, Location, unsigned, Value)>
        sourceIndex) {
  OpBuilder &b = gen.builder();
  const TensorType &resultType = lowering.resultType();
  unsigned rank = resultType.rank();
  Value source = lowering.operands[0];
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      lowering.loc, TypeRange{gen.tensorType(resultType)}, ValueRange{},
      ValueRange{gen.emptyTensor(resultType, lowering.loc)},
      SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
      [&](OpBuilder &nested, Location at, ValueRange) {
        SmallVector<Value> indices;
        for (unsigned d = 0; d < rank; ++d) {
          Value i = nested.create<linalg::IndexOp>(at, d);
          indices.push_back(sourceIndex(nested, at, d, i));
        }
        Value element = nested.create<tensor::ExtractOp>(at, source, indices);
        nested.create<linalg::YieldOp>(at, element);
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

/// The part of `source` (of type `type`) from `offset` along `axis`, of
/// `resultType`'s shape, with `steps` per dim.
Value extractSlice(MLIRGen &gen, Location at, Value source,
                   const TensorType &resultType,
                   llvm::ArrayRef<OpFoldResult> offsets,
                   llvm::ArrayRef<int64_t> steps) {
  OpBuilder &b = gen.builder();
  SmallVector<OpFoldResult> strides;
  for (int64_t step : steps)
    strides.push_back(b.getIndexAttr(step));
  return b.create<tensor::ExtractSliceOp>(
      at, gen.tensorType(resultType), source, offsets,
      foldResults(gen, resultType.shape, at), strides);
}

/// A slice with a negative step: tensor.extract_slice takes no negative
/// strides, so element i reads the operand at start + i*step along each
/// sliced axis (i elsewhere).
Value reversedSlice(MLIRGen &gen, const NodeLowering &lowering,
                    llvm::ArrayRef<SliceAxis> axes) {
  OpBuilder &b = gen.builder();
  unsigned rank = lowering.resultType().rank();
  SmallVector<Value> starts(rank);
  SmallVector<int64_t> steps(rank, 1);
  for (const SliceAxis &axis : axes) {
    starts[axis.axis] = getValueOrCreateConstantIndexOp(
        b, lowering.loc, foldResult(gen, axis.start, lowering.loc));
    steps[axis.axis] = axis.step;
  }
  return readEachElement(
      gen, lowering, [&](OpBuilder &nested, Location at, unsigned d, Value i) {
        if (!starts[d])
          return i;
        Value step = nested.create<arith::ConstantIndexOp>(at, steps[d]);
        return nested
            .create<arith::AddIOp>(at, starts[d],
                                   nested.create<arith::MulIOp>(at, i, step))
            .getResult();
      });
}

FailureOr<SmallVector<Value>> lowerSlice(MLIRGen &gen,
                                         const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  std::vector<SliceAxis> axes = *resolveSlice(ctx);
  if (llvm::any_of(axes, [](const SliceAxis &axis) { return axis.step < 0; }))
    return one(reversedSlice(gen, lowering, axes));
  unsigned rank = lowering.resultType().rank();
  SmallVector<OpFoldResult> offsets(rank, gen.builder().getIndexAttr(0));
  SmallVector<int64_t> steps(rank, 1);
  for (const SliceAxis &axis : axes) {
    offsets[axis.axis] = foldResult(gen, axis.start, lowering.loc);
    steps[axis.axis] = axis.step;
  }
  return one(extractSlice(gen, lowering.loc, lowering.operands[0],
                          lowering.resultType(), offsets, steps));
}

FailureOr<SmallVector<Value>> lowerSplit(MLIRGen &gen,
                                         const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  SplitSpec spec = *resolveSplit(ctx);
  unsigned rank = lowering.operandTypes[0].rank();
  SmallVector<Value> results;
  ShapeExpr offset;
  for (size_t i = 0; i < spec.sizes.size(); ++i) {
    SmallVector<OpFoldResult> offsets(rank, gen.builder().getIndexAttr(0));
    offsets[spec.axis] = foldResult(gen, offset, lowering.loc);
    results.push_back(extractSlice(gen, lowering.loc, lowering.operands[0],
                                   lowering.resultType(i), offsets,
                                   SmallVector<int64_t>(rank, 1)));
    offset = *ShapeExpr::add(offset, spec.sizes[i]); // at most the dim
  }
  return results;
}

/// concat: each operand inserted into the result at the sum of the sizes
/// of the operands before it.
FailureOr<SmallVector<Value>> lowerConcat(MLIRGen &gen,
                                          const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  unsigned axis = *resolveConcatAxis(ctx);
  OpBuilder &b = gen.builder();
  const TensorType &resultType = lowering.resultType();
  Value result = gen.emptyTensor(resultType, lowering.loc);
  ShapeExpr offset;
  for (size_t i = 0; i < lowering.operands.size(); ++i) {
    const TensorType &type = lowering.operandTypes[i];
    SmallVector<OpFoldResult> offsets(type.rank(), b.getIndexAttr(0));
    offsets[axis] = foldResult(gen, offset, lowering.loc);
    SmallVector<OpFoldResult> strides(type.rank(), b.getIndexAttr(1));
    result = b.create<tensor::InsertSliceOp>(
        lowering.loc, lowering.operands[i], result, offsets,
        foldResults(gen, type.shape, lowering.loc), strides);
    offset = *ShapeExpr::add(offset, type.shape[axis]); // at most the sum
  }
  return one(result);
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

/// The operand index that result index `i` reads along a dim of size `dim`
/// padded by `before`: edge clamps into [0, dim-1], reflect mirrors at the
/// borders without repeating them (the shape rule checked pad < dim).
Value borderSourceIndex(OpBuilder &b, Location at, PadMode mode, Value i,
                        int64_t before, Value dim) {
  Value zero = b.create<arith::ConstantIndexOp>(at, 0);
  Value lastIndex = b.create<arith::SubIOp>(
      at, dim, b.create<arith::ConstantIndexOp>(at, 1));
  Value j = b.create<arith::SubIOp>(
      at, i, b.create<arith::ConstantIndexOp>(at, before));
  if (mode == PadMode::Edge)
    return b.create<arith::MinSIOp>(at, b.create<arith::MaxSIOp>(at, j, zero),
                                    lastIndex);
  // reflect: -j before the start, 2*(dim-1) - j after the end.
  Value mirroredStart = b.create<arith::SubIOp>(at, zero, j);
  Value mirroredEnd =
      b.create<arith::SubIOp>(at, b.create<arith::AddIOp>(at, lastIndex,
                                                          lastIndex),
                              j);
  Value beforeStart =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::slt, j, zero);
  Value afterEnd =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::sgt, j, lastIndex);
  Value k = b.create<arith::SelectOp>(at, afterEnd, mirroredEnd, j);
  return b.create<arith::SelectOp>(at, beforeStart, mirroredStart, k);
}

/// reflect and edge: every result element reads one operand element.
Value padFromBorders(MLIRGen &gen, const NodeLowering &lowering,
                     const PadSpec &spec) {
  OpBuilder &b = gen.builder();
  SmallVector<Value> dims;
  for (const ShapeExpr &dim : lowering.operandTypes[0].shape)
    dims.push_back(getValueOrCreateConstantIndexOp(
        b, lowering.loc, foldResult(gen, dim, lowering.loc)));
  return readEachElement(
      gen, lowering, [&](OpBuilder &nested, Location at, unsigned d, Value i) {
        if (spec.before[d] == 0 && spec.after[d] == 0)
          return i;
        return borderSourceIndex(nested, at, spec.mode, i, spec.before[d],
                                 dims[d]);
      });
}

FailureOr<SmallVector<Value>> lowerPad(MLIRGen &gen,
                                       const NodeLowering &lowering) {
  InferenceContext ctx = contextOf(gen, lowering);
  PadSpec spec = *resolvePad(ctx);
  if (spec.mode != PadMode::Constant)
    return one(padFromBorders(gen, lowering, spec));
  OpBuilder &b = gen.builder();
  SmallVector<OpFoldResult> low, high;
  for (size_t d = 0; d < spec.before.size(); ++d) {
    low.push_back(b.getIndexAttr(spec.before[d]));
    high.push_back(b.getIndexAttr(spec.after[d]));
  }
  Value value = gen.scalar(lowering.resultType().dtype, spec.value,
                           lowering.loc);
  return one(b.create<tensor::PadOp>(
      lowering.loc, gen.tensorType(lowering.resultType()),
      lowering.operands[0], low, high, value));
}

//===----------------------------------------------------------------------===//
// tile
//===----------------------------------------------------------------------===//

/// tile: a broadcast of the operand [D0, D1, ...] to [r0, D0, r1, D1, ...]
/// (a linalg.generic whose input map skips the repeat dims), then a view
/// that merges each (r, D) pair into the result dim r*D: the row-major
/// index k*D + i of copy k reads element i.
FailureOr<SmallVector<Value>> lowerTile(MLIRGen &gen,
                                        const NodeLowering &lowering) {
  const TensorType &from = lowering.operandTypes[0];
  std::vector<int64_t> repeats = getIntListAttr(lowering.node, "repeats");
  if (llvm::all_of(repeats, [](int64_t r) { return r == 1; }))
    return one(lowering.operands[0]);
  OpBuilder &b = gen.builder();
  unsigned rank = from.rank();
  TensorType expanded{from.dtype, {}};
  SmallVector<AffineExpr> operandDims;
  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d < rank; ++d) {
    expanded.shape.push_back(ShapeExpr::constant(repeats[d]));
    expanded.shape.push_back(from.shape[d]);
    operandDims.push_back(b.getAffineDimExpr(2 * d + 1));
    groups.push_back({2 * d, 2 * d + 1});
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(2 * rank, 0, operandDims, &gen.context()),
      b.getMultiDimIdentityMap(2 * rank)};
  SmallVector<utils::IteratorType> iterators(2 * rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      lowering.loc, TypeRange{gen.tensorType(expanded)},
      ValueRange{lowering.operands[0]},
      ValueRange{gen.emptyTensor(expanded, lowering.loc)}, maps, iterators,
      [](OpBuilder &nested, Location at, ValueRange args) {
        nested.create<linalg::YieldOp>(at, args[0]);
      });
  return one(collapseView(gen, lowering.loc, generic.getResult(0),
                          lowering.resultType(), groups));
}

/// A reshape of a constant as a constant of the result type, or null. MLIR
/// 19's elementwise fusion crashes on a linalg.copy of a constant collapsed
/// to rank 0 (a `squeeze` of a `[1,1]` constant that another output also
/// returns); a constant needs no view anyway.
Value reshapedConstant(MLIRGen &gen, Location at, Value source,
                       const TensorType &resultType) {
  auto constant = source.getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                       : DenseElementsAttr();
  RankedTensorType type = gen.tensorType(resultType);
  if (!attr || !type.hasStaticShape())
    return nullptr;
  return gen.builder().create<arith::ConstantOp>(at, type, attr.reshape(type));
}

} // namespace

OpFoldResult foldResult(MLIRGen &gen, const ShapeExpr &expr, Location at) {
  if (auto value = expr.getConstant())
    return gen.builder().getIndexAttr(*value);
  return gen.dimValue(expr, at);
}

SmallVector<OpFoldResult> foldResults(MLIRGen &gen, const Shape &shape,
                                      Location at) {
  SmallVector<OpFoldResult> result;
  for (const ShapeExpr &dim : shape)
    result.push_back(foldResult(gen, dim, at));
  return result;
}

Value collapseView(MLIRGen &gen, Location at, Value source,
                   const TensorType &resultType,
                   llvm::ArrayRef<ReassociationIndices> groups) {
  if (Value folded = reshapedConstant(gen, at, source, resultType))
    return folded;
  // A group with a symbolic dim collapses to a static dim only when another
  // dim of the group is a static 0 (a product of nonzero polynomials is not
  // constant): tensor.collapse_shape rejects that type, and the tensor has
  // no elements, so it is an empty tensor of the result type.
  auto sourceType = mlir::cast<RankedTensorType>(source.getType());
  for (size_t g = 0; g < groups.size(); ++g) {
    bool dynamicSource = llvm::any_of(groups[g], [&](int64_t d) {
      return sourceType.isDynamicDim(d);
    });
    if (dynamicSource && resultType.shape[g].isConstant())
      return gen.emptyTensor(resultType, at);
  }
  return gen.builder().create<tensor::CollapseShapeOp>(
      at, gen.tensorType(resultType), source, groups);
}

Value expandView(MLIRGen &gen, Location at, Value source,
                 const TensorType &resultType,
                 llvm::ArrayRef<ReassociationIndices> groups) {
  if (Value folded = reshapedConstant(gen, at, source, resultType))
    return folded;
  // The converse of collapseView's case: a static dim expands into a group
  // with a symbolic dim only when another dim of the group is a static 0
  // ([0] to [S,0]), which tensor.expand_shape rejects; the tensor has no
  // elements, so it is an empty tensor of the result type.
  auto sourceType = mlir::cast<RankedTensorType>(source.getType());
  for (size_t g = 0; g < groups.size(); ++g) {
    bool dynamicResult = llvm::any_of(groups[g], [&](int64_t d) {
      return !resultType.shape[d].isConstant();
    });
    if (dynamicResult && !sourceType.isDynamicDim(g))
      return gen.emptyTensor(resultType, at);
  }
  bool severalSymbolsInAGroup = llvm::any_of(groups, [&](const auto &group) {
    return llvm::count_if(group, [&](int64_t d) {
             return !resultType.shape[d].isConstant();
           }) > 1;
  });
  if (severalSymbolsInAGroup)
    return reshapeWithShapeTensor(gen, at, source, resultType);
  return gen.builder().create<tensor::ExpandShapeOp>(
      at, gen.tensorType(resultType), source, groups,
      foldResults(gen, resultType.shape, at));
}

void registerShapeOpLowerings(LoweringTable &table) {
  table.add(OpKind::Broadcast, lowerBroadcast);
  table.add(OpKind::BroadcastTo, lowerBroadcast);
  table.add(OpKind::Reshape, lowerReshape);
  table.add(OpKind::Transpose, lowerTranspose);
  table.add(OpKind::Permute, lowerTranspose);
  table.add(OpKind::Squeeze, lowerSqueeze);
  table.add(OpKind::Unsqueeze, lowerUnsqueeze);
  table.add(OpKind::Flatten, lowerFlatten);
  table.add(OpKind::Concat, lowerConcat);
  table.add(OpKind::Slice, lowerSlice);
  table.add(OpKind::Split, lowerSplit);
  table.add(OpKind::Pad, lowerPad);
  table.add(OpKind::Tile, lowerTile);
}

} // namespace txc
