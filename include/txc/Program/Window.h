//===- Window.h - Sliding-window attributes of convolutions and pools -*- C++ -*-===//
//
// One reading of the layout, stride, padding, dilation and kernel of
// conv2d, conv3d and the 2-D and 3-D pools, shared by the shape rules,
// MLIRGen and the interpreter so that they cannot disagree on defaults or
// on the order of a two-sided padding (docs/ops.md, "Convolution and
// pooling"). Everything here is written once for any number of spatial
// dims; an op's kind says how many it has.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_WINDOW_H
#define TXC_PROGRAM_WINDOW_H

#include "txc/Program/Attributes.h"
#include "txc/Program/OpRegistry.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace txc {

/// The number of spatial dims of a convolution or pool: 3 for the 3-D ops
/// (NCDHW), 2 for the others (NCHW).
inline unsigned spatialRank(OpKind kind) {
  switch (kind) {
  case OpKind::Conv3D:
  case OpKind::MaxPool3D:
  case OpKind::AvgPool3D:
    return 3;
  default:
    return 2;
  }
}

/// Where the channels of an activation are. Channels first (NCHW, NCDHW)
/// takes OIHW / OIDHW weights (PyTorch, ONNX); channels last (NHWC, NDHWC)
/// takes HWIO / DHWIO weights (TensorFlow, JAX).
enum class Layout { ChannelsFirst, ChannelsLast };

/// The `layout` attribute's spelling of `layout` for `spatial` dims.
inline llvm::StringRef layoutName(Layout layout, unsigned spatial) {
  if (spatial == 3)
    return layout == Layout::ChannelsFirst ? "NCDHW" : "NDHWC";
  return layout == Layout::ChannelsFirst ? "NCHW" : "NHWC";
}

/// The weight order of a convolution in `layout`: "OIHW", "DHWIO", ...
inline llvm::StringRef weightLayoutName(Layout layout, unsigned spatial) {
  if (spatial == 3)
    return layout == Layout::ChannelsFirst ? "OIDHW" : "DHWIO";
  return layout == Layout::ChannelsFirst ? "OIHW" : "HWIO";
}

inline std::optional<Layout> parseLayout(llvm::StringRef text,
                                         unsigned spatial) {
  for (Layout layout : {Layout::ChannelsFirst, Layout::ChannelsLast})
    if (text == layoutName(layout, spatial))
      return layout;
  return std::nullopt;
}

/// The layout of a verified node (channels first when absent).
inline Layout getLayout(const Node &node) {
  unsigned spatial = spatialRank(node.kind);
  return parseLayout(getStringAttr(node, "layout",
                                   layoutName(Layout::ChannelsFirst, spatial)),
                     spatial)
      .value_or(Layout::ChannelsFirst);
}

/// Positions of the activation dims in a layout: the batch is dim 0, the
/// channels dim 1 or the last, the spatial dims (depth, height, width) in
/// order after the batch or the channels.
struct LayoutDims {
  unsigned batch = 0;
  unsigned channels;
  llvm::SmallVector<unsigned, 3> spatial;
};

inline LayoutDims layoutDims(Layout layout, unsigned spatial) {
  LayoutDims dims;
  bool first = layout == Layout::ChannelsFirst;
  dims.channels = first ? 1 : spatial + 1;
  for (unsigned axis = 0; axis < spatial; ++axis)
    dims.spatial.push_back(first ? 2 + axis : 1 + axis);
  return dims;
}

/// The activation shape with the given dims, in `layout`.
inline Shape makeShape(Layout layout, ShapeExpr batch, ShapeExpr channels,
                       llvm::ArrayRef<ShapeExpr> spatial) {
  Shape shape = {std::move(batch)};
  if (layout == Layout::ChannelsFirst)
    shape.push_back(channels);
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  if (layout == Layout::ChannelsLast)
    shape.push_back(channels);
  return shape;
}

/// A sliding window over `rank()` spatial dims; index 0 is the outermost
/// (the depth of a 3-D window, the height of a 2-D one), the last the
/// width.
struct Window {
  llvm::SmallVector<int64_t, 3> kernel, stride, dilation;
  llvm::SmallVector<int64_t, 3> padBefore; ///< front, top, left
  llvm::SmallVector<int64_t, 3> padAfter;  ///< back, bottom, right
  /// Pools: the output size rounds up, as ONNX's and PyTorch's ceil_mode,
  /// except that the last window must start inside the input or the
  /// padding before it.
  bool ceilMode = false;

  explicit Window(unsigned rank)
      : kernel(rank, 1), stride(rank, 1), dilation(rank, 1),
        padBefore(rank, 0), padAfter(rank, 0) {}

  unsigned rank() const { return kernel.size(); }

  /// The number of input elements a window spans: dilation*(kernel-1)+1.
  int64_t span(unsigned axis) const {
    return dilation[axis] * (kernel[axis] - 1) + 1;
  }

  /// The number of elements of one window: the product of the kernel.
  int64_t size() const {
    int64_t product = 1;
    for (int64_t k : kernel)
      product *= k;
    return product;
  }

  /// `padding` has one value per spatial dim (both sides) or two: all the
  /// befores, then all the afters ([top, left, bottom, right]; ONNX's
  /// `pads` order).
  void setPadding(const std::vector<int64_t> &padding) {
    unsigned n = rank();
    if (padding.size() == n) {
      padBefore.assign(padding.begin(), padding.end());
      padAfter = padBefore;
    } else if (padding.size() == 2 * n) {
      padBefore.assign(padding.begin(), padding.begin() + n);
      padAfter.assign(padding.begin() + n, padding.end());
    }
  }
  bool hasPadding() const {
    return llvm::any_of(padBefore, [](int64_t p) { return p != 0; }) ||
           llvm::any_of(padAfter, [](int64_t p) { return p != 0; });
  }
};

/// The window of a verified convolution or pool node. A pool's kernel is
/// its attribute and its stride defaults to the kernel; a conv's kernel is
/// `convKernel` (from its static weight shape). Attributes an op does not
/// have read as their defaults (avg pools: dilation 1; convolutions: no
/// ceil mode).
inline Window getWindow(const Node &node,
                        llvm::ArrayRef<int64_t> convKernel = {}) {
  unsigned rank = spatialRank(node.kind);
  Window window(rank);
  auto read = [&](llvm::SmallVector<int64_t, 3> &field, llvm::StringRef name,
                  llvm::ArrayRef<int64_t> fallback) {
    std::vector<int64_t> values = getIntListAttr(node, name, fallback.vec());
    field.assign(values.begin(), values.end());
  };
  if (!convKernel.empty())
    window.kernel.assign(convKernel.begin(), convKernel.end());
  else
    read(window.kernel, "kernel", window.kernel);
  read(window.stride, "stride",
       convKernel.empty() ? window.kernel : window.stride);
  read(window.dilation, "dilation", window.dilation);
  window.setPadding(
      getIntListAttr(node, "padding", std::vector<int64_t>(rank, 0)));
  window.ceilMode = getBoolAttr(node, "ceil_mode", false);
  return window;
}

} // namespace txc

#endif
