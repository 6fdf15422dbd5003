//===- Minimizer.h - Shrinking a failing generated program ------*- C++ -*-===//
//
// Greedy test-case reduction for txc-fuzz: while `stillFails` holds, drops
// outputs, deletes nodes (rewiring their uses to an operand of the same
// type, or returning an operand instead when only outputs use the node),
// removes dead nodes and unused inputs and constants, and shrinks symbol
// ranges (to one value, or half the range). Every candidate must verify;
// the predicate is only called on programs that do.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TESTING_MINIMIZER_H
#define TXC_TESTING_MINIMIZER_H

#include "txc/Testing/ProgramGenerator.h"

#include <functional>

namespace txc {

using FailurePredicate = std::function<bool(const GeneratedProgram &)>;

/// The smallest program found; `tests` counts predicate calls (at most
/// `maxTests`).
GeneratedProgram minimizeProgram(GeneratedProgram program,
                                 const FailurePredicate &stillFails,
                                 unsigned maxTests, unsigned &tests);

} // namespace txc

#endif
