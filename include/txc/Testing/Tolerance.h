//===- Tolerance.h - How close compiled results must be ---------*- C++ -*-===//
//
// The one place that says how far an output of compiled code may be from
// the reference interpreter's. An element passes when
//
//     |compiled - interpreted| <= atol + rtol * |interpreted|
//
// (numpy.allclose's rule, with the interpreter as the reference), or when
// both are NaN, or both are the same infinity. Integers and bool must be
// equal: their semantics (wrapping, truncating division, x/0 = 0) leave no
// freedom.
//
//   dtype  atol   rtol   why
//   f64    1e-12  1e-12  ~4500 ulp of 1.0: room for a differently ordered
//                        sum or a libm call the compiled code replaces with
//                        a polynomial, nothing more.
//   f32    1e-5   1e-5   ~84 ulp of 1.0: same, at single precision. The
//                        current ops (elementwise, matmul in k order without
//                        FMA) are bit-identical in practice.
//   f16    1e-5   1e-3   1 ulp (an ulp is at most 2^-10 = 9.8e-4 of the
//                        value): a correct lowering computes each op in
//                        float and rounds once, as the interpreter does, so
//                        at most an approximated function's last bit may
//                        differ. Accumulating a matmul in f16 instead of
//                        float is caught.
//   bf16   1e-4   8e-3   1 ulp (at most 2^-7 = 7.8e-3), the same reasoning.
//   ints, bool  exact
//
// The random inputs are in [-4, 4] (txc-difftest); atol only matters for
// results near zero, where a relative bound alone is too strict after
// cancellation.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TESTING_TOLERANCE_H
#define TXC_TESTING_TOLERANCE_H

#include "txc/Interp/Tensor.h"

#include <string>

namespace txc {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

Tolerance toleranceFor(DType dtype);

/// How an output of compiled code compares with the interpreter's.
struct TensorComparison {
  bool match = false;
  double maxAbsError = 0; ///< over the elements that are finite in both
  double maxRelError = 0; ///< max |diff| / |interpreted| (inf if it is 0)
  int64_t mismatches = 0; ///< elements outside the tolerance
  /// The first element outside the tolerance, or the reason the tensors
  /// cannot be compared (dtype or shape), for the report.
  std::string firstMismatch;
};

TensorComparison compareTensors(const Tensor &interpreted,
                                const Tensor &compiled, Tolerance tolerance);

} // namespace txc

#endif
