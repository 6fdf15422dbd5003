//===- ShapeExprTest.cpp --------------------------------------------------===//
#include "txc/Program/ShapeExpr.h"

#include <gtest/gtest.h>

#include <limits>

using namespace txc;

namespace {

std::vector<std::string> names = {"B", "S", "T"};

std::optional<uint32_t> lookup(llvm::StringRef name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return uint32_t(i);
  return std::nullopt;
}

ShapeExpr parse(llvm::StringRef text) {
  std::string error;
  size_t offset = 0;
  auto expr = ShapeExpr::parse(text, lookup, error, offset);
  EXPECT_TRUE(expr.has_value()) << text.str() << ": " << error;
  return expr.value_or(ShapeExpr());
}

TEST(ShapeExpr, ParsesAndPrintsCanonically) {
  EXPECT_EQ(parse("2*S+1").toString(names), "2*S+1");
  EXPECT_EQ(parse("1 + S*2").toString(names), "2*S+1");
  EXPECT_EQ(parse("S+T-S").toString(names), "T");
  EXPECT_EQ(parse("(B+1)*(B-1)").toString(names), "B*B-1");
  EXPECT_EQ(parse("4*B*S").toString(names), "4*B*S");
  EXPECT_EQ(parse("-S+3").toString(names), "-S+3");
  EXPECT_EQ(parse("0").toString(names), "0");
}

TEST(ShapeExpr, EqualityIsStructural) {
  EXPECT_EQ(parse("S+T"), parse("T+S"));
  EXPECT_EQ(parse("2*(S+1)"), parse("2*S+2"));
  EXPECT_NE(parse("S"), parse("T"));
  EXPECT_EQ(parse("S").getSingleSymbol(), 1u);
  EXPECT_FALSE(parse("2*S").getSingleSymbol());
  EXPECT_EQ(parse("7").getConstant(), 7);
}

TEST(ShapeExpr, ReportsParseErrorsWithOffsets) {
  std::string error;
  size_t offset = 0;
  EXPECT_FALSE(ShapeExpr::parse("2*Q", lookup, error, offset));
  EXPECT_EQ(error, "unknown symbol 'Q'");
  EXPECT_EQ(offset, 2u);
  EXPECT_FALSE(ShapeExpr::parse("S+", lookup, error, offset));
  EXPECT_FALSE(ShapeExpr::parse("(S", lookup, error, offset));
  EXPECT_FALSE(ShapeExpr::parse("S)", lookup, error, offset));
  EXPECT_FALSE(ShapeExpr::parse("99999999999999999999", lookup, error, offset));
  EXPECT_FALSE(
      ShapeExpr::parse("9223372036854775807*2", lookup, error, offset));
  EXPECT_NE(error.find("overflow"), std::string::npos);
  EXPECT_EQ(offset, 19u); // at the '*' that overflows, not the end
  error.clear();
  EXPECT_FALSE(ShapeExpr::parse("S + 9223372036854775807 + 1", lookup, error,
                                offset));
  EXPECT_EQ(offset, 24u);
}

// Unary minus nests like parentheses: a manifest's dim of a million '-'
// signs overflowed the stack of `txc verify` and `txc diff` (the program
// reader limits dims to 256 characters; the manifest reader does not).
TEST(ShapeExpr, LimitsNestedNegation) {
  EXPECT_EQ(parse("--S").toString(names), "S");
  EXPECT_EQ(parse(std::string(32, '-') + "S").toString(names), "S");
  std::string error;
  size_t offset = 0;
  EXPECT_FALSE(ShapeExpr::parse(std::string(33, '-') + "S", lookup, error,
                                offset));
  EXPECT_EQ(error, "expression nested too deeply");
  EXPECT_EQ(offset, 32u);
  EXPECT_FALSE(ShapeExpr::parse(std::string(1 << 22, '-') + "S", lookup,
                                error, offset));
  EXPECT_FALSE(ShapeExpr::parse(std::string(1 << 22, '(') + "S", lookup,
                                error, offset));
}

// Found by txc-dims-fuzzer: S - 2^63 was an expression whose text
// ("S-9223372036854775808") parse rejects. Coefficients never reach
// INT64_MIN: it is an overflow, as the literal 2^63 is.
TEST(ShapeExpr, CoefficientsStayPrintable) {
  std::string error;
  size_t offset = 0;
  EXPECT_FALSE(ShapeExpr::parse("S - 9223372036854775806 - 2", lookup, error,
                                offset));
  EXPECT_NE(error.find("overflow"), std::string::npos);
  EXPECT_FALSE(ShapeExpr::parse("-9223372036854775807*S-S", lookup, error,
                                offset));
  EXPECT_FALSE(ShapeExpr::mul(ShapeExpr::constant(-(int64_t(1) << 62)),
                              ShapeExpr::constant(2)));
  ShapeExpr lowest = parse("S-9223372036854775807");
  EXPECT_EQ(parse(lowest.toString(names)), lowest);
}

TEST(ShapeExpr, EvaluatesWithOverflowChecks) {
  EXPECT_EQ(parse("2*S+1").evaluate({0, 5, 0}), 11);
  EXPECT_EQ(parse("B*S").evaluate({3, 4, 0}), 12);
  int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  EXPECT_FALSE(parse("2*S").evaluate({0, big, 0}).has_value());
}

TEST(ShapeExpr, BoundsOverRanges) {
  std::vector<Interval> ranges = {{1, 4096}, {1, 512}, {0, 3}};
  Interval b = parse("2*S+1").bounds(ranges);
  EXPECT_EQ(b.min, 3);
  EXPECT_EQ(b.max, 1025);
  Interval c = parse("S-T").bounds(ranges);
  EXPECT_EQ(c.min, -2);
  EXPECT_EQ(c.max, 512);
}

TEST(ShapeExpr, BoundsOfMultilinearExpressionsAreExact) {
  std::vector<Interval> ranges = {{1, 4}, {2, 6}, {0, 3}};
  // 4*B*(S-1): the flattened [B,S-1,4] is never negative.
  Interval a = parse("4*B*S-4*B").bounds(ranges);
  EXPECT_EQ(a.min, 4);
  EXPECT_EQ(a.max, 80);
  Interval b = parse("B*T-B-T+5").bounds(ranges); // (B-1)*(T-1)+4
  EXPECT_EQ(b.min, 1);
  EXPECT_EQ(b.max, 10);
  // S*S is not multilinear: interval arithmetic, still sound.
  Interval c = parse("S*S-4*S").bounds(ranges);
  EXPECT_LE(c.min, -4);
  EXPECT_GE(c.max, 12);
}

TEST(ShapeExpr, LinearDecomposition) {
  auto form = parse("2*S+T+1").linearIn(1);
  ASSERT_TRUE(form);
  EXPECT_EQ(form->coeff, 2);
  EXPECT_EQ(form->rest.toString(names), "T+1");
  EXPECT_FALSE(parse("S*S").linearIn(1));
  EXPECT_FALSE(parse("B*S").linearIn(1));
  EXPECT_FALSE(parse("T").linearIn(1));
}

TEST(ShapeExpr, ExactDivision) {
  auto q = ShapeExpr::divExact(parse("4*B*S"), parse("4*B"));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->toString(names), "S");
  EXPECT_FALSE(ShapeExpr::divExact(parse("4*B+1"), parse("4")));
  auto r = ShapeExpr::divExact(parse("2*S*T+2*T"), parse("S+1"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->toString(names), "2*T");
}

} // namespace
