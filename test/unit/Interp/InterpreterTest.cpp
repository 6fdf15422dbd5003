//===- InterpreterTest.cpp - Results of each op, computed by hand ---------===//
#include "txc/Interp/Interpreter.h"

#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Support/SourceFile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace txc;

namespace {

/// A program read from JSON text, verified, with its contract.
struct Checked {
  std::unique_ptr<Program> program;
  Contract contract;
};

Checked check(const std::string &json) {
  DiagnosticEngine diags;
  SourceFile file("test.json", json);
  Checked result;
  result.program = readProgram(file, diags);
  if (result.program && verifyProgram(*result.program, diags))
    if (auto contract = buildContract(*result.program, "", diags))
      result.contract = std::move(*contract);
  std::string text;
  llvm::raw_string_ostream os(text);
  diags.printText(os);
  EXPECT_FALSE(diags.hasErrors()) << text;
  return result;
}

/// A program with the given inputs, one node and its result as output Y.
std::string oneNode(const std::string &inputs, const std::string &node,
                    const std::string &symbols = "") {
  return R"({"format": "txc.program", "version": 1, "name": "t",)" +
         (symbols.empty() ? "" : R"("symbols": [)" + symbols + "],") +
         R"("inputs": [)" + inputs + R"(], "nodes": [)" + node +
         R"(], "outputs": [{"name": "Y", "value": "n"}]})";
}

Tensor make(DType dtype, std::vector<int64_t> shape,
            std::vector<double> values) {
  Tensor t(dtype, std::move(shape));
  EXPECT_EQ(size_t(t.numElements()), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    t.setDouble(int64_t(i), values[i]);
  return t;
}

Tensor makeInt(DType dtype, std::vector<int64_t> shape,
               std::vector<int64_t> values) {
  Tensor t(dtype, std::move(shape));
  EXPECT_EQ(size_t(t.numElements()), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    t.setInt64(int64_t(i), values[i]);
  return t;
}

ExecutionResult run(const Checked &checked, std::vector<Tensor> inputs) {
  auto result = interpretProgram(*checked.program, checked.contract, inputs);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

/// Runs and returns output 0, which must exist.
Tensor runOne(const Checked &checked, std::vector<Tensor> inputs) {
  ExecutionResult result = run(checked, std::move(inputs));
  EXPECT_TRUE(result.ok()) << result.message;
  if (result.outputs.empty())
    return Tensor();
  return result.outputs[0];
}

std::vector<double> values(const Tensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}
std::vector<int64_t> ints(const Tensor &t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.push_back(t.getInt64(i));
  return out;
}

std::string binary(const std::string &op, const std::string &dtype,
                   const std::string &shapeA, const std::string &shapeB) {
  return oneNode(R"({"name": "A", "dtype": ")" + dtype + R"(", "shape": )" +
                     shapeA + R"(}, {"name": "B", "dtype": ")" + dtype +
                     R"(", "shape": )" + shapeB + "}",
                 R"({"name": "n", "op": ")" + op +
                     R"(", "operands": ["A", "B"]})");
}

std::string unary(const std::string &op, const std::string &dtype,
                  const std::string &shape) {
  return oneNode(R"({"name": "A", "dtype": ")" + dtype + R"(", "shape": )" +
                     shape + "}",
                 R"({"name": "n", "op": ")" + op + R"(", "operands": ["A"]})");
}

TEST(Interpreter, AddBroadcastsLikeNumpy) {
  Checked p = check(binary("add", "f32", "[2, 3]", "[3]"));
  Tensor y = runOne(p, {make(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                        make(DType::F32, {3}, {10, 20, 30})});
  EXPECT_EQ(y.typeString(), "f32[2,3]");
  EXPECT_EQ(values(y), (std::vector<double>{11, 22, 33, 14, 25, 36}));

  // Both operands stretch: [2,1] + [1,3] -> [2,3].
  Checked q = check(binary("sub", "i32", "[2, 1]", "[1, 3]"));
  Tensor z = runOne(q, {makeInt(DType::I32, {2, 1}, {100, 200}),
                        makeInt(DType::I32, {1, 3}, {1, 2, 3})});
  EXPECT_EQ(z.typeString(), "i32[2,3]");
  EXPECT_EQ(ints(z), (std::vector<int64_t>{99, 98, 97, 199, 198, 197}));
}

TEST(Interpreter, RankZeroOperandsBroadcast) {
  Checked p = check(binary("mul", "f64", "[2]", "[]"));
  Tensor y =
      runOne(p, {make(DType::F64, {2}, {1.5, -2}), make(DType::F64, {}, {4})});
  EXPECT_EQ(values(y), (std::vector<double>{6, -8}));
}

TEST(Interpreter, SymbolicShapesTakeTheInputsSizes) {
  Checked p = check(oneNode(
      R"({"name": "A", "dtype": "i64", "shape": ["B", 2]},
         {"name": "C", "dtype": "i64", "shape": [1, 2]})",
      R"({"name": "n", "op": "add", "operands": ["A", "C"]})",
      R"({"name": "B", "min": 0, "max": 10})"));
  Tensor y = runOne(p, {makeInt(DType::I64, {3, 2}, {1, 2, 3, 4, 5, 6}),
                        makeInt(DType::I64, {1, 2}, {10, 100})});
  EXPECT_EQ(y.typeString(), "i64[3,2]");
  EXPECT_EQ(ints(y), (std::vector<int64_t>{11, 102, 13, 104, 15, 106}));
  // B = 0: an empty result.
  Tensor empty = runOne(
      p, {Tensor(DType::I64, {0, 2}), makeInt(DType::I64, {1, 2}, {10, 100})});
  EXPECT_EQ(empty.typeString(), "i64[0,2]");
}

TEST(Interpreter, IntegerArithmeticWraps) {
  Checked add = check(binary("add", "i8", "[3]", "[3]"));
  EXPECT_EQ(ints(runOne(add, {makeInt(DType::I8, {3}, {127, -128, 100}),
                              makeInt(DType::I8, {3}, {1, -1, 100})})),
            (std::vector<int64_t>{-128, 127, -56}));
  Checked mul = check(binary("mul", "i32", "[2]", "[2]"));
  EXPECT_EQ(
      ints(runOne(mul, {makeInt(DType::I32, {2}, {65536, -2147483647 - 1}),
                        makeInt(DType::I32, {2}, {65536, -1})})),
      (std::vector<int64_t>{0, -2147483647 - 1}));
  Checked sub = check(binary("sub", "u8", "[2]", "[2]"));
  EXPECT_EQ(ints(runOne(sub, {makeInt(DType::U8, {2}, {0, 5}),
                              makeInt(DType::U8, {2}, {1, 3})})),
            (std::vector<int64_t>{255, 2}));
  Checked mul64 = check(binary("mul", "i64", "[1]", "[1]"));
  EXPECT_EQ(ints(runOne(mul64, {makeInt(DType::I64, {1}, {INT64_MAX}),
                                makeInt(DType::I64, {1}, {2})})),
            (std::vector<int64_t>{-2}));
}

TEST(Interpreter, IntegerDivisionTruncatesAndNeverTraps) {
  const int64_t min32 = std::numeric_limits<int32_t>::min();
  Checked i32 = check(binary("div", "i32", "[6]", "[6]"));
  EXPECT_EQ(
      ints(runOne(i32, {makeInt(DType::I32, {6}, {7, -7, 7, -7, 5, min32}),
                        makeInt(DType::I32, {6}, {2, 2, -2, -2, 0, -1})})),
      (std::vector<int64_t>{3, -3, -3, 3, 0, min32}));
  Checked i8 = check(binary("div", "i8", "[3]", "[3]"));
  EXPECT_EQ(ints(runOne(i8, {makeInt(DType::I8, {3}, {-128, -128, 0}),
                             makeInt(DType::I8, {3}, {-1, 0, 0})})),
            (std::vector<int64_t>{-128, 0, 0}));
  Checked i64 = check(binary("div", "i64", "[1]", "[1]"));
  EXPECT_EQ(ints(runOne(i64, {makeInt(DType::I64, {1}, {INT64_MIN}),
                              makeInt(DType::I64, {1}, {-1})})),
            (std::vector<int64_t>{INT64_MIN}));
  // u8 is unsigned: 200 is not -56.
  Checked u8 = check(binary("div", "u8", "[3]", "[3]"));
  EXPECT_EQ(ints(runOne(u8, {makeInt(DType::U8, {3}, {200, 255, 9}),
                             makeInt(DType::U8, {3}, {3, 0, 255})})),
            (std::vector<int64_t>{66, 0, 0}));
}

TEST(Interpreter, WideUnsignedDTypesAreUnsigned) {
  // 2^31 and 2^32 - 1 are negative to a signed op of the same width.
  const int64_t top32 = int64_t(1) << 31, max32 = 4294967295;
  auto u32 = [&](const char *op) {
    return runOne(check(binary(op, "u32", "[3]", "[3]")),
                  {makeInt(DType::U32, {3}, {max32, top32, 7}),
                   makeInt(DType::U32, {3}, {2, 3, max32})});
  };
  EXPECT_EQ(ints(u32("div")), (std::vector<int64_t>{2147483647, 715827882, 0}));
  EXPECT_EQ(ints(u32("mod")), (std::vector<int64_t>{1, 2, 7}));
  EXPECT_EQ(ints(u32("lt")), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(ints(u32("maximum")), (std::vector<int64_t>{max32, top32, max32}));
  // u64: INT64_MIN's bits are 2^63, above 1.
  Checked gt = check(binary("gt", "u64", "[2]", "[2]"));
  EXPECT_EQ(ints(runOne(gt, {makeInt(DType::U64, {2}, {INT64_MIN, -1}),
                             makeInt(DType::U64, {2}, {1, INT64_MIN})})),
            (std::vector<int64_t>{1, 1}));
  Checked sum = check(oneNode(
      R"({"name": "A", "dtype": "u16", "shape": [3]})",
      R"({"name": "n", "op": "min", "operands": ["A"], "attributes": {"axes": [0]}})"));
  EXPECT_EQ(
      ints(runOne(sum, {makeInt(DType::U16, {3}, {65535, 32768, 40000})})),
      (std::vector<int64_t>{32768}));
}

TEST(Interpreter, ShiftsGiveZeroPastTheWidth) {
  Checked left = check(binary("shift_left", "u8", "[4]", "[4]"));
  EXPECT_EQ(ints(runOne(left, {makeInt(DType::U8, {4}, {1, 255, 3, 1}),
                               makeInt(DType::U8, {4}, {7, 1, 8, 255})})),
            (std::vector<int64_t>{128, 254, 0, 0}));
  Checked right = check(binary("shift_right", "u64", "[3]", "[3]"));
  EXPECT_EQ(ints(runOne(right, {makeInt(DType::U64, {3}, {INT64_MIN, -1, -1}),
                                makeInt(DType::U64, {3}, {63, 64, 1})})),
            (std::vector<int64_t>{1, 0, INT64_MAX}));
}

TEST(Interpreter, UnsignedCastsRoundOnceAndSaturate) {
  auto cast = [&](const char *from, const char *to, DType fromType,
                  std::vector<int64_t> bits) {
    Checked p = check(oneNode(
        std::string(R"({"name": "A", "dtype": ")") + from + R"(", "shape": [)" +
            std::to_string(bits.size()) + "]}",
        std::string(R"({"name": "n", "op": "cast", "operands": ["A"], )") +
            R"("attributes": {"dtype": ")" + to + R"("}})"));
    return runOne(p, {makeInt(fromType, {int64_t(bits.size())}, bits)});
  };
  // u64 max is 2^64 - 1: f32 2^64, not -1.
  EXPECT_EQ(values(cast("u64", "f32", DType::U64, {-1})),
            (std::vector<double>{18446744073709551616.0}));
  // 2^63 + 2^55 + 1 is just above the midpoint between two bf16 values
  // (8 significant bits): rounding through a double first loses the 1 and
  // ties to even, down; rounding once goes up.
  Tensor b = cast("u64", "bf16", DType::U64,
                  {int64_t((uint64_t(1) << 63) | (uint64_t(1) << 55) | 1)});
  EXPECT_EQ(b.getDouble(0), std::ldexp(1.0, 63) + std::ldexp(1.0, 56));
  // Float to unsigned: truncate, saturate, NaN and negatives to 0.
  Checked f = check(oneNode(
      R"({"name": "A", "dtype": "f64", "shape": [5]})",
      R"({"name": "n", "op": "cast", "operands": ["A"], "attributes": {"dtype": "u64"}})"));
  Tensor u = runOne(f, {make(DType::F64, {5},
                             {-1.0, 1e20, std::nan(""), 9223372036854775808.0,
                              4294967295.9})});
  EXPECT_EQ(ints(u), (std::vector<int64_t>{0, -1, 0, INT64_MIN, 4294967295}));
}

TEST(Interpreter, FloatDivisionFollowsIEEE) {
  Checked p = check(binary("div", "f32", "[4]", "[4]"));
  Tensor y = runOne(p, {make(DType::F32, {4}, {1, -1, 0, 1}),
                        make(DType::F32, {4}, {0, 0, 0, 3})});
  EXPECT_EQ(y.getDouble(0), INFINITY);
  EXPECT_EQ(y.getDouble(1), -INFINITY);
  EXPECT_TRUE(std::isnan(y.getDouble(2)));
  EXPECT_EQ(y.load<float>(3), 1.0f / 3.0f);
}

TEST(Interpreter, HalfPrecisionRoundsEachOp) {
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.
  Checked p = check(binary("add", "f16", "[2]", "[2]"));
  Tensor y = runOne(p, {make(DType::F16, {2}, {1, 1}),
                        make(DType::F16, {2}, {0x1p-11, 0x1.8p-11})});
  EXPECT_EQ(values(y), (std::vector<double>{1, 1 + 0x1p-10}));
  Checked b = check(binary("mul", "bf16", "[1]", "[1]"));
  Tensor z = runOne(
      b, {make(DType::BF16, {1}, {3}), make(DType::BF16, {1}, {1.0 / 3.0})});
  EXPECT_EQ(z.load<uint16_t>(0), 0x3F80); // 3 * 0x3EAB = 1.0000 after rounding
}

TEST(Interpreter, ReluPropagatesNaNAndClampsNegatives) {
  Checked p = check(unary("relu", "f32", "[5]"));
  Tensor y =
      runOne(p, {make(DType::F32, {5}, {-1, 2.5, NAN, -0.0, -INFINITY})});
  EXPECT_EQ(y.getDouble(0), 0.0);
  EXPECT_EQ(y.getDouble(1), 2.5);
  EXPECT_TRUE(std::isnan(y.getDouble(2)));
  EXPECT_EQ(y.load<uint32_t>(3), 0u); // +0, not -0
  EXPECT_EQ(y.getDouble(4), 0.0);
  Checked i = check(unary("relu", "i16", "[3]"));
  EXPECT_EQ(ints(runOne(i, {makeInt(DType::I16, {3}, {-32768, 0, 7})})),
            (std::vector<int64_t>{0, 0, 7}));
  Checked u = check(unary("relu", "u8", "[2]"));
  EXPECT_EQ(ints(runOne(u, {makeInt(DType::U8, {2}, {200, 0})})),
            (std::vector<int64_t>{200, 0}));
  Checked h = check(unary("relu", "f16", "[2]"));
  Tensor hy = runOne(h, {make(DType::F16, {2}, {NAN, -3})});
  EXPECT_TRUE(std::isnan(hy.getDouble(0)));
  EXPECT_EQ(hy.getDouble(1), 0.0);
}

TEST(Interpreter, MatMulComputesRowsTimesColumns) {
  Checked p = check(binary("matmul", "f32", "[2, 3]", "[3, 2]"));
  Tensor y = runOne(p, {make(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                        make(DType::F32, {3, 2}, {7, 8, 9, 10, 11, 12})});
  EXPECT_EQ(y.typeString(), "f32[2,2]");
  EXPECT_EQ(values(y), (std::vector<double>{58, 64, 139, 154}));
}

TEST(Interpreter, MatMulAccumulatesInKOrder) {
  // (1e8 + 1) - 1e8 in f32: 1e8 + 1 rounds to 1e8, so the k-ordered sum is
  // 0 + ... = 0 exactly, whereas any other order gives 1 or 2.
  Checked p = check(binary("matmul", "f32", "[1, 3]", "[3, 1]"));
  Tensor y = runOne(p, {make(DType::F32, {1, 3}, {1e8, 1, -1e8}),
                        make(DType::F32, {3, 1}, {1, 1, 1})});
  EXPECT_EQ(y.getDouble(0), 0.0);
}

TEST(Interpreter, HalfMatMulAccumulatesInFloat) {
  // Accumulating in f16 would give 2048 (2048 + 1 ties back to 2048);
  // accumulating in float and rounding once gives 2050.
  Checked p = check(binary("matmul", "f16", "[1, 3]", "[3, 1]"));
  Tensor y = runOne(p, {make(DType::F16, {1, 3}, {2048, 1, 1}),
                        make(DType::F16, {3, 1}, {1, 1, 1})});
  EXPECT_EQ(y.getDouble(0), 2050.0);
  Checked b = check(binary("matmul", "bf16", "[1, 3]", "[3, 1]"));
  Tensor z = runOne(b, {make(DType::BF16, {1, 3}, {256, 1, 1}),
                        make(DType::BF16, {3, 1}, {1, 1, 1})});
  EXPECT_EQ(z.getDouble(0), 258.0);
}

TEST(Interpreter, IntegerMatMulWraps) {
  Checked p = check(binary("matmul", "i8", "[1, 2]", "[2, 1]"));
  Tensor y = runOne(p, {makeInt(DType::I8, {1, 2}, {100, 100}),
                        makeInt(DType::I8, {2, 1}, {2, 1})});
  EXPECT_EQ(ints(y), (std::vector<int64_t>{300 - 256}));
}

TEST(Interpreter, BroadcastOpStretchesOnesAndAddsDims) {
  Checked p = check(oneNode(
      R"({"name": "A", "dtype": "u8", "shape": [2, 1]},
         {"name": "X", "dtype": "u8", "shape": ["S"]})",
      R"({"name": "n", "op": "broadcast", "operands": ["A"],
          "attributes": {"shape": [3, 2, "S"]}})",
      R"({"name": "S", "min": 1, "max": 8})"));
  Tensor y =
      runOne(p, {makeInt(DType::U8, {2, 1}, {5, 9}), Tensor(DType::U8, {3})});
  EXPECT_EQ(y.typeString(), "u8[3,2,3]");
  EXPECT_EQ(ints(y), (std::vector<int64_t>{5, 5, 5, 9, 9, 9, 5, 5, 5, 9, 9, 9,
                                           5, 5, 5, 9, 9, 9}));
}

TEST(Interpreter, ConstantsAndChainsOfNodes) {
  Checked p = check(R"({"format": "txc.program", "version": 1, "name": "t",
    "inputs": [{"name": "X", "dtype": "f32", "shape": [2]}],
    "constants": [{"name": "C", "dtype": "f32", "shape": [2], "data": [1, -10]}],
    "nodes": [
      {"name": "r", "op": "relu", "operands": ["s"]},
      {"name": "s", "op": "add", "operands": ["X", "C"]}],
    "outputs": [{"name": "Y", "value": "r"}, {"name": "Z", "value": "s"}]})");
  ExecutionResult result = run(p, {make(DType::F32, {2}, {2, 3})});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result.outputs.size(), 2u);
  EXPECT_EQ(values(result.outputs[0]), (std::vector<double>{3, 0}));
  EXPECT_EQ(values(result.outputs[1]), (std::vector<double>{3, -7}));
}

TEST(Interpreter, GuardsRejectCallsLikeTheObject) {
  Checked p =
      check(oneNode(R"({"name": "A", "dtype": "f32", "shape": ["B", 4]})",
                    R"({"name": "n", "op": "relu", "operands": ["A"]})",
                    R"({"name": "B", "min": 1, "max": 8,
                                "multiple_of": 2})"));
  struct Case {
    std::vector<Tensor> inputs;
    StatusCode code;
  };
  std::vector<Case> cases;
  cases.push_back({{}, StatusCode::ArgCount});
  cases.push_back({{Tensor(DType::I32, {2, 4})}, StatusCode::DType});
  cases.push_back({{Tensor(DType::F32, {2, 4, 1})}, StatusCode::Rank});
  cases.push_back({{Tensor(DType::F32, {2, 5})}, StatusCode::Dim});
  cases.push_back({{Tensor(DType::F32, {10, 4})}, StatusCode::SymbolRange});
  cases.push_back(
      {{Tensor(DType::F32, {3, 4})}, StatusCode::SymbolDivisibility});
  for (Case &c : cases) {
    std::vector<CallTensor> calls;
    for (const Tensor &t : c.inputs)
      calls.push_back(describeForGuards(t));
    std::vector<CallTensor> outputs(1);
    CallResult expected =
        evaluateGuards(p.contract, &calls, &outputs, /*checkOutputs=*/false);
    ExecutionResult result = run(p, c.inputs);
    EXPECT_EQ(result.status.code, c.code);
    EXPECT_EQ(result.status.guard, expected.status.guard);
    EXPECT_EQ(result.message, formatStatusMessage(p.contract, expected.status));
    EXPECT_TRUE(result.outputs.empty());
  }
  ExecutionResult dtype = run(p, {Tensor(DType::I32, {2, 4})});
  EXPECT_EQ(dtype.message,
            "input 'A' must have dtype f32, got i32 [guard 5: A.dtype == f32]");
}

TEST(Interpreter, EveryRegisteredOpHasAnEvaluator) {
  for (const OpInfo &info : allOps())
    EXPECT_NE(OpEvaluatorTable::builtin().lookup(info.kind), nullptr)
        << "op '" << info.name.str() << "' has no interpreter evaluator";
}

//===----------------------------------------------------------------------===//
// The evaluation machinery with evaluators written for the test: runtime
// statuses unwind out of nested regions, and regions see enclosing values.
//===----------------------------------------------------------------------===//

/// X (f32[2]) -> node "n" of kind Add whose region "body" takes one input
/// "t" and computes relu(t) + X (X from the enclosing graph).
std::unique_ptr<Program> programWithRegion() {
  DiagnosticEngine diags;
  SourceFile file("r.json",
                  oneNode(R"({"name": "X", "dtype": "f32", "shape": [2]})",
                          R"({"name": "n", "op": "relu", "operands": ["X"]})"));
  std::unique_ptr<Program> program = readProgram(file, diags);
  EXPECT_TRUE(program && verifyProgram(*program, diags));
  Node &node = program->body.nodes[0];
  auto body = std::make_unique<Graph>();
  ValueDecl t;
  t.name = "t";
  t.type = node.resultTypes[0];
  body->inputs.push_back(t);
  Node relu;
  relu.name = "inner";
  relu.opName = "relu";
  relu.kind = OpKind::Relu;
  relu.operands = {"t"};
  relu.resultTypes = node.resultTypes;
  Node add;
  add.name = "sum";
  add.opName = "add";
  add.kind = OpKind::Add;
  add.operands = {"inner", "X"};
  add.resultTypes = node.resultTypes;
  body->nodes.push_back(std::move(relu));
  body->nodes.push_back(std::move(add));
  OutputDecl out;
  out.name = "out";
  out.value = "sum";
  body->outputs.push_back(out);
  node.regions.emplace_back("body", std::move(body));
  return program;
}

TEST(InterpreterMachinery, RegionsSeeEnclosingValuesAndScopeTheirOwn) {
  std::unique_ptr<Program> program = programWithRegion();
  DiagnosticEngine diags;
  auto contract = buildContract(*program, "", diags);
  ASSERT_TRUE(contract.has_value());
  OpEvaluatorTable table;
  registerElementwiseOps(table); // relu, add as usual...
  // ...except that this "relu" node runs its region on (operand - 10).
  OpEvaluatorTable outer;
  outer.add(
      OpKind::Relu,
      [&](const OpEvalContext &ctx) -> llvm::Expected<std::vector<Tensor>> {
        if (ctx.getNode().regions.empty())
          return (*table.lookup(OpKind::Relu))(ctx);
        Tensor shifted = ctx.operand(0);
        for (int64_t i = 0; i < shifted.numElements(); ++i)
          shifted.setDouble(i, shifted.getDouble(i) - 10);
        return ctx.runRegion("body", {shifted});
      });
  outer.add(OpKind::Add, *table.lookup(OpKind::Add));
  auto result = interpretProgram(*program, *contract,
                                 {make(DType::F32, {2}, {3, 15})}, outer);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  ASSERT_TRUE(result->ok());
  // relu(3 - 10) + 3 = 3, relu(15 - 10) + 15 = 20.
  EXPECT_EQ(values(result->outputs[0]), (std::vector<double>{3, 20}));
}

TEST(InterpreterMachinery, RuntimeStatusesUnwindFromRegions) {
  std::unique_ptr<Program> program = programWithRegion();
  DiagnosticEngine diags;
  auto contract = buildContract(*program, "", diags);
  ASSERT_TRUE(contract.has_value());
  OpEvaluatorTable table;
  table.add(
      OpKind::Relu,
      [](const OpEvalContext &ctx) -> llvm::Expected<std::vector<Tensor>> {
        if (!ctx.getNode().regions.empty())
          return ctx.runRegion("body", {ctx.operand(0)});
        // The inner node finds bad data, as gather would for an index out of
        // range (StatusCode has no such code yet: use one of the others).
        return ctx.runtimeStatus(StatusCode::Dim, "value 3 out of range");
      });
  auto result = interpretProgram(*program, *contract,
                                 {make(DType::F32, {2}, {3, 15})}, table);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->status.code, StatusCode::Dim);
  EXPECT_EQ(result->status.guard, -1);
  EXPECT_EQ(result->message, "error 5: a dimension does not have its "
                             "required value or form");
  EXPECT_EQ(result->detail, "node 'inner' (relu): value 3 out of range");
  EXPECT_TRUE(result->outputs.empty());
}

TEST(InterpreterMachinery, MissingEvaluatorsAreInternalErrors) {
  Checked p = check(unary("relu", "f32", "[2]"));
  OpEvaluatorTable empty;
  auto result = interpretProgram(*p.program, p.contract,
                                 {Tensor(DType::F32, {2})}, empty);
  ASSERT_FALSE(bool(result));
  EXPECT_NE(llvm::toString(result.takeError())
                .find("op 'relu' (node 'n') "
                      "has no evaluator"),
            std::string::npos);
}

} // namespace
