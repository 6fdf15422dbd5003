//===- Indexing.cpp - Shape rules of the indexing ops ---------------------===//
//
// The result shape of an indexing op depends only on the shapes of its
// operands; whether each index is inside the indexed dim is checked at run
// time (a data-dependent guard of the contract, status 11). range has no
// operands: its length is its `shape` attribute, a dim expression.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Program/Attributes.h"

#include <cmath>

using namespace txc;

namespace {

bool isIndexDType(DType type) {
  return type == DType::I32 || type == DType::I64;
}

/// Result rank data.rank - 1 + indices.rank, within the rank limit.
bool checkResultRank(InferenceContext &ctx, size_t rank) {
  if (rank <= ProgramLimits::kMaxRank)
    return true;
  ctx.fail(ctx.node.loc, "limit",
           "the result of '" + ctx.opName() + "' node '" + ctx.node.name +
               "' would have rank " + std::to_string(rank) +
               ", over the limit of " +
               std::to_string(ProgramLimits::kMaxRank));
  return false;
}

/// gather(data, indices): numpy.take along `axis`.
std::vector<TensorType> inferGather(InferenceContext &ctx) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  if (!ctx.requireDType(1, isIndexDType, "i32 or i64 indices"))
    return {};
  auto axis = resolveGatherAxis(ctx);
  if (!axis || !checkResultRank(ctx, data.rank() - 1 + indices.rank()))
    return {};
  Shape shape(data.shape.begin(), data.shape.begin() + *axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + *axis + 1, data.shape.end());
  return {TensorType{data.dtype, std::move(shape)}};
}

/// embedding(weight [V,D], indices): the rows of weight, indices.shape + [D].
std::vector<TensorType> inferEmbedding(InferenceContext &ctx) {
  if (!ctx.requireRank(0, 2) ||
      !ctx.requireDType(1, isIndexDType, "i32 or i64 indices"))
    return {};
  const TensorType &weight = ctx.operands[0], &indices = ctx.operands[1];
  if (!checkResultRank(ctx, indices.rank() + 1))
    return {};
  Shape shape = indices.shape;
  shape.push_back(weight.shape[1]);
  return {TensorType{weight.dtype, std::move(shape)}};
}

/// gather_elements, scatter_elements: indices of the rank of data whose
/// dims off the axis fit in data's: both constants with indices' at most
/// data's, or the same expression (a symbolic dim cannot be compared with
/// another otherwise).
bool checkIndicesAlongAxis(InferenceContext &ctx, unsigned axis) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  if (indices.rank() != data.rank()) {
    ctx.fail(ctx.operandLoc(1), "rank-mismatch",
             "'" + ctx.opName() + "' node '" + ctx.node.name +
                 "' needs indices of the rank of data (" +
                 std::to_string(data.rank()) + "), not " +
                 std::to_string(indices.rank()));
    return false;
  }
  for (unsigned d = 0; d < data.rank(); ++d) {
    if (d == axis || indices.shape[d] == data.shape[d])
      continue;
    auto have = indices.shape[d].getConstant(),
         fit = data.shape[d].getConstant();
    if (have && fit && *have <= *fit)
      continue;
    ctx.fail(ctx.operandLoc(1), "shape-mismatch",
             "'" + ctx.opName() + "' node '" + ctx.node.name + "': dim " +
                 std::to_string(d) + " of indices (" +
                 ctx.str(indices.shape[d]) + ") does not fit in data's (" +
                 ctx.str(data.shape[d]) + ")");
    return false;
  }
  return true;
}

/// gather_elements(data, indices): numpy.take_along_axis, the shape of
/// indices.
std::vector<TensorType> inferGatherElements(InferenceContext &ctx) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  if (!ctx.requireDType(1, isIndexDType, "i32 or i64 indices"))
    return {};
  auto axis = resolveGatherAxis(ctx);
  if (!axis || !checkIndicesAlongAxis(ctx, *axis))
    return {};
  return {TensorType{data.dtype, indices.shape}};
}

/// Whether `value` is an integer the (integer) dtype holds; an unsigned
/// dtype's delta may also count down (u8: -255 to -1).
bool fitsIntegerDType(double value, DType dtype, bool isDelta) {
  if (value != std::floor(value))
    return false;
  int64_t bits = 8 * dtypeSize(dtype);
  // 2^bits (2^(bits-1) if signed) is exact in a double, its predecessor
  // not for u64: compare with the limit itself.
  double limit = std::ldexp(1.0, int(bits) - (isSigned(dtype) ? 1 : 0));
  double low = isSigned(dtype) ? -limit : 0;
  if (!isSigned(dtype) && isDelta)
    low = 1 - limit;
  return value >= low && value < limit;
}

/// range(): the 1-D tensor start + i*delta of `dtype`, of length `shape[0]`.
std::vector<TensorType> inferRange(InferenceContext &ctx) {
  std::optional<DType> dtype = getDTypeAttr(ctx.node, "dtype");
  if (*dtype == DType::Bool) {
    ctx.fail(ctx.attrLoc("dtype"), "bad-dtype",
             "'range' node '" + ctx.node.name + "' needs a numeric dtype, not bool");
    return {};
  }
  const NodeAttr *attr = ctx.node.findAttribute("shape");
  std::string error;
  Loc errorLoc;
  auto shape = readShapeAttribute(ctx.program, attr->value, error, errorLoc);
  if (!shape) {
    ctx.fail(errorLoc, "bad-attribute", error);
    return {};
  }
  if (shape->size() != 1) {
    ctx.fail(attr->loc, "bad-attribute",
             "the shape of 'range' node '" + ctx.node.name +
                 "' must have exactly one dim (its length), not " +
                 ctx.str(*shape));
    return {};
  }
  for (const char *name : {"start", "delta"}) {
    double value = getFloatAttr(ctx.node, name, name[0] == 'd' ? 1 : 0);
    bool ok = isFloat(*dtype) ? std::isfinite(value)
                              : fitsIntegerDType(value, *dtype, name[0] == 'd');
    if (!ok) {
      ctx.fail(ctx.attrLoc(name), "bad-attribute",
               "attribute '" + std::string(name) + "' of 'range' node '" +
                   ctx.node.name + "' is " + formatNumber(value) +
                   (isFloat(*dtype) ? ", not a finite number"
                                    : ", which is not an integer that " +
                                          dtypeName(*dtype).str() + " holds"));
      return {};
    }
  }
  return {TensorType{*dtype, std::move(*shape)}};
}

/// gather_nd(data, indices) with batch_dims b: ONNX GatherND, the slices
/// data[batch..., tuple..., :], of shape indices.shape[:-1] +
/// data.shape[b+depth:].
std::vector<TensorType> inferGatherND(InferenceContext &ctx) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  if (!ctx.requireDType(1, isIndexDType, "i32 or i64 indices"))
    return {};
  std::optional<IndexTuples> tuples = resolveIndexTuples(ctx);
  if (!tuples)
    return {};
  Shape shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(),
               data.shape.begin() + tuples->batchDims + tuples->depth,
               data.shape.end());
  if (!checkResultRank(ctx, shape.size()))
    return {};
  return {TensorType{data.dtype, std::move(shape)}};
}

/// The updates (operand 2) of a scatter: data's dtype and `shape` (`what`
/// says how it is made).
bool checkUpdates(InferenceContext &ctx, const Shape &shape,
                  llvm::StringRef what) {
  if (!ctx.requireSameDType(0, 2))
    return false;
  const Shape &updates = ctx.operands[2].shape;
  if (updates == shape)
    return true;
  std::vector<std::string> notes;
  if (updates.size() == shape.size())
    for (size_t d = 0; d < shape.size(); ++d)
      if (updates[d] != shape[d]) {
        notes = ctx.explainDimMismatch(updates[d], shape[d]);
        break;
      }
  ctx.fail(ctx.operandLoc(2), "shape-mismatch",
           "'" + ctx.opName() + "' node '" + ctx.node.name +
               "' needs updates of shape " + ctx.str(shape) + " (" +
               what.str() + "), not " + ctx.str(updates),
           std::move(notes));
  return false;
}

/// scatter_elements(data, indices, updates) with axis: ONNX
/// ScatterElements, data with data[i with i[axis] = indices[i]] replaced by
/// (or combined with) updates[i]. The result has data's type.
std::vector<TensorType> inferScatterElements(InferenceContext &ctx) {
  if (!ctx.requireDType(1, isIndexDType, "i32 or i64 indices"))
    return {};
  auto axis = resolveGatherAxis(ctx);
  if (!axis || !checkIndicesAlongAxis(ctx, *axis) ||
      !resolveScatterReduction(ctx) ||
      !checkUpdates(ctx, ctx.operands[1].shape, "the shape of indices"))
    return {};
  return {ctx.operands[0]};
}

/// scatter_nd(data, indices, updates): ONNX ScatterND, data with the slice
/// data[tuple..., :] of each index tuple replaced by (or combined with) its
/// updates, of shape indices.shape[:-1] + data.shape[depth:].
std::vector<TensorType> inferScatterND(InferenceContext &ctx) {
  const TensorType &data = ctx.operands[0], &indices = ctx.operands[1];
  if (!ctx.requireDType(1, isIndexDType, "i32 or i64 indices"))
    return {};
  std::optional<IndexTuples> tuples = resolveIndexTuples(ctx);
  if (!tuples || !resolveScatterReduction(ctx))
    return {};
  Shape shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + tuples->depth,
               data.shape.end());
  if (!checkUpdates(ctx, shape,
                    "indices.shape[:-1] + data.shape[" +
                        std::to_string(tuples->depth) + ":]"))
    return {};
  return {data};
}

} // namespace

void txc::registerIndexingShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::Gather, inferGather);
  table.add(OpKind::Embedding, inferEmbedding);
  table.add(OpKind::GatherElements, inferGatherElements);
  table.add(OpKind::Range, inferRange);
  table.add(OpKind::GatherND, inferGatherND);
  table.add(OpKind::ScatterElements, inferScatterElements);
  table.add(OpKind::ScatterND, inferScatterND);
}
