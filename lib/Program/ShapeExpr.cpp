//===- ShapeExpr.cpp - Symbolic dimension expressions ---------------------===//
#include "txc/Program/ShapeExpr.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <limits>

using namespace txc;

static constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
static constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

/// Canonical term order: higher degree first, then by symbol ids; the
/// constant term (degree 0) comes last.
static bool termLess(const ShapeExpr::Term &a, const ShapeExpr::Term &b) {
  if (a.symbols.size() != b.symbols.size())
    return a.symbols.size() > b.symbols.size();
  return a.symbols < b.symbols;
}

/// Sorts and merges terms with equal monomials; nullopt on overflow. A
/// coefficient of INT64_MIN counts as an overflow: it could not be negated,
/// and toString would write "S-9223372036854775808", which parse rejects
/// (the literal does not fit), so a manifest could not be read back.
static std::optional<std::vector<ShapeExpr::Term>>
canonicalTerms(std::vector<ShapeExpr::Term> terms) {
  std::stable_sort(terms.begin(), terms.end(), termLess);
  std::vector<ShapeExpr::Term> result;
  for (ShapeExpr::Term &term : terms) {
    if (!result.empty() && result.back().symbols == term.symbols) {
      int64_t sum;
      if (__builtin_add_overflow(result.back().coeff, term.coeff, &sum))
        return std::nullopt;
      result.back().coeff = sum;
    } else {
      result.push_back(std::move(term));
    }
  }
  llvm::erase_if(result, [](const ShapeExpr::Term &t) { return t.coeff == 0; });
  if (llvm::any_of(result, [](const ShapeExpr::Term &t) {
        return t.coeff == kInt64Min;
      }))
    return std::nullopt;
  return result;
}

ShapeExpr ShapeExpr::constant(int64_t value) {
  ShapeExpr expr;
  if (value != 0)
    expr.termList.push_back({{}, value});
  return expr;
}

ShapeExpr ShapeExpr::symbol(uint32_t id) {
  ShapeExpr expr;
  expr.termList.push_back({{id}, 1});
  return expr;
}

bool ShapeExpr::isConstant() const {
  return termList.empty() ||
         (termList.size() == 1 && termList[0].symbols.empty());
}

std::optional<int64_t> ShapeExpr::getConstant() const {
  if (termList.empty())
    return 0;
  if (termList.size() == 1 && termList[0].symbols.empty())
    return termList[0].coeff;
  return std::nullopt;
}

std::optional<uint32_t> ShapeExpr::getSingleSymbol() const {
  if (termList.size() == 1 && termList[0].coeff == 1 &&
      termList[0].symbols.size() == 1)
    return termList[0].symbols[0];
  return std::nullopt;
}

llvm::SmallVector<uint32_t, 4> ShapeExpr::symbols() const {
  llvm::SmallVector<uint32_t, 4> ids;
  for (const Term &term : termList)
    ids.append(term.symbols.begin(), term.symbols.end());
  llvm::sort(ids);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool ShapeExpr::uses(uint32_t symbol) const {
  return llvm::any_of(termList, [&](const Term &t) {
    return llvm::is_contained(t.symbols, symbol);
  });
}

std::optional<ShapeExpr> ShapeExpr::add(const ShapeExpr &a,
                                        const ShapeExpr &b) {
  std::vector<Term> terms = a.termList;
  terms.insert(terms.end(), b.termList.begin(), b.termList.end());
  auto canonical = canonicalTerms(std::move(terms));
  if (!canonical)
    return std::nullopt;
  ShapeExpr result;
  result.termList = std::move(*canonical);
  return result;
}

std::optional<ShapeExpr> ShapeExpr::sub(const ShapeExpr &a,
                                        const ShapeExpr &b) {
  ShapeExpr negated = b;
  for (Term &term : negated.termList) {
    if (term.coeff == kInt64Min)
      return std::nullopt;
    term.coeff = -term.coeff;
  }
  return add(a, negated);
}

std::optional<ShapeExpr> ShapeExpr::mul(const ShapeExpr &a,
                                        const ShapeExpr &b) {
  std::vector<Term> terms;
  for (const Term &x : a.termList) {
    for (const Term &y : b.termList) {
      Term product;
      if (__builtin_mul_overflow(x.coeff, y.coeff, &product.coeff))
        return std::nullopt;
      product.symbols = x.symbols;
      product.symbols.append(y.symbols.begin(), y.symbols.end());
      llvm::sort(product.symbols);
      terms.push_back(std::move(product));
    }
  }
  auto canonical = canonicalTerms(std::move(terms));
  if (!canonical)
    return std::nullopt;
  ShapeExpr result;
  result.termList = std::move(*canonical);
  return result;
}

std::optional<ShapeExpr> ShapeExpr::divExact(int64_t divisor) const {
  if (divisor == 0)
    return std::nullopt;
  ShapeExpr result = *this;
  for (Term &term : result.termList) {
    if (term.coeff % divisor != 0 || (divisor == -1 && term.coeff == kInt64Min))
      return std::nullopt;
    term.coeff /= divisor;
  }
  return result;
}

/// Removes the symbols of `divisor` from `monomial`; false if not contained.
static bool divideMonomial(ShapeExpr::Monomial &monomial,
                           const ShapeExpr::Monomial &divisor) {
  for (uint32_t id : divisor) {
    auto it = llvm::find(monomial, id);
    if (it == monomial.end())
      return false;
    monomial.erase(it);
  }
  return true;
}

std::optional<ShapeExpr> ShapeExpr::divExact(const ShapeExpr &a,
                                             const ShapeExpr &b) {
  if (b.termList.empty())
    return std::nullopt;
  if (a.termList.empty())
    return ShapeExpr();
  if (b.termList.size() == 1) {
    const Term &d = b.termList[0];
    std::vector<Term> terms;
    for (Term term : a.termList) {
      if (term.coeff % d.coeff != 0 || !divideMonomial(term.symbols, d.symbols))
        return std::nullopt;
      term.coeff /= d.coeff;
      terms.push_back(std::move(term));
    }
    auto canonical = canonicalTerms(std::move(terms));
    if (!canonical)
      return std::nullopt;
    ShapeExpr result;
    result.termList = std::move(*canonical);
    return result;
  }
  // Multi-term divisor: accept only a == q * b for a single-term quotient q,
  // found from the leading terms and checked by multiplying back.
  Term lead = a.termList[0];
  const Term &divLead = b.termList[0];
  if (lead.coeff % divLead.coeff != 0 ||
      !divideMonomial(lead.symbols, divLead.symbols))
    return std::nullopt;
  lead.coeff /= divLead.coeff;
  ShapeExpr quotient;
  quotient.termList.push_back(lead);
  auto back = mul(quotient, b);
  if (!back || *back != a)
    return std::nullopt;
  return quotient;
}

std::optional<LinearForm>
ShapeExpr::linearIn(uint32_t symbol) const {
  LinearForm form{0, ShapeExpr()};
  std::vector<Term> rest;
  for (const Term &term : termList) {
    size_t count = llvm::count(term.symbols, symbol);
    if (count == 0) {
      rest.push_back(term);
      continue;
    }
    if (count > 1 || term.symbols.size() != 1)
      return std::nullopt; // S*S or S*T: not linear with a constant coefficient
    form.coeff = term.coeff;
  }
  if (form.coeff == 0)
    return std::nullopt;
  form.rest.termList = std::move(rest);
  return form;
}

std::optional<int64_t>
ShapeExpr::evaluate(llvm::ArrayRef<int64_t> symbolValues) const {
  int64_t sum = 0;
  for (const Term &term : termList) {
    int64_t product = term.coeff;
    for (uint32_t id : term.symbols) {
      if (id >= symbolValues.size() ||
          __builtin_mul_overflow(product, symbolValues[id], &product))
        return std::nullopt;
    }
    if (__builtin_add_overflow(sum, product, &sum))
      return std::nullopt;
  }
  return sum;
}

static int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t result;
  if (!__builtin_mul_overflow(a, b, &result))
    return result;
  return ((a < 0) != (b < 0)) ? kInt64Min : kInt64Max;
}

static int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t result;
  if (!__builtin_add_overflow(a, b, &result))
    return result;
  return a < 0 ? kInt64Min : kInt64Max;
}

/// Exact bounds of a multilinear expression (no symbol squared): an affine
/// function of each symbol takes its extremes at the ends of the symbol's
/// range, so the extremes over the box are at its corners. Without this,
/// 4*B*S-4*B (the flattened [B,S-1,4]) would seem negative for B, S >= 1.
/// nullopt when the expression is not multilinear, uses too many symbols
/// for the 2^n corners, or overflows at a corner.
static std::optional<Interval>
cornerBounds(llvm::ArrayRef<ShapeExpr::Term> terms,
             llvm::ArrayRef<uint32_t> ids,
             llvm::ArrayRef<Interval> symbolRanges) {
  constexpr size_t kMaxCornerSymbols = 10;
  if (ids.size() > kMaxCornerSymbols)
    return std::nullopt;
  for (const ShapeExpr::Term &term : terms)
    if (std::adjacent_find(term.symbols.begin(), term.symbols.end()) !=
        term.symbols.end())
      return std::nullopt; // S*S: not affine in S
  uint32_t maxId = ids.empty() ? 0 : ids.back();
  if (!ids.empty() && maxId >= symbolRanges.size())
    return std::nullopt;
  std::vector<int64_t> values(ids.empty() ? 0 : maxId + 1, 0);
  std::optional<Interval> result;
  for (uint64_t corner = 0; corner < (uint64_t(1) << ids.size()); ++corner) {
    for (size_t i = 0; i < ids.size(); ++i)
      values[ids[i]] = (corner >> i) & 1 ? symbolRanges[ids[i]].max
                                         : symbolRanges[ids[i]].min;
    int64_t sum = 0;
    for (const ShapeExpr::Term &term : terms) {
      int64_t product = term.coeff;
      for (uint32_t id : term.symbols)
        if (__builtin_mul_overflow(product, values[id], &product))
          return std::nullopt;
      if (__builtin_add_overflow(sum, product, &sum))
        return std::nullopt;
    }
    if (!result)
      result = Interval{sum, sum};
    result->min = std::min(result->min, sum);
    result->max = std::max(result->max, sum);
  }
  return result;
}

Interval ShapeExpr::bounds(llvm::ArrayRef<Interval> symbolRanges) const {
  if (auto exact = cornerBounds(termList, symbols(), symbolRanges))
    return *exact;
  Interval total{0, 0};
  for (const Term &term : termList) {
    // Symbols are non-negative, so a monomial is monotonic in each symbol.
    int64_t lo = 1, hi = 1;
    for (uint32_t id : term.symbols) {
      Interval range = id < symbolRanges.size() ? symbolRanges[id]
                                                : Interval{0, kInt64Max};
      lo = saturatingMul(lo, range.min);
      hi = saturatingMul(hi, range.max);
    }
    int64_t a = saturatingMul(term.coeff, lo), b = saturatingMul(term.coeff, hi);
    total.min = saturatingAdd(total.min, std::min(a, b));
    total.max = saturatingAdd(total.max, std::max(a, b));
  }
  return total;
}

std::string ShapeExpr::toString(llvm::ArrayRef<std::string> names) const {
  if (termList.empty())
    return "0";
  std::string out;
  for (size_t i = 0; i < termList.size(); ++i) {
    const Term &term = termList[i];
    int64_t coeff = term.coeff;
    if (i != 0) {
      out += coeff < 0 ? '-' : '+';
    } else if (coeff < 0) {
      out += '-';
    }
    // Print the magnitude; INT64_MIN cannot be negated, print it verbatim.
    std::string magnitude = coeff == kInt64Min ? std::to_string(coeff).substr(1)
                                               : std::to_string(std::abs(coeff));
    bool printCoeff = term.symbols.empty() || magnitude != "1";
    if (printCoeff)
      out += magnitude;
    for (size_t j = 0; j < term.symbols.size(); ++j) {
      if (printCoeff || j != 0)
        out += '*';
      uint32_t id = term.symbols[j];
      out += id < names.size() ? names[id] : ("$" + std::to_string(id));
    }
  }
  return out;
}

bool ShapeExpr::operator<(const ShapeExpr &o) const {
  return std::lexicographical_compare(
      termList.begin(), termList.end(), o.termList.begin(), o.termList.end(),
      [](const Term &a, const Term &b) {
        if (a.symbols != b.symbols)
          return termLess(a, b);
        return a.coeff < b.coeff;
      });
}

std::string txc::shapeToString(const Shape &shape,
                               llvm::ArrayRef<std::string> names) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ',';
    out += shape[i].toString(names);
  }
  return out + "]";
}

//===----------------------------------------------------------------------===//
// Parser: expr := term (('+'|'-') term)* ; term := factor ('*' factor)* ;
//         factor := INT | NAME | '(' expr ')' | '-' factor
//===----------------------------------------------------------------------===//

namespace {
class ExprParser {
public:
  ExprParser(llvm::StringRef text,
             llvm::function_ref<std::optional<uint32_t>(llvm::StringRef)> lookup)
      : text(text), lookup(lookup) {}

  std::optional<ShapeExpr> parseAll() {
    auto expr = parseExpr();
    if (!expr)
      return std::nullopt;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected '" + text.substr(pos, 1).str() + "'");
    return expr;
  }

  std::string error;
  size_t errorOffset = 0;

private:
  static constexpr unsigned kMaxNesting = 32;

  std::nullopt_t fail(const std::string &message) { return failAt(pos, message); }
  std::nullopt_t failAt(size_t offset, const std::string &message) {
    if (error.empty()) {
      error = message;
      errorOffset = offset;
    }
    return std::nullopt;
  }
  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  std::optional<ShapeExpr> parseExpr() {
    auto lhs = parseTerm();
    while (lhs) {
      skipSpace();
      size_t opPos = pos; // an overflow is reported at its operator
      bool plus = consume('+');
      if (!plus && !consume('-'))
        break;
      auto rhs = parseTerm();
      if (!rhs)
        return std::nullopt;
      lhs = plus ? ShapeExpr::add(*lhs, *rhs) : ShapeExpr::sub(*lhs, *rhs);
      if (!lhs)
        return failAt(opPos, "integer overflow in the expression");
    }
    return lhs;
  }

  std::optional<ShapeExpr> parseTerm() {
    auto lhs = parseFactor();
    while (lhs) {
      skipSpace();
      size_t opPos = pos;
      if (!consume('*'))
        break;
      auto rhs = parseFactor();
      if (!rhs)
        return std::nullopt;
      lhs = ShapeExpr::mul(*lhs, *rhs);
      if (!lhs)
        return failAt(opPos, "integer overflow in the expression");
    }
    return lhs;
  }

  std::optional<ShapeExpr> parseFactor() {
    skipSpace();
    if (pos >= text.size())
      return fail("expected a number, a symbol or '('");
    char c = text[pos];
    if (c == '-') {
      // Negation nests like a parenthesis: a recursion per sign, so a dim
      // of a million '-' (a manifest's dims have no length limit) would
      // overflow the stack.
      if (++depth > kMaxNesting)
        return fail("expression nested too deeply");
      size_t opPos = pos++;
      auto operand = parseFactor();
      --depth;
      if (!operand)
        return std::nullopt;
      auto negated = ShapeExpr::sub(ShapeExpr(), *operand);
      if (!negated)
        return failAt(opPos, "integer overflow in the expression");
      return negated;
    }
    if (c == '(') {
      if (++depth > kMaxNesting)
        return fail("expression nested too deeply");
      ++pos;
      auto inner = parseExpr();
      if (!inner)
        return std::nullopt;
      if (!consume(')'))
        return fail("expected ')'");
      --depth;
      return inner;
    }
    if (llvm::isDigit(c)) {
      size_t start = pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.substr(start, pos - start).getAsInteger(10, value)) {
        pos = start;
        return fail("integer literal does not fit in 64 bits");
      }
      return ShapeExpr::constant(value);
    }
    if (llvm::isAlpha(c) || c == '_') {
      size_t start = pos;
      while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
        ++pos;
      llvm::StringRef name = text.substr(start, pos - start);
      std::optional<uint32_t> id = lookup(name);
      if (!id) {
        pos = start;
        return fail("unknown symbol '" + name.str() + "'");
      }
      return ShapeExpr::symbol(*id);
    }
    return fail("unexpected '" + text.substr(pos, 1).str() + "'");
  }

  llvm::StringRef text;
  llvm::function_ref<std::optional<uint32_t>(llvm::StringRef)> lookup;
  size_t pos = 0;
  unsigned depth = 0;
};
} // namespace

std::optional<ShapeExpr> ShapeExpr::parse(
    llvm::StringRef text,
    llvm::function_ref<std::optional<uint32_t>(llvm::StringRef)> lookup,
    std::string &error, size_t &errorOffset) {
  ExprParser parser(text, lookup);
  auto result = parser.parseAll();
  if (!result) {
    error = parser.error;
    errorOffset = parser.errorOffset;
  }
  return result;
}
