//===- GuardInterpreter.h - The guard tables' code in LLVM IR ---*- C++ -*-===//
//
// Private to lib/Target (AbiEmitter.cpp uses it).
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_TARGET_GUARDINTERPRETER_H
#define TXC_LIB_TARGET_GUARDINTERPRETER_H

#include "txc/Target/GuardTable.h"

#include "llvm/IR/IRBuilder.h"

namespace txc {

/// Emits `<p>_run.guards(inputs, num_inputs, outputs, num_outputs, status,
/// symbols, check_outputs)` and the tables it reads: checks the rows of
/// `table` in order (those about outputs only if `check_outputs`), stores
/// the symbols it binds into `symbols` (an i64 per contract symbol), and
/// returns 0, or the code of the first failing guard after filling
/// `*status` (if not NULL). `cold` when it only runs after a failure.
llvm::Function *emitGuardInterpreter(llvm::Module &module,
                                     const Contract &contract,
                                     const GuardTable &table, bool cold);

/// Emits, at `b`, the return of the message of guard `guardId` (known to be
/// in range) as `snprintf(buffer, size, ...)` of the whole message would
/// print it. `fields` are the status's expected_min, expected_max and
/// actual; `otherName` and `dtypeName` compute the names of an alias
/// partner and of actual's dtype (NULL when it is none).
void emitGuardMessage(
    llvm::IRBuilder<> &b, const Contract &contract, const GuardTable &table,
    llvm::Value *guardId, llvm::Value *buffer, llvm::Value *size,
    llvm::ArrayRef<llvm::Value *> fields,
    llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &)> otherName,
    llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &)> dtypeName);

} // namespace txc

#endif
