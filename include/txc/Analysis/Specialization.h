//===- Specialization.h - Variants of a contract with bound symbols -*- C++ -*-===//
//
// A specialization binds some of a program's symbols to constants. Each one
// becomes a variant of the artifact, compiled with static shapes next to the
// generic code in the same object (docs/specialization.md). A variant's
// contract is the generic one with the bound symbols' ranges narrowed to
// their value: a call the generic guards accept takes the variant exactly
// when its symbols have the bound values, so that the dispatcher only
// compares symbols after the generic guards passed.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_ANALYSIS_SPECIALIZATION_H
#define TXC_ANALYSIS_SPECIALIZATION_H

#include "txc/Analysis/Contract.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace txc {

struct Program;

/// Parses the --specialize arguments against the generic contract. Each is
/// a comma-separated list of `SYM=VALUE` or `SYM in {V1,V2,...}`; a set
/// expands to one variant per value (several sets: one per combination).
/// Reports an unknown symbol, a value outside the symbol's range or not a
/// multiple of its multiple_of, a symbol bound twice and a variant given
/// twice as usage errors; nullopt after reporting.
std::optional<std::vector<ContractVariant>>
parseSpecializations(llvm::ArrayRef<std::string> texts,
                     const Contract &contract, DiagnosticEngine &diags);

/// The variants in the order the dispatcher tries them: most bound symbols
/// first, then declaration order. The first whose bindings all hold runs.
std::vector<const ContractVariant *>
dispatchOrder(llvm::ArrayRef<ContractVariant> variants);

/// The variant a call with these symbol values takes (its id), or 0 for
/// the generic code.
int32_t chooseVariant(llvm::ArrayRef<ContractVariant> variants,
                      llvm::ArrayRef<int64_t> symbolValues);

/// The contract of `variant`: the generic one with the bound symbols'
/// ranges narrowed to their values, their values in the tensors' types
/// (the kernel's signature), and `entryPrefix` for the names of its kernel
/// functions. The guards and symbol ids are the generic ones.
Contract bindVariant(const Contract &generic, const ContractVariant &variant,
                     llvm::StringRef entryPrefix);

/// The C prefix of the variant's internal functions: "<p>_v<id>".
std::string variantPrefix(const Contract &generic,
                          const ContractVariant &variant);

/// Binds the symbols of a verified program in place: the symbols' ranges
/// and every tensor type (inputs, node results, nested graphs, outputs), so
/// that the code generated from it sees static shapes.
void bindProgramSymbols(Program &program,
                        llvm::ArrayRef<SymbolBinding> bindings);

} // namespace txc

#endif
