//===- Elementwise.cpp - ONNX elementwise ops -----------------------------===//
//
// Unary and binary ops map one to one onto txc's (same broadcasting rule:
// numpy's, where symbolic dims never stretch). On integer tensors known at
// import time (shape arithmetic) Add, Sub, Mul, Div, Equal and Where are
// folded on the symbolic dims instead.
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

#include <limits>

using namespace txc;
using namespace txc::onnximport;

namespace {

/// Both inputs known as integers of the same element count, or one of
/// them a single element: returns the pairs to combine.
struct FoldOperands {
  std::vector<ShapeExpr> a, b;
  std::vector<int64_t> dims;
};

std::optional<FoldOperands> foldableIntegers(NodeImporter &node) {
  const KnownTensor *a = node.known(0), *b = node.known(1);
  if (!a || !b || !a->ints || !b->ints)
    return std::nullopt;
  int64_t na = a->numElements(), nb = b->numElements();
  if (na != nb && na != 1 && nb != 1)
    return std::nullopt;
  FoldOperands fold;
  fold.dims = na >= nb ? a->dims : b->dims;
  if (a->dims.size() > fold.dims.size() || b->dims.size() > fold.dims.size())
    fold.dims = a->dims.size() > b->dims.size() ? a->dims : b->dims;
  int64_t n = std::max(na, nb);
  for (int64_t i = 0; i < n; ++i) {
    fold.a.push_back((*a->ints)[na == 1 ? 0 : i]);
    fold.b.push_back((*b->ints)[nb == 1 ? 0 : i]);
  }
  return fold;
}

using FoldFn = std::optional<ShapeExpr> (*)(const ShapeExpr &,
                                            const ShapeExpr &);

/// Integer division as ONNX computes it for constants (truncation, like
/// onnxruntime), and exact division of a polynomial by a constant.
std::optional<ShapeExpr> divideDims(const ShapeExpr &a, const ShapeExpr &b) {
  std::optional<int64_t> divisor = b.getConstant();
  if (!divisor || *divisor == 0)
    return std::nullopt;
  if (std::optional<int64_t> dividend = a.getConstant())
    return ShapeExpr::constant(*dividend / *divisor);
  return a.divExact(*divisor);
}

std::optional<ShapeExpr> equalDims(const ShapeExpr &a, const ShapeExpr &b) {
  if (a == b)
    return ShapeExpr::constant(1);
  if (a.isConstant() && b.isConstant())
    return ShapeExpr::constant(0);
  return std::nullopt; // depends on the symbols' values
}

/// Folds the node when its inputs are known integers; false if it cannot.
bool tryFoldBinary(NodeImporter &node, FoldFn fold, bool boolResult) {
  std::optional<FoldOperands> operands = foldableIntegers(node);
  if (!operands)
    return false;
  std::vector<ShapeExpr> results;
  for (size_t i = 0; i < operands->a.size(); ++i) {
    std::optional<ShapeExpr> value = fold(operands->a[i], operands->b[i]);
    if (!value)
      return false;
    results.push_back(*value);
  }
  DType dtype = boolResult ? DType::Bool : node.input(0).type.dtype;
  (void)node.setKnownOutput(
      0, KnownTensor::fromInts(dtype, operands->dims, std::move(results)));
  return true;
}

/// The ONNX op is txc's TXC_BINARY op `Kind`; `Fold` computes it at import
/// on known integer tensors (shape arithmetic).
template <OpKind Kind, FoldFn Fold = nullptr>
llvm::LogicalResult convertBinary(NodeImporter &node) {
  const OpInfo &op = getOpInfo(Kind);
  bool boolResult = op.domain == ElementwiseDomain::Comparison;
  if (Fold && tryFoldBinary(node, Fold, boolResult))
    return llvm::success();
  return node.emitOutput(0, op.name, {node.input(0), node.input(1)});
}

/// The ONNX op is txc's unary op `Kind`.
template <OpKind Kind> llvm::LogicalResult convertUnary(NodeImporter &node) {
  return node.emitOutput(0, getOpInfo(Kind).name, {node.input(0)});
}

/// Neg of a known i64 tensor (shape arithmetic) is folded: ONNX's
/// LayerNormalization body negates an axis to count the reduced dims.
llvm::LogicalResult convertNeg(NodeImporter &node) {
  const KnownTensor *known = node.known(0);
  if (!known || !known->ints || known->dtype != DType::I64)
    return node.emitOutput(0, "neg", {node.input(0)});
  std::vector<ShapeExpr> negated;
  for (const ShapeExpr &value : *known->ints) {
    std::optional<ShapeExpr> result =
        ShapeExpr::sub(ShapeExpr::constant(0), value);
    if (!result)
      return node.emitOutput(0, "neg", {node.input(0)});
    negated.push_back(*result);
  }
  return node.setKnownOutput(
      0, KnownTensor::fromInts(known->dtype, known->dims, std::move(negated)));
}

/// Max, Min and Sum take any number of inputs: a chain of binary ops.
template <OpKind Kind>
llvm::LogicalResult convertVariadic(NodeImporter &node) {
  llvm::StringRef txcOp = getOpInfo(Kind).name;
  if (node.numInputs() == 1)
    return node.setOutput(0, node.input(0));
  ImportedValue accumulated = node.input(0);
  for (unsigned i = 1; i + 1 < node.numInputs(); ++i) {
    std::optional<ImportedValue> next =
        node.emit(txcOp, {accumulated, node.input(i)});
    if (!next)
      return llvm::failure();
    accumulated = *next;
  }
  return node.emitOutput(0, txcOp,
                         {accumulated, node.input(node.numInputs() - 1)});
}

/// Pow-15's exponent may have another dtype than the base (the result has
/// the base's). ONNX computes such a power as numpy does, in the common
/// wider type: f64 when either is a float (f32 ^ i64 is pow in double,
/// rounded once to f32; i64 ^ f32 is truncated toward zero), i64 for two
/// integer types (the wrapped product is the same modulo the base's
/// width). txc's pow takes one dtype: both operands are cast to that type
/// and the result back to the base's.
llvm::LogicalResult convertPow(NodeImporter &node) {
  const ImportedValue &base = node.input(0), &exponent = node.input(1);
  DType baseType = base.type.dtype;
  if (exponent.type.dtype == baseType)
    return node.emitOutput(0, "pow", {base, exponent});
  DType common = isFloat(baseType) || isFloat(exponent.type.dtype)
                     ? DType::F64
                     : DType::I64;
  auto castTo = [&](const ImportedValue &value,
                    DType dtype) -> std::optional<ImportedValue> {
    if (value.type.dtype == dtype)
      return value;
    return node.emit("cast", {value}, {stringAttr("dtype", dtypeName(dtype))});
  };
  std::optional<ImportedValue> x = castTo(base, common);
  std::optional<ImportedValue> y = x ? castTo(exponent, common) : std::nullopt;
  if (!y)
    return llvm::failure();
  if (common == baseType)
    return node.emitOutput(0, "pow", {*x, *y});
  std::optional<ImportedValue> power = node.emit("pow", {*x, *y});
  if (!power)
    return llvm::failure();
  return node.emitOutput(0, "cast", {*power},
                         {stringAttr("dtype", dtypeName(baseType))});
}

llvm::LogicalResult convertIdentity(NodeImporter &node) {
  return node.setOutput(0, node.input(0));
}

llvm::LogicalResult convertWhere(NodeImporter &node) {
  const KnownTensor *condition = node.known(0);
  const KnownTensor *a = node.known(1), *b = node.known(2);
  if (condition && a && b && condition->ints && a->ints && b->ints &&
      condition->numElements() == a->numElements() &&
      a->numElements() == b->numElements()) {
    std::vector<ShapeExpr> values;
    for (int64_t i = 0; i < a->numElements(); ++i) {
      std::optional<int64_t> c = (*condition->ints)[i].getConstant();
      if (!c)
        return node.emitOutput(0, "select",
                               {node.input(0), node.input(1), node.input(2)});
      values.push_back(*c ? (*a->ints)[i] : (*b->ints)[i]);
    }
    return node.setKnownOutput(
        0, KnownTensor::fromInts(a->dtype, a->dims, std::move(values)));
  }
  return node.emitOutput(0, "select",
                         {node.input(0), node.input(1), node.input(2)});
}

/// Mod-13: fmod=0 is txc's mod (the sign of the divisor, Python's %),
/// fmod=1 txc's fmod (the sign of the dividend, C's fmod).
llvm::LogicalResult convertMod(NodeImporter &node) {
  const char *op = node.intAttr("fmod", 0) != 0 ? "fmod" : "mod";
  return node.emitOutput(0, op, {node.input(0), node.input(1)});
}

/// BitShift-11 (unsigned integers only, as txc's shift ops): `direction`
/// LEFT or RIGHT, which ONNX requires; a shift by the width or more is 0.
llvm::LogicalResult convertBitShift(NodeImporter &node) {
  std::string direction = node.stringAttr("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return node.invalid("its direction '" + direction +
                        "' is not 'LEFT' or 'RIGHT'");
  OpKind kind = direction == "LEFT" ? OpKind::ShiftLeft : OpKind::ShiftRight;
  return node.emitOutput(0, getOpInfo(kind).name,
                         {node.input(0), node.input(1)});
}

llvm::LogicalResult convertCast(NodeImporter &node) {
  int64_t to = node.intAttr("to", 0);
  std::optional<DType> dtype = dtypeOfOnnx(int32_t(to));
  if (!dtype)
    return node.unsupportedAttr("to",
                                "is " + llvm::Twine(onnxTypeName(int32_t(to))) +
                                    ", which txc has no dtype for",
                                "cast to a numeric or bool type");
  const KnownTensor *known = node.known(0);
  if (known && known->ints && isInteger(*dtype) && isInteger(known->dtype) &&
      dtypeSize(*dtype) >= dtypeSize(known->dtype))
    return node.setKnownOutput(0, KnownTensor::fromInts(*dtype, known->dims,
                                                        *known->ints));
  if (node.input(0).type.dtype == *dtype)
    return node.setOutput(0, node.input(0));
  return node.emitOutput(0, "cast", {node.input(0)},
                         {stringAttr("dtype", dtypeName(*dtype))});
}

llvm::LogicalResult convertLeakyRelu(NodeImporter &node) {
  return node.emitOutput(0, "leaky_relu", {node.input(0)},
                         {floatAttr("alpha", node.floatAttr("alpha", 0.01f))});
}

/// Clip with bounds that are tensors of the graph (not known at import):
/// maximum(x, min), then minimum(., max), which is txc's clamp with its
/// bounds as operands (NaN stays NaN; min > max gives max). The bounds are
/// scalars, which broadcast.
llvm::LogicalResult convertClipWithTensors(NodeImporter &node) {
  ImportedValue result = node.input(0);
  const char *ops[] = {"", "maximum", "minimum"};
  unsigned last = node.hasInput(2) ? 2 : 1;
  for (unsigned i = 1; i <= last; ++i) {
    if (!node.hasInput(i))
      continue;
    if (i == last)
      return node.emitOutput(0, ops[i], {result, node.input(i)});
    std::optional<ImportedValue> next =
        node.emit(ops[i], {result, node.input(i)});
    if (!next)
      return llvm::failure();
    result = *next;
  }
  return node.setOutput(0, result);
}

/// Clip-11+: the bounds are optional inputs; constant ones become the
/// attributes of txc's clamp.
llvm::LogicalResult convertClip(NodeImporter &node) {
  for (unsigned i = 1; i <= 2; ++i)
    if (node.hasInput(i) && !node.known(i))
      return convertClipWithTensors(node);
  std::vector<NodeAttr> attrs;
  const char *names[] = {"", "min", "max"};
  for (unsigned i = 1; i <= 2; ++i) {
    if (!node.hasInput(i))
      continue;
    std::optional<std::vector<double>> bound =
        node.requireKnownDoubles(i, names[i]);
    if (!bound)
      return llvm::failure();
    if (bound->size() != 1)
      return node.invalid(llvm::Twine("its ") + names[i] +
                          " bound has more than one element");
    attrs.push_back(floatAttr(names[i], bound->front()));
  }
  if (attrs.empty())
    return node.setOutput(0, node.input(0));
  return node.emitOutput(0, "clamp", {node.input(0)}, std::move(attrs));
}

/// HardSigmoid-6 is txc's hard_sigmoid: max(0, min(1, alpha * x + beta)).
llvm::LogicalResult convertHardSigmoid(NodeImporter &node) {
  return node.emitOutput(0, "hard_sigmoid", {node.input(0)},
                         {floatAttr("alpha", node.floatAttr("alpha", 0.2f)),
                          floatAttr("beta", node.floatAttr("beta", 0.5f))});
}

//===----------------------------------------------------------------------===//
// ONNX activations that are formulas of txc ops: ONNX's definitions,
// evaluated in their order, so nothing is approximated.
//===----------------------------------------------------------------------===//

/// Softsign-1: x / (1 + |x|).
llvm::LogicalResult convertSoftsign(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  auto one = node.scalar(x.type.dtype, 1);
  return outputIf(node,
                  emitIf(node, "div",
                         {x, emitIf(node, "add", {one, emitIf(node, "abs", {x})})}));
}

/// Softplus-1: log(exp(x) + 1).
llvm::LogicalResult convertSoftplus(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  auto one = node.scalar(x.type.dtype, 1);
  return outputIf(
      node, emitIf(node, "log",
                   {emitIf(node, "add", {emitIf(node, "exp", {x}), one})}));
}

/// alpha * (exp(x) - 1), the negative side of Elu and (times gamma) Selu.
std::optional<ImportedValue> expMinusOne(NodeImporter &node, double alpha) {
  const ImportedValue &x = node.input(0);
  DType t = x.type.dtype;
  return emitIf(node, "mul",
                {node.scalar(t, alpha),
                 emitIf(node, "sub",
                        {emitIf(node, "exp", {x}), node.scalar(t, 1)})});
}

/// Elu-6: x < 0 ? alpha * (exp(x) - 1) : x.
llvm::LogicalResult convertElu(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  auto negative = emitIf(node, "lt", {x, node.scalar(x.type.dtype, 0)});
  return outputIf(node, emitIf(node, "select",
                               {negative,
                                expMinusOne(node, node.floatAttr("alpha", 1)),
                                x}));
}

/// Selu-6: x > 0 ? gamma * x : gamma * (alpha * exp(x) - alpha).
llvm::LogicalResult convertSelu(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  DType t = x.type.dtype;
  double alpha = node.floatAttr("alpha", 1.67326319217681884765625f);
  auto gamma = node.scalar(t, node.floatAttr("gamma", 1.05070102214813232421875f));
  auto positive = emitIf(node, "gt", {x, node.scalar(t, 0)});
  auto scaledExp =
      emitIf(node, "mul", {node.scalar(t, alpha), emitIf(node, "exp", {x})});
  auto negativeSide = emitIf(
      node, "mul",
      {gamma, emitIf(node, "sub", {scaledExp, node.scalar(t, alpha)})});
  return outputIf(node,
                  emitIf(node, "select",
                         {positive, emitIf(node, "mul", {gamma, x}),
                          negativeSide}));
}

/// Celu-12: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
llvm::LogicalResult convertCelu(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  DType t = x.type.dtype;
  auto alpha = node.scalar(t, node.floatAttr("alpha", 1));
  auto zero = node.scalar(t, 0);
  auto expm1 = emitIf(
      node, "sub",
      {emitIf(node, "exp", {emitIf(node, "div", {x, alpha})}),
       node.scalar(t, 1)});
  return outputIf(
      node, emitIf(node, "add",
                   {emitIf(node, "maximum", {zero, x}),
                    emitIf(node, "minimum",
                           {zero, emitIf(node, "mul", {alpha, expm1})})}));
}

/// ThresholdedRelu-10: x > alpha ? x : 0.
llvm::LogicalResult convertThresholdedRelu(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  DType t = x.type.dtype;
  auto above =
      emitIf(node, "gt", {x, node.scalar(t, node.floatAttr("alpha", 1))});
  return outputIf(node,
                  emitIf(node, "select", {above, x, node.scalar(t, 0)}));
}

/// Shrink-9: x < -lambd ? x + bias : x > lambd ? x - bias : 0.
llvm::LogicalResult convertShrink(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  DType t = x.type.dtype;
  double lambd = node.floatAttr("lambd", 0.5f), bias = node.floatAttr("bias", 0);
  auto below = emitIf(node, "lt", {x, node.scalar(t, -lambd)});
  auto above = emitIf(node, "gt", {x, node.scalar(t, lambd)});
  auto upper = emitIf(node, "select",
                      {above, emitIf(node, "sub", {x, node.scalar(t, bias)}),
                       node.scalar(t, 0)});
  return outputIf(
      node, emitIf(node, "select",
                   {below, emitIf(node, "add", {x, node.scalar(t, bias)}),
                    upper}));
}

/// PRelu-16: x < 0 ? slope * x : x, the slope broadcast to x.
llvm::LogicalResult convertPRelu(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  auto negative = emitIf(node, "lt", {x, node.scalar(x.type.dtype, 0)});
  return outputIf(node,
                  emitIf(node, "select",
                         {negative, emitIf(node, "mul", {node.input(1), x}),
                          x}));
}

/// IsNaN-13: x != x.
llvm::LogicalResult convertIsNaN(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  return node.emitOutput(0, "ne", {x, x});
}

/// IsInf-10: x == +inf (detect_positive), x == -inf (detect_negative).
llvm::LogicalResult convertIsInf(NodeImporter &node) {
  const ImportedValue &x = node.input(0);
  DType t = x.type.dtype;
  double inf = std::numeric_limits<double>::infinity();
  bool positive = node.intAttr("detect_positive", 1) != 0;
  bool negative = node.intAttr("detect_negative", 1) != 0;
  if (!positive && !negative) // never: x < x is false, NaN too
    return node.emitOutput(0, "lt", {x, x});
  auto isPositive = emitIf(node, "eq", {x, node.scalar(t, inf)});
  auto isNegative = emitIf(node, "eq", {x, node.scalar(t, -inf)});
  if (!negative)
    return outputIf(node, isPositive);
  if (!positive)
    return outputIf(node, isNegative);
  return outputIf(node, emitIf(node, "or", {isPositive, isNegative}));
}

/// Mean-13: the sum of the inputs (a chain of add, left to right) divided
/// by their number.
llvm::LogicalResult convertMean(NodeImporter &node) {
  std::optional<ImportedValue> sum = node.input(0);
  for (unsigned i = 1; i < node.numInputs(); ++i)
    sum = emitIf(node, "add", {sum, node.input(i)});
  if (node.numInputs() == 1)
    return outputIf(node, sum);
  DType t = node.input(0).type.dtype;
  return outputIf(node,
                  emitIf(node, "div", {sum, node.scalar(t, node.numInputs())}));
}

std::optional<ShapeExpr> addDims(const ShapeExpr &a, const ShapeExpr &b) {
  return ShapeExpr::add(a, b);
}
std::optional<ShapeExpr> subDims(const ShapeExpr &a, const ShapeExpr &b) {
  return ShapeExpr::sub(a, b);
}
std::optional<ShapeExpr> mulDims(const ShapeExpr &a, const ShapeExpr &b) {
  return ShapeExpr::mul(a, b);
}

} // namespace

void txc::onnximport::addElementwiseConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(
      table.end(),
      {
          {"Add", 14, 17, convertBinary<OpKind::Add, addDims>},
          {"Sub", 14, 17, convertBinary<OpKind::Sub, subDims>},
          {"Mul", 14, 17, convertBinary<OpKind::Mul, mulDims>},
          {"Div", 14, 17, convertBinary<OpKind::Div, divideDims>},
          {"Pow", 15, 17, convertPow},
          {"Equal", 13, 17, convertBinary<OpKind::Eq, equalDims>},
          {"Less", 13, 17, convertBinary<OpKind::Lt>},
          {"LessOrEqual", 16, 17, convertBinary<OpKind::Le>},
          {"Greater", 13, 17, convertBinary<OpKind::Gt>},
          {"GreaterOrEqual", 16, 17, convertBinary<OpKind::Ge>},
          {"And", 7, 17, convertBinary<OpKind::And>},
          {"Or", 7, 17, convertBinary<OpKind::Or>},
          {"Xor", 7, 17, convertBinary<OpKind::Xor>},
          {"BitShift", 11, 17, convertBitShift},
          {"Max", 13, 17, convertVariadic<OpKind::Maximum>},
          {"Min", 13, 17, convertVariadic<OpKind::Minimum>},
          {"Sum", 13, 17, convertVariadic<OpKind::Add>},
          {"Mod", 13, 17, convertMod},
          {"Where", 16, 17, convertWhere},
          {"Relu", 14, 17, convertUnary<OpKind::Relu>},
          {"Sigmoid", 13, 17, convertUnary<OpKind::Sigmoid>},
          {"Tanh", 13, 17, convertUnary<OpKind::Tanh>},
          {"Exp", 13, 17, convertUnary<OpKind::Exp>},
          {"Log", 13, 17, convertUnary<OpKind::Log>},
          {"Sqrt", 13, 17, convertUnary<OpKind::Sqrt>},
          {"Abs", 13, 17, convertUnary<OpKind::Abs>},
          {"Neg", 13, 17, convertNeg},
          {"Erf", 13, 17, convertUnary<OpKind::Erf>},
          {"Floor", 13, 17, convertUnary<OpKind::Floor>},
          {"Ceil", 13, 17, convertUnary<OpKind::Ceil>},
          {"Reciprocal", 13, 17, convertUnary<OpKind::Reciprocal>},
          {"Sin", 7, 17, convertUnary<OpKind::Sin>},
          {"Cos", 7, 17, convertUnary<OpKind::Cos>},
          {"Tan", 7, 17, convertUnary<OpKind::Tan>},
          {"Asin", 7, 17, convertUnary<OpKind::Asin>},
          {"Acos", 7, 17, convertUnary<OpKind::Acos>},
          {"Atan", 7, 17, convertUnary<OpKind::Atan>},
          {"Sinh", 9, 17, convertUnary<OpKind::Sinh>},
          {"Cosh", 9, 17, convertUnary<OpKind::Cosh>},
          {"Asinh", 9, 17, convertUnary<OpKind::Asinh>},
          {"Acosh", 9, 17, convertUnary<OpKind::Acosh>},
          {"Atanh", 9, 17, convertUnary<OpKind::Atanh>},
          {"Not", 1, 17, convertUnary<OpKind::Not>},
          {"Sign", 13, 17, convertUnary<OpKind::Sign>},
          {"Round", 11, 17, convertUnary<OpKind::Round>},
          {"Identity", 16, 17, convertIdentity},
          {"Cast", 13, 17, convertCast},
          {"LeakyRelu", 16, 17, convertLeakyRelu},
          {"Clip", 13, 17, convertClip},
          {"HardSigmoid", 6, 17, convertHardSigmoid},
          {"HardSwish", 14, 17, convertUnary<OpKind::HardSwish>},
          {"Softsign", 1, 17, convertSoftsign},
          {"Softplus", 1, 17, convertSoftplus},
          {"Elu", 6, 17, convertElu},
          {"Selu", 6, 17, convertSelu},
          {"Celu", 12, 17, convertCelu},
          {"ThresholdedRelu", 10, 17, convertThresholdedRelu},
          {"Shrink", 9, 17, convertShrink},
          {"PRelu", 16, 17, convertPRelu},
          {"IsNaN", 13, 17, convertIsNaN},
          {"IsInf", 10, 17, convertIsInf},
          {"Mean", 13, 17, convertMean},
      });
}
