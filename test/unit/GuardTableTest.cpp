//===- GuardTableTest.cpp - The guards as constant tables -----------------===//
//
// The tables the entry points interpret (GuardTable.h): the postfix code of
// each expression computes what ShapeExpr::evaluate does, the stack depth
// is enough for it, and the message pieces give formatStatusMessage's text.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/GuardTable.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace txc;
using namespace txc::test;

namespace {

std::vector<std::string> names = {"B", "S", "M"};
std::vector<int64_t> multiples = {1, 1, 8};

ShapeExpr parse(llvm::StringRef text) {
  auto lookup = [](llvm::StringRef name) -> std::optional<SymbolRef> {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        return SymbolRef{uint32_t(i), multiples[i]};
    return std::nullopt;
  };
  std::string error;
  size_t offset = 0;
  auto expr = ShapeExpr::parse(text, lookup, error, offset);
  EXPECT_TRUE(expr.has_value()) << text.str() << ": " << error;
  return expr.value_or(ShapeExpr());
}

/// The deepest stack the code at `start` reaches.
unsigned depthOf(llvm::ArrayRef<int64_t> code, size_t start) {
  unsigned depth = 0, deepest = 0;
  for (size_t pc = start; GuardCodeOp(code[pc]) != GuardCodeOp::End; pc += 2)
    switch (GuardCodeOp(code[pc])) {
    case GuardCodeOp::Constant:
    case GuardCodeOp::Symbol:
      deepest = std::max(deepest, ++depth);
      break;
    case GuardCodeOp::Add:
    case GuardCodeOp::Mul:
      --depth;
      break;
    default:
      break;
    }
  return deepest;
}

TEST(GuardTable, CodeEvaluatesLikeShapeExpr) {
  const char *texts[] = {
      "B",     "7",    "B*B-1",          "(S+3)//4",   "S%3+2*B",    "4*M*B",
      "M/8+S", "-S+3", "((B*S-7)//3)%5", "B*S*M+M//3", "(S-9)//4*B", "0"};
  Contract contract;
  for (const char *text : texts) {
    Guard g;
    g.id = uint32_t(contract.guards.size());
    g.kind = GuardKind::DimEquals;
    g.expr = parse(text);
    contract.guards.push_back(g);
  }
  GuardTable table = buildGuardTable(contract);
  ASSERT_EQ(table.rows.size(), contract.guards.size());
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const GuardRow &row = table.rows[i];
    ASSERT_GE(row.expr, 0);
    EXPECT_LE(depthOf(table.code, row.expr), table.stackDepth) << texts[i];
    for (int64_t b : {0, 1, 2, 7, 1000})
      for (int64_t s : {0, 1, 5, 12, 4096})
        for (int64_t m : {0, 8, 64}) {
          std::vector<int64_t> values = {b, s, m};
          std::optional<int64_t> expected =
              contract.guards[i].expr.evaluate(values);
          ASSERT_TRUE(expected) << texts[i];
          EXPECT_EQ(evaluateGuardCode(table.code, row.expr, values), *expected)
              << texts[i] << " at B=" << b << " S=" << s << " M=" << m;
        }
  }
}

/// The message as <p>_error_message assembles it from the pieces.
std::string fromPieces(const GuardTable &table, const Contract &contract,
                       const CallStatus &status) {
  std::string text;
  for (size_t p = table.messages[status.guard];; ++p) {
    const MessagePiece &piece = table.pieces[p];
    switch (piece.kind) {
    case MessagePieceKind::Text:
      text += table.strings.c_str() + piece.text;
      break;
    case MessagePieceKind::ExpectedMin:
      text += std::to_string(status.expectedMin);
      break;
    case MessagePieceKind::ExpectedMax:
      text += std::to_string(status.expectedMax);
      break;
    case MessagePieceKind::Actual:
      text += std::to_string(status.actual);
      break;
    case MessagePieceKind::ActualDType:
      text += dtypeCodeText(status.actual);
      break;
    case MessagePieceKind::Other:
      text += aliasPartnerName(contract, status);
      break;
    case MessagePieceKind::End:
      return text;
    }
  }
}

TEST(GuardTable, MessagePiecesGiveTheStatusMessage) {
  auto loaded = verify(R"({
    "format": "txc.program", "version": 1, "name": "p",
    "symbols": [{"name": "B", "min": 1, "max": 64},
                {"name": "S", "min": 0, "max": 9, "multiple_of": 3}],
    "inputs": [{"name": "X", "dtype": "f32", "shape": ["B", "2*S+1"]},
               {"name": "Y", "dtype": "i32", "shape": ["S"]}],
    "nodes": [{"name": "r", "op": "relu", "operands": ["X"]}],
    "outputs": [{"name": "R", "value": "r"}, {"name": "Z", "value": "r"}]})");
  ASSERT_TRUE(loaded->verified);
  auto contract = buildContract(*loaded->program, "p", loaded->diags);
  ASSERT_TRUE(contract);
  GuardTable table = buildGuardTable(*contract);
  ASSERT_EQ(table.messages.size(), contract->guards.size());
  std::set<MessagePieceKind> kinds;
  for (const MessagePiece &piece : table.pieces)
    kinds.insert(piece.kind);
  EXPECT_EQ(kinds.size(), 7u) << "every kind of piece is tried";
  for (const Guard &g : contract->guards)
    for (int64_t actual : {int64_t(-1), int64_t(2), int64_t(11)}) {
      CallStatus status;
      status.code = g.code;
      status.guard = int32_t(g.id);
      status.side = g.side;
      status.tensor = g.tensor;
      status.expectedMin = g.kind == GuardKind::NoAlias ? 1 : 17;
      status.expectedMax = g.kind == GuardKind::NoAlias ? 0 : 23;
      status.actual = actual;
      EXPECT_EQ(fromPieces(table, *contract, status),
                formatStatusMessage(*contract, status))
          << g.expression;
    }
  // Each text once in the pool.
  EXPECT_EQ(table.strings.find(" [guard 0: "),
            table.strings.rfind(" [guard 0: "));
}

// The fast path's alias test (AbiEmitter.cpp, mayOverlap), a - b + (m - 1)
// <u m + n - 1, against the guard's, a <u b + n && b <u a + m, in a model
// of the address space small enough to try every case: 7-bit addresses
// and sizes up to a quarter of it (the verifier bounds sizes by 2^48 of
// 2^64). The fast path must say "overlap" whenever the guard does, and
// exactly when it does unless a range wraps past the top.
TEST(AliasFastPath, IsASupersetOfTheGuardAndExactWithoutWrapping) {
  constexpr unsigned kSpace = 128;
  unsigned missed = 0, extraWithoutWrap = 0, extra = 0;
  for (unsigned m = 1; m <= kSpace / 4; ++m)
    for (unsigned n = 1; n <= kSpace / 4; ++n)
      for (unsigned a = 0; a < kSpace; ++a)
        for (unsigned b = 0; b < kSpace; ++b) {
          bool guard = a < (b + n) % kSpace && b < (a + m) % kSpace;
          bool fast = (a + kSpace - b + m - 1) % kSpace < m + n - 1;
          missed += guard && !fast;
          extra += fast && !guard;
          extraWithoutWrap +=
              fast && !guard && a + m < kSpace && b + n < kSpace;
        }
  EXPECT_EQ(missed, 0u);
  EXPECT_EQ(extraWithoutWrap, 0u);
  EXPECT_GT(extra, 0u); // the wrapping cases the slow path decides
}

} // namespace
