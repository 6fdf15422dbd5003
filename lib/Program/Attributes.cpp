//===- Attributes.cpp -----------------------------------------------------===//
#include "txc/Program/Attributes.h"

using namespace txc;

static const AttrValue *find(const Node &node, llvm::StringRef name) {
  const NodeAttr *attr = node.findAttribute(name);
  return attr ? &attr->value : nullptr;
}

bool txc::hasAttr(const Node &node, llvm::StringRef name) {
  return find(node, name) != nullptr;
}

int64_t txc::getIntAttr(const Node &node, llvm::StringRef name,
                        int64_t fallback) {
  const AttrValue *value = find(node, name);
  return value && value->kind == AttrValue::Kind::Int ? value->integer
                                                      : fallback;
}

double txc::getFloatAttr(const Node &node, llvm::StringRef name,
                         double fallback) {
  const AttrValue *value = find(node, name);
  if (!value)
    return fallback;
  if (value->kind == AttrValue::Kind::Int)
    return double(value->integer);
  if (value->kind == AttrValue::Kind::Float)
    return value->number;
  return fallback;
}

bool txc::getBoolAttr(const Node &node, llvm::StringRef name, bool fallback) {
  const AttrValue *value = find(node, name);
  return value && value->kind == AttrValue::Kind::Bool ? value->boolean
                                                       : fallback;
}

std::string txc::getStringAttr(const Node &node, llvm::StringRef name,
                               llvm::StringRef fallback) {
  const AttrValue *value = find(node, name);
  return value && value->kind == AttrValue::Kind::String ? value->string
                                                         : fallback.str();
}

std::vector<int64_t> txc::getIntListAttr(const Node &node,
                                         llvm::StringRef name,
                                         std::vector<int64_t> fallback) {
  const AttrValue *value = find(node, name);
  if (!value || value->kind != AttrValue::Kind::List)
    return fallback;
  std::vector<int64_t> result;
  for (const AttrValue &item : value->list)
    result.push_back(item.integer);
  return result;
}

std::optional<DType> txc::getDTypeAttr(const Node &node,
                                       llvm::StringRef name) {
  const AttrValue *value = find(node, name);
  if (!value || value->kind != AttrValue::Kind::String)
    return std::nullopt;
  return parseDType(value->string);
}

std::optional<Shape> txc::getShapeAttr(const Program &program,
                                       const Node &node,
                                       llvm::StringRef name) {
  const AttrValue *value = find(node, name);
  if (!value || value->kind != AttrValue::Kind::List)
    return std::nullopt;
  Shape shape;
  for (const AttrValue &dim : value->list) {
    if (dim.kind == AttrValue::Kind::Int) {
      shape.push_back(ShapeExpr::constant(dim.integer));
      continue;
    }
    std::string error;
    size_t offset = 0;
    auto expr = ShapeExpr::parse(
        dim.string,
        [&](llvm::StringRef symbol) { return program.findSymbolRef(symbol); },
        error, offset);
    if (!expr)
      return std::nullopt;
    shape.push_back(std::move(*expr));
  }
  return shape;
}

std::optional<unsigned> txc::normalizeAxis(int64_t axis, unsigned rank) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= int64_t(rank))
    return std::nullopt;
  return unsigned(axis);
}
