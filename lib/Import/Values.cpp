//===- Values.cpp - Known tensors, ONNX tensors, names and attributes -----===//
#include "Importer.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace txc;
using namespace txc::onnximport;

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

std::optional<DType> txc::onnximport::dtypeOfOnnx(int32_t elemType) {
  switch (elemType) {
  case onnx::TensorProto::FLOAT:
    return DType::F32;
  case onnx::TensorProto::DOUBLE:
    return DType::F64;
  case onnx::TensorProto::FLOAT16:
    return DType::F16;
  case onnx::TensorProto::BFLOAT16:
    return DType::BF16;
  case onnx::TensorProto::INT8:
    return DType::I8;
  case onnx::TensorProto::INT16:
    return DType::I16;
  case onnx::TensorProto::INT32:
    return DType::I32;
  case onnx::TensorProto::INT64:
    return DType::I64;
  case onnx::TensorProto::UINT8:
    return DType::U8;
  case onnx::TensorProto::UINT16:
    return DType::U16;
  case onnx::TensorProto::UINT32:
    return DType::U32;
  case onnx::TensorProto::UINT64:
    return DType::U64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  default:
    return std::nullopt;
  }
}

const char *txc::onnximport::onnxTypeName(int32_t elemType) {
  if (onnx::TensorProto::DataType_IsValid(elemType))
    return onnx::TensorProto::DataType_Name(
               onnx::TensorProto::DataType(elemType))
        .c_str();
  return "an unknown element type";
}

//===----------------------------------------------------------------------===//
// KnownTensor
//===----------------------------------------------------------------------===//

int64_t KnownTensor::numElements() const {
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= dim;
  return count;
}

std::optional<std::vector<int64_t>> KnownTensor::staticInts() const {
  if (!ints)
    return std::nullopt;
  std::vector<int64_t> values;
  for (const ShapeExpr &value : *ints) {
    std::optional<int64_t> constant = value.getConstant();
    if (!constant)
      return std::nullopt;
    values.push_back(*constant);
  }
  return values;
}

/// Element `i` of little-endian `bytes` of an integer or bool dtype.
static int64_t readInteger(const uint8_t *bytes, DType dtype, int64_t i) {
  unsigned size = dtypeSize(dtype);
  uint64_t bits = 0;
  for (unsigned b = 0; b < size; ++b)
    bits |= uint64_t(bytes[i * size + b]) << (8 * b);
  if (!isSigned(dtype) || size == 8)
    return int64_t(bits);
  unsigned shift = 64 - 8 * size;
  return int64_t(bits << shift) >> shift;
}

static void writeInteger(uint8_t *bytes, DType dtype, int64_t i,
                         int64_t value) {
  unsigned size = dtypeSize(dtype);
  for (unsigned b = 0; b < size; ++b)
    bytes[i * size + b] = uint8_t(uint64_t(value) >> (8 * b));
}

std::optional<std::vector<double>> KnownTensor::doubles() const {
  if (!hasBytes() || dtype == DType::Bool)
    return std::nullopt;
  std::vector<double> values;
  int64_t count = numElements();
  const uint8_t *data = bytes.data;
  for (int64_t i = 0; i < count; ++i) {
    switch (dtype) {
    case DType::F32: {
      float value;
      std::memcpy(&value, data + 4 * i, 4);
      values.push_back(value);
      break;
    }
    case DType::F64: {
      double value;
      std::memcpy(&value, data + 8 * i, 8);
      values.push_back(value);
      break;
    }
    case DType::F16:
    case DType::BF16: {
      uint16_t bits = uint16_t(data[2 * i] | (data[2 * i + 1] << 8));
      llvm::APFloat value(dtype == DType::F16 ? llvm::APFloat::IEEEhalf()
                                              : llvm::APFloat::BFloat(),
                          llvm::APInt(16, bits));
      bool lost;
      value.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
      values.push_back(value.convertToDouble());
      break;
    }
    default: {
      int64_t value = readInteger(data, dtype, i);
      // u64 elements above INT64_MAX read as negative int64s.
      values.push_back(dtype == DType::U64 ? double(uint64_t(value))
                                           : double(value));
    }
    }
  }
  return values;
}

void KnownTensor::complete() {
  bool integral = isInteger(dtype) || dtype == DType::Bool;
  int64_t count = numElements();
  if (!integral || count > kMaxFoldedElements)
    return;
  if (!ints && hasBytes()) {
    std::vector<ShapeExpr> values;
    for (int64_t i = 0; i < count; ++i)
      values.push_back(ShapeExpr::constant(readInteger(bytes.data, dtype, i)));
    ints = std::move(values);
  }
  if (!hasBytes() && ints) {
    std::optional<std::vector<int64_t>> constants = staticInts();
    if (!constants)
      return;
    std::vector<uint8_t> data(count * dtypeSize(dtype));
    for (int64_t i = 0; i < count; ++i)
      writeInteger(data.data(), dtype, i, (*constants)[i]);
    bytes = Blob::fromVector(std::move(data));
  }
}

std::shared_ptr<KnownTensor>
KnownTensor::fromInts(DType dtype, std::vector<int64_t> dims,
                      std::vector<ShapeExpr> values) {
  auto known = std::make_shared<KnownTensor>();
  known->dtype = dtype;
  known->dims = std::move(dims);
  known->ints = std::move(values);
  known->complete();
  return known;
}

std::shared_ptr<KnownTensor>
txc::onnximport::knownFloats(DType dtype, std::vector<int64_t> dims,
                             llvm::ArrayRef<double> values) {
  auto known = std::make_shared<KnownTensor>();
  known->dtype = dtype;
  known->dims = std::move(dims);
  unsigned size = dtypeSize(dtype);
  std::vector<uint8_t> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *out = bytes.data() + i * size;
    if (dtype == DType::F64) {
      std::memcpy(out, &values[i], 8);
      continue;
    }
    const llvm::fltSemantics &semantics =
        dtype == DType::F32   ? llvm::APFloat::IEEEsingle()
        : dtype == DType::F16 ? llvm::APFloat::IEEEhalf()
                              : llvm::APFloat::BFloat();
    llvm::APFloat value(values[i]);
    bool lost;
    value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    uint64_t bits = value.bitcastToAPInt().getZExtValue();
    for (unsigned b = 0; b < size; ++b)
      out[b] = uint8_t(bits >> (8 * b));
  }
  known->bytes = Blob::fromVector(std::move(bytes));
  return known;
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

/// Element count of `dims`, refusing negative dims and counts over 2^48
/// (no tensor of a txc program can be larger).
static std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> dims,
                                           std::string &problem) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) {
      problem = "has the negative dimension " + std::to_string(dim);
      return std::nullopt;
    }
    if (__builtin_mul_overflow(count, dim, &count) ||
        count > ProgramLimits::kMaxTensorBytes) {
      problem = "has dimensions whose product is over 2^48 elements";
      return std::nullopt;
    }
  }
  return count;
}

/// Copies `bytes.size()` bytes from `source` (memcpy's pointers must not be
/// null even for 0 bytes, and an empty repeated field's data() is null).
static void copyInto(std::vector<uint8_t> &bytes, const void *source) {
  if (!bytes.empty())
    std::memcpy(bytes.data(), source, bytes.size());
}

/// The typed repeated field of a TensorProto that holds `type`'s elements
/// when raw_data is not used, as little-endian bytes.
static std::optional<std::vector<uint8_t>>
typedFieldBytes(const onnx::TensorProto &tensor, DType dtype, int64_t count,
                std::string &problem) {
  std::vector<uint8_t> bytes(count * dtypeSize(dtype));
  auto checkCount = [&](int64_t have, const char *field) {
    if (have == count)
      return true;
    problem = "holds " + std::to_string(have) + " elements in " + field +
              " but its dimensions need " + std::to_string(count);
    return false;
  };
  switch (dtype) {
  case DType::F32:
    if (!checkCount(tensor.float_data_size(), "float_data"))
      return std::nullopt;
    copyInto(bytes, tensor.float_data().data());
    return bytes;
  case DType::F64:
    if (!checkCount(tensor.double_data_size(), "double_data"))
      return std::nullopt;
    copyInto(bytes, tensor.double_data().data());
    return bytes;
  case DType::I64:
    if (!checkCount(tensor.int64_data_size(), "int64_data"))
      return std::nullopt;
    copyInto(bytes, tensor.int64_data().data());
    return bytes;
  case DType::U32:
  case DType::U64:
    // uint64_data holds uint32 and uint64 (onnx.proto).
    if (!checkCount(tensor.uint64_data_size(), "uint64_data"))
      return std::nullopt;
    for (int64_t i = 0; i < count; ++i)
      writeInteger(bytes.data(), dtype, i, int64_t(tensor.uint64_data(i)));
    return bytes;
  default:
    // int32_data holds every smaller type, f16 and bf16 as their bits.
    if (!checkCount(tensor.int32_data_size(), "int32_data"))
      return std::nullopt;
    for (int64_t i = 0; i < count; ++i)
      writeInteger(bytes.data(), dtype == DType::Bool ? DType::U8 : dtype, i,
                   dtype == DType::Bool ? tensor.int32_data(i) != 0
                                        : tensor.int32_data(i));
    return bytes;
  }
}

std::shared_ptr<KnownTensor>
txc::onnximport::readTensorProto(const onnx::TensorProto &tensor,
                                 std::shared_ptr<const void> owner,
                                 std::string &problem) {
  std::optional<DType> dtype = dtypeOfOnnx(tensor.data_type());
  if (!dtype) {
    problem = std::string("has element type ") +
              onnxTypeName(tensor.data_type()) + ", which txc has no dtype for";
    return nullptr;
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    // The model's external data was read into raw_data when it was loaded
    // (ExternalData.cpp); a tensor found elsewhere was not.
    problem = "keeps its data in an external file, which txc reads only for "
              "initializers and attribute tensors";
    return nullptr;
  }
  auto known = std::make_shared<KnownTensor>();
  known->dtype = *dtype;
  known->dims.assign(tensor.dims().begin(), tensor.dims().end());
  std::optional<int64_t> count = elementCount(known->dims, problem);
  if (!count)
    return nullptr;
  uint64_t expectedBytes = uint64_t(*count) * dtypeSize(*dtype);
  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != expectedBytes) {
      problem = "has " + std::to_string(raw.size()) +
                " bytes of raw data, but " + std::to_string(*count) +
                " elements of " + dtypeName(*dtype).str() + " need " +
                std::to_string(expectedBytes);
      return nullptr;
    }
    if (*dtype == DType::Bool) {
      std::vector<uint8_t> bytes(raw.begin(), raw.end());
      for (uint8_t &byte : bytes)
        byte = byte != 0;
      known->bytes = Blob::fromVector(std::move(bytes));
    } else {
      known->bytes.owner = std::move(owner);
      known->bytes.data = reinterpret_cast<const uint8_t *>(raw.data());
      known->bytes.size = raw.size();
    }
  } else {
    std::optional<std::vector<uint8_t>> bytes =
        typedFieldBytes(tensor, *dtype, *count, problem);
    if (!bytes)
      return nullptr;
    known->bytes = Blob::fromVector(std::move(*bytes));
  }
  known->complete();
  return known;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::string txc::onnximport::nodeLabel(const onnx::NodeProto &node,
                                       unsigned index) {
  return node.name().empty() ? "#" + std::to_string(index)
                             : "'" + node.name() + "'";
}

void NameTable::reserve(llvm::StringRef identifier) {
  if (taken.insert(identifier.str()).second)
    mapped[identifier.str()] = identifier.str();
}

/// `name` with every run of characters outside [A-Za-z0-9_] replaced by
/// one '_', leading and trailing '_' of such runs dropped, a leading digit
/// prefixed with 'v', and at most 100 characters.
static std::string sanitize(llvm::StringRef name) {
  std::string out;
  bool pendingSeparator = false;
  for (char c : name) {
    if (llvm::isAlnum(c) || c == '_') {
      if (pendingSeparator && !out.empty() && out.back() != '_')
        out += '_';
      pendingSeparator = false;
      out += c;
    } else {
      pendingSeparator = true;
    }
  }
  if (out.empty())
    out = "v";
  if (llvm::isDigit(out[0]))
    out = "v" + out;
  if (out.size() > 100)
    out.resize(100);
  return out;
}

std::string NameTable::fresh(llvm::StringRef base) {
  std::string stem = sanitize(base);
  std::string name = stem;
  for (unsigned suffix = 2; taken.count(name); ++suffix)
    name = stem + "_" + std::to_string(suffix);
  taken.insert(name);
  return name;
}

std::string NameTable::map(llvm::StringRef onnxName) {
  auto it = mapped.find(onnxName.str());
  if (it != mapped.end())
    return it->second;
  std::string name = fresh(onnxName);
  mapped[onnxName.str()] = name;
  return name;
}

//===----------------------------------------------------------------------===//
// Attributes of emitted nodes
//===----------------------------------------------------------------------===//

static NodeAttr makeAttr(llvm::StringRef name, AttrValue value) {
  NodeAttr attr;
  attr.name = name.str();
  attr.value = std::move(value);
  return attr;
}

NodeAttr txc::onnximport::intAttr(llvm::StringRef name, int64_t value) {
  AttrValue v;
  v.kind = AttrValue::Kind::Int;
  v.integer = value;
  return makeAttr(name, v);
}

NodeAttr txc::onnximport::floatAttr(llvm::StringRef name, double value) {
  AttrValue v;
  v.kind = AttrValue::Kind::Float;
  v.number = value;
  return makeAttr(name, v);
}

NodeAttr txc::onnximport::boolAttr(llvm::StringRef name, bool value) {
  AttrValue v;
  v.kind = AttrValue::Kind::Bool;
  v.boolean = value;
  return makeAttr(name, v);
}

NodeAttr txc::onnximport::stringAttr(llvm::StringRef name,
                                     llvm::StringRef value) {
  AttrValue v;
  v.kind = AttrValue::Kind::String;
  v.string = value.str();
  return makeAttr(name, v);
}

NodeAttr txc::onnximport::intListAttr(llvm::StringRef name,
                                      llvm::ArrayRef<int64_t> values) {
  AttrValue v;
  v.kind = AttrValue::Kind::List;
  for (int64_t value : values)
    v.list.push_back(intAttr("", value).value);
  return makeAttr(name, v);
}

NodeAttr txc::onnximport::shapeAttr(llvm::StringRef name, const Shape &shape,
                                    llvm::ArrayRef<std::string> symbolNames) {
  AttrValue v;
  v.kind = AttrValue::Kind::List;
  for (const ShapeExpr &dim : shape) {
    if (std::optional<int64_t> constant = dim.getConstant()) {
      v.list.push_back(intAttr("", *constant).value);
    } else {
      AttrValue expr;
      expr.kind = AttrValue::Kind::String;
      expr.string = dim.toString(symbolNames);
      v.list.push_back(expr);
    }
  }
  return makeAttr(name, v);
}

std::optional<int64_t> txc::onnximport::normalizeOnnxAxis(int64_t axis,
                                                          int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<int64_t>
txc::onnximport::readAxisAttr(NodeImporter &node, const ImportedValue &data) {
  std::optional<int64_t> axis =
      normalizeOnnxAxis(node.intAttr("axis", 0), data.type.rank());
  if (!axis)
    (void)node.invalid("its axis is out of range");
  return axis;
}
