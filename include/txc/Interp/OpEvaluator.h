//===- OpEvaluator.h - How the interpreter runs one op ----------*- C++ -*-===//
//
// Each op kind has an evaluator: a function from an OpEvalContext (the node,
// its operand tensors, the symbol values) to the node's result tensors. The
// evaluators live in one file per op family (Elementwise.cpp,
// LinearAlgebra.cpp, Shape.cpp, ...), each with a register...Ops function
// that adds them to the table; OpEvaluatorTable::builtin() calls every
// family's function once. Adding an op to a family touches only that
// family's file; adding a family adds one declaration below and one call in
// OpEvaluator.cpp.
//
// Evaluators report three kinds of outcome:
//  - results, one Tensor per node result, of exactly the node's result
//    types (the interpreter checks);
//  - a runtime status (ctx.runtimeStatus), for data the compiled code also
//    rejects at run time, e.g. an index out of range. The interpreter stops
//    and returns that status like the object does; an evaluator must detect
//    the problem before touching memory it would not be allowed to read;
//  - an internal error (ctx.internalError), for a program the verifier
//    should have rejected: a bug, never a user error.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_OPEVALUATOR_H
#define TXC_INTERP_OPEVALUATOR_H

#include "txc/Analysis/Contract.h"
#include "txc/Interp/Tensor.h"
#include "txc/Program/Program.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <vector>

namespace txc {

/// A runtime status raised by an evaluator (or a nested region), carried as
/// an llvm::Error so that it unwinds through nested graphs to the top.
class RuntimeStatusError : public llvm::ErrorInfo<RuntimeStatusError> {
public:
  static char ID;
  RuntimeStatusError(CallStatus status, std::string detail)
      : status(status), detail(std::move(detail)) {}

  const CallStatus &getStatus() const { return status; }
  /// What the evaluator found, e.g. "index 7 of 'gather' node 'g' is
  /// outside [0, 5)"; for diagnostics, not part of the ABI message.
  const std::string &getDetail() const { return detail; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  CallStatus status;
  std::string detail;
};

/// Evaluates a node's nested graph (a region of `cond`/`while`), given the
/// graph's inputs; values of enclosing graphs stay visible inside.
class RegionRunner {
public:
  virtual ~RegionRunner() = default;
  virtual llvm::Expected<std::vector<Tensor>>
  runRegion(const Graph &region, std::vector<Tensor> arguments) = 0;
};

/// Everything an evaluator may look at.
class OpEvalContext {
public:
  OpEvalContext(const Program &program, const Node &node,
                std::vector<const Tensor *> operands,
                llvm::ArrayRef<int64_t> symbolValues, RegionRunner &regions)
      : program(program), node(node), operandTensors(std::move(operands)),
        symbols(symbolValues), regions(regions) {}

  const Program &getProgram() const { return program; }
  const Node &getNode() const { return node; }
  size_t numOperands() const { return operandTensors.size(); }
  const Tensor &operand(size_t i) const { return *operandTensors[i]; }
  llvm::ArrayRef<int64_t> symbolValues() const { return symbols; }
  /// The attribute as written in the program (the verifier checked its
  /// type), or null if absent.
  const AttrValue *attribute(llvm::StringRef name) const;

  DType resultDType(size_t i = 0) const { return node.resultTypes[i].dtype; }
  /// Result `i`'s shape with the symbols' values substituted.
  llvm::Expected<std::vector<int64_t>> resultShape(size_t i = 0) const;
  /// A zero-filled tensor of result `i`'s type.
  llvm::Expected<Tensor> makeResult(size_t i = 0) const;
  /// Evaluates a dimension expression (e.g. from an attribute).
  llvm::Expected<int64_t> evaluate(const ShapeExpr &dim) const;

  /// Runs the node's region `name` on `arguments`.
  llvm::Expected<std::vector<Tensor>>
  runRegion(llvm::StringRef name, std::vector<Tensor> arguments) const;

  /// A runtime status the compiled code also reports for this data.
  llvm::Error runtimeStatus(StatusCode code, const llvm::Twine &detail) const;
  /// A failure that means a bug (the program should not have verified).
  llvm::Error internalError(const llvm::Twine &message) const;

private:
  const Program &program;
  const Node &node;
  std::vector<const Tensor *> operandTensors;
  llvm::ArrayRef<int64_t> symbols;
  RegionRunner &regions;
};

using OpEvaluatorFn =
    std::function<llvm::Expected<std::vector<Tensor>>(const OpEvalContext &)>;

/// The evaluators of all ops, indexed by OpKind.
class OpEvaluatorTable {
public:
  /// Registers the evaluator of `kind`; registering a kind twice is a bug.
  void add(OpKind kind, OpEvaluatorFn evaluator);
  /// Null if the op has no evaluator.
  const OpEvaluatorFn *lookup(OpKind kind) const;

  /// The table with every family's evaluators, built once.
  static const OpEvaluatorTable &builtin();

private:
  std::vector<OpEvaluatorFn> evaluators;
};

/// The op families. Each adds its ops' evaluators to the table.
void registerElementwiseOps(OpEvaluatorTable &table);
void registerLinearAlgebraOps(OpEvaluatorTable &table);
void registerShapeOps(OpEvaluatorTable &table);

/// Helper for evaluators with one result.
inline llvm::Expected<std::vector<Tensor>> singleResult(Tensor tensor) {
  std::vector<Tensor> results;
  results.push_back(std::move(tensor));
  return results;
}

} // namespace txc

#endif
