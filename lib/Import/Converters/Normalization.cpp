//===- Normalization.cpp - softmax, norms, reductions, CumSum, TopK -------===//
#include "../Importer.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace txc;
using namespace txc::onnximport;

namespace {

/// Softmax-13 and LogSoftmax-13: along one axis (default -1), as txc's.
template <const char *TxcOp>
llvm::LogicalResult convertSoftmax(NodeImporter &node) {
  int64_t rank = node.input(0).type.rank();
  std::optional<int64_t> axis = normalizeOnnxAxis(node.intAttr("axis", -1),
                                                  rank);
  if (!axis)
    return node.invalid("its axis is out of range");
  return node.emitOutput(0, TxcOp, {node.input(0)}, {intAttr("axis", *axis)});
}

/// LayerNormalization's optional outputs Mean and InvStdDev, as ONNX's
/// function body computes them in the stash type (f32), with the
/// normalized dims kept as 1s: Mean = ReduceMean(X), D = X - Mean,
/// InvStdDev = 1 / sqrt(ReduceMean(D * D) + epsilon).
llvm::LogicalResult emitLayerNormStatistics(NodeImporter &node, int64_t axis,
                                            double epsilon) {
  ImportedValue x = node.input(0);
  if (x.type.dtype != DType::F32) {
    std::optional<ImportedValue> cast =
        node.emit("cast", {x}, {stringAttr("dtype", "f32")});
    if (!cast)
      return llvm::failure();
    x = *cast;
  }
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < int64_t(x.type.rank()); ++d)
    axes.push_back(d);
  std::vector<NodeAttr> reduce = {intListAttr("axes", axes),
                                  boolAttr("keepdims", true)};
  std::optional<ImportedValue> mean, centered, square, variance, shifted,
      deviation, inverse;
  if (!(mean = node.emit("mean", {x}, reduce)) ||
      !(centered = node.emit("sub", {x, *mean})) ||
      !(square = node.emit("mul", {*centered, *centered})) ||
      !(variance = node.emit("mean", {*square}, reduce)) ||
      !(shifted =
            node.emit("add", {*variance, node.scalar(DType::F32, epsilon)})) ||
      !(deviation = node.emit("sqrt", {*shifted})) ||
      !(inverse = node.emit("reciprocal", {*deviation})))
    return llvm::failure();
  if (node.numOutputs() > 1 && !node.outputName(1).empty() &&
      llvm::failed(node.setOutput(1, *mean)))
    return llvm::failure();
  if (node.numOutputs() > 2 && !node.outputName(2).empty())
    return node.setOutput(2, *inverse);
  return llvm::success();
}

/// LayerNormalization-17 over the dims from `axis` on; Scale and B must
/// have exactly those dims (txc's layer_norm has no broadcasting weights).
llvm::LogicalResult convertLayerNormalization(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  int64_t rank = x.type.rank();
  std::optional<int64_t> axis = normalizeOnnxAxis(node.intAttr("axis", -1),
                                                  rank);
  if (!axis)
    return node.invalid("its axis is out of range");
  if (node.intAttr("stash_type", 1) != 1)
    return node.unsupportedAttr("stash_type", "is not 1 (float); txc "
                                              "computes the statistics in "
                                              "f32 or f64",
                                "");
  std::vector<ImportedValue> operands = {x, node.input(1)};
  if (node.hasInput(2))
    operands.push_back(node.input(2));
  Shape normalized(x.type.shape.begin() + *axis, x.type.shape.end());
  for (size_t i = 1; i < operands.size(); ++i)
    if (operands[i].type.shape != normalized)
      return node.unsupported(
          "its " + llvm::Twine(i == 1 ? "Scale" : "B") + " has shape " +
              node.str(operands[i].type.shape) + ", not the normalized " +
              node.str(normalized),
          "txc's layer_norm takes weights of exactly the normalized dims");
  double epsilon = node.floatAttr("epsilon", 1e-5f);
  bool statistics = (node.numOutputs() > 1 && !node.outputName(1).empty()) ||
                    (node.numOutputs() > 2 && !node.outputName(2).empty());
  if (statistics && llvm::failed(emitLayerNormStatistics(node, *axis, epsilon)))
    return llvm::failure();
  return node.emitOutput(0, "layer_norm", operands,
                         {intAttr("normalized_ndim", rank - *axis),
                          floatAttr("eps", epsilon)});
}

/// A per-channel [C] parameter as [C, 1, ..., 1], to broadcast along dim 1
/// of a rank-`rank` [N, C, D1, ...] tensor.
MaybeValue perChannel(NodeImporter &node, const ImportedValue &param,
                      int64_t rank) {
  std::vector<int64_t> spatial;
  for (int64_t d = 1; d < rank - 1; ++d)
    spatial.push_back(d);
  return node.emit("unsqueeze", {param}, {intListAttr("axes", spatial)});
}

/// InstanceNormalization-6, as ONNX's definition computes it: over the
/// spatial dims of each sample and channel, mean and biased variance, then
/// scale * (x - mean) / sqrt(var + epsilon) + B.
llvm::LogicalResult convertInstanceNormalization(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  int64_t rank = x.type.rank();
  if (rank < 3)
    return node.invalid("its input has rank " + llvm::Twine(rank) +
                        "; it needs [N, C, D1, ...]");
  std::vector<int64_t> spatial;
  for (int64_t d = 2; d < rank; ++d)
    spatial.push_back(d);
  std::vector<NodeAttr> reduce = {intListAttr("axes", spatial),
                                  boolAttr("keepdims", true)};
  DType t = x.type.dtype;
  MaybeValue centered = emitIf(node, "sub", {x, node.emit("mean", {x}, reduce)});
  MaybeValue variance =
      emitIf(node, "mean", {emitIf(node, "mul", {centered, centered})}, reduce);
  MaybeValue deviation = emitIf(
      node, "sqrt",
      {emitIf(node, "add",
              {variance, node.scalar(t, node.floatAttr("epsilon", 1e-5f))})});
  MaybeValue scaled = emitIf(
      node, "mul", {perChannel(node, node.input(1), rank), centered});
  return outputIf(node,
                  emitIf(node, "add",
                         {emitIf(node, "div", {scaled, deviation}),
                          perChannel(node, node.input(2), rank)}));
}

/// LRN-13: y = x / (bias + alpha / size * square_sum)^beta, where
/// square_sum sums x^2 over the channels [c - floor((size-1)/2),
/// c + ceil((size-1)/2)] that exist. The channels are padded with zeros
/// and the window's `size` shifted slices added from the lowest channel
/// up, the order of ONNX's definition; a symbolic C works (the slices end
/// at negative offsets from the padded end).
llvm::LogicalResult convertLRN(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  int64_t rank = x.type.rank();
  int64_t size = node.intAttr("size", 0);
  if (rank < 3)
    return node.invalid("its input has rank " + llvm::Twine(rank) +
                        "; it needs [N, C, D1, ...]");
  if (size < 1)
    return node.invalid("its size is " + llvm::Twine(size) +
                        "; it must be at least 1");
  DType t = x.type.dtype;
  MaybeValue square = node.emit("mul", {x, x});
  std::vector<int64_t> pads(2 * rank, 0);
  pads[1] = (size - 1) / 2;
  pads[rank + 1] = size / 2; // ceil((size - 1) / 2)
  MaybeValue padded = size == 1 ? square
                                : emitIf(node, "pad", {square},
                                         {intListAttr("pads", pads)});
  MaybeValue sum;
  for (int64_t i = 0; i < size; ++i) {
    int64_t end = i == size - 1 ? std::numeric_limits<int64_t>::max()
                                : i - (size - 1);
    MaybeValue window = emitIf(node, "slice", {padded},
                               {intListAttr("starts", {i}),
                                intListAttr("ends", {end}),
                                intListAttr("axes", {1})});
    sum = i == 0 ? window : emitIf(node, "add", {sum, window});
  }
  double alpha = node.floatAttr("alpha", 1e-4f);
  MaybeValue base = emitIf(
      node, "add",
      {node.scalar(t, node.floatAttr("bias", 1.0f)),
       emitIf(node, "mul", {node.scalar(t, alpha / double(size)), sum})});
  MaybeValue denominator = emitIf(
      node, "pow", {base, node.scalar(t, node.floatAttr("beta", 0.75f))});
  return outputIf(node, emitIf(node, "div", {x, denominator}));
}

/// The axes of a Reduce* node, sorted and non-negative: an attribute
/// (ReduceMean-13, ...) or, for ReduceSum-13 (`axesInput`), an optional
/// input; none means every axis. nullopt after a diagnostic, or (with
/// `noop` set) when noop_with_empty_axes makes the node the identity.
std::optional<std::vector<int64_t>>
reductionAxes(NodeImporter &node, bool axesInput, bool &noop) {
  int64_t rank = node.input(0).type.rank();
  std::optional<std::vector<int64_t>> axes;
  noop = false;
  if (axesInput && node.hasInput(1)) {
    axes = node.requireStaticInts(1, "axes");
    if (!axes)
      return std::nullopt;
  } else if (!axesInput) {
    axes = node.intsAttr("axes");
  }
  if (!axes || axes->empty()) {
    if (node.intAttr("noop_with_empty_axes", 0) != 0) {
      noop = true;
      return std::nullopt;
    }
    axes.emplace();
    for (int64_t d = 0; d < rank; ++d)
      axes->push_back(d);
  }
  for (int64_t &axis : *axes) {
    std::optional<int64_t> normalized = normalizeOnnxAxis(axis, rank);
    if (!normalized) {
      (void)node.invalid("its axis " + llvm::Twine(axis) + " is out of range");
      return std::nullopt;
    }
    axis = *normalized;
  }
  llvm::sort(*axes);
  return axes;
}

template <const char *TxcOp, bool AxesInput>
llvm::LogicalResult convertReduce(NodeImporter &node) {
  bool noop;
  std::optional<std::vector<int64_t>> axes =
      reductionAxes(node, AxesInput, noop);
  if (noop)
    return node.setOutput(0, node.input(0));
  if (!axes)
    return llvm::failure();
  return node.emitOutput(0, TxcOp, {node.input(0)},
                         {intListAttr("axes", *axes),
                          boolAttr("keepdims", node.intAttr("keepdims", 1))});
}

/// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum and ReduceLogSumExp:
/// ONNX's formulas, a `sum` between an elementwise map of the input and
/// one of the result (sum(abs(x)), sqrt(sum(x * x)), log(sum(exp(x))), ...).
enum class SumOf { Abs, Square, Value, Exp };
enum class Then { Nothing, Sqrt, Log };

template <SumOf Map, Then Finish>
llvm::LogicalResult convertSumReduction(NodeImporter &node) {
  bool noop;
  std::optional<std::vector<int64_t>> axes = reductionAxes(node, false, noop);
  if (noop)
    return node.setOutput(0, node.input(0));
  if (!axes)
    return llvm::failure();
  const ImportedValue &x = node.input(0);
  std::optional<ImportedValue> mapped =
      Map == SumOf::Abs      ? node.emit("abs", {x})
      : Map == SumOf::Square ? node.emit("mul", {x, x})
      : Map == SumOf::Exp    ? node.emit("exp", {x})
                             : std::optional<ImportedValue>(x);
  if (!mapped)
    return llvm::failure();
  std::vector<NodeAttr> attrs = {
      intListAttr("axes", *axes),
      boolAttr("keepdims", node.intAttr("keepdims", 1))};
  if (Finish == Then::Nothing)
    return node.emitOutput(0, "sum", {*mapped}, attrs);
  std::optional<ImportedValue> sum = node.emit("sum", {*mapped}, attrs);
  if (!sum)
    return llvm::failure();
  return node.emitOutput(0, Finish == Then::Sqrt ? "sqrt" : "log", {*sum});
}

template <const char *TxcOp>
llvm::LogicalResult convertArgReduce(NodeImporter &node) {
  int64_t rank = node.input(0).type.rank();
  std::optional<int64_t> axis = normalizeOnnxAxis(node.intAttr("axis", 0),
                                                  rank);
  if (!axis)
    return node.invalid("its axis is out of range");
  return node.emitOutput(0, TxcOp, {node.input(0)},
                         {intAttr("axis", *axis),
                          boolAttr("keepdims", node.intAttr("keepdims", 1)),
                          boolAttr("select_last_index",
                                   node.intAttr("select_last_index", 0))});
}

constexpr char kSoftmax[] = "softmax", kLogSoftmax[] = "log_softmax",
               kSum[] = "sum", kMean[] = "mean", kMax[] = "max",
               kMin[] = "min", kProd[] = "prod", kArgMax[] = "argmax",
               kArgMin[] = "argmin";

} // namespace

namespace {

/// CumSum-14: the axis is input 1, which must be a known scalar (or one
/// element); exclusive and reverse are txc's attributes of the same name.
llvm::LogicalResult convertCumSum(NodeImporter &node) {
  int64_t rank = node.input(0).type.rank();
  std::optional<std::vector<int64_t>> given =
      node.requireStaticInts(1, "axis");
  if (!given)
    return llvm::failure();
  if (given->size() != 1)
    return node.invalid("its axis input has " + llvm::Twine(given->size()) +
                        " elements, not 1");
  std::optional<int64_t> axis = normalizeOnnxAxis(given->front(), rank);
  if (!axis)
    return node.invalid("its axis " + llvm::Twine(given->front()) +
                        " is out of range for rank " + llvm::Twine(rank));
  std::vector<NodeAttr> attrs = {intAttr("axis", *axis)};
  if (node.intAttr("exclusive", 0) != 0)
    attrs.push_back(boolAttr("exclusive", true));
  if (node.intAttr("reverse", 0) != 0)
    attrs.push_back(boolAttr("reverse", true));
  return node.emitOutput(0, "cumsum", {node.input(0)}, std::move(attrs));
}

/// TopK-11: K is input 1, a known scalar (or one element); axis, largest
/// and sorted are txc's attributes (txc's results are always sorted, which
/// ONNX allows for sorted=0 too). Values and Indices are txc's two results.
llvm::LogicalResult convertTopK(NodeImporter &node) {
  int64_t rank = node.input(0).type.rank();
  std::optional<std::vector<int64_t>> given = node.requireStaticInts(1, "K");
  if (!given)
    return llvm::failure();
  if (given->size() != 1)
    return node.invalid("its K input has " + llvm::Twine(given->size()) +
                        " elements, not 1");
  if (given->front() < 0)
    return node.invalid("its K " + llvm::Twine(given->front()) +
                        " is negative");
  std::optional<int64_t> axis =
      normalizeOnnxAxis(node.intAttr("axis", -1), rank);
  if (!axis)
    return node.invalid("its axis is out of range");
  return node.emitOutputs(
      "topk", {node.input(0)},
      {intAttr("k", given->front()), intAttr("axis", *axis),
       boolAttr("largest", node.intAttr("largest", 1) != 0),
       boolAttr("sorted", node.intAttr("sorted", 1) != 0)});
}

} // namespace

void txc::onnximport::addNormalizationConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(
      table.end(),
      {
          {"Softmax", 13, 17, convertSoftmax<kSoftmax>},
          {"LogSoftmax", 13, 17, convertSoftmax<kLogSoftmax>},
          {"LayerNormalization", 17, 17, convertLayerNormalization},
          {"InstanceNormalization", 6, 17, convertInstanceNormalization},
          {"LRN", 13, 17, convertLRN},
          {"ReduceSum", 13, 17, convertReduce<kSum, true>},
          {"ReduceMean", 13, 17, convertReduce<kMean, false>},
          {"ReduceMax", 13, 17, convertReduce<kMax, false>},
          {"ReduceMin", 13, 17, convertReduce<kMin, false>},
          {"ReduceProd", 13, 17, convertReduce<kProd, false>},
          {"ReduceL1", 13, 17, convertSumReduction<SumOf::Abs, Then::Nothing>},
          {"ReduceL2", 13, 17, convertSumReduction<SumOf::Square, Then::Sqrt>},
          {"ReduceSumSquare", 13, 17,
           convertSumReduction<SumOf::Square, Then::Nothing>},
          {"ReduceLogSum", 13, 17, convertSumReduction<SumOf::Value, Then::Log>},
          {"ReduceLogSumExp", 13, 17,
           convertSumReduction<SumOf::Exp, Then::Log>},
          {"ArgMax", 13, 17, convertArgReduce<kArgMax>},
          {"ArgMin", 13, 17, convertArgReduce<kArgMin>},
          {"CumSum", 14, 17, convertCumSum},
          {"TopK", 11, 17, convertTopK},
      });
}
