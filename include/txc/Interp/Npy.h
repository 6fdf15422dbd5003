//===- Npy.h - Reading and writing numpy .npy files -------------*- C++ -*-===//
//
// The .npy format (numpy's NEP 1), versions 1.0, 2.0 and 3.0, restricted to
// what txc tensors are: C order, little-endian, and these dtypes:
//
//   numpy descr   txc dtype
//   <f4           f32
//   <f8           f64
//   <f2           f16
//   |i1 <i2 <i4 <i8   i8 i16 i32 i64
//   |u1 <u2 <u4 <u8   u8 u16 u32 u64
//   |b1           bool (every byte must be 0 or 1)
//
// numpy has no bfloat16: a bf16 tensor is written as its raw 16-bit
// patterns, <u2 (arr.view('<u2') / .view(ml_dtypes.bfloat16)), and
// readNpyFileAs reads a <u2 file as bf16 where a bf16 is declared.
//
// The reader trusts nothing in the file: every length, the header's syntax,
// the shape (negative, overflowing or absurd dims) and the data size are
// checked, and every problem is an llvm::Error naming the file.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_NPY_H
#define TXC_INTERP_NPY_H

#include "txc/Interp/Tensor.h"
#include "txc/Program/NpyHeader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace txc {

/// Parses the bytes of a .npy file. `name` is used in error messages.
llvm::Expected<Tensor> parseNpy(llvm::ArrayRef<uint8_t> bytes,
                                llvm::StringRef name);

/// Reads a .npy file.
llvm::Expected<Tensor> readNpyFile(llvm::StringRef path);
/// Reads a .npy file for a tensor declared `declared`: as readNpyFile, but
/// a <u2 file's bits are a bf16 tensor when `declared` is bf16 (npyHolds).
/// Any other dtype is left as the file has it, for the guards to reject.
llvm::Expected<Tensor> readNpyFileAs(llvm::StringRef path, DType declared);

/// The bytes of a .npy file holding `tensor` (version 1.0, or 2.0 when the
/// header does not fit 1.0's 16-bit length).
std::string writeNpy(const Tensor &tensor);

} // namespace txc

#endif
