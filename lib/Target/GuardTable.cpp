//===- GuardTable.cpp - The contract's guards as constant data ------------===//
#include "txc/Target/GuardTable.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace txc;

namespace {
/// ShapeExpr::fold into postfix code. fold visits operands before their
/// operation, so appending as it goes gives postfix order. A value is the
/// stack depth once it is pushed.
struct CodeOps {
  std::vector<int64_t> &code;
  unsigned depth = 0, maxDepth = 0;

  unsigned emit(GuardCodeOp op, int64_t operand) {
    code.push_back(int64_t(op));
    code.push_back(operand);
    if (op == GuardCodeOp::Constant || op == GuardCodeOp::Symbol)
      maxDepth = std::max(maxDepth, ++depth);
    else if (op == GuardCodeOp::Add || op == GuardCodeOp::Mul)
      --depth;
    return depth;
  }
  unsigned constant(int64_t value) {
    return emit(GuardCodeOp::Constant, value);
  }
  unsigned symbol(uint32_t id) { return emit(GuardCodeOp::Symbol, id); }
  unsigned add(unsigned, unsigned) { return emit(GuardCodeOp::Add, 0); }
  unsigned mul(unsigned, unsigned) { return emit(GuardCodeOp::Mul, 0); }
  unsigned exactDiv(unsigned, int64_t d) {
    return emit(GuardCodeOp::ExactDiv, d);
  }
  unsigned floorDiv(unsigned, int64_t d) {
    return emit(GuardCodeOp::FloorDiv, d);
  }
  unsigned mod(unsigned, int64_t d) { return emit(GuardCodeOp::Mod, d); }
};

bool hasExpression(GuardKind kind) {
  return kind == GuardKind::SymbolForm || kind == GuardKind::SymbolRange ||
         kind == GuardKind::DimEquals || kind == GuardKind::BufferSize;
}

/// The pieces of one guard's message: its template and the
/// " [guard <id>: <expression>]" after it, split at the placeholders.
class MessageSplitter {
public:
  explicit MessageSplitter(GuardTable &table) : table(table) {}

  void add(const Guard &guard) {
    table.messages.push_back(int32_t(table.pieces.size()));
    std::string text = guard.message + " [guard " + std::to_string(guard.id) +
                       ": " + guard.expression + "]";
    llvm::StringRef rest = text;
    while (!rest.empty()) {
      size_t open = rest.find('{');
      size_t close = open == llvm::StringRef::npos ? llvm::StringRef::npos
                                                   : rest.find('}', open);
      if (close == llvm::StringRef::npos) {
        addText(rest);
        break;
      }
      addText(rest.substr(0, open));
      addField(rest.slice(open + 1, close));
      rest = rest.substr(close + 1);
    }
    table.pieces.push_back({MessagePieceKind::End, 0});
  }

private:
  void addText(llvm::StringRef text) {
    if (text.empty())
      return;
    auto [it, inserted] = offsets.try_emplace(text, table.strings.size());
    if (inserted) {
      table.strings += text.str();
      table.strings += '\0';
    }
    table.pieces.push_back({MessagePieceKind::Text, int32_t(it->second)});
  }
  /// Unknown placeholders print nothing, as formatStatusMessage's.
  void addField(llvm::StringRef field) {
    MessagePieceKind kind =
        llvm::StringSwitch<MessagePieceKind>(field)
            .Case("expected_min", MessagePieceKind::ExpectedMin)
            .Case("expected_max", MessagePieceKind::ExpectedMax)
            .Case("actual", MessagePieceKind::Actual)
            .Case("actual_dtype", MessagePieceKind::ActualDType)
            .Case("other", MessagePieceKind::Other)
            .Default(MessagePieceKind::End);
    if (kind != MessagePieceKind::End)
      table.pieces.push_back({kind, 0});
  }

  GuardTable &table;
  llvm::StringMap<size_t> offsets;
};
} // namespace

GuardTable txc::buildGuardTable(const Contract &contract) {
  GuardTable table;
  CodeOps ops{table.code};
  MessageSplitter messages(table);
  for (const Guard &g : contract.guards) {
    messages.add(g);
    if (isDataDependent(g.kind))
      continue;
    GuardRow row;
    row.kind = int32_t(g.kind);
    row.code = int32_t(g.code);
    row.side = int32_t(g.side);
    row.tensor = g.tensor;
    row.dim = g.dim;
    row.symbol = g.symbol;
    row.id = int32_t(g.id);
    row.value = g.value;
    if (hasExpression(g.kind)) {
      row.expr = int32_t(table.code.size());
      g.expr.fold(ops);
      ops.emit(GuardCodeOp::End, 0);
      ops.depth = 0;
    }
    if ((g.kind == GuardKind::SymbolForm || g.kind == GuardKind::SymbolRange) &&
        g.value != 1 && g.value != -1)
      table.needsWideDivision = true;
    table.rows.push_back(row);
  }
  table.stackDepth = std::max(1u, ops.maxDepth);
  return table;
}

int64_t txc::evaluateGuardCode(llvm::ArrayRef<int64_t> code, size_t start,
                               llvm::ArrayRef<int64_t> symbols) {
  using Wide = __int128;
  // Sums and products wrap: computed on the unsigned type.
  using UWide = unsigned __int128;
  std::vector<Wide> stack;
  auto low = [](Wide x) { return int64_t(uint64_t(UWide(x))); };
  for (size_t pc = start;; pc += 2) {
    auto op = GuardCodeOp(code[pc]);
    int64_t operand = code[pc + 1];
    switch (op) {
    case GuardCodeOp::Constant:
      stack.push_back(operand);
      continue;
    case GuardCodeOp::Symbol:
      stack.push_back(symbols[operand]);
      continue;
    case GuardCodeOp::Add:
    case GuardCodeOp::Mul: {
      Wide y = stack.back();
      stack.pop_back();
      Wide &x = stack.back();
      x = Wide(op == GuardCodeOp::Add ? UWide(x) + UWide(y)
                                      : UWide(x) * UWide(y));
      continue;
    }
    case GuardCodeOp::ExactDiv:
      stack.back() = low(stack.back()) / operand;
      continue;
    case GuardCodeOp::FloorDiv:
      stack.back() = floorDivide(low(stack.back()), operand);
      continue;
    case GuardCodeOp::Mod:
      stack.back() = floorModulo(low(stack.back()), operand);
      continue;
    case GuardCodeOp::End:
      return low(stack.back());
    }
  }
}
