//===- ProgramGenerator.h - Random well-typed programs ----------*- C++ -*-===//
//
// The program generator of the random differential tester (txc-fuzz, the
// `fuzz-*` CTest tests): NNSmith-style random graphs of 2 to 30 ops over
// 1-3 symbols (small ranges, some with multiple_of) and 1-3 inputs of
// mixed dtypes and symbolic/static shapes. Each op generator knows its op's
// operand constraints (docs/ops.md); the result type of every new node is
// then taken from the real verifier, which checks the program after every
// step, so a program the verifier rejects is a generator bug
// (GeneratedProgram::generatorError), never a compiler mismatch.
//
// A seed gives the same program everywhere: std::mt19937_64 with explicit
// integer and real mappings (no std::*_distribution, whose results differ
// between standard libraries).
//
// Numerics (so that Tolerance.h stays meaningful on the generated programs):
//  * ops with a restricted domain get a guarded operand: log, log1p, sqrt,
//    rsqrt, reciprocal and the float divisor of div and mod take
//    `add(abs(x), c)` with c in {0.5, 1}; float pow takes base
//    `add(abs(x), 0.5)` and exponent `clamp(y, -3, 3)`; integer pow takes
//    the exponent `clamp(y, 0, 5)` (the interpreter multiplies y times);
//  * every float value carries an "exact" flag: inputs and constants are
//    exact, IEEE-exact ops (add, sub, mul, div, sqrt, neg, abs, min/max,
//    select, casts, shape ops, max/min reductions, ...) of exact values are
//    exact, and transcendental functions, sums, products, contractions and
//    normalizations are not. Discontinuous ops (floor, ceil, round, sign,
//    tan, asin, acos, acosh, atanh, mod, comparisons, argmax/argmin, topk,
//    float-to-integer/bool casts) only take exact operands, so a last-bit
//    difference allowed by the tolerance is never amplified into a
//    different integer, branch or a large difference near a pole; a value
//    that is not exact is never cast to a float dtype of a tighter
//    tolerance (f32 to f64), which would compare its rounding with the
//    wider dtype's tolerance;
//  * constants are multiples of 0.25 in [-4, 4] (exact in every float
//    dtype), integers in [-8, 8].
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TESTING_PROGRAMGENERATOR_H
#define TXC_TESTING_PROGRAMGENERATOR_H

#include "txc/Program/DType.h"
#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace txc {

struct GeneratorOptions {
  unsigned minOps = 2;
  unsigned maxOps = 30;
  /// Ops never generated (also not as helpers: a helper that is excluded
  /// makes the generator pick another op).
  std::set<std::string> excludedOps;
  /// Dtypes never generated (inputs, constants, casts; ops whose result
  /// would have them, like comparisons for bool, are skipped).
  std::set<DType> excludedDTypes;
};

struct GenSymbol {
  std::string name;
  int64_t min = 0, max = 0, multipleOf = 1;
};

struct GenInput {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::string> dims; ///< JSON: "3" or "\"S0\""
};

struct GenConstant {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> data;
};

struct GenNode {
  std::string name, op;
  std::vector<std::string> operands;
  /// (name, JSON text of the value)
  std::vector<std::pair<std::string, std::string>> attributes;
};

/// A generated program in a form the minimizer can edit; toJson() gives
/// the txc program.
struct GeneratedProgram {
  std::string name;
  uint64_t seed = 0;
  std::vector<GenSymbol> symbols;
  std::vector<GenInput> inputs;
  std::vector<GenConstant> constants;
  std::vector<GenNode> nodes;
  std::vector<std::string> outputs; ///< value references
  /// Non-empty when the verifier rejected a program the generator built
  /// (a generator bug): the diagnostics.
  std::string generatorError;

  std::string toJson() const;
  /// The op names of the nodes.
  std::vector<std::string> ops() const;
  /// Drops the constants not named in `names`.
  void keepConstants(const std::set<std::string> &names);
};

GeneratedProgram generateProgram(uint64_t seed,
                                 const GeneratorOptions &options = {});

/// Reads and verifies `json` and builds its contract, as `txc check` does;
/// null after reporting to `diags`.
std::unique_ptr<Program> verifyProgramText(const std::string &json,
                                           const std::string &displayName,
                                           DiagnosticEngine &diags);

/// The ops the generator can produce (for coverage tests and --help).
std::vector<std::string> generatableOps();

} // namespace txc

#endif
