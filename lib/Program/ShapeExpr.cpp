//===- ShapeExpr.cpp - Symbolic dimension expressions ---------------------===//
#include "txc/Program/ShapeExpr.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <limits>

using namespace txc;

static constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
static constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

//===----------------------------------------------------------------------===//
// Integer helpers
//===----------------------------------------------------------------------===//

/// |value| as an unsigned number (INT64_MIN included).
static uint64_t magnitude(int64_t value) {
  return value < 0 ? uint64_t(0) - uint64_t(value) : uint64_t(value);
}

/// gcd(|a|, b) for b > 0; the result divides b, so it fits.
static int64_t gcdWith(int64_t a, int64_t b) {
  uint64_t x = magnitude(a), y = uint64_t(b);
  while (y) {
    uint64_t r = x % y;
    x = y;
    y = r;
  }
  return int64_t(x);
}

int64_t txc::floorDivide(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b < 0) ? q - 1 : q;
}

int64_t txc::floorModulo(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}

static int64_t ceilDivInt(int64_t a, int64_t b) {
  return -floorDivide(-a, b); // a >= 0 here (symbol ranges)
}

//===----------------------------------------------------------------------===//
// Atoms and canonical order
//===----------------------------------------------------------------------===//

static bool sameOperand(const std::shared_ptr<const ShapeExpr> &a,
                        const std::shared_ptr<const ShapeExpr> &b) {
  if (!a || !b)
    return !a && !b;
  return a == b || *a == *b;
}

bool ShapeAtom::operator==(const ShapeAtom &o) const {
  return kind == o.kind && symbol == o.symbol && divisor == o.divisor &&
         sameOperand(operand, o.operand);
}

bool ShapeAtom::operator<(const ShapeAtom &o) const {
  if (kind != o.kind)
    return kind < o.kind;
  if (symbol != o.symbol)
    return symbol < o.symbol;
  if (divisor != o.divisor)
    return divisor < o.divisor;
  if (!operand || !o.operand)
    return !operand && o.operand;
  return *operand < *o.operand;
}

/// Canonical term order: higher degree first, then by atoms (symbols in
/// declaration order before divisions); the constant term comes last.
static bool termLess(const ShapeExpr::Term &a, const ShapeExpr::Term &b) {
  if (a.atoms.size() != b.atoms.size())
    return a.atoms.size() > b.atoms.size();
  return a.atoms < b.atoms;
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
    if (!result.empty() && result.back().atoms == term.atoms) {
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

ShapeExpr ShapeExpr::fromTerms(std::vector<Term> terms) {
  ShapeExpr expr;
  // Only called with distinct monomials: merging cannot overflow.
  expr.termList = std::move(*canonicalTerms(std::move(terms)));
  return expr;
}

ShapeExpr ShapeExpr::ofAtom(ShapeAtom atom) {
  ShapeExpr expr;
  expr.termList.push_back({{std::move(atom)}, 1});
  return expr;
}

ShapeExpr ShapeExpr::constant(int64_t value) {
  ShapeExpr expr;
  if (value != 0)
    expr.termList.push_back({{}, value});
  return expr;
}

ShapeExpr ShapeExpr::symbol(SymbolRef ref) {
  ShapeAtom atom;
  atom.symbol = ref.id;
  atom.divisor = std::max<int64_t>(ref.multipleOf, 1);
  ShapeExpr expr;
  expr.termList.push_back({{atom}, atom.divisor});
  return expr;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

bool ShapeExpr::isConstant() const {
  return termList.empty() ||
         (termList.size() == 1 && termList[0].atoms.empty());
}

std::optional<int64_t> ShapeExpr::getConstant() const {
  if (termList.empty())
    return 0;
  if (termList.size() == 1 && termList[0].atoms.empty())
    return termList[0].coeff;
  return std::nullopt;
}

int64_t ShapeExpr::constantTerm() const {
  if (!termList.empty() && termList.back().atoms.empty())
    return termList.back().coeff;
  return 0;
}

std::optional<uint32_t> ShapeExpr::getSingleSymbol() const {
  if (termList.size() != 1 || termList[0].atoms.size() != 1)
    return std::nullopt;
  const ShapeAtom &atom = termList[0].atoms[0];
  if (atom.kind != ShapeAtom::Kind::Symbol || termList[0].coeff != atom.divisor)
    return std::nullopt;
  return atom.symbol;
}

/// Calls `visit` on every atom of `expr`, inside divisions too.
static void forEachAtom(const ShapeExpr &expr,
                        llvm::function_ref<void(const ShapeAtom &)> visit) {
  for (const ShapeExpr::Term &term : expr.terms())
    for (const ShapeAtom &atom : term.atoms) {
      visit(atom);
      if (atom.operand)
        forEachAtom(*atom.operand, visit);
    }
}

llvm::SmallVector<uint32_t, 4> ShapeExpr::symbols() const {
  llvm::SmallVector<uint32_t, 4> ids;
  forEachAtom(*this, [&](const ShapeAtom &atom) {
    if (atom.kind == ShapeAtom::Kind::Symbol)
      ids.push_back(atom.symbol);
  });
  llvm::sort(ids);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool ShapeExpr::uses(uint32_t symbol) const {
  return llvm::is_contained(symbols(), symbol);
}

bool ShapeExpr::hasFloorDivOrMod() const {
  bool found = false;
  forEachAtom(*this, [&](const ShapeAtom &atom) {
    found |= atom.kind != ShapeAtom::Kind::Symbol;
  });
  return found;
}

unsigned ShapeExpr::divisionDepth() const {
  unsigned depth = 0;
  for (const Term &term : termList)
    for (const ShapeAtom &atom : term.atoms)
      if (atom.operand)
        depth = std::max(depth, atom.operand->divisionDepth() + 1);
  return depth;
}

bool ShapeExpr::hasDivision() const {
  return hasFloorDivOrMod() || llvm::any_of(termList, [](const Term &term) {
           llvm::SmallVector<int64_t, 2> divisors;
           reduceTerm(term, divisors);
           return llvm::any_of(divisors, [](int64_t d) { return d != 1; });
         });
}

int64_t ShapeExpr::reduceTerm(const Term &term,
                              llvm::SmallVectorImpl<int64_t> &divisors) {
  // Cancelling the gcd atom by atom cancels gcd(coeff, product of the
  // multiples) in total.
  int64_t coeff = term.coeff;
  for (const ShapeAtom &atom : term.atoms) {
    if (atom.kind != ShapeAtom::Kind::Symbol) {
      divisors.push_back(1);
      continue;
    }
    int64_t g = gcdWith(coeff, atom.divisor);
    coeff /= g;
    divisors.push_back(atom.divisor / g);
  }
  return coeff;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

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
      product.atoms = x.atoms;
      product.atoms.append(y.atoms.begin(), y.atoms.end());
      llvm::sort(product.atoms);
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

/// Removes the atoms of `divisor` from `monomial`; false if not contained.
static bool divideMonomial(ShapeExpr::Monomial &monomial,
                           const ShapeExpr::Monomial &divisor) {
  for (const ShapeAtom &atom : divisor) {
    auto it = llvm::find(monomial, atom);
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
      if (term.coeff % d.coeff != 0 || !divideMonomial(term.atoms, d.atoms))
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
      !divideMonomial(lead.atoms, divLead.atoms))
    return std::nullopt;
  lead.coeff /= divLead.coeff;
  ShapeExpr quotient;
  quotient.termList.push_back(lead);
  auto back = mul(quotient, b);
  if (!back || *back != a)
    return std::nullopt;
  return quotient;
}

/// Splits `expr` into quotient * divisor + remainder, where the quotient
/// gets the terms whose coefficient `divisor` divides.
static void splitMultiples(const ShapeExpr &expr, int64_t divisor,
                           std::vector<ShapeExpr::Term> &quotient,
                           std::vector<ShapeExpr::Term> &remainder) {
  for (ShapeExpr::Term term : expr.terms()) {
    if (term.coeff % divisor == 0) {
      term.coeff /= divisor;
      quotient.push_back(std::move(term));
    } else {
      remainder.push_back(std::move(term));
    }
  }
}

/// The gcd of `divisor` and every coefficient of `expr`.
static int64_t commonFactor(const ShapeExpr &expr, int64_t divisor) {
  int64_t g = divisor;
  for (const ShapeExpr::Term &term : expr.terms())
    g = gcdWith(term.coeff, g);
  return g;
}

/// The atom when `expr` is one atom of kind `kind` with coefficient 1.
static const ShapeAtom *soleAtom(const ShapeExpr &expr, ShapeAtom::Kind kind) {
  if (expr.terms().size() != 1 || expr.terms()[0].coeff != 1 ||
      expr.terms()[0].atoms.size() != 1 ||
      expr.terms()[0].atoms[0].kind != kind)
    return nullptr;
  return &expr.terms()[0].atoms[0];
}

std::optional<ShapeExpr> ShapeExpr::floorDiv(const ShapeExpr &a,
                                             int64_t divisor) {
  if (divisor <= 0)
    return std::nullopt;
  if (divisor == 1)
    return a;
  // floor((d*P + R) / d) = P + floor(R / d).
  std::vector<Term> quotientTerms, remainderTerms;
  splitMultiples(a, divisor, quotientTerms, remainderTerms);
  ShapeExpr quotient = fromTerms(std::move(quotientTerms));
  ShapeExpr remainder = fromTerms(std::move(remainderTerms));
  if (auto value = remainder.getConstant())
    return add(quotient, constant(floorDivide(*value, divisor)));
  // floor(g*R / (g*d)) = floor(R / d); g < d, or R's terms would be in P.
  int64_t g = commonFactor(remainder, divisor);
  remainder = *remainder.divExact(g);
  divisor /= g;
  // floor(floor(X / c) / d) = floor(X / (c*d)).
  int64_t combined;
  if (const ShapeAtom *inner = soleAtom(remainder, ShapeAtom::Kind::FloorDiv))
    if (!__builtin_mul_overflow(inner->divisor, divisor, &combined)) {
      auto merged = floorDiv(*inner->operand, combined);
      return merged ? add(quotient, *merged) : std::nullopt;
    }
  if (remainder.divisionDepth() >= kMaxDivisionNesting)
    return std::nullopt;
  ShapeAtom atom;
  atom.kind = ShapeAtom::Kind::FloorDiv;
  atom.divisor = divisor;
  atom.operand = std::make_shared<const ShapeExpr>(std::move(remainder));
  return add(quotient, ofAtom(std::move(atom)));
}

std::optional<ShapeExpr> ShapeExpr::mod(const ShapeExpr &a, int64_t divisor) {
  if (divisor <= 0)
    return std::nullopt;
  if (divisor == 1)
    return ShapeExpr();
  // (d*P + R) mod d = R mod d.
  std::vector<Term> quotientTerms, remainderTerms;
  splitMultiples(a, divisor, quotientTerms, remainderTerms);
  ShapeExpr remainder = fromTerms(std::move(remainderTerms));
  if (auto value = remainder.getConstant())
    return constant(floorModulo(*value, divisor));
  // (g*R) mod (g*d) = g * (R mod d).
  int64_t g = commonFactor(remainder, divisor);
  if (g > 1) {
    auto reduced = mod(*remainder.divExact(g), divisor / g);
    return reduced ? mul(constant(g), *reduced) : std::nullopt;
  }
  if (const ShapeAtom *inner = soleAtom(remainder, ShapeAtom::Kind::Mod)) {
    if (inner->divisor % divisor == 0) // (X mod c*d) mod d = X mod d
      return mod(*inner->operand, divisor);
    if (inner->divisor <= divisor) // already in [0, divisor)
      return remainder;
  }
  if (remainder.divisionDepth() >= kMaxDivisionNesting)
    return std::nullopt;
  ShapeAtom atom;
  atom.kind = ShapeAtom::Kind::Mod;
  atom.divisor = divisor;
  atom.operand = std::make_shared<const ShapeExpr>(std::move(remainder));
  return ofAtom(std::move(atom));
}

std::optional<SymbolRef> ShapeExpr::multipleNeededFor(int64_t divisor) const {
  if (divisor <= 0 || termList.size() != 1 || termList[0].atoms.size() != 1)
    return std::nullopt;
  const ShapeAtom &atom = termList[0].atoms[0];
  if (atom.kind != ShapeAtom::Kind::Symbol)
    return std::nullopt;
  // coeff * (S/m) with S = m*t*G is coeff*t*G: divisible when divisor
  // divides coeff*t.
  int64_t t = divisor / gcdWith(termList[0].coeff, divisor), needed;
  if (__builtin_mul_overflow(atom.divisor, t, &needed))
    return std::nullopt;
  return SymbolRef{atom.symbol, needed};
}

std::optional<LinearForm>
ShapeExpr::linearIn(uint32_t symbol) const {
  LinearForm form{0, ShapeExpr()};
  std::vector<Term> rest;
  for (const Term &term : termList) {
    size_t count = 0;
    for (const ShapeAtom &atom : term.atoms) {
      if (atom.operand && atom.operand->uses(symbol))
        return std::nullopt; // inside a division: not solvable for S
      count += atom.kind == ShapeAtom::Kind::Symbol && atom.symbol == symbol;
    }
    if (count == 0) {
      rest.push_back(term);
      continue;
    }
    if (count > 1 || term.atoms.size() != 1)
      return std::nullopt; // S*S or S*T: not linear with a constant coefficient
    // coeff * (S/m): an integer coefficient of S only if m divides coeff.
    int64_t multiple = term.atoms[0].divisor;
    if (term.coeff % multiple != 0)
      return std::nullopt;
    form.coeff = term.coeff / multiple;
  }
  if (form.coeff == 0)
    return std::nullopt;
  form.rest.termList = std::move(rest);
  return form;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

namespace {
/// fold() operations on checked int64 values.
struct CheckedOps {
  using Value = std::optional<int64_t>;
  llvm::ArrayRef<int64_t> symbolValues;

  Value constant(int64_t value) { return value; }
  Value symbol(uint32_t id) {
    if (id >= symbolValues.size())
      return std::nullopt;
    return symbolValues[id];
  }
  Value add(Value a, Value b) {
    int64_t result;
    if (!a || !b || __builtin_add_overflow(*a, *b, &result))
      return std::nullopt;
    return result;
  }
  Value mul(Value a, Value b) {
    int64_t result;
    if (!a || !b || __builtin_mul_overflow(*a, *b, &result))
      return std::nullopt;
    return result;
  }
  Value exactDiv(Value a, int64_t divisor) {
    if (!a || *a % divisor != 0)
      return std::nullopt;
    return *a / divisor;
  }
  Value floorDiv(Value a, int64_t divisor) {
    return a ? Value(floorDivide(*a, divisor)) : std::nullopt;
  }
  Value mod(Value a, int64_t divisor) {
    return a ? Value(floorModulo(*a, divisor)) : std::nullopt;
  }
};
} // namespace

namespace {
/// fold() operations that build expressions.
struct SubstitutionOps {
  using Value = std::optional<ShapeExpr>;
  llvm::function_ref<std::optional<ShapeExpr>(uint32_t)> symbolValue;

  Value constant(int64_t value) { return ShapeExpr::constant(value); }
  Value symbol(uint32_t id) { return symbolValue(id); }
  Value add(const Value &a, const Value &b) {
    return a && b ? ShapeExpr::add(*a, *b) : std::nullopt;
  }
  Value mul(const Value &a, const Value &b) {
    return a && b ? ShapeExpr::mul(*a, *b) : std::nullopt;
  }
  Value exactDiv(const Value &a, int64_t divisor) {
    return a ? a->divExact(divisor) : std::nullopt;
  }
  Value floorDiv(const Value &a, int64_t divisor) {
    return a ? ShapeExpr::floorDiv(*a, divisor) : std::nullopt;
  }
  Value mod(const Value &a, int64_t divisor) {
    return a ? ShapeExpr::mod(*a, divisor) : std::nullopt;
  }
};
} // namespace

std::optional<ShapeExpr> ShapeExpr::substitute(
    llvm::function_ref<std::optional<ShapeExpr>(uint32_t)> value) const {
  SubstitutionOps ops{value};
  return fold(ops);
}

std::optional<int64_t>
ShapeExpr::evaluate(llvm::ArrayRef<int64_t> symbolValues) const {
  CheckedOps ops{symbolValues};
  return fold(ops);
}

//===----------------------------------------------------------------------===//
// Bounds
//===----------------------------------------------------------------------===//

namespace {
/// Interval arithmetic over the atoms, saturating at the int64 limits and
/// remembering whether it had to.
class BoundsComputer {
public:
  explicit BoundsComputer(llvm::ArrayRef<Interval> symbolRanges)
      : symbolRanges(symbolRanges) {}

  Interval of(const ShapeExpr &expr);
  bool overflowed = false;

private:
  Interval ofAtom(const ShapeAtom &atom);
  std::optional<Interval> corners(const ShapeExpr &expr,
                                  llvm::ArrayRef<ShapeAtom> atoms,
                                  llvm::ArrayRef<Interval> ranges);
  Interval termwise(const ShapeExpr &expr, llvm::ArrayRef<ShapeAtom> atoms,
                    llvm::ArrayRef<Interval> ranges);

  int64_t mul(int64_t a, int64_t b) {
    int64_t result;
    if (!__builtin_mul_overflow(a, b, &result))
      return result;
    overflowed = true;
    return ((a < 0) != (b < 0)) ? kInt64Min : kInt64Max;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t result;
    if (!__builtin_add_overflow(a, b, &result))
      return result;
    overflowed = true;
    return a < 0 ? kInt64Min : kInt64Max;
  }
  Interval mul(Interval a, Interval b) {
    int64_t products[] = {mul(a.min, b.min), mul(a.min, b.max),
                          mul(a.max, b.min), mul(a.max, b.max)};
    return {*std::min_element(std::begin(products), std::end(products)),
            *std::max_element(std::begin(products), std::end(products))};
  }

  llvm::ArrayRef<Interval> symbolRanges;
};
} // namespace

Interval BoundsComputer::ofAtom(const ShapeAtom &atom) {
  switch (atom.kind) {
  case ShapeAtom::Kind::Symbol: {
    Interval range = atom.symbol < symbolRanges.size()
                         ? symbolRanges[atom.symbol]
                         : Interval{0, kInt64Max};
    // The multiples of m in [min, max], divided by m.
    int64_t lo = ceilDivInt(range.min, atom.divisor);
    int64_t hi = floorDivide(range.max, atom.divisor);
    return {lo, std::max(lo, hi)};
  }
  case ShapeAtom::Kind::FloorDiv: {
    Interval operand = of(*atom.operand);
    return {floorDivide(operand.min, atom.divisor),
            floorDivide(operand.max, atom.divisor)};
  }
  case ShapeAtom::Kind::Mod: {
    Interval operand = of(*atom.operand);
    if (floorDivide(operand.min, atom.divisor) ==
        floorDivide(operand.max, atom.divisor))
      return {floorModulo(operand.min, atom.divisor),
              floorModulo(operand.max, atom.divisor)};
    return {0, atom.divisor - 1};
  }
  }
  return {0, 0};
}

/// Exact bounds of a multilinear expression (no atom squared) in
/// independent atoms: an affine function of each atom takes its extremes at
/// the ends of the atom's range, so the extremes over the box are at its
/// corners. Without this, 4*B*S-4*B (the flattened [B,S-1,4]) would seem
/// negative for B, S >= 1. (Atoms that depend on each other, like S and
/// S//2, only make the box larger: the bounds stay sound.) nullopt when the
/// expression is not multilinear, uses too many atoms for the 2^n corners,
/// or overflows at a corner.
std::optional<Interval>
BoundsComputer::corners(const ShapeExpr &expr, llvm::ArrayRef<ShapeAtom> atoms,
                        llvm::ArrayRef<Interval> ranges) {
  constexpr size_t kMaxCornerAtoms = 10;
  if (atoms.size() > kMaxCornerAtoms)
    return std::nullopt;
  for (const ShapeExpr::Term &term : expr.terms())
    if (std::adjacent_find(term.atoms.begin(), term.atoms.end()) !=
        term.atoms.end())
      return std::nullopt; // S*S: not affine in S
  std::optional<Interval> result;
  for (uint64_t corner = 0; corner < (uint64_t(1) << atoms.size()); ++corner) {
    int64_t sum = 0;
    for (const ShapeExpr::Term &term : expr.terms()) {
      int64_t product = term.coeff;
      for (const ShapeAtom &atom : term.atoms) {
        size_t i = llvm::lower_bound(atoms, atom) - atoms.begin();
        int64_t value = (corner >> i) & 1 ? ranges[i].max : ranges[i].min;
        if (__builtin_mul_overflow(product, value, &product))
          return std::nullopt;
      }
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

Interval BoundsComputer::termwise(const ShapeExpr &expr,
                                  llvm::ArrayRef<ShapeAtom> atoms,
                                  llvm::ArrayRef<Interval> ranges) {
  Interval total{0, 0};
  for (const ShapeExpr::Term &term : expr.terms()) {
    Interval product{term.coeff, term.coeff};
    for (const ShapeAtom &atom : term.atoms)
      product =
          mul(product, ranges[llvm::lower_bound(atoms, atom) - atoms.begin()]);
    total = {add(total.min, product.min), add(total.max, product.max)};
  }
  return total;
}

Interval BoundsComputer::of(const ShapeExpr &expr) {
  std::vector<ShapeAtom> atoms;
  for (const ShapeExpr::Term &term : expr.terms())
    atoms.insert(atoms.end(), term.atoms.begin(), term.atoms.end());
  llvm::sort(atoms);
  atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  std::vector<Interval> ranges;
  for (const ShapeAtom &atom : atoms)
    ranges.push_back(ofAtom(atom));
  if (auto exact = corners(expr, atoms, ranges))
    return *exact;
  return termwise(expr, atoms, ranges);
}

Interval ShapeExpr::bounds(llvm::ArrayRef<Interval> symbolRanges) const {
  return BoundsComputer(symbolRanges).of(*this);
}

std::optional<Interval>
ShapeExpr::checkedBounds(llvm::ArrayRef<Interval> symbolRanges) const {
  BoundsComputer computer(symbolRanges);
  Interval result = computer.of(*this);
  if (computer.overflowed)
    return std::nullopt;
  return result;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static std::string symbolName(llvm::ArrayRef<std::string> names, uint32_t id) {
  return id < names.size() ? names[id] : ("$" + std::to_string(id));
}

static std::string divisionString(const ShapeAtom &atom,
                                  llvm::ArrayRef<std::string> names) {
  std::string operand = atom.operand->toString(names);
  if (!atom.operand->getSingleSymbol()) // not a plain symbol name
    operand = "(" + operand + ")";
  return operand + (atom.kind == ShapeAtom::Kind::FloorDiv ? "//" : "%") +
         std::to_string(atom.divisor);
}

/// One term without its sign: "3*B*T/16", "S", "(S+7)//8", "2*(S%4)".
static std::string termString(const ShapeExpr::Term &term,
                              llvm::ArrayRef<std::string> names,
                              bool negative) {
  llvm::SmallVector<int64_t, 2> divisors;
  int64_t coeff = ShapeExpr::reduceTerm(term, divisors);
  std::string magnitudeText = std::to_string(magnitude(coeff));
  // The product of the remaining divisors; if it overflows, each symbol is
  // divided where it occurs ("B/8*T/4"), which parses back the same.
  int64_t denominator = 1;
  bool perSymbol = false;
  for (int64_t d : divisors)
    perSymbol |= __builtin_mul_overflow(denominator, d, &denominator);
  bool bare = term.atoms.size() == 1 && magnitudeText == "1" && !negative &&
              denominator == 1;
  bool printCoeff = term.atoms.empty() || magnitudeText != "1";
  std::string out = printCoeff ? magnitudeText : std::string();
  for (size_t i = 0; i < term.atoms.size(); ++i) {
    const ShapeAtom &atom = term.atoms[i];
    if (!out.empty())
      out += '*';
    if (atom.kind == ShapeAtom::Kind::Symbol)
      out += symbolName(names, atom.symbol);
    else
      out += bare ? divisionString(atom, names)
                  : "(" + divisionString(atom, names) + ")";
    if (perSymbol && divisors[i] != 1)
      out += "/" + std::to_string(divisors[i]);
  }
  if (!perSymbol && denominator != 1)
    out += "/" + std::to_string(denominator);
  return out;
}

std::string ShapeExpr::toString(llvm::ArrayRef<std::string> names) const {
  if (termList.empty())
    return "0";
  std::string out;
  for (size_t i = 0; i < termList.size(); ++i) {
    bool negative = termList[i].coeff < 0;
    if (i != 0 || negative)
      out += negative ? '-' : '+';
    out += termString(termList[i], names, negative);
  }
  return out;
}

bool ShapeExpr::operator<(const ShapeExpr &o) const {
  return std::lexicographical_compare(
      termList.begin(), termList.end(), o.termList.begin(), o.termList.end(),
      [](const Term &a, const Term &b) {
        if (a.atoms != b.atoms)
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

std::string txc::suggestMultipleOf(llvm::StringRef symbolName,
                                   int64_t multipleOf) {
  std::string m = std::to_string(multipleOf);
  return "declare symbol " + symbolName.str() + " with \"multiple_of\": " + m +
         ", or write " + symbolName.str() + " as " + m +
         "*G with a new symbol G";
}

//===----------------------------------------------------------------------===//
// Parser: expr := term (('+'|'-') term)* ;
//         term := factor (('*'|'/'|'//'|'%') factor)* ;
//         factor := INT | NAME | '(' expr ')' | '-' factor
//===----------------------------------------------------------------------===//

namespace {
class ExprParser {
public:
  ExprParser(llvm::StringRef text, SymbolLookup lookup)
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
  // What toString writes must parse back: up to three parentheses or signs
  // per level of division, and a sign in front.
  static_assert(kMaxNesting >= 3 * ShapeExpr::kMaxDivisionNesting + 1,
                "toString would write dims that parse rejects");
  enum class Op { Mul, Div, FloorDiv, Mod };

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
  std::optional<Op> consumeMulOp() {
    skipSpace();
    if (text.substr(pos).starts_with("//")) {
      pos += 2;
      return Op::FloorDiv;
    }
    for (auto [c, op] : {std::pair{'*', Op::Mul}, std::pair{'/', Op::Div},
                         std::pair{'%', Op::Mod}})
      if (consume(c))
        return op;
    return std::nullopt;
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
    skipSpace();
    size_t start = pos;
    auto lhs = parseFactor();
    while (lhs) {
      skipSpace();
      size_t opPos = pos;
      std::optional<Op> op = consumeMulOp();
      if (!op)
        break;
      skipSpace();
      size_t rhsPos = pos;
      auto rhs = parseFactor();
      if (!rhs)
        return std::nullopt;
      if (*op == Op::Mul) {
        lhs = ShapeExpr::mul(*lhs, *rhs);
        if (!lhs)
          return failAt(opPos, "integer overflow in the expression");
        continue;
      }
      lhs = divide(*op, *lhs, *rhs, text.slice(start, opPos).rtrim(), opPos,
                   rhsPos);
    }
    return lhs;
  }

  /// lhs / rhs, lhs // rhs or lhs % rhs; `dividend` is lhs as written.
  std::optional<ShapeExpr> divide(Op op, const ShapeExpr &lhs,
                                  const ShapeExpr &rhs,
                                  llvm::StringRef dividend, size_t opPos,
                                  size_t rhsPos) {
    llvm::StringRef opText = op == Op::Div        ? "/"
                             : op == Op::FloorDiv ? "//"
                                                  : "%";
    std::optional<int64_t> divisor = rhs.getConstant();
    if (!divisor)
      return failAt(rhsPos, "the divisor of '" + opText.str() +
                                "' must be an integer constant");
    if (*divisor <= 0)
      return failAt(rhsPos, "the divisor of '" + opText.str() +
                                "' must be positive, not " +
                                std::to_string(*divisor));
    if (op == Op::Div) {
      if (auto quotient = lhs.divExact(*divisor))
        return quotient;
      return failAt(opPos, notDivisible(lhs, dividend, *divisor));
    }
    auto result = op == Op::FloorDiv ? ShapeExpr::floorDiv(lhs, *divisor)
                                     : ShapeExpr::mod(lhs, *divisor);
    if (!result && lhs.divisionDepth() >= ShapeExpr::kMaxDivisionNesting)
      return failAt(opPos, "more than " +
                               std::to_string(ShapeExpr::kMaxDivisionNesting) +
                               " nested '//' and '%'");
    if (!result)
      return failAt(opPos, "integer overflow in the expression");
    return result;
  }

  /// Why `dividend / divisor` is rejected, and what to declare instead.
  std::string notDivisible(const ShapeExpr &lhs, llvm::StringRef dividend,
                           int64_t divisor) const {
    std::string d = std::to_string(divisor);
    std::string message = "'" + dividend.str() + "' is not a multiple of " + d +
                          " for every value of its symbols; ";
    if (auto needed = lhs.multipleNeededFor(divisor))
      return message +
             suggestMultipleOf(nameOf(needed->id), needed->multipleOf) +
             ", or round down with '//'";
    return message + "declare the symbols' multiple_of so that every term "
                     "is one, or round down with '//'";
  }

  std::string nameOf(uint32_t id) const {
    for (const auto &[name, seen] : names)
      if (seen == id)
        return name;
    return "$" + std::to_string(id);
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
      std::optional<SymbolRef> symbol = lookup(name);
      if (!symbol) {
        pos = start;
        return fail("unknown symbol '" + name.str() + "'");
      }
      names.emplace_back(name.str(), symbol->id);
      return ShapeExpr::symbol(*symbol);
    }
    return fail("unexpected '" + text.substr(pos, 1).str() + "'");
  }

  llvm::StringRef text;
  SymbolLookup lookup;
  size_t pos = 0;
  unsigned depth = 0;
  /// The symbols seen so far, for messages.
  std::vector<std::pair<std::string, uint32_t>> names;
};
} // namespace

std::optional<ShapeExpr> ShapeExpr::parse(llvm::StringRef text,
                                          SymbolLookup lookup,
                                          std::string &error,
                                          size_t &errorOffset) {
  ExprParser parser(text, lookup);
  auto result = parser.parseAll();
  if (!result) {
    error = parser.error;
    errorOffset = parser.errorOffset;
  }
  return result;
}
