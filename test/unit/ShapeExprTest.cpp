//===- ShapeExprTest.cpp --------------------------------------------------===//
#include "txc/Program/ShapeExpr.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

using namespace txc;

namespace {

// B, S, T as in most programs; M and N declared multiple_of 8 and 2, H
// multiple_of 2^32 (the largest multiple_of a program may declare).
std::vector<std::string> names = {"B", "S", "T", "M", "N", "H"};
std::vector<int64_t> multiples = {1, 1, 1, 8, 2, int64_t(1) << 32};

std::optional<SymbolRef> lookup(llvm::StringRef name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return SymbolRef{uint32_t(i), multiples[i]};
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

// Found by txc-dims-fuzzer: "B//30*7*729%201%5802..." parses without a
// parenthesis (the operators group from the left), but nests one '%' in the
// next, and toString writes two parentheses per level: past 16 levels parse
// rejected what toString wrote ("expression nested too deeply").
TEST(ShapeExpr, DivisionsNestAtMostTenDeep) {
  std::string text = "S";
  for (unsigned depth = 1; depth <= ShapeExpr::kMaxDivisionNesting; ++depth) {
    text = "(1-3*(" + text + "))%" + std::to_string(6 + depth);
    ShapeExpr expr = parse(text);
    EXPECT_EQ(expr.divisionDepth(), depth);
    EXPECT_EQ(parse(expr.toString(names)), expr) << expr.toString(names);
  }
  std::string error;
  size_t offset = 0;
  std::string deeper = "(1-3*(" + text + "))%17";
  EXPECT_FALSE(ShapeExpr::parse(deeper, lookup, error, offset));
  EXPECT_EQ(error, "more than 10 nested '//' and '%'");
  EXPECT_EQ(offset, deeper.size() - 3); // at the '%'
  ShapeExpr deepest = parse("1-3*(" + text + ")");
  EXPECT_FALSE(ShapeExpr::mod(deepest, 17));
  EXPECT_FALSE(ShapeExpr::floorDiv(deepest, 17));
  // Simplified away, the nesting is not counted.
  EXPECT_EQ(ShapeExpr::mod(deepest, 1), ShapeExpr());
  EXPECT_EQ(parse(text + "%4%2").divisionDepth(),
            ShapeExpr::kMaxDivisionNesting);
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

/// The error of parsing `text`, and its offset.
std::string parseError(llvm::StringRef text, size_t *offsetOut = nullptr) {
  std::string error;
  size_t offset = 0;
  EXPECT_FALSE(ShapeExpr::parse(text, lookup, error, offset)) << text.str();
  if (offsetOut)
    *offsetOut = offset;
  return error;
}

std::string canonical(llvm::StringRef text) {
  return parse(text).toString(names);
}

/// Each {text, printed}: `text` parses and prints as `printed`.
void expectCanonical(
    std::initializer_list<std::pair<const char *, const char *>> cases) {
  for (const auto &[text, printed] : cases)
    EXPECT_EQ(canonical(text), printed) << text;
}

TEST(ShapeExpr, FloorDivisionAndModuloByConstants) {
  expectCanonical({
      {"S//4", "S//4"},
      {"S // 4 + 1", "S//4+1"},
      {"(S+7)//8", "(S+7)//8"},
      {"S%4", "S%4"},
      {"3*(S//2)", "3*(S//2)"},
      {"S//2*3", "3*(S//2)"}, // left to right, like Python
      {"-(S//2)", "-(S//2)"},
      {"T-S%3", "T-(S%3)"}, // symbols before divisions
      {"(S%4)*(T//2)", "(T//2)*(S%4)"},
      {"(B*S)//8", "(B*S)//8"},
      // Constants fold with floor semantics; // 1 and % 1 vanish.
      {"7//2", "3"},
      {"-7//2", "-4"}, // (-7)//2: unary minus binds first
      {"-7%3", "2"},
      {"(S+T)//1", "S+T"},
      {"S%1", "0"},
      // Multiples of the divisor leave the division; common factors cancel.
      {"(4*S+3)//4", "S"},
      {"(4*S-1)//4", "S-1"},
      {"(4*S+T)//4", "S+T//4"},
      {"(4*S+3)%4", "3"},
      {"(2*S+2)//4", "(S+1)//2"},
      {"(2*S)%4", "2*(S%2)"},
      // Nested divisions.
      {"S//2//3", "S//6"},
      {"(S%8)%4", "S%4"},
      {"(S%4)%8", "S%4"},
      {"(S%4)//2", "(S%4)//2"},
  });
  // Equality is structural on the simplified form.
  EXPECT_EQ(parse("(S+4)//2"), parse("S//2+2"));
  EXPECT_NE(parse("S//2"), parse("S%2"));
  EXPECT_NE(parse("S//2"), parse("S//3"));
  EXPECT_TRUE(parse("S%2+1").hasFloorDivOrMod());
  EXPECT_FALSE(parse("M/8").hasFloorDivOrMod());
  EXPECT_TRUE(parse("M/8").hasDivision());
  EXPECT_FALSE(parse("M").hasDivision());
}

TEST(ShapeExpr, ExactDivisionProvenByMultipleOf) {
  expectCanonical({
      {"M/8", "M/8"},
      {"M / 4", "M/4"},
      {"3*M/8", "3*M/8"},
      {"M*N/16", "M*N/16"},
      {"M*N/4", "M*N/4"},
      {"(M+8)/8", "M/8+1"},
      {"(2*S+4)/2", "S+2"}, // divisible coefficients
      {"S-M/8", "S-M/8"},
  });
  // M is 8*(M/8): a multiple of 8 cancels, // and % by a divisor are exact.
  EXPECT_EQ(canonical("16*M"), "16*M");
  EXPECT_EQ(parse("16*M"), parse("128*(M/8)"));
  EXPECT_EQ(parse("M//8"), parse("M/8"));
  EXPECT_EQ(parse("(M+3)//8"), parse("M/8"));
  EXPECT_EQ(canonical("(M+3)%8"), "3");
  EXPECT_EQ(canonical("M%8"), "0");
  EXPECT_EQ(canonical("M%16"), "8*((M/8)%2)");
  EXPECT_EQ(parse("M").getSingleSymbol(), 3u);
  EXPECT_FALSE(parse("M/8").getSingleSymbol());
  auto q = parse("16*M").divExact(128);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->toString(names), "M/8");
  EXPECT_FALSE(parse("16*M").divExact(256));
  auto r = ShapeExpr::divExact(parse("16*M*S"), parse("2*S"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->toString(names), "8*M");
}

TEST(ShapeExpr, UnprovableDivisionSuggestsADeclaration) {
  size_t offset = 0;
  EXPECT_EQ(parseError("S/8", &offset),
            "'S' is not a multiple of 8 for every value of its symbols; "
            "declare symbol S with \"multiple_of\": 8, or write S as 8*G with "
            "a new symbol G, or round down with '//'");
  EXPECT_EQ(offset, 1u); // at the '/'
  // 2*S needs S to be a multiple of 4; M (multiple_of 8) of 24 for / 3.
  EXPECT_NE(
      parseError("2*S/8").find("declare symbol S with \"multiple_of\": 4"),
      std::string::npos);
  EXPECT_NE(parseError("M/3").find("declare symbol M with \"multiple_of\": 24"),
            std::string::npos);
  EXPECT_NE(parseError("(S+T)/2").find("'(S+T)' is not a multiple of 2"),
            std::string::npos);
  EXPECT_EQ(parseError("S//0", &offset),
            "the divisor of '//' must be positive, not 0");
  EXPECT_EQ(offset, 3u);
  EXPECT_EQ(parseError("S%-2"), "the divisor of '%' must be positive, not -2");
  EXPECT_EQ(parseError("S/(T+1)", &offset),
            "the divisor of '/' must be an integer constant");
  EXPECT_EQ(offset, 2u);
  EXPECT_EQ(parseError("S/ /2"), "unexpected '/'"); // '//' is one token
  EXPECT_EQ(parseError("S//"), "expected a number, a symbol or '('");
}

TEST(ShapeExpr, PrintedFormParsesBack) {
  for (const char *text :
       {"S//4", "(S+7)//8", "-(S//2)+T", "3*(S%4)", "M/8", "3*M/8", "-3*M/8+S",
        "M*N/16", "(M/8)//3", "(S-1)//2+1", "B*(S//2)*(T%3)", "-(S%3)",
        "2*(S//2)*(S//2)", "H/4294967296*H/4294967296", "3*H*M/34359738368",
        "(M*S)//3", "((S%4)//2)%3"}) {
    ShapeExpr expr = parse(text);
    std::string printed = expr.toString(names);
    EXPECT_EQ(parse(printed), expr) << text << " printed as " << printed;
  }
  // A denominator too large for int64 divides each symbol where it occurs.
  EXPECT_EQ(canonical("H/4294967296*H/4294967296"),
            "H/4294967296*H/4294967296");
  EXPECT_EQ(canonical("H/4294967296*M/2"), "M*H/8589934592");
}

TEST(ShapeExpr, EvaluatesDivisions) {
  std::vector<int64_t> values = {0, 7, 3, 16, 6, 0};
  EXPECT_EQ(parse("S//4").evaluate(values), 1);
  EXPECT_EQ(parse("S%4").evaluate(values), 3);
  EXPECT_EQ(parse("(S-9)//4").evaluate(values), -1); // floor, not truncation
  EXPECT_EQ(parse("(T-9)%4").evaluate(values), 2);
  EXPECT_EQ(parse("M/8").evaluate(values), 2);
  EXPECT_EQ(parse("3*M/8").evaluate(values), 6);
  EXPECT_EQ(parse("M*N/16").evaluate(values), 6);
  EXPECT_EQ(parse("16*M").evaluate(values), 256);
  // Only a term that divides a symbol needs it to be a multiple: at M=12,
  // M is 12 but M/8 is undefined.
  values[3] = 12;
  EXPECT_EQ(parse("M+1").evaluate(values), 13);
  EXPECT_FALSE(parse("M/8").evaluate(values).has_value());
  int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
  EXPECT_FALSE(parse("(2*S)//3").evaluate({0, big, 0}).has_value());
}

TEST(ShapeExpr, BoundsOfDivisions) {
  std::vector<Interval> ranges = {{1, 4096}, {1, 512}, {0, 3},
                                  {1, 64},   {2, 10},  {0, 1}};
  auto check = [&](const char *text, int64_t min, int64_t max) {
    Interval b = parse(text).bounds(ranges);
    EXPECT_EQ(b.min, min) << text;
    EXPECT_EQ(b.max, max) << text;
  };
  check("S//4", 0, 128);
  check("(S-9)//4", -2, 125);
  check("S%8", 0, 7);
  check("S%1000", 1, 512); // within one period: the operand's own range
  check("(T+4)%8", 4, 7);
  check("M/8", 1, 8); // the multiples of 8 in [1, 64] are 8..64
  check("M", 8, 64);
  check("16*M", 128, 1024);
  check("N/2+S%3", 1, 7);
  // The operand of a division must not overflow: checkedBounds says so.
  std::vector<Interval> huge(6, Interval{0, int64_t(1) << 48});
  EXPECT_TRUE(parse("(B+S)//2").checkedBounds(huge));
  EXPECT_FALSE(parse("(B*S)//2").checkedBounds(huge));
  EXPECT_FALSE(parse("B*S*T").checkedBounds(huge));
  EXPECT_TRUE(parse("B*S*T-T*S*B+1").checkedBounds(huge)); // cancels first
}

TEST(ShapeExpr, LinearFormsSeeThroughMultiples) {
  auto m = parse("2*M+1").linearIn(3);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->coeff, 2);
  EXPECT_EQ(m->rest.toString(names), "1");
  EXPECT_EQ(parse("M").linearIn(3)->coeff, 1);
  EXPECT_FALSE(parse("M/8").linearIn(3)); // not an integer multiple of M
  EXPECT_FALSE(parse("S+S//2").linearIn(1));
  EXPECT_FALSE(parse("T+S%2").linearIn(1));
  auto t = parse("T+S//2").linearIn(2);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rest.toString(names), "S//2");
  EXPECT_EQ(parse("(S+T)//2").symbols(),
            (llvm::SmallVector<uint32_t, 4>{1, 2}));
  EXPECT_TRUE(parse("B+S%2").uses(1));
}

TEST(ShapeExpr, SubstitutionKeepsDivisionsExact) {
  ShapeExpr expr = parse("M/8+S//2");
  auto withMultiple = [&](int64_t multiple) {
    return expr.substitute([&](uint32_t id) {
      return std::optional<ShapeExpr>(
          ShapeExpr::symbol({id, id == 3 ? multiple : multiples[id]}));
    });
  };
  ASSERT_TRUE(withMultiple(16));
  EXPECT_EQ(withMultiple(16)->toString(names), "M/8+S//2");
  EXPECT_FALSE(withMultiple(4)); // M/8 is not exact for M multiple_of 4
}

TEST(ShapeExpr, MultipleNeededFor) {
  auto s = parse("S").multipleNeededFor(8);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->id, 1u);
  EXPECT_EQ(s->multipleOf, 8);
  EXPECT_EQ(parse("16*S").multipleNeededFor(128)->multipleOf, 8);
  EXPECT_EQ(parse("N").multipleNeededFor(8)->multipleOf, 8);
  EXPECT_EQ(parse("M").multipleNeededFor(12)->multipleOf, 24);
  EXPECT_FALSE(parse("S+T").multipleNeededFor(2));
  EXPECT_FALSE(parse("S//2").multipleNeededFor(2));
}

/// A random expression as fully parenthesized text and its value computed
/// directly from the tree (floor semantics, exact '/'), for checking the
/// simplifier, the printer and the bounds against the definition.
class RandomExpr {
public:
  explicit RandomExpr(uint32_t seed) : rng(seed) {}

  /// Appends to `text`; returns the value at `values`, or nullopt if an
  /// intermediate value leaves [-2^40, 2^40] (kept far from overflow).
  std::optional<int64_t>
  generate(std::string &text, llvm::ArrayRef<int64_t> values, unsigned depth) {
    if (depth == 0 || pick(3) == 0)
      return leaf(text, values);
    if (pick(8) == 0) {
      text += "-(";
      auto v = generate(text, values, depth - 1);
      text += ")";
      return v ? checkedRange(-*v) : std::nullopt;
    }
    static const char *ops[] = {"+", "-", "*", "//", "%", "/"};
    std::string op = ops[pick(6)];
    text += "(";
    auto a = generate(text, values, depth - 1);
    text += op;
    if (op == "+" || op == "-" || op == "*") {
      auto b = generate(text, values, depth - 1);
      text += ")";
      if (!a || !b)
        return std::nullopt;
      return checkedRange(op == "+" ? *a + *b : op == "-" ? *a - *b : *a * *b);
    }
    int64_t d = 1 + int64_t(pick(12));
    text += std::to_string(d) + ")";
    if (!a)
      return std::nullopt;
    if (op == "/")
      return *a % d == 0 ? std::optional<int64_t>(*a / d) : std::nullopt;
    return op == "//" ? floorDivide(*a, d) : floorModulo(*a, d);
  }

  uint32_t pick(uint32_t n) { return uint32_t(rng() % n); }

private:
  std::optional<int64_t> leaf(std::string &text,
                              llvm::ArrayRef<int64_t> values) {
    uint32_t which = pick(names.size() + 2);
    if (which >= names.size() - 1) { // constants, not H
      int64_t c = int64_t(pick(30)) - 9;
      text += c < 0 ? "(" + std::to_string(c) + ")" : std::to_string(c);
      return c;
    }
    text += names[which];
    return values[which];
  }
  static std::optional<int64_t> checkedRange(int64_t v) {
    constexpr int64_t kLimit = int64_t(1) << 40;
    if (v < -kLimit || v > kLimit)
      return std::nullopt;
    return v;
  }
  std::mt19937 rng;
};

TEST(ShapeExpr, RandomExpressionsKeepTheirValue) {
  // B, S, T in [0, 20]; M in [0, 64] and N in [0, 20] at their multiples.
  std::vector<Interval> ranges = {{0, 20}, {0, 20}, {0, 20},
                                  {0, 64}, {0, 20}, {0, 0}};
  RandomExpr random(12345);
  int checked = 0;
  for (int i = 0; i < 4000; ++i) {
    std::vector<int64_t> values = {
        int64_t(random.pick(21)),     int64_t(random.pick(21)),
        int64_t(random.pick(21)),     8 * int64_t(random.pick(9)),
        2 * int64_t(random.pick(11)), 0};
    std::string text;
    RandomExpr tree{uint32_t(i)};
    std::optional<int64_t> expected = tree.generate(text, values, 4);
    std::string error;
    size_t offset = 0;
    auto expr = ShapeExpr::parse(text, lookup, error, offset);
    if (!expr) // an unprovable '/', or an overflowing coefficient
      continue;
    // The same tree at other values may have had an inexact '/': the parser
    // accepted it, so it is exact for all multiples; only compare values
    // the tree could compute.
    if (!expected)
      continue;
    ++checked;
    EXPECT_EQ(expr->evaluate(values), expected) << text;
    std::string printed = expr->toString(names);
    auto reparsed = ShapeExpr::parse(printed, lookup, error, offset);
    ASSERT_TRUE(reparsed) << text << " printed as " << printed << ": " << error;
    EXPECT_EQ(*reparsed, *expr) << text << " printed as " << printed;
    Interval b = expr->bounds(ranges);
    EXPECT_LE(b.min, *expected) << text << " = " << printed;
    EXPECT_GE(b.max, *expected) << text << " = " << printed;
  }
  EXPECT_GT(checked, 1000); // the generator mostly makes valid expressions
}

} // namespace
