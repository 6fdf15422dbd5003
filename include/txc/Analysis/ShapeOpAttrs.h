//===- ShapeOpAttrs.h - Resolved attributes of shape and indexing ops -*- C++ -*-===//
//
// The attributes of the shape ops (transpose, squeeze, slice, pad, split, ...)
// and of the indexing ops are written with Python conventions: negative axes,
// optional lists, out-of-range slice bounds. These functions turn them into
// one explicit form (normalized axes, symbolic starts and lengths). The shape
// rules call them to check a node and compute its result types; MLIRGen and
// the interpreter call them again on the verified node, so that all three
// agree on what the attributes mean.
//
// Each function records problems in the context (with the attribute's
// location) and returns nullopt when the attributes do not fit the operands.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_ANALYSIS_SHAPEOPATTRS_H
#define TXC_ANALYSIS_SHAPEOPATTRS_H

#include "txc/Analysis/ShapeInference.h"

#include <optional>
#include <utility>
#include <vector>

namespace txc {

/// transpose/permute: result dim i is operand dim perm[i].
std::optional<std::vector<unsigned>> resolvePermutation(InferenceContext &ctx);

/// squeeze: the operand dims removed, ascending (each a static 1).
std::optional<std::vector<unsigned>> resolveSqueezeAxes(InferenceContext &ctx);

/// unsqueeze: the result dims inserted (each a static 1), ascending.
std::optional<std::vector<unsigned>>
resolveUnsqueezeAxes(InferenceContext &ctx);

/// flatten: the inclusive range [first, last] of operand dims merged into
/// one. A rank-0 operand is treated as rank 1 (result [1]).
std::optional<std::pair<unsigned, unsigned>>
resolveFlattenRange(InferenceContext &ctx);

/// concat: the axis along which the operands are joined.
std::optional<unsigned> resolveConcatAxis(InferenceContext &ctx);

/// One sliced dim of `slice`: elements start, start+step, ... (length of
/// them), all inside the operand dim for every value of the symbols. A
/// negative step reads backward from start (then at most dim-1; it is -1
/// only when length is 0).
struct SliceAxis {
  unsigned axis;
  ShapeExpr start;
  int64_t step;
  ShapeExpr length;
};
/// slice: the sliced dims, ascending by axis (dims not listed are whole).
std::optional<std::vector<SliceAxis>> resolveSlice(InferenceContext &ctx);

enum class PadMode { Constant, Reflect, Edge };
/// pad: elements added before and after each dim, and what they hold.
struct PadSpec {
  std::vector<int64_t> before, after; ///< one per operand dim, >= 0
  PadMode mode = PadMode::Constant;
  double value = 0; ///< PadMode::Constant: exactly representable in the dtype
};
std::optional<PadSpec> resolvePad(InferenceContext &ctx);

/// split: the axis and the size of each piece (they add up to the dim).
struct SplitSpec {
  unsigned axis;
  std::vector<ShapeExpr> sizes;
};
std::optional<SplitSpec> resolveSplit(InferenceContext &ctx);

/// gather, gather_elements, scatter_elements: the data dim indexed
/// (embedding: always 0).
std::optional<unsigned> resolveGatherAxis(InferenceContext &ctx);

/// gather_nd, scatter_nd: indices [batch..., m..., depth] hold index tuples;
/// entry j of a tuple indexes data dim batchDims + j. The depth (the
/// indices' last dim) is a constant, and batchDims is scatter_nd's 0.
struct IndexTuples {
  unsigned batchDims;
  unsigned depth;
};
std::optional<IndexTuples> resolveIndexTuples(InferenceContext &ctx);

/// One data dim the indices of an indexing node select along, with the
/// indices that do: all of them (`column` unset), or for gather_nd and
/// scatter_nd the entries indices[..., column].
struct IndexedDataDim {
  unsigned dataDim;
  std::optional<unsigned> column;
};
/// The dims of an indexing node (data is operand 0, indices operand 1), in
/// the order of its index_in_range guards: one for gather, embedding,
/// gather_elements and scatter_elements, one per tuple entry for gather_nd
/// and scatter_nd (none for a scatter_nd of depth 0).
std::optional<std::vector<IndexedDataDim>>
resolveIndexedDims(InferenceContext &ctx);

/// Whether nodes of `kind` read indices (operand 1) that the contract
/// guards.
bool hasIndexOperand(OpKind kind);

/// Whether `node` (an indexing op) reads index -k as dim-k: a gather with
/// `wrap_negative` (numpy `take`, ONNX `Gather`) and every other op but
/// embedding (numpy and ONNX wrap). Its valid indices are then [-dim,
/// dim-1], otherwise [0, dim-1].
bool indicesWrapNegative(const Node &node);

/// How a scatter combines an update with the element it lands on.
enum class ScatterReduction { None, Add, Mul };
/// scatter_elements, scatter_nd: `reduction`, "none" (replace), "add" or
/// "mul" (numeric data only).
std::optional<ScatterReduction> resolveScatterReduction(InferenceContext &ctx);

} // namespace txc

#endif
