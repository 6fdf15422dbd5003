//===- Attributes.h - Typed access to a node's attributes -------*- C++ -*-===//
//
// The verifier checks every attribute against its op's AttrSpec; after that
// the shape rules, MLIRGen and the interpreter read attributes through these
// helpers, which return the default when an optional attribute is absent.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_ATTRIBUTES_H
#define TXC_PROGRAM_ATTRIBUTES_H

#include "txc/Program/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace txc {

bool hasAttr(const Node &node, llvm::StringRef name);
int64_t getIntAttr(const Node &node, llvm::StringRef name, int64_t fallback);
double getFloatAttr(const Node &node, llvm::StringRef name, double fallback);
bool getBoolAttr(const Node &node, llvm::StringRef name, bool fallback);
std::string getStringAttr(const Node &node, llvm::StringRef name,
                          llvm::StringRef fallback);
std::vector<int64_t> getIntListAttr(const Node &node, llvm::StringRef name,
                                    std::vector<int64_t> fallback = {});
std::optional<DType> getDTypeAttr(const Node &node, llvm::StringRef name);
/// A Shape attribute (integers or symbol expressions); nullopt if absent or
/// not parseable (the verifier reports the latter).
std::optional<Shape> getShapeAttr(const Program &program, const Node &node,
                                  llvm::StringRef name);

/// Normalizes a possibly negative axis for a tensor of `rank`; nullopt if
/// it is out of range.
std::optional<unsigned> normalizeAxis(int64_t axis, unsigned rank);

} // namespace txc

#endif
