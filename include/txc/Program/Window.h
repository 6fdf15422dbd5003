//===- Window.h - Sliding-window attributes of conv2d and pools -*- C++ -*-===//
//
// One reading of the layout, stride, padding, dilation and kernel of
// conv2d, max_pool2d and avg_pool2d, shared by the shape rules, MLIRGen and
// the interpreter so that they cannot disagree on defaults or on the order
// of a 4-element padding (docs/ops.md, "Convolution and pooling").
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_WINDOW_H
#define TXC_PROGRAM_WINDOW_H

#include "txc/Program/Attributes.h"

#include <array>
#include <optional>

namespace txc {

/// Activation layouts. NCHW convolutions take OIHW weights (PyTorch, ONNX);
/// NHWC convolutions take HWIO weights (TensorFlow, JAX).
enum class Layout { NCHW, NHWC };

inline std::optional<Layout> parseLayout(llvm::StringRef text) {
  if (text == "NCHW")
    return Layout::NCHW;
  if (text == "NHWC")
    return Layout::NHWC;
  return std::nullopt;
}

/// The layout of a verified node ("NCHW" when absent).
inline Layout getLayout(const Node &node) {
  return parseLayout(getStringAttr(node, "layout", "NCHW"))
      .value_or(Layout::NCHW);
}

/// Positions of the activation dims in a layout.
struct LayoutDims {
  unsigned batch, channels, height, width;
};

inline LayoutDims layoutDims(Layout layout) {
  return layout == Layout::NCHW ? LayoutDims{0, 1, 2, 3}
                                : LayoutDims{0, 3, 1, 2};
}

/// The activation shape with the given dims, in `layout`.
inline Shape makeShape(Layout layout, ShapeExpr batch, ShapeExpr channels,
                       ShapeExpr height, ShapeExpr width) {
  if (layout == Layout::NCHW)
    return {batch, channels, height, width};
  return {batch, height, width, channels};
}

/// A 2-D sliding window; index 0 is the height, 1 the width.
struct Window {
  std::array<int64_t, 2> kernel{1, 1};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padBefore{0, 0}; ///< top, left
  std::array<int64_t, 2> padAfter{0, 0};  ///< bottom, right
  /// Pools: the output size rounds up, as ONNX's and PyTorch's ceil_mode,
  /// except that the last window must start inside the input or the
  /// padding before it.
  bool ceilMode = false;

  /// The number of input elements a window spans: dilation*(kernel-1)+1.
  int64_t span(unsigned axis) const {
    return dilation[axis] * (kernel[axis] - 1) + 1;
  }

  /// `padding` is [ph, pw] (symmetric) or [top, left, bottom, right] (the
  /// order of ONNX's `pads`).
  void setPadding(const std::vector<int64_t> &padding) {
    if (padding.size() == 2) {
      padBefore = padAfter = {padding[0], padding[1]};
    } else if (padding.size() == 4) {
      padBefore = {padding[0], padding[1]};
      padAfter = {padding[2], padding[3]};
    }
  }
  bool hasPadding() const {
    return padBefore[0] || padBefore[1] || padAfter[0] || padAfter[1];
  }
};

/// The window of a verified conv2d, max_pool2d or avg_pool2d node. A pool's
/// kernel is its attribute and its stride defaults to the kernel; a conv's
/// kernel is `kernelHW` (from its static weight shape). Attributes an op
/// does not have read as their defaults (avg_pool2d: dilation 1; conv2d:
/// no ceil mode).
inline Window getWindow(const Node &node,
                        std::array<int64_t, 2> kernelHW = {0, 0}) {
  Window window;
  bool isConv = kernelHW[0] > 0;
  if (isConv) {
    window.kernel = kernelHW;
  } else {
    std::vector<int64_t> kernel = getIntListAttr(node, "kernel", {1, 1});
    window.kernel = {kernel[0], kernel[1]};
  }
  std::vector<int64_t> stride = getIntListAttr(
      node, "stride",
      {isConv ? 1 : window.kernel[0], isConv ? 1 : window.kernel[1]});
  window.stride = {stride[0], stride[1]};
  std::vector<int64_t> dilation = getIntListAttr(node, "dilation", {1, 1});
  window.dilation = {dilation[0], dilation[1]};
  window.setPadding(getIntListAttr(node, "padding", {0, 0}));
  window.ceilMode = getBoolAttr(node, "ceil_mode", false);
  return window;
}

} // namespace txc

#endif
