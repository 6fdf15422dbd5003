//===- Resize.cpp - ONNX Resize and Upsample ------------------------------===//
//
// Resize-13 on static dims: each resized axis is a weighted sum of `gather`s
// with constant indices, the taps and weights computed here exactly as
// ONNX's reference (onnx/backend/test/case/node/resize.py) computes them:
// the output coordinate mapped to the input (coordinate_transformation_mode),
// the nearest n input elements of the edge-extended input, and the mode's
// coefficients for them (nearest: one tap, no arithmetic; linear: two;
// cubic: four, with cubic_coeff_a and exclude_outside). Axes are resized
// one after the other, as the reference's interpolate_nd does.
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace txc;
using namespace txc::onnximport;

namespace {

// The largest resized dim: each output index has its own entries in the
// gather and weight tables the importer builds.
constexpr int64_t kMaxResizedDim = int64_t(1) << 24;

struct ResizeOptions {
  std::string mode;        // nearest, linear, cubic
  std::string coordinates; // coordinate_transformation_mode
  std::string nearestMode;
  double cubicA;
  bool excludeOutside;
};

/// The input coordinate of output element `o` of an axis of `in` elements
/// resized with the scale `scale`. The reference's output length here is
/// `in * scale`, not rounded down to the element count (it matters for
/// align_corners with scales that do not divide).
double sourceCoordinate(const ResizeOptions &options, int64_t o, int64_t in,
                        double scale) {
  const std::string &mode = options.coordinates;
  double length = double(in) * scale;
  if (mode == "align_corners")
    return length == 1 ? 0.0 : double(o) * double(in - 1) / (length - 1);
  if (mode == "asymmetric")
    return double(o) / scale;
  if (mode == "pytorch_half_pixel")
    return length == 1 ? -0.5 : (double(o) + 0.5) / scale - 0.5;
  if (mode == "tf_half_pixel_for_nn")
    return (double(o) + 0.5) / scale;
  return (double(o) + 0.5) / scale - 0.5; // half_pixel
}

/// The mode's coefficients for the taps left (index 0, 1: below) and
/// right of the coordinate, `ratio` being its distance from the tap below
/// in (0, 1] (1 at an integer coordinate, as the reference has it).
std::vector<double> coefficients(const ResizeOptions &options, double ratio) {
  if (options.mode == "nearest") {
    if (ratio == 1.0 || options.nearestMode == "ceil")
      return {0, 1};
    if (options.nearestMode == "floor")
      return {1, 0};
    bool up = options.nearestMode == "round_prefer_ceil" ? ratio >= 0.5
                                                         : ratio > 0.5;
    return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
  }
  if (options.mode == "linear")
    return {1 - ratio, ratio};
  double a = options.cubicA, r = ratio + 1, s = 1 - ratio, t = 2 - ratio;
  return {((a * r - 5 * a) * r + 8 * a) * r - 4 * a,
          ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
          ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a * t - 5 * a) * t + 8 * a) * t - 4 * a};
}

/// What one resized axis reads: per tap, an input index and a weight for
/// every output element. A nearest resize has one tap of weight 1.
struct AxisTaps {
  std::vector<std::vector<ShapeExpr>> index;
  std::vector<std::vector<double>> weight;
};

AxisTaps tapsOf(const ResizeOptions &options, int64_t in, int64_t out,
                double scale) {
  AxisTaps taps;
  for (int64_t o = 0; o < out; ++o) {
    double x = sourceCoordinate(options, o, in, scale);
    double below = std::ceil(x) - 1; // the tap left of x, x itself excluded
    std::vector<double> coeffs = coefficients(options, x - below);
    int64_t n = coeffs.size(), first = int64_t(below) - (n / 2 - 1);
    taps.index.resize(n);
    taps.weight.resize(n);
    double total = 0;
    for (int64_t t = 0; t < n; ++t) {
      int64_t i = first + t;
      if (options.excludeOutside && (i < 0 || i >= in))
        coeffs[t] = 0;
      total += coeffs[t];
      // The reference extends the input with its edge values.
      taps.index[t].push_back(ShapeExpr::constant(std::clamp<int64_t>(i, 0, in - 1)));
    }
    for (int64_t t = 0; t < n; ++t)
      taps.weight[t].push_back(options.excludeOutside ? coeffs[t] / total
                                                      : coeffs[t]);
  }
  if (options.mode == "nearest") {
    // The tap of weight 1 (coefficients are {1, 0} or {0, 1}).
    for (int64_t o = 0; o < out; ++o)
      if (taps.weight[1][o] == 1)
        taps.index[0][o] = taps.index[1][o];
    taps.index.resize(1);
    taps.weight.assign(1, std::vector<double>(out, 1.0));
  }
  return taps;
}

/// x resized along `axis`: sum over taps of gather(x, index) * weight, the
/// weights broadcast along the later dims; a nearest resize is one gather.
MaybeValue resizeAxis(NodeImporter &node, MaybeValue x, int64_t axis,
                      int64_t in, int64_t out, double scale,
                      const ResizeOptions &options) {
  if (!x)
    return x;
  AxisTaps taps = tapsOf(options, in, out, scale);
  std::vector<int64_t> weightDims(x->type.rank() - axis, 1);
  weightDims[0] = out;
  MaybeValue sum;
  for (size_t t = 0; t < taps.index.size(); ++t) {
    if (llvm::all_of(taps.weight[t], [](double w) { return w == 0; }))
      continue;
    MaybeValue gathered = emitIf(
        node, "gather",
        {x, node.constant(KnownTensor::fromInts(DType::I64, {out},
                                                taps.index[t]))},
        {intAttr("axis", axis)});
    if (options.mode != "nearest")
      gathered = emitIf(node, "mul",
                        {gathered, node.constant(knownFloats(
                                       x->type.dtype, weightDims,
                                       taps.weight[t]))});
    sum = sum ? emitIf(node, "add", {sum, gathered}) : gathered;
  }
  return sum;
}

llvm::LogicalResult convertResize(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  ResizeOptions options{
      node.stringAttr("mode", "nearest"),
      node.stringAttr("coordinate_transformation_mode", "half_pixel"),
      node.stringAttr("nearest_mode", "round_prefer_floor"),
      node.floatAttr("cubic_coeff_a", -0.75f),
      node.intAttr("exclude_outside", 0) != 0};
  if (options.mode != "nearest" && options.mode != "linear" &&
      options.mode != "cubic")
    return node.invalid("its mode is '" + options.mode + "'");
  if (options.coordinates == "tf_crop_and_resize")
    return node.unsupportedAttr("coordinate_transformation_mode",
                                "is tf_crop_and_resize",
                                "txc's Resize reads no region of interest");
  if (!isFloat(x.type.dtype) && options.mode != "nearest")
    return node.invalid("its input is " + dtypeName(x.type.dtype) +
                        "; a " + options.mode + " resize needs floats");
  int64_t rank = x.type.rank();
  std::optional<std::vector<double>> scales;
  std::optional<std::vector<ShapeExpr>> sizes; // shape arithmetic: [n, 3, 64, 64]
  if (node.hasInput(3)) {
    const KnownTensor *known = node.known(3);
    if (!known || !known->ints) {
      (void)node.requireStaticInts(3, "sizes"); // says why not
      return llvm::failure();
    }
    sizes = *known->ints;
  } else if (!node.hasInput(2) ||
             !(scales = node.requireKnownDoubles(2, "scales"))) {
    return node.hasInput(2) ? llvm::failure()
                            : node.invalid("it has neither scales nor sizes");
  }
  if (int64_t(sizes ? sizes->size() : scales->size()) != rank)
    return node.invalid("its scales or sizes do not have one value per dim");
  MaybeValue y = x;
  for (int64_t d = 0; d < rank; ++d) {
    const ShapeExpr &dim = x.type.shape[d];
    bool unchanged = sizes ? (*sizes)[d] == dim : (*scales)[d] == 1.0;
    if (unchanged && options.coordinates != "tf_half_pixel_for_nn")
      continue; // every mode maps o to o
    std::optional<int64_t> in = dim.getConstant();
    if (!in || (sizes && !(*sizes)[d].getConstant()))
      return node.unsupported("it resizes the symbolic dim " + node.str({dim}),
                              "txc resizes static dims only");
    // The tables below hold a few entries per output index: a dim beyond
    // kMaxResizedDim (or a scale that is not a finite positive number) is
    // rejected before any of them is built.
    double exact = sizes ? double(*(*sizes)[d].getConstant())
                         : std::floor(double(*in) * (*scales)[d]);
    if (!sizes && !(std::isfinite((*scales)[d]) && (*scales)[d] > 0))
      return node.invalid("its scale for dim " + llvm::Twine(d) + " is " +
                          llvm::formatv("{0}", (*scales)[d]) +
                          "; ONNX scales are positive");
    if (*in < 1 || !(exact >= 1 && exact <= double(kMaxResizedDim)))
      return node.unsupported("it resizes a dim of " + llvm::Twine(*in) +
                                  " elements to " +
                                  llvm::formatv("{0:F0}", exact),
                              "txc resizes dims of 1 to " +
                                  llvm::Twine(kMaxResizedDim) + " elements");
    int64_t out = int64_t(exact);
    double scale = sizes ? double(out) / double(*in) : (*scales)[d];
    y = resizeAxis(node, y, d, *in, out, scale, options);
  }
  return outputIf(node, y);
}

} // namespace

void txc::onnximport::addResizeConverters(std::vector<ConverterEntry> &table) {
  table.insert(table.end(), {
                                {"Resize", 13, 17, convertResize},
                            });
}
