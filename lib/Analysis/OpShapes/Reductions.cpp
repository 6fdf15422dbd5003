//===- Reductions.cpp - Shape rules of reductions and normalizations ------===//
//
// sum/mean/max/min/prod reduce over `axes` (all axes when absent),
// argmax/argmin over one `axis` (the flattened tensor when absent),
// softmax/log_softmax, cumsum and topk along one `axis`, and
// layer_norm/rms_norm over the trailing `normalized_ndim` dims.
// docs/ops.md, "Reductions and normalization", states the semantics these
// rules check.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Program/Attributes.h"

#include <algorithm>

using namespace txc;

namespace {

bool isArithmetic(DType type) { return type != DType::Bool; }

/// Location of element `i` of the list attribute `name`.
Loc listItemLoc(const InferenceContext &ctx, llvm::StringRef name, size_t i) {
  const NodeAttr *attr = ctx.node.findAttribute(name);
  if (!attr || i >= attr->value.list.size())
    return ctx.node.loc;
  return attr->value.list[i].loc;
}

std::string validRange(unsigned rank) {
  return "[" + std::to_string(-int64_t(rank)) + ", " +
         std::to_string(int64_t(rank) - 1) + "]";
}

/// Normalizes one axis of the operand; records a problem at `loc` when it is
/// out of range.
std::optional<unsigned> readAxis(InferenceContext &ctx, int64_t axis,
                                 const Loc &loc, bool isDefault = false) {
  const TensorType &x = ctx.operands[0];
  if (auto normalized = normalizeAxis(axis, x.rank()))
    return normalized;
  ctx.fail(loc, "bad-axis",
           (isDefault ? "the default axis " : "axis ") + std::to_string(axis) +
               " of '" + ctx.opName() + "' node '" + ctx.node.name +
               "' is out of range for its operand of rank " +
               std::to_string(x.rank()) + " (shape " + ctx.str(x.shape) + ")" +
               (x.rank() ? "; it must be in " + validRange(x.rank())
                         : std::string("; a rank-0 operand has no axes")));
  return std::nullopt;
}

/// The sorted axes an `axes` attribute names: every axis when it is absent.
/// Negative axes count from the end; an empty list, an axis out of range
/// and an axis named twice are errors.
std::optional<std::vector<unsigned>> readAxes(InferenceContext &ctx) {
  unsigned rank = ctx.operands[0].rank();
  std::vector<unsigned> axes;
  if (!hasAttr(ctx.node, "axes")) {
    for (unsigned i = 0; i < rank; ++i)
      axes.push_back(i);
    return axes;
  }
  std::vector<int64_t> written = getIntListAttr(ctx.node, "axes");
  if (written.empty()) {
    ctx.fail(ctx.attrLoc("axes"), "bad-axis",
             "'axes' of '" + ctx.opName() + "' node '" + ctx.node.name +
                 "' is empty; omit it to reduce over all axes");
    return std::nullopt;
  }
  std::vector<int64_t> firstWritten(rank, 0);
  for (size_t i = 0; i < written.size(); ++i) {
    auto axis = readAxis(ctx, written[i], listItemLoc(ctx, "axes", i));
    if (!axis)
      return std::nullopt;
    if (llvm::is_contained(axes, *axis)) {
      ctx.fail(listItemLoc(ctx, "axes", i), "bad-axis",
               "'axes' of '" + ctx.opName() + "' node '" + ctx.node.name +
                   "' names dimension " + std::to_string(*axis) +
                   " twice (as " + std::to_string(firstWritten[*axis]) +
                   " and " + std::to_string(written[i]) + ")");
      return std::nullopt;
    }
    firstWritten[*axis] = written[i];
    axes.push_back(*axis);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// The shape after reducing `axes`: they become 1 or are removed.
Shape reducedShape(const Shape &shape, llvm::ArrayRef<unsigned> axes,
                   bool keepDims) {
  Shape result;
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (!llvm::is_contained(axes, i))
      result.push_back(shape[i]);
    else if (keepDims)
      result.push_back(ShapeExpr::constant(1));
  }
  return result;
}

/// max, min, argmax and argmin have no value over zero elements, so each
/// reduced dim must be at least 1 for every value of its symbols.
bool requireNonEmpty(InferenceContext &ctx, llvm::ArrayRef<unsigned> axes) {
  const Shape &shape = ctx.operands[0].shape;
  std::vector<Interval> ranges = ctx.program.symbolRanges();
  for (unsigned axis : axes) {
    Interval bounds = shape[axis].bounds(ranges);
    if (bounds.min >= 1)
      continue;
    std::vector<std::string> notes;
    if (auto id = shape[axis].getSingleSymbol())
      notes.push_back("symbol '" + ctx.program.symbols[*id].name +
                      "' is declared with min " +
                      std::to_string(ctx.program.symbols[*id].min) +
                      "; declare \"min\": 1 if the dimension is never empty");
    bool isConstant = shape[axis].isConstant();
    ctx.fail(ctx.node.loc, "empty-reduction",
             "'" + ctx.opName() + "' node '" + ctx.node.name +
                 "' reduces dimension " + std::to_string(axis) + " (" +
                 ctx.str(shape[axis]) + ") of shape " + ctx.str(shape) +
                 (isConstant ? ", which is 0" : ", which can be 0") + "; '" +
                 ctx.opName() + "' of zero elements has no value",
             std::move(notes));
    return false;
  }
  return true;
}

/// sum, prod, max and min keep the dtype (integer sums wrap); mean needs a
/// floating-point dtype.
std::vector<TensorType> inferReduce(InferenceContext &ctx) {
  bool needsFloat = ctx.node.kind == OpKind::ReduceMean;
  if (needsFloat ? !ctx.requireDType(0, isFloat,
                                     "a floating-point dtype (cast integers "
                                     "to a float dtype first)")
                 : !ctx.requireDType(0, isArithmetic, "a numeric dtype"))
    return {};
  auto axes = readAxes(ctx);
  if (!axes)
    return {};
  bool isMinMax =
      ctx.node.kind == OpKind::ReduceMax || ctx.node.kind == OpKind::ReduceMin;
  if (isMinMax && !requireNonEmpty(ctx, *axes))
    return {};
  bool keepDims = getBoolAttr(ctx.node, "keepdims", false);
  return {TensorType{ctx.operands[0].dtype,
                     reducedShape(ctx.operands[0].shape, *axes, keepDims)}};
}

/// argmax/argmin: i64 indices along `axis`, or into the row-major
/// flattened operand when `axis` is absent.
std::vector<TensorType> inferArgReduce(InferenceContext &ctx) {
  if (!ctx.requireDType(0, isArithmetic, "a numeric dtype"))
    return {};
  const Shape &shape = ctx.operands[0].shape;
  std::vector<unsigned> axes;
  if (hasAttr(ctx.node, "axis")) {
    auto axis =
        readAxis(ctx, getIntAttr(ctx.node, "axis", 0), ctx.attrLoc("axis"));
    if (!axis)
      return {};
    axes.push_back(*axis);
  } else {
    for (unsigned i = 0; i < shape.size(); ++i)
      axes.push_back(i);
  }
  if (!requireNonEmpty(ctx, axes))
    return {};
  bool keepDims = getBoolAttr(ctx.node, "keepdims", false);
  return {TensorType{DType::I64, reducedShape(shape, axes, keepDims)}};
}

/// topk: the k largest (smallest) elements along `axis` (default -1) and
/// their i64 indices, both of the operand's shape with that dim k. k must
/// fit the dim for every value of its symbols: txc checks it here, at verify
/// time, rather than with a guard at run time (a symbolic dim needs a
/// declared min of at least k).
std::vector<TensorType> inferTopK(InferenceContext &ctx) {
  if (!ctx.requireDType(0, isArithmetic, "a numeric dtype"))
    return {};
  auto axis = readAxis(ctx, getIntAttr(ctx.node, "axis", -1),
                       ctx.attrLoc("axis"), !hasAttr(ctx.node, "axis"));
  if (!axis)
    return {};
  const Shape &shape = ctx.operands[0].shape;
  const ShapeExpr &dim = shape[*axis];
  int64_t k = getIntAttr(ctx.node, "k", 0);
  std::string node = "'" + ctx.opName() + "' node '" + ctx.node.name + "'";
  if (k < 0) {
    ctx.fail(ctx.attrLoc("k"), "bad-attribute",
             "'k' of " + node + " is " + std::to_string(k) +
                 "; it must not be negative");
    return {};
  }
  Interval bounds = dim.bounds(ctx.program.symbolRanges());
  if (bounds.min < k) {
    std::vector<std::string> notes;
    if (auto id = dim.getSingleSymbol())
      notes.push_back("symbol '" + ctx.program.symbols[*id].name +
                      "' is declared with min " +
                      std::to_string(ctx.program.symbols[*id].min) +
                      "; declare \"min\": " + std::to_string(k) +
                      " or more if the dimension is never smaller");
    std::string where = "dimension " + std::to_string(*axis) + " (" +
                        ctx.str(dim) + ") of shape " + ctx.str(shape);
    ctx.fail(ctx.attrLoc("k"), "bad-attribute",
             "'k' of " + node + " is " + std::to_string(k) +
                 (dim.isConstant()
                      ? ", larger than " + where
                      : ", but " + where + " can be as small as " +
                            std::to_string(bounds.min)) +
                 "; k must be at most the dimension for every value of the "
                 "symbols",
             std::move(notes));
    return {};
  }
  Shape selected = shape;
  selected[*axis] = ShapeExpr::constant(k);
  return {TensorType{ctx.operands[0].dtype, selected},
          TensorType{DType::I64, selected}};
}

/// softmax/log_softmax: same type as the operand, along `axis` (default -1).
std::vector<TensorType> inferSoftmax(InferenceContext &ctx) {
  if (!ctx.requireDType(0, isFloat, "a floating-point dtype") ||
      !readAxis(ctx, getIntAttr(ctx.node, "axis", -1), ctx.attrLoc("axis"),
                !hasAttr(ctx.node, "axis")))
    return {};
  return {ctx.operands[0]};
}

/// cumsum: running sums along the required `axis`, of the operand's type
/// (integer sums wrap).
std::vector<TensorType> inferCumSum(InferenceContext &ctx) {
  if (!ctx.requireDType(0, isArithmetic, "a numeric dtype") ||
      !readAxis(ctx, getIntAttr(ctx.node, "axis", 0), ctx.attrLoc("axis")))
    return {};
  return {ctx.operands[0]};
}

/// layer_norm(x, weight, bias) and rms_norm(x, weight) normalize over the
/// trailing `normalized_ndim` dims (default 1); weight and bias have exactly
/// those dims (PyTorch's normalized_shape) and x's dtype.
std::vector<TensorType> inferNorm(InferenceContext &ctx) {
  for (size_t i = 1; i < ctx.operands.size(); ++i)
    if (!ctx.requireSameDType(0, i))
      return {};
  if (!ctx.requireDType(0, isFloat, "a floating-point dtype"))
    return {};
  const TensorType &x = ctx.operands[0];
  int64_t ndim = getIntAttr(ctx.node, "normalized_ndim", 1);
  if (ndim < 1 || ndim > int64_t(x.rank())) {
    ctx.fail(ctx.attrLoc("normalized_ndim"), "bad-attribute",
             "'normalized_ndim' of '" + ctx.opName() + "' node '" +
                 ctx.node.name + "' is " + std::to_string(ndim) +
                 ", but its operand has rank " + std::to_string(x.rank()) +
                 " (shape " + ctx.str(x.shape) + "); it must be in [1, " +
                 std::to_string(x.rank()) + "]");
    return {};
  }
  Shape normalized(x.shape.end() - ndim, x.shape.end());
  static const char *const names[] = {"x", "weight", "bias"};
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    const Shape &shape = ctx.operands[i].shape;
    if (shape == normalized)
      continue;
    ctx.fail(ctx.operandLoc(i), "shape-mismatch",
             "the " + std::string(names[i]) + " (operand " + std::to_string(i) +
                 ") of '" + ctx.opName() + "' node '" + ctx.node.name +
                 "' has shape " + ctx.str(shape) + "; expected " +
                 ctx.str(normalized) + ", the normalized (last " +
                 std::to_string(ndim) + ") dimensions of " + ctx.str(x.shape));
    return {};
  }
  if (hasAttr(ctx.node, "eps") && !(getFloatAttr(ctx.node, "eps", 0) >= 0)) {
    ctx.fail(ctx.attrLoc("eps"), "bad-attribute",
             "'eps' of '" + ctx.opName() + "' node '" + ctx.node.name +
                 "' must not be negative");
    return {};
  }
  return {x};
}

} // namespace

void txc::registerReductionShapeRules(ShapeRuleTable &table) {
  for (OpKind kind : {OpKind::ReduceSum, OpKind::ReduceMean, OpKind::ReduceMax,
                      OpKind::ReduceMin, OpKind::ReduceProd})
    table.add(kind, inferReduce);
  table.add(OpKind::ArgMax, inferArgReduce);
  table.add(OpKind::ArgMin, inferArgReduce);
  table.add(OpKind::TopK, inferTopK);
  table.add(OpKind::Softmax, inferSoftmax);
  table.add(OpKind::LogSoftmax, inferSoftmax);
  table.add(OpKind::CumSum, inferCumSum);
  table.add(OpKind::LayerNorm, inferNorm);
  table.add(OpKind::RmsNorm, inferNorm);
}
