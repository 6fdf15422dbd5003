//===- Tolerance.cpp ------------------------------------------------------===//
#include "txc/Testing/Tolerance.h"

#include <cmath>
#include <cstdio>

using namespace txc;

Tolerance txc::toleranceFor(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return {1e-12, 1e-12};
  case DType::F32:
    return {1e-5, 1e-5};
  case DType::F16:
    return {1e-5, 1e-3};
  case DType::BF16:
    return {1e-4, 8e-3};
  default:
    return {0, 0}; // integers and bool: exact
  }
}

/// Enough digits to tell any two doubles apart.
static std::string formatDouble(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// "[2,1]" for linear index `i` of `shape`.
static std::string indexString(llvm::ArrayRef<int64_t> shape, int64_t i) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return shapeString(index);
}

TensorComparison txc::compareTensors(const Tensor &interpreted,
                                     const Tensor &compiled,
                                     Tolerance tolerance) {
  TensorComparison result;
  if (interpreted.dtype() != compiled.dtype() ||
      interpreted.shape() != compiled.shape()) {
    result.firstMismatch = "the interpreter gives " + interpreted.typeString() +
                           ", the compiled code " + compiled.typeString();
    result.mismatches = 1;
    return result;
  }
  bool exact = !isFloat(interpreted.dtype());
  for (int64_t i = 0; i < interpreted.numElements(); ++i) {
    bool ok;
    std::string want, got;
    if (exact) {
      int64_t x = interpreted.getInt64(i), y = compiled.getInt64(i);
      ok = x == y;
      if (x != y) {
        result.maxAbsError =
            std::max(result.maxAbsError, std::fabs(double(x) - double(y)));
        result.maxRelError =
            x ? std::max(result.maxRelError,
                         std::fabs((double(x) - double(y)) / double(x)))
              : INFINITY;
      }
      want = std::to_string(x);
      got = std::to_string(y);
    } else {
      double x = interpreted.getDouble(i), y = compiled.getDouble(i);
      if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
        ok = (std::isnan(x) && std::isnan(y)) || x == y;
      } else {
        double diff = std::fabs(x - y);
        ok = diff <= tolerance.atol + tolerance.rtol * std::fabs(x);
        result.maxAbsError = std::max(result.maxAbsError, diff);
        if (diff > 0)
          result.maxRelError = std::max(
              result.maxRelError, x != 0 ? diff / std::fabs(x) : INFINITY);
      }
      want = formatDouble(x);
      got = formatDouble(y);
    }
    if (ok)
      continue;
    if (result.mismatches++ == 0)
      result.firstMismatch = "first at " + indexString(interpreted.shape(), i) +
                             ": interpreter " + want + ", compiled " + got;
  }
  result.match = result.mismatches == 0;
  return result;
}
