//===- Contract.h - The artifact's contract and its guards ------*- C++ -*-===//
//
// The contract is computed once from a verified program and is the single
// source of truth for everything that describes a compiled artifact: the
// guard code in the object, the constants in the C header, the manifest, and
// `txc verify`. The guards are an ordered list; the object checks them in
// this order on every call and reports the first one that fails.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_ANALYSIS_CONTRACT_H
#define TXC_ANALYSIS_CONTRACT_H

#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/StatusCodes.h"

#include <optional>
#include <string>
#include <vector>

namespace txc {

enum class TensorSide : int32_t { None = 0, Input = 1, Output = 2 };

enum class GuardKind {
  InputCount,     ///< num_inputs == expected
  OutputCount,    ///< num_outputs == expected
  InputsArray,    ///< inputs != NULL
  OutputsArray,   ///< outputs != NULL
  DataPointer,    ///< tensor.data != NULL
  DType,          ///< tensor.dtype == expected
  Rank,           ///< tensor.rank == expected
  StaticDim,      ///< dims[d] == expected
  SymbolForm,     ///< dims[d] == coeff*S + rest has an integer solution S
                  ///< (only when |coeff| > 1)
  SymbolRange,    ///< S := (dims[d] - rest) / coeff; min <= S <= max.
                  ///< The first use of S in the inputs defines it here.
  SymbolMultiple, ///< S % multiple_of == 0
  SymbolValues,   ///< S is one of the symbol's declared `values`
  DimEquals,      ///< dims[d] == expr(symbols)
  BufferSize,     ///< size_bytes >= elements(shape) * dtype size
  NoAlias,        ///< output bytes overlap no input or earlier output
  IndexInRange,   ///< every index an indexing node (gather, scatter, ...)
                  ///< reads along one data dim is in [0, expr) (or
                  ///< [-expr, expr)). Data-dependent: checked by the kernel
                  ///< while it computes, after every other guard passed.
};

llvm::StringRef guardKindName(GuardKind kind);

/// Guards about tensor values rather than descriptors. The ABI checks them
/// in the kernel, so `<p>_output_shapes` and evaluateGuards skip them.
inline bool isDataDependent(GuardKind kind) {
  return kind == GuardKind::IndexInRange;
}

struct Guard {
  uint32_t id = 0; ///< position in Contract::guards
  GuardKind kind = GuardKind::InputCount;
  StatusCode code = StatusCode::OK;
  TensorSide side = TensorSide::None;
  int32_t tensor = -1; ///< index among inputs or outputs
  int32_t dim = -1;
  int32_t symbol = -1;
  /// InputCount/OutputCount/DType/Rank/StaticDim: the expected value.
  /// SymbolMultiple: the divisor. SymbolForm/SymbolRange: the coefficient of
  /// the symbol in the dim's expression.
  int64_t value = 0;
  /// SymbolForm/SymbolRange: the rest of the dim's expression (without
  /// coeff*S). DimEquals: the expected dim. BufferSize: the byte count.
  /// IndexInRange: the indexed dim (indices must be below it).
  ShapeExpr expr;
  /// SymbolValues: the values S may take, sorted.
  std::vector<int64_t> values;
  /// IndexInRange: the node whose indices the guard checks.
  std::string node;
  /// IndexInRange: whether index -k reads dim-k (valid range [-expr,
  /// expr-1]) rather than failing (valid range [0, expr-1]).
  bool wrapsNegative = false;
  /// IndexInRange of a gather_nd or scatter_nd: the entry of the index
  /// tuples it checks, indices[..., column]; -1 when it checks every index.
  int32_t column = -1;
  std::string expression; ///< human-readable, e.g. "X.shape[1] == 4"
  /// The failure message with placeholders {expected_min}, {expected_max},
  /// {actual} (decimal integers), {actual_dtype} (the dtype code in actual
  /// as dtypeCodeText shows it) and {other} (a tensor name), filled in from
  /// the status at run time.
  std::string message;
  Loc origin; ///< where in the program the assumption comes from
};

/// An IndexInRange guard's valid indices: [lowestValidIndex, expr-1], the
/// lowest being -expr when negative indices wrap, else 0.
ShapeExpr lowestValidIndex(const Guard &guard);
/// expr-1, the highest valid index of an IndexInRange guard.
ShapeExpr highestValidIndex(const Guard &guard);

struct ContractSymbol {
  std::string name;
  int64_t min = 0, max = 0, multipleOf = 1;
  Loc loc;
  /// The declared values, sorted; empty when the symbol declares none.
  std::vector<int64_t> values;
};

/// "{128, 256, 512}".
std::string valuesText(llvm::ArrayRef<int64_t> values);

struct ContractTensor {
  std::string name;
  TensorType type;
  Loc loc;
  /// For outputs: the value it returns.
  std::string value;
};

struct Contract;

/// A symbol bound to a constant.
struct SymbolBinding {
  uint32_t symbol = 0;
  int64_t value = 0;
  bool operator==(const SymbolBinding &o) const {
    return symbol == o.symbol && value == o.value;
  }
};

/// A variant of the artifact: code compiled with these symbols bound
/// (txc/Analysis/Specialization.h, docs/specialization.md).
struct ContractVariant {
  /// 1, 2, ... in declaration order (0 is the generic code, -1 no code).
  int32_t id = 0;
  /// Sorted by symbol id.
  std::vector<SymbolBinding> bindings;

  /// "B1_S128": the bound symbols and their values, for C identifiers.
  std::string name(const Contract &contract) const;
  /// "B=1,S=128".
  std::string text(const Contract &contract) const;
};

struct Contract {
  std::string programName;
  std::string entryPrefix; ///< C identifier prefix of the entry points
  std::vector<ContractSymbol> symbols;
  std::vector<ContractTensor> inputs;
  std::vector<ContractTensor> outputs;
  std::vector<Guard> guards;
  /// The specialized variants compiled into the artifact besides the
  /// generic code, by id (1, 2, ...); empty without --specialize.
  std::vector<ContractVariant> variants;

  std::vector<std::string> symbolNames() const;
  std::string runSymbol() const { return entryPrefix + "_run"; }
  std::string shapesSymbol() const { return entryPrefix + "_output_shapes"; }
  std::string messageSymbol() const { return entryPrefix + "_error_message"; }
  /// The bytes of the largest value an output can take (at the symbols'
  /// maximum values).
  int64_t maxOutputBytes(size_t output) const;
};

/// Computes the contract of a verified program. Reports (and returns
/// nullopt) when a symbol cannot be determined from the input shapes.
std::optional<Contract> buildContract(const Program &program,
                                      llvm::StringRef entryPrefix,
                                      DiagnosticEngine &diags);

//===----------------------------------------------------------------------===//
// Evaluating guards on the host (txc verify, tests). This is the reference
// semantics of the guard code in the object, which is generated from the
// same list in the same order.
//===----------------------------------------------------------------------===//

/// One tensor of a call as the guards see it. `data` only matters for the
/// null and alias checks; tests and `txc verify` use fake addresses.
struct CallTensor {
  uint64_t data = 1;
  int64_t sizeBytes = INT64_MAX;
  int32_t dtype = 0;
  std::vector<int64_t> dims; ///< rank = dims.size()
};

/// Mirrors txc_status in the generated header.
struct CallStatus {
  StatusCode code = StatusCode::OK;
  int32_t guard = -1;
  TensorSide side = TensorSide::None;
  int32_t tensor = -1;
  int32_t dim = -1;
  int32_t symbol = -1;
  int64_t expectedMin = 0;
  int64_t expectedMax = 0;
  int64_t actual = 0;
  /// The code that runs: 0 generic, a variant's id, -1 none (a guard
  /// failed).
  int32_t variant = -1;
};

struct CallResult {
  CallStatus status;
  std::vector<int64_t> symbolValues;   ///< when the input guards passed
  std::vector<std::vector<int64_t>> outputShapes;
};

/// Evaluates the guards in order. With `checkOutputs` false only the guards
/// about inputs are evaluated (the output-shapes entry point); null outputs
/// are then allowed. Data-dependent guards (isDataDependent) are skipped:
/// they need the tensors' values, which a call described by shapes does not
/// have, so a call that passes here may still fail with
/// TXC_E_INDEX_OUT_OF_RANGE.
CallResult evaluateGuards(const Contract &contract,
                          const std::vector<CallTensor> *inputs,
                          const std::vector<CallTensor> *outputs,
                          bool checkOutputs = true);

/// The message the object's error-message function produces for `status`.
std::string formatStatusMessage(const Contract &contract,
                                const CallStatus &status);

/// What the {actual_dtype} placeholder stands for: the dtype's name
/// ("f64"), or "dtype code N" for a code that is no dtype.
std::string dtypeCodeText(int64_t code);

/// The name the {other} placeholder stands for (NoAlias guards).
std::string aliasPartnerName(const Contract &contract,
                             const CallStatus &status);

/// Message of a status that names no guard (success, or an unknown guard id).
std::string genericStatusMessage(const CallStatus &status);

} // namespace txc

#endif
