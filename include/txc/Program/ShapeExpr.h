//===- ShapeExpr.h - Symbolic dimension expressions -------------*- C++ -*-===//
//
// A dimension of a tensor is an integer expression over the program's
// symbols, e.g. `B`, `4`, `2*S+1`, `S+T` (concat), `4*B*S` (flatten), `B/8`
// (exact: B is declared a multiple of 8), `(S+7)//8` or `S%8`.
//
// An expression is a polynomial whose variables ("atoms") are
//   * S/m for each symbol S declared `multiple_of` m (just S when m is 1):
//     writing every symbol as m*(S/m) makes an exact division by a divisor
//     of the coefficients a division of the coefficients, so `16*B` and
//     `128*(B/8)` are the same polynomial 128*(B/8);
//   * floor(E / c) and E mod c (in [0, c)) for an expression E and a
//     constant c > 0, as in Python and jax.export's floordiv and mod.
// Expressions are kept in a canonical form (sorted terms, no zero
// coefficients, divisions simplified), so two dims are equal when their
// expressions compare equal. All arithmetic is checked: an operation whose
// coefficients would overflow int64 fails instead of wrapping.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_SHAPEEXPR_H
#define TXC_PROGRAM_SHAPEEXPR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace txc {

/// A closed integer interval [min, max]; bounds saturate at the int64 limits.
struct Interval {
  int64_t min = 0;
  int64_t max = 0;
};

/// What an expression needs to know of a symbol.
struct SymbolRef {
  uint32_t id = 0;
  int64_t multipleOf = 1; ///< the symbol's declared multiple_of (>= 1)
};

/// Maps a symbol name to the symbol; nullopt for an unknown name.
using SymbolLookup =
    llvm::function_ref<std::optional<SymbolRef>(llvm::StringRef)>;

class ShapeExpr;

/// A variable of the polynomial.
struct ShapeAtom {
  enum class Kind : uint8_t {
    Symbol,   ///< symbol / divisor, where divisor is its multiple_of
    FloorDiv, ///< floor(operand / divisor)
    Mod,      ///< operand - divisor * floor(operand / divisor)
  };
  Kind kind = Kind::Symbol;
  uint32_t symbol = 0;                      ///< Symbol
  int64_t divisor = 1;                      ///< always >= 1
  std::shared_ptr<const ShapeExpr> operand; ///< FloorDiv and Mod

  bool operator==(const ShapeAtom &o) const;
  bool operator!=(const ShapeAtom &o) const { return !(*this == o); }
  bool operator<(const ShapeAtom &o) const;
};

class ShapeExpr {
public:
  /// A product of atoms, sorted (an atom repeats for powers).
  using Monomial = llvm::SmallVector<ShapeAtom, 2>;
  struct Term {
    Monomial atoms; ///< empty for the constant term
    int64_t coeff;
    bool operator==(const Term &o) const {
      return coeff == o.coeff && atoms == o.atoms;
    }
  };

  ShapeExpr() = default; ///< the constant 0
  static ShapeExpr constant(int64_t value);
  /// The symbol's value (multipleOf * (S/multipleOf)).
  static ShapeExpr symbol(SymbolRef symbol);

  bool isConstant() const;
  std::optional<int64_t> getConstant() const;
  /// The symbol id when the expression is exactly one symbol (coefficient 1).
  std::optional<uint32_t> getSingleSymbol() const;
  /// The ids of the symbols the expression uses, also inside divisions,
  /// sorted, without repeats.
  llvm::SmallVector<uint32_t, 4> symbols() const;
  bool uses(uint32_t symbol) const;
  /// True if a floor division or modulo occurs in the expression.
  bool hasFloorDivOrMod() const;
  /// How deeply floor divisions and modulos nest: 0 for a polynomial of
  /// symbols, 1 for "(S+7)//8", 2 for "(S%4+1)//2".
  unsigned divisionDepth() const;
  /// The deepest nesting an expression may have. Every walk of an
  /// expression recurses once per level, and toString writes up to three
  /// parentheses or signs per level, which parse reads back within its own
  /// limit: "B%7*3%5*3%5..." written out nests once per '%'.
  static constexpr unsigned kMaxDivisionNesting = 10;
  /// True if the expression prints with '/', '//' or '%'.
  bool hasDivision() const;
  llvm::ArrayRef<Term> terms() const { return termList; }
  /// The constant term (0 if none).
  int64_t constantTerm() const;

  static std::optional<ShapeExpr> add(const ShapeExpr &a, const ShapeExpr &b);
  static std::optional<ShapeExpr> sub(const ShapeExpr &a, const ShapeExpr &b);
  static std::optional<ShapeExpr> mul(const ShapeExpr &a, const ShapeExpr &b);
  /// Exact division by a constant, when it is provable from the symbols'
  /// multiple_of: every coefficient must be divisible (`B/8` for B declared
  /// multiple_of 8 is (8*(B/8))/8).
  std::optional<ShapeExpr> divExact(int64_t divisor) const;
  /// Exact division by another expression when the quotient is a polynomial
  /// that this simple algorithm finds (the divisor a single term, or both
  /// proportional); used for reshape's inferred dimension.
  static std::optional<ShapeExpr> divExact(const ShapeExpr &a,
                                           const ShapeExpr &b);
  /// floor(a / divisor) and a mod divisor (in [0, divisor)), simplified;
  /// nullopt if divisor <= 0, or if the result would nest divisions deeper
  /// than kMaxDivisionNesting.
  static std::optional<ShapeExpr> floorDiv(const ShapeExpr &a, int64_t divisor);
  static std::optional<ShapeExpr> mod(const ShapeExpr &a, int64_t divisor);
  /// When the expression is k*S for one symbol S: the multiple_of that S
  /// needs for it to be divisible by `divisor` (S's own multiple_of
  /// included). Used to suggest a declaration.
  std::optional<SymbolRef> multipleNeededFor(int64_t divisor) const;

  /// `this == coeff * symbol + rest` where `rest` does not use `symbol` and
  /// `coeff` is a nonzero constant; nullopt if not of that form (the symbol
  /// inside a division, or divided by its multiple_of as in `B/8`).
  std::optional<struct LinearForm> linearIn(uint32_t symbol) const;

  /// The expression with each symbol replaced by `value(id)`; nullopt if a
  /// replacement is nullopt, on overflow, or when a division that was exact
  /// is not provably exact after the replacement.
  std::optional<ShapeExpr> substitute(
      llvm::function_ref<std::optional<ShapeExpr>(uint32_t)> value) const;

  /// Evaluates with the given symbol values; nullopt on int64 overflow or
  /// when a symbol is not a multiple of the multiple_of a term divides it by.
  std::optional<int64_t> evaluate(llvm::ArrayRef<int64_t> symbolValues) const;
  /// Bounds of the expression when each symbol lies in its interval (all
  /// symbol intervals are non-negative) and is a multiple of its multiple_of.
  Interval bounds(llvm::ArrayRef<Interval> symbolRanges) const;
  /// The same bounds, or nullopt if computing them overflowed int64 (then
  /// the value itself, or the operand of a division, may not fit either).
  std::optional<Interval>
  checkedBounds(llvm::ArrayRef<Interval> symbolRanges) const;

  /// Renders e.g. "2*S+1", "B*S", "S-1", "B/8", "(S+7)//8", "3*(S%4)".
  /// `names[id]` names symbol `id`. The text parses back to the same
  /// expression.
  std::string toString(llvm::ArrayRef<std::string> names) const;

  /// Parses an expression of integer literals, symbol names, + - * / // %
  /// and parentheses (docs/program-format.md). On error returns the message
  /// and sets `errorOffset` to the offending character.
  static std::optional<ShapeExpr> parse(llvm::StringRef text,
                                        SymbolLookup lookup, std::string &error,
                                        size_t &errorOffset);

  /// Computes the expression bottom-up with the operations of `ops`, in
  /// any value domain (checked integers, LLVM IR, MLIR index values):
  ///   Value constant(int64_t), Value symbol(uint32_t id) (its value),
  ///   Value add(Value, Value), Value mul(Value, Value),
  ///   Value exactDiv(Value, int64_t d) (a symbol's value by a divisor of
  ///     its multiple_of: exact once the guards checked the multiple),
  ///   Value floorDiv(Value, int64_t d), Value mod(Value, int64_t d), d > 0.
  /// Symbols are divided by the smallest part of their multiple_of that the
  /// coefficient does not absorb: 16*B with B multiple_of 8 is 16*B, not
  /// 128*(B/8); no intermediate value exceeds the final one.
  template <typename Ops>
  auto fold(Ops &ops) const -> decltype(ops.constant(0));

  /// The coefficient of `term` after the divisions of its symbols by their
  /// multiple_of are cancelled against it, and in `divisors` what remains
  /// to divide each atom by (1 except for some symbols): the term is
  /// coefficient * prod(atom_i / divisors_i).
  static int64_t reduceTerm(const Term &term,
                            llvm::SmallVectorImpl<int64_t> &divisors);

  bool operator==(const ShapeExpr &o) const { return termList == o.termList; }
  bool operator!=(const ShapeExpr &o) const { return !(*this == o); }
  bool operator<(const ShapeExpr &o) const;

private:
  template <typename Ops>
  static auto foldAtom(const ShapeAtom &atom, int64_t divisor, Ops &ops)
      -> decltype(ops.constant(0));
  static ShapeExpr fromTerms(std::vector<Term> terms);
  static ShapeExpr ofAtom(ShapeAtom atom);

  std::vector<Term> termList; ///< canonical order, no zero coefficients
};

struct LinearForm {
  int64_t coeff;
  ShapeExpr rest;
};

template <typename Ops>
auto ShapeExpr::foldAtom(const ShapeAtom &atom, int64_t divisor, Ops &ops)
    -> decltype(ops.constant(0)) {
  switch (atom.kind) {
  case ShapeAtom::Kind::Symbol: {
    auto value = ops.symbol(atom.symbol);
    return divisor == 1 ? value : ops.exactDiv(value, divisor);
  }
  case ShapeAtom::Kind::FloorDiv:
    return ops.floorDiv(atom.operand->fold(ops), atom.divisor);
  case ShapeAtom::Kind::Mod:
    return ops.mod(atom.operand->fold(ops), atom.divisor);
  }
  return ops.constant(0);
}

template <typename Ops>
auto ShapeExpr::fold(Ops &ops) const -> decltype(ops.constant(0)) {
  using Value = decltype(ops.constant(0));
  std::optional<Value> sum;
  for (const Term &term : termList) {
    llvm::SmallVector<int64_t, 2> divisors;
    int64_t coeff = reduceTerm(term, divisors);
    std::optional<Value> product;
    for (size_t i = 0; i < term.atoms.size(); ++i) {
      Value factor = foldAtom(term.atoms[i], divisors[i], ops);
      product = product ? ops.mul(*product, factor) : factor;
    }
    if (!product)
      product = ops.constant(coeff);
    else if (coeff != 1)
      product = ops.mul(*product, ops.constant(coeff));
    sum = sum ? ops.add(*sum, *product) : *product;
  }
  return sum ? *sum : ops.constant(0);
}

/// The hint for an expression that is not a provable multiple:
/// `declare symbol S with "multiple_of": 8, or write S as 8*G with a new
/// symbol G`.
std::string suggestMultipleOf(llvm::StringRef symbolName, int64_t multipleOf);

/// The meaning of `a // b` and `a % b` in dimension expressions, for b > 0:
/// the quotient rounded toward negative infinity, and the remainder in
/// [0, b) (Python's, and jax.export's floordiv and mod).
int64_t floorDivide(int64_t a, int64_t b);
int64_t floorModulo(int64_t a, int64_t b);

/// A tensor shape: one expression per dimension.
using Shape = std::vector<ShapeExpr>;

/// Renders a shape as "[B,4]".
std::string shapeToString(const Shape &shape,
                          llvm::ArrayRef<std::string> names);

} // namespace txc

#endif
