//===- Calls.h - Shape-only calls of an artifact and their outcome -*- C++
//-*-===//
//
// A *call* here is what `txc verify` and `txc testgen` reason about: the
// dtype and dims of every input of one call of `<p>_run`, without data. The
// outcome of a call is what the object would return for it, computed by
// evaluateGuards on the artifact's contract under these assumptions about
// what a shape-only call does not say (docs/cli.md, "txc verify"):
//
//  * the call passes exactly the program's inputs, in order, and all of its
//    outputs; the descriptor arrays are not NULL;
//  * every data pointer is non-NULL;
//  * every buffer is exactly as large as its tensor needs;
//  * no two buffers overlap.
//
// So the data_pointer, buffer_size and no_alias guards always pass, and a
// call fails exactly when the object would fail it on such buffers.
//
// The calls file (`txc testgen` writes it, `txc verify --shapes-file` reads
// it) and the per-call results are JSON; the same functions print the
// results of `txc verify` and of the object runner of the tests
// (txc-callcheck), so that the two can be compared byte for byte.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_CALLS_H
#define TXC_TOOLS_CALLS_H

#include "txc/Analysis/Contract.h"
#include "txc/Support/Diagnostics.h"

#include <optional>
#include <string>
#include <vector>

namespace txc {

struct Manifest;

/// One input of a call as the caller describes it.
struct CallInput {
  int32_t dtype = 0; ///< ABI dtype code; any int32 (invalid codes fail)
  std::vector<int64_t> dims;
};

/// What a call is expected to do (from `txc testgen`).
struct ExpectedOutcome {
  bool pass = true;
  StatusCode code = StatusCode::OK;
  int32_t guard = -1;
  std::string message; ///< "" when not given
};

struct CallSpec {
  std::string name;              ///< a label ("B=max+1"), may be empty
  std::vector<CallInput> inputs; ///< in the contract's order
  std::optional<ExpectedOutcome> expect;
  Loc loc; ///< in the calls file, when read from one
};

/// What a call returns: the status, its message, and the output shapes
/// when it passes.
struct CallOutcome {
  CallStatus status;
  std::string message; ///< "" on success
  std::vector<std::vector<int64_t>> outputShapes;

  bool pass() const { return status.code == StatusCode::OK; }
};

/// The outcome of `call` under the shape-only assumptions above.
CallOutcome evaluateCall(const Contract &contract, const CallSpec &call);

/// The descriptors evaluateCall gives evaluateGuards: the call's dtypes and
/// dims, distinct non-NULL addresses 2^49 bytes apart, and sizes no guard
/// can reject.
std::vector<CallTensor> shapeOnlyInputs(const Contract &contract,
                                        const CallSpec &call);
std::vector<CallTensor> shapeOnlyOutputs(const Contract &contract);

/// Whether `outcome` is what `expect` says: it passes, or fails at the
/// same guard with the same code. The message is text for people: one
/// that differs is reported (expectedMessageDiffers), not a mismatch.
bool matchesExpectation(const ExpectedOutcome &expect,
                        const CallOutcome &outcome);

/// Whether `expect` gives a message and the failing `outcome` has another.
bool expectedMessageDiffers(const ExpectedOutcome &expect,
                            const CallOutcome &outcome);

/// Parses `--shape NAME=[DTYPE:]DIMS` (DIMS: `8x4`, `7`, or `[]`/empty for a
/// rank-0 tensor; DTYPE: a dtype name or an integer code). Reports usage
/// errors and returns false.
bool parseShapeOption(llvm::StringRef text, std::string &name,
                      std::optional<int32_t> &dtype, std::vector<int64_t> &dims,
                      std::string &error);

/// Builds one call from `--shape` options: every input named once; a
/// missing dtype is the input's declared dtype. Reports usage errors.
std::optional<CallSpec> callFromShapeOptions(const Contract &contract,
                                             llvm::ArrayRef<std::string> specs,
                                             DiagnosticEngine &diags);

/// Reads a calls file (docs/cli.md, "Calls files"). Reports I/O errors and
/// invalid contents (with locations) and returns nullopt.
std::optional<std::vector<CallSpec>> readCallsFile(llvm::StringRef path,
                                                   const Contract &contract,
                                                   DiagnosticEngine &diags);

/// The calls file for `calls` (as `txc testgen` writes it), with their
/// expectations.
std::string writeCallsFile(const Manifest &manifest,
                           const std::vector<CallSpec> &calls);

/// The expected outcome that describes `outcome`.
ExpectedOutcome expectationOf(const CallOutcome &outcome);

//===----------------------------------------------------------------------===//
// Generating calls (txc testgen)
//===----------------------------------------------------------------------===//

/// The boundary calls of a contract, each with its expected outcome: a call
/// with every symbol at its smallest valid value; for each symbol computed
/// from the inputs its min, max, min-1, max+1, the largest multiple of
/// multiple_of, a value that is not a multiple, a dimension that is not of
/// the form a*S+b, and each further use of the symbol with a different
/// value than the others (inconsistent across tensors); for each input a
/// wrong dtype, rank+1, rank-1 and each static dim + 1.
std::vector<CallSpec> boundaryCalls(const Contract &contract);

/// `count` random calls (mostly near the symbols' ranges, some with a
/// perturbed dim, dtype or rank), reproducible from `seed`.
std::vector<CallSpec> randomCalls(const Contract &contract, unsigned count,
                                  uint64_t seed);

//===----------------------------------------------------------------------===//
// Reporting outcomes (txc verify and txc-callcheck share these)
//===----------------------------------------------------------------------===//

struct CallReport {
  const CallSpec *call;
  CallOutcome outcome;
  /// Set when the expectation was checked.
  std::optional<bool> asExpected;
};

/// `{"program": ..., "calls": [...], "summary": {...}}` (docs/cli.md).
std::string callReportsToJson(const Manifest &manifest,
                              const std::vector<CallReport> &reports);
/// One line per call and a summary line.
std::string callReportsToText(const Manifest &manifest,
                              const std::vector<CallReport> &reports);
/// "call 3 (B=max+1)" or "call 0 (X=f32[8,4], W=f32[4,3])".
std::string describeCall(const Contract &contract, size_t index,
                         const CallSpec &call);

/// "f32[8,4]", or "dtype 99[8]" for an unknown code.
std::string describeCallTensor(int32_t dtype, llvm::ArrayRef<int64_t> dims);

} // namespace txc

#endif
