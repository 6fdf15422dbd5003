//===- DType.cpp ----------------------------------------------------------===//
#include "txc/Program/DType.h"

#include "llvm/Support/ErrorHandling.h"

using namespace txc;

llvm::StringRef txc::dtypeName(DType type) {
  switch (type) {
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I8: return "i8";
  case DType::I16: return "i16";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::U8: return "u8";
  case DType::U16: return "u16";
  case DType::U32: return "u32";
  case DType::U64: return "u64";
  case DType::Bool: return "bool";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> txc::parseDType(llvm::StringRef name) {
  for (DType type : kAllDTypes)
    if (dtypeName(type) == name)
      return type;
  return std::nullopt;
}

unsigned txc::dtypeSize(DType type) {
  switch (type) {
  case DType::F64: case DType::I64: case DType::U64: return 8;
  case DType::F32: case DType::I32: case DType::U32: return 4;
  case DType::F16: case DType::BF16: case DType::I16: case DType::U16:
    return 2;
  case DType::I8: case DType::U8: case DType::Bool: return 1;
  }
  llvm_unreachable("unknown dtype");
}

bool txc::isFloat(DType type) {
  return type == DType::F32 || type == DType::F64 || type == DType::F16 ||
         type == DType::BF16;
}

bool txc::isUnsigned(DType type) {
  return type == DType::U8 || type == DType::U16 || type == DType::U32 ||
         type == DType::U64;
}

bool txc::isInteger(DType type) {
  return type == DType::I8 || type == DType::I16 || type == DType::I32 ||
         type == DType::I64 || isUnsigned(type);
}

bool txc::isSigned(DType type) { return isInteger(type) && !isUnsigned(type); }

const char *txc::dtypeNameList() {
  return "f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, bool";
}
