//===- ShapeOpAttrs.cpp - Resolved attributes of shape and indexing ops ---===//
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Program/Attributes.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <sstream>

using namespace txc;

namespace {

std::string nodeRef(const InferenceContext &ctx) {
  return "'" + ctx.opName() + "' node '" + ctx.node.name + "'";
}

/// Location of entry `index` of list attribute `name` (or of the attribute).
Loc elementLoc(const InferenceContext &ctx, llvm::StringRef name,
               size_t index) {
  const NodeAttr *attr = ctx.node.findAttribute(name);
  if (attr && attr->value.kind == AttrValue::Kind::List &&
      index < attr->value.list.size())
    return attr->value.list[index].loc;
  return ctx.attrLoc(name);
}

/// Normalizes `value`, entry `index` of attribute `name`, as an axis of a
/// tensor of `rank`.
std::optional<unsigned> readAxis(InferenceContext &ctx, llvm::StringRef name,
                                 size_t index, int64_t value, unsigned rank) {
  if (auto axis = normalizeAxis(value, rank))
    return axis;
  std::string valid =
      rank == 0 ? std::string("a rank-0 tensor has no axes")
                : "valid axes are " + std::to_string(-int64_t(rank)) +
                      " to " + std::to_string(rank - 1);
  ctx.fail(elementLoc(ctx, name, index), "bad-attribute",
           "axis " + std::to_string(value) + " in attribute '" + name.str() +
               "' of " + nodeRef(ctx) + " is out of range for rank " +
               std::to_string(rank) + "; " + valid);
  return std::nullopt;
}

/// Normalizes every entry of `values` (attribute `name`) as an axis of a
/// tensor of `rank`; two entries naming the same axis are an error.
std::optional<std::vector<unsigned>>
readAxisList(InferenceContext &ctx, llvm::StringRef name,
             const std::vector<int64_t> &values, unsigned rank) {
  std::vector<unsigned> axes;
  std::vector<int> firstIndex(rank, -1);
  for (size_t i = 0; i < values.size(); ++i) {
    auto axis = readAxis(ctx, name, i, values[i], rank);
    if (!axis)
      return std::nullopt;
    if (firstIndex[*axis] >= 0) {
      ctx.fail(elementLoc(ctx, name, i), "bad-attribute",
               "attribute '" + name.str() + "' of " + nodeRef(ctx) +
                   " names axis " + std::to_string(*axis) + " twice (entries " +
                   std::to_string(firstIndex[*axis]) + " and " +
                   std::to_string(i) + ")");
      return std::nullopt;
    }
    firstIndex[*axis] = int(i);
    axes.push_back(*axis);
  }
  return axes;
}

std::string describeDim(const InferenceContext &ctx, const Shape &shape,
                        unsigned axis) {
  return "dimension " + std::to_string(axis) + " (" + ctx.str(shape[axis]) +
         ") of " + ctx.str(shape);
}

} // namespace

//===----------------------------------------------------------------------===//
// transpose, permute, squeeze, unsqueeze, flatten, concat
//===----------------------------------------------------------------------===//

std::optional<std::vector<unsigned>>
txc::resolvePermutation(InferenceContext &ctx) {
  unsigned rank = ctx.operands[0].rank();
  std::vector<int64_t> perm;
  if (hasAttr(ctx.node, "perm")) {
    perm = getIntListAttr(ctx.node, "perm");
  } else {
    for (unsigned i = 0; i < rank; ++i)
      perm.push_back(int64_t(rank - 1 - i));
  }
  if (perm.size() != rank) {
    ctx.fail(ctx.attrLoc("perm"), "bad-attribute",
             "attribute 'perm' of " + nodeRef(ctx) + " has " +
                 std::to_string(perm.size()) + " entr" +
                 (perm.size() == 1 ? "y" : "ies") +
                 ", but the operand has rank " +
                 std::to_string(rank) + " (shape " +
                 ctx.str(ctx.operands[0].shape) + ")");
    return std::nullopt;
  }
  // With as many entries as dims and no repeats, perm is a permutation.
  return readAxisList(ctx, "perm", perm, rank);
}

std::optional<std::vector<unsigned>>
txc::resolveSqueezeAxes(InferenceContext &ctx) {
  const Shape &shape = ctx.operands[0].shape;
  std::vector<unsigned> axes;
  if (!hasAttr(ctx.node, "axes")) {
    // Only static 1s: whether a symbolic dim is 1 is known only at run time,
    // and the result's rank must not depend on it.
    for (unsigned d = 0; d < shape.size(); ++d)
      if (shape[d].getConstant() == 1)
        axes.push_back(d);
    return axes;
  }
  std::vector<int64_t> values = getIntListAttr(ctx.node, "axes");
  auto normalized = readAxisList(ctx, "axes", values, shape.size());
  if (!normalized)
    return std::nullopt;
  for (size_t i = 0; i < normalized->size(); ++i) {
    unsigned axis = (*normalized)[i];
    if (shape[axis].getConstant() == 1)
      continue;
    std::vector<std::string> notes;
    if (!shape[axis].isConstant())
      notes.push_back("only dimensions that are the constant 1 can be "
                      "squeezed; a symbolic dimension is not, even if its "
                      "range includes 1");
    ctx.fail(elementLoc(ctx, "axes", i), "shape-mismatch",
             nodeRef(ctx) + " cannot squeeze " +
                 describeDim(ctx, shape, axis) + ": it is not 1",
             notes);
    return std::nullopt;
  }
  axes = *normalized;
  llvm::sort(axes);
  return axes;
}

std::optional<std::vector<unsigned>>
txc::resolveUnsqueezeAxes(InferenceContext &ctx) {
  unsigned rank = ctx.operands[0].rank();
  std::vector<int64_t> values = getIntListAttr(ctx.node, "axes");
  size_t resultRank = rank + values.size();
  if (resultRank > ProgramLimits::kMaxRank) {
    ctx.fail(ctx.attrLoc("axes"), "limit",
             nodeRef(ctx) + " would have rank " + std::to_string(resultRank) +
                 ", over the limit of " +
                 std::to_string(ProgramLimits::kMaxRank));
    return std::nullopt;
  }
  // Axes are positions in the result, as in ONNX Unsqueeze.
  auto axes = readAxisList(ctx, "axes", values, unsigned(resultRank));
  if (axes)
    llvm::sort(*axes);
  return axes;
}

std::optional<std::pair<unsigned, unsigned>>
txc::resolveFlattenRange(InferenceContext &ctx) {
  // PyTorch: a rank-0 tensor flattens like a rank-1 tensor of one element.
  unsigned rank = std::max(ctx.operands[0].rank(), 1u);
  int64_t startValue = getIntAttr(ctx.node, "start_dim", 0);
  int64_t endValue = getIntAttr(ctx.node, "end_dim", -1);
  auto first = readAxis(ctx, "start_dim", 0, startValue, rank);
  if (!first)
    return std::nullopt;
  auto last = readAxis(ctx, "end_dim", 0, endValue, rank);
  if (!last)
    return std::nullopt;
  if (*first > *last) {
    ctx.fail(ctx.attrLoc("start_dim"), "bad-attribute",
             "start_dim " + std::to_string(startValue) + " (dimension " +
                 std::to_string(*first) + ") of " + nodeRef(ctx) +
                 " is after end_dim " + std::to_string(endValue) +
                 " (dimension " + std::to_string(*last) + ")");
    return std::nullopt;
  }
  return std::make_pair(*first, *last);
}

std::optional<unsigned> txc::resolveConcatAxis(InferenceContext &ctx) {
  unsigned rank = ctx.operands[0].rank();
  if (rank == 0) {
    ctx.fail(ctx.operandLoc(0), "rank-mismatch",
             nodeRef(ctx) + " cannot concatenate rank-0 tensors; 'unsqueeze' "
                            "them to rank 1 first");
    return std::nullopt;
  }
  return readAxis(ctx, "axis", 0, getIntAttr(ctx.node, "axis", 0), rank);
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

namespace {

/// Where a slice bound `value` (negative: from the end) lands in a dim, with
/// Python's clamping: to [0, dim] for a positive step, to [-1, dim-1] for a
/// negative one (`reverse`; -1 is "before the first element"). On a symbolic
/// dim the clamp must have the same outcome for every value of the symbols,
/// so that the bound is one polynomial; nullopt (and `why`) otherwise.
/// `range` bounds the dim.
std::optional<ShapeExpr> resolveBound(const ShapeExpr &dim, int64_t value,
                                      Interval range, bool reverse,
                                      std::string &why) {
  int64_t shift = reverse ? -1 : 0; // the clamp is [shift, dim + shift]
  if (value >= 0) {
    if (__int128(value) <= __int128(range.min) + shift)
      return ShapeExpr::constant(value); // inside for every value
    if (__int128(value) >= __int128(range.max) + shift)
      return ShapeExpr::add(dim, ShapeExpr::constant(shift)); // the last
    why = std::to_string(value) + " is inside the dimension for some values "
                                  "of the symbols and past its end for others";
    return std::nullopt;
  }
  __int128 lo = __int128(range.min) + value, hi = __int128(range.max) + value;
  if (lo >= shift)
    return ShapeExpr::add(dim, ShapeExpr::constant(value)); // dim + value
  if (hi <= shift)
    return ShapeExpr::constant(shift); // before the start for every value
  why = std::to_string(value) + " counts from the end and lands before the "
                                "start of the dimension for some values of "
                                "the symbols but not for others";
  return std::nullopt;
}

/// The number of elements start, start+step, ... before end, as a
/// polynomial; nullopt (and `why`) when it is not one. A negative step
/// counts from `start` down to `end`: the same as the positive step
/// -step from `end` up to `start`.
std::optional<ShapeExpr> sliceLength(const ShapeExpr &start,
                                     const ShapeExpr &end, int64_t step,
                                     llvm::ArrayRef<Interval> ranges,
                                     std::string &why) {
  bool reverse = step < 0;
  const ShapeExpr &low = reverse ? end : start;
  const ShapeExpr &high = reverse ? start : end;
  uint64_t stride = reverse ? 0 - uint64_t(step) : uint64_t(step);
  std::string spanText = reverse ? "start - end" : "end - start";
  auto span = ShapeExpr::sub(high, low);
  if (!span) {
    why = "its length overflows";
    return std::nullopt;
  }
  Interval bounds = span->bounds(ranges);
  if (bounds.max <= 0)
    return ShapeExpr::constant(0); // empty for every value
  if (bounds.min < 0) {
    why = "its length (" + spanText +
          ") is negative for some values of the symbols and positive for "
          "others";
    return std::nullopt;
  }
  if (auto constant = span->getConstant())
    return ShapeExpr::constant(int64_t((uint64_t(*constant) + stride - 1) /
                                       stride));
  if (stride == 1)
    return span;
  // ceil(span / stride) is q when span + c = stride*q as polynomials, with
  // c in [0, stride) making the constant term divisible (2*K-1 by 2: K).
  if (stride <= uint64_t(INT64_MAX)) {
    int64_t divisor = int64_t(stride);
    int64_t r = span->constantTerm() % divisor; // in (-divisor, divisor)
    int64_t c = r <= 0 ? -r : divisor - r;
    if (auto rounded = ShapeExpr::add(*span, ShapeExpr::constant(c)))
      if (auto exact = rounded->divExact(divisor))
        return exact;
  }
  why = "with step " + std::to_string(step) + " its length " + "ceil((" +
        spanText + ") / " + std::to_string(stride) +
        ") is not a polynomial: apart from its constant term, " + spanText +
        " must be divisible by the step as a polynomial";
  return std::nullopt;
}

} // namespace

namespace {

/// The lists of a slice, with the defaults of `axes` and `steps` filled in
/// and every list as long as `starts`.
struct SliceLists {
  std::vector<int64_t> starts, ends, axes, steps;
};

std::optional<SliceLists> readSliceLists(InferenceContext &ctx) {
  SliceLists lists;
  lists.starts = getIntListAttr(ctx.node, "starts");
  lists.ends = getIntListAttr(ctx.node, "ends");
  size_t count = lists.starts.size();
  std::vector<int64_t> allAxes;
  for (size_t i = 0; i < count; ++i)
    allAxes.push_back(int64_t(i));
  lists.axes = getIntListAttr(ctx.node, "axes", allAxes);
  lists.steps = getIntListAttr(ctx.node, "steps",
                               std::vector<int64_t>(count, 1));
  auto sameLength = [&](const char *name, size_t size) {
    if (size == count)
      return true;
    ctx.fail(ctx.attrLoc(name), "bad-attribute",
             "attribute '" + std::string(name) + "' of " + nodeRef(ctx) +
                 " has " + std::to_string(size) + " entr" +
                 (size == 1 ? "y" : "ies") + ", but 'starts' has " +
                 std::to_string(count));
    return false;
  };
  if (!sameLength("ends", lists.ends.size()) ||
      !sameLength("axes", lists.axes.size()) ||
      !sameLength("steps", lists.steps.size()))
    return std::nullopt;
  return lists;
}

/// Entry `i` of the slice lists, along `axis`.
std::optional<SliceAxis> resolveSliceAxis(InferenceContext &ctx,
                                          const SliceLists &lists, size_t i,
                                          unsigned axis) {
  const Shape &shape = ctx.operands[0].shape;
  const ShapeExpr &dim = shape[axis];
  int64_t step = lists.steps[i];
  if (step == 0) {
    ctx.fail(elementLoc(ctx, "steps", i), "bad-attribute",
             "step 0 of " + nodeRef(ctx) +
                 " must not be 0 (a positive step slices forward, a "
                 "negative one backward)");
    return std::nullopt;
  }
  bool reverse = step < 0;
  std::vector<Interval> ranges = ctx.program.symbolRanges();
  Interval range = dim.bounds(ranges);
  std::string why;
  auto badBound = [&](const char *name) {
    std::string clamp =
        reverse ? "[-1, " + ctx.str(*ShapeExpr::add(dim, ShapeExpr::constant(
                                         -1))) + "]"
                : "[0, " + ctx.str(dim) + "]";
    ctx.fail(elementLoc(ctx, name, i), "shape-mismatch",
             nodeRef(ctx) + " cannot slice " + describeDim(ctx, shape, axis) +
                 ": " + (name[0] == 's' ? "start " : "end ") + why,
             {"on a symbolic dimension each bound must be inside " + clamp +
              (reverse ? " (a negative step's clamp)" : "") +
              " for every value of the symbols (or outside it for every "
              "value); " + ctx.str(dim) + " ranges over [" +
              std::to_string(range.min) + ", " + std::to_string(range.max) +
              "]"});
    return std::nullopt;
  };
  auto start = resolveBound(dim, lists.starts[i], range, reverse, why);
  if (!start)
    return badBound("starts");
  auto end = resolveBound(dim, lists.ends[i], range, reverse, why);
  if (!end)
    return badBound("ends");
  auto length = sliceLength(*start, *end, step, ranges, why);
  if (!length) {
    ctx.fail(elementLoc(ctx, "starts", i), "shape-mismatch",
             nodeRef(ctx) + " cannot slice " + describeDim(ctx, shape, axis) +
                 " from " + ctx.str(*start) + " to " + ctx.str(*end) + ": " +
                 why);
    return std::nullopt;
  }
  return SliceAxis{axis, *start, step, *length};
}

} // namespace

std::optional<std::vector<SliceAxis>> txc::resolveSlice(InferenceContext &ctx) {
  auto lists = readSliceLists(ctx);
  if (!lists)
    return std::nullopt;
  auto axes = readAxisList(ctx, "axes", lists->axes, ctx.operands[0].rank());
  if (!axes)
    return std::nullopt;
  std::vector<SliceAxis> result;
  for (size_t i = 0; i < axes->size(); ++i) {
    auto axis = resolveSliceAxis(ctx, *lists, i, (*axes)[i]);
    if (!axis)
      return std::nullopt;
    result.push_back(std::move(*axis));
  }
  llvm::sort(result, [](const SliceAxis &a, const SliceAxis &b) {
    return a.axis < b.axis;
  });
  return result;
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

namespace {

/// True when `value` is exactly an element of the integer or bool `dtype`.
bool fitsIntegerDType(double value, DType dtype) {
  if (std::floor(value) != value)
    return false;
  switch (dtype) {
  case DType::Bool: return value == 0 || value == 1;
  case DType::U8: return value >= 0 && value <= 255;
  case DType::U16: return value >= 0 && value <= 65535;
  case DType::U32: return value >= 0 && value <= 4294967295.0;
  case DType::U64: return value >= 0 && value < 18446744073709551616.0;
  case DType::I8: return value >= -128 && value <= 127;
  case DType::I16: return value >= -32768 && value <= 32767;
  case DType::I32: return value >= -2147483648.0 && value <= 2147483647.0;
  case DType::I64: return value >= -9223372036854775808.0 &&
                          value < 9223372036854775808.0;
  default: return true;
  }
}

std::optional<PadMode> readPadMode(InferenceContext &ctx) {
  std::string mode = getStringAttr(ctx.node, "mode", "constant");
  if (mode == "constant")
    return PadMode::Constant;
  if (mode == "reflect")
    return PadMode::Reflect;
  if (mode == "edge")
    return PadMode::Edge;
  ctx.fail(ctx.attrLoc("mode"), "bad-attribute",
           "unknown pad mode '" + mode + "' of " + nodeRef(ctx) +
               " (expected 'constant', 'reflect' or 'edge')");
  return std::nullopt;
}

/// reflect and edge read the operand near each padded border: reflect needs
/// more elements than the padding, edge needs one.
bool checkBorderSource(InferenceContext &ctx, const PadSpec &spec,
                       unsigned axis) {
  int64_t pad = std::max(spec.before[axis], spec.after[axis]);
  if (pad == 0 || spec.mode == PadMode::Constant)
    return true;
  const ShapeExpr &dim = ctx.operands[0].shape[axis];
  int64_t lowest = dim.bounds(ctx.program.symbolRanges()).min;
  int64_t needed = spec.mode == PadMode::Reflect ? pad + 1 : 1;
  if (lowest >= needed)
    return true;
  std::string mode = spec.mode == PadMode::Reflect ? "reflect" : "edge";
  ctx.fail(ctx.attrLoc("pads"), "shape-mismatch",
           "mode '" + mode + "' of " + nodeRef(ctx) + " pads " +
               describeDim(ctx, ctx.operands[0].shape, axis) + " by " +
               std::to_string(pad) + ", which needs the dimension to be at "
                                     "least " +
               std::to_string(needed) +
               (dim.isConstant() ? std::string()
                                 : " for every value of the symbols; it can "
                                   "be as low as " +
                                       std::to_string(lowest)));
  return false;
}

} // namespace

std::optional<PadSpec> txc::resolvePad(InferenceContext &ctx) {
  const TensorType &operand = ctx.operands[0];
  unsigned rank = operand.rank();
  std::vector<int64_t> pads = getIntListAttr(ctx.node, "pads");
  if (pads.size() != 2 * size_t(rank)) {
    std::string last = std::to_string(int(rank) - 1);
    std::string layout =
        rank == 0   ? std::string()
        : rank == 1 ? " ([before_0, after_0])"
                    : " ([before_0, ..., before_" + last + ", after_0, ..., "
                      "after_" + last + "])";
    ctx.fail(ctx.attrLoc("pads"), "bad-attribute",
             "attribute 'pads' of " + nodeRef(ctx) + " has " +
                 std::to_string(pads.size()) + " entries; an operand of rank " +
                 std::to_string(rank) + " needs " + std::to_string(2 * rank) +
                 layout);
    return std::nullopt;
  }
  for (size_t i = 0; i < pads.size(); ++i)
    if (pads[i] < 0 || pads[i] > ProgramLimits::kMaxTensorBytes) {
      ctx.fail(elementLoc(ctx, "pads", i), "bad-attribute",
               "entry " + std::to_string(i) + " of attribute 'pads' of " +
                   nodeRef(ctx) + " is " + std::to_string(pads[i]) +
                   (pads[i] < 0 ? "; pads must not be negative (use 'slice' "
                                  "to remove elements)"
                                : ", over the limit"));
      return std::nullopt;
    }
  PadSpec spec;
  spec.before.assign(pads.begin(), pads.begin() + rank);
  spec.after.assign(pads.begin() + rank, pads.end());
  auto mode = readPadMode(ctx);
  if (!mode)
    return std::nullopt;
  spec.mode = *mode;
  if (spec.mode != PadMode::Constant && hasAttr(ctx.node, "value")) {
    ctx.fail(ctx.attrLoc("value"), "bad-attribute",
             "attribute 'value' of " + nodeRef(ctx) +
                 " applies only to mode 'constant'");
    return std::nullopt;
  }
  spec.value = getFloatAttr(ctx.node, "value", 0);
  if (!isFloat(operand.dtype) && !fitsIntegerDType(spec.value, operand.dtype)) {
    std::ostringstream value;
    value << spec.value; // shortest form: 1.5, 300, 1e+20
    ctx.fail(ctx.attrLoc("value"), "bad-attribute",
             "pad value " + value.str() + " of " +
                 nodeRef(ctx) + " is not a value of dtype " +
                 dtypeName(operand.dtype).str());
    return std::nullopt;
  }
  for (unsigned d = 0; d < rank; ++d)
    if (!checkBorderSource(ctx, spec, d))
      return std::nullopt;
  return spec;
}

//===----------------------------------------------------------------------===//
// split
//===----------------------------------------------------------------------===//

namespace {

/// Sizes of `num` equal pieces of `dim`.
std::optional<std::vector<ShapeExpr>>
splitEvenly(InferenceContext &ctx, const Shape &shape, unsigned axis,
            int64_t num) {
  const ShapeExpr &dim = shape[axis];
  auto piece = dim.divExact(num);
  if (piece)
    return std::vector<ShapeExpr>(size_t(num), *piece);
  // Divisible as a polynomial, where a symbol declared multiple_of m
  // counts as m times a symbol: K multiple_of 4 splits in two.
  std::vector<std::string> notes;
  if (auto needed = dim.multipleNeededFor(num))
    notes.push_back(suggestMultipleOf(ctx.program.symbols[needed->id].name,
                                      needed->multipleOf));
  else if (!dim.isConstant())
    notes.push_back("the dimension must be divisible by " +
                    std::to_string(num) + " as a polynomial, e.g. " +
                    std::to_string(num) + " times a symbol");
  ctx.fail(ctx.attrLoc("num"), "shape-mismatch",
           nodeRef(ctx) + " cannot split " + describeDim(ctx, shape, axis) +
               " into " + std::to_string(num) + " equal pieces",
           notes);
  return std::nullopt;
}

/// Explicit sizes; one of them may be -1 for the rest of the dim.
std::optional<std::vector<ShapeExpr>>
splitBySizes(InferenceContext &ctx, const Shape &shape, unsigned axis) {
  const ShapeExpr &dim = shape[axis];
  std::vector<int64_t> values = getIntListAttr(ctx.node, "sizes");
  std::vector<ShapeExpr> sizes;
  int rest = -1;
  int64_t sum = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == -1 && rest < 0) {
      rest = int(i);
      sizes.emplace_back();
      continue;
    }
    if (values[i] < 0 || values[i] > ProgramLimits::kMaxTensorBytes) {
      ctx.fail(elementLoc(ctx, "sizes", i), "bad-attribute",
               "size " + std::to_string(values[i]) + " in attribute 'sizes' "
               "of " + nodeRef(ctx) + " must be a non-negative integer (or "
               "-1, once, for the rest)");
      return std::nullopt;
    }
    sum += values[i]; // no overflow: at most 1024 entries of at most 2^48
    sizes.push_back(ShapeExpr::constant(values[i]));
  }
  auto remainder = ShapeExpr::sub(dim, ShapeExpr::constant(sum));
  Interval bounds = remainder->bounds(ctx.program.symbolRanges());
  if (rest >= 0 && bounds.min >= 0) {
    sizes[rest] = *remainder;
    return sizes;
  }
  if (rest < 0 && remainder->getConstant() == 0)
    return sizes;
  std::string problem =
      rest >= 0 ? "the fixed sizes add up to " + std::to_string(sum) +
                      ", more than the dimension for some values of the "
                      "symbols (it can be as low as " +
                      std::to_string(dim.bounds(ctx.program.symbolRanges()).min) +
                      ")"
                : "'sizes' add up to " + std::to_string(sum);
  std::vector<std::string> notes;
  if (rest < 0 && !dim.isConstant())
    notes.push_back("sizes are static; on a symbolic dimension give -1 for "
                    "one piece (the rest) or use 'num'");
  ctx.fail(ctx.attrLoc("sizes"), "shape-mismatch",
           nodeRef(ctx) + " cannot split " + describeDim(ctx, shape, axis) +
               ": " + problem,
           notes);
  return std::nullopt;
}

} // namespace

std::optional<SplitSpec> txc::resolveSplit(InferenceContext &ctx) {
  const Shape &shape = ctx.operands[0].shape;
  auto axis = readAxis(ctx, "axis", 0, getIntAttr(ctx.node, "axis", 0),
                       shape.size());
  if (!axis)
    return std::nullopt;
  bool bySizes = hasAttr(ctx.node, "sizes"), byNum = hasAttr(ctx.node, "num");
  if (bySizes == byNum) {
    ctx.fail(ctx.node.loc, "bad-attribute",
             nodeRef(ctx) + " needs exactly one of the attributes 'sizes' "
                            "and 'num'");
    return std::nullopt;
  }
  size_t count = bySizes ? getIntListAttr(ctx.node, "sizes").size()
                         : size_t(std::max<int64_t>(
                               getIntAttr(ctx.node, "num", 0), 0));
  if (count < 1 || count > ProgramLimits::kMaxOutputs) {
    ctx.fail(ctx.attrLoc(bySizes ? "sizes" : "num"), "bad-attribute",
             nodeRef(ctx) + " must split into 1 to " +
                 std::to_string(ProgramLimits::kMaxOutputs) + " pieces");
    return std::nullopt;
  }
  auto sizes = bySizes ? splitBySizes(ctx, shape, *axis)
                       : splitEvenly(ctx, shape, *axis, int64_t(count));
  if (!sizes)
    return std::nullopt;
  return SplitSpec{*axis, std::move(*sizes)};
}

//===----------------------------------------------------------------------===//
// The indexing ops
//===----------------------------------------------------------------------===//

bool txc::hasIndexOperand(OpKind kind) {
  switch (kind) {
  case OpKind::Gather:
  case OpKind::Embedding:
  case OpKind::GatherElements:
  case OpKind::GatherND:
  case OpKind::ScatterElements:
  case OpKind::ScatterND:
    return true;
  default:
    return false;
  }
}

bool txc::indicesWrapNegative(const Node &node) {
  // numpy and ONNX wrap negative indices; only gather has the choice, and
  // embedding (PyTorch's) never wraps.
  if (node.kind == OpKind::Gather)
    return getBoolAttr(node, "wrap_negative", false);
  return node.kind != OpKind::Embedding;
}

/// Fails when data (operand 0) has rank 0: there is no dim to index.
static bool requireIndexableData(InferenceContext &ctx) {
  if (ctx.operands[0].rank() > 0)
    return true;
  bool scatter = ctx.node.kind == OpKind::ScatterElements ||
                 ctx.node.kind == OpKind::ScatterND;
  ctx.fail(ctx.operandLoc(0), "rank-mismatch",
           nodeRef(ctx) +
               (scatter ? " cannot scatter into" : " cannot gather from") +
               " a rank-0 tensor");
  return false;
}

std::optional<unsigned> txc::resolveGatherAxis(InferenceContext &ctx) {
  if (ctx.node.kind == OpKind::Embedding)
    return 0u;
  if (!requireIndexableData(ctx))
    return std::nullopt;
  return readAxis(ctx, "axis", 0, getIntAttr(ctx.node, "axis", 0),
                  ctx.operands[0].rank());
}

/// gather_nd's batch_dims: fewer than the rank of data and of indices.
static std::optional<unsigned> readBatchDims(InferenceContext &ctx) {
  if (ctx.node.kind != OpKind::GatherND)
    return 0u;
  int64_t value = getIntAttr(ctx.node, "batch_dims", 0);
  int64_t limit = std::min(ctx.operands[0].rank(), ctx.operands[1].rank());
  if (value >= 0 && value < limit)
    return unsigned(value);
  ctx.fail(ctx.attrLoc("batch_dims"), "bad-attribute",
           "batch_dims " + std::to_string(value) + " of " + nodeRef(ctx) +
               " must be in [0, " + std::to_string(limit - 1) +
               "]: below the rank of data (" +
               std::to_string(ctx.operands[0].rank()) + ") and of indices (" +
               std::to_string(ctx.operands[1].rank()) + ")");
  return std::nullopt;
}

/// The index tuples' length: the last dim of indices, a constant of at most
/// the dims of data after the batch dims (at least 1 for gather_nd, as
/// ONNX's GatherND requires).
static std::optional<unsigned> readTupleDepth(InferenceContext &ctx,
                                              unsigned batchDims) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  const ShapeExpr &last = indices.shape.back();
  std::optional<int64_t> depth = last.getConstant();
  if (!depth) {
    ctx.fail(ctx.operandLoc(1), "shape-mismatch",
             nodeRef(ctx) + ": the last dim of indices (" + ctx.str(last) +
                 ") is the length of its index tuples and must be a "
                 "constant, not a symbolic dim");
    return std::nullopt;
  }
  int64_t available = data.rank() - batchDims;
  int64_t least = ctx.node.kind == OpKind::GatherND ? 1 : 0;
  if (*depth >= least && *depth <= available)
    return unsigned(*depth);
  std::string batch =
      batchDims ? " and " + std::to_string(batchDims) + " batch dims" : "";
  ctx.fail(ctx.operandLoc(1), "shape-mismatch",
           nodeRef(ctx) + ": its index tuples (the last dim of indices) have " +
               std::to_string(*depth) + " entries, but data has rank " +
               std::to_string(data.rank()) + batch + ": they need " +
               std::to_string(least) + " to " + std::to_string(available));
  return std::nullopt;
}

std::optional<IndexTuples> txc::resolveIndexTuples(InferenceContext &ctx) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  if (!requireIndexableData(ctx))
    return std::nullopt;
  if (indices.rank() == 0) {
    ctx.fail(ctx.operandLoc(1), "rank-mismatch",
             nodeRef(ctx) + " needs indices of rank at least 1 (index "
                            "tuples along their last dim), not rank 0");
    return std::nullopt;
  }
  std::optional<unsigned> batchDims = readBatchDims(ctx);
  if (!batchDims)
    return std::nullopt;
  std::optional<unsigned> depth = readTupleDepth(ctx, *batchDims);
  if (!depth)
    return std::nullopt;
  for (unsigned d = 0; d < *batchDims; ++d) {
    if (indices.shape[d] == data.shape[d])
      continue;
    ctx.fail(ctx.operandLoc(1), "shape-mismatch",
             nodeRef(ctx) + ": batch dim " + std::to_string(d) +
                 " of indices (" + ctx.str(indices.shape[d]) +
                 ") differs from data's (" + ctx.str(data.shape[d]) + ")",
             ctx.explainDimMismatch(indices.shape[d], data.shape[d]));
    return std::nullopt;
  }
  return IndexTuples{*batchDims, *depth};
}

std::optional<std::vector<IndexedDataDim>>
txc::resolveIndexedDims(InferenceContext &ctx) {
  if (ctx.node.kind == OpKind::GatherND || ctx.node.kind == OpKind::ScatterND) {
    std::optional<IndexTuples> tuples = resolveIndexTuples(ctx);
    if (!tuples)
      return std::nullopt;
    std::vector<IndexedDataDim> dims;
    for (unsigned j = 0; j < tuples->depth; ++j)
      dims.push_back({tuples->batchDims + j, j});
    return dims;
  }
  std::optional<unsigned> axis = resolveGatherAxis(ctx);
  if (!axis)
    return std::nullopt;
  return std::vector<IndexedDataDim>{{*axis, std::nullopt}};
}

std::optional<ScatterReduction>
txc::resolveScatterReduction(InferenceContext &ctx) {
  std::string name = getStringAttr(ctx.node, "reduction", "none");
  std::optional<ScatterReduction> reduction;
  if (name == "none")
    return ScatterReduction::None;
  if (name == "add")
    reduction = ScatterReduction::Add;
  else if (name == "mul")
    reduction = ScatterReduction::Mul;
  if (!reduction) {
    ctx.fail(ctx.attrLoc("reduction"), "bad-attribute",
             "unknown reduction '" + name + "' of " + nodeRef(ctx) +
                 " (expected 'none', 'add' or 'mul')");
    return std::nullopt;
  }
  if (ctx.operands[0].dtype == DType::Bool) {
    ctx.fail(ctx.attrLoc("reduction"), "bad-attribute",
             "reduction '" + name + "' of " + nodeRef(ctx) +
                 " needs numeric data, not bool");
    return std::nullopt;
  }
  return reduction;
}
