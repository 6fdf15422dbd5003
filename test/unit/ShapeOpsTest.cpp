//===- ShapeOpsTest.cpp - Slice semantics and index guards ----------------===//
#include "txc/Analysis/Contract.h"
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Support/SourceFile.h"

#include <gtest/gtest.h>

using namespace txc;

namespace {

AttrValue intList(std::vector<int64_t> values) {
  AttrValue list;
  list.kind = AttrValue::Kind::List;
  for (int64_t v : values) {
    AttrValue item;
    item.kind = AttrValue::Kind::Int;
    item.integer = v;
    list.list.push_back(item);
  }
  return list;
}

Node sliceNode(int64_t start, int64_t end, int64_t step) {
  Node node;
  node.name = "s";
  node.opName = "slice";
  node.kind = OpKind::Slice;
  node.attributes.push_back({"starts", intList({start}), Loc()});
  node.attributes.push_back({"ends", intList({end}), Loc()});
  node.attributes.push_back({"steps", intList({step}), Loc()});
  return node;
}

/// Python's slice(start, end, step).indices(dim) for step > 0, and the
/// number of elements: an independent statement of the semantics.
std::pair<int64_t, int64_t> pythonSlice(int64_t start, int64_t end,
                                        int64_t step, int64_t dim) {
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += dim;
    return std::min(std::max<int64_t>(v, 0), dim);
  };
  int64_t first = clamp(start), last = clamp(end);
  int64_t length = last > first ? (last - first + step - 1) / step : 0;
  return {first, length};
}

TEST(ShapeOps, SliceOnStaticDimsClampsLikePython) {
  Program program;
  for (int64_t dim = 0; dim <= 6; ++dim)
    for (int64_t start = -9; start <= 9; ++start)
      for (int64_t end = -9; end <= 9; ++end)
        for (int64_t step = 1; step <= 3; ++step) {
          Node node = sliceNode(start, end, step);
          InferenceContext ctx(
              program, node,
              {TensorType{DType::F32, {ShapeExpr::constant(dim)}}});
          auto axes = resolveSlice(ctx);
          ASSERT_TRUE(axes && axes->size() == 1);
          auto [first, length] = pythonSlice(start, end, step, dim);
          SCOPED_TRACE(std::to_string(start) + ":" + std::to_string(end) +
                       ":" + std::to_string(step) + " of " +
                       std::to_string(dim));
          EXPECT_EQ((*axes)[0].length.getConstant(), length);
          if (length > 0) {
            EXPECT_EQ((*axes)[0].start.getConstant(), first);
          }
        }
}

TEST(ShapeOps, SliceOnSymbolicDimsIsExactWhereAccepted) {
  Program program;
  program.symbols.push_back({"S", 3, 12, 1, Loc()});
  int accepted = 0;
  const std::vector<int64_t> starts = {-20, -13, -12, -5, -3, -1, 0,
                                       1,   3,   5,   12, 20, INT64_MIN,
                                       INT64_MAX};
  const std::vector<int64_t> ends = {-20, -12, -4, -3, -1, 0,
                                     2,   3,   4,  12, 13, INT64_MAX};
  for (int64_t start : starts)
    for (int64_t end : ends)
      for (int64_t step : {1, 2}) {
        Node node = sliceNode(start, end, step);
        InferenceContext ctx(
            program, node, {TensorType{DType::F32, {ShapeExpr::symbol({0})}}});
        auto axes = resolveSlice(ctx);
        if (!axes) {
          EXPECT_FALSE(ctx.problems.empty());
          continue;
        }
        ++accepted;
        // One polynomial must be right for every value of S.
        for (int64_t s = 3; s <= 12; ++s) {
          auto [first, length] = pythonSlice(start, end, step, s);
          SCOPED_TRACE(std::to_string(start) + ":" + std::to_string(end) +
                       ":" + std::to_string(step) + " of S=" +
                       std::to_string(s));
          EXPECT_EQ((*axes)[0].length.evaluate({s}), length);
          if (length > 0) {
            EXPECT_EQ((*axes)[0].start.evaluate({s}), first);
          }
        }
      }
  // Bounds within [-3, 3] of either end are always accepted with step 1.
  EXPECT_GT(accepted, 40);
}

std::unique_ptr<Program> parseProgram(const std::string &text,
                                      DiagnosticEngine &diags) {
  SourceFile file("p.json", text);
  auto program = readProgram(file, diags);
  if (!program || !verifyProgram(*program, diags))
    return nullptr;
  return program;
}

TEST(ShapeOps, ContractHasOneIndexGuardPerNode) {
  const char *text = R"({
  "format": "txc.program", "version": 1, "name": "g",
  "symbols": [{"name": "V", "min": 1, "max": 100}, {"name": "N", "min": 0, "max": 8}],
  "inputs": [
    {"name": "W", "dtype": "f32", "shape": ["V", 3]},
    {"name": "ids", "dtype": "i64", "shape": ["N"]},
    {"name": "cols", "dtype": "i32", "shape": [2]}
  ],
  "nodes": [
    {"name": "e", "op": "embedding", "operands": ["W", "ids"]},
    {"name": "r", "op": "relu", "operands": ["cols"]},
    {"name": "g", "op": "gather", "operands": ["e", "r"], "attributes": {"axis": -1}}
  ],
  "outputs": ["g"]
})";
  DiagnosticEngine diags;
  auto program = parseProgram(text, diags);
  ASSERT_TRUE(program);
  auto contract = buildContract(*program, "", diags);
  ASSERT_TRUE(contract);
  const auto &guards = contract->guards;
  ASSERT_GE(guards.size(), 2u);
  const Guard &emb = guards[guards.size() - 2], &gather = guards.back();
  for (const Guard *g : {&emb, &gather}) {
    EXPECT_EQ(g->kind, GuardKind::IndexInRange);
    EXPECT_EQ(g->code, StatusCode::IndexOutOfRange);
    EXPECT_TRUE(isDataDependent(g->kind));
  }
  EXPECT_EQ(emb.node, "e");
  EXPECT_EQ(emb.expression, "0 <= ids[*] < V");
  EXPECT_EQ(emb.side, TensorSide::Input);
  EXPECT_EQ(emb.tensor, 1);
  EXPECT_EQ(gather.node, "g");
  EXPECT_EQ(gather.expression, "0 <= r[*] < 3"); // e is [N,3], axis -1
  EXPECT_EQ(gather.side, TensorSide::None);     // r is not an input
  EXPECT_EQ(gather.tensor, -1);
  // No other guard is data-dependent, and they all come first.
  for (size_t i = 0; i + 2 < guards.size(); ++i)
    EXPECT_FALSE(isDataDependent(guards[i].kind)) << i;

  // The host cannot see indices: a call that fits the shapes passes.
  std::vector<CallTensor> inputs(3), outputs(1);
  inputs[0] = {0x1000, 4 * 3 * 10, int32_t(DType::F32), {10, 3}};
  inputs[1] = {0x2000, 8 * 4, int32_t(DType::I64), {4}};
  inputs[2] = {0x3000, 4 * 2, int32_t(DType::I32), {2}};
  outputs[0] = {0x4000, 4 * 4 * 2, 0, {}};
  CallResult result = evaluateGuards(*contract, &inputs, &outputs);
  EXPECT_EQ(result.status.code, StatusCode::OK);
  ASSERT_EQ(result.outputShapes.size(), 1u);
  EXPECT_EQ(result.outputShapes[0], (std::vector<int64_t>{4, 2}));

  // What the object reports when the kernel finds an index out of range.
  CallStatus status;
  status.code = StatusCode::IndexOutOfRange;
  status.guard = int32_t(emb.id);
  status.expectedMin = 0;
  status.expectedMax = 9;
  status.actual = -1;
  EXPECT_EQ(formatStatusMessage(*contract, status),
            "index -1 in 'ids' (operand 1 of 'embedding' node 'e') is out of "
            "range [0, 9] [guard " +
                std::to_string(emb.id) + ": 0 <= ids[*] < V]");
  status.guard = 1000;
  EXPECT_EQ(formatStatusMessage(*contract, status),
            "error 11: an index of an indexing op (gather, scatter, ...) is "
            "out of range");
}

} // namespace
