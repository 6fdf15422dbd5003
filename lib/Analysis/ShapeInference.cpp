//===- ShapeInference.cpp - dtype and symbolic shape rules of each op -----===//
//
// One function per op family. Each checks operand dtypes and shapes and
// returns the result types; a mismatch is reported naming both shapes.
// docs/ops.md states the same rules in prose.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/ShapeInference.h"

#include "llvm/Support/ErrorHandling.h"

using namespace txc;

std::string InferenceContext::str(const TensorType &type) const {
  return dtypeName(type.dtype).str() + str(type.shape);
}

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
        [&](llvm::StringRef name) { return program.findSymbol(name); }, error,
        offset);
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

namespace {

/// Explains why two dims differ when one is a lone symbol and the other a
/// constant: the symbol would need a single value, maybe outside its range.
std::vector<std::string> explainDimMismatch(const InferenceContext &ctx,
                                            const ShapeExpr &x,
                                            const ShapeExpr &y) {
  std::vector<std::string> notes;
  auto explain = [&](const ShapeExpr &sym, const ShapeExpr &constant) {
    auto id = sym.getSingleSymbol();
    auto value = constant.getConstant();
    if (!id || !value)
      return;
    const Symbol &symbol = ctx.program.symbols[*id];
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

/// Elementwise ops accept these dtypes.
bool isArithmetic(DType type) { return type != DType::Bool; }

std::vector<TensorType> inferElementwiseBinary(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0], &b = ctx.operands[1];
  llvm::StringRef op = getOpInfo(ctx.node.kind).name;
  if (a.dtype != b.dtype) {
    ctx.fail(ctx.node.opLoc, "dtype-mismatch",
             "operands of '" + op.str() + "' node '" + ctx.node.name +
                 "' have different dtypes " + dtypeName(a.dtype).str() +
                 " and " + dtypeName(b.dtype).str() +
                 "; txc does not promote dtypes, insert a 'cast'");
    return {};
  }
  if (!isArithmetic(a.dtype)) {
    ctx.fail(ctx.node.opLoc, "bad-dtype",
             "'" + op.str() + "' is not defined for dtype " +
                 dtypeName(a.dtype).str());
    return {};
  }
  size_t badDim = 0;
  auto shape = broadcastShapes(a.shape, b.shape, badDim);
  if (!shape) {
    size_t rank = std::max(a.rank(), b.rank());
    const ShapeExpr &x = a.shape[badDim + a.rank() - rank];
    const ShapeExpr &y = b.shape[badDim + b.rank() - rank];
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "shapes " + ctx.str(a.shape) + " and " + ctx.str(b.shape) +
                 " of '" + op.str() + "' node '" + ctx.node.name +
                 "' do not broadcast: dimension " + ctx.str(x) + " vs " +
                 ctx.str(y) + " (aligned from the right)",
             explainDimMismatch(ctx, x, y));
    return {};
  }
  return {TensorType{a.dtype, std::move(*shape)}};
}

std::vector<TensorType> inferElementwiseUnary(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0];
  if (!isArithmetic(a.dtype)) {
    ctx.fail(ctx.node.opLoc, "bad-dtype",
             "'" + getOpInfo(ctx.node.kind).name.str() +
                 "' is not defined for dtype " + dtypeName(a.dtype).str());
    return {};
  }
  return {a};
}

std::vector<TensorType> inferMatMul(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0], &b = ctx.operands[1];
  if (a.dtype != b.dtype) {
    ctx.fail(ctx.node.opLoc, "dtype-mismatch",
             "operands of 'matmul' node '" + ctx.node.name +
                 "' have different dtypes " + dtypeName(a.dtype).str() +
                 " and " + dtypeName(b.dtype).str() +
                 "; txc does not promote dtypes, insert a 'cast'");
    return {};
  }
  if (!isArithmetic(a.dtype)) {
    ctx.fail(ctx.node.opLoc, "bad-dtype",
             "'matmul' is not defined for dtype " + dtypeName(a.dtype).str());
    return {};
  }
  for (size_t i = 0; i < 2; ++i)
    if (ctx.operands[i].rank() != 2) {
      ctx.fail(ctx.operandLoc(i), "rank-mismatch",
               "operand " + std::to_string(i) + " of 'matmul' node '" +
                   ctx.node.name + "' has rank " +
                   std::to_string(ctx.operands[i].rank()) + " (shape " +
                   ctx.str(ctx.operands[i].shape) + "); matmul takes [M,K] and [K,N]");
      return {};
    }
  if (a.shape[1] != b.shape[0]) {
    ctx.fail(ctx.node.loc, "shape-mismatch",
             "shapes " + ctx.str(a.shape) + " and " + ctx.str(b.shape) +
                 " of 'matmul' node '" + ctx.node.name +
                 "' do not match: the inner dimensions " + ctx.str(a.shape[1]) +
                 " and " + ctx.str(b.shape[0]) + " differ",
             explainDimMismatch(ctx, a.shape[1], b.shape[0]));
    return {};
  }
  return {TensorType{a.dtype, {a.shape[0], b.shape[1]}}};
}

std::vector<TensorType> inferBroadcast(InferenceContext &ctx) {
  const TensorType &a = ctx.operands[0];
  const NodeAttr *attr = ctx.node.findAttribute("shape");
  std::string error;
  Loc errorLoc;
  auto target = readShapeAttribute(ctx.program, attr->value, error, errorLoc);
  if (!target) {
    ctx.fail(errorLoc, "bad-attribute", error);
    return {};
  }
  if (target->size() < a.rank()) {
    ctx.fail(attr->loc, "shape-mismatch",
             "'broadcast' node '" + ctx.node.name + "' cannot broadcast " +
                 ctx.str(a.shape) + " to the lower rank " + ctx.str(*target));
    return {};
  }
  size_t offset = target->size() - a.rank();
  for (size_t i = 0; i < a.rank(); ++i) {
    const ShapeExpr &from = a.shape[i], &to = (*target)[offset + i];
    if (from != to && from.getConstant() != 1) {
      ctx.fail(attr->loc, "shape-mismatch",
               "'broadcast' node '" + ctx.node.name + "' cannot broadcast " +
                   ctx.str(a.shape) + " to " + ctx.str(*target) +
                   ": dimension " + ctx.str(from) + " is neither 1 nor " +
                   ctx.str(to),
               explainDimMismatch(ctx, from, to));
      return {};
    }
  }
  return {TensorType{a.dtype, std::move(*target)}};
}

} // namespace

std::vector<TensorType> txc::inferResultTypes(InferenceContext &ctx) {
  switch (ctx.node.kind) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
    return inferElementwiseBinary(ctx);
  case OpKind::Relu:
    return inferElementwiseUnary(ctx);
  case OpKind::MatMul:
    return inferMatMul(ctx);
  case OpKind::Broadcast:
    return inferBroadcast(ctx);
  case OpKind::Unknown:
    break;
  }
  llvm_unreachable("op without shape inference");
}
