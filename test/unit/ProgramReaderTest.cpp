//===- ProgramReaderTest.cpp ----------------------------------------------===//
//
// JSON program text to the Program model: every section, names, shapes,
// the encoding of inline constants, and the reporting of every error.
//
//===----------------------------------------------------------------------===//
#include "txc/Frontend/ProgramReader.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

using namespace txc;
using namespace txc::test;

namespace {

/// A program with one constant `c` of the given dtype, shape and data.
std::string withConstant(const std::string &dtype, const std::string &shape,
                         const std::string &data) {
  return program("", "", "", "\"c\"",
                 "{\"name\": \"c\", \"dtype\": \"" + dtype +
                     "\", \"shape\": " + shape + ", \"data\": " + data + "}");
}

/// Reads a program with one constant and returns its bytes.
std::vector<uint8_t> constantBytes(const std::string &dtype,
                                   const std::string &shape,
                                   const std::string &data) {
  auto loaded = read(withConstant(dtype, shape, data));
  EXPECT_TRUE(loaded->program) << dtype << " " << data << ":\n"
                               << dump(loaded->diags);
  if (!loaded->program || loaded->program->constants.size() != 1)
    return {};
  auto bytes = loaded->program->constants[0].data.bytes();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

/// The bits of each element of a constant, little-endian.
std::vector<uint64_t> constantBits(const std::string &dtype,
                                   const std::string &shape,
                                   const std::string &data) {
  std::vector<uint8_t> bytes = constantBytes(dtype, shape, data);
  unsigned size = dtypeSize(*parseDType(dtype));
  std::vector<uint64_t> bits;
  for (size_t i = 0; i + size <= bytes.size(); i += size) {
    uint64_t value = 0;
    std::memcpy(&value, bytes.data() + i, size);
    bits.push_back(value);
  }
  return bits;
}

/// The bits of a single scalar constant element.
uint64_t bitsOf(const std::string &dtype, const std::string &data) {
  auto bits = constantBits(dtype, "[]", data);
  EXPECT_EQ(bits.size(), 1u) << dtype << " " << data;
  return bits.empty() ? ~uint64_t(0) : bits[0];
}

/// The one error reading a constant element reports.
std::string constantError(const std::string &dtype, const std::string &data,
                          const std::string &shape = "[]") {
  auto loaded = read(withConstant(dtype, shape, data));
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
  if (loaded->diags.diagnostics().empty())
    return "";
  EXPECT_EQ(loaded->diags.diagnostics()[0].id, "bad-data");
  return loaded->diags.diagnostics()[0].message;
}

//===----------------------------------------------------------------------===//
// Sections
//===----------------------------------------------------------------------===//

const char *kFullProgram = R"({
  "format": "txc.program",
  "version": 1,
  "name": "full",
  "description": "every section",
  "symbols": [
    {"name": "B", "min": 1, "max": 64},
    {"name": "S", "min": 8, "max": 512, "multiple_of": 8, "description": "s"}
  ],
  "inputs": [
    {"name": "x", "dtype": "f32", "shape": ["B", "2*S+1", 4]},
    {"name": "m", "dtype": "bool", "shape": []}
  ],
  "constants": [
    {"name": "w", "dtype": "i32", "shape": [2, 2], "data": [1, -2, 3, 4]}
  ],
  "nodes": [
    {"name": "n", "op": "broadcast", "operands": ["w"],
     "attributes": {"shape": ["B", 2, 2], "i": 3, "f": 0.5, "b": true,
                    "s": "text", "z": null, "u": 18446744073709551615},
     "description": "a node"},
    {"name": "r", "op": "relu", "operands": ["n:0"]}
  ],
  "outputs": [
    "r",
    {"name": "out", "value": "n", "description": "an output"}
  ]
}
)";

TEST(ProgramReader, ReadsEverySection) {
  auto loaded = read(kFullProgram, "full.json");
  ASSERT_TRUE(loaded->program) << dump(loaded->diags);
  EXPECT_EQ(loaded->diags.diagnostics().size(), 0u) << dump(loaded->diags);
  const Program &p = *loaded->program;
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.name, "full");
  EXPECT_EQ(p.file, "full.json");
  EXPECT_EQ(p.nameLoc.line, 4u);
  EXPECT_EQ(p.nameLoc.column, 11u);
  EXPECT_EQ(p.nameLoc.pointer, "/name");

  ASSERT_EQ(p.symbols.size(), 2u);
  EXPECT_EQ(p.symbols[0].name, "B");
  EXPECT_EQ(p.symbols[0].min, 1);
  EXPECT_EQ(p.symbols[0].max, 64);
  EXPECT_EQ(p.symbols[0].multipleOf, 1);
  EXPECT_EQ(p.symbols[0].loc.line, 7u);
  EXPECT_EQ(p.symbols[0].loc.column, 5u);
  EXPECT_EQ(p.symbols[0].loc.pointer, "/symbols/0");
  EXPECT_EQ(p.symbols[1].name, "S");
  EXPECT_EQ(p.symbols[1].multipleOf, 8);
  EXPECT_EQ(p.symbols[1].min, 8);
  EXPECT_EQ(p.symbols[1].max, 512);

  ASSERT_EQ(p.inputs.size(), 2u);
  const ValueDecl &x = p.inputs[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.type.dtype, DType::F32);
  std::vector<std::string> names = p.symbolNames();
  EXPECT_EQ(shapeToString(x.type.shape, names), "[B,2*S+1,4]");
  EXPECT_EQ(x.loc.line, 11u);
  EXPECT_EQ(x.loc.column, 5u);
  EXPECT_EQ(x.dtypeLoc.column, 28u);
  EXPECT_EQ(x.dtypeLoc.pointer, "/inputs/0/dtype");
  EXPECT_EQ(x.shapeLoc.column, 44u);
  ASSERT_EQ(x.dimLocs.size(), 3u);
  EXPECT_EQ(x.dimLocs[0].column, 45u);
  EXPECT_EQ(x.dimLocs[1].column, 50u);
  EXPECT_EQ(x.dimLocs[1].pointer, "/inputs/0/shape/1");
  EXPECT_EQ(x.dimLocs[2].column, 59u);
  EXPECT_EQ(p.inputs[1].type.dtype, DType::Bool);
  EXPECT_EQ(p.inputs[1].type.rank(), 0u);

  ASSERT_EQ(p.constants.size(), 1u);
  const ConstantDecl &w = p.constants[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.type.dtype, DType::I32);
  EXPECT_EQ(shapeToString(w.type.shape, names), "[2,2]");
  ASSERT_EQ(w.data.size, 16u);
  int32_t values[4];
  std::memcpy(values, w.data.data, 16);
  EXPECT_EQ(values[0], 1);
  EXPECT_EQ(values[1], -2);
  EXPECT_EQ(values[2], 3);
  EXPECT_EQ(values[3], 4);
  EXPECT_EQ(w.dataLoc.line, 15u);
  EXPECT_EQ(w.dataLoc.pointer, "/constants/0/data");

  ASSERT_EQ(p.body.nodes.size(), 2u);
  const Node &n = p.body.nodes[0];
  EXPECT_EQ(n.name, "n");
  EXPECT_EQ(n.opName, "broadcast");
  EXPECT_EQ(n.loc.line, 18u);
  EXPECT_EQ(n.opLoc.column, 25u);
  ASSERT_EQ(n.operands.size(), 1u);
  EXPECT_EQ(n.operands[0], "w");
  ASSERT_EQ(n.operandLocs.size(), 1u);
  EXPECT_EQ(n.operandLocs[0].column, 51u);
  EXPECT_EQ(n.operandLocs[0].pointer, "/nodes/0/operands/0");
  ASSERT_EQ(n.attributes.size(), 7u);
  const NodeAttr *shape = n.findAttribute("shape");
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->loc.line, 19u);
  EXPECT_EQ(shape->loc.column, 21u);
  EXPECT_EQ(shape->loc.pointer, "/nodes/0/attributes/shape");
  ASSERT_EQ(shape->value.kind, AttrValue::Kind::List);
  ASSERT_EQ(shape->value.list.size(), 3u);
  EXPECT_EQ(shape->value.list[0].kind, AttrValue::Kind::String);
  EXPECT_EQ(shape->value.list[0].string, "B");
  EXPECT_EQ(shape->value.list[0].loc.pointer, "/nodes/0/attributes/shape/0");
  EXPECT_EQ(shape->value.list[1].kind, AttrValue::Kind::Int);
  EXPECT_EQ(shape->value.list[1].integer, 2);
  EXPECT_EQ(n.findAttribute("i")->value.kind, AttrValue::Kind::Int);
  EXPECT_EQ(n.findAttribute("i")->value.integer, 3);
  EXPECT_EQ(n.findAttribute("f")->value.kind, AttrValue::Kind::Float);
  EXPECT_EQ(n.findAttribute("f")->value.number, 0.5);
  EXPECT_EQ(n.findAttribute("b")->value.kind, AttrValue::Kind::Bool);
  EXPECT_TRUE(n.findAttribute("b")->value.boolean);
  EXPECT_EQ(n.findAttribute("s")->value.kind, AttrValue::Kind::String);
  EXPECT_EQ(n.findAttribute("s")->value.string, "text");
  EXPECT_EQ(n.findAttribute("z")->value.kind, AttrValue::Kind::Null);
  // Past int64, only a double holds the value.
  EXPECT_EQ(n.findAttribute("u")->value.kind, AttrValue::Kind::Float);
  EXPECT_EQ(n.findAttribute("u")->value.number, 18446744073709551615.0);
  EXPECT_EQ(p.body.nodes[1].operands[0], "n:0");

  ASSERT_EQ(p.body.outputs.size(), 2u);
  EXPECT_EQ(p.body.outputs[0].name, "r");
  EXPECT_EQ(p.body.outputs[0].value, "r");
  EXPECT_EQ(p.body.outputs[0].loc.line, 25u);
  EXPECT_EQ(p.body.outputs[0].valueLoc.pointer, "/outputs/0");
  EXPECT_EQ(p.body.outputs[1].name, "out");
  EXPECT_EQ(p.body.outputs[1].value, "n");
  EXPECT_EQ(p.body.outputs[1].valueLoc.line, 26u);
  EXPECT_EQ(p.body.outputs[1].valueLoc.column, 30u);
  EXPECT_EQ(p.body.outputs[1].valueLoc.pointer, "/outputs/1/value");

  // The digest of the file's bytes (sha256sum of kFullProgram).
  EXPECT_EQ(p.sha256,
            "2f6ad6076ff3c56406a804ce28df6e1727eb4eb803e924cec556bb274768be15");
}

TEST(ProgramReader, SymbolsConstantsAndDescriptionAreOptional) {
  auto loaded = read(R"({"format": "txc.program", "version": 1, "name": "p",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
    "nodes": [], "outputs": ["x"]})");
  ASSERT_TRUE(loaded->program) << dump(loaded->diags);
  EXPECT_TRUE(loaded->program->symbols.empty());
  EXPECT_TRUE(loaded->program->constants.empty());
  EXPECT_TRUE(loaded->program->body.nodes.empty());
}

TEST(ProgramReader, MissingRequiredKeys) {
  auto loaded = read("{\"format\": \"txc.program\", \"version\": 1, "
                     "\"name\": \"p\"}");
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(dump(loaded->diags),
            "1:1 missing-key: the program has no 'inputs' key\n"
            "1:1 missing-key: the program has no 'nodes' key\n"
            "1:1 missing-key: the program has no 'outputs' key\n");
}

TEST(ProgramReader, RootMustBeAnObject) {
  auto loaded = read("[1, 2]");
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(dump(loaded->diags),
            "1:1 wrong-type: the program must be an object, not an array\n");
}

TEST(ProgramReader, FormatAndVersion) {
  {
    auto loaded = read(R"({"format": "onnx", "version": 1, "name": "p",
      "inputs": [], "nodes": [], "outputs": []})");
    EXPECT_FALSE(loaded->program);
    // A file of another format is not read further.
    EXPECT_EQ(dump(loaded->diags),
              "1:12 bad-format: 'format' is 'onnx'; a txc program has format "
              "'txc.program' [/format]\n");
  }
  {
    auto loaded = read(R"({"format": "txc.program", "version": 2, "name": "p",
      "inputs": [], "nodes": [], "outputs": []})");
    EXPECT_FALSE(loaded->program);
    EXPECT_EQ(dump(loaded->diags),
              "1:38 bad-version: program format version 2 is not supported; "
              "this txc reads version 1 [/version]\n");
  }
  {
    auto loaded = read(R"({"format": "txc.program", "version": 1.0, "name": "p",
      "inputs": [], "nodes": [], "outputs": ["x"]})");
    EXPECT_FALSE(loaded->program);
    ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
    EXPECT_EQ(loaded->diags.diagnostics()[0].message,
              "'version' must be an integer that fits in 64 bits, not 1.0");
  }
}

TEST(ProgramReader, Identifiers) {
  std::string longest(128, 'a');
  std::string tooLong(129, 'a');
  auto ok = read(program("",
                         "{\"name\": \"_x1\", \"dtype\": \"f32\", "
                         "\"shape\": []}",
                         "{\"name\": \"" + longest +
                             "\", \"op\": \"relu\", \"operands\": [\"_x1\"]}",
                         "\"" + longest + "\""));
  EXPECT_TRUE(ok->program) << dump(ok->diags);

  for (std::string bad :
       {std::string("1x"), std::string("a-b"), std::string(""),
        std::string("a b"), std::string("\xC3\xA9"), tooLong}) {
    auto loaded = read(program(
        "", "", "{\"name\": \"" + bad + "\", \"op\": \"relu\"}", "\"y\""));
    EXPECT_FALSE(loaded->program);
    ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
    const Diagnostic &diag = loaded->diags.diagnostics()[0];
    EXPECT_EQ(diag.id, "bad-name");
    EXPECT_EQ(diag.message,
              "the node name '" + bad +
                  "' is not a valid name: use letters, digits and '_', not "
                  "starting with a digit, at most 128 characters");
    EXPECT_EQ(diag.loc.pointer, "/nodes/0/name");
  }
  // Names of every kind are checked.
  auto loaded = read(R"({"format": "txc.program", "version": 1, "name": "9p",
    "symbols": [{"name": "S-1", "min": 1, "max": 2}],
    "inputs": [{"name": "x.y", "dtype": "f32", "shape": []}],
    "constants": [{"name": "c c", "dtype": "f32", "shape": [], "data": 1}],
    "nodes": [],
    "outputs": ["o:1", {"name": "", "value": "x"}]})");
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(ids(loaded->diags),
            std::vector<std::string>({"bad-name", "bad-name", "bad-name",
                                      "bad-name", "bad-name", "bad-name"}))
      << dump(loaded->diags);
}

TEST(ProgramReader, ShapesWithExpressions) {
  auto loaded = read(program(
      "{\"name\": \"B\", \"min\": 1, \"max\": 8}, "
      "{\"name\": \"S\", \"min\": 1, \"max\": 8}",
      "{\"name\": \"x\", \"dtype\": \"f32\", "
      "\"shape\": [\"B\", \" 2 * ( S + 1 ) \", \"B*S\", 0, 7, \"S-S+3\"]}",
      "", "\"x\""));
  ASSERT_TRUE(loaded->program) << dump(loaded->diags);
  const Program &p = *loaded->program;
  EXPECT_EQ(shapeToString(p.inputs[0].type.shape, p.symbolNames()),
            "[B,2*S+2,B*S,0,7,3]");
}

TEST(ProgramReader, BadDimensions) {
  std::string symbols = "{\"name\": \"S\", \"min\": 1, \"max\": 8}";
  auto errorOf = [&](const std::string &dim) {
    auto loaded = read(program(
        symbols,
        "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [" + dim + "]}", "",
        "\"x\""));
    EXPECT_FALSE(loaded->program);
    return dump(loaded->diags);
  };
  // Line 3 is the input; its shape's first item is at column 52.
  EXPECT_EQ(errorOf("\"2*Q\""),
            "3:55 unknown-symbol: in dimension '2*Q': unknown symbol 'Q' "
            "(declare it under 'symbols') [/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("\"S+\""),
            "3:55 bad-dim: in dimension 'S+': expected a number, a symbol or "
            "'(' [/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("-1"), "3:52 bad-dim: dimension -1 is negative "
                           "[/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("281474976710657"),
            "3:52 bad-dim: dimension 281474976710657 is over the limit of "
            "281474976710656 [/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("1.5"),
            "3:52 wrong-type: a dimension must be an integer, not 1.5 "
            "[/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("null"),
            "3:52 wrong-type: a dimension must be an integer or a symbol "
            "expression string, not null [/inputs/0/shape/0]\n");
  // A constant expression is held to the same limits as an integer.
  EXPECT_EQ(errorOf("\"0-3\""),
            "3:52 bad-dim: dimension '0-3' is negative (-3) "
            "[/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("\"281474976710656+1\""),
            "3:52 bad-dim: dimension '281474976710656+1' is over the limit "
            "of 281474976710656 [/inputs/0/shape/0]\n");
  EXPECT_EQ(errorOf("1, 2, 3, 4, 5, 6, 7, 8, 9"),
            "3:51 limit: rank 9 is over the limit of 8 [/inputs/0/shape]\n");
  EXPECT_EQ(errorOf("\"" + std::string(257, 'S') + "\""),
            "3:52 bad-dim: dimension expression is longer than 256 "
            "characters [/inputs/0/shape/0]\n");
  // Every bad dim is reported.
  auto loaded = read(program(
      symbols,
      "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [-1, \"T\", 2.0]}", "",
      "\"x\""));
  EXPECT_EQ(
      ids(loaded->diags),
      std::vector<std::string>({"bad-dim", "unknown-symbol", "wrong-type"}));
}

TEST(ProgramReader, ConstantsMustHaveAStaticShape) {
  auto loaded = read(program(
      "{\"name\": \"S\", \"min\": 1, \"max\": 8}",
      "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"S\"]}", "", "\"x\"",
      "{\"name\": \"c\", \"dtype\": \"f32\", \"shape\": [\"S\"], \"data\": "
      "1}"));
  EXPECT_FALSE(loaded->program);
  ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
  EXPECT_EQ(loaded->diags.diagnostics()[0].message,
            "constant 'c' must have a static shape; its shape uses symbols");
  EXPECT_EQ(loaded->diags.diagnostics()[0].loc.pointer, "/constants/0/shape");
}

TEST(ProgramReader, ConstantElementLimit) {
  auto loaded = read(withConstant("u8", "[1024, 1025]", "0"));
  EXPECT_FALSE(loaded->program);
  ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
  EXPECT_EQ(loaded->diags.diagnostics()[0].id, "limit");
  EXPECT_EQ(loaded->diags.diagnostics()[0].message,
            "constant 'c' has more than 1048576 elements, the limit for "
            "inline data");
  // Exactly at the limit is fine (a splat keeps the text small).
  auto atLimit = read(withConstant("u8", "[1024, 1024]", "7"));
  ASSERT_TRUE(atLimit->program) << dump(atLimit->diags);
  EXPECT_EQ(atLimit->program->constants[0].data.size, 1u << 20);
  // Overflowing element counts do not wrap around.
  auto huge = read(withConstant("u8", "[4294967296, 4294967296, 0]", "0"));
  EXPECT_FALSE(huge->program);
  EXPECT_EQ(ids(huge->diags), std::vector<std::string>({"limit"}));
  // Zero-element constants are fine even with a large dim.
  auto empty = read(withConstant("f32", "[0, 281474976710656]", "[]"));
  ASSERT_TRUE(empty->program) << dump(empty->diags);
  EXPECT_EQ(empty->program->constants[0].data.size, 0u);
}

TEST(ProgramReader, ProgramWideInlineElementLimit) {
  std::string constants;
  for (int i = 0; i < 3; ++i)
    constants += std::string(i ? ", " : "") + "{\"name\": \"c" +
                 std::to_string(i) +
                 "\", \"dtype\": \"u8\", \"shape\": [524288], \"data\": 1}";
  auto loaded = read(program("", "", "", "\"c0\"", constants));
  EXPECT_FALSE(loaded->program);
  ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
  EXPECT_EQ(loaded->diags.diagnostics()[0].message,
            "the program's inline constants have more than 1048576 elements "
            "in all");
  EXPECT_EQ(loaded->diags.diagnostics()[0].loc.pointer, "/constants/2/data");
}

//===----------------------------------------------------------------------===//
// Constant encoding
//===----------------------------------------------------------------------===//

TEST(ProgramReader, F32RoundsDecimalTextOnce) {
  EXPECT_EQ(bitsOf("f32", "0.1"), 0x3DCCCCCDu);
  EXPECT_EQ(bitsOf("f32", "1"), 0x3F800000u);
  EXPECT_EQ(bitsOf("f32", "-2.5e1"), 0xC1C80000u);
  // Just above the midpoint between 1 and the next float: rounding through
  // a double first would land on the midpoint and then round to even (1.0).
  EXPECT_EQ(bitsOf("f32", "1.000000059604644775390626"), 0x3F800001u);
  // Exactly the midpoint rounds to even.
  EXPECT_EQ(bitsOf("f32", "1.000000059604644775390625"), 0x3F800000u);
  EXPECT_EQ(bitsOf("f32", "3.4028235e38"), 0x7F7FFFFFu);
  // Integers round once as well: 2^24+1 is a tie, so it rounds to even.
  EXPECT_EQ(bitsOf("f32", "16777217"), 0x4B800000u);
  EXPECT_EQ(bitsOf("f32", "16777219"), 0x4B800002u);
  EXPECT_EQ(bitsOf("f32", "-9223372036854775808"), 0xDF000000u);
  // Past int64: 2^63 + 2^39 + 1 is just above the midpoint between 2^63 and
  // the next float; a double cannot hold the +1.
  EXPECT_EQ(bitsOf("f32", "9223372586610589697"), 0x5F000001u);
  EXPECT_EQ(bitsOf("f32", "18446744073709551615"), 0x5F800000u);
  EXPECT_EQ(bitsOf("f64", "18446744073709551615"), 0x43F0000000000000u);
  EXPECT_EQ(bitsOf("f64", "9007199254740993"), 0x4340000000000000u);
}

TEST(ProgramReader, SignedZeroAndSubnormals) {
  EXPECT_EQ(bitsOf("f32", "-0.0"), 0x80000000u);
  EXPECT_EQ(bitsOf("f32", "0.0"), 0u);
  EXPECT_EQ(bitsOf("f64", "-0.0"), 0x8000000000000000u);
  EXPECT_EQ(bitsOf("f16", "-0.0"), 0x8000u);
  EXPECT_EQ(bitsOf("bf16", "-0.0"), 0x8000u);
  // The smallest subnormals.
  EXPECT_EQ(bitsOf("f32", "1e-45"), 1u);
  EXPECT_EQ(bitsOf("f32", "1.401298464324817e-45"), 1u);
  EXPECT_EQ(bitsOf("f32", "-1.1754942e-38"), 0x807FFFFFu);
  EXPECT_EQ(bitsOf("f64", "4.9406564584124654e-324"), 1u);
  EXPECT_EQ(bitsOf("f16", "5.9604645e-8"), 1u);
  EXPECT_EQ(bitsOf("f16", "6.097555e-5"), 0x03FFu);
  // Below half the smallest subnormal: zero.
  EXPECT_EQ(bitsOf("f32", "1e-46"), 0u);
}

TEST(ProgramReader, HalfPrecisionViaAPFloat) {
  EXPECT_EQ(bitsOf("f16", "1.5"), 0x3E00u);
  EXPECT_EQ(bitsOf("f16", "65504"), 0x7BFFu);
  EXPECT_EQ(bitsOf("f16", "65519.99"), 0x7BFFu);
  EXPECT_EQ(bitsOf("f16", "0.1"), 0x2E66u);
  EXPECT_EQ(bitsOf("f16", "-2"), 0xC000u);
  EXPECT_EQ(bitsOf("bf16", "1.5"), 0x3FC0u);
  EXPECT_EQ(bitsOf("bf16", "0.1"), 0x3DCDu);
  EXPECT_EQ(bitsOf("bf16", "1e38"), 0x7E96u);
  EXPECT_EQ(bitsOf("bf16", "257"), 0x4380u);
  EXPECT_EQ(bitsOf("bf16", "259"), 0x4382u);
  EXPECT_EQ(constantError("f16", "65520"),
            "data of constant 'c': number 65520 is out of the range of f16");
  EXPECT_EQ(constantError("f16", "1e5"),
            "data of constant 'c': number 1e5 is out of the range of f16");
  EXPECT_EQ(constantError("bf16", "3.4e38"),
            "data of constant 'c': number 3.4e38 is out of the range of "
            "bf16");
  EXPECT_EQ(constantError("f32", "3.5e38"),
            "data of constant 'c': number 3.5e38 is out of the range of f32");
  EXPECT_EQ(constantError("f32", "-1e39"),
            "data of constant 'c': number -1e39 is out of the range of f32");
}

TEST(ProgramReader, NanAndInfinitySpellings) {
  EXPECT_EQ(bitsOf("f32", "\"nan\""), 0x7FC00000u);
  EXPECT_EQ(bitsOf("f32", "\"NaN\""), 0x7FC00000u);
  EXPECT_EQ(bitsOf("f32", "\"-nan\""), 0xFFC00000u);
  EXPECT_EQ(bitsOf("f32", "\"-NaN\""), 0xFFC00000u);
  EXPECT_EQ(bitsOf("f32", "\"inf\""), 0x7F800000u);
  EXPECT_EQ(bitsOf("f32", "\"+inf\""), 0x7F800000u);
  EXPECT_EQ(bitsOf("f32", "\"Infinity\""), 0x7F800000u);
  EXPECT_EQ(bitsOf("f32", "\"-inf\""), 0xFF800000u);
  EXPECT_EQ(bitsOf("f32", "\"-Infinity\""), 0xFF800000u);
  EXPECT_EQ(bitsOf("f64", "\"inf\""), 0x7FF0000000000000u);
  EXPECT_EQ(bitsOf("f64", "\"nan\""), 0x7FF8000000000000u);
  EXPECT_EQ(bitsOf("f16", "\"-inf\""), 0xFC00u);
  EXPECT_EQ(bitsOf("f16", "\"nan\""), 0x7E00u);
  EXPECT_EQ(bitsOf("bf16", "\"inf\""), 0x7F80u);
  EXPECT_EQ(bitsOf("bf16", "\"nan\""), 0x7FC0u);
  for (const char *bad : {"NAN", "INF", "infinity", "1.0", ""})
    EXPECT_EQ(constantError("f32", "\"" + std::string(bad) + "\""),
              "data of constant 'c': '" + std::string(bad) +
                  "' is not a number; NaN and infinities are written "
                  "\"nan\", \"inf\" and \"-inf\"");
  EXPECT_EQ(constantError("f32", "true"),
            "data of constant 'c': expected a number, not a boolean");
  EXPECT_EQ(constantError("f32", "null"),
            "data of constant 'c': expected a number, not null");
  // Integer dtypes have no NaN.
  EXPECT_EQ(constantError("i32", "\"nan\""),
            "data of constant 'c': expected an integer, not a string");
}

TEST(ProgramReader, IntegerRanges) {
  EXPECT_EQ(constantBits("i8", "[2]", "[-128, 127]"),
            std::vector<uint64_t>({0x80, 0x7F}));
  EXPECT_EQ(constantBits("u8", "[2]", "[0, 255]"),
            std::vector<uint64_t>({0x00, 0xFF}));
  EXPECT_EQ(constantBits("i16", "[2]", "[-32768, 32767]"),
            std::vector<uint64_t>({0x8000, 0x7FFF}));
  EXPECT_EQ(constantBits("i32", "[2]", "[-2147483648, 2147483647]"),
            std::vector<uint64_t>({0x80000000u, 0x7FFFFFFFu}));
  EXPECT_EQ(
      constantBits("i64", "[2]", "[-9223372036854775808, 9223372036854775807]"),
      std::vector<uint64_t>({0x8000000000000000u, 0x7FFFFFFFFFFFFFFFu}));
  EXPECT_EQ(constantError("i8", "128"),
            "data of constant 'c': 128 does not fit in i8");
  EXPECT_EQ(constantError("i8", "-129"),
            "data of constant 'c': -129 does not fit in i8");
  EXPECT_EQ(constantError("u8", "-1"),
            "data of constant 'c': -1 does not fit in u8");
  EXPECT_EQ(constantError("u8", "256"),
            "data of constant 'c': 256 does not fit in u8");
  EXPECT_EQ(constantError("i16", "32768"),
            "data of constant 'c': 32768 does not fit in i16");
  EXPECT_EQ(constantError("i32", "-2147483649"),
            "data of constant 'c': -2147483649 does not fit in i32");
  EXPECT_EQ(constantError("i64", "9223372036854775808"),
            "data of constant 'c': 9223372036854775808 does not fit in i64");
  EXPECT_EQ(constantError("i32", "1.0"),
            "data of constant 'c': expected an integer, not 1.0");
  EXPECT_EQ(constantError("i32", "1e2"),
            "data of constant 'c': expected an integer, not 1e2");
  EXPECT_EQ(constantError("u8", "true"),
            "data of constant 'c': expected an integer, not a boolean");
}

TEST(ProgramReader, UnsignedIntegerRanges) {
  EXPECT_EQ(constantBits("u16", "[2]", "[0, 65535]"),
            std::vector<uint64_t>({0x0000, 0xFFFF}));
  EXPECT_EQ(constantBits("u32", "[2]", "[2147483648, 4294967295]"),
            std::vector<uint64_t>({0x80000000u, 0xFFFFFFFFu}));
  // Above INT64_MAX: JSON's unsigned integers, which only u64 holds.
  EXPECT_EQ(
      constantBits("u64", "[3]",
                   "[0, 9223372036854775808, 18446744073709551615]"),
      std::vector<uint64_t>({0, 0x8000000000000000u, 0xFFFFFFFFFFFFFFFFu}));
  EXPECT_EQ(constantError("u16", "65536"),
            "data of constant 'c': 65536 does not fit in u16");
  EXPECT_EQ(constantError("u32", "-1"),
            "data of constant 'c': -1 does not fit in u32");
  EXPECT_EQ(constantError("u32", "4294967296"),
            "data of constant 'c': 4294967296 does not fit in u32");
  EXPECT_EQ(constantError("u64", "-1"),
            "data of constant 'c': -1 does not fit in u64");
  EXPECT_EQ(constantError("u32", "9223372036854775808"),
            "data of constant 'c': 9223372036854775808 does not fit in u32");
  EXPECT_EQ(constantError("u64", "1.0"),
            "data of constant 'c': expected an integer, not 1.0");
}

TEST(ProgramReader, BoolConstants) {
  EXPECT_EQ(constantBits("bool", "[4]", "[true, false, 1, 0]"),
            std::vector<uint64_t>({1, 0, 1, 0}));
  EXPECT_EQ(constantError("bool", "2"),
            "data of constant 'c': expected true, false, 0 or 1");
  EXPECT_EQ(constantError("bool", "1.0"),
            "data of constant 'c': expected true, false, 0 or 1");
  EXPECT_EQ(constantError("bool", "\"true\""),
            "data of constant 'c': expected true, false, 0 or 1");
}

TEST(ProgramReader, SplatData) {
  EXPECT_EQ(constantBits("f32", "[2, 3]", "2.5"),
            std::vector<uint64_t>(6, 0x40200000u));
  EXPECT_EQ(constantBits("i16", "[3]", "-1"),
            std::vector<uint64_t>(3, 0xFFFFu));
  EXPECT_EQ(constantBits("bool", "[2, 2]", "true"),
            std::vector<uint64_t>(4, 1));
  EXPECT_EQ(constantBits("f16", "[2]", "\"-inf\""),
            std::vector<uint64_t>(2, 0xFC00u));
  // A rank-0 constant holds one element, written either way.
  EXPECT_EQ(constantBits("i32", "[]", "7"), std::vector<uint64_t>({7}));
  EXPECT_EQ(constantBits("i32", "[]", "[7]"), std::vector<uint64_t>({7}));
  // A splat of an empty tensor has no bytes.
  EXPECT_TRUE(constantBytes("f32", "[0, 4]", "1").empty());
}

TEST(ProgramReader, WrongElementCounts) {
  auto check = [](const std::string &shape, const std::string &data,
                  const std::string &expected) {
    auto loaded = read(withConstant("f32", shape, data));
    EXPECT_FALSE(loaded->program);
    ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
    EXPECT_EQ(loaded->diags.diagnostics()[0].id, "bad-data");
    EXPECT_EQ(loaded->diags.diagnostics()[0].message, expected);
    EXPECT_EQ(loaded->diags.diagnostics()[0].loc.pointer, "/constants/0/data");
  };
  check("[2, 2]", "[1, 2, 3]",
        "constant 'c' has shape [2,2] (4 elements) but its data has 3 values; "
        "write the elements as one flat list in row-major order");
  check("[2, 2]", "[[1, 2], [3, 4]]",
        "constant 'c' has shape [2,2] (4 elements) but its data has 2 values; "
        "write the elements as one flat list in row-major order");
  check("[]", "[]",
        "constant 'c' has shape [] (1 elements) but its data has 0 values; "
        "write the elements as one flat list in row-major order");
}

TEST(ProgramReader, BadElementsAreReportedUpToTen) {
  std::string data = "[";
  for (int i = 0; i < 13; ++i)
    data += std::string(i ? ", " : "") + (i % 2 ? "300" : "1");
  data += "]"; // six elements of 300 do not fit
  auto loaded = read(withConstant("u8", "[13]", data));
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(loaded->diags.errorCount(), 6u) << dump(loaded->diags);
  EXPECT_EQ(loaded->diags.diagnostics()[0].message,
            "element 1 of constant 'c': 300 does not fit in u8");
  EXPECT_EQ(loaded->diags.diagnostics()[0].loc.pointer, "/constants/0/data/1");

  std::string many = "[";
  for (int i = 0; i < 12; ++i)
    many += std::string(i ? ", " : "") + "-1";
  many += "]";
  auto capped = read(withConstant("u8", "[12]", many));
  ASSERT_EQ(capped->diags.errorCount(), 11u) << dump(capped->diags);
  EXPECT_EQ(capped->diags.diagnostics()[9].message,
            "element 9 of constant 'c': -1 does not fit in u8");
  EXPECT_EQ(capped->diags.diagnostics()[10].message,
            "2 more bad elements in constant 'c'");
}

//===----------------------------------------------------------------------===//
// Symbols
//===----------------------------------------------------------------------===//

TEST(ProgramReader, SymbolErrors) {
  auto errorsOf = [](const std::string &symbols) {
    auto loaded = read(program(symbols, "", "", "\"x\""));
    EXPECT_FALSE(loaded->program);
    std::string out;
    for (const Diagnostic &diag : loaded->diags.diagnostics())
      out += diag.id + ": " + diag.message + " [" + diag.loc.pointer + "]\n";
    return out;
  };
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 5, \"max\": 2}"),
            "symbol-range: symbol 'S' has min 5 greater than max 2 "
            "[/symbols/0]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": -1, \"max\": 2}"),
            "symbol-range: 'min' of a symbol must be between 0 and "
            "281474976710656, not -1 [/symbols/0/min]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 0, \"max\": 281474976710657}"),
            "symbol-range: 'max' of a symbol must be between 0 and "
            "281474976710656, not 281474976710657 [/symbols/0/max]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 1, \"max\": 2, "
                     "\"multiple_of\": 0}"),
            "symbol-range: 'multiple_of' must be between 1 and 2^32, not 0 "
            "[/symbols/0/multiple_of]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 1, \"max\": 7, "
                     "\"multiple_of\": 8}"),
            "symbol-range: symbol 'S' has no value: no multiple of 8 lies in "
            "[1, 7] [/symbols/0]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 1, \"max\": 2}, "
                     "{\"name\": \"S\", \"min\": 1, \"max\": 2}"),
            "duplicate-name: symbol 'S' is declared twice "
            "[/symbols/1/name]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"max\": 2}"),
            "missing-key: a symbol has no 'min' key [/symbols/0]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": \"1\", \"max\": 2.5}"),
            "wrong-type: 'min' must be an integer, not a string "
            "[/symbols/0/min]\n"
            "wrong-type: 'max' must be an integer that fits in 64 bits, not "
            "2.5 [/symbols/0/max]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 1, \"max\": 2, \"mn\": 3}"),
            "unknown-key: unknown key 'mn' in a symbol (did you mean 'min'?) "
            "[/symbols/0/mn]\n");
  EXPECT_EQ(errorsOf("\"S\""),
            "wrong-type: a symbol must be an object, not a string "
            "[/symbols/0]\n");
  EXPECT_EQ(errorsOf("{\"name\": \"S\", \"min\": 1, \"max\": 2, "
                     "\"multiple_of\": 4294967297}"),
            "symbol-range: 'multiple_of' must be between 1 and 2^32, not "
            "4294967297 [/symbols/0/multiple_of]\n");
  std::string many;
  for (int i = 0; i < 65; ++i)
    many += std::string(i ? ", " : "") + "{\"name\": \"S" + std::to_string(i) +
            "\", \"min\": 1, \"max\": 2}";
  EXPECT_EQ(errorsOf(many), "limit: the program declares 65 symbols, over "
                            "the limit of 64 [/symbols]\n");
}

TEST(ProgramReader, ASymbolWithABadBoundStillNamesTheSymbol) {
  // Shapes that use S do not report a second "unknown symbol" error.
  auto loaded =
      read(program("{\"name\": \"S\", \"min\": -1, \"max\": 2}",
                   "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"S\"]}",
                   "", "\"x\""));
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(ids(loaded->diags), std::vector<std::string>({"symbol-range"}));
}

TEST(ProgramReader, MultipleOfAcceptsARangeWithOneMultiple) {
  auto loaded = read(
      program("{\"name\": \"S\", \"min\": 5, \"max\": 8, \"multiple_of\": 8}",
              "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"S\"]}", "",
              "\"x\""));
  ASSERT_TRUE(loaded->program) << dump(loaded->diags);
  EXPECT_EQ(loaded->program->symbols[0].multipleOf, 8);
}

//===----------------------------------------------------------------------===//
// Nodes, outputs and keys
//===----------------------------------------------------------------------===//

TEST(ProgramReader, UnknownKeysWithSuggestions) {
  auto loaded = read(R"({"format": "txc.program", "version": 1, "name": "p",
"inputs": [{"name": "x", "dtype": "f32", "shape": [], "dtyp": "f32"}],
"nodes": [{"name": "r", "op": "relu", "operand": ["x"]}],
"outputs": [{"name": "o", "value": "r", "valeu": 1}],
"outptus": [], "zzz": 1})");
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(dump(loaded->diags),
            "5:1 unknown-key: unknown key 'outptus' in the program (did you "
            "mean 'outputs'?) [/outptus]\n"
            "5:16 unknown-key: unknown key 'zzz' in the program; expected "
            "'format', 'version', 'name', 'description', 'symbols', 'inputs', "
            "'constants', 'nodes', 'outputs' [/zzz]\n"
            "2:55 unknown-key: unknown key 'dtyp' in an input (did you mean "
            "'dtype'?) [/inputs/0/dtyp]\n"
            "3:39 unknown-key: unknown key 'operand' in a node (did you mean "
            "'operands'?) [/nodes/0/operand]\n"
            "4:41 unknown-key: unknown key 'valeu' in an output (did you mean "
            "'value'?) [/outputs/0/valeu]\n");
}

TEST(ProgramReader, NodeStructure) {
  auto loaded = read(program(
      "", "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": []}",
      "{\"name\": \"a\", \"op\": 5, \"operands\": \"x\"}, "
      "{\"name\": \"b\", \"op\": \"relu\", \"operands\": [1, \"x\"], "
      "\"attributes\": [1]}, "
      "{\"op\": \"relu\", \"attributes\": {\"k\": {}}, \"regions\": []}, "
      "7",
      "\"x\""));
  EXPECT_FALSE(loaded->program);
  std::string out;
  for (const Diagnostic &diag : loaded->diags.diagnostics())
    out += diag.message + " [" + diag.loc.pointer + "]\n";
  EXPECT_EQ(out,
            "'op' must be a string, not a number [/nodes/0/op]\n"
            "'operands' must be an array, not a string [/nodes/0/operands]\n"
            "an operand must be a string, not a number "
            "[/nodes/1/operands/0]\n"
            "'attributes' must be an object, not an array "
            "[/nodes/1/attributes]\n"
            "a node has no 'name' key [/nodes/2]\n"
            "an attribute value must be a number, string, boolean or list, "
            "not an object [/nodes/2/attributes/k]\n"
            "'regions' must be an object of graphs, not an array "
            "[/nodes/2/regions]\n"
            "a node must be an object, not a number [/nodes/3]\n");
}

TEST(ProgramReader, RegionsAreGraphs) {
  auto loaded = read(program(
      "", "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": []}",
      "{\"name\": \"c\", \"op\": \"cond\", \"operands\": [\"x\"], "
      "\"regions\": {\"then\": {\"inputs\": [{\"name\": \"t\", \"dtype\": "
      "\"f32\", \"shape\": []}], \"nodes\": [{\"name\": \"tr\", \"op\": "
      "\"relu\", \"operands\": [\"t\"]}], \"outputs\": [\"tr\"]}, "
      "\"else\": {\"outputs\": [\"x\"]}}}",
      "\"c\""));
  ASSERT_TRUE(loaded->program) << dump(loaded->diags);
  const Node &node = loaded->program->body.nodes[0];
  ASSERT_EQ(node.regions.size(), 2u);
  const Graph *then = node.findRegion("then");
  ASSERT_TRUE(then);
  EXPECT_EQ(then->inputs.size(), 1u);
  EXPECT_EQ(then->nodes.size(), 1u);
  EXPECT_EQ(then->nodes[0].loc.pointer, "/nodes/0/regions/then/nodes/0");
  EXPECT_EQ(then->outputs[0].value, "tr");
  EXPECT_EQ(node.findRegion("else")->outputs[0].value, "x");

  auto bad =
      read(program("", "",
                   "{\"name\": \"c\", \"op\": \"cond\", \"regions\": "
                   "{\"then\": {\"nodes\": [], \"outputs\": []}, \"else\": 3}}",
                   "\"c\""));
  EXPECT_FALSE(bad->program);
  EXPECT_EQ(ids(bad->diags),
            std::vector<std::string>({"no-outputs", "wrong-type"}))
      << dump(bad->diags);
}

TEST(ProgramReader, Outputs) {
  {
    auto loaded = read(program("", "", "", ""));
    EXPECT_FALSE(loaded->program);
    ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
    EXPECT_EQ(loaded->diags.diagnostics()[0].id, "no-outputs");
    EXPECT_EQ(loaded->diags.diagnostics()[0].message,
              "the program has no outputs; an exported region must return at "
              "least one tensor");
  }
  {
    auto loaded = read(program(
        "", "", "",
        "{\"name\": \"o\"}, {\"value\": \"v\"}, {\"name\": \"p\", \"value\": "
        "3}, 4, \"n:1\""));
    EXPECT_FALSE(loaded->program);
    std::string out;
    for (const Diagnostic &diag : loaded->diags.diagnostics())
      out += diag.message + " [" + diag.loc.pointer + "]\n";
    EXPECT_EQ(out, "an output has no 'value' key [/outputs/0]\n"
                   "an output has no 'name' key [/outputs/1]\n"
                   "the output value must be a string, not a number "
                   "[/outputs/2/value]\n"
                   "an output must be a value name or an object with 'name' and "
            "'value', not a number [/outputs/3]\n"
                   "an output 'n:1' is not a valid name: use letters, digits "
                   "and '_', not starting with a digit, at most 128 "
                   "characters [/outputs/4]\n");
  }
  {
    // The object form may return a result other than the first.
    auto loaded =
        read(program("", "", "", "{\"name\": \"o\", \"value\": \"n:1\"}"));
    ASSERT_TRUE(loaded->program) << dump(loaded->diags);
    EXPECT_EQ(loaded->program->body.outputs[0].value, "n:1");
  }
}

TEST(ProgramReader, InputDeclarations) {
  auto loaded =
      read(program("",
                   "{\"name\": \"x\", \"dtype\": \"float\", \"shape\": []}, "
                   "{\"name\": \"y\", \"dtype\": 1, \"shape\": {}}, "
                   "{\"dtype\": \"f32\"}",
                   "", "\"x\""));
  EXPECT_FALSE(loaded->program);
  std::string out;
  for (const Diagnostic &diag : loaded->diags.diagnostics())
    out += diag.message + " [" + diag.loc.pointer + "]\n";
  EXPECT_EQ(out,
            "unknown dtype 'float'; expected one of f32, f64, f16, bf16, i8, "
            "i16, i32, i64, u8, u16, u32, u64, bool [/inputs/0/dtype]\n"
            "'dtype' must be a string, not a number [/inputs/1/dtype]\n"
            "a shape must be an array, not an object [/inputs/1/shape]\n"
            "an input has no 'name' key [/inputs/2]\n"
            "an input has no 'shape' key [/inputs/2]\n");
}

TEST(ProgramReader, ReportsEveryErrorInTheFile) {
  // One error per section; reading goes on after each one.
  std::string text = R"({
  "format": "txc.program",
  "version": 1,
  "name": "bad name",
  "description": 3,
  "extra": true,
  "symbols": [{"name": "S", "min": 9, "max": 1}],
  "inputs": [{"name": "x", "dtype": "f33", "shape": ["S", "Q"]}],
  "constants": [{"name": "c", "dtype": "u8", "shape": [2], "data": [1, 256]}],
  "nodes": [{"name": "n", "op": "relu", "operands": [7]}],
  "outputs": [{"name": "o"}]
}
)";
  auto loaded = read(text);
  EXPECT_FALSE(loaded->program);
  EXPECT_EQ(dump(loaded->diags),
            "6:3 unknown-key: unknown key 'extra' in the program; expected "
            "'format', 'version', 'name', 'description', 'symbols', 'inputs', "
            "'constants', 'nodes', 'outputs' [/extra]\n"
            "4:11 bad-name: the program name 'bad name' is not a valid name: "
            "use letters, digits and '_', not starting with a digit, at most "
            "128 characters [/name]\n"
            "5:18 wrong-type: 'description' must be a string, not a number "
            "[/description]\n"
            "7:15 symbol-range: symbol 'S' has min 9 greater than max 1 "
            "[/symbols/0]\n"
            "8:37 bad-dtype: unknown dtype 'f33'; expected one of f32, f64, "
            "f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, bool "
            "[/inputs/0/dtype]\n"
            "8:60 unknown-symbol: in dimension 'Q': unknown symbol 'Q' "
            "(declare it under 'symbols') [/inputs/0/shape/1]\n"
            "9:72 bad-data: element 1 of constant 'c': 256 does not fit in u8 "
            "[/constants/0/data/1]\n"
            "10:54 wrong-type: an operand must be a string, not a number "
            "[/nodes/0/operands/0]\n"
            "11:15 missing-key: an output has no 'value' key [/outputs/0]\n");
  EXPECT_EQ(loaded->diags.errorCount(), 9u);
  // A duplicate key found by the JSON parser does not stop reading either.
  auto dup = read(program("",
                          "{\"name\": \"x\", \"name\": \"y\", \"dtype\": "
                          "\"f32\", \"shape\": [-1]}",
                          "", "\"x\""));
  EXPECT_FALSE(dup->program);
  EXPECT_EQ(ids(dup->diags),
            std::vector<std::string>({"syntax-duplicate-key", "bad-dim"}))
      << dump(dup->diags);
}

TEST(ProgramReader, ErrorsOfAnEarlierFileDoNotStopTheNextOne) {
  DiagnosticEngine diags;
  diags.error(DiagCategory::Invalid, "earlier", "other.json", Loc(), "x");
  SourceFile file("p.json", program("", "", "", "\"x\""));
  auto result = readProgram(file, diags);
  EXPECT_TRUE(result) << dump(diags);
  EXPECT_EQ(diags.errorCount(), 1u);
}

TEST(ProgramReader, ReadProgramFileReportsIOErrors) {
  DiagnosticEngine diags;
  auto result = readProgramFile("/nonexistent/dir/p.json", diags);
  EXPECT_FALSE(result);
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].category, DiagCategory::IO);
  EXPECT_EQ(diags.diagnostics()[0].id, "io-read");
  EXPECT_EQ(diags.exitCode(), ExitIO);
}

TEST(ProgramReader, ReadsTheLinearSample) {
  DiagnosticEngine diags;
  auto program = readProgramFile(TXC_SAMPLES_DIR "/linear/linear.json", diags);
  ASSERT_TRUE(program) << dump(diags);
  EXPECT_EQ(program->name, "linear");
  EXPECT_EQ(program->inputs.size(), 3u);
  EXPECT_EQ(program->body.nodes.size(), 2u);
  EXPECT_EQ(program->sha256.size(), 64u);
}

} // namespace
