//===- Quantization.cpp - ONNX's linear quantization ----------------------===//
//
// ONNX's linear quantization, as formulas of txc ops in the order of ONNX's
// definition, so nothing is approximated:
//   QuantizeLinear-13    y = saturate(round(x / scale) + zero_point)
//   DequantizeLinear-13  y = (x - zero_point) * scale
// and DynamicQuantizeLinear, which computes its scale and zero point.
// The scale and zero point are per tensor (scalars) or per axis (1-D, one
// per element of the dim `axis`), constants or values known only at run
// time.
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

/// A quantization parameter shaped to broadcast against a tensor of `rank`
/// dims: a scalar (or a 1-element 1-D tensor) as it is, a per-axis one of
/// shape [D] as [D, 1, ..., 1] so that it lines up with dim `axis`.
MaybeValue alongAxis(NodeImporter &node, const ImportedValue &x,
                     const ImportedValue &param, llvm::StringRef what) {
  const Shape &shape = param.type.shape;
  if (shape.empty() || (shape.size() == 1 && shape[0] == ShapeExpr::constant(1)))
    return param;
  int64_t rank = x.type.rank();
  std::optional<int64_t> axis =
      normalizeOnnxAxis(node.intAttr("axis", 1), rank);
  if (shape.size() != 1 || !axis) {
    (void)node.invalid("its " + llvm::Twine(what) +
                       " is neither a scalar nor 1-D along a valid axis");
    return std::nullopt;
  }
  if (shape[0] != x.type.shape[*axis]) {
    (void)node.invalid("its " + llvm::Twine(what) + " has shape " +
                       node.str(shape) + ", not the dim " +
                       node.str({x.type.shape[*axis]}) + " of axis " +
                       llvm::Twine(*axis));
    return std::nullopt;
  }
  std::vector<int64_t> trailing;
  for (int64_t d = 1; d < rank - *axis; ++d)
    trailing.push_back(d);
  if (trailing.empty())
    return param;
  return node.emit("unsqueeze", {param}, {intListAttr("axes", trailing)});
}

MaybeValue castTo(NodeImporter &node, MaybeValue value, DType dtype) {
  if (!value || value->type.dtype == dtype)
    return value;
  return emitIf(node, "cast", {value}, {stringAttr("dtype", dtypeName(dtype))});
}

/// QuantizeLinear-13: round(x / scale) to nearest even (txc's `round`),
/// plus the zero point, then txc's `cast` to u8 or i8, which saturates at
/// the dtype's limits as ONNX's `saturate` does.
llvm::LogicalResult convertQuantizeLinear(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  const ImportedValue &scale = node.input(1);
  DType result = node.hasInput(2) ? node.input(2).type.dtype : DType::U8;
  if (result != DType::U8 && result != DType::I8)
    return node.invalid("its zero point is " + dtypeName(result) +
                        ", not uint8 or int8");
  if (scale.type.dtype != DType::F32)
    return node.invalid("its scale is " + dtypeName(scale.type.dtype) +
                        ", not float");
  MaybeValue quotient =
      emitIf(node, "div",
             {castTo(node, x, DType::F32), alongAxis(node, x, scale, "scale")});
  MaybeValue rounded = emitIf(node, "round", {quotient});
  if (node.hasInput(2))
    rounded = emitIf(
        node, "add",
        {rounded, castTo(node, alongAxis(node, x, node.input(2), "zero point"),
                         DType::F32)});
  return outputIf(node, castTo(node, rounded, result));
}

/// DequantizeLinear-13: the difference x - zero_point in i32 (exact for
/// u8, i8 and the i32 input, whose zero point ONNX requires to be 0), then
/// converted to f32 and multiplied by the scale.
llvm::LogicalResult convertDequantizeLinear(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  const ImportedValue &scale = node.input(1);
  if (scale.type.dtype != DType::F32)
    return node.invalid("its scale is " + dtypeName(scale.type.dtype) +
                        ", not float");
  MaybeValue difference = castTo(node, x, DType::I32);
  if (node.hasInput(2))
    difference = emitIf(
        node, "sub",
        {difference,
         castTo(node, alongAxis(node, x, node.input(2), "zero point"),
                DType::I32)});
  return outputIf(node, emitIf(node, "mul",
                               {castTo(node, difference, DType::F32),
                                alongAxis(node, x, scale, "scale")}));
}

/// DynamicQuantizeLinear-11: the uint8 scale and zero point of x's range
/// (widened to hold 0), then QuantizeLinear, step by step as ONNX's
/// function body computes them: scale = (max(max(x), 0) - min(min(x), 0))
/// / 255, zero point = cast(round(clamp(0 - min / scale, 0, 255))).
llvm::LogicalResult convertDynamicQuantizeLinear(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  if (x.type.dtype != DType::F32)
    return node.invalid("its input is " + dtypeName(x.type.dtype) +
                        ", not float");
  std::vector<int64_t> all;
  for (int64_t d = 0; d < int64_t(x.type.rank()); ++d)
    all.push_back(d);
  std::vector<NodeAttr> reduce = {intListAttr("axes", all),
                                  boolAttr("keepdims", false)};
  ImportedValue zero = node.scalar(DType::F32, 0);
  MaybeValue low =
      emitIf(node, "minimum", {node.emit("min", {x}, reduce), zero});
  MaybeValue high =
      emitIf(node, "maximum", {node.emit("max", {x}, reduce), zero});
  MaybeValue scale = emitIf(node, "div",
                            {emitIf(node, "sub", {high, low}),
                             node.scalar(DType::F32, 255)});
  MaybeValue zeroPoint = emitIf(
      node, "round",
      {emitIf(node, "clamp",
              {emitIf(node, "sub", {zero, emitIf(node, "div", {low, scale})})},
              {floatAttr("min", 0), floatAttr("max", 255)})});
  MaybeValue quantized = emitIf(
      node, "add", {emitIf(node, "round", {emitIf(node, "div", {x, scale})}),
                    zeroPoint});
  return outputsIf(node, {castTo(node, quantized, DType::U8), scale,
                          castTo(node, zeroPoint, DType::U8)});
}

} // namespace

void txc::onnximport::addQuantizationConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(),
               {
                   {"QuantizeLinear", 13, 17, convertQuantizeLinear},
                   {"DequantizeLinear", 13, 17, convertDequantizeLinear},
                   {"DynamicQuantizeLinear", 11, 17,
                    convertDynamicQuantizeLinear},
               });
}
