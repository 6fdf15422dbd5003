//===- ShapeInference.h - Result types of each op ---------------*- C++ -*-===//
//
// Each op family has its own file of shape rules (lib/Analysis/OpShapes/)
// that registers one ShapeRule per op in the ShapeRuleTable. A rule checks
// the operand dtypes and symbolic shapes and returns the result types, or
// records problems (each naming the shapes involved) in the context.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_ANALYSIS_SHAPEINFERENCE_H
#define TXC_ANALYSIS_SHAPEINFERENCE_H

#include "txc/Program/Program.h"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace txc {

/// What an op's inference needs to know and where it reports problems.
class InferenceContext {
public:
  InferenceContext(const Program &program, const Node &node,
                   std::vector<TensorType> operandTypes)
      : program(program), node(node), operands(std::move(operandTypes)) {}

  const Program &program;
  const Node &node;
  std::vector<TensorType> operands;

  /// Verifies a nested graph of the node (a region of cond/while) with the
  /// given input types in the node's scope; returns its output types, or
  /// nullopt after the verifier reported the problems. Set by the verifier.
  std::function<std::optional<std::vector<TensorType>>(
      const Graph &, const std::vector<TensorType> &, const std::string &)>
      verifyRegion;

  /// Problems found, each with the location it is about.
  struct Problem {
    Loc loc;
    std::string id;
    std::string message;
    std::vector<std::string> notes;
  };
  std::vector<Problem> problems;

  void fail(Loc loc, std::string id, std::string message,
            std::vector<std::string> notes = {}) {
    problems.push_back({std::move(loc), std::move(id), std::move(message),
                        std::move(notes)});
  }
  Loc operandLoc(size_t i) const {
    return i < node.operandLocs.size() ? node.operandLocs[i] : node.loc;
  }
  /// Location of an attribute's value, or of the node if it is absent.
  Loc attrLoc(llvm::StringRef name) const;
  std::string opName() const;
  std::string str(const Shape &shape) const {
    return shapeToString(shape, program.symbolNames());
  }
  std::string str(const ShapeExpr &dim) const {
    return dim.toString(program.symbolNames());
  }
  std::string str(const TensorType &type) const;

  // Checks shared by many rules; each records a problem and returns false.
  bool requireSameDType(size_t a, size_t b);
  bool requireDType(size_t operand, bool (*allowed)(DType),
                    llvm::StringRef what);
  bool requireRank(size_t operand, unsigned rank);
  /// Explains a dim mismatch when one side is a lone symbol and the other a
  /// constant (the symbol would need one value, maybe outside its range).
  std::vector<std::string> explainDimMismatch(const ShapeExpr &x,
                                              const ShapeExpr &y) const;
};

using ShapeRule = std::vector<TensorType> (*)(InferenceContext &);

class ShapeRuleTable {
public:
  void add(OpKind kind, ShapeRule rule) { rules[size_t(kind)] = rule; }
  ShapeRule lookup(OpKind kind) const { return rules[size_t(kind)]; }

private:
  std::array<ShapeRule, 512> rules{};
};

// One registration function per op family (lib/Analysis/OpShapes/*.cpp).
void registerElementwiseShapeRules(ShapeRuleTable &table);
void registerLinearAlgebraShapeRules(ShapeRuleTable &table);
void registerShapeOpShapeRules(ShapeRuleTable &table);
void registerReductionShapeRules(ShapeRuleTable &table);
void registerConvolutionShapeRules(ShapeRuleTable &table);
void registerControlFlowShapeRules(ShapeRuleTable &table);
void registerIndexingShapeRules(ShapeRuleTable &table);

/// True when `kind` has a shape rule (every registered op must).
bool hasShapeRule(OpKind kind);

/// Infers the result types of `ctx.node` (whose op kind is known and whose
/// operand count and attributes were checked). Returns nothing and records
/// problems in `ctx` when the operands do not fit the op.
std::vector<TensorType> inferResultTypes(InferenceContext &ctx);

/// numpy-style broadcast of two shapes (aligned from the right; a dim of
/// static size 1 stretches). Symbolic dims never broadcast: they must be
/// equal. On failure returns nullopt and sets `badDim` to the result dim that
/// did not match.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b,
                                     size_t &badDim);

/// The shortest decimal that reads back as `value` (an attribute's value
/// in a diagnostic).
std::string formatNumber(double value);

/// Reads an attribute of type Shape (integers or symbol expressions).
std::optional<Shape> readShapeAttribute(const Program &program,
                                        const AttrValue &value,
                                        std::string &error, Loc &errorLoc);

} // namespace txc

#endif
