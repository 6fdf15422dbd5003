//===- ProgramWriter.cpp - The imported program as JSON and safetensors ---===//
//
// One item per line (symbols, inputs, constants, nodes, outputs), in the
// order the importer made them, so that the same model and flags give the
// same bytes. Float data is written as the shortest decimal that reads
// back as the same value of its dtype.
//
//===----------------------------------------------------------------------===//
#include "ProgramWriter.h"

#include "txc/Frontend/WeightsFile.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>

using namespace txc;
using namespace txc::onnximport;

static std::string quote(llvm::StringRef text) {
  return nlohmann::json(text.str()).dump();
}

/// The shortest text that reads back as `value` in a float type of
/// `precision` (float or double).
template <typename T> static std::string shortestFloat(T value) {
  if (std::isnan(value))
    return std::signbit(value) ? "\"-nan\"" : "\"nan\"";
  if (std::isinf(value))
    return value < 0 ? "\"-inf\"" : "\"inf\"";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  // JSON has no "1e+20" problem, but "-0" must stay a float zero's text.
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

/// A number attribute: the float it came from when it is one (ONNX
/// attributes are f32), so that 1e-5f is written "1e-05".
static std::string numberText(double value) {
  float single = float(value);
  if (double(single) == value)
    return shortestFloat(single);
  return shortestFloat(value);
}

static std::string attrValueText(const AttrValue &value) {
  switch (value.kind) {
  case AttrValue::Kind::Null:
    return "null";
  case AttrValue::Kind::Bool:
    return value.boolean ? "true" : "false";
  case AttrValue::Kind::Int:
    return std::to_string(value.integer);
  case AttrValue::Kind::Float:
    return numberText(value.number);
  case AttrValue::Kind::String:
    return quote(value.string);
  case AttrValue::Kind::List: {
    std::string text = "[";
    for (const AttrValue &item : value.list)
      text += (text.size() > 1 ? ", " : "") + attrValueText(item);
    return text + "]";
  }
  }
  return "null";
}

static std::string shapeText(const Shape &shape,
                             llvm::ArrayRef<std::string> names) {
  std::string text = "[";
  for (const ShapeExpr &dim : shape) {
    if (text.size() > 1)
      text += ", ";
    std::optional<int64_t> constant = dim.getConstant();
    text += constant ? std::to_string(*constant) : quote(dim.toString(names));
  }
  return text + "]";
}

/// The elements of an inline constant as a JSON array.
static std::string dataText(const ConstantDecl &constant) {
  const uint8_t *bytes = constant.data.data;
  size_t size = dtypeSize(constant.type.dtype);
  size_t count = constant.data.size / size;
  std::string text = "[";
  for (size_t i = 0; i < count; ++i) {
    if (i)
      text += ", ";
    const uint8_t *element = bytes + i * size;
    uint64_t bits = 0;
    for (size_t b = 0; b < size; ++b)
      bits |= uint64_t(element[b]) << (8 * b);
    switch (constant.type.dtype) {
    case DType::F32: {
      float value;
      std::memcpy(&value, element, 4);
      text += shortestFloat(value);
      break;
    }
    case DType::F64: {
      double value;
      std::memcpy(&value, element, 8);
      text += shortestFloat(value);
      break;
    }
    case DType::F16:
    case DType::BF16: {
      llvm::APFloat value(constant.type.dtype == DType::F16
                              ? llvm::APFloat::IEEEhalf()
                              : llvm::APFloat::BFloat(),
                          llvm::APInt(16, bits));
      text += shortestFloat(value.convertToFloat());
      break;
    }
    case DType::Bool:
      text += bits ? "true" : "false";
      break;
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      text += std::to_string(bits);
      break;
    default: {
      unsigned shift = 64 - 8 * size;
      text += std::to_string(int64_t(bits << shift) >> shift);
    }
    }
  }
  return text + "]";
}

namespace {
/// Writes `"key": value` pairs of one object on one line.
class ObjectLine {
public:
  ObjectLine &add(llvm::StringRef key, const std::string &valueText) {
    text += (text.empty() ? "{" : ", ") + quote(key) + ": " + valueText;
    return *this;
  }
  ObjectLine &addDescription(const std::map<std::string, std::string> &map,
                             const std::string &name) {
    auto it = map.find(name);
    return it == map.end() ? *this : add("description", quote(it->second));
  }
  std::string str() const { return text + "}"; }

private:
  std::string text;
};

std::string nodeText(const Node &node, const std::vector<std::string> &names,
                     const std::map<std::string, std::string> &descriptions);

/// A region (a branch of cond) on one line: its inputs, nodes and outputs.
std::string graphText(const Graph &graph, const std::vector<std::string> &names,
                      const std::map<std::string, std::string> &descriptions) {
  auto list = [](const std::vector<std::string> &items) {
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i)
      text += (i ? ", " : "") + items[i];
    return text + "]";
  };
  std::vector<std::string> inputs, nodes, outputs;
  for (const ValueDecl &input : graph.inputs)
    inputs.push_back(ObjectLine()
                         .add("name", quote(input.name))
                         .add("dtype", quote(dtypeName(input.type.dtype)))
                         .add("shape", shapeText(input.type.shape, names))
                         .str());
  for (const Node &node : graph.nodes)
    nodes.push_back(nodeText(node, names, descriptions));
  for (const OutputDecl &output : graph.outputs)
    outputs.push_back(ObjectLine()
                          .add("name", quote(output.name))
                          .add("value", quote(output.value))
                          .str());
  return ObjectLine()
      .add("inputs", list(inputs))
      .add("nodes", list(nodes))
      .add("outputs", list(outputs))
      .str();
}

std::string nodeText(const Node &node, const std::vector<std::string> &names,
                     const std::map<std::string, std::string> &descriptions) {
  ObjectLine line;
  line.add("name", quote(node.name)).add("op", quote(node.opName));
  std::string operands = "[";
  for (const std::string &operand : node.operands)
    operands += (operands.size() > 1 ? ", " : "") + quote(operand);
  line.add("operands", operands + "]");
  if (!node.attributes.empty()) {
    ObjectLine attrs;
    for (const NodeAttr &attr : node.attributes)
      attrs.add(attr.name, attrValueText(attr.value));
    line.add("attributes", attrs.str());
  }
  if (!node.regions.empty()) {
    ObjectLine regions;
    for (const auto &[name, graph] : node.regions)
      regions.add(name, graphText(*graph, names, descriptions));
    line.add("regions", regions.str());
  }
  return line.addDescription(descriptions, node.name).str();
}

std::string section(llvm::StringRef key, llvm::ArrayRef<std::string> items,
                    bool last = false) {
  std::string text = "  " + quote(key) + ": [";
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ",\n    " : "\n    ") + items[i];
  text += items.empty() ? "]" : "\n  ]";
  return text + (last ? "\n" : ",\n");
}
} // namespace

std::string txc::onnximport::writeProgramJson(const ImportedProgram &imported) {
  const Program &program = imported.program;
  std::vector<std::string> names = program.symbolNames();
  std::string text = "{\n  \"format\": \"txc.program\",\n  \"version\": 1,\n";
  text += "  \"name\": " + quote(program.name) + ",\n";
  text += "  \"description\": " + quote(imported.description) + ",\n";
  std::vector<std::string> items;
  for (const Symbol &symbol : program.symbols) {
    ObjectLine line;
    line.add("name", quote(symbol.name))
        .add("min", std::to_string(symbol.min))
        .add("max", std::to_string(symbol.max));
    if (symbol.multipleOf != 1)
      line.add("multiple_of", std::to_string(symbol.multipleOf));
    items.push_back(line.addDescription(imported.descriptions, symbol.name)
                        .str());
  }
  text += section("symbols", items);
  items.clear();
  for (const ValueDecl &input : program.inputs)
    items.push_back(ObjectLine()
                        .add("name", quote(input.name))
                        .add("dtype", quote(dtypeName(input.type.dtype)))
                        .add("shape", shapeText(input.type.shape, names))
                        .addDescription(imported.descriptions, input.name)
                        .str());
  text += section("inputs", items);
  items.clear();
  for (const ConstantDecl &constant : program.constants) {
    ObjectLine line;
    line.add("name", quote(constant.name))
        .add("dtype", quote(dtypeName(constant.type.dtype)))
        .add("shape", shapeText(constant.type.shape, names));
    if (constant.isFromFile())
      line.add("file", quote(constant.file))
          .add("tensor", quote(constant.tensor));
    else
      line.add("data", dataText(constant));
    items.push_back(
        line.addDescription(imported.descriptions, constant.name).str());
  }
  text += section("constants", items);
  items.clear();
  for (const Node &node : program.body.nodes)
    items.push_back(nodeText(node, names, imported.descriptions));
  text += section("nodes", items);
  items.clear();
  for (const OutputDecl &output : program.body.outputs)
    items.push_back(ObjectLine()
                        .add("name", quote(output.name))
                        .add("value", quote(output.value))
                        .addDescription(imported.outputDescriptions,
                                        output.name)
                        .str());
  text += section("outputs", items, /*last=*/true);
  return text + "}\n";
}

std::string
txc::onnximport::writeSafetensors(const std::vector<ConstantDecl> &constants) {
  std::vector<const ConstantDecl *> stored;
  for (const ConstantDecl &constant : constants)
    if (constant.isFromFile())
      stored.push_back(&constant);
  if (stored.empty())
    return "";
  // Wider elements first: every tensor starts at a multiple of its
  // element size (the data starts at a multiple of 8).
  llvm::stable_sort(stored, [](const ConstantDecl *a, const ConstantDecl *b) {
    return dtypeSize(a->type.dtype) > dtypeSize(b->type.dtype);
  });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  uint64_t offset = 0;
  for (const ConstantDecl *constant : stored) {
    nlohmann::ordered_json shape = nlohmann::ordered_json::array();
    for (const ShapeExpr &dim : constant->type.shape)
      shape.push_back(*dim.getConstant());
    header[constant->tensor] = {
        {"dtype", safetensorsDTypeName(constant->type.dtype).str()},
        {"shape", shape},
        {"data_offsets", {offset, offset + constant->data.size}}};
    offset += constant->data.size;
  }
  std::string headerText = header.dump();
  headerText.append((8 - headerText.size() % 8) % 8, ' ');
  std::string bytes(8, '\0');
  for (unsigned i = 0; i < 8; ++i)
    bytes[i] = char(uint64_t(headerText.size()) >> (8 * i));
  bytes += headerText;
  bytes.reserve(bytes.size() + offset);
  for (const ConstantDecl *constant : stored)
    bytes.append(reinterpret_cast<const char *>(constant->data.data),
                 constant->data.size);
  return bytes;
}
