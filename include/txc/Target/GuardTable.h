//===- GuardTable.h - The contract's guards as constant data ----*- C++ -*-===//
//
// The entry points check the contract's descriptor guards by interpreting
// constant tables in a loop rather than by code emitted per guard, so that
// the size of their LLVM IR (and LLVM's time on it) does not grow with the
// program; only the tables do. This header describes the tables; the
// interpreter is emitted by AbiEmitter.cpp and `evaluateGuardCode` is its
// host-side reference for the expressions.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_GUARDTABLE_H
#define TXC_TARGET_GUARDTABLE_H

#include "txc/Analysis/Contract.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace txc {

/// The instructions of a guard expression in postfix form: (op, operand)
/// pairs of int64 evaluated on a stack of 128-bit values; every division
/// is done on the low 64 bits, as the emitted expressions of IRExprOps do.
enum class GuardCodeOp : int64_t {
  Constant = 0, ///< push operand
  Symbol = 1,   ///< push symbols[operand]
  Add = 2,      ///< pop y, x; push x + y
  Mul = 3,      ///< pop y, x; push x * y
  ExactDiv = 4, ///< x / operand (operand > 0, no remainder)
  FloorDiv = 5, ///< floor(x / operand), operand > 0
  Mod = 6,      ///< x mod operand in [0, operand)
  End = 7,      ///< the value is the top of the stack
};

/// One descriptor guard. The layout of the emitted row struct
/// ({i32 x 8, i64}); fields as in Guard.
struct GuardRow {
  int32_t kind = 0;
  int32_t code = 0;
  int32_t side = 0;
  int32_t tensor = -1;
  int32_t dim = -1;
  int32_t symbol = -1;
  int32_t id = 0;
  int32_t expr = -1; ///< start of Guard::expr in GuardTable::code, or -1
  int64_t value = 0;
};

/// A piece of a guard's message: text from the string pool, or a status
/// field ({expected_min}, ...) formatted as `<p>_error_message` does.
enum class MessagePieceKind : int32_t {
  Text = 0,
  ExpectedMin = 1,
  ExpectedMax = 2,
  Actual = 3,
  ActualDType = 4, ///< the dtype's name, or "dtype code <actual>"
  Other = 5,       ///< the alias partner's name
  End = 6,
};

struct MessagePiece {
  MessagePieceKind kind = MessagePieceKind::End;
  int32_t text = 0; ///< Text: offset of a NUL-terminated string in the pool
};

struct GuardTable {
  /// The guards the descriptors decide (every one but the data-dependent
  /// ones), in the contract's order.
  std::vector<GuardRow> rows;
  /// The postfix code of every row's expression, each ending with End.
  std::vector<int64_t> code;
  /// The deepest stack any expression needs.
  unsigned stackDepth = 1;
  /// Some row divides a 128-bit value by a coefficient other than 1 or -1
  /// (a call of __divti3/__modti3 in the object).
  bool needsWideDivision = false;
  /// Per guard id (all guards): the first of its message's pieces.
  std::vector<int32_t> messages;
  std::vector<MessagePiece> pieces;
  /// The texts of the pieces, NUL-terminated, each once.
  std::string strings;
};

GuardTable buildGuardTable(const Contract &contract);

/// Evaluates the expression at `start` of `code` as the object does
/// (sums and products wrap at 128 bits, the value is the low 64 bits).
int64_t evaluateGuardCode(llvm::ArrayRef<int64_t> code, size_t start,
                          llvm::ArrayRef<int64_t> symbols);

} // namespace txc

#endif
