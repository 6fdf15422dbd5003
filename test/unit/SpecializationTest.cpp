//===- SpecializationTest.cpp ---------------------------------------------===//
//
// --specialize parsed against a contract, the dispatch order, and what a
// variant's contract and program look like after binding.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/Specialization.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace txc;
using namespace txc::test;

namespace {

/// Y = relu(X) with X of shape [B, S], B in [1, 64], S in [8, 512] step 8.
std::unique_ptr<Loaded> twoSymbols() {
  auto loaded = contract(program(
      R"({"name": "B", "min": 1, "max": 64},
         {"name": "S", "min": 8, "max": 512, "multiple_of": 8})",
      R"({"name": "X", "dtype": "f32", "shape": ["B", "S"]})",
      R"({"name": "y", "op": "relu", "operands": ["X"]})", R"("y")"));
  EXPECT_TRUE(loaded->contract) << dump(loaded->diags);
  return loaded;
}

std::vector<std::string> texts(const Contract &contract,
                               const std::vector<ContractVariant> &variants) {
  std::vector<std::string> out;
  for (const ContractVariant &variant : variants)
    out.push_back(std::to_string(variant.id) + ":" + variant.text(contract) +
                  ":" + variant.name(contract));
  return out;
}

TEST(Specialization, SetsExpandToOneVariantPerValue) {
  auto loaded = twoSymbols();
  DiagnosticEngine diags;
  auto variants = parseSpecializations(
      {"B=1", "S in {128, 256}", "B in {1,2}, S in {8,16}"}, *loaded->contract,
      diags);
  ASSERT_TRUE(variants) << dump(diags);
  EXPECT_EQ(texts(*loaded->contract, *variants),
            (std::vector<std::string>{"1:B=1:B1", "2:S=128:S128",
                                      "3:S=256:S256", "4:B=1,S=8:B1_S8",
                                      "5:B=1,S=16:B1_S16", "6:B=2,S=8:B2_S8",
                                      "7:B=2,S=16:B2_S16"}));
}

TEST(Specialization, DispatchPrefersMoreBoundSymbolsThenDeclarationOrder) {
  auto loaded = twoSymbols();
  const Contract &c = *loaded->contract;
  DiagnosticEngine diags;
  auto variants =
      parseSpecializations({"B=1", "S=128", "B=1,S=128", "S in {128}"}, c,
                           diags);
  // S=128 is given twice (ids 2 and 4): the second is rejected.
  EXPECT_FALSE(variants);
  variants = parseSpecializations({"B=1", "S=128", "B=1,S=128"}, c, diags);
  ASSERT_TRUE(variants) << dump(diags);
  std::vector<int32_t> order;
  for (const ContractVariant *variant : dispatchOrder(*variants))
    order.push_back(variant->id);
  EXPECT_EQ(order, (std::vector<int32_t>{3, 1, 2}));
  EXPECT_EQ(chooseVariant(*variants, {1, 128}), 3);
  EXPECT_EQ(chooseVariant(*variants, {1, 256}), 1);
  EXPECT_EQ(chooseVariant(*variants, {2, 128}), 2);
  EXPECT_EQ(chooseVariant(*variants, {2, 256}), 0);
}

TEST(Specialization, RejectsWhatDoesNotFitTheContract) {
  auto loaded = twoSymbols();
  const char *bad[] = {"C=1",      "B=0",       "B=65",     "S=12",
                       "B=1,B=2",  "B in {1,1}", "B",       "B=x",
                       "B in 1",   "S in {8,12}"};
  for (const char *text : bad) {
    DiagnosticEngine diags;
    EXPECT_FALSE(parseSpecializations({text}, *loaded->contract, diags))
        << text;
    ASSERT_EQ(diags.errorCount(), 1u) << text;
    EXPECT_EQ(diags.diagnostics()[0].category, DiagCategory::Usage) << text;
  }
}

TEST(Specialization, BindingNarrowsTheContractAndMakesShapesStatic) {
  auto loaded = twoSymbols();
  const Contract &generic = *loaded->contract;
  ContractVariant variant;
  variant.id = 1;
  variant.bindings = {{0, 4}};
  Contract bound = bindVariant(generic, variant, "p_v1");
  EXPECT_EQ(bound.entryPrefix, "p_v1");
  EXPECT_EQ(bound.symbols[0].min, 4);
  EXPECT_EQ(bound.symbols[0].max, 4);
  EXPECT_EQ(bound.symbols[1].min, 8);
  EXPECT_EQ(bound.guards.size(), generic.guards.size());
  EXPECT_EQ(bound.inputs[0].type.shape[0].getConstant(), 4);
  EXPECT_FALSE(bound.inputs[0].type.shape[1].isConstant());
  EXPECT_EQ(bound.outputs[0].type.shape[0].getConstant(), 4);

  bindProgramSymbols(*loaded->program, variant.bindings);
  const Program &program = *loaded->program;
  EXPECT_EQ(program.inputs[0].type.shape[0].getConstant(), 4);
  EXPECT_EQ(program.body.nodes[0].resultTypes[0].shape[0].getConstant(), 4);
  EXPECT_FALSE(
      program.body.nodes[0].resultTypes[0].shape[1].isConstant());
  EXPECT_EQ(program.body.outputs[0].type.shape[0].getConstant(), 4);
  EXPECT_EQ(program.symbols[0].min, 4);
  EXPECT_EQ(program.symbols[0].max, 4);
}

} // namespace
