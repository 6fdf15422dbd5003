//===- Verifier.h - Is this program whole, typed and exportable? -*- C++ -*-===//
//
// The verifier checks a Program and annotates it:
//  - names are unique and every operand refers to a value in scope; nodes are
//    put in dependency order and cycles are reported;
//  - every op is registered; an op that cannot be exported (host side
//    effects, host reads, data-dependent shapes, unstructured branches,
//    unknown ops) is reported as not representable, node by node;
//  - operand counts, attributes, dtypes and symbolic shapes are checked and
//    every node's result types are inferred;
//  - every tensor's size stays within the limits over the symbols' ranges.
// All problems are reported; nothing is silently left out.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_ANALYSIS_VERIFIER_H
#define TXC_ANALYSIS_VERIFIER_H

#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

namespace txc {

/// Verifies and annotates `program` in place. Returns true when no error was
/// reported.
bool verifyProgram(Program &program, DiagnosticEngine &diags);

} // namespace txc

#endif
