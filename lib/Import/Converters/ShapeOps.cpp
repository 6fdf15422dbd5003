//===- ShapeOps.cpp - ONNX shape ops and the shape arithmetic -------------===//
//
// Exporters compute dynamic shapes with tensors: Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape, ConstantOfShape, Range, Expand, Slice.
// Here those tensors are KnownTensors whose elements are polynomials over
// the symbols (Shape of [batch, 16, S] is [batch, 16, S]), so every
// consumer gets symbolic dims (reshape to [batch, 16*S]) and no txc node
// computes a shape. Only a shape that depends on tensor values is
// rejected.
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace txc;
using namespace txc::onnximport;

namespace {

/// Shape-15 (start, end) of any tensor: known at import.
llvm::LogicalResult convertShape(NodeImporter &node) {
  const Shape &shape = node.input(0).type.shape;
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t index) {
    if (index < 0)
      index += rank;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t start = clampIndex(node.intAttr("start", 0));
  int64_t end = clampIndex(node.intAttr("end", rank));
  std::vector<ShapeExpr> dims;
  for (int64_t d = start; d < end; ++d)
    dims.push_back(shape[d]);
  int64_t count = dims.size();
  return node.setKnownOutput(
      0, KnownTensor::fromInts(DType::I64, {count}, std::move(dims)));
}

llvm::LogicalResult convertSize(NodeImporter &node) {
  ShapeExpr size = ShapeExpr::constant(1);
  for (const ShapeExpr &dim : node.input(0).type.shape)
    size = *ShapeExpr::mul(size, dim);
  return node.setKnownOutput(0, KnownTensor::fromInts(DType::I64, {}, {size}));
}

/// Constant-13: one of value, value_float(s), value_int(s).
llvm::LogicalResult convertConstant(NodeImporter &node) {
  if (const onnx::AttributeProto *value = node.attr("value")) {
    std::string problem;
    std::shared_ptr<KnownTensor> known =
        readTensorProto(value->t(), node.owner(), problem);
    if (!known)
      return node.invalid("its value " + problem);
    return node.setKnownOutput(0, std::move(known));
  }
  if (const onnx::AttributeProto *value = node.attr("value_float"))
    return node.setKnownOutput(0, knownFloats(DType::F32, {}, {value->f()}));
  if (const onnx::AttributeProto *values = node.attr("value_floats"))
    return node.setKnownOutput(
        0, knownFloats(DType::F32, {values->floats_size()},
                       std::vector<double>(values->floats().begin(),
                                           values->floats().end())));
  if (const onnx::AttributeProto *value = node.attr("value_int"))
    return node.setKnownOutput(
        0, KnownTensor::fromInts(DType::I64, {},
                                 {ShapeExpr::constant(value->i())}));
  if (const onnx::AttributeProto *values = node.attr("value_ints")) {
    std::vector<ShapeExpr> ints;
    for (int64_t v : values->ints())
      ints.push_back(ShapeExpr::constant(v));
    return node.setKnownOutput(
        0, KnownTensor::fromInts(DType::I64, {values->ints_size()},
                                 std::move(ints)));
  }
  return node.unsupported("its value is a string or sparse tensor",
                          "txc has no string or sparse tensors");
}

/// The dims given by a known shape tensor (Reshape, Expand,
/// ConstantOfShape): integers or polynomials over the symbols.
std::optional<Shape> requireShapeInput(NodeImporter &node, unsigned i) {
  const KnownTensor *known = node.known(i);
  if (!known || !known->ints) {
    (void)node.unsupported(
        "its shape (input " + llvm::Twine(i) +
            ") depends on tensor values, not only on input shapes",
        "txc's shapes are known when the call starts: compute the shape "
        "from Shape nodes and constants");
    return std::nullopt;
  }
  if (known->dims.size() != 1) {
    (void)node.invalid("its shape input is not 1-D");
    return std::nullopt;
  }
  return *known->ints;
}

/// A known tensor with new dims (same elements).
std::shared_ptr<KnownTensor> reshapedKnown(const KnownTensor &known,
                                           std::vector<int64_t> dims) {
  auto result = std::make_shared<KnownTensor>(known);
  result->dims = std::move(dims);
  return result;
}

std::optional<std::vector<int64_t>> staticShape(const Shape &shape) {
  std::vector<int64_t> dims;
  for (const ShapeExpr &dim : shape) {
    std::optional<int64_t> constant = dim.getConstant();
    if (!constant)
      return std::nullopt;
    dims.push_back(*constant);
  }
  return dims;
}

/// Reshape-14: 0 copies the input's dim (unless allowzero), -1 is
/// inferred (by txc's reshape rule, as a polynomial quotient).
llvm::LogicalResult convertReshape(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::optional<Shape> target = requireShapeInput(node, 1);
  if (!target)
    return llvm::failure();
  bool allowZero = node.intAttr("allowzero", 0) != 0;
  for (size_t d = 0; d < target->size(); ++d) {
    std::optional<int64_t> constant = (*target)[d].getConstant();
    if (constant && *constant == 0 && !allowZero) {
      if (d >= data.type.rank())
        return node.invalid("its shape copies dim " + llvm::Twine(d) +
                            " of a tensor of rank " +
                            llvm::Twine(data.type.rank()));
      (*target)[d] = data.type.shape[d];
    }
  }
  if (data.known && data.known->hasBytes()) {
    // Reshaping a known tensor (shape arithmetic, constants) at import.
    std::optional<std::vector<int64_t>> dims = staticShape(*target);
    if (dims && llvm::count(*dims, -1) == 0)
      return node.setKnownOutput(0, reshapedKnown(*data.known, *dims));
  }
  if (*target == data.type.shape)
    return node.setOutput(0, data);
  return node.emitOutput(
      0, "reshape", {data},
      {shapeAttr("shape", *target, node.program().symbolNames())});
}

/// Flatten-13: [d0..d(axis-1)] and [d(axis)..] as two dims.
llvm::LogicalResult convertFlatten(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  int64_t rank = data.type.rank();
  int64_t axis = node.intAttr("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return node.invalid("its axis is out of range");
  Shape target = {ShapeExpr::constant(1), ShapeExpr::constant(1)};
  for (int64_t d = 0; d < rank; ++d)
    target[d < axis ? 0 : 1] =
        *ShapeExpr::mul(target[d < axis ? 0 : 1], data.type.shape[d]);
  if (target == data.type.shape)
    return node.setOutput(0, data);
  return node.emitOutput(
      0, "reshape", {data},
      {shapeAttr("shape", target, node.program().symbolNames())});
}

/// Axes from the `axes` input (opset 13+), normalized for `rank`.
std::optional<std::vector<int64_t>> readAxes(NodeImporter &node, unsigned i,
                                             int64_t rank) {
  std::optional<std::vector<int64_t>> axes = node.requireStaticInts(i, "axes");
  if (!axes)
    return std::nullopt;
  for (int64_t &axis : *axes) {
    std::optional<int64_t> normalized = normalizeOnnxAxis(axis, rank);
    if (!normalized) {
      (void)node.invalid("its axis " + llvm::Twine(axis) +
                         " is out of range for rank " + llvm::Twine(rank));
      return std::nullopt;
    }
    axis = *normalized;
  }
  llvm::sort(*axes);
  return axes;
}

/// Unsqueeze-13.
llvm::LogicalResult convertUnsqueeze(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  const KnownTensor *axesKnown = node.known(1);
  int64_t resultRank =
      data.type.rank() + (axesKnown ? axesKnown->numElements() : 0);
  std::optional<std::vector<int64_t>> axes = readAxes(node, 1, resultRank);
  if (!axes)
    return llvm::failure();
  if (data.known) {
    std::vector<int64_t> dims = data.known->dims;
    for (int64_t axis : *axes)
      dims.insert(dims.begin() + std::min<int64_t>(axis, dims.size()), 1);
    return node.setKnownOutput(0, reshapedKnown(*data.known, dims));
  }
  return node.emitOutput(0, "unsqueeze", {data}, {intListAttr("axes", *axes)});
}

/// Squeeze-13: without axes, every static 1.
llvm::LogicalResult convertSqueeze(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::vector<int64_t> axes;
  if (node.hasInput(1)) {
    std::optional<std::vector<int64_t>> given =
        readAxes(node, 1, data.type.rank());
    if (!given)
      return llvm::failure();
    axes = *given;
  } else {
    for (unsigned d = 0; d < data.type.rank(); ++d)
      if (data.type.shape[d] == ShapeExpr::constant(1))
        axes.push_back(d);
  }
  if (data.known) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < int64_t(data.known->dims.size()); ++d)
      if (!llvm::is_contained(axes, d))
        dims.push_back(data.known->dims[d]);
    return node.setKnownOutput(0, reshapedKnown(*data.known, dims));
  }
  return node.emitOutput(0, "squeeze", {data}, {intListAttr("axes", axes)});
}

/// Concat-13; known 1-D integer tensors (shapes) are concatenated at
/// import.
llvm::LogicalResult convertConcat(NodeImporter &node) {
  int64_t axis = node.intAttr("axis", 0);
  bool allKnown = true;
  std::vector<ImportedValue> operands;
  for (unsigned i = 0; i < node.numInputs(); ++i) {
    const ImportedValue &value = node.input(i);
    allKnown &= value.known && value.known->ints && value.type.rank() == 1;
    operands.push_back(value);
  }
  if (allKnown) {
    std::vector<ShapeExpr> values;
    for (const ImportedValue &value : operands)
      llvm::append_range(values, *value.known->ints);
    int64_t count = values.size();
    return node.setKnownOutput(
        0, KnownTensor::fromInts(operands[0].type.dtype, {count},
                                 std::move(values)));
  }
  // Empty operands are legal in ONNX and contribute nothing.
  llvm::erase_if(operands, [&](const ImportedValue &value) {
    return value.known && value.known->numElements() == 0;
  });
  if (operands.size() == 1)
    return node.setOutput(0, operands[0]);
  return node.emitOutput(0, "concat", operands, {intAttr("axis", axis)});
}

/// Gather-13. On a known integer tensor with known indices (Shape ->
/// Gather) it folds; otherwise txc's gather. ONNX's negative indices count
/// from the end: indices known at import are checked and normalized here,
/// others are read by a gather with wrap_negative.
llvm::LogicalResult convertGather(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  const ImportedValue &indices = node.input(1);
  int64_t rank = data.type.rank();
  std::optional<int64_t> axis = normalizeOnnxAxis(node.intAttr("axis", 0), rank);
  if (!axis)
    return node.invalid("its axis is out of range");
  std::optional<int64_t> axisDim = data.type.shape[*axis].getConstant();
  const KnownTensor *knownIndices = indices.known.get();
  std::optional<std::vector<int64_t>> indexValues =
      knownIndices ? knownIndices->staticInts() : std::nullopt;
  if (indexValues && axisDim) {
    for (int64_t &index : *indexValues) {
      if (index < -*axisDim || index >= *axisDim)
        return node.invalid("its index " + llvm::Twine(index) +
                            " is out of range for a dim of " +
                            llvm::Twine(*axisDim));
      if (index < 0)
        index += *axisDim;
    }
    // Folding: gathering elements of a known 1-D integer tensor.
    if (data.known && data.known->ints && rank == 1) {
      std::vector<ShapeExpr> values;
      for (int64_t index : *indexValues)
        values.push_back((*data.known->ints)[index]);
      return node.setKnownOutput(
          0, KnownTensor::fromInts(data.type.dtype, knownIndices->dims,
                                   std::move(values)));
    }
    std::vector<ShapeExpr> normalized;
    for (int64_t index : *indexValues)
      normalized.push_back(ShapeExpr::constant(index));
    return node.emitOutput(
        0, "gather",
        {data, node.constant(KnownTensor::fromInts(
                   indices.type.dtype, knownIndices->dims, normalized))},
        {intAttr("axis", *axis)});
  }
  // ONNX's negative indices count from the end: txc's wrap_negative.
  return node.emitOutput(
      0, "gather", {data, indices},
      {intAttr("axis", *axis), boolAttr("wrap_negative", true)});
}

/// OneHot-11: output[..., k, ...] (k at `axis`) is values[1] where the
/// index equals k and values[0] elsewhere. The depth must be known; an
/// index in [-depth, -1] counts from the end, and one outside [-depth,
/// depth-1] matches no k (all off), as ONNX says: eq of the wrapped indices
/// against the constant positions 0..depth-1, then a select.
llvm::LogicalResult convertOneHot(NodeImporter &node) {
  constexpr int64_t kMaxDepth = int64_t(1) << 20;
  const ImportedValue &indices = node.input(0);
  const ImportedValue &values = node.input(2);
  std::optional<std::vector<double>> depthValue =
      node.requireKnownDoubles(1, "depth");
  if (!depthValue)
    return llvm::failure();
  if (depthValue->size() != 1)
    return node.invalid("its depth has " + llvm::Twine(depthValue->size()) +
                        " elements, not one");
  if (!(depthValue->front() >= 1 && depthValue->front() <= double(kMaxDepth)))
    return node.unsupported("its depth is " +
                                llvm::Twine(std::to_string(depthValue->front())),
                            "txc takes a depth in [1, 2^20]");
  if (values.type.shape != Shape{ShapeExpr::constant(2)})
    return node.invalid("its values have shape " + node.str(values.type.shape) +
                        ", not [2] (off, on)");
  int64_t depth = int64_t(depthValue->front()); // ONNX casts it to int64
  int64_t rank = indices.type.rank();
  std::optional<int64_t> axis =
      normalizeOnnxAxis(node.intAttr("axis", -1), rank + 1);
  if (!axis)
    return node.invalid("its axis is out of range");
  MaybeValue index = indices;
  if (indices.type.dtype != DType::I64)
    index = node.emit("cast", {indices}, {stringAttr("dtype", "i64")});
  MaybeValue wrapped = emitIf(
      node, "select",
      {emitIf(node, "lt", {index, node.scalar(DType::I64, 0)}),
       emitIf(node, "add", {index, node.scalar(DType::I64, double(depth))}),
       index});
  std::vector<int64_t> positionDims(rank - *axis + 1, 1);
  positionDims[0] = depth;
  std::vector<ShapeExpr> positions;
  for (int64_t k = 0; k < depth; ++k)
    positions.push_back(ShapeExpr::constant(k));
  MaybeValue hot = emitIf(
      node, "eq",
      {emitIf(node, "unsqueeze", {wrapped}, {intListAttr("axes", {*axis})}),
       node.constant(KnownTensor::fromInts(DType::I64, positionDims,
                                           std::move(positions)))});
  auto element = [&](int64_t i) {
    return node.emit("slice", {values},
                     {intListAttr("starts", {i}), intListAttr("ends", {i + 1})});
  };
  return outputIf(node, emitIf(node, "select", {hot, element(1), element(0)}));
}

/// Transpose-13 (default: reversed dims).
llvm::LogicalResult convertTranspose(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::vector<int64_t> perm;
  if (std::optional<std::vector<int64_t>> given = node.intsAttr("perm")) {
    perm = *given;
  } else {
    for (int64_t d = int64_t(data.type.rank()) - 1; d >= 0; --d)
      perm.push_back(d);
  }
  bool identity = true;
  for (size_t d = 0; d < perm.size(); ++d)
    identity &= perm[d] == int64_t(d);
  if (identity)
    return node.setOutput(0, data);
  return node.emitOutput(0, "transpose", {data}, {intListAttr("perm", perm)});
}

/// ONNX's clamping of a slice bound on a static dim: to [0, dim] for a
/// positive step, to [lowest, dim-1] for a negative one (lowest is 0 for a
/// start, -1 for an end).
int64_t clampBound(int64_t bound, int64_t dim, int64_t step, int64_t lowest) {
  if (bound < 0)
    bound = bound < -dim ? -dim - 1 : bound + dim; // no overflow
  return step > 0 ? std::clamp<int64_t>(bound, 0, dim)
                  : std::max(lowest, std::min(bound, dim - 1));
}

/// The start txc's slice needs for the ONNX start `start` of a negative step
/// on `dim`. They differ only when start + dim < 0: ONNX clamps it to the
/// first element, Python (and txc) to before it (an empty slice). That is
/// txc's start 0 when it happens for every value of the symbols, and a
/// symbolic dim for which it happens only for some values is not supported.
std::optional<int64_t> reverseStart(NodeImporter &node, int64_t start,
                                    const ShapeExpr &dim) {
  if (start >= 0)
    return start;
  Interval range = dim.bounds(node.program().symbolRanges());
  if (__int128(range.min) + start >= 0)
    return start; // dim + start for every value
  if (__int128(range.max) + start < 0)
    return 0;
  return std::nullopt;
}

/// Slice-13: starts, ends, axes and steps are inputs, which must be known.
llvm::LogicalResult convertSlice(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  int64_t rank = data.type.rank();
  std::optional<std::vector<int64_t>> starts =
      node.requireStaticInts(1, "starts");
  std::optional<std::vector<int64_t>> ends =
      starts ? node.requireStaticInts(2, "ends") : std::nullopt;
  if (!ends)
    return llvm::failure();
  std::vector<int64_t> axes, steps(starts->size(), 1);
  for (int64_t d = 0; d < int64_t(starts->size()); ++d)
    axes.push_back(d);
  if (node.hasInput(3)) {
    std::optional<std::vector<int64_t>> given =
        node.requireStaticInts(3, "axes");
    if (!given)
      return llvm::failure();
    axes = *given;
  }
  if (node.hasInput(4)) {
    std::optional<std::vector<int64_t>> given =
        node.requireStaticInts(4, "steps");
    if (!given)
      return llvm::failure();
    steps = *given;
  }
  if (axes.size() != starts->size() || ends->size() != starts->size() ||
      steps.size() != starts->size())
    return node.invalid("its starts, ends, axes and steps differ in length");
  for (int64_t &axis : axes) {
    std::optional<int64_t> normalized = normalizeOnnxAxis(axis, rank);
    if (!normalized)
      return node.invalid("its axis " + llvm::Twine(axis) + " is out of range");
    axis = *normalized;
  }
  if (llvm::is_contained(steps, 0))
    return node.invalid("a step is 0");
  // A known 1-D integer tensor (a shape) is sliced at import.
  if (data.known && data.known->ints && rank == 1) {
    int64_t dim = data.known->numElements(), step = steps[0];
    int64_t begin = clampBound((*starts)[0], dim, step, 0);
    int64_t end = clampBound((*ends)[0], dim, step, -1);
    std::vector<ShapeExpr> values;
    for (__int128 i = begin; dim > 0 && (step > 0 ? i < end : i > end);
         i += step) // a step of INT64_MAX must not overflow
      values.push_back((*data.known->ints)[size_t(i)]);
    int64_t count = values.size();
    return node.setKnownOutput(
        0, KnownTensor::fromInts(data.type.dtype, {count}, std::move(values)));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] > 0)
      continue;
    const ShapeExpr &dim = data.type.shape[axes[i]];
    std::optional<int64_t> start = reverseStart(node, (*starts)[i], dim);
    if (!start)
      return node.unsupported(
          "its start " + llvm::Twine((*starts)[i]) + " with step " +
              llvm::Twine(steps[i]) + " is before the first element of " +
              "dimension " + llvm::Twine(axes[i]) + " for some values of " +
              "the symbols and not for others (ONNX then starts at the " +
              "first element, txc's slice at none)",
          "give the symbols a range on which the start is inside the "
          "dimension, or start at 0");
    (*starts)[i] = *start;
  }
  return node.emitOutput(0, "slice", {data},
                         {intListAttr("starts", *starts),
                          intListAttr("ends", *ends), intListAttr("axes", axes),
                          intListAttr("steps", steps)});
}

/// Expand-13: the input broadcast with a shape, in both directions (a
/// target dim of 1 keeps the input's dim).
llvm::LogicalResult convertExpand(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::optional<Shape> target = requireShapeInput(node, 1);
  if (!target)
    return llvm::failure();
  size_t rank = std::max(target->size(), size_t(data.type.rank()));
  Shape result(rank);
  const ShapeExpr one = ShapeExpr::constant(1);
  for (size_t i = 0; i < rank; ++i) {
    size_t fromEnd = rank - 1 - i;
    const ShapeExpr *in = fromEnd < data.type.rank()
                              ? &data.type.shape[data.type.rank() - 1 - fromEnd]
                              : &one;
    const ShapeExpr *to =
        fromEnd < target->size() ? &(*target)[target->size() - 1 - fromEnd]
                                 : &one;
    if (*to == one || *to == *in)
      result[i] = *in;
    else if (*in == one)
      result[i] = *to;
    else
      return node.unsupported("it expands " + node.str(data.type.shape) +
                                  " to " + node.str(*target) +
                                  ", whose dims do not broadcast",
                              "");
  }
  if (result == data.type.shape)
    return node.setOutput(0, data);
  return node.emitOutput(
      0, "broadcast_to", {data},
      {shapeAttr("shape", result, node.program().symbolNames())});
}

/// ConstantOfShape-9: a tensor of one value; symbolic shapes broadcast a
/// scalar constant.
llvm::LogicalResult convertConstantOfShape(NodeImporter &node) {
  std::optional<Shape> shape = requireShapeInput(node, 0);
  if (!shape)
    return llvm::failure();
  std::shared_ptr<KnownTensor> value;
  if (const onnx::AttributeProto *attr = node.attr("value")) {
    std::string problem;
    value = readTensorProto(attr->t(), node.owner(), problem);
    if (!value)
      return node.invalid("its value " + problem);
    if (value->numElements() != 1)
      return node.invalid("its value has more than one element");
  } else {
    value = knownFloats(DType::F32, {1}, {0.0});
  }
  std::optional<std::vector<int64_t>> dims = staticShape(*shape);
  int64_t count = 1;
  for (int64_t dim : dims.value_or(std::vector<int64_t>{}))
    count *= dim;
  if (dims && count <= KnownTensor::kMaxFoldedElements) {
    unsigned size = dtypeSize(value->dtype);
    std::vector<uint8_t> bytes(count * size);
    for (int64_t i = 0; i < count; ++i)
      std::copy(value->bytes.data, value->bytes.data + size,
                bytes.begin() + i * size);
    auto result = std::make_shared<KnownTensor>();
    result->dtype = value->dtype;
    result->dims = *dims;
    result->bytes = Blob::fromVector(std::move(bytes));
    result->complete();
    return node.setKnownOutput(0, std::move(result));
  }
  return node.emitOutput(
      0, "broadcast_to", {node.constant(reshapedKnown(*value, {}))},
      {shapeAttr("shape", *shape, node.program().symbolNames())});
}

/// One known integer of a scalar input of Range; nullopt when not known.
std::optional<ShapeExpr> rangeScalar(NodeImporter &node, unsigned i) {
  const KnownTensor *known = node.known(i);
  if (!known || !known->ints || known->ints->size() != 1)
    return std::nullopt;
  return known->ints->front();
}

/// A range of constants, folded (at most 4096 elements).
llvm::LogicalResult foldRange(NodeImporter &node, DType dtype, int64_t start,
                              int64_t limit, int64_t delta) {
  std::vector<ShapeExpr> values;
  for (int64_t v = start; delta > 0 ? v < limit : v > limit; v += delta) {
    if (values.size() >= size_t(KnownTensor::kMaxFoldedElements))
      return node.unsupported("its range has more than 4096 elements", "");
    values.push_back(ShapeExpr::constant(v));
  }
  int64_t count = values.size();
  return node.setKnownOutput(
      0, KnownTensor::fromInts(dtype, {count}, std::move(values)));
}

/// The length max(0, ceil((limit - start) / delta)) of a range between
/// dim expressions: (limit - start + delta - 1) // delta for delta > 0
/// (mirrored for delta < 0), which must not be negative for any value of
/// the symbols (max(0, ...) is no dim expression).
std::optional<ShapeExpr> rangeLength(NodeImporter &node, const ShapeExpr &start,
                                     const ShapeExpr &limit, int64_t delta) {
  std::optional<ShapeExpr> span = delta > 0 ? ShapeExpr::sub(limit, start)
                                            : ShapeExpr::sub(start, limit);
  int64_t step = delta > 0 ? delta : -delta;
  std::optional<ShapeExpr> length;
  if (span && step > 0)
    if (auto rounded = ShapeExpr::add(*span, ShapeExpr::constant(step - 1)))
      length = ShapeExpr::floorDiv(*rounded, step);
  if (!length) {
    (void)node.unsupported("its length ceil((" + node.dimStr(limit) + " - " +
                               node.dimStr(start) + ") / " +
                               llvm::Twine(delta) +
                               ") is not a dim expression txc can write",
                           "");
    return std::nullopt;
  }
  if (dimBounds(node, *length).min < 0) {
    (void)node.unsupported(
        "its length " + node.dimStr(*length) +
            " is negative for some values of the symbols, where ONNX's is 0 "
            "(max(0, ...) is not a dim expression)",
        "declare the symbols' ranges so that the range is never empty "
        "backwards");
    return std::nullopt;
  }
  return length;
}

/// A range of integers between dim expressions with a constant step: a txc
/// `range` from the constant start, or from 0 plus the start's run-time
/// value (torch.arange(x.size(1), 0, -1)).
llvm::LogicalResult emitIntegerRange(NodeImporter &node, DType dtype,
                                     const ShapeExpr &start,
                                     const ShapeExpr &limit, int64_t delta) {
  std::optional<ShapeExpr> length = rangeLength(node, start, limit, delta);
  if (!length)
    return llvm::failure();
  std::optional<int64_t> first = start.getConstant();
  if (!first && dimBounds(node, start).min < 0)
    return node.unsupported("its start " + node.dimStr(start) +
                                " is negative for some values of the symbols",
                            "");
  MaybeValue range = node.emit(
      "range", {},
      {shapeAttr("shape", {*length}, node.program().symbolNames()),
       stringAttr("dtype", dtypeName(dtype)),
       floatAttr("start", double(first.value_or(0))),
       floatAttr("delta", double(delta))});
  if (first)
    return outputIf(node, range);
  MaybeValue offset = dimValue(node, start);
  if (dtype != DType::I64)
    offset = emitIf(node, "cast", {offset},
                    {stringAttr("dtype", dtypeName(dtype))});
  return outputIf(node, emitIf(node, "add", {range, offset}));
}

/// start, limit and delta of a Range of floats known at import.
std::optional<llvm::SmallVector<double, 3>> floatRange(NodeImporter &node) {
  llvm::SmallVector<double, 3> values;
  for (unsigned i = 0; i < 3; ++i) {
    const KnownTensor *known = node.known(i);
    std::optional<std::vector<double>> doubles =
        known && isFloat(known->dtype) ? known->doubles() : std::nullopt;
    if (!doubles || doubles->size() != 1)
      return std::nullopt;
    values.push_back(doubles->front());
  }
  return values;
}

/// A range of floats: a txc `range` of the constant length
/// max(0, ceil((limit - start) / delta)) (in double, as numpy's arange),
/// whose element i is start + i*delta, ONNX's formula.
llvm::LogicalResult emitFloatRange(NodeImporter &node, double start,
                                   double limit, double delta) {
  double count = std::ceil((limit - start) / delta);
  if (!std::isfinite(start) || !std::isfinite(delta) || delta == 0 ||
      std::isnan(count))
    return node.unsupported("its start, limit or delta is not a finite "
                            "number, or delta is 0",
                            "");
  count = std::max(count, 0.0);
  if (count > double(ProgramLimits::kMaxTensorBytes))
    return node.unsupported("its range has more than 2^48 elements, over "
                            "txc's limit",
                            "");
  Shape shape = {ShapeExpr::constant(int64_t(count))};
  return node.emitOutput(
      0, "range", {},
      {shapeAttr("shape", shape, node.program().symbolNames()),
       stringAttr("dtype", dtypeName(node.known(0)->dtype)),
       floatAttr("start", start), floatAttr("delta", delta)});
}

/// Range-11. Known start, limit and delta are folded. Integers between
/// ends computed from shapes with a constant delta (PyTorch's
/// torch.arange(x.size(1)): Range(0, Gather(Shape(x), 1), 1)) become a txc
/// `range` of a symbolic length; a range of floats, a `range` of a constant
/// length.
llvm::LogicalResult convertRange(NodeImporter &node) {
  std::optional<ShapeExpr> start = rangeScalar(node, 0),
                           limit = rangeScalar(node, 1),
                           delta = rangeScalar(node, 2);
  if (start && limit && delta && delta->isConstant() &&
      delta->constantTerm() != 0) {
    int64_t d = delta->constantTerm();
    DType dtype = node.known(0)->dtype;
    if (start->isConstant() && limit->isConstant())
      return foldRange(node, dtype, start->constantTerm(),
                       limit->constantTerm(), d);
    return emitIntegerRange(node, dtype, *start, *limit, d);
  }
  if (std::optional<llvm::SmallVector<double, 3>> values = floatRange(node))
    return emitFloatRange(node, (*values)[0], (*values)[1], (*values)[2]);
  return node.unsupported(
      "its start, limit or delta is computed from tensor values rather than "
      "from shapes and constants, or its delta is not a constant (txc's "
      "range has a constant step and a length that is a dim expression)",
      "export with those values fixed, or pass the range as an input");
}

/// Split-13 (split sizes as an optional input).
llvm::LogicalResult convertSplit(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::optional<int64_t> axis = readAxisAttr(node, data);
  if (!axis)
    return llvm::failure();
  std::vector<NodeAttr> attrs = {intAttr("axis", *axis)};
  if (node.hasInput(1)) {
    std::optional<std::vector<int64_t>> sizes =
        node.requireStaticInts(1, "split sizes");
    if (!sizes)
      return llvm::failure();
    attrs.push_back(intListAttr("sizes", *sizes));
  } else {
    attrs.push_back(intAttr("num", node.numOutputs()));
  }
  return node.emitOutputs("split", {data}, std::move(attrs));
}

/// Pad-13: pads (and the constant value) must be known.
llvm::LogicalResult convertPad(NodeImporter &node) {
  std::optional<std::vector<int64_t>> pads = node.requireStaticInts(1, "pads");
  if (!pads)
    return llvm::failure();
  std::string mode = node.stringAttr("mode", "constant");
  std::vector<NodeAttr> attrs = {intListAttr("pads", *pads),
                                 stringAttr("mode", mode)};
  if (node.hasInput(2)) {
    std::optional<std::vector<double>> value =
        node.requireKnownDoubles(2, "constant value");
    if (!value)
      return llvm::failure();
    if (mode == "constant")
      attrs.push_back(floatAttr("value", value->front()));
  }
  if (llvm::any_of(*pads, [](int64_t pad) { return pad < 0; }))
    return node.unsupported("it has negative pads (cropping)",
                            "crop with a Slice node instead");
  return node.emitOutput(0, "pad", {node.input(0)}, std::move(attrs));
}

/// Tile-13: the repeats are input 1, known constants, one per dim.
llvm::LogicalResult convertTile(NodeImporter &node) {
  const ImportedValue &data = node.input(0);
  std::optional<std::vector<int64_t>> repeats =
      node.requireStaticInts(1, "repeats");
  if (!repeats)
    return llvm::failure();
  if (repeats->size() != data.type.rank())
    return node.invalid("it has " + llvm::Twine(repeats->size()) +
                        " repeats for an input of rank " +
                        llvm::Twine(data.type.rank()));
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return node.invalid("it has a negative repeat count");
  if (llvm::is_contained(*repeats, 0))
    return node.unsupported("a repeat count is 0 (an empty result)",
                            "txc's tile repeats each dim at least once");
  if (llvm::all_of(*repeats, [](int64_t r) { return r == 1; }))
    return node.setOutput(0, data);
  return node.emitOutput(0, "tile", {data}, {intListAttr("repeats", *repeats)});
}

/// DepthToSpace-13 and SpaceToDepth-13 move blocks of b*b elements between
/// the channels and the spatial dims of an NCHW input. Each is a reshape to
/// rank 6, a transpose, and a reshape to rank 4 (ONNX's definition).
struct BlockRearrangement {
  Shape split;                ///< the rank-6 shape
  std::vector<int64_t> perm;  ///< its transpose
  Shape result;               ///< the output shape
};

/// The input's dims and blocksize, or nullopt after a diagnostic.
std::optional<std::pair<Shape, int64_t>> readBlocks(NodeImporter &node) {
  const Shape &shape = node.input(0).type.shape;
  if (shape.size() != 4) {
    (void)node.invalid("its input has rank " + llvm::Twine(shape.size()) +
                       ", not 4 (NCHW)");
    return std::nullopt;
  }
  int64_t b = node.intAttr("blocksize", 0);
  if (b < 1) {
    (void)node.invalid("its blocksize " + llvm::Twine(b) +
                       " is not a positive integer");
    return std::nullopt;
  }
  return std::make_pair(shape, b);
}

/// `dim` / `divisor` as a polynomial, or nullopt after a diagnostic naming
/// the dim: a static dim that does not divide is a wrong model, a symbolic
/// one must be declared a multiple of the divisor.
std::optional<ShapeExpr> divideDim(NodeImporter &node, const ShapeExpr &dim,
                                   int64_t divisor, llvm::StringRef what) {
  if (std::optional<ShapeExpr> quotient = dim.divExact(divisor))
    return quotient;
  std::string text = node.str({dim});
  text = text.substr(1, text.size() - 2); // without the brackets
  std::string problem = "its " + what.str() + " " + text +
                        " is not a multiple of " + std::to_string(divisor);
  if (dim.isConstant()) {
    (void)node.invalid(problem);
    return std::nullopt;
  }
  (void)node.unsupported(problem,
                         "declare the dim's symbol a multiple of " +
                             llvm::Twine(divisor) + " (--dim NAME=MIN:MAX:" +
                             llvm::Twine(divisor) + ")");
  return std::nullopt;
}

/// Emits reshape, transpose, reshape for `r` (skipping a reshape that
/// changes nothing).
llvm::LogicalResult emitRearrangement(NodeImporter &node,
                                      const BlockRearrangement &r) {
  const std::vector<std::string> names = node.program().symbolNames();
  std::optional<ImportedValue> split = node.emit(
      "reshape", {node.input(0)}, {shapeAttr("shape", r.split, names)});
  std::optional<ImportedValue> moved =
      split ? node.emit("transpose", {*split}, {intListAttr("perm", r.perm)})
            : std::nullopt;
  if (!moved)
    return llvm::failure();
  return node.emitOutput(0, "reshape", {*moved},
                         {shapeAttr("shape", r.result, names)});
}

/// DepthToSpace-13: channel c*b*b + ... moves to the block of rows and
/// columns. Mode DCR (the default) takes the block index as the outer part
/// of the channel, [N, b, b, C/b^2, H, W]; CRD as the inner part,
/// [N, C/b^2, b, b, H, W].
llvm::LogicalResult convertDepthToSpace(NodeImporter &node) {
  auto blocks = readBlocks(node);
  if (!blocks)
    return llvm::failure();
  auto &[shape, b] = *blocks;
  std::string mode = node.stringAttr("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return node.invalid("its mode '" + mode + "' is neither DCR nor CRD");
  if (b == 1)
    return node.setOutput(0, node.input(0));
  std::optional<ShapeExpr> depth = divideDim(node, shape[1], b * b, "channel dim");
  if (!depth)
    return llvm::failure();
  ShapeExpr block = ShapeExpr::constant(b);
  const ShapeExpr &n = shape[0], &h = shape[2], &w = shape[3];
  BlockRearrangement r;
  if (mode == "DCR") {
    r.split = {n, block, block, *depth, h, w};
    r.perm = {0, 3, 4, 1, 5, 2};
  } else {
    r.split = {n, *depth, block, block, h, w};
    r.perm = {0, 1, 4, 2, 5, 3};
  }
  r.result = {n, *depth, *ShapeExpr::mul(h, block), *ShapeExpr::mul(w, block)};
  return emitRearrangement(node, r);
}

/// SpaceToDepth-13: each b*b block of rows and columns becomes channels,
/// [N, C, H/b, b, W/b, b] transposed to [N, b, b, C, H/b, W/b].
llvm::LogicalResult convertSpaceToDepth(NodeImporter &node) {
  auto blocks = readBlocks(node);
  if (!blocks)
    return llvm::failure();
  auto &[shape, b] = *blocks;
  if (b == 1)
    return node.setOutput(0, node.input(0));
  std::optional<ShapeExpr> h = divideDim(node, shape[2], b, "height");
  std::optional<ShapeExpr> w =
      h ? divideDim(node, shape[3], b, "width") : std::nullopt;
  if (!w)
    return llvm::failure();
  ShapeExpr block = ShapeExpr::constant(b);
  const ShapeExpr &n = shape[0], &c = shape[1];
  BlockRearrangement r;
  r.split = {n, c, *h, block, *w, block};
  r.perm = {0, 3, 5, 1, 2, 4};
  r.result = {n, *ShapeExpr::mul(c, ShapeExpr::constant(b * b)), *h, *w};
  return emitRearrangement(node, r);
}

} // namespace

void txc::onnximport::addShapeConverters(std::vector<ConverterEntry> &table) {
  table.insert(table.end(),
               {
                   {"Shape", 15, 17, convertShape},
                   {"Size", 13, 17, convertSize},
                   {"Constant", 13, 17, convertConstant},
                   {"Reshape", 14, 17, convertReshape},
                   {"Flatten", 13, 17, convertFlatten},
                   {"Unsqueeze", 13, 17, convertUnsqueeze},
                   {"Squeeze", 13, 17, convertSqueeze},
                   {"Concat", 13, 17, convertConcat},
                   {"Gather", 13, 17, convertGather},
                   {"OneHot", 11, 17, convertOneHot},
                   {"Transpose", 13, 17, convertTranspose},
                   {"Slice", 13, 17, convertSlice},
                   {"Expand", 13, 17, convertExpand},
                   {"ConstantOfShape", 9, 17, convertConstantOfShape},
                   {"Range", 11, 17, convertRange},
                   {"Split", 13, 17, convertSplit},
                   {"Pad", 13, 17, convertPad},
                   {"Tile", 13, 17, convertTile},
                   {"DepthToSpace", 13, 17, convertDepthToSpace},
                   {"SpaceToDepth", 13, 17, convertSpaceToDepth},
               });
}
