//===- DType.h - Element types of txc tensors -------------------*- C++ -*-===//
#ifndef TXC_PROGRAM_DTYPE_H
#define TXC_PROGRAM_DTYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace txc {

/// Element types. The numeric values are the ABI dtype codes (TXC_DTYPE_*
/// in the generated header) and must never change.
enum class DType : int32_t {
  F32 = 1,
  F64 = 2,
  F16 = 3,
  BF16 = 4,
  I8 = 5,
  I16 = 6,
  I32 = 7,
  I64 = 8,
  U8 = 9,
  Bool = 10,
  U16 = 11,
  U32 = 12,
  U64 = 13,
};

/// In the order of their ABI codes.
inline constexpr DType kAllDTypes[] = {
    DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8,
    DType::I16, DType::I32, DType::I64, DType::U8,   DType::Bool,
    DType::U16, DType::U32, DType::U64};

llvm::StringRef dtypeName(DType type);
std::optional<DType> parseDType(llvm::StringRef name);
/// Bytes per element in memory (bool is one byte holding 0 or 1).
unsigned dtypeSize(DType type);
bool isFloat(DType type);
bool isInteger(DType type); ///< signed or unsigned integers, not bool
bool isSigned(DType type);  ///< signed integers
bool isUnsigned(DType type); ///< u8, u16, u32, u64 (not bool)
/// The comma-separated list of dtype names, for diagnostics.
const char *dtypeNameList();

} // namespace txc

#endif
