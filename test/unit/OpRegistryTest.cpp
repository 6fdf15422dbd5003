//===- OpRegistryTest.cpp -------------------------------------------------===//
//
// The op table built from Ops.def, the unsupported-op list, suggestions, and
// the small helpers of the program model (dtypes, value names).
//
//===----------------------------------------------------------------------===//
#include "txc/Program/OpRegistry.h"
#include "txc/Program/DType.h"
#include "txc/Program/Program.h"

#include <gtest/gtest.h>

#include <set>

using namespace txc;

namespace {

TEST(OpRegistry, TheOpsInDefinitionOrder) {
  std::vector<std::string> names;
  for (const OpInfo &info : allOps())
    names.push_back(info.name.str());
  std::vector<std::string> defined = {
#define TXC_OP(Enum, Name, Min, Max, Category, Numerics) Name,
#include "txc/Program/Ops.def"
  };
  EXPECT_EQ(names, defined);
  for (const char *name : {"matmul", "add", "sub", "mul", "div", "relu",
                           "broadcast"})
    EXPECT_TRUE(lookupOp(name)) << name;
}

TEST(OpRegistry, LookupAndKindsAgree) {
  for (const OpInfo &info : allOps()) {
    SCOPED_TRACE(info.name.str());
    EXPECT_NE(info.kind, OpKind::Unknown);
    EXPECT_EQ(&getOpInfo(info.kind), &info);
    EXPECT_EQ(lookupOp(info.name), &info);
    EXPECT_TRUE(isValidIdentifier(info.name));
    EXPECT_EQ(info.name, info.name.lower());
    EXPECT_GE(info.minOperands, 0);
    EXPECT_TRUE(info.maxOperands < 0 || info.maxOperands >= info.minOperands);
    // An op is either exportable or not, never both.
    EXPECT_EQ(lookupUnsupportedOp(info.name), nullptr);
  }
  EXPECT_EQ(getOpInfo(OpKind::Unknown).kind, OpKind::Unknown);
  EXPECT_EQ(lookupOp("<unknown>"), nullptr);
  EXPECT_EQ(lookupOp("MatMul"), nullptr);
  EXPECT_EQ(lookupOp(""), nullptr);
}

TEST(OpRegistry, OperandCountsAndCategories) {
  auto check = [](llvm::StringRef name, int min, int max, OpCategory category) {
    const OpInfo *info = lookupOp(name);
    ASSERT_TRUE(info) << name.str();
    EXPECT_EQ(info->minOperands, min) << name.str();
    EXPECT_EQ(info->maxOperands, max) << name.str();
    EXPECT_EQ(info->category, category) << name.str();
  };
  check("matmul", 2, 2, OpCategory::Contraction);
  check("add", 2, 2, OpCategory::ElementwiseBinary);
  check("sub", 2, 2, OpCategory::ElementwiseBinary);
  check("mul", 2, 2, OpCategory::ElementwiseBinary);
  check("div", 2, 2, OpCategory::ElementwiseBinary);
  check("relu", 1, 1, OpCategory::ElementwiseUnary);
  check("broadcast", 1, 1, OpCategory::Shape);
}

TEST(OpRegistry, Attributes) {
  const OpInfo *broadcast = lookupOp("broadcast");
  ASSERT_TRUE(broadcast);
  ASSERT_EQ(broadcast->attributes.size(), 1u);
  const AttrSpec *shape = broadcast->findAttribute("shape");
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->name, "shape");
  EXPECT_EQ(shape->type, AttrType::Shape);
  EXPECT_TRUE(shape->required);
  EXPECT_EQ(broadcast->findAttribute("axis"), nullptr);
  // The arithmetic ops take no attributes.
  for (const char *name : {"add", "sub", "mul", "div", "relu"})
    EXPECT_TRUE(lookupOp(name)->attributes.empty()) << name;
  // Every attribute of every op has a name and is found by it.
  for (const OpInfo &info : allOps())
    for (const AttrSpec &spec : info.attributes) {
      EXPECT_FALSE(spec.name.empty()) << info.name.str();
      EXPECT_EQ(info.findAttribute(spec.name), &spec) << info.name.str();
    }
  // Shape ops: optional and required attributes of several types.
  auto spec = [](llvm::StringRef op, llvm::StringRef attr) {
    const OpInfo *info = lookupOp(op);
    return info ? info->findAttribute(attr) : nullptr;
  };
  ASSERT_TRUE(spec("transpose", "perm") && spec("permute", "perm"));
  EXPECT_FALSE(spec("transpose", "perm")->required);
  EXPECT_TRUE(spec("permute", "perm")->required);
  EXPECT_EQ(spec("reshape", "shape")->type, AttrType::Shape);
  EXPECT_EQ(spec("slice", "starts")->type, AttrType::IntList);
  EXPECT_EQ(spec("pad", "value")->type, AttrType::Float);
  EXPECT_EQ(spec("pad", "mode")->type, AttrType::String);
  EXPECT_EQ(spec("split", "num")->type, AttrType::Int);
  EXPECT_FALSE(spec("gather", "axis")->required);
  EXPECT_EQ(attrTypeName(AttrType::Shape),
            "a shape (a list of integers or symbol expressions)");
  EXPECT_EQ(attrTypeName(AttrType::IntList), "a list of integers");
  EXPECT_EQ(attrTypeName(AttrType::DType), "a dtype name");
}

TEST(OpRegistry, UnsupportedOps) {
  const UnsupportedOpInfo *print = lookupUnsupportedOp("print");
  ASSERT_TRUE(print);
  EXPECT_EQ(print->reason, NotRepresentableReason::HostSideEffect);
  EXPECT_EQ(print->hint,
            "print the outputs on the host after the call returns");
  EXPECT_EQ(lookupUnsupportedOp("item")->reason,
            NotRepresentableReason::HostRead);
  EXPECT_EQ(lookupUnsupportedOp("nonzero")->reason,
            NotRepresentableReason::DataDependentShape);
  EXPECT_EQ(lookupUnsupportedOp("goto")->reason,
            NotRepresentableReason::UnstructuredControlFlow);
  EXPECT_EQ(lookupUnsupportedOp("relu"), nullptr);
  EXPECT_EQ(lookupUnsupportedOp("Print"), nullptr);
  EXPECT_EQ(describeReason(NotRepresentableReason::HostSideEffect),
            "has a host side effect");
  EXPECT_EQ(describeReason(NotRepresentableReason::HostRead),
            "reads a tensor value on the host");
  EXPECT_EQ(describeReason(NotRepresentableReason::DataDependentShape),
            "has an output shape that depends on tensor values");
  EXPECT_EQ(describeReason(NotRepresentableReason::UnstructuredControlFlow),
            "branches on a tensor value outside a structured control-flow op");
}

TEST(OpRegistry, NamesAreUnique) {
  std::set<std::string> names;
  for (const OpInfo &info : allOps())
    EXPECT_TRUE(names.insert(info.name.str()).second) << info.name.str();
  for (const char *name : {"print",
                           "debug_print",
                           "log_message",
                           "logging",
                           "host_callback",
                           "callback",
                           "pure_callback",
                           "io_callback",
                           "python_call",
                           "save",
                           "item",
                           "tolist",
                           "numpy",
                           "to_host",
                           "nonzero",
                           "unique",
                           "masked_select",
                           "boolean_mask",
                           "if",
                           "branch",
                           "goto"}) {
    EXPECT_TRUE(lookupUnsupportedOp(name)) << name;
    EXPECT_FALSE(lookupUnsupportedOp(name)->hint.empty()) << name;
    EXPECT_TRUE(names.insert(name).second) << name;
  }
}

TEST(OpRegistry, SuggestOpName) {
  EXPECT_EQ(suggestOpName("matmull"), "matmul");
  EXPECT_EQ(suggestOpName("matmal"), "matmul");
  EXPECT_EQ(suggestOpName("MatMul"), "matmul");
  EXPECT_EQ(suggestOpName("RELU"), "relu");
  EXPECT_EQ(suggestOpName("ADD"), "add");
  EXPECT_EQ(suggestOpName("addd"), "add");
  EXPECT_EQ(suggestOpName("broadcst"), "broadcast");
  EXPECT_EQ(suggestOpName("brodcast"), "broadcast");
  EXPECT_EQ(suggestOpName("relu"), "relu");
  // Nothing plausible.
  EXPECT_EQ(suggestOpName("fft2"), "");
  EXPECT_EQ(suggestOpName("tokenize"), "");
  EXPECT_EQ(suggestOpName("matrix_multiply"), "");
  EXPECT_EQ(suggestOpName(""), "");
  EXPECT_EQ(suggestOpName("bcast"), "cast");
}

//===----------------------------------------------------------------------===//
// Program model helpers
//===----------------------------------------------------------------------===//

TEST(ProgramModel, DTypes) {
  EXPECT_EQ(std::size(kAllDTypes), 13u);
  for (DType type : kAllDTypes) {
    SCOPED_TRACE(dtypeName(type).str());
    EXPECT_EQ(parseDType(dtypeName(type)), type);
  }
  EXPECT_EQ(int(DType::F32), 1);
  EXPECT_EQ(int(DType::Bool), 10);
  EXPECT_EQ(parseDType("float32"), std::nullopt);
  EXPECT_EQ(parseDType("F32"), std::nullopt);
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_TRUE(isFloat(DType::BF16));
  EXPECT_FALSE(isFloat(DType::I8));
  EXPECT_TRUE(isInteger(DType::U8));
  EXPECT_FALSE(isInteger(DType::Bool));
  EXPECT_TRUE(isSigned(DType::I64));
  EXPECT_FALSE(isSigned(DType::U8));
  EXPECT_FALSE(isSigned(DType::F32));
  EXPECT_STREQ(
      dtypeNameList(),
      "f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, bool");
}

TEST(ProgramModel, UnsignedDTypes) {
  // Appended ABI codes: the ten before them never change.
  EXPECT_EQ(int(DType::U16), 11);
  EXPECT_EQ(int(DType::U32), 12);
  EXPECT_EQ(int(DType::U64), 13);
  int code = 0;
  for (DType type : kAllDTypes) // kAllDTypes is in ABI code order
    EXPECT_EQ(int(type), ++code);
  EXPECT_EQ(code, 13);
  struct Expected {
    const char *name;
    DType type;
    unsigned size;
  };
  for (Expected e : {Expected{"u8", DType::U8, 1},
                     {"u16", DType::U16, 2},
                     {"u32", DType::U32, 4},
                     {"u64", DType::U64, 8}}) {
    SCOPED_TRACE(e.name);
    EXPECT_EQ(parseDType(e.name), e.type);
    EXPECT_EQ(dtypeName(e.type), e.name);
    EXPECT_EQ(dtypeSize(e.type), e.size);
    EXPECT_TRUE(isInteger(e.type));
    EXPECT_TRUE(isUnsigned(e.type));
    EXPECT_FALSE(isSigned(e.type));
    EXPECT_FALSE(isFloat(e.type));
  }
  EXPECT_FALSE(isUnsigned(DType::I64));
  EXPECT_FALSE(isUnsigned(DType::Bool));
  EXPECT_EQ(parseDType("uint32"), std::nullopt);
  // The shifts take the unsigned dtypes only (ONNX BitShift).
  const OpInfo *shift = lookupOp("shift_right");
  ASSERT_TRUE(shift);
  EXPECT_TRUE(acceptsDType(shift->dtypes, DType::U64));
  EXPECT_FALSE(acceptsDType(shift->dtypes, DType::I64));
  EXPECT_FALSE(acceptsDType(shift->dtypes, DType::Bool));
  EXPECT_EQ(dtypeClassName(shift->dtypes), "unsigned");
  EXPECT_TRUE(acceptsDType(lookupOp("xor")->dtypes, DType::U32));
}

TEST(ProgramModel, ValueNames) {
  llvm::StringRef base;
  unsigned result = 99;
  EXPECT_TRUE(splitValueName("node", base, result));
  EXPECT_EQ(base, "node");
  EXPECT_EQ(result, 0u);
  EXPECT_TRUE(splitValueName("node:2", base, result));
  EXPECT_EQ(base, "node");
  EXPECT_EQ(result, 2u);
  EXPECT_TRUE(splitValueName("n:999999", base, result));
  EXPECT_EQ(result, 999999u);
  EXPECT_FALSE(splitValueName("n:1000000", base, result));
  EXPECT_FALSE(splitValueName("node:", base, result));
  EXPECT_FALSE(splitValueName("node:x", base, result));
  EXPECT_FALSE(splitValueName("node:-1", base, result));
  EXPECT_FALSE(splitValueName("node:1:2", base, result));
  EXPECT_FALSE(splitValueName("node: 1", base, result));
}

TEST(ProgramModel, Identifiers) {
  EXPECT_TRUE(isValidIdentifier("x"));
  EXPECT_TRUE(isValidIdentifier("_"));
  EXPECT_TRUE(isValidIdentifier("Layer_2"));
  EXPECT_TRUE(isValidIdentifier(std::string(128, 'a')));
  EXPECT_FALSE(isValidIdentifier(std::string(129, 'a')));
  EXPECT_FALSE(isValidIdentifier(""));
  EXPECT_FALSE(isValidIdentifier("2x"));
  EXPECT_FALSE(isValidIdentifier("a-b"));
  EXPECT_FALSE(isValidIdentifier("a.b"));
  EXPECT_FALSE(isValidIdentifier("a:1"));
  EXPECT_FALSE(isValidIdentifier("\xC3\xA9"));
}

TEST(ProgramModel, ProgramSymbols) {
  Program program;
  program.symbols.push_back({"B", 1, 8, 1, Loc()});
  program.symbols.push_back({"S", 0, 4, 2, Loc()});
  EXPECT_EQ(program.symbolNames(), std::vector<std::string>({"B", "S"}));
  EXPECT_EQ(program.findSymbol("S"), 1u);
  EXPECT_EQ(program.findSymbol("T"), std::nullopt);
  std::vector<Interval> ranges = program.symbolRanges();
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[1].min, 0);
  EXPECT_EQ(ranges[1].max, 4);
  Blob blob = Blob::fromVector({1, 2, 3});
  EXPECT_EQ(blob.size, 3u);
  EXPECT_EQ(blob.bytes()[2], 3);
  Blob copy = blob;
  EXPECT_EQ(copy.data, blob.data); // shared, not copied
}

} // namespace
