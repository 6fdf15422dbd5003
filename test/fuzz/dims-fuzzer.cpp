//===- dims-fuzzer.cpp - libFuzzer harness of dimension expressions -------===//
//
// The input is the text of a dimension expression ("2*S+1", as in a
// program's shapes or a manifest's dims) over the symbols B, S, T, N and
// K_2. Promises checked, for every expression that parses:
//
//  * printing and parsing again gives the same expression, printed the same
//    (the manifest is read back from what toString wrote);
//  * e - e is 0, and (e + e) - e is e, whenever the arithmetic does not
//    overflow;
//  * on symbol values inside their ranges, evaluate() lies inside bounds()
//    (the verifier's size limits and the guards rely on the bounds);
//  * the value of e * e is the square of the value of e when neither
//    overflows.
//
// A parse error must point inside the text (or at its end).
//
//===----------------------------------------------------------------------===//
#include "FuzzerCommon.h"

#include "txc/Program/ShapeExpr.h"

#include "llvm/ADT/STLExtras.h"

#include <array>

using namespace txc;

static const std::vector<std::string> kSymbolNames = {"B", "S", "T", "N",
                                                      "K_2"};

/// The symbols declare no multiple: the sampled values below are any
/// integers in the ranges, which a multiple would have to constrain.
static std::optional<SymbolRef> lookupSymbol(llvm::StringRef name) {
  for (size_t i = 0; i < kSymbolNames.size(); ++i)
    if (name == kSymbolNames[i])
      return SymbolRef{uint32_t(i), 1};
  return std::nullopt;
}

static std::optional<ShapeExpr> parseExpr(llvm::StringRef text,
                                          std::string &error,
                                          size_t &errorOffset) {
  return ShapeExpr::parse(text, lookupSymbol, error, errorOffset);
}

static void checkRoundTrip(const ShapeExpr &expr) {
  std::string printed = expr.toString(kSymbolNames);
  std::string error;
  size_t errorOffset = 0;
  std::optional<ShapeExpr> again = parseExpr(printed, error, errorOffset);
  fuzz::check(again.has_value(), "toString wrote an expression parse rejects");
  fuzz::check(*again == expr, "parse(toString(e)) is not e");
  fuzz::check(again->toString(kSymbolNames) == printed,
              "toString(parse(toString(e))) is not toString(e)");
}

static void checkArithmetic(const ShapeExpr &expr) {
  if (auto zero = ShapeExpr::sub(expr, expr))
    fuzz::check(zero->getConstant() == 0, "e - e is not 0");
  if (auto twice = ShapeExpr::add(expr, expr))
    if (auto back = ShapeExpr::sub(*twice, expr))
      fuzz::check(*back == expr, "(e + e) - e is not e");
}

/// Symbol ranges and values inside them: ranges like the verifier's
/// (non-negative), values at both ends and inside.
struct Sample {
  std::array<Interval, 5> ranges;
  std::array<int64_t, 5> values;
};

static const Sample kSamples[] = {
    {{{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {{0, 0, 0, 0, 0}}},
    {{{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}}, {{1, 1, 1, 1, 1}}},
    {{{{1, 4096}, {0, 16}, {2, 8}, {1, 1 << 20}, {0, 3}}},
     {{4096, 0, 8, 1 << 20, 3}}},
    {{{{1, 4096}, {0, 16}, {2, 8}, {1, 1 << 20}, {0, 3}}}, {{7, 13, 2, 1, 0}}},
    {{{{0, INT64_MAX}, {0, INT64_MAX}, {0, 1}, {0, 2}, {0, 3}}},
     {{INT64_MAX, 1, 1, 2, 3}}},
    {{{{1, 1ll << 31}, {1, 1ll << 31}, {1, 1ll << 31}, {1, 1ll << 31},
       {1, 1ll << 31}}},
     {{1ll << 31, 3, 1ll << 30, 5, 1ll << 31}}},
};

static void checkEvaluation(const ShapeExpr &expr) {
  std::optional<ShapeExpr> square = ShapeExpr::mul(expr, expr);
  for (const Sample &sample : kSamples) {
    std::optional<int64_t> value = expr.evaluate(sample.values);
    if (!value)
      continue;
    Interval bounds = expr.bounds(sample.ranges);
    fuzz::check(bounds.min <= *value && *value <= bounds.max,
                "evaluate() lies outside bounds()");
    int64_t product;
    if (!square || __builtin_mul_overflow(*value, *value, &product))
      continue;
    if (std::optional<int64_t> squared = square->evaluate(sample.values))
      fuzz::check(*squared == product, "(e * e)(x) is not e(x)^2");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = fuzz::bytesAsText(data, size);
  std::string error;
  size_t errorOffset = 0;
  std::optional<ShapeExpr> expr = parseExpr(text, error, errorOffset);
  if (!expr) {
    fuzz::check(!error.empty(), "parse failed without a message");
    fuzz::check(errorOffset <= text.size(), "parse error offset past the end");
    return 0;
  }
  checkRoundTrip(*expr);
  checkArithmetic(*expr);
  checkEvaluation(*expr);
  return 0;
}
