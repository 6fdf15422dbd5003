//===- Npy.h - Reading and writing numpy .npy files -------------*- C++ -*-===//
//
// The .npy format (numpy's NEP 1), versions 1.0, 2.0 and 3.0, restricted to
// what txc tensors are: C order, little-endian, and these dtypes:
//
//   numpy descr   txc dtype
//   <f4           f32
//   <f8           f64
//   <f2           f16
//   <u2           bf16 (numpy has no bfloat16: the raw 16-bit patterns are
//                 stored as uint16; arr.view('<u2') /
//                 .view(ml_dtypes.bfloat16))
//   |i1 <i2 <i4 <i8   i8 i16 i32 i64
//   |u1           u8
//   |b1           bool (every byte must be 0 or 1)
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

/// The bytes of a .npy file holding `tensor` (version 1.0, or 2.0 when the
/// header does not fit 1.0's 16-bit length).
std::string writeNpy(const Tensor &tensor);

} // namespace txc

#endif
