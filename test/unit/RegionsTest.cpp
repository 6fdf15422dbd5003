//===- RegionsTest.cpp ----------------------------------------------------===//
//
// The cut of a verified program into kernel regions (planRegions): where
// regions begin, what they read and hand on, and which share a function.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/Regions.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace txc;
using namespace txc::test;

namespace {

/// The plan as one line per region: "kind f<function>: nodes | inputs ->
/// outputs".
std::vector<std::string> describe(const Program &program,
                                  const RegionPlan &plan) {
  std::vector<std::string> lines;
  for (const Region &region : plan.regions) {
    std::string line = regionKindName(region.kind).str() + " f" +
                       std::to_string(region.function) + ":";
    for (unsigned n = region.firstNode; n < region.endNode; ++n)
      line += " " + program.body.nodes[n].name;
    line += " |";
    for (const std::string &input : region.inputs)
      line += " " + input;
    line += " ->";
    for (const std::string &output : region.outputs)
      line += " " + output;
    lines.push_back(line);
  }
  return lines;
}

struct Planned {
  std::unique_ptr<Loaded> loaded;
  RegionPlan plan;
  std::vector<std::string> lines;
};

Planned plan(const std::string &text, RegionOptions options = {}) {
  Planned result;
  result.loaded = contract(text);
  EXPECT_TRUE(result.loaded->contract) << dump(result.loaded->diags);
  if (!result.loaded->contract)
    return result;
  result.plan = planRegions(*result.loaded->program, *result.loaded->contract,
                            options);
  result.lines = describe(*result.loaded->program, result.plan);
  return result;
}

/// Two MLP blocks of the same shapes on their own weights, then a softmax.
const char *kTwoBlocks = R"({
  "format": "txc.program", "version": 1, "name": "mlp",
  "symbols": [{"name": "B", "min": 1, "max": 64}],
  "inputs": [{"name": "x", "dtype": "f32", "shape": ["B", 8]},
             {"name": "w1", "dtype": "f32", "shape": [8, 8]},
             {"name": "b1", "dtype": "f32", "shape": [8]},
             {"name": "w2", "dtype": "f32", "shape": [8, 8]},
             {"name": "b2", "dtype": "f32", "shape": [8]}],
  "constants": [{"name": "half", "dtype": "f32", "shape": [], "data": 0.5}],
  "nodes": [
    {"name": "h1", "op": "matmul", "operands": ["x", "w1"]},
    {"name": "a1", "op": "add", "operands": ["h1", "b1"]},
    {"name": "r1", "op": "relu", "operands": ["a1"]},
    {"name": "s1", "op": "mul", "operands": ["r1", "half"]},
    {"name": "h2", "op": "matmul", "operands": ["s1", "w2"]},
    {"name": "a2", "op": "add", "operands": ["h2", "b2"]},
    {"name": "r2", "op": "relu", "operands": ["a2"]},
    {"name": "s2", "op": "mul", "operands": ["r2", "half"]},
    {"name": "p", "op": "softmax", "operands": ["s2"]},
    {"name": "t", "op": "reshape", "operands": ["p"],
     "attributes": {"shape": ["B", 2, 4]}}
  ],
  "outputs": [{"name": "y", "value": "t"}, {"name": "mid", "value": "r1"}]
})";

TEST(Regions, AnchorsBeginRegionsAndTakeTheirEpilogues) {
  Planned p = plan(kTwoBlocks);
  // The inline constant `half` is compiled into each function, not read;
  // r1 is handed on because the program returns it. The reshape after the
  // softmax begins a region of its own.
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "contraction f0: h1 a1 r1 s1 | x w1 b1 -> r1 s1",
                         "contraction f1: h2 a2 r2 s2 | s1 w2 b2 -> s2",
                         "row-chain f2: p | s2 -> p",
                         "elementwise f3: t | p -> t",
                     }));
}

TEST(Regions, IdenticalRegionsShareAFunction) {
  // The two blocks differ in what they hand on (r1 is an output): remove
  // that, and the blocks are the same computation on other weights.
  std::string text = kTwoBlocks;
  text.replace(text.find(R"(, {"name": "mid", "value": "r1"})"),
               std::string(R"(, {"name": "mid", "value": "r1"})").size(), "");
  Planned p = plan(text);
  ASSERT_EQ(p.lines.size(), 4u);
  EXPECT_EQ(p.lines[0], "contraction f0: h1 a1 r1 s1 | x w1 b1 -> s1");
  EXPECT_EQ(p.lines[1], "contraction f0: h2 a2 r2 s2 | s1 w2 b2 -> s2");
  ASSERT_EQ(p.plan.functions.size(), 3u);
  EXPECT_EQ(p.plan.functions[0].uses, 2u);
  EXPECT_EQ(p.plan.functions[0].firstRegion, 0u);
}

TEST(Regions, AttributesAndShapesMakeFunctionsDistinct) {
  std::string text = kTwoBlocks;
  text.replace(text.find(R"(, {"name": "mid", "value": "r1"})"),
               std::string(R"(, {"name": "mid", "value": "r1"})").size(), "");
  // Another width for the second block's weights.
  std::string wider = text;
  wider.replace(wider.find(R"("w2", "dtype": "f32", "shape": [8, 8])"),
                std::string(R"("w2", "dtype": "f32", "shape": [8, 8])").size(),
                R"("w2", "dtype": "f32", "shape": [8, 16])");
  wider.replace(wider.find(R"("b2", "dtype": "f32", "shape": [8])"),
                std::string(R"("b2", "dtype": "f32", "shape": [8])").size(),
                R"("b2", "dtype": "f32", "shape": [16])");
  wider.replace(wider.find(R"(["B", 2, 4])"), std::string(R"(["B", 2, 4])").size(),
                R"(["B", 4, 4])");
  EXPECT_EQ(plan(wider).plan.functions.size(), 4u);
  // Another inline constant value in the second block.
  std::string other = text;
  other.replace(other.find(R"("data": 0.5})"), std::string(R"("data": 0.5})").size(),
                R"("data": 0.5}, {"name": "third", "dtype": "f32", "shape": [], "data": 0.3})");
  other.replace(other.find(R"(["r2", "half"])"), std::string(R"(["r2", "half"])").size(),
                R"(["r2", "third"])");
  EXPECT_EQ(plan(other).plan.functions.size(), 4u);
}

TEST(Regions, LongChainsAreCutAndShared) {
  std::string nodes;
  std::string previous = "x";
  for (int i = 0; i < 100; ++i) {
    std::string name = "r" + std::to_string(i);
    nodes += std::string(i ? ", " : "") + R"({"name": ")" + name +
             R"(", "op": "relu", "operands": [")" + previous + R"("]})";
    previous = name;
  }
  std::string text = R"({"format": "txc.program", "version": 1, "name": "chain",
    "symbols": [{"name": "N", "min": 0, "max": 100}],
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["N"]}],
    "nodes": [)" + nodes + R"(],
    "outputs": [{"name": "y", "value": "r99"}]})";
  RegionOptions options;
  options.maxNodes = 32;
  Planned p = plan(text, options);
  ASSERT_EQ(p.plan.regions.size(), 4u);
  EXPECT_EQ(p.plan.regions[3].numNodes(), 4u);
  // Regions 0-2 are 32 relus from one input to one output: one function.
  EXPECT_EQ(p.plan.regions[0].function, p.plan.regions[2].function);
  EXPECT_NE(p.plan.regions[0].function, p.plan.regions[3].function);
  EXPECT_EQ(p.plan.functions.size(), 2u);
}

TEST(Regions, ViewsGoWithTheAnchorAfterThem) {
  Planned p = plan(R"({"format": "txc.program", "version": 1, "name": "attn",
    "symbols": [{"name": "S", "min": 1, "max": 64}],
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["S", 8]},
               {"name": "wq", "dtype": "f32", "shape": [8, 8]},
               {"name": "wk", "dtype": "f32", "shape": [8, 8]}],
    "nodes": [
      {"name": "q", "op": "matmul", "operands": ["x", "wq"]},
      {"name": "k", "op": "matmul", "operands": ["x", "wk"]},
      {"name": "kt", "op": "transpose", "operands": ["k"]},
      {"name": "qk", "op": "matmul", "operands": ["q", "kt"]},
      {"name": "p", "op": "softmax", "operands": ["qk"]}
    ],
    "outputs": [{"name": "y", "value": "p"}]})");
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "contraction f0: q | x wq -> q",
                         "contraction f0: k | x wk -> k",
                         "contraction f1: kt qk | k q -> qk",
                         "row-chain f2: p | qk -> p",
                     }));
}

TEST(Regions, ValuesReadInsideNestedGraphsAreInputs) {
  Planned p = plan(R"({"format": "txc.program", "version": 1, "name": "loop",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [4]},
               {"name": "w", "dtype": "f32", "shape": [4, 4]}],
    "nodes": [
      {"name": "h", "op": "matmul", "operands": ["x", "w"]},
      {"name": "z", "op": "relu", "operands": ["x"]},
      {"name": "l", "op": "while", "operands": ["h"],
       "attributes": {"max_iterations": 3},
       "regions": {
         "cond": {"inputs": [{"name": "c", "dtype": "f32", "shape": [4]}],
                  "nodes": [{"name": "m", "op": "max", "operands": ["c"]},
                            {"name": "lt", "op": "lt", "operands": ["m", "m"]}],
                  "outputs": [{"name": "go", "value": "lt"}]},
         "body": {"inputs": [{"name": "v", "dtype": "f32", "shape": [4]}],
                  "nodes": [{"name": "n", "op": "add", "operands": ["v", "z"]}],
                  "outputs": [{"name": "next", "value": "n"}]}}}
    ],
    "outputs": [{"name": "y", "value": "l"}]})");
  // `z` is read by the loop body only: region 0 hands it on.
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "contraction f0: h z | x w -> h z",
                         "control-flow f1: l | h z -> l",
                     }));
}

TEST(Regions, LargeInlineConstantsAreInputsSmallOnesCompiledIn) {
  // Two layers with their own inline 4x12 weights (not stored: far below
  // the stored size) and one splat bias: the weights are region inputs, so
  // the layers share a function; the splat and the scalar stay compiled in.
  auto weights = [](double base) {
    std::string data;
    for (int i = 0; i < 48; ++i)
      data += (i ? ", " : "") + std::to_string(base + i);
    return "[" + data + "]";
  };
  std::string splat = "[0.25";
  for (int i = 1; i < 24; ++i)
    splat += ", 0.25";
  splat += "]";
  Planned p = plan(R"({"format": "txc.program", "version": 1, "name": "two",
    "symbols": [{"name": "B", "min": 1, "max": 8}],
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["B", 4]}],
    "constants": [
      {"name": "w1", "dtype": "f32", "shape": [4, 12], "data": )" +
                   weights(1) + R"(},
      {"name": "w2", "dtype": "f32", "shape": [4, 12], "data": )" +
                   weights(100) + R"(},
      {"name": "bias", "dtype": "f32", "shape": [24], "data": )" + splat +
                   R"(},
      {"name": "k", "dtype": "f32", "shape": [], "data": 2}],
    "nodes": [
      {"name": "h1", "op": "matmul", "operands": ["x", "w1"]},
      {"name": "s1", "op": "mul", "operands": ["h1", "k"]},
      {"name": "h2", "op": "matmul", "operands": ["x", "w2"]},
      {"name": "s2", "op": "mul", "operands": ["h2", "k"]},
      {"name": "c", "op": "concat", "operands": ["s1", "s2"],
       "attributes": {"axis": 1}},
      {"name": "y", "op": "add", "operands": ["c", "bias"]}],
    "outputs": [{"name": "y", "value": "y"}]})");
  ASSERT_GE(p.lines.size(), 2u);
  EXPECT_EQ(p.lines[0], "contraction f0: h1 s1 | x w1 -> s1");
  EXPECT_EQ(p.lines[1], "contraction f0: h2 s2 | x w2 -> s2");
  for (const std::string &line : p.lines)
    EXPECT_EQ(line.find("bias"), std::string::npos) << line;
}

TEST(Regions, PlanAsJson) {
  Planned p = plan(kTwoBlocks);
  nlohmann::ordered_json json = regionPlanToJson(*p.loaded->program, p.plan);
  EXPECT_EQ(json["format"], "txc.regions");
  ASSERT_EQ(json["regions"].size(), 4u);
  EXPECT_EQ(json["regions"][0]["kind"], "contraction");
  EXPECT_EQ(json["regions"][0]["nodes"],
            nlohmann::ordered_json({"h1", "a1", "r1", "s1"}));
  EXPECT_EQ(json["functions"][0]["key"].get<std::string>().size(), 64u);
}

} // namespace
