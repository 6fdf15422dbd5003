//===- RegistryTest.cpp - Every registered op is implemented everywhere ---===//
#include "txc/Analysis/ShapeInference.h"
#include "txc/Conversion/ProgramToMLIR.h"
#include "txc/Program/OpRegistry.h"

#include <gtest/gtest.h>

#include <set>

using namespace txc;

TEST(Registry, EveryOpHasAShapeRuleAndALowering) {
  for (const OpInfo &info : allOps()) {
    EXPECT_TRUE(hasShapeRule(info.kind)) << info.name.str();
    EXPECT_TRUE(hasLowering(info.kind)) << info.name.str();
  }
}

TEST(Registry, NamesAreUniqueAndNotAlsoUnsupported) {
  std::set<std::string> names;
  for (const OpInfo &info : allOps()) {
    EXPECT_TRUE(names.insert(info.name.str()).second) << info.name.str();
    EXPECT_EQ(lookupUnsupportedOp(info.name), nullptr) << info.name.str();
    EXPECT_EQ(lookupOp(info.name), &info);
  }
}

TEST(Registry, SuggestsCloseNames) {
  EXPECT_EQ(suggestOpName("matmull"), "matmul");
  EXPECT_EQ(suggestOpName("MatMul"), "matmul");
  EXPECT_EQ(suggestOpName("completely_different"), "");
}
