//===- NpyHeader.h - The header of numpy .npy files -------------*- C++ -*-===//
//
// The part of the .npy format (numpy's NEP 1, versions 1.0, 2.0 and 3.0)
// that says what a file holds, shared by the interpreter's .npy reader and
// the weights files of programs. Only what txc tensors are is accepted: C
// order, little-endian, and these dtypes:
//
//   numpy descr   txc dtype
//   <f4           f32
//   <f8           f64
//   <f2           f16
//   |i1 <i2 <i4 <i8   i8 i16 i32 i64
//   |u1 <u2 <u4 <u8   u8 u16 u32 u64
//   |b1           bool
//
// numpy has no bfloat16: a bf16 tensor is written as its raw 16-bit
// patterns, <u2. A <u2 file is read as u16; where a bf16 is declared (an
// input of `txc run`, a weights file) it holds the bf16's bits (npyHolds).
//
// The parser trusts nothing in the file: every length, the header's syntax,
// the shape (negative, overflowing or absurd dims) and the data size are
// checked, and every problem is an llvm::Error naming the file. It never
// reads the data.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_NPYHEADER_H
#define TXC_PROGRAM_NPYHEADER_H

#include "txc/Program/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace txc {

struct NpyHeader {
  DType dtype = DType::F32;
  std::string descr;          ///< as written ("<f4")
  std::vector<int64_t> shape; ///< outermost first
  uint64_t dataOffset = 0;    ///< where the elements start in the file
  uint64_t dataBytes = 0;     ///< exactly the file's size minus dataOffset
};

/// Parses and checks the header of the .npy file `bytes`: the magic, the
/// version, the header length, the dict, the dtype, and that the data that
/// follows has exactly the size the shape and dtype need. `name` is used in
/// error messages.
llvm::Expected<NpyHeader> parseNpyHeader(llvm::ArrayRef<uint8_t> bytes,
                                         llvm::StringRef name);

/// The descr txc writes for a dtype ("<f4", "|b1", "<u2" for bf16).
llvm::StringRef npyDescr(DType dtype);

/// Whether a .npy file whose descr reads as `fileDType` holds a tensor
/// declared `declared`: the same dtype, or a <u2 (u16) file for a bf16.
bool npyHolds(DType fileDType, DType declared);

/// "(3, 4)", "(3,)" or "()": a shape as numpy prints it.
std::string npyShapeString(llvm::ArrayRef<int64_t> shape);

} // namespace txc

#endif
