//===- DispatchStats.h - The dispatch statistics block ----------*- C++ -*-===//
//
// An object with variants (docs/specialization.md) can count, in a block the
// caller owns and passes through txc_run_options.dispatch_stats, which code
// each call ran and, for every variant the dispatcher tried before the code
// it chose, the first of the variant's narrowed guards that sent the call
// elsewhere (the log of why reuse failed). The block's layout is per
// program: its size depends on the variants and on the guards they narrow.
// This one description drives the header's struct, the object's updates and
// its formatting function, so that the three cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_DISPATCHSTATS_H
#define TXC_TARGET_DISPATCHSTATS_H

#include "txc/Analysis/Contract.h"
#include "txc/Target/AbiEmitter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
class LLVMContext;
class StructType;
class Value;
} // namespace llvm

namespace txc {

/// One guard a variant narrows: its counter in the block.
struct DispatchStatsSlot {
  int32_t variant = 0;
  uint32_t guard = 0;  ///< the generic symbol_range guard
  uint32_t symbol = 0; ///< the symbol it defines
  int64_t value = 0;   ///< the value the variant requires
  std::string expression; ///< "B == 8", as the manifest's variants say
};

/// The block of one program: its fields' offsets are AbiLayout's kStats*;
/// what is per program (the codes and the slots, by variant id, then guard
/// id) is here.
struct DispatchStatsLayout {
  /// A hash of the program's entry prefix, its variants and the slots'
  /// guards, never 0: a block of another program (or of another compile of
  /// this one with other variants) does not match.
  uint32_t id = 0;
  /// 1 + the number of variants.
  unsigned numCodes = 1;
  std::vector<DispatchStatsSlot> slots;

  unsigned slotOffset(size_t slot) const {
    return AbiLayout::kStatsCalls + 8 * numCodes +
           AbiLayout::kStatsSlotSize * unsigned(slot);
  }
  unsigned size() const { return slotOffset(slots.size()); }
};

/// The layout of the contract's block (a contract without variants has
/// none: the header does not declare it and the object ignores the field).
DispatchStatsLayout dispatchStatsLayout(const Contract &contract);

/// "<p>_dispatch_stats", the block's C type.
inline std::string dispatchStatsType(const Contract &contract) {
  return contract.entryPrefix + "_dispatch_stats";
}
/// "<p>_format_dispatch_stats".
inline std::string formatDispatchStatsSymbol(const Contract &contract) {
  return contract.entryPrefix + "_format_dispatch_stats";
}

/// The header's part: the block's struct, its initializer macro
/// <P>_DISPATCH_STATS_INIT, the slot indices and the formatting function.
void emitDispatchStatsHeader(llvm::raw_ostream &os, const Contract &contract,
                             llvm::StringRef macro);

/// The internal function the run entry points call once they chose the
/// code, just before they run it: `void <p>.record_dispatch(ptr context,
/// i32 code, i64 symbols...)`. `context` is a per-call {ptr block, i32
/// dispatched} (NULL in the entry points without options, where the call
/// folds away); it sets `dispatched` and, with a block, counts the call.
llvm::Function *getOrEmitDispatchRecorder(llvm::Module &module,
                                          const Contract &contract);

/// The per-call dispatch context: {ptr block, i32 dispatched}.
llvm::StructType *dispatchContextType(llvm::LLVMContext &context);

/// Whether the non-null `block` is one of this layout's: its struct_size and
/// layout fields (the only bytes read before) match.
llvm::Value *isDispatchStatsBlock(llvm::IRBuilder<> &b,
                                  const DispatchStatsLayout &layout,
                                  llvm::Value *block);

/// `<p>_format_dispatch_stats`: the block as text, with snprintf's
/// semantics.
void emitFormatDispatchStats(llvm::Module &module, const Contract &contract);

} // namespace txc

#endif
