//===- Tensor.cpp ---------------------------------------------------------===//
#include "txc/Interp/Tensor.h"

#include "txc/Interp/ElementTypes.h"

#include <cmath>

using namespace txc;

/// The ABI's maximum rank (AbiLayout::kMaxRank); Tensor must not depend on
/// the Target library, so the value is repeated and checked there.
static constexpr unsigned kMaxTensorRank = 8;

std::optional<int64_t> Tensor::elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || __builtin_mul_overflow(count, dim, &count))
      return std::nullopt;
  }
  return count;
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : type(dtype), dims(std::move(shape)) {
  count = elementCount(dims).value_or(0);
  storage.assign(std::max<int64_t>(1, sizeBytes()), 0);
}

llvm::Expected<Tensor>
Tensor::create(DType dtype, llvm::ArrayRef<int64_t> shape, int64_t maxBytes) {
  if (shape.size() > kMaxTensorRank)
    return llvm::createStringError("rank %zu is over the limit of %u",
                                   shape.size(), kMaxTensorRank);
  std::optional<int64_t> count = elementCount(shape);
  int64_t bytes = 0;
  if (!count ||
      __builtin_mul_overflow(*count, int64_t(dtypeSize(dtype)), &bytes))
    return llvm::createStringError("shape %s has a negative dimension or "
                                   "too many elements",
                                   shapeString(shape).c_str());
  if (bytes > maxBytes)
    return llvm::createStringError(
        "a %s%s tensor needs %lld bytes, over the limit of %lld",
        dtypeName(dtype).str().c_str(), shapeString(shape).c_str(),
        (long long)bytes, (long long)maxBytes);
  return Tensor(dtype, shape.vec());
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> result(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    result[d] = stride;
    stride *= dims[d];
  }
  return result;
}

double Tensor::getDouble(int64_t i) const {
  return dispatchDType(type, [&](auto traits) -> double {
    using Traits = decltype(traits);
    return double(Traits::load(load<typename Traits::Storage>(i)));
  });
}

int64_t Tensor::getInt64(int64_t i) const {
  if (!isFloat(type))
    return dispatchDType(type, [&](auto traits) -> int64_t {
      using Traits = decltype(traits);
      return int64_t(Traits::load(load<typename Traits::Storage>(i)));
    });
  double value = getDouble(i);
  if (std::isnan(value))
    return 0;
  if (value >= 9223372036854775808.0)
    return INT64_MAX;
  if (value < -9223372036854775808.0)
    return INT64_MIN;
  return int64_t(value);
}

void Tensor::setDouble(int64_t i, double value) {
  switch (type) {
  case DType::F32:
    return store<float>(i, float(value));
  case DType::F64:
    return store<double>(i, value);
  case DType::F16:
    return store<uint16_t>(i, doubleToHalf(value));
  case DType::BF16:
    return store<uint16_t>(i, doubleToBF16(value));
  case DType::Bool:
    return store<uint8_t>(i, value != 0);
  default: {
    int64_t integer = 0;
    if (std::isnan(value))
      integer = 0;
    else if (type == DType::U64 && value >= 9223372036854775808.0)
      // The top half of u64's range, saturated at its maximum.
      return store<uint64_t>(
          i, value >= 18446744073709551616.0 ? UINT64_MAX : uint64_t(value));
    else if (value >= 9223372036854775808.0)
      integer = INT64_MAX;
    else if (value < -9223372036854775808.0)
      integer = INT64_MIN;
    else
      integer = int64_t(value);
    return setInt64(i, integer);
  }
  }
}

void Tensor::setInt64(int64_t i, int64_t value) {
  switch (type) {
  case DType::I8:
    return store<int8_t>(i, int8_t(uint8_t(value)));
  case DType::U8:
    return store<uint8_t>(i, uint8_t(value));
  case DType::U16:
    return store<uint16_t>(i, uint16_t(value));
  case DType::U32:
    return store<uint32_t>(i, uint32_t(value));
  case DType::U64:
    return store<uint64_t>(i, uint64_t(value));
  case DType::I16:
    return store<int16_t>(i, int16_t(uint16_t(value)));
  case DType::I32:
    return store<int32_t>(i, int32_t(uint32_t(value)));
  case DType::I64:
    return store<int64_t>(i, value);
  case DType::Bool:
    return store<uint8_t>(i, value != 0);
  default:
    return setDouble(i, double(value));
  }
}

std::string Tensor::typeString() const {
  return dtypeName(type).str() + shapeString(dims);
}

bool Tensor::identical(const Tensor &other) const {
  return type == other.type && dims == other.dims && bytes() == other.bytes();
}

std::string txc::shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "]";
}
