//===- InputGenerator.h - Symbol values and random inputs -------*- C++ -*-===//
//
// What txc-difftest runs a program on: a few sets of symbol values (every
// symbol at its minimum, at its maximum, at a random value in range, all
// respecting multiple_of and a size budget), and seeded random inputs of
// the shapes those values give. Everything is a function of the seed, so a
// reported mismatch can be reproduced.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TESTING_INPUTGENERATOR_H
#define TXC_TESTING_INPUTGENERATOR_H

#include "txc/Analysis/Contract.h"
#include "txc/Interp/Tensor.h"
#include "txc/Program/Program.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace txc {

struct SymbolValues {
  std::string label;           ///< "min", "max", "random", "given"
  std::vector<int64_t> values; ///< indexed by symbol id
  bool capped = false;         ///< below the declared max (size budget)
};

/// "B=4096,S=3" (empty for a program without symbols).
std::string formatSymbolValues(const Contract &contract,
                               llvm::ArrayRef<int64_t> values);

/// The bytes of every input, output and node result at these values.
int64_t programBytes(const Program &program, llvm::ArrayRef<int64_t> values);

/// The min, max and random sets (duplicates dropped). The max set is
/// lowered (halving the largest symbols) until programBytes fits `maxBytes`;
/// the random values lie between the minimum and that capped maximum.
std::vector<SymbolValues> chooseSymbolValues(const Program &program,
                                             const Contract &contract,
                                             uint64_t seed, int64_t maxBytes);

/// Parses "B=5,S=3" (every symbol named once, in range, a multiple of its
/// multiple_of).
llvm::Expected<SymbolValues> parseSymbolValues(const Contract &contract,
                                               llvm::StringRef text);

/// Random inputs of the shapes the contract gives for `values`: floats
/// uniform in [-4, 4] (rounded to the dtype), signed integers uniform in
/// [-8, 8], unsigned ones in [0, 16], with one element in eight replaced by
/// a boundary value (the type's min and max, -1, 0, 1; for u16, u32 and u64
/// also 2^(width-1) and 2^(width-1) - 1, where a signed op goes wrong) so
/// that wrapping and the division special cases are exercised; bool 0 or 1.
std::vector<Tensor> generateInputs(const Contract &contract,
                                   llvm::ArrayRef<int64_t> values,
                                   uint64_t seed);

} // namespace txc

#endif
