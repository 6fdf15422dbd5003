//===- OpRegistry.cpp - The op table built from Ops.def --------------------===//
#include "txc/Program/OpRegistry.h"

#include "llvm/ADT/STLExtras.h"

#include <vector>

using namespace txc;

namespace {
struct Registry {
  std::vector<OpInfo> ops;                    // indexed by OpKind
  std::vector<std::vector<AttrSpec>> attrs;   // indexed by OpKind
  std::vector<std::vector<llvm::StringRef>> regions; // indexed by OpKind
  std::vector<UnsupportedOpInfo> unsupported;

  Registry() {
    addOp(OpKind::Unknown, "<unknown>", 0, 0, OpCategory::ElementwiseUnary,
          Numerics::Exact);
#define TXC_OP(Enum, Name, Min, Max, Category, Num)                            \
  addOp(OpKind::Enum, Name, Min, Max, OpCategory::Category, Numerics::Num);
#include "txc/Program/Ops.def"
#define TXC_UNARY(Enum, Name, Dtypes, Numerics, Domain, Check, Emitter,        \
                  Kernel)                                                      \
  setElementwise(OpKind::Enum, DTypeClass::Dtypes, ElementwiseDomain::Domain);
#define TXC_BINARY(Enum, Name, Dtypes, Numerics, Domain, Emitter, Kernel)      \
  setElementwise(OpKind::Enum, DTypeClass::Dtypes, ElementwiseDomain::Domain);
#include "txc/Program/Ops.def"
    attrs.resize(ops.size());
#define TXC_ATTR(Enum, Name, Type, Required)                                   \
  attrs[size_t(OpKind::Enum)].push_back({Name, AttrType::Type, Required});
#include "txc/Program/Ops.def"
    regions.resize(ops.size());
#define TXC_REGION(Enum, Name) regions[size_t(OpKind::Enum)].push_back(Name);
#include "txc/Program/Ops.def"
    for (size_t i = 0; i < ops.size(); ++i) {
      ops[i].attributes = attrs[i];
      ops[i].regions = regions[i];
    }
#define TXC_UNSUPPORTED(Name, Reason, Hint)                                    \
  unsupported.push_back({Name, NotRepresentableReason::Reason, Hint});
#include "txc/Program/Ops.def"
  }

  void addOp(OpKind kind, llvm::StringRef name, int minOperands,
             int maxOperands, OpCategory category, Numerics numerics) {
    OpInfo info{};
    info.kind = kind;
    info.name = name;
    info.minOperands = minOperands;
    info.maxOperands = maxOperands;
    info.category = category;
    info.numerics = numerics;
    ops.push_back(info);
  }

  void setElementwise(OpKind kind, DTypeClass dtypes,
                      ElementwiseDomain domain) {
    ops[size_t(kind)].dtypes = dtypes;
    ops[size_t(kind)].domain = domain;
  }
};

const Registry &registry() {
  static const Registry instance;
  return instance;
}
} // namespace

bool txc::acceptsDType(DTypeClass dtypes, DType dtype) {
  switch (dtypes) {
  case DTypeClass::Any:
    return true;
  case DTypeClass::Numeric:
    return dtype != DType::Bool;
  case DTypeClass::Float:
    return isFloat(dtype);
  case DTypeClass::IntegerOrBool:
    return !isFloat(dtype);
  case DTypeClass::Unsigned:
    return isUnsigned(dtype);
  }
  return false;
}

llvm::StringRef txc::dtypeClassName(DTypeClass dtypes) {
  switch (dtypes) {
  case DTypeClass::Any:
    return "any";
  case DTypeClass::Numeric:
    return "numeric";
  case DTypeClass::Float:
    return "float";
  case DTypeClass::IntegerOrBool:
    return "integer or bool";
  case DTypeClass::Unsigned:
    return "unsigned";
  }
  return "";
}

const AttrSpec *OpInfo::findAttribute(llvm::StringRef attrName) const {
  for (const AttrSpec &spec : attributes)
    if (spec.name == attrName)
      return &spec;
  return nullptr;
}

llvm::ArrayRef<OpInfo> txc::allOps() {
  return llvm::ArrayRef<OpInfo>(registry().ops).drop_front();
}

const OpInfo &txc::getOpInfo(OpKind kind) {
  return registry().ops[size_t(kind)];
}

const OpInfo *txc::lookupOp(llvm::StringRef name) {
  for (const OpInfo &info : allOps())
    if (info.name == name)
      return &info;
  return nullptr;
}

const UnsupportedOpInfo *txc::lookupUnsupportedOp(llvm::StringRef name) {
  for (const UnsupportedOpInfo &info : registry().unsupported)
    if (info.name == name)
      return &info;
  return nullptr;
}

llvm::StringRef txc::describeReason(NotRepresentableReason reason) {
  switch (reason) {
  case NotRepresentableReason::HostSideEffect:
    return "has a host side effect";
  case NotRepresentableReason::HostRead:
    return "reads a tensor value on the host";
  case NotRepresentableReason::DataDependentShape:
    return "has an output shape that depends on tensor values";
  case NotRepresentableReason::UnstructuredControlFlow:
    return "branches on a tensor value outside a structured control-flow op";
  }
  return "cannot be exported";
}

llvm::StringRef txc::attrTypeName(AttrType type) {
  switch (type) {
  case AttrType::Int: return "an integer";
  case AttrType::Float: return "a number";
  case AttrType::Bool: return "a boolean";
  case AttrType::String: return "a string";
  case AttrType::IntList: return "a list of integers";
  case AttrType::Shape: return "a shape (a list of integers or symbol expressions)";
  case AttrType::DType: return "a dtype name";
  }
  return "a value";
}

std::string txc::suggestOpName(llvm::StringRef name) {
  std::string lowered = name.lower();
  std::string best;
  unsigned bestDistance = ~0u;
  for (const OpInfo &info : allOps()) {
    unsigned distance = llvm::StringRef(lowered).edit_distance(
        info.name, /*AllowReplacements=*/true, /*MaxEditDistance=*/bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = info.name.str();
    }
  }
  // Accept about one typo per three characters.
  if (bestDistance == 0 && lowered != name)
    return best;
  if (bestDistance <= std::max<size_t>(1, name.size() / 3))
    return best;
  return "";
}
