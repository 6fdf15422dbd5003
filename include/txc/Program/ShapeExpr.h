//===- ShapeExpr.h - Symbolic dimension expressions -------------*- C++ -*-===//
//
// A dimension of a tensor is an integer polynomial over the program's symbols,
// e.g. `B`, `4`, `2*S+1`, `S+T` (concat) or `4*B*S` (flatten). Expressions are
// kept in a canonical form (sorted terms, no zero coefficients), so two dims
// are equal exactly when their expressions compare equal. All arithmetic is
// checked: an operation whose coefficients would overflow int64 fails instead
// of wrapping.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_SHAPEEXPR_H
#define TXC_PROGRAM_SHAPEEXPR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace txc {

/// A closed integer interval [min, max]; bounds saturate at the int64 limits.
struct Interval {
  int64_t min = 0;
  int64_t max = 0;
};

class ShapeExpr {
public:
  /// A product of symbols, as sorted symbol ids (a symbol repeats for powers).
  using Monomial = llvm::SmallVector<uint32_t, 2>;
  struct Term {
    Monomial symbols; ///< empty for the constant term
    int64_t coeff;
    bool operator==(const Term &o) const {
      return coeff == o.coeff && symbols == o.symbols;
    }
  };

  ShapeExpr() = default; ///< the constant 0
  static ShapeExpr constant(int64_t value);
  static ShapeExpr symbol(uint32_t id);

  bool isConstant() const;
  std::optional<int64_t> getConstant() const;
  /// The symbol id when the expression is exactly one symbol (coefficient 1).
  std::optional<uint32_t> getSingleSymbol() const;
  /// The ids of the symbols the expression uses, sorted, without repeats.
  llvm::SmallVector<uint32_t, 4> symbols() const;
  bool uses(uint32_t symbol) const;
  llvm::ArrayRef<Term> terms() const { return termList; }

  static std::optional<ShapeExpr> add(const ShapeExpr &a, const ShapeExpr &b);
  static std::optional<ShapeExpr> sub(const ShapeExpr &a, const ShapeExpr &b);
  static std::optional<ShapeExpr> mul(const ShapeExpr &a, const ShapeExpr &b);
  /// Exact division by a constant: every coefficient must be divisible.
  std::optional<ShapeExpr> divExact(int64_t divisor) const;
  /// Exact division by another expression when the quotient is a polynomial
  /// that this simple algorithm finds (the divisor a single term, or both
  /// proportional); used for reshape's inferred dimension.
  static std::optional<ShapeExpr> divExact(const ShapeExpr &a,
                                           const ShapeExpr &b);

  /// `this == coeff * symbol + rest` where `rest` does not use `symbol` and
  /// `coeff` is a nonzero constant; nullopt if not of that form.
  std::optional<struct LinearForm> linearIn(uint32_t symbol) const;

  /// Evaluates with the given symbol values; nullopt on int64 overflow.
  std::optional<int64_t> evaluate(llvm::ArrayRef<int64_t> symbolValues) const;
  /// Bounds of the expression when each symbol lies in its interval (all
  /// symbol intervals are non-negative).
  Interval bounds(llvm::ArrayRef<Interval> symbolRanges) const;

  /// Renders e.g. "2*S+1", "B*S", "S-1". `names[id]` names symbol `id`.
  std::string toString(llvm::ArrayRef<std::string> names) const;

  /// Parses an expression of integer literals, symbol names, + - * and
  /// parentheses. `lookup` maps a name to a symbol id. On error returns the
  /// message and sets `errorOffset` to the offending character.
  static std::optional<ShapeExpr>
  parse(llvm::StringRef text,
        llvm::function_ref<std::optional<uint32_t>(llvm::StringRef)> lookup,
        std::string &error, size_t &errorOffset);

  bool operator==(const ShapeExpr &o) const { return termList == o.termList; }
  bool operator!=(const ShapeExpr &o) const { return !(*this == o); }
  bool operator<(const ShapeExpr &o) const;

private:
  void normalize();
  std::vector<Term> termList; ///< canonical order, no zero coefficients
};

struct LinearForm {
  int64_t coeff;
  ShapeExpr rest;
};

/// A tensor shape: one expression per dimension.
using Shape = std::vector<ShapeExpr>;

/// Renders a shape as "[B,4]".
std::string shapeToString(const Shape &shape,
                          llvm::ArrayRef<std::string> names);

} // namespace txc

#endif
