//===- Interpreter.h - The reference interpreter ----------------*- C++ -*-===//
//
// Runs a verified program op by op on Tensors, independently of the MLIR
// lowering, so that its results can check the compiled code's. It behaves
// like the compiled object's `<p>_run` entry point:
//
//  1. the contract's guards are evaluated first, with evaluateGuards (the
//     reference semantics of the object's guard code), so a call the object
//     rejects is rejected here with the same status;
//  2. the symbols take the values the guards computed from the input shapes;
//  3. constants and nodes are evaluated in the verifier's topological order;
//     an op may stop the run with a runtime status (like the object would).
//
// The op semantics are documented in docs/testing.md and OpEvaluator.h.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_INTERPRETER_H
#define TXC_INTERP_INTERPRETER_H

#include "txc/Analysis/Contract.h"
#include "txc/Interp/OpEvaluator.h"
#include "txc/Interp/Tensor.h"
#include "txc/Program/Program.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace txc {

/// The outcome of one call, from the interpreter or from a compiled object.
struct ExecutionResult {
  /// OK, or the guard or runtime status that stopped the call.
  CallStatus status;
  /// The status's message as the object's error-message function formats
  /// it ("" when OK).
  std::string message;
  /// What the op that raised a runtime status found (interpreter only).
  std::string detail;
  /// The outputs in contract order (empty unless the status is OK).
  std::vector<Tensor> outputs;

  bool ok() const { return status.code == StatusCode::OK; }
};

/// The descriptor the guards see for a tensor (its real address and size).
CallTensor describeForGuards(const Tensor &tensor);

/// Runs `program` (verified, with its contract) on `inputs`, given in the
/// contract's order. Errors are internal problems (an op without an
/// evaluator, a program that did not verify), never statuses. Tests may pass
/// their own evaluator table.
llvm::Expected<ExecutionResult>
interpretProgram(const Program &program, const Contract &contract,
                 llvm::ArrayRef<Tensor> inputs,
                 const OpEvaluatorTable &table = OpEvaluatorTable::builtin());

/// A constant's value as a Tensor.
Tensor constantTensor(const ConstantDecl &constant);

} // namespace txc

#endif
