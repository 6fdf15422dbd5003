//===- Convolution.cpp - ONNX Conv, ConvTranspose, pools, BatchNorm -------===//
//
// 2-D and 3-D convolutions and pools are txc's conv2d, conv3d and pools in
// NCHW and NCDHW (ONNX's `pads` order, all the begins then all the ends,
// is txc's two-sided padding); 1-D ones run as 2-D ones on a height of 1
// (unsqueeze, conv2d, squeeze), which computes exactly the same sums.
// auto_pad SAME_* becomes the explicit padding it stands for when that is
// a constant; ceil_mode, dilations and count_include_pad are txc's pool
// attributes of the same meaning.
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace txc;
using namespace txc::onnximport;

namespace {

/// The window attributes of a Conv or pool node, for `spatial` dims.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;
};

/// The padding total of auto_pad SAME_* along a dim of size `in`: the
/// output is ceil(in / stride) and the windows of `span` elements reach
/// just past the input, total = max(0, (out-1)*stride + span - in). With
/// in = stride*Q + r (0 <= r < stride) that is max(0, span - stride) for
/// r = 0 and max(0, span - r) otherwise: a constant when the symbolic part
/// of `in` is a multiple of the stride (always for stride 1); nullopt when
/// it is not.
std::optional<int64_t> samePaddingTotal(const ShapeExpr &in, int64_t stride,
                                        int64_t span) {
  int64_t constant = in.constantTerm();
  auto symbolic = ShapeExpr::sub(in, ShapeExpr::constant(constant));
  if (!symbolic || !symbolic->divExact(stride))
    return std::nullopt;
  int64_t rest = floorModulo(constant, stride);
  return std::max<int64_t>(0, span - (rest == 0 ? stride : rest));
}

/// Reads kernel_shape, strides, dilations, pads and auto_pad. `kernel` is
/// the weight's spatial dims for Conv.
std::optional<Window> readWindow(NodeImporter &node, unsigned spatial,
                                 std::vector<int64_t> kernel) {
  Window window;
  window.kernel = node.intsAttr("kernel_shape").value_or(kernel);
  if (window.kernel.size() != spatial) {
    (void)node.invalid("its kernel_shape has " +
                       llvm::Twine(window.kernel.size()) + " values for " +
                       llvm::Twine(spatial) + " spatial dims");
    return std::nullopt;
  }
  window.strides =
      node.intsAttr("strides").value_or(std::vector<int64_t>(spatial, 1));
  window.dilations =
      node.intsAttr("dilations").value_or(std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads =
      node.intsAttr("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (window.strides.size() != spatial || window.dilations.size() != spatial ||
      pads.size() != 2 * spatial) {
    (void)node.invalid("its strides, dilations or pads do not match its " +
                       llvm::Twine(spatial) + " spatial dims");
    return std::nullopt;
  }
  window.padsBegin.assign(pads.begin(), pads.begin() + spatial);
  window.padsEnd.assign(pads.begin() + spatial, pads.end());
  std::string autoPad = node.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "NOTSET")
    return window;
  if (autoPad == "VALID") {
    window.padsBegin.assign(spatial, 0);
    window.padsEnd.assign(spatial, 0);
    return window;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    (void)node.invalid("its auto_pad is '" + autoPad + "'");
    return std::nullopt;
  }
  const Shape &shape = node.input(0).type.shape;
  for (unsigned d = 0; d < spatial; ++d) {
    std::optional<int64_t> total =
        samePaddingTotal(shape[2 + d], window.strides[d],
                         (window.kernel[d] - 1) * window.dilations[d] + 1);
    if (!total) {
      (void)node.unsupportedAttr(
          "auto_pad",
          "is " + autoPad + " on the dim " + node.str({shape[2 + d]}) +
              " with stride " + std::to_string(window.strides[d]) +
              ": its padding depends on the dim modulo the stride, and "
              "txc's padding is a constant",
          "make the dim a multiple of the stride (--dim NAME=MIN:MAX:" +
              std::to_string(window.strides[d]) +
              "), or export with explicit pads");
      return std::nullopt;
    }
    int64_t small = *total / 2;
    window.padsBegin[d] = autoPad == "SAME_UPPER" ? small : *total - small;
    window.padsEnd[d] = *total - window.padsBegin[d];
  }
  return window;
}

/// A 1-D window as the 2-D window of a height-1 image.
Window asTwoDimensional(const Window &window) {
  auto widen = [](const std::vector<int64_t> &values, int64_t height) {
    return std::vector<int64_t>{height, values[0]};
  };
  return {widen(window.kernel, 1), widen(window.strides, 1),
          widen(window.dilations, 1), widen(window.padsBegin, 0),
          widen(window.padsEnd, 0)};
}

/// txc's padding: one value per dim when both sides are equal, else the
/// begins then the ends (ONNX's order).
std::vector<int64_t> txcPadding(const Window &window) {
  if (window.padsBegin == window.padsEnd)
    return window.padsBegin;
  std::vector<int64_t> padding = window.padsBegin;
  padding.insert(padding.end(), window.padsEnd.begin(), window.padsEnd.end());
  return padding;
}

/// The txc op of a window of `spatial` dims (2 or 3): `conv2d`,
/// `max_pool3d`, ...
std::string windowOp(llvm::StringRef base, size_t spatial) {
  return (base + llvm::Twine(spatial) + "d").str();
}

/// Inserts a height of 1 at axis 2: [N,C,L] -> [N,C,1,L]. A known weight is
/// reshaped at import.
std::optional<ImportedValue> addHeight(NodeImporter &node,
                                       const ImportedValue &value) {
  if (value.known) {
    auto reshaped = std::make_shared<KnownTensor>(*value.known);
    reshaped->dims.insert(reshaped->dims.begin() + 2, 1);
    return node.constant(std::move(reshaped));
  }
  return node.emit("unsqueeze", {value}, {intListAttr("axes", {2})});
}

/// Runs `compute` on the input (and weight) made 2-D when the node is 1-D,
/// and squeezes the height of its result again; 2-D and 3-D nodes are
/// computed as they are.
template <typename Compute>
llvm::LogicalResult withSpatialRank(NodeImporter &node, unsigned rank,
                                    Compute compute) {
  if (rank == 4 || rank == 5)
    return compute(node.input(0), /*oneDimensional=*/false);
  if (rank != 3)
    return node.unsupported("it has " + llvm::Twine(rank - 2) +
                                " spatial dims; txc has 1-D, 2-D and 3-D "
                                "convolutions and pools",
                            "");
  std::optional<ImportedValue> x = addHeight(node, node.input(0));
  return x ? compute(*x, /*oneDimensional=*/true) : llvm::failure();
}

llvm::LogicalResult finish(NodeImporter &node, std::optional<ImportedValue> y,
                           bool oneDimensional) {
  if (!y)
    return llvm::failure();
  if (!oneDimensional)
    return node.setOutput(0, *y);
  return node.emitOutput(0, "squeeze", {*y}, {intListAttr("axes", {2})});
}

/// An inference BatchNormalization with constant statistics is, per
/// channel, y = x * a + b with a = scale / sqrt(var + epsilon) and
/// b = bias - mean * a (computed in double).
struct ChannelAffine {
  std::vector<double> a, b;
};

std::optional<ChannelAffine>
batchNormAffine(llvm::ArrayRef<std::optional<std::vector<double>>> params,
                double epsilon) {
  for (const std::optional<std::vector<double>> &param : params)
    if (!param || param->size() != params[0]->size())
      return std::nullopt;
  ChannelAffine affine;
  for (size_t c = 0; c < params[0]->size(); ++c) {
    affine.a.push_back((*params[0])[c] / std::sqrt((*params[3])[c] + epsilon));
    affine.b.push_back((*params[1])[c] - (*params[2])[c] * affine.a.back());
  }
  return affine;
}

/// The statistics of a BatchNormalization node as known doubles (scale,
/// bias, mean, variance), looked up without reporting anything.
std::optional<ChannelAffine> knownBatchNorm(NodeImporter &node,
                                            const onnx::NodeProto &bn) {
  if (bn.input_size() != 5)
    return std::nullopt;
  std::optional<std::vector<double>> params[4];
  for (unsigned i = 0; i < 4; ++i) {
    const ImportedValue *value = node.lookup(bn.input(i + 1));
    if (value && value->known)
      params[i] = value->known->doubles();
  }
  double epsilon = 1e-5f;
  for (const onnx::AttributeProto &attr : bn.attribute()) {
    if (attr.name() == "epsilon")
      epsilon = attr.f();
    if (attr.name() == "training_mode" && attr.i() != 0)
      return std::nullopt;
  }
  for (int i = 1; i < bn.output_size(); ++i)
    if (!bn.output(i).empty())
      return std::nullopt;
  return batchNormAffine(params, epsilon);
}

/// When a 2-D or 3-D Conv's only reader is an inference BatchNormalization
/// and
/// the weight and bias are constants, the Conv computes the batch norm
/// too: W'[o] = W[o] * a[o] and bias'[o] = bias[o] * a[o] + b[o], in
/// double and rounded once (PyTorch's exporter folds eval models so).
/// Returns the new weight and bias and marks the batch norm folded.
std::optional<std::pair<ImportedValue, ImportedValue>>
foldBatchNormIntoConv(NodeImporter &node) {
  auto consumer = node.soleConsumer(0);
  if (!consumer || consumer->first->op_type() != "BatchNormalization" ||
      !consumer->first->domain().empty())
    return std::nullopt;
  const KnownTensor *weight = node.known(1);
  const KnownTensor *bias = node.hasInput(2) ? node.known(2) : nullptr;
  std::optional<std::vector<double>> w = weight ? weight->doubles()
                                                : std::nullopt;
  std::optional<std::vector<double>> b =
      bias ? bias->doubles() : std::optional<std::vector<double>>();
  DType dtype = node.input(1).type.dtype;
  if (!w || (node.hasInput(2) && !b) ||
      (dtype != DType::F32 && dtype != DType::F64))
    return std::nullopt;
  std::optional<ChannelAffine> affine = knownBatchNorm(node, *consumer->first);
  int64_t channels = weight->dims[0];
  if (!affine || int64_t(affine->a.size()) != channels)
    return std::nullopt;
  size_t perChannel = w->size() / channels;
  for (size_t i = 0; i < w->size(); ++i)
    (*w)[i] *= affine->a[i / perChannel];
  std::vector<double> newBias(channels);
  for (int64_t o = 0; o < channels; ++o)
    newBias[o] = (b ? (*b)[o] : 0.0) * affine->a[o] + affine->b[o];
  node.foldInto(consumer->second);
  return std::make_pair(node.constant(knownFloats(dtype, weight->dims, *w)),
                        node.constant(knownFloats(dtype, {channels}, newBias)));
}

/// Conv-11.
llvm::LogicalResult convertConv(NodeImporter &node) {
  const ImportedValue &w = node.input(1);
  unsigned rank = node.input(0).type.rank();
  if (w.type.rank() != rank)
    return node.invalid("its weight has rank " + llvm::Twine(w.type.rank()) +
                        ", not " + llvm::Twine(rank));
  std::vector<int64_t> kernel;
  for (unsigned d = 2; d < rank; ++d) {
    std::optional<int64_t> k = w.type.shape[d].getConstant();
    if (!k)
      return node.unsupported("its kernel size is symbolic", "");
    kernel.push_back(*k);
  }
  std::optional<Window> window =
      readWindow(node, rank >= 2 ? rank - 2 : 0, kernel);
  if (!window)
    return llvm::failure();
  int64_t group = node.intAttr("group", 1);
  return withSpatialRank(node, rank, [&](ImportedValue x, bool oneDim) {
    Window w2 = oneDim ? asTwoDimensional(*window) : *window;
    std::optional<ImportedValue> weight =
        oneDim ? addHeight(node, node.input(1)) : node.input(1);
    if (!weight)
      return llvm::failure();
    std::vector<ImportedValue> operands = {x, *weight};
    if (node.hasInput(2))
      operands.push_back(node.input(2));
    if (!oneDim)
      if (auto folded = foldBatchNormIntoConv(node))
        operands = {x, folded->first, folded->second};
    std::vector<NodeAttr> attrs = {intListAttr("stride", w2.strides),
                                   intListAttr("padding", txcPadding(w2)),
                                   intListAttr("dilation", w2.dilations),
                                   intAttr("groups", group)};
    std::string op = windowOp("conv", w2.kernel.size());
    if (!oneDim)
      return node.emitOutput(0, op, operands, std::move(attrs));
    return finish(node, node.emit(op, operands, std::move(attrs)), true);
  });
}

//===----------------------------------------------------------------------===//
// ConvTranspose-11 as the convolution it is the adjoint of: the input with
// stride-1 zeros inserted between its elements, padded by
// dilation*(k-1) - pad before and the same plus output_padding after
// (cropped where that is negative), convolved at stride 1 with the kernel
// flipped and its input and output channels swapped within each group.
// Every product of ONNX's definition is in that sum (with products of the
// inserted zeros besides), so nothing is approximated; the zeros cost
// stride^2 (stride^3) times the multiply-adds of a direct transposed kernel.
//===----------------------------------------------------------------------===//

/// A known ConvTranspose weight [C, M/g, k...] as the convolution weight
/// [M, C/g, k...]: W'[g*M/g + m][c][i][j] = W[g*C/g + c][m][kH-1-i][kW-1-j]
/// (every spatial dim flipped).
std::shared_ptr<KnownTensor> flippedWeight(const KnownTensor &w,
                                           int64_t group) {
  int64_t c = w.dims[0], mg = w.dims[1];
  llvm::ArrayRef<int64_t> kernel = llvm::ArrayRef(w.dims).drop_front(2);
  int64_t taps = 1;
  for (int64_t k : kernel)
    taps *= k;
  int64_t cg = c / group;
  size_t size = dtypeSize(w.dtype);
  std::vector<uint8_t> bytes(w.bytes.size);
  // Row-major, the flipped tap of tap t is taps-1-t.
  for (int64_t g = 0; g < group; ++g)
    for (int64_t m = 0; m < mg; ++m)
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t t = 0; t < taps; ++t) {
          int64_t from = ((g * cg + ci) * mg + m) * taps + (taps - 1 - t);
          int64_t to = ((g * mg + m) * cg + ci) * taps + t;
          std::memcpy(&bytes[to * size], w.bytes.data + from * size, size);
        }
  auto flipped = std::make_shared<KnownTensor>();
  flipped->dtype = w.dtype;
  flipped->dims = {mg * group, cg};
  flipped->dims.insert(flipped->dims.end(), kernel.begin(), kernel.end());
  flipped->bytes = Blob::fromVector(std::move(bytes));
  return flipped;
}

/// The transposed convolution's pads: the attribute, or what output_shape
/// or auto_pad SAME_* asks for (ONNX's formula: the total is
/// stride*(in-1) + output_padding + (k-1)*dilation + 1 - out, split with
/// the odd element at the end for SAME_UPPER, at the beginning otherwise).
llvm::LogicalResult transposedPads(NodeImporter &node, const Shape &in,
                                   Window &window,
                                   const std::vector<int64_t> &outputPadding) {
  std::optional<std::vector<int64_t>> outputShape =
      node.intsAttr("output_shape");
  std::string autoPad = node.stringAttr("auto_pad", "NOTSET");
  if (!outputShape && (autoPad == "NOTSET" || autoPad == "VALID"))
    return llvm::success(); // readWindow read (or cleared) the pads
  size_t spatial = window.kernel.size();
  if (outputShape && outputShape->size() != spatial)
    return node.invalid("its output_shape has " +
                        llvm::Twine(outputShape->size()) + " values");
  for (size_t d = 0; d < spatial; ++d) {
    std::optional<int64_t> dim = in[2 + d].getConstant();
    if (!dim)
      return node.unsupported("its output_shape or auto_pad applies to the "
                              "symbolic dim " + node.str({in[2 + d]}),
                              "export with explicit pads");
    int64_t out = outputShape ? (*outputShape)[d] : *dim * window.strides[d];
    int64_t total = window.strides[d] * (*dim - 1) + outputPadding[d] +
                    (window.kernel[d] - 1) * window.dilations[d] + 1 - out;
    // Halved rounding down, as ONNX's reference (Python's //) does: a
    // negative total (an output_shape past the natural size) puts the
    // extra elements at the end.
    int64_t half = (total - floorModulo(total, 2)) / 2;
    window.padsBegin[d] = autoPad == "SAME_UPPER" ? half : total - half;
    window.padsEnd[d] = total - window.padsBegin[d];
  }
  return llvm::success();
}

/// x [N, C, H, W] with stride-1 zeros after each element along H and W:
/// [N, C, H*sH, W*sW] (the trailing zeros are cropped by the caller); a
/// depth likewise. Each spatial dim gets a dim of size 1 after it, padded
/// to the stride, and the pair is merged.
MaybeValue insertZeros(NodeImporter &node, const ImportedValue &x,
                       const std::vector<int64_t> &strides) {
  if (llvm::all_of(strides, [](int64_t s) { return s == 1; }))
    return x;
  size_t spatial = strides.size();
  size_t rank = 2 + 2 * spatial;
  std::vector<int64_t> axes, pads(2 * rank, 0);
  Shape shape = x.type.shape;
  for (size_t d = 0; d < spatial; ++d) {
    axes.push_back(3 + 2 * d);
    pads[rank + 3 + 2 * d] = strides[d] - 1;
    shape[2 + d] =
        *ShapeExpr::mul(shape[2 + d], ShapeExpr::constant(strides[d]));
  }
  return emitIf(
      node, "reshape",
      {emitIf(node, "pad",
              {node.emit("unsqueeze", {x}, {intListAttr("axes", axes)})},
              {intListAttr("pads", pads)})},
      {shapeAttr("shape", shape, node.program().symbolNames())});
}

llvm::LogicalResult convertConvTranspose(NodeImporter &node) {
  const ImportedValue &w = node.input(1);
  unsigned rank = node.input(0).type.rank();
  if (w.type.rank() != rank || !w.known || !w.known->hasBytes())
    return node.unsupported("its weight is not a constant of the input's rank",
                            "txc flips the kernel at import");
  std::vector<int64_t> kernel(w.known->dims.begin() + 2, w.known->dims.end());
  std::optional<Window> window = readWindow(node, rank - 2, kernel);
  if (!window)
    return llvm::failure();
  std::vector<int64_t> outputPadding = node.intsAttr("output_padding")
                                           .value_or(std::vector<int64_t>(
                                               rank - 2, 0));
  if (outputPadding.size() != rank - 2)
    return node.invalid("its output_padding does not match its dims");
  if (llvm::failed(transposedPads(node, node.input(0).type.shape, *window,
                                  outputPadding)))
    return llvm::failure();
  int64_t group = node.intAttr("group", 1);
  return withSpatialRank(node, rank, [&](ImportedValue x, bool oneDim) {
    Window w2 = oneDim ? asTwoDimensional(*window) : *window;
    if (oneDim)
      outputPadding.insert(outputPadding.begin(), 0);
    auto weight = std::make_shared<KnownTensor>(*w.known);
    if (oneDim)
      weight->dims.insert(weight->dims.begin() + 2, 1);
    // Per spatial dim, the zero padding before and after the zero-inserted
    // input (which has stride-1 extra zeros at its end); negative is a crop.
    size_t spatial = w2.kernel.size();
    std::vector<int64_t> before(spatial), after(spatial);
    for (size_t d = 0; d < spatial; ++d) {
      int64_t span = w2.dilations[d] * (w2.kernel[d] - 1);
      before[d] = span - w2.padsBegin[d];
      after[d] = span - w2.padsEnd[d] + outputPadding[d] - (w2.strides[d] - 1);
    }
    MaybeValue input = insertZeros(node, x, w2.strides);
    for (size_t d = 0; d < spatial; ++d) {
      if (before[d] >= 0 && after[d] >= 0)
        continue;
      int64_t start = std::max<int64_t>(0, -before[d]);
      int64_t end = after[d] < 0 ? after[d] : std::numeric_limits<int64_t>::max();
      input = emitIf(node, "slice", {input},
                     {intListAttr("starts", {start}), intListAttr("ends", {end}),
                      intListAttr("axes", {int64_t(2 + d)})});
    }
    if (!input)
      return llvm::failure();
    std::vector<ImportedValue> operands = {
        *input, node.constant(flippedWeight(*weight, group))};
    if (node.hasInput(2))
      operands.push_back(node.input(2));
    std::vector<int64_t> padding;
    for (const std::vector<int64_t> *side : {&before, &after})
      for (int64_t pad : *side)
        padding.push_back(std::max<int64_t>(0, pad));
    std::vector<NodeAttr> attrs = {
        intListAttr("stride", std::vector<int64_t>(spatial, 1)),
        intListAttr("padding", padding), intListAttr("dilation", w2.dilations),
        intAttr("groups", group)};
    return finish(node,
                  node.emit(windowOp("conv", spatial), operands,
                            std::move(attrs)),
                  oneDim);
  });
}

/// AveragePool has `dilations` from opset 19 only; txc's average pools
/// have none.
llvm::LogicalResult checkAverageDilations(NodeImporter &node,
                                          const Window &window) {
  for (int64_t dilation : window.dilations)
    if (dilation != 1)
      return node.unsupportedAttr("dilations",
                                  "is not 1; txc's average pools have no "
                                  "dilation",
                                  "");
  return llvm::success();
}

template <bool Max>
llvm::LogicalResult convertPool(NodeImporter &node) {
  unsigned rank = node.input(0).type.rank();
  if (rank < 3)
    return node.invalid("its input has rank " + llvm::Twine(rank));
  if (node.numOutputs() > 1 && !node.outputName(1).empty())
    return node.unsupported("its Indices output is used; txc's max pools "
                            "return only the values",
                            "");
  std::optional<Window> window = readWindow(node, rank - 2, {});
  if (!window || (!Max && llvm::failed(checkAverageDilations(node, *window))))
    return llvm::failure();
  return withSpatialRank(node, rank, [&](ImportedValue x, bool oneDim) {
    Window w2 = oneDim ? asTwoDimensional(*window) : *window;
    std::vector<NodeAttr> attrs = {intListAttr("kernel", w2.kernel),
                                   intListAttr("stride", w2.strides),
                                   intListAttr("padding", txcPadding(w2))};
    // Default attributes are left out, so that models without these
    // features import as before.
    if (Max && llvm::any_of(w2.dilations, [](int64_t d) { return d != 1; }))
      attrs.push_back(intListAttr("dilation", w2.dilations));
    if (!Max)
      attrs.push_back(boolAttr("count_include_pad",
                               node.intAttr("count_include_pad", 0) != 0));
    if (node.intAttr("ceil_mode", 0) != 0)
      attrs.push_back(boolAttr("ceil_mode", true));
    std::string op = windowOp(Max ? "max_pool" : "avg_pool", w2.kernel.size());
    if (!oneDim)
      return node.emitOutput(0, op, {x}, std::move(attrs));
    return finish(node, node.emit(op, {x}, std::move(attrs)), true);
  });
}

/// GlobalAveragePool and GlobalMaxPool: a mean or max over every spatial
/// dim, kept as 1s.
template <bool Max>
llvm::LogicalResult convertGlobalPool(NodeImporter &node) {
  unsigned rank = node.input(0).type.rank();
  if (rank < 3)
    return node.invalid("its input has rank " + llvm::Twine(rank));
  if (!Max && rank == 4)
    return node.emitOutput(0, "global_avg_pool", {node.input(0)});
  std::vector<int64_t> axes;
  for (unsigned d = 2; d < rank; ++d)
    axes.push_back(d);
  return node.emitOutput(0, Max ? "max" : "mean", {node.input(0)},
                         {intListAttr("axes", axes), boolAttr("keepdims", true)});
}

/// A [C] parameter as [C, 1, ...] for an input of `rank` (NCHW...).
std::optional<ImportedValue> perChannel(NodeImporter &node,
                                        const ImportedValue &param,
                                        unsigned rank) {
  if (rank == 2)
    return param;
  std::vector<int64_t> axes;
  for (unsigned d = 1; d + 1 < rank; ++d)
    axes.push_back(d);
  return node.emit("unsqueeze", {param}, {intListAttr("axes", axes)});
}

/// An inference BatchNormalization whose statistics are tensors of the
/// graph: ONNX's formula step by step, scale * (x - mean) /
/// sqrt(var + epsilon) + bias, each parameter broadcast per channel.
llvm::LogicalResult convertBatchNormWithTensors(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  unsigned rank = x.type.rank();
  std::optional<ImportedValue> params[4];
  for (unsigned i = 0; i < 4; ++i)
    if (!(params[i] = perChannel(node, node.input(i + 1), rank)))
      return llvm::failure();
  const auto &[scale, bias, mean, var] = params;
  ImportedValue epsilon =
      node.scalar(x.type.dtype, node.floatAttr("epsilon", 1e-5f));
  std::optional<ImportedValue> centered, scaled, shifted, deviation, quotient;
  if (!(centered = node.emit("sub", {x, *mean})) ||
      !(scaled = node.emit("mul", {*scale, *centered})) ||
      !(shifted = node.emit("add", {*var, epsilon})) ||
      !(deviation = node.emit("sqrt", {*shifted})) ||
      !(quotient = node.emit("div", {*scaled, *deviation})))
    return llvm::failure();
  return node.emitOutput(0, "add", {*quotient, *bias});
}

/// BatchNormalization-15 for inference: with constant statistics it is
/// y = x * a + b per channel, a = scale / sqrt(var + eps) and
/// b = bias - mean * a, computed at import in double and rounded once to
/// the tensor's dtype (docs/onnx.md).
llvm::LogicalResult convertBatchNormalization(NodeImporter &node) {
  if (node.isFolded()) // into the convolution that computes its input
    return node.setOutput(0, node.input(0));
  if (node.intAttr("training_mode", 0) != 0)
    return node.unsupportedAttr("training_mode", "is 1; txc imports "
                                                 "inference graphs only",
                                "export the model in eval mode");
  for (unsigned i = 1; i < node.numOutputs(); ++i)
    if (!node.outputName(i).empty())
      return node.unsupported("its running statistics outputs are used",
                              "export the model in eval mode");
  const ImportedValue &x = node.input(0);
  if (x.type.rank() < 2 || !isFloat(x.type.dtype))
    return node.invalid("its input must be a float tensor of rank 2 or more");
  for (unsigned i = 1; i <= 4; ++i)
    if (!node.known(i))
      return convertBatchNormWithTensors(node);
  std::optional<std::vector<double>> params[4];
  const char *what[] = {"scale", "bias", "mean", "variance"};
  for (unsigned i = 0; i < 4; ++i)
    if (!(params[i] = node.requireKnownDoubles(i + 1, what[i])))
      return llvm::failure();
  std::optional<ChannelAffine> affine =
      batchNormAffine(params, node.floatAttr("epsilon", 1e-5f));
  if (!affine)
    return node.invalid("its scale, bias, mean and variance differ in size");
  std::vector<int64_t> dims(x.type.rank() - 1, 1);
  dims[0] = int64_t(affine->a.size());
  std::optional<ImportedValue> scaled = node.emit(
      "mul", {x, node.constant(knownFloats(x.type.dtype, dims, affine->a))});
  if (!scaled)
    return llvm::failure();
  return node.emitOutput(
      0, "add",
      {*scaled, node.constant(knownFloats(x.type.dtype, dims, affine->b))});
}

} // namespace

void txc::onnximport::addConvolutionConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(),
               {
                   {"Conv", 11, 17, convertConv},
                   {"ConvTranspose", 11, 17, convertConvTranspose},
                   {"MaxPool", 12, 17, convertPool<true>},
                   {"AveragePool", 11, 17, convertPool<false>},
                   {"GlobalAveragePool", 1, 17, convertGlobalPool<false>},
                   {"GlobalMaxPool", 1, 17, convertGlobalPool<true>},
                   {"BatchNormalization", 15, 17, convertBatchNormalization},
               });
}
