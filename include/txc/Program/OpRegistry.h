//===- OpRegistry.h - What ops txc knows --------------------------*- C++ -*-===//
#ifndef TXC_PROGRAM_OPREGISTRY_H
#define TXC_PROGRAM_OPREGISTRY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace txc {

enum class OpKind : uint16_t {
  Unknown,
#define TXC_OP(Enum, Name, Min, Max, Category) Enum,
#include "txc/Program/Ops.def"
};

enum class OpCategory {
  ElementwiseUnary,
  ElementwiseBinary,
  Contraction,
  Reduction,
  Normalization,
  Shape,
  Convolution,
  Pooling,
  Indexing,
  ControlFlow,
};

/// How an attribute's JSON value is interpreted.
enum class AttrType {
  Int,      ///< integer
  Float,    ///< number
  Bool,     ///< true/false
  String,   ///< string
  IntList,  ///< list of integers
  Shape,    ///< list of dims: integers or symbol expressions ("2*S+1")
  DType,    ///< dtype name
};

struct AttrSpec {
  llvm::StringRef name;
  AttrType type;
  bool required;
};

struct OpInfo {
  OpKind kind;
  llvm::StringRef name;
  int minOperands;
  int maxOperands; ///< -1: variadic
  OpCategory category;
  llvm::ArrayRef<AttrSpec> attributes;
  /// Names of the nested graphs the op requires, in order.
  llvm::ArrayRef<llvm::StringRef> regions;

  const AttrSpec *findAttribute(llvm::StringRef attrName) const;
};

/// Why an op cannot be part of an exported region.
enum class NotRepresentableReason {
  HostSideEffect,
  HostRead,
  DataDependentShape,
  UnstructuredControlFlow,
};

struct UnsupportedOpInfo {
  llvm::StringRef name;
  NotRepresentableReason reason;
  llvm::StringRef hint;
};

llvm::ArrayRef<OpInfo> allOps();
const OpInfo &getOpInfo(OpKind kind);
const OpInfo *lookupOp(llvm::StringRef name);
const UnsupportedOpInfo *lookupUnsupportedOp(llvm::StringRef name);
llvm::StringRef describeReason(NotRepresentableReason reason);
llvm::StringRef attrTypeName(AttrType type);

/// The registered op name closest to `name` (edit distance), or "" if none is
/// plausibly what was meant.
std::string suggestOpName(llvm::StringRef name);

} // namespace txc

#endif
