//===- OpRegistry.h - What ops txc knows --------------------------*- C++ -*-===//
#ifndef TXC_PROGRAM_OPREGISTRY_H
#define TXC_PROGRAM_OPREGISTRY_H

#include "txc/Program/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace txc {

enum class OpKind : uint16_t {
  Unknown,
#define TXC_OP(Enum, Name, Min, Max, Category, Numerics) Enum,
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

/// Whether compiled code computes the reference interpreter's bits
/// (Ops.def's header says which ops are which).
enum class Numerics { Exact, Rounded };

/// The dtypes an elementwise op accepts for its operands.
enum class DTypeClass {
  Any,           ///< every dtype
  Numeric,       ///< integers and floats, not bool
  Float,         ///< f32, f64, f16, bf16
  IntegerOrBool, ///< bitwise on integers, logical on bool
  Unsigned,      ///< u8, u16, u32, u64 (ONNX's BitShift)
};

/// What values an elementwise op is defined or continuous on (unary ops),
/// or what kind of binary op it is; the differential fuzzer draws operands
/// by it (Ops.def).
enum class ElementwiseDomain {
  None,           ///< not declared by TXC_UNARY or TXC_BINARY
  Total,          ///< unary: any value
  PositiveDomain, ///< unary: values above 0 (log, sqrt)
  Discontinuous,  ///< unary: a rounding of its operand may flip the result
                  ///< (floor) or move it without bound (tan near a
                  ///< pole, asin near 1)
  Arithmetic,     ///< binary: the operands' dtype
  Comparison,     ///< binary: a bool result
  Logical,        ///< binary: bitwise on integers, logical on bool
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
  Numerics numerics;
  /// TXC_UNARY and TXC_BINARY ops: the dtypes they accept and their domain.
  DTypeClass dtypes = DTypeClass::Any;
  ElementwiseDomain domain = ElementwiseDomain::None;
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

/// True if `dtypes` contains `dtype`.
bool acceptsDType(DTypeClass dtypes, DType dtype);
/// "float", "numeric", "integer or bool", "unsigned" or "any" (docs/ops.md's
/// words).
llvm::StringRef dtypeClassName(DTypeClass dtypes);

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
