//===- Tensor.h - A dense tensor value for the interpreter ------*- C++ -*-===//
//
// A Tensor owns its elements: little-endian, row-major (C order), in the same
// byte layout as the ABI (bool is one byte holding 0 or 1, f16/bf16 are raw
// 16-bit patterns). The interpreter, the .npy reader and writer and the
// compiled-code runner all exchange Tensors, so the bytes that reach a
// compiled object are exactly the bytes the interpreter reads.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_TENSOR_H
#define TXC_INTERP_TENSOR_H

#include "txc/Program/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace txc {

class Tensor {
public:
  /// A rank-0 f32 zero.
  Tensor() : Tensor(DType::F32, {}) {}
  /// A zero-filled tensor. The shape must be valid (see create).
  Tensor(DType dtype, std::vector<int64_t> shape);

  /// A zero-filled tensor, or an error if a dim is negative, the rank is over
  /// the ABI's limit or the byte size overflows or exceeds `maxBytes`.
  static llvm::Expected<Tensor> create(DType dtype,
                                       llvm::ArrayRef<int64_t> shape,
                                       int64_t maxBytes = INT64_MAX);
  /// The number of elements of `shape`, or nullopt on overflow or a negative
  /// dim.
  static std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> shape);

  DType dtype() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return dims; }
  unsigned rank() const { return dims.size(); }
  int64_t numElements() const { return count; }
  int64_t sizeBytes() const { return count * int64_t(dtypeSize(type)); }

  /// Never null, even for an empty tensor, so that a descriptor built from
  /// it passes the ABI's data-pointer guards.
  uint8_t *data() { return storage.data(); }
  const uint8_t *data() const { return storage.data(); }
  llvm::ArrayRef<uint8_t> bytes() const {
    return {data(), size_t(sizeBytes())};
  }

  /// Row-major strides in elements.
  std::vector<int64_t> strides() const;

  /// The element at linear index `i` as a double: floats exactly (f16/bf16
  /// widened), integers converted (i64 beyond 2^53 rounds), bool 0 or 1.
  double getDouble(int64_t i) const;
  /// The element as an integer: integers and bool exactly; floats truncated
  /// toward zero, saturated to the int64 range, NaN gives 0.
  int64_t getInt64(int64_t i) const;
  /// Stores `value` converted to the dtype: floats round to nearest even
  /// (once); integers take the truncated value saturated to int64 and then
  /// wrapped to the type's width; bool stores value != 0 (NaN is true).
  void setDouble(int64_t i, double value);
  /// Stores `value`: integers wrap to the type's width (two's complement),
  /// floats round to nearest even, bool stores value != 0.
  void setInt64(int64_t i, int64_t value);

  /// Raw element access in the storage type (f16/bf16 as uint16_t, bool as
  /// uint8_t).
  template <class T> T load(int64_t i) const {
    T value;
    std::memcpy(&value, data() + i * int64_t(sizeof(T)), sizeof(T));
    return value;
  }
  template <class T> void store(int64_t i, T value) {
    std::memcpy(data() + i * int64_t(sizeof(T)), &value, sizeof(T));
  }

  /// Views the same bytes as `dtype`, which must have the element size of
  /// the current one (a <u2 file's u16 elements as the bf16 they encode).
  void reinterpret(DType dtype) {
    assert(dtypeSize(dtype) == dtypeSize(type) && "not the same element size");
    type = dtype;
  }

  /// "f32[5,4]".
  std::string typeString() const;

  /// Same dtype, shape and bytes.
  bool identical(const Tensor &other) const;

private:
  DType type;
  std::vector<int64_t> dims;
  int64_t count = 1;
  std::vector<uint8_t> storage; ///< at least one byte
};

/// "[5,4]".
std::string shapeString(llvm::ArrayRef<int64_t> shape);

} // namespace txc

#endif
