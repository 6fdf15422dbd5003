//===- ContractTest.cpp ---------------------------------------------------===//
//
// The ordered guard list computed from a verified program, and the reference
// semantics of the guards (evaluateGuards) and of their messages.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/Contract.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <limits>

using namespace txc;
using namespace txc::test;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

/// One guard on one line: every field that describes it.
std::string describe(const Contract &contract, const Guard &g) {
  std::string out = std::to_string(g.id) + " " + guardKindName(g.kind).str() +
                    " " + statusCodeName(g.code).str();
  if (g.side != TensorSide::None)
    out += std::string(g.side == TensorSide::Input ? " in" : " out") +
           std::to_string(g.tensor);
  if (g.dim >= 0)
    out += " dim" + std::to_string(g.dim);
  if (g.symbol >= 0)
    out += " sym=" + contract.symbols[g.symbol].name;
  if (g.value != 0)
    out += " value=" + std::to_string(g.value);
  if (!g.expr.terms().empty())
    out += " expr=" + g.expr.toString(contract.symbolNames());
  out += " | " + g.expression + " | " + g.message + " @" +
         std::to_string(g.origin.line) + ":" + std::to_string(g.origin.column) +
         " " + g.origin.pointer;
  return out;
}

std::vector<std::string> describeAll(const Contract &contract) {
  std::vector<std::string> lines;
  for (const Guard &g : contract.guards)
    lines.push_back(describe(contract, g));
  return lines;
}

/// Builds the contract of a program text; fails the test if there is none.
std::unique_ptr<Loaded> build(const std::string &text) {
  auto loaded = contract(text);
  EXPECT_TRUE(loaded->contract) << dump(loaded->diags);
  return loaded;
}

std::string sym(const std::string &name, int64_t min, int64_t max,
                int64_t multipleOf = 1) {
  std::string text = "{\"name\": \"" + name +
                     "\", \"min\": " + std::to_string(min) +
                     ", \"max\": " + std::to_string(max);
  if (multipleOf != 1)
    text += ", \"multiple_of\": " + std::to_string(multipleOf);
  return text + "}";
}

std::string in(const std::string &name, const std::string &shape,
               const std::string &dtype = "f32") {
  return "{\"name\": \"" + name + "\", \"dtype\": \"" + dtype +
         "\", \"shape\": " + shape + "}";
}

/// A program whose one output is relu of its first input.
std::string reluOf(const std::string &symbols, const std::string &inputs) {
  return program(symbols, inputs,
                 "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}",
                 "\"y\"");
}

CallTensor tensor(uint64_t data, int64_t sizeBytes, int32_t dtype,
                  std::vector<int64_t> dims) {
  CallTensor t;
  t.data = data;
  t.sizeBytes = sizeBytes;
  t.dtype = dtype;
  t.dims = std::move(dims);
  return t;
}

/// The status fields on one line, for exact comparisons.
std::string str(const CallStatus &s) {
  return std::string(statusCodeName(s.code)) +
         " guard=" + std::to_string(s.guard) +
         " side=" + std::to_string(int(s.side)) +
         " tensor=" + std::to_string(s.tensor) +
         " dim=" + std::to_string(s.dim) +
         " symbol=" + std::to_string(s.symbol) +
         " min=" + std::to_string(s.expectedMin) +
         " max=" + std::to_string(s.expectedMax) +
         " actual=" + std::to_string(s.actual);
}

//===----------------------------------------------------------------------===//
// The guard list
//===----------------------------------------------------------------------===//

TEST(Contract, GuardsOfTheLinearSample) {
  auto loaded = contractOfLinear();
  ASSERT_TRUE(loaded);
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  const Contract &c = *loaded->contract;
  EXPECT_EQ(c.programName, "linear");
  EXPECT_EQ(c.entryPrefix, "linear");
  EXPECT_EQ(c.runSymbol(), "linear_run");
  EXPECT_EQ(c.shapesSymbol(), "linear_output_shapes");
  EXPECT_EQ(c.messageSymbol(), "linear_error_message");
  ASSERT_EQ(c.symbols.size(), 1u);
  EXPECT_EQ(c.symbols[0].name, "B");
  EXPECT_EQ(c.symbols[0].min, 1);
  EXPECT_EQ(c.symbols[0].max, 4096);
  EXPECT_EQ(c.symbols[0].multipleOf, 1);
  ASSERT_EQ(c.inputs.size(), 3u);
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].name, "Y");
  EXPECT_EQ(c.outputs[0].value, "y");
  EXPECT_EQ(shapeToString(c.outputs[0].type.shape, c.symbolNames()), "[B,3]");
  EXPECT_EQ(c.maxOutputBytes(0), 4096 * 3 * 4);

  std::vector<std::string> expected = {
      "0 input_count arg_count value=3 | num_inputs == 3 | expected "
      "{expected_min} inputs, got {actual} @4:11 /name",
      "1 output_count arg_count value=1 | num_outputs == 1 | expected "
      "{expected_min} outputs, got {actual} @4:11 /name",
      "2 inputs_array null_pointer | inputs != NULL | the inputs array is "
      "NULL @4:11 /name",
      "3 outputs_array null_pointer | outputs != NULL | the outputs array is "
      "NULL @4:11 /name",
      "4 data_pointer null_pointer in0 | X.data != NULL | input 'X' has a "
      "NULL data pointer @10:5 /inputs/0",
      "5 dtype dtype in0 value=1 | X.dtype == f32 | input 'X' must have dtype "
      "f32, got {actual_dtype} @10:28 "
      "/inputs/0/dtype",
      "6 rank rank in0 value=2 | X.rank == 2 | input 'X' must have rank "
      "{expected_min}, got {actual} @10:44 /inputs/0/shape",
      "7 symbol_range symbol_range in0 dim0 sym=B value=1 | 1 <= B <= 4096 "
      "where B = X.shape[0] | symbol B (from input 'X' dimension 0) must be "
      "in [{expected_min}, {expected_max}], got {actual} @10:45 "
      "/inputs/0/shape/0",
      "8 static_dim dim in0 dim1 value=4 | X.shape[1] == 4 | input 'X' "
      "dimension 1 must be {expected_min}, got {actual} @10:50 "
      "/inputs/0/shape/1",
      "9 data_pointer null_pointer in1 | W.data != NULL | input 'W' has a "
      "NULL data pointer @11:5 /inputs/1",
      "10 dtype dtype in1 value=1 | W.dtype == f32 | input 'W' must have "
      "dtype f32, got {actual_dtype} @11:28 "
      "/inputs/1/dtype",
      "11 rank rank in1 value=2 | W.rank == 2 | input 'W' must have rank "
      "{expected_min}, got {actual} @11:44 /inputs/1/shape",
      "12 static_dim dim in1 dim0 value=4 | W.shape[0] == 4 | input 'W' "
      "dimension 0 must be {expected_min}, got {actual} @11:45 "
      "/inputs/1/shape/0",
      "13 static_dim dim in1 dim1 value=3 | W.shape[1] == 3 | input 'W' "
      "dimension 1 must be {expected_min}, got {actual} @11:48 "
      "/inputs/1/shape/1",
      "14 data_pointer null_pointer in2 | b.data != NULL | input 'b' has a "
      "NULL data pointer @12:5 /inputs/2",
      "15 dtype dtype in2 value=1 | b.dtype == f32 | input 'b' must have "
      "dtype f32, got {actual_dtype} @12:28 "
      "/inputs/2/dtype",
      "16 rank rank in2 value=1 | b.rank == 1 | input 'b' must have rank "
      "{expected_min}, got {actual} @12:44 /inputs/2/shape",
      "17 static_dim dim in2 dim0 value=3 | b.shape[0] == 3 | input 'b' "
      "dimension 0 must be {expected_min}, got {actual} @12:45 "
      "/inputs/2/shape/0",
      "18 buffer_size buffer_too_small in0 expr=16*B | X.size_bytes >= 16*B | "
      "input 'X' needs {expected_min} bytes, but its size_bytes is {actual} "
      "@10:5 /inputs/0",
      "19 buffer_size buffer_too_small in1 expr=48 | W.size_bytes >= 48 | "
      "input 'W' needs {expected_min} bytes, but its size_bytes is {actual} "
      "@11:5 /inputs/1",
      "20 buffer_size buffer_too_small in2 expr=12 | b.size_bytes >= 12 | "
      "input 'b' needs {expected_min} bytes, but its size_bytes is {actual} "
      "@12:5 /inputs/2",
      "21 data_pointer null_pointer out0 | Y.data != NULL | output 'Y' has a "
      "NULL data pointer @19:5 /outputs/0",
      "22 buffer_size buffer_too_small out0 expr=12*B | Y.size_bytes >= 12*B "
      "| output 'Y' needs {expected_min} bytes, but its size_bytes is "
      "{actual} @19:5 /outputs/0",
      "23 no_alias alias out0 | Y overlaps no input | output 'Y' overlaps "
      "{other}; outputs must not share memory with inputs or other outputs "
      "@19:5 /outputs/0",
  };
  EXPECT_EQ(describeAll(c), expected);
  for (size_t i = 0; i < c.guards.size(); ++i)
    EXPECT_EQ(c.guards[i].id, i);
}

TEST(Contract, EntryPrefix) {
  auto sample = linearSample();
  ASSERT_TRUE(sample);
  auto loaded = verify(sample->contents().str());
  ASSERT_TRUE(loaded->verified);
  auto c = buildContract(*loaded->program, "net_v2", loaded->diags);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->programName, "linear");
  EXPECT_EQ(c->runSymbol(), "net_v2_run");
  EXPECT_EQ(c->shapesSymbol(), "net_v2_output_shapes");
  EXPECT_EQ(c->messageSymbol(), "net_v2_error_message");
}

TEST(Contract, AffineDimGetsSymbolFormAndRange) {
  auto loaded = build(reluOf(sym("S", 1, 8), in("x", "[\"2*S+1\"]")));
  ASSERT_TRUE(loaded->contract);
  std::vector<std::string> lines = describeAll(*loaded->contract);
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(lines[7],
            "7 symbol_form dim in0 dim0 sym=S value=2 expr=1 | x.shape[0] == "
            "2*S+1 for an integer S | input 'x' dimension 0 must be 2*S+1 for "
            "an integer S, got {actual} @3:52 /inputs/0/shape/0");
  EXPECT_EQ(lines[8],
            "8 symbol_range symbol_range in0 dim0 sym=S value=2 expr=1 | 1 <= "
            "S <= 8 where S = (x.shape[0] - (1)) / 2 | symbol S (from input "
            "'x' dimension 0) must be in [{expected_min}, {expected_max}], got "
            "{actual} @3:52 /inputs/0/shape/0");
  EXPECT_EQ(lines[9], "9 buffer_size buffer_too_small in0 expr=8*S+4 | "
                      "x.size_bytes >= 8*S+4 | input 'x' needs {expected_min} "
                      "bytes, but its size_bytes is {actual} @3:12 /inputs/0");
  EXPECT_EQ(lines[11], "11 buffer_size buffer_too_small out0 expr=8*S+4 | "
                       "y.size_bytes >= 8*S+4 | output 'y' needs "
                       "{expected_min} bytes, but its size_bytes is {actual} "
                       "@5:13 /outputs/0");
}

TEST(Contract, ScaledDimWithoutOffset) {
  auto loaded = build(reluOf(sym("S", 1, 8), in("x", "[\"4*S\"]")));
  ASSERT_TRUE(loaded->contract);
  std::vector<std::string> lines = describeAll(*loaded->contract);
  EXPECT_NE(lines[8].find("| 1 <= S <= 8 where S = (x.shape[0]) / 4 |"),
            std::string::npos)
      << lines[8];
}

TEST(Contract, NegativeCoefficient) {
  auto loaded = build(reluOf(sym("S", 0, 10), in("x", "[\"10-S\"]")));
  ASSERT_TRUE(loaded->contract);
  std::vector<std::string> lines = describeAll(*loaded->contract);
  // |coeff| == 1: no form guard.
  EXPECT_EQ(lines[7],
            "7 symbol_range symbol_range in0 dim0 sym=S value=-1 expr=10 | 0 "
            "<= S <= 10 where S = (x.shape[0] - (10)) / -1 | symbol S (from "
            "input 'x' dimension 0) must be in [{expected_min}, "
            "{expected_max}], got {actual} @3:52 /inputs/0/shape/0");
  const Contract &c = *loaded->contract;
  std::vector<CallTensor> ins = {tensor(0x100, 64, 1, {3})};
  std::vector<CallTensor> outs = {tensor(0x200, 64, 1, {})};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.symbolValues, std::vector<int64_t>({7}));
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{3}}));
  ins[0].dims = {kMin};
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "symbol_range guard=7 side=1 tensor=0 dim=0 "
                           "symbol=0 min=0 max=10 actual=" +
                               std::to_string(kMax));
  ins[0].dims = {11};
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.actual, -1);
}

TEST(Contract, SymbolDefinedByALaterDim) {
  // x.shape[0] = S+T needs T, which x.shape[1] defines: a second pass.
  auto loaded =
      build(reluOf(sym("S", 1, 8) + ", " + sym("T", 2, 4),
                   in("x", "[\"S+T\", \"T\"]") + ", " + in("z", "[\"S\"]")));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  std::vector<std::string> kinds;
  for (const Guard &g : c.guards)
    kinds.push_back(guardKindName(g.kind).str() +
                    (g.dim >= 0 ? "[" + std::to_string(g.tensor) + "." +
                                      std::to_string(g.dim) + "]"
                                : ""));
  EXPECT_EQ(kinds,
            std::vector<std::string>(
                {"input_count", "output_count", "inputs_array", "outputs_array",
                 "data_pointer", "dtype", "rank", "symbol_range[0.1]",
                 "data_pointer", "dtype", "rank", "symbol_range[1.0]",
                 "dim_equals[0.0]", "buffer_size", "buffer_size",
                 "data_pointer", "buffer_size", "no_alias"}));
  EXPECT_EQ(describe(c, c.guards[7]),
            "7 symbol_range symbol_range in0 dim1 sym=T value=1 | 2 <= T <= 4 "
            "where T = x.shape[1] | symbol T (from input 'x' dimension 1) must "
            "be in [{expected_min}, {expected_max}], got {actual} @3:59 "
            "/inputs/0/shape/1");
  EXPECT_EQ(describe(c, c.guards[12]),
            "12 dim_equals symbol_mismatch in0 dim0 expr=S+T | x.shape[0] == "
            "S+T | input 'x' dimension 0 must equal S+T = {expected_min} (from "
            "the symbols' values), got {actual} @3:52 /inputs/0/shape/0");

  std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {7, 3}),
                                 tensor(0x2000, 1000, 1, {4})};
  std::vector<CallTensor> outs = {tensor(0x3000, 1000, 1, {})};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.symbolValues, std::vector<int64_t>({4, 3}));
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{7, 3}}));
  ins[0].dims = {8, 3};
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "symbol_mismatch guard=12 side=1 tensor=0 dim=0 "
                           "symbol=-1 min=7 max=7 actual=8");
  EXPECT_EQ(formatStatusMessage(c, r.status),
            "input 'x' dimension 0 must equal S+T = 7 (from the symbols' "
            "values), got 8 [guard 12: x.shape[0] == S+T]");
}

TEST(Contract, ASymbolCanBeSolvedThroughAnother) {
  // S+T with T known from an earlier input: S = dim - T.
  auto loaded = build(reluOf(sym("S", 1, 8) + ", " + sym("T", 2, 4),
                             in("x", "[\"T\"]") + ", " + in("z", "[\"S+T\"]")));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  EXPECT_EQ(c.guards[11].kind, GuardKind::SymbolRange);
  EXPECT_EQ(c.guards[11].expression,
            "1 <= S <= 8 where S = (z.shape[0] - (T))");
  std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {3}),
                                 tensor(0x2000, 1000, 1, {10})};
  std::vector<CallTensor> outs = {tensor(0x3000, 1000, 1, {})};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.symbolValues, std::vector<int64_t>({7, 3}));
  ins[1].dims = {12};
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "symbol_range guard=11 side=1 tensor=1 dim=0 "
                           "symbol=0 min=1 max=8 actual=9");
}

TEST(Contract, MultipleOf) {
  auto loaded = build(reluOf(sym("S", 4, 64, 4), in("x", "[\"S\", 2]")));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  EXPECT_EQ(describe(c, c.guards[8]),
            "8 symbol_multiple symbol_divisibility in0 dim0 sym=S value=4 | S "
            "% 4 == 0 | symbol S (from input 'x' dimension 0) must be a "
            "multiple of {expected_min}, got {actual} @3:52 "
            "/inputs/0/shape/0");
  EXPECT_EQ(c.symbols[0].multipleOf, 4);
  std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {8, 2})};
  std::vector<CallTensor> outs = {tensor(0x3000, 1000, 1, {})};
  EXPECT_EQ(evaluateGuards(c, &ins, &outs).status.code, StatusCode::OK);
  ins[0].dims = {6, 2};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "symbol_divisibility guard=8 side=1 tensor=0 "
                           "dim=0 symbol=0 min=4 max=4 actual=6");
  EXPECT_EQ(formatStatusMessage(c, r.status),
            "symbol S (from input 'x' dimension 0) must be a multiple of 4, "
            "got 6 [guard 8: S % 4 == 0]");
}

TEST(Contract, UndeterminedSymbols) {
  {
    auto loaded = contract(
        reluOf(sym("S", 1, 8) + ", " + sym("T", 1, 8), in("x", "[\"S*T\"]")));
    EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
    EXPECT_FALSE(loaded->contract);
    const Diagnostic *diag = find(loaded->diags, "undetermined-symbol");
    ASSERT_TRUE(diag) << dump(loaded->diags);
    EXPECT_EQ(diag->message,
              "dimension 0 of input 'x' is S*T, but no input dimension "
              "determines symbols S and T; give one input a dimension that "
              "is a single symbol (or a*S+b)");
    EXPECT_EQ(diag->loc.pointer, "/inputs/0/shape/0");
    EXPECT_EQ(diag->category, DiagCategory::Invalid);
  }
  {
    // The result of y has the undetermined S too; it is reported once, at
    // the input that cannot determine it.
    auto loaded = contract(reluOf(sym("S", 1, 8), in("x", "[\"S*S\", 2]")));
    EXPECT_FALSE(loaded->contract);
    EXPECT_EQ(ids(loaded->diags),
              std::vector<std::string>({"undetermined-symbol"}))
        << dump(loaded->diags);
  }
  {
    // A symbol only a node's shape uses.
    auto loaded = contract(program(
        sym("S", 1, 8) + ", " + sym("T", 1, 8), in("x", "[\"S\"]"),
        "{\"name\": \"y\", \"op\": \"broadcast\", \"operands\": [\"x\"], "
        "\"attributes\": {\"shape\": [\"T\", \"S\"]}}",
        "\"y\""));
    EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
    EXPECT_FALSE(loaded->contract);
    const Diagnostic *diag = find(loaded->diags, "undetermined-symbol");
    ASSERT_TRUE(diag) << dump(loaded->diags);
    EXPECT_EQ(diag->message,
              "node 'y' uses symbol 'T', which no input shape determines");
    EXPECT_EQ(diag->loc.pointer, "/nodes/0");
  }
}

TEST(Contract, TensorNamesMustNotClashInTheHeader) {
  // The header defines <P>_INPUT_<name> and <P>_INPUT_<name>_RANK; an input
  // named x_RANK would redefine the second with another value.
  {
    auto loaded = contract(program(
        "",
        in("x", "[2]") + ", " + in("x_RANK", "[3]") + ", " +
            in("x_DTYPE", "[4]"),
        "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}", "\"y\""));
    EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
    EXPECT_FALSE(loaded->contract);
    std::string out;
    for (const Diagnostic &diag : loaded->diags.diagnostics())
      out += diag.id + ": " + diag.message + " [" + diag.loc.pointer + "]\n";
    EXPECT_EQ(out,
              "header-name-clash: the C header would define P_INPUT_x_RANK "
              "both for input 'x_RANK' and for the rank of input 'x'; rename "
              "one of them [/inputs/1]\n"
              "header-name-clash: the C header would define P_INPUT_x_DTYPE "
              "both for input 'x_DTYPE' and for the dtype of input 'x'; rename "
              "one of them [/inputs/2]\n");
  }
  {
    auto loaded = contract(
        program("", in("x", "[2]"),
                "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}",
                "\"y\", {\"name\": \"y_MAX_BYTES\", \"value\": \"x\"}"));
    EXPECT_FALSE(loaded->contract);
    const Diagnostic *diag = find(loaded->diags, "header-name-clash");
    ASSERT_TRUE(diag) << dump(loaded->diags);
    EXPECT_EQ(diag->message,
              "the C header would define P_OUTPUT_y_MAX_BYTES both for output "
              "'y_MAX_BYTES' and for the maximum size of output 'y'; rename "
              "one of them");
    EXPECT_EQ(diag->loc.pointer, "/outputs/1");
  }
  {
    // The same names on different sides, or other suffixes, are fine.
    auto loaded = build(
        program("",
                in("x", "[2]") + ", " + in("x_MAX_BYTES", "[2]") + ", " +
                    in("x_rank", "[2]"),
                "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}",
                "\"y\", {\"name\": \"x_RANK\", \"value\": \"x\"}"));
    EXPECT_TRUE(loaded->contract) << dump(loaded->diags);
  }
}

TEST(Contract, ProgramWithoutInputs) {
  auto loaded = build(program(
      "", "", "", "\"c\"",
      "{\"name\": \"c\", \"dtype\": \"i32\", \"shape\": [2], \"data\": 5}"));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  std::vector<std::string> kinds;
  for (const Guard &g : c.guards)
    kinds.push_back(guardKindName(g.kind).str());
  // No inputs array to check.
  EXPECT_EQ(kinds, std::vector<std::string>({"input_count", "output_count",
                                             "outputs_array", "data_pointer",
                                             "buffer_size", "no_alias"}));
  std::vector<CallTensor> outs = {tensor(0x3000, 8, 7, {})};
  CallResult r = evaluateGuards(c, nullptr, &outs);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{2}}));
}

//===----------------------------------------------------------------------===//
// Evaluating the guards
//===----------------------------------------------------------------------===//

/// A valid call of samples/linear with B = 5.
struct LinearCall {
  std::vector<CallTensor> inputs = {tensor(0x1000, 80, 1, {5, 4}),
                                    tensor(0x2000, 48, 1, {4, 3}),
                                    tensor(0x3000, 12, 1, {3})};
  std::vector<CallTensor> outputs = {tensor(0x4000, 60, 0, {})};
};

class LinearGuards : public ::testing::Test {
protected:
  void SetUp() override {
    loaded = contractOfLinear();
    ASSERT_TRUE(loaded);
    ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  }
  const Contract &c() const { return *loaded->contract; }
  CallResult run(const LinearCall &call, bool checkOutputs = true) const {
    return evaluateGuards(c(), &call.inputs, &call.outputs, checkOutputs);
  }
  std::unique_ptr<Loaded> loaded;
};

TEST_F(LinearGuards, AValidCallPasses) {
  LinearCall call;
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "ok guard=-1 side=0 tensor=-1 dim=-1 symbol=-1 "
                           "min=0 max=0 actual=0");
  EXPECT_EQ(r.symbolValues, std::vector<int64_t>({5}));
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{5, 3}}));
  EXPECT_EQ(formatStatusMessage(c(), r.status), "success");
  // Bigger buffers are fine; so are the range's ends.
  call.inputs[0].sizeBytes = kMax;
  call.inputs[0].dims = {4096, 4};
  call.outputs[0].data = 0x100000; // X now takes 64 KiB from 0x1000
  call.outputs[0].sizeBytes = 4096 * 12;
  r = run(call);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{4096, 3}}));
  call.inputs[0].dims = {1, 4};
  EXPECT_EQ(run(call).status.code, StatusCode::OK);
}

TEST_F(LinearGuards, ArgCounts) {
  LinearCall call;
  call.inputs.pop_back();
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "arg_count guard=0 side=0 tensor=-1 dim=-1 "
                           "symbol=-1 min=3 max=3 actual=2");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "expected 3 inputs, got 2 [guard 0: num_inputs == 3]");
  LinearCall twoOutputs;
  twoOutputs.outputs.push_back(twoOutputs.outputs[0]);
  r = run(twoOutputs);
  EXPECT_EQ(str(r.status), "arg_count guard=1 side=0 tensor=-1 dim=-1 "
                           "symbol=-1 min=1 max=1 actual=2");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "expected 1 outputs, got 2 [guard 1: num_outputs == 1]");
}

TEST_F(LinearGuards, AnUnclosedBraceInAMessageIsText) {
  // A manifest read back may carry any message; a '{' never closed once
  // sent formatStatusMessage round its loop forever (manifest fuzzer).
  Contract contract = c();
  contract.guards[0].message = "expected {expected_min} inputs, got {actual";
  LinearCall call;
  call.inputs.pop_back();
  CallResult r = evaluateGuards(contract, &call.inputs, &call.outputs);
  EXPECT_EQ(formatStatusMessage(contract, r.status),
            "expected 3 inputs, got {actual [guard 0: num_inputs == 3]");
}

TEST_F(LinearGuards, NullArraysFailAtTheCountGuards) {
  // evaluateGuards derives the counts from the arrays, so a NULL array is
  // seen as zero tensors, and the count guard comes first.
  LinearCall call;
  CallResult r = evaluateGuards(c(), nullptr, &call.outputs);
  EXPECT_EQ(str(r.status), "arg_count guard=0 side=0 tensor=-1 dim=-1 "
                           "symbol=-1 min=3 max=3 actual=0");
  r = evaluateGuards(c(), &call.inputs, nullptr);
  EXPECT_EQ(str(r.status), "arg_count guard=1 side=0 tensor=-1 dim=-1 "
                           "symbol=-1 min=1 max=1 actual=0");
}

TEST_F(LinearGuards, DataPointers) {
  LinearCall call;
  call.inputs[1].data = 0;
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "null_pointer guard=9 side=1 tensor=1 dim=-1 "
                           "symbol=-1 min=0 max=0 actual=0");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'W' has a NULL data pointer [guard 9: W.data != NULL]");
  LinearCall out;
  out.outputs[0].data = 0;
  r = run(out);
  EXPECT_EQ(str(r.status), "null_pointer guard=21 side=2 tensor=0 dim=-1 "
                           "symbol=-1 min=0 max=0 actual=0");
  // The output-shapes entry point does not look at output memory.
  r = run(out, /*checkOutputs=*/false);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{5, 3}}));
}

TEST_F(LinearGuards, DTypeAndRank) {
  LinearCall call;
  call.inputs[2].dtype = int32_t(DType::F64);
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "dtype guard=15 side=1 tensor=2 dim=-1 symbol=-1 "
                           "min=1 max=1 actual=2");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'b' must have dtype f32, got f64 [guard 15: b.dtype == "
            "f32]");
  // A code that is no dtype is shown as a number.
  r.status.actual = 99;
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'b' must have dtype f32, got dtype code 99 [guard 15: "
            "b.dtype == f32]");
  r.status.actual = 0;
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'b' must have dtype f32, got dtype code 0 [guard 15: "
            "b.dtype == f32]");
  LinearCall rank;
  rank.inputs[0].dims = {20};
  r = run(rank);
  EXPECT_EQ(str(r.status), "rank guard=6 side=1 tensor=0 dim=-1 symbol=-1 "
                           "min=2 max=2 actual=1");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'X' must have rank 2, got 1 [guard 6: X.rank == 2]");
}

TEST_F(LinearGuards, StaticDims) {
  LinearCall call;
  call.inputs[1].dims = {4, 5};
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "dim guard=13 side=1 tensor=1 dim=1 symbol=-1 "
                           "min=3 max=3 actual=5");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'W' dimension 1 must be 3, got 5 [guard 13: W.shape[1] == "
            "3]");
  call.inputs[1].dims = {kMin, 3};
  r = run(call);
  EXPECT_EQ(str(r.status), "dim guard=12 side=1 tensor=1 dim=0 symbol=-1 "
                           "min=4 max=4 actual=" +
                               std::to_string(kMin));
}

TEST_F(LinearGuards, SymbolRange) {
  LinearCall call;
  call.inputs[0].dims = {0, 4};
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "symbol_range guard=7 side=1 tensor=0 dim=0 "
                           "symbol=0 min=1 max=4096 actual=0");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "symbol B (from input 'X' dimension 0) must be in [1, 4096], got "
            "0 [guard 7: 1 <= B <= 4096 where B = X.shape[0]]");
  call.inputs[0].dims = {4097, 4};
  EXPECT_EQ(run(call).status.actual, 4097);
  call.inputs[0].dims = {kMax, 4};
  EXPECT_EQ(run(call).status.actual, kMax);
  call.inputs[0].dims = {kMin, 4};
  EXPECT_EQ(run(call).status.actual, kMin);
  call.inputs[0].dims = {-1, 4};
  EXPECT_EQ(run(call).status.actual, -1);
}

TEST_F(LinearGuards, BufferSizes) {
  LinearCall call;
  call.inputs[0].sizeBytes = 79;
  CallResult r = run(call);
  EXPECT_EQ(str(r.status), "buffer_too_small guard=18 side=1 tensor=0 "
                           "dim=-1 symbol=-1 min=80 max=" +
                               std::to_string(kMax) + " actual=79");
  EXPECT_EQ(formatStatusMessage(c(), r.status),
            "input 'X' needs 80 bytes, but its size_bytes is 79 [guard 18: "
            "X.size_bytes >= 16*B]");
  LinearCall negative;
  negative.inputs[2].sizeBytes = -1;
  EXPECT_EQ(run(negative).status.guard, 20);
  LinearCall out;
  out.outputs[0].sizeBytes = 59;
  r = run(out);
  EXPECT_EQ(str(r.status), "buffer_too_small guard=22 side=2 tensor=0 "
                           "dim=-1 symbol=-1 min=60 max=" +
                               std::to_string(kMax) + " actual=59");
  // The output buffer is not checked by the output-shapes entry point.
  EXPECT_EQ(run(out, /*checkOutputs=*/false).status.code, StatusCode::OK);
}

TEST_F(LinearGuards, Aliasing) {
  auto alias = [&](uint64_t outputData) {
    LinearCall call;
    call.outputs[0].data = outputData;
    return run(call).status;
  };
  // X occupies [0x1000, 0x1050), W [0x2000, 0x2030), b [0x3000, 0x300c);
  // Y needs 60 bytes.
  CallStatus s = alias(0x1000 + 79);
  EXPECT_EQ(str(s), "alias guard=23 side=2 tensor=0 dim=-1 symbol=-1 min=1 "
                    "max=0 actual=0");
  EXPECT_EQ(formatStatusMessage(c(), s),
            "output 'Y' overlaps input 'X'; outputs must not share memory with "
            "inputs or other outputs [guard 23: Y overlaps no input]");
  EXPECT_EQ(aliasPartnerName(c(), s), "input 'X'");
  // Ending inside b.
  s = alias(0x3000 - 59);
  EXPECT_EQ(s.code, StatusCode::Alias);
  EXPECT_EQ(s.expectedMax, 2);
  EXPECT_EQ(aliasPartnerName(c(), s), "input 'b'");
  // Touching but not overlapping, on either side.
  EXPECT_EQ(alias(0x1000 + 80).code, StatusCode::OK);
  EXPECT_EQ(alias(0x1000 - 60).code, StatusCode::OK);
  EXPECT_EQ(alias(0x2000 + 48).code, StatusCode::OK);
  EXPECT_EQ(alias(0x3000 - 60).code, StatusCode::OK);
  // One byte of overlap.
  EXPECT_EQ(alias(0x1000 - 59).code, StatusCode::Alias);
  EXPECT_EQ(alias(0x2000 + 47).code, StatusCode::Alias);
  // Alias checks are about output memory.
  LinearCall shapes;
  shapes.outputs[0].data = 0x1000;
  EXPECT_EQ(run(shapes, /*checkOutputs=*/false).status.code, StatusCode::OK);
}

TEST(Contract, ZeroSizeTensorsAliasNothing) {
  auto loaded = build(reluOf(sym("S", 0, 10), in("x", "[\"S\"]")));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  std::vector<CallTensor> ins = {tensor(0x1000, 0, 1, {0})};
  std::vector<CallTensor> outs = {tensor(0x1000, 0, 0, {})};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
  EXPECT_EQ(r.outputShapes, std::vector<std::vector<int64_t>>({{0}}));
  ins[0] = tensor(0x1000, 4, 1, {1});
  outs[0] = tensor(0x1000, 4, 0, {});
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.code, StatusCode::Alias);
  // A larger buffer than needed does not widen the checked range.
  ins[0] = tensor(0x1000, 1 << 20, 1, {1});
  outs[0] = tensor(0x1004, 4, 0, {});
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(r.status.code, StatusCode::OK) << str(r.status);
}

TEST(Contract, OutputsMustNotOverlapEachOther) {
  auto loaded = build(
      program("", in("x", "[4]"),
              "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}, "
              "{\"name\": \"z\", \"op\": \"relu\", \"operands\": [\"y\"]}",
              "\"y\", \"z\""));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  const Guard &last = c.guards.back();
  EXPECT_EQ(last.kind, GuardKind::NoAlias);
  EXPECT_EQ(last.tensor, 1);
  EXPECT_EQ(last.expression, "z overlaps no input and no earlier output");
  std::vector<CallTensor> ins = {tensor(0x1000, 16, 1, {4})};
  std::vector<CallTensor> outs = {tensor(0x2000, 16, 0, {}),
                                  tensor(0x2008, 16, 0, {})};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "alias guard=" + std::to_string(last.id) +
                               " side=2 tensor=1 dim=-1 symbol=-1 min=2 max=0 "
                               "actual=0");
  EXPECT_EQ(formatStatusMessage(c, r.status),
            "output 'z' overlaps output 'y'; outputs must not share memory "
            "with inputs or other outputs [guard " +
                std::to_string(last.id) +
                ": z overlaps no input and no earlier output]");
  outs[1].data = 0x2010;
  EXPECT_EQ(evaluateGuards(c, &ins, &outs).status.code, StatusCode::OK);
}

TEST(Contract, SymbolFormAndHugeDims) {
  auto loaded = build(reluOf(sym("S", 1, 8), in("x", "[\"2*S+1\"]")));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  std::vector<CallTensor> outs = {tensor(0x9000, 1000, 0, {})};
  auto run = [&](int64_t dim) {
    std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {dim})};
    return evaluateGuards(c, &ins, &outs);
  };
  CallResult ok = run(17);
  EXPECT_EQ(ok.status.code, StatusCode::OK) << str(ok.status);
  EXPECT_EQ(ok.symbolValues, std::vector<int64_t>({8}));
  EXPECT_EQ(ok.outputShapes, std::vector<std::vector<int64_t>>({{17}}));
  // Even: not of the form 2*S+1.
  CallStatus s = run(8).status;
  EXPECT_EQ(str(s), "dim guard=7 side=1 tensor=0 dim=0 symbol=0 min=0 max=0 "
                    "actual=8");
  EXPECT_EQ(formatStatusMessage(c, s),
            "input 'x' dimension 0 must be 2*S+1 for an integer S, got 8 "
            "[guard 7: x.shape[0] == 2*S+1 for an integer S]");
  // Odd but out of range: S = 9, or S = -1 for a dim of -1.
  EXPECT_EQ(str(run(19).status), "symbol_range guard=8 side=1 tensor=0 dim=0 "
                                 "symbol=0 min=1 max=8 actual=9");
  EXPECT_EQ(run(-1).status.actual, -1);
  EXPECT_EQ(run(1).status.actual, 0);
  // INT64_MAX - 1 is even, so INT64_MAX is odd: S = 2^62 - 1.
  EXPECT_EQ(str(run(kMax).status),
            "symbol_range guard=8 side=1 tensor=0 dim=0 symbol=0 min=1 max=8 "
            "actual=4611686018427387903");
  // INT64_MIN - 1 does not fit in int64; it is odd, so the form fails.
  EXPECT_EQ(str(run(kMin).status), "dim guard=7 side=1 tensor=0 dim=0 "
                                   "symbol=0 min=0 max=0 actual=" +
                                       std::to_string(kMin));
  EXPECT_EQ(run(kMin + 1).status.actual, -(int64_t(1) << 62));
}

TEST(Contract, SymbolRangeActualIsClampedToInt64) {
  {
    // S = dim + 5 overflows int64 for INT64_MAX.
    auto loaded = build(reluOf(sym("S", 5, 100), in("x", "[\"S-5\"]")));
    ASSERT_TRUE(loaded->contract);
    std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {kMax})};
    std::vector<CallTensor> outs = {tensor(0x9000, 1000, 0, {})};
    CallResult r = evaluateGuards(*loaded->contract, &ins, &outs);
    EXPECT_EQ(str(r.status), "symbol_range guard=7 side=1 tensor=0 dim=0 "
                             "symbol=0 min=5 max=100 actual=" +
                                 std::to_string(kMax));
    EXPECT_EQ(loaded->contract->guards[7].expression,
              "5 <= S <= 100 where S = (x.shape[0] - (-5))");
    ins[0].dims = {kMin};
    r = evaluateGuards(*loaded->contract, &ins, &outs);
    EXPECT_EQ(r.status.actual, kMin + 5);
  }
  {
    // S = dim - 5 underflows int64 for INT64_MIN.
    auto loaded = build(reluOf(sym("S", 0, 100), in("x", "[\"S+5\"]")));
    ASSERT_TRUE(loaded->contract);
    std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {kMin})};
    std::vector<CallTensor> outs = {tensor(0x9000, 1000, 0, {})};
    CallResult r = evaluateGuards(*loaded->contract, &ins, &outs);
    EXPECT_EQ(r.status.code, StatusCode::SymbolRange);
    EXPECT_EQ(r.status.actual, kMin);
    ins[0].dims = {kMax};
    r = evaluateGuards(*loaded->contract, &ins, &outs);
    EXPECT_EQ(r.status.actual, kMax - 5);
  }
}

TEST(Contract, DimEqualsWithHugeDims) {
  auto loaded = build(reluOf(sym("S", 1, 8), in("x", "[\"S\"]") + ", " +
                                                 in("z", "[\"S\", \"2*S\"]")));
  ASSERT_TRUE(loaded->contract);
  const Contract &c = *loaded->contract;
  std::vector<CallTensor> ins = {tensor(0x1000, 1000, 1, {3}),
                                 tensor(0x2000, 1000, 1, {3, kMax})};
  std::vector<CallTensor> outs = {tensor(0x9000, 1000, 0, {})};
  CallResult r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "symbol_mismatch guard=12 side=1 tensor=1 dim=1 "
                           "symbol=-1 min=6 max=6 actual=" +
                               std::to_string(kMax));
  ins[1].dims = {kMin, 6};
  r = evaluateGuards(c, &ins, &outs);
  EXPECT_EQ(str(r.status), "symbol_mismatch guard=11 side=1 tensor=1 dim=0 "
                           "symbol=-1 min=3 max=3 actual=" +
                               std::to_string(kMin));
  ins[1].dims = {3, 6};
  EXPECT_EQ(evaluateGuards(c, &ins, &outs).status.code, StatusCode::OK);
}

//===----------------------------------------------------------------------===//
// Names and messages
//===----------------------------------------------------------------------===//

TEST(Contract, StatusCodeNames) {
  ASSERT_EQ(std::size(kStatusCodes), 14u);
  for (size_t i = 0; i < std::size(kStatusCodes); ++i)
    EXPECT_EQ(int(kStatusCodes[i].code), int(i));
  EXPECT_EQ(statusCodeMacro(StatusCode::OK), "TXC_OK");
  EXPECT_EQ(statusCodeMacro(StatusCode::SymbolDivisibility),
            "TXC_E_SYMBOL_DIVISIBILITY");
  EXPECT_EQ(statusCodeMacro(StatusCode::Alias), "TXC_E_ALIAS");
  EXPECT_EQ(statusCodeName(StatusCode::BufferTooSmall), "buffer_too_small");
  EXPECT_EQ(statusCodeDescription(StatusCode::Rank),
            "a tensor has the wrong rank");
  EXPECT_EQ(guardKindName(GuardKind::SymbolForm), "symbol_form");
  EXPECT_EQ(guardKindName(GuardKind::NoAlias), "no_alias");
  EXPECT_EQ(statusCodeMacro(StatusCode::IndexOutOfRange),
            "TXC_E_INDEX_OUT_OF_RANGE");
  EXPECT_EQ(int(StatusCode::IndexOutOfRange), 11);
  EXPECT_EQ(guardKindName(GuardKind::IndexInRange), "index_in_range");
  EXPECT_EQ(statusCodeMacro(StatusCode::Weights), "TXC_E_WEIGHTS");
  EXPECT_EQ(int(StatusCode::Weights), 12);
  EXPECT_EQ(statusCodeMacro(StatusCode::Workspace), "TXC_E_WORKSPACE");
  EXPECT_EQ(int(StatusCode::Workspace), 13);
}

// The codes before the guards have messages on the host too, and a value
// that is no status code (an object returns a plain int32_t) is named, not
// a crash.
TEST(Contract, MessagesOfCodesThatNameNoGuard) {
  CallStatus status;
  status.code = StatusCode::Workspace;
  EXPECT_EQ(genericStatusMessage(status),
            "error 13: the workspace is NULL, misaligned or too small, or "
            "could not be allocated");
  status.code = StatusCode(99);
  EXPECT_EQ(genericStatusMessage(status), "error 99: unknown status code");
  EXPECT_EQ(statusCodeMacro(StatusCode(99)), "unknown");
}

TEST(Contract, GenericMessages) {
  auto loaded = contractOfLinear();
  ASSERT_TRUE(loaded && loaded->contract);
  CallStatus ok;
  EXPECT_EQ(formatStatusMessage(*loaded->contract, ok), "success");
  CallStatus unknown;
  unknown.code = StatusCode::DType;
  unknown.guard = 999;
  EXPECT_EQ(formatStatusMessage(*loaded->contract, unknown),
            "error 3: a tensor has the wrong dtype");
  unknown.guard = -1;
  EXPECT_EQ(genericStatusMessage(unknown),
            "error 3: a tensor has the wrong dtype");
  CallStatus alias;
  alias.code = StatusCode::Alias;
  alias.expectedMin = int64_t(TensorSide::Input);
  alias.expectedMax = 7;
  EXPECT_EQ(aliasPartnerName(*loaded->contract, alias), "another tensor");
  alias.expectedMin = int64_t(TensorSide::Output);
  alias.expectedMax = 0;
  EXPECT_EQ(aliasPartnerName(*loaded->contract, alias), "output 'Y'");
  alias.expectedMin = 0;
  EXPECT_EQ(aliasPartnerName(*loaded->contract, alias), "another tensor");
}

TEST(Contract, FormatStatusMessageFillsEveryPlaceholder) {
  Contract c;
  c.inputs.push_back({"in", TensorType(), Loc(), ""});
  Guard g;
  g.id = 0;
  g.code = StatusCode::Dim;
  g.expression = "e";
  g.message = "{expected_min}..{expected_max}|{actual}|{other}|{expected_min}";
  c.guards.push_back(g);
  CallStatus s;
  s.code = StatusCode::Dim;
  s.guard = 0;
  s.expectedMin = int64_t(TensorSide::Input);
  s.expectedMax = 0;
  s.actual = -42;
  EXPECT_EQ(formatStatusMessage(c, s), "1..0|-42|input 'in'|1 [guard 0: e]");
}

} // namespace
