//===- StatusCodes.h - The status codes of compiled objects -----*- C++ -*-===//
//
// The codes txc_status.code takes, from StatusCodes.def: what the header,
// the manifest, the object's messages, the host-side evaluation of the
// contract and docs/abi.md say about them.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_SUPPORT_STATUSCODES_H
#define TXC_SUPPORT_STATUSCODES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace txc {

/// Status codes returned by the compiled entry points (TXC_* in the header).
/// The values are ABI and never change.
enum class StatusCode : int32_t {
#define TXC_STATUS_CODE(Enum, Value, Macro, Name, Meaning, Scope) Enum = Value,
#include "txc/Support/StatusCodes.def"
};

/// The artifacts in which a status code exists.
enum class StatusCodeScope {
  Guards,          ///< every artifact: success and the failures of guards
  ExternalWeights, ///< objects compiled with `--weights external`
  Workspace,       ///< the run entry points' workspace check
};

struct StatusCodeInfo {
  StatusCode code;
  llvm::StringLiteral macro;   ///< "TXC_E_RANK"
  llvm::StringLiteral name;    ///< "rank"
  llvm::StringLiteral meaning; ///< "a tensor has the wrong rank"
  StatusCodeScope scope;
};

/// Every status code, in increasing order of value.
inline constexpr StatusCodeInfo kStatusCodes[] = {
#define TXC_STATUS_CODE(Enum, Value, Macro, Name, Meaning, Scope)              \
  {StatusCode::Enum, Macro, Name, Meaning, StatusCodeScope::Scope},
#include "txc/Support/StatusCodes.def"
};

/// Whether an object can return `code`: one compiled with external weights
/// or not, whose program needs a workspace or not (an object that needs
/// none accepts any workspace).
bool canReturn(const StatusCodeInfo &code, bool externalWeights,
               bool needsWorkspace);

/// The entry of `code`; null for a value that is not a status code (an
/// object's return value is only an int32_t).
const StatusCodeInfo *findStatusCode(StatusCode code);

/// "TXC_E_RANK" etc.; "unknown" for a value that is not a status code.
llvm::StringRef statusCodeMacro(StatusCode code);
/// "rank" etc.; "unknown" for a value that is not a status code.
llvm::StringRef statusCodeName(StatusCode code);
/// "a tensor has the wrong rank" etc.; "unknown status code" for a value
/// that is not a status code (the object's message says the same).
llvm::StringRef statusCodeDescription(StatusCode code);

} // namespace txc

#endif
