//===- Convolution.cpp - Shape rules of convolution and pooling -----------===//
//
// conv2d, conv3d, max_pool2d, max_pool3d, avg_pool2d, avg_pool3d and
// global_avg_pool (docs/ops.md, "Convolution and pooling"); the 2-D and 3-D
// ops share each rule, written for any number of spatial dims. The output
// size of a sliding window,
//
//   out = floor((in + pads - dilation*(kernel-1) - 1) / stride) + 1
//
// (pads: the padding before plus after the dim), must be a polynomial in
// the symbols like every other dim. That holds when the symbolic part of the
// numerator is divisible by the stride term by term (the constant part may
// round down), e.g. always for stride 1, and for stride 2 when the input dim
// is written `2*S`; otherwise the node is rejected with an explanation.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Program/Attributes.h"
#include "txc/Program/Window.h"

using namespace txc;

namespace {

/// Checks that every integer of an IntList attribute lies in [min, max];
/// records a problem at the attribute otherwise.
bool checkListRange(InferenceContext &ctx, llvm::StringRef name,
                    const std::vector<int64_t> &values, int64_t min,
                    int64_t max, llvm::StringRef what) {
  for (int64_t value : values)
    if (value < min || value > max) {
      ctx.fail(ctx.attrLoc(name), "bad-attribute",
               "attribute '" + name.str() + "' of node '" + ctx.node.name +
                   "' must hold " + what.str() + ", not " +
                   std::to_string(value));
      return false;
    }
  return true;
}

/// Checks an optional IntList attribute: one of the `lengths`, every value
/// in [min, max].
bool checkList(InferenceContext &ctx, llvm::StringRef name,
               llvm::ArrayRef<size_t> lengths, int64_t min,
               llvm::StringRef what) {
  // Window sizes beyond 2^32 are no real model and keep every product of
  // them in int64.
  constexpr int64_t kMaxWindow = int64_t(1) << 32;
  if (!hasAttr(ctx.node, name))
    return true;
  std::vector<int64_t> values = getIntListAttr(ctx.node, name);
  if (!llvm::is_contained(lengths, values.size())) {
    std::string expected;
    for (size_t length : lengths)
      expected += (expected.empty() ? "" : " or ") + std::to_string(length);
    ctx.fail(ctx.attrLoc(name), "bad-attribute",
             "attribute '" + name.str() + "' of node '" + ctx.node.name +
                 "' must have " + expected + " integers, not " +
                 std::to_string(values.size()));
    return false;
  }
  return checkListRange(ctx, name, values, min, kMaxWindow, what);
}

/// Reads the `layout` attribute: channels first ("NCHW", "NCDHW"; the
/// default) or last ("NHWC", "NDHWC").
std::optional<Layout> readLayout(InferenceContext &ctx, unsigned spatial) {
  llvm::StringRef first = layoutName(Layout::ChannelsFirst, spatial);
  llvm::StringRef last = layoutName(Layout::ChannelsLast, spatial);
  std::string text = getStringAttr(ctx.node, "layout", first);
  if (auto layout = parseLayout(text, spatial))
    return layout;
  ctx.fail(ctx.attrLoc("layout"), "bad-attribute",
           "attribute 'layout' of node '" + ctx.node.name + "' must be \"" +
               first.str() + "\" or \"" + last.str() + "\", not \"" + text +
               "\"");
  return std::nullopt;
}

/// Checks the window attributes of a convolution or a pool over `spatial`
/// dims and reads them; a conv's kernel is filled in from its weights
/// later.
std::optional<Window> readWindow(InferenceContext &ctx, bool isConv,
                                 unsigned spatial) {
  bool ok = true;
  if (!isConv)
    ok &= checkList(ctx, "kernel", {spatial}, 1, "positive integers");
  ok &= checkList(ctx, "stride", {spatial}, 1, "positive integers");
  ok &= checkList(ctx, "padding", {spatial, 2 * spatial}, 0,
                  "non-negative integers");
  // Only the convolutions and max pools declare `dilation` (Ops.def).
  ok &= checkList(ctx, "dilation", {spatial}, 1, "positive integers");
  if (!ok)
    return std::nullopt;
  return getWindow(ctx.node, isConv ? llvm::SmallVector<int64_t, 3>(spatial, 1)
                                    : llvm::SmallVector<int64_t, 3>());
}

/// The name of spatial dim `axis` of `spatial` in diagnostics.
const char *axisName(unsigned axis, unsigned spatial) {
  static const char *const names[] = {"depth", "height", "width"};
  return names[3 - spatial + axis];
}

/// The windows after the first along `axis` contributed by the constant
/// part `constant` of the numerator `in + pads - span` (its symbolic part,
/// a multiple of the stride, contributes exactly its quotient). In ceil
/// mode the last window must start inside the input or the padding before
/// it (ONNX, PyTorch): it is dropped when it would start at or after
/// `in + padBefore`. With numerator = stride*Q + constant that start,
/// stride*ceil(numerator/stride) - padBefore, minus `in + padBefore` is
/// `rest - (span - padAfter)` with rest = stride*ceil(constant/stride) -
/// constant: it does not depend on the symbols.
int64_t constantSteps(const Window &window, unsigned axis, int64_t constant) {
  int64_t stride = window.stride[axis];
  if (!window.ceilMode)
    return floorDivide(constant, stride);
  int64_t steps = floorDivide(constant + stride - 1, stride);
  int64_t rest = steps * stride - constant;
  if (rest >= window.span(axis) - window.padAfter[axis])
    --steps;
  return steps;
}

/// The output size of spatial dim `axis` (the last is the width); records
/// a problem when it is empty for some symbol values or not a polynomial.
std::optional<ShapeExpr> windowOutputDim(InferenceContext &ctx,
                                         const Window &window, unsigned axis,
                                         const ShapeExpr &in) {
  const char *axisName = ::axisName(axis, window.rank());
  // Attribute values are at most 2^32 and kernel dims at most 2^48, so only
  // the product can overflow.
  int64_t extent = 0;
  bool overflow = __builtin_mul_overflow(window.dilation[axis],
                                         window.kernel[axis] - 1, &extent);
  overflow |= __builtin_add_overflow(extent, 1, &extent);
  int64_t pads = window.padBefore[axis] + window.padAfter[axis];
  // numerator = in + pads - extent
  auto numerator = ShapeExpr::add(in, ShapeExpr::constant(pads - extent));
  if (overflow || !numerator) {
    ctx.fail(ctx.node.loc, "limit",
             "the output " + std::string(axisName) + " of node '" +
                 ctx.node.name + "' overflows int64");
    return std::nullopt;
  }
  std::string padded =
      ctx.str(in) + (pads ? " + " + std::to_string(pads) : std::string());
  Interval bounds = numerator->bounds(ctx.program.symbolRanges());
  if (bounds.min < 0) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "the window of '" + ctx.opName() + "' node '" + ctx.node.name +
                 "' spans " + std::to_string(extent) + " input " + axisName +
                 (extent == 1 ? " element" : " elements") + " (kernel " +
                 std::to_string(window.kernel[axis]) + ", dilation " +
                 std::to_string(window.dilation[axis]) +
                 "), more than the padded input " + axisName + " " + padded +
                 (in.isConstant() ? std::string()
                                  : ", which can be as small as " +
                                        std::to_string(bounds.min + extent)));
    return std::nullopt;
  }
  // Split into the symbolic part, which must divide exactly (as 2*S does
  // for S declared multiple_of 2), and the constant, which rounds down.
  int64_t stride = window.stride[axis];
  int64_t constant = numerator->constantTerm();
  ShapeExpr symbolic =
      *ShapeExpr::sub(*numerator, ShapeExpr::constant(constant));
  auto quotient = symbolic.divExact(stride);
  if (!quotient) {
    std::vector<std::string> notes = {
        "with a symbolic input " + std::string(axisName) +
        ", txc needs stride 1 or an input dimension whose symbolic part is a "
        "multiple of the stride: declare its symbol with multiple_of " +
        std::to_string(stride) + ", or declare it as e.g. '" +
        std::to_string(stride) + "*K' with a new symbol K instead of '" +
        ctx.str(in) + "'"};
    ctx.fail(ctx.node.loc, "non-polynomial-dim",
             "the output " + std::string(axisName) + " of '" + ctx.opName() +
                 "' node '" + ctx.node.name + "' is " +
                 (window.ceilMode ? "ceil((" : "floor((") +
                 ctx.str(*numerator) + ") / " + std::to_string(stride) +
                 ") + 1, which is not a polynomial in the symbols: " +
                 ctx.str(symbolic) + " is not a multiple of the stride " +
                 std::to_string(stride),
             notes);
    return std::nullopt;
  }
  return ShapeExpr::add(*quotient,
                        ShapeExpr::constant(
                            constantSteps(window, axis, constant) + 1));
}

bool isFloatDType(DType type) { return isFloat(type); }

/// The output shape of an input in `layout` with `channels` output
/// channels, or nullopt after recording the problems of every spatial dim.
std::optional<Shape> windowOutputShape(InferenceContext &ctx,
                                       const Window &window, Layout layout,
                                       const Shape &input,
                                       const ShapeExpr &channels) {
  LayoutDims dims = layoutDims(layout, window.rank());
  std::vector<ShapeExpr> spatial;
  bool ok = true;
  for (unsigned axis = 0; axis < window.rank(); ++axis) {
    auto dim = windowOutputDim(ctx, window, axis, input[dims.spatial[axis]]);
    ok &= dim.has_value();
    if (dim)
      spatial.push_back(*dim);
  }
  if (!ok)
    return std::nullopt;
  return makeShape(layout, input[dims.batch], channels, spatial);
}

//===----------------------------------------------------------------------===//
// conv2d, conv3d
//===----------------------------------------------------------------------===//

/// The weight dims of a convolution: OIHW (OIDHW) for channels first, HWIO
/// (DHWIO) for channels last.
struct WeightDims {
  ShapeExpr out, in;
  std::vector<ShapeExpr> kernel;
};

WeightDims weightDims(Layout layout, const Shape &w) {
  size_t rank = w.size();
  if (layout == Layout::ChannelsFirst)
    return {w[0], w[1], Shape(w.begin() + 2, w.end())};
  return {w[rank - 1], w[rank - 2], Shape(w.begin(), w.end() - 2)};
}

/// Checks the channel counts of a convolution: C == groups * I,
/// O % groups == 0.
bool checkConvChannels(InferenceContext &ctx, int64_t groups,
                       const ShapeExpr &c, const WeightDims &w) {
  std::string weights = ctx.str(ctx.operands[1].shape);
  std::string input = ctx.str(ctx.operands[0].shape);
  if (groups == 1) {
    if (c == w.in)
      return true;
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "the input of '" + ctx.opName() + "' node '" + ctx.node.name +
                 "' has " +
                 ctx.str(c) + " channels (shape " + input +
                 ") but its weights " + weights + " expect " + ctx.str(w.in),
             ctx.explainDimMismatch(c, w.in));
    return false;
  }
  auto cs = c.getConstant(), os = w.out.getConstant(), is = w.in.getConstant();
  if (!cs || !os || !is) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "'" + ctx.opName() + "' node '" + ctx.node.name +
                 "' with groups " +
                 std::to_string(groups) +
                 " needs static channel counts; the input has " + ctx.str(c) +
                 " and the weights " + weights);
    return false;
  }
  std::string prefix = "'" + ctx.opName() + "' node '" + ctx.node.name +
                       "' has groups " +
                       std::to_string(groups) + ", which does not divide its ";
  if (*cs % groups != 0) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             prefix + std::to_string(*cs) + " input channels (shape " + input +
                 ")");
    return false;
  }
  if (*os % groups != 0) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             prefix + std::to_string(*os) + " output channels (weights " +
                 weights + ")");
    return false;
  }
  if (*cs / groups != *is) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "the weights " + weights + " of '" + ctx.opName() + "' node '" +
                 ctx.node.name +
                 "' have " + std::to_string(*is) +
                 " input channels per group; " + std::to_string(*cs) +
                 " input channels in " + std::to_string(groups) +
                 " groups need " + std::to_string(*cs / groups));
    return false;
  }
  return true;
}

bool checkBias(InferenceContext &ctx, const ShapeExpr &out) {
  if (ctx.operands.size() < 3)
    return true;
  if (!ctx.requireSameDType(0, 2) || !ctx.requireRank(2, 1))
    return false;
  if (ctx.operands[2].shape[0] == out)
    return true;
  ctx.fail(ctx.operandLoc(2), "shape-mismatch",
           "the bias of '" + ctx.opName() + "' node '" + ctx.node.name +
               "' has shape " +
               ctx.str(ctx.operands[2].shape) + "; the convolution has " +
               ctx.str(out) + " output channels");
  return false;
}

/// The static kernel of a convolution's weights, or nullopt after
/// recording that it is not static and positive.
std::optional<llvm::SmallVector<int64_t, 3>>
staticKernel(InferenceContext &ctx, Layout layout, const WeightDims &w) {
  llvm::SmallVector<int64_t, 3> kernel;
  for (const ShapeExpr &dim : w.kernel) {
    auto size = dim.getConstant();
    if (!size || *size < 1)
      break;
    kernel.push_back(*size);
  }
  if (kernel.size() == w.kernel.size())
    return kernel;
  unsigned spatial = w.kernel.size();
  std::string names;
  for (unsigned axis = 0; axis < spatial; ++axis)
    names += std::string(axis == 0                 ? ""
                         : axis + 1 == spatial ? " and "
                                               : ", ") +
             axisName(axis, spatial);
  ctx.fail(ctx.operandLoc(1), "shape-mismatch",
           "the kernel of '" + ctx.opName() + "' node '" + ctx.node.name +
               "' must have static, positive " + names +
               "; the weights have shape " + ctx.str(ctx.operands[1].shape) +
               " (" + weightLayoutName(layout, spatial).str() + ")");
  return std::nullopt;
}

std::vector<TensorType> inferConv(InferenceContext &ctx) {
  unsigned spatial = spatialRank(ctx.node.kind);
  if (!ctx.requireDType(0, isFloatDType, "a floating-point dtype") ||
      !ctx.requireSameDType(0, 1) || !ctx.requireRank(0, spatial + 2) ||
      !ctx.requireRank(1, spatial + 2))
    return {};
  auto layout = readLayout(ctx, spatial);
  auto window = readWindow(ctx, /*isConv=*/true, spatial);
  int64_t groups = getIntAttr(ctx.node, "groups", 1);
  if (groups < 1 || groups > (int64_t(1) << 32)) {
    ctx.fail(ctx.attrLoc("groups"), "bad-attribute",
             "attribute 'groups' of node '" + ctx.node.name +
                 "' must be a positive integer, not " + std::to_string(groups));
    return {};
  }
  if (!layout || !window)
    return {};
  const Shape &x = ctx.operands[0].shape;
  WeightDims w = weightDims(*layout, ctx.operands[1].shape);
  auto kernel = staticKernel(ctx, *layout, w);
  if (!kernel)
    return {};
  window->kernel = *kernel;
  const ShapeExpr &c = x[layoutDims(*layout, spatial).channels];
  if (!checkConvChannels(ctx, groups, c, w) || !checkBias(ctx, w.out))
    return {};
  auto shape = windowOutputShape(ctx, *window, *layout, x, w.out);
  if (!shape)
    return {};
  return {TensorType{ctx.operands[0].dtype, std::move(*shape)}};
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// The max pools also take i8 and u8, as ONNX's MaxPool does since opset 12.
bool isMaxPoolDType(DType type) {
  return isFloat(type) || type == DType::I8 || type == DType::U8;
}

/// As ONNX Runtime, each padding is less than the kernel size: with
/// dilation 1 every window then holds an input element (in ceil mode too,
/// whose last window starts inside the input or the padding before it), so
/// an average never divides by zero.
bool checkPoolPadding(InferenceContext &ctx, const Window &window) {
  for (unsigned axis = 0; axis < window.rank(); ++axis)
    for (int64_t pad : {window.padBefore[axis], window.padAfter[axis]})
      if (pad >= window.kernel[axis]) {
        ctx.fail(ctx.attrLoc("padding"), "bad-attribute",
                 "padding " + std::to_string(pad) + " of '" + ctx.opName() +
                     "' node '" + ctx.node.name +
                     "' is not less than the kernel size " +
                     std::to_string(window.kernel[axis]));
        return false;
      }
  return true;
}

std::vector<TensorType> inferPool(InferenceContext &ctx) {
  unsigned spatial = spatialRank(ctx.node.kind);
  bool isMax = ctx.node.kind == OpKind::MaxPool2D ||
               ctx.node.kind == OpKind::MaxPool3D;
  if (!(isMax ? ctx.requireDType(0, isMaxPoolDType,
                                 "a floating-point dtype, i8 or u8")
              : ctx.requireDType(0, isFloatDType, "a floating-point dtype")) ||
      !ctx.requireRank(0, spatial + 2))
    return {};
  auto layout = readLayout(ctx, spatial);
  auto window = readWindow(ctx, /*isConv=*/false, spatial);
  if (!layout || !window || !checkPoolPadding(ctx, *window))
    return {};
  const Shape &x = ctx.operands[0].shape;
  auto shape = windowOutputShape(ctx, *window, *layout, x,
                                 x[layoutDims(*layout, spatial).channels]);
  if (!shape)
    return {};
  return {TensorType{ctx.operands[0].dtype, std::move(*shape)}};
}

/// global_avg_pool keeps the rank: [N,C,1,1] for NCHW (ONNX), [N,1,1,C] for
/// NHWC, so that it composes with further convolutions.
std::vector<TensorType> inferGlobalAvgPool(InferenceContext &ctx) {
  if (!ctx.requireDType(0, isFloatDType, "a floating-point dtype") ||
      !ctx.requireRank(0, 4))
    return {};
  auto layout = readLayout(ctx, 2);
  if (!layout)
    return {};
  const Shape &x = ctx.operands[0].shape;
  LayoutDims dims = layoutDims(*layout, 2);
  ShapeExpr one = ShapeExpr::constant(1);
  return {TensorType{ctx.operands[0].dtype,
                     makeShape(*layout, x[dims.batch], x[dims.channels],
                               {one, one})}};
}

} // namespace

void txc::registerConvolutionShapeRules(ShapeRuleTable &table) {
  table.add(OpKind::Conv2D, inferConv);
  table.add(OpKind::Conv3D, inferConv);
  table.add(OpKind::MaxPool2D, inferPool);
  table.add(OpKind::MaxPool3D, inferPool);
  table.add(OpKind::AvgPool2D, inferPool);
  table.add(OpKind::AvgPool3D, inferPool);
  table.add(OpKind::GlobalAvgPool, inferGlobalAvgPool);
}
