//===- ShapeInference.cpp - The shape rule table and shared checks --------===//
#include "txc/Analysis/ShapeInference.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdio>
#include <cstdlib>

using namespace txc;

static const ShapeRuleTable &shapeRules() {
  static const ShapeRuleTable table = [] {
    ShapeRuleTable t;
    registerElementwiseShapeRules(t);
    registerLinearAlgebraShapeRules(t);
    registerShapeOpShapeRules(t);
    registerReductionShapeRules(t);
    registerConvolutionShapeRules(t);
    registerControlFlowShapeRules(t);
    registerIndexingShapeRules(t);
    return t;
  }();
  return table;
}

bool txc::hasShapeRule(OpKind kind) { return shapeRules().lookup(kind); }

std::vector<TensorType> txc::inferResultTypes(InferenceContext &ctx) {
  ShapeRule rule = shapeRules().lookup(ctx.node.kind);
  if (!rule)
    llvm::report_fatal_error("txc: op '" + llvm::Twine(ctx.opName()) +
                             "' has no shape rule");
  return rule(ctx);
}

//===----------------------------------------------------------------------===//
// InferenceContext
//===----------------------------------------------------------------------===//

std::string InferenceContext::str(const TensorType &type) const {
  return dtypeName(type.dtype).str() + str(type.shape);
}

std::string InferenceContext::opName() const {
  return getOpInfo(node.kind).name.str();
}

Loc InferenceContext::attrLoc(llvm::StringRef name) const {
  const NodeAttr *attr = node.findAttribute(name);
  return attr ? attr->value.loc : node.loc;
}

bool InferenceContext::requireSameDType(size_t a, size_t b) {
  if (operands[a].dtype == operands[b].dtype)
    return true;
  fail(node.opLoc, "dtype-mismatch",
       "operands of '" + opName() + "' node '" + node.name +
           "' have different dtypes " + dtypeName(operands[a].dtype).str() +
           " and " + dtypeName(operands[b].dtype).str() +
           "; txc does not promote dtypes, insert a 'cast'");
  return false;
}

bool InferenceContext::requireDType(size_t operand, bool (*allowed)(DType),
                                    llvm::StringRef what) {
  if (allowed(operands[operand].dtype))
    return true;
  fail(operandLoc(operand), "bad-dtype",
       "'" + opName() + "' node '" + node.name + "' needs " + what.str() +
           " for operand " + std::to_string(operand) + ", not " +
           dtypeName(operands[operand].dtype).str());
  return false;
}

bool InferenceContext::requireRank(size_t operand, unsigned rank) {
  if (operands[operand].rank() == rank)
    return true;
  fail(operandLoc(operand), "rank-mismatch",
       "operand " + std::to_string(operand) + " of '" + opName() +
           "' node '" + node.name + "' has rank " +
           std::to_string(operands[operand].rank()) + " (shape " +
           str(operands[operand].shape) + "); expected rank " +
           std::to_string(rank));
  return false;
}

std::vector<std::string>
InferenceContext::explainDimMismatch(const ShapeExpr &x,
                                     const ShapeExpr &y) const {
  std::vector<std::string> notes;
  auto explain = [&](const ShapeExpr &sym, const ShapeExpr &constant) {
    auto id = sym.getSingleSymbol();
    auto value = constant.getConstant();
    if (!id || !value)
      return;
    const Symbol &symbol = program.symbols[*id];
    bool inRange = *value >= symbol.min && *value <= symbol.max;
    notes.push_back(
        "this holds only if symbol '" + symbol.name + "' is " +
        std::to_string(*value) +
        (inRange ? "; txc does not specialize symbols: use the constant "
                   "dimension in the input's shape instead"
                 : ", outside its declared range [" +
                       std::to_string(symbol.min) + ", " +
                       std::to_string(symbol.max) + "]"));
  };
  explain(x, y);
  explain(y, x);
  if (notes.empty() && !x.isConstant() && !y.isConstant())
    notes.push_back("symbolic dimensions are equal only when they are the "
                    "same expression; txc does not broadcast symbolic "
                    "dimensions");
  return notes;
}

//===----------------------------------------------------------------------===//
// Shared shape helpers
//===----------------------------------------------------------------------===//

std::optional<Shape> txc::broadcastShapes(const Shape &a, const Shape &b,
                                          size_t &badDim) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the right; a missing leading dim acts as a static 1.
    const ShapeExpr one = ShapeExpr::constant(1);
    const ShapeExpr &x = i + a.size() >= rank ? a[i + a.size() - rank] : one;
    const ShapeExpr &y = i + b.size() >= rank ? b[i + b.size() - rank] : one;
    if (x == y)
      result[i] = x;
    else if (x.getConstant() == 1)
      result[i] = y;
    else if (y.getConstant() == 1)
      result[i] = x;
    else {
      badDim = i;
      return std::nullopt;
    }
  }
  return result;
}

std::string txc::formatNumber(double value) {
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

std::optional<Shape> txc::readShapeAttribute(const Program &program,
                                             const AttrValue &value,
                                             std::string &error,
                                             Loc &errorLoc) {
  Shape shape;
  if (value.list.size() > ProgramLimits::kMaxRank) {
    error = "rank " + std::to_string(value.list.size()) +
            " is over the limit of " + std::to_string(ProgramLimits::kMaxRank);
    errorLoc = value.loc;
    return std::nullopt;
  }
  for (const AttrValue &dim : value.list) {
    errorLoc = dim.loc;
    if (dim.kind == AttrValue::Kind::Int) {
      if (dim.integer < 0 || dim.integer > ProgramLimits::kMaxTensorBytes) {
        error = "dimension " + std::to_string(dim.integer) +
                (dim.integer < 0 ? " is negative" : " is over the limit");
        return std::nullopt;
      }
      shape.push_back(ShapeExpr::constant(dim.integer));
      continue;
    }
    size_t offset = 0;
    auto expr = ShapeExpr::parse(
        dim.string,
        [&](llvm::StringRef name) { return program.findSymbolRef(name); },
        error, offset);
    if (!expr) {
      error = "in dimension '" + dim.string + "': " + error;
      return std::nullopt;
    }
    // A constant expression ("2-5") is held to the limits of an integer.
    if (auto constant = expr->getConstant()) {
      if (*constant < 0) {
        error = "dimension '" + dim.string + "' is negative (" +
                std::to_string(*constant) + ")";
        return std::nullopt;
      }
      if (*constant > ProgramLimits::kMaxTensorBytes) {
        error = "dimension '" + dim.string + "' is over the limit";
        return std::nullopt;
      }
    }
    shape.push_back(std::move(*expr));
  }
  return shape;
}
