//===- ShapeInference.h - Result types of each op ---------------*- C++ -*-===//
#ifndef TXC_ANALYSIS_SHAPEINFERENCE_H
#define TXC_ANALYSIS_SHAPEINFERENCE_H

#include "txc/Program/Program.h"

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
  std::string str(const Shape &shape) const {
    return shapeToString(shape, program.symbolNames());
  }
  std::string str(const ShapeExpr &dim) const {
    return dim.toString(program.symbolNames());
  }
  std::string str(const TensorType &type) const;
};

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

/// Reads an attribute of type Shape (integers or symbol expressions).
std::optional<Shape> readShapeAttribute(const Program &program,
                                        const AttrValue &value,
                                        std::string &error, Loc &errorLoc);

} // namespace txc

#endif
