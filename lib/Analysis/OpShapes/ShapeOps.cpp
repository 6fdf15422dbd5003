//===- ShapeOps.cpp - Shape rules of ops that rearrange tensors -----------===//
//
// Result shapes are polynomials over the symbols: concat adds dims (S+T),
// flatten and reshape multiply them (4*B*S), and every rule rejects what
// would make a result dim depend on more than the symbols' values (a
// squeeze of a symbolic dim, a slice whose clamping differs across the
// symbols' range, an uneven split). The attribute conventions (negative
// axes, defaults) are resolved in ShapeOpAttrs.cpp.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Program/Attributes.h"

using namespace txc;

namespace {

std::string nodeRef(const InferenceContext &ctx) {
  return "'" + ctx.opName() + "' node '" + ctx.node.name + "'";
}

/// The product of `dims` as a polynomial; reports an overflow.
std::optional<ShapeExpr> product(InferenceContext &ctx,
                                 llvm::ArrayRef<ShapeExpr> dims) {
  ShapeExpr result = ShapeExpr::constant(1);
  for (const ShapeExpr &dim : dims) {
    auto next = ShapeExpr::mul(result, dim);
    if (!next) {
      ctx.fail(ctx.node.loc, "limit",
               "the element count of " + nodeRef(ctx) +
                   " overflows a 64-bit integer coefficient");
      return std::nullopt;
    }
    result = std::move(*next);
  }
  return result;
}

/// broadcast, broadcast_to: numpy broadcast_to of the operand to `shape`.
std::vector<TensorType> inferBroadcast(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0];
  const NodeAttr *attr = ctx.node.findAttribute("shape");
  std::string error;
  Loc errorLoc;
  auto target = readShapeAttribute(ctx.program, attr->value, error, errorLoc);
  if (!target) {
    ctx.fail(errorLoc, "bad-attribute", error);
    return {};
  }
  if (target->size() < a.rank()) {
    ctx.fail(attr->loc, "shape-mismatch",
             "'" + ctx.opName() + "' node '" + ctx.node.name +
                 "' cannot broadcast " + ctx.str(a.shape) +
                 " to the lower rank " + ctx.str(*target));
    return {};
  }
  size_t offset = target->size() - a.rank();
  for (size_t i = 0; i < a.rank(); ++i) {
    const ShapeExpr &from = a.shape[i], &to = (*target)[offset + i];
    if (from != to && from.getConstant() != 1) {
      ctx.fail(attr->loc, "shape-mismatch",
               "'" + ctx.opName() + "' node '" + ctx.node.name +
                   "' cannot broadcast " + ctx.str(a.shape) + " to " +
                   ctx.str(*target) + ": dimension " + ctx.str(from) +
                   " is neither 1 nor " + ctx.str(to),
               ctx.explainDimMismatch(from, to));
      return {};
    }
  }
  return {TensorType{a.dtype, std::move(*target)}};
}

/// `shape` as written, with "-1" at the inferred dim.
std::string withInferred(const InferenceContext &ctx, const Shape &shape,
                         int inferred) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") +
            (int(i) == inferred ? std::string("-1") : ctx.str(shape[i]));
  return text + "]";
}

/// How to make `total` divisible by the constant `known` (the other dims
/// of a reshape with -1): declare the one symbol of `total` a multiple.
std::vector<std::string> divisibilityNotes(const InferenceContext &ctx,
                                           const ShapeExpr &total,
                                           const ShapeExpr &known) {
  std::optional<int64_t> divisor = known.getConstant();
  std::optional<SymbolRef> needed =
      divisor ? total.multipleNeededFor(*divisor) : std::nullopt;
  if (!needed)
    return {};
  auto declared = total.substitute([&](uint32_t id) {
    int64_t multiple = id == needed->id ? needed->multipleOf
                                        : ctx.program.symbols[id].multipleOf;
    return std::optional<ShapeExpr>(ShapeExpr::symbol({id, multiple}));
  });
  auto dim = declared ? declared->divExact(*divisor) : std::nullopt;
  return {
      suggestMultipleOf(ctx.program.symbols[needed->id].name,
                        needed->multipleOf) +
      (dim ? " (the dimension is then " + ctx.str(*dim) + ")" : std::string())};
}

std::vector<std::string> mismatchNotes(const Shape &target) {
  std::vector<std::string> notes = {
      "element counts must be equal as polynomials over the symbols"};
  if (llvm::any_of(target,
                   [](const ShapeExpr &d) { return d.hasFloorDivOrMod(); }))
    notes.push_back("'//' and '%' round: to divide a symbol exactly, declare "
                    "its multiple_of and write '/'");
  return notes;
}

/// reshape: the `shape` attribute, with at most one -1 inferred so that the
/// element counts agree as polynomials.
std::vector<TensorType> inferReshape(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0];
  const NodeAttr *attr = ctx.node.findAttribute("shape");
  // Read -1 as a placeholder 1 so that readShapeAttribute checks the rest.
  AttrValue value = attr->value;
  int inferred = -1;
  for (size_t i = 0; i < value.list.size(); ++i) {
    AttrValue &dim = value.list[i];
    if (dim.kind != AttrValue::Kind::Int || dim.integer != -1)
      continue;
    if (inferred >= 0) {
      ctx.fail(dim.loc, "bad-attribute",
               "attribute 'shape' of " + nodeRef(ctx) +
                   " has more than one -1 (entries " +
                   std::to_string(inferred) + " and " + std::to_string(i) +
                   "); at most one dimension can be inferred");
      return {};
    }
    inferred = int(i);
    dim.integer = 1;
  }
  std::string error;
  Loc errorLoc;
  auto target = readShapeAttribute(ctx.program, value, error, errorLoc);
  if (!target) {
    ctx.fail(errorLoc, "bad-attribute", error);
    return {};
  }
  auto total = product(ctx, a.shape);
  auto known = product(ctx, *target);
  if (!total || !known)
    return {};
  if (inferred >= 0) {
    auto quotient = ShapeExpr::divExact(*total, *known);
    if (!quotient) {
      std::string why =
          known->getConstant() == 0
              ? "the other dimensions have product 0"
              : "the element count " + ctx.str(*total) + " of " +
                    ctx.str(a.shape) + " is not a polynomial multiple of " +
                    ctx.str(*known) + ", the product of the other dimensions";
      ctx.fail(value.list[inferred].loc, "shape-mismatch",
               nodeRef(ctx) + " cannot infer dimension " +
                   std::to_string(inferred) + " (the -1) of " +
                   withInferred(ctx, *target, inferred) + ": " + why,
               divisibilityNotes(ctx, *total, *known));
      return {};
    }
    (*target)[inferred] = std::move(*quotient);
  } else if (*total != *known) {
    ctx.fail(attr->loc, "shape-mismatch",
             nodeRef(ctx) + " cannot reshape " + ctx.str(a.shape) + " (" +
                 ctx.str(*total) + " elements) to " + ctx.str(*target) + " (" +
                 ctx.str(*known) + " elements)",
             mismatchNotes(*target));
    return {};
  }
  return {TensorType{a.dtype, std::move(*target)}};
}

std::vector<TensorType> inferTranspose(InferenceContext &ctx) {
  auto perm = resolvePermutation(ctx);
  if (!perm)
    return {};
  const TensorType &a = ctx.operands[0];
  Shape shape;
  for (unsigned axis : *perm)
    shape.push_back(a.shape[axis]);
  return {TensorType{a.dtype, std::move(shape)}};
}

std::vector<TensorType> inferSqueeze(InferenceContext &ctx) {
  auto axes = resolveSqueezeAxes(ctx);
  if (!axes)
    return {};
  const TensorType &a = ctx.operands[0];
  Shape shape;
  for (unsigned d = 0; d < a.rank(); ++d)
    if (!llvm::is_contained(*axes, d))
      shape.push_back(a.shape[d]);
  return {TensorType{a.dtype, std::move(shape)}};
}

std::vector<TensorType> inferUnsqueeze(InferenceContext &ctx) {
  auto axes = resolveUnsqueezeAxes(ctx);
  if (!axes)
    return {};
  const TensorType &a = ctx.operands[0];
  Shape shape;
  size_t next = 0;
  for (unsigned d = 0; d < a.rank() + axes->size(); ++d)
    shape.push_back(llvm::is_contained(*axes, d) ? ShapeExpr::constant(1)
                                                 : a.shape[next++]);
  return {TensorType{a.dtype, std::move(shape)}};
}

std::vector<TensorType> inferFlatten(InferenceContext &ctx) {
  auto range = resolveFlattenRange(ctx);
  if (!range)
    return {};
  const TensorType &a = ctx.operands[0];
  if (a.rank() == 0)
    return {TensorType{a.dtype, {ShapeExpr::constant(1)}}};
  auto [first, last] = *range;
  llvm::ArrayRef<ShapeExpr> dims(a.shape);
  auto merged = product(ctx, dims.slice(first, last - first + 1));
  if (!merged)
    return {};
  Shape shape(dims.begin(), dims.begin() + first);
  shape.push_back(std::move(*merged));
  shape.insert(shape.end(), dims.begin() + last + 1, dims.end());
  return {TensorType{a.dtype, std::move(shape)}};
}

std::vector<TensorType> inferConcat(InferenceContext &ctx) {
  auto axis = resolveConcatAxis(ctx);
  if (!axis)
    return {};
  const TensorType &first = ctx.operands[0];
  Shape shape = first.shape;
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    const TensorType &t = ctx.operands[i];
    if (!ctx.requireSameDType(0, i) || !ctx.requireRank(i, first.rank()))
      return {};
    for (unsigned d = 0; d < first.rank(); ++d) {
      if (d == *axis || t.shape[d] == first.shape[d])
        continue;
      ctx.fail(ctx.operandLoc(i), "shape-mismatch",
               "operand " + std::to_string(i) + " of " + nodeRef(ctx) +
                   " has shape " + ctx.str(t.shape) + ", operand 0 has " +
                   ctx.str(first.shape) + ": dimension " + std::to_string(d) +
                   " differs (" + ctx.str(t.shape[d]) + " vs " +
                   ctx.str(first.shape[d]) + "); only dimension " +
                   std::to_string(*axis) + " (the axis) may differ",
               ctx.explainDimMismatch(t.shape[d], first.shape[d]));
      return {};
    }
    auto sum = ShapeExpr::add(shape[*axis], t.shape[*axis]);
    if (!sum) {
      ctx.fail(ctx.node.loc, "limit",
               "the concatenated dimension of " + nodeRef(ctx) +
                   " overflows");
      return {};
    }
    shape[*axis] = std::move(*sum);
  }
  return {TensorType{first.dtype, std::move(shape)}};
}

std::vector<TensorType> inferSlice(InferenceContext &ctx) {
  auto axes = resolveSlice(ctx);
  if (!axes)
    return {};
  TensorType result = ctx.operands[0];
  for (const SliceAxis &axis : *axes)
    result.shape[axis.axis] = axis.length;
  return {std::move(result)};
}

std::vector<TensorType> inferPad(InferenceContext &ctx) {
  auto spec = resolvePad(ctx);
  if (!spec)
    return {};
  TensorType result = ctx.operands[0];
  for (unsigned d = 0; d < result.rank(); ++d) {
    auto padded = ShapeExpr::add(
        result.shape[d], ShapeExpr::constant(spec->before[d] + spec->after[d]));
    if (!padded) {
      ctx.fail(ctx.attrLoc("pads"), "limit",
               "the padded dimension " + std::to_string(d) + " of " +
                   nodeRef(ctx) + " overflows");
      return {};
    }
    result.shape[d] = std::move(*padded);
  }
  return {std::move(result)};
}

std::vector<TensorType> inferSplit(InferenceContext &ctx) {
  auto spec = resolveSplit(ctx);
  if (!spec)
    return {};
  std::vector<TensorType> results;
  for (const ShapeExpr &size : spec->sizes) {
    TensorType piece = ctx.operands[0];
    piece.shape[spec->axis] = size;
    results.push_back(std::move(piece));
  }
  return results;
}

/// tile: dim d repeated `repeats[d]` times (numpy.tile with one positive
/// repeat per dim, ONNX Tile); a symbolic dim D becomes repeats[d]*D.
std::vector<TensorType> inferTile(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0];
  std::vector<int64_t> repeats = getIntListAttr(ctx.node, "repeats");
  if (repeats.size() != a.rank()) {
    ctx.fail(ctx.attrLoc("repeats"), "bad-attribute",
             "attribute 'repeats' of " + nodeRef(ctx) + " has " +
                 std::to_string(repeats.size()) + " entr" +
                 (repeats.size() == 1 ? "y" : "ies") +
                 ", but the operand has rank " + std::to_string(a.rank()) +
                 " (shape " + ctx.str(a.shape) + "); give one per dimension");
    return {};
  }
  const NodeAttr *attr = ctx.node.findAttribute("repeats");
  Shape shape;
  for (unsigned d = 0; d < a.rank(); ++d) {
    if (repeats[d] < 1) {
      ctx.fail(attr->value.list[d].loc, "bad-attribute",
               "entry " + std::to_string(d) + " of attribute 'repeats' of " +
                   nodeRef(ctx) + " is " + std::to_string(repeats[d]) +
                   "; each repeat count must be at least 1");
      return {};
    }
    auto tiled = ShapeExpr::mul(a.shape[d], ShapeExpr::constant(repeats[d]));
    if (!tiled) {
      ctx.fail(attr->value.list[d].loc, "limit",
               "the tiled dimension " + std::to_string(d) + " of " +
                   nodeRef(ctx) + " overflows a 64-bit integer coefficient");
      return {};
    }
    shape.push_back(std::move(*tiled));
  }
  return {TensorType{a.dtype, std::move(shape)}};
}

} // namespace

void txc::registerShapeOpShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::Broadcast, inferBroadcast);
  table.add(OpKind::BroadcastTo, inferBroadcast);
  table.add(OpKind::Reshape, inferReshape);
  table.add(OpKind::Transpose, inferTranspose);
  table.add(OpKind::Permute, inferTranspose);
  table.add(OpKind::Squeeze, inferSqueeze);
  table.add(OpKind::Unsqueeze, inferUnsqueeze);
  table.add(OpKind::Flatten, inferFlatten);
  table.add(OpKind::Concat, inferConcat);
  table.add(OpKind::Slice, inferSlice);
  table.add(OpKind::Pad, inferPad);
  table.add(OpKind::Split, inferSplit);
  table.add(OpKind::Tile, inferTile);
}
