//===- JsonParserTest.cpp -------------------------------------------------===//
//
// The positioned JSON DOM: offsets of values and keys, number classification,
// and the problems the parser reports (syntax, depth, duplicates, range).
//
//===----------------------------------------------------------------------===//
#include "txc/Frontend/Json.h"
#include "txc/Support/SourceFile.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <limits>

using namespace txc;
using txc::test::dump;

namespace {

struct Parsed {
  std::unique_ptr<SourceFile> file;
  DiagnosticEngine diags;
  std::unique_ptr<JsonValue> root;

  /// 1-based line and column of a byte offset.
  std::pair<uint32_t, uint32_t> lc(uint32_t offset) const {
    return file->lineAndColumn(offset);
  }
};

std::unique_ptr<Parsed> parse(const std::string &text, unsigned maxDepth = 64) {
  auto parsed = std::make_unique<Parsed>();
  parsed->file = std::make_unique<SourceFile>("t.json", text);
  parsed->root = parseJson(*parsed->file, parsed->diags, maxDepth);
  return parsed;
}

using LC = std::pair<uint32_t, uint32_t>;

TEST(JsonParser, OffsetsOfScalarsInAnArray) {
  //                 0123456789012345678901234567890
  std::string text = "[1, -2.5e3, true, false, null, \"s\", 18]";
  auto p = parse(text);
  ASSERT_TRUE(p->root) << dump(p->diags);
  const auto &items = p->root->items();
  ASSERT_EQ(items.size(), 7u);
  EXPECT_EQ(p->root->offset(), 0u);
  EXPECT_EQ(items[0].offset(), 1u);
  EXPECT_EQ(items[1].offset(), 4u);
  EXPECT_EQ(items[2].offset(), 12u);
  EXPECT_EQ(items[3].offset(), 18u);
  EXPECT_EQ(items[4].offset(), 25u);
  EXPECT_EQ(items[5].offset(), 31u);
  // A number followed directly by ']'.
  EXPECT_EQ(items[6].offset(), 36u);
  EXPECT_EQ(text.substr(36, 2), "18");
}

TEST(JsonParser, NumbersFollowedByCommaBracketOrEnd) {
  {
    auto p = parse("[10,200,3000]");
    ASSERT_TRUE(p->root) << dump(p->diags);
    EXPECT_EQ(p->root->items()[0].offset(), 1u);
    EXPECT_EQ(p->root->items()[1].offset(), 4u);
    EXPECT_EQ(p->root->items()[2].offset(), 8u);
  }
  {
    // A number that ends the document has no look-ahead byte.
    auto p = parse("12345");
    ASSERT_TRUE(p->root) << dump(p->diags);
    EXPECT_EQ(p->root->offset(), 0u);
    EXPECT_EQ(p->root->getInteger(), 12345);
  }
  {
    auto p = parse("  -7.25e-1");
    ASSERT_TRUE(p->root) << dump(p->diags);
    EXPECT_EQ(p->root->offset(), 2u);
    EXPECT_EQ(p->root->numberText(), "-7.25e-1");
  }
  {
    auto p = parse("{\"a\":1,\"b\":[2.5]}");
    ASSERT_TRUE(p->root) << dump(p->diags);
    EXPECT_EQ(p->root->find("a")->offset(), 5u);
    EXPECT_EQ(p->root->find("b")->items()[0].offset(), 12u);
  }
}

TEST(JsonParser, LiteralsAtEndOfDocument) {
  EXPECT_EQ(parse("true")->root->offset(), 0u);
  EXPECT_EQ(parse("  null")->root->offset(), 2u);
  auto p = parse("\n false");
  ASSERT_TRUE(p->root);
  EXPECT_EQ(p->lc(p->root->offset()), LC(2, 2));
  EXPECT_FALSE(p->root->getBool());
}

TEST(JsonParser, KeysAndValuesInNestedContainers) {
  std::string text = "{\n"
                     "  \"outer\": {\n"
                     "    \"list\": [ [1, {\"k\": \"v\"}], [] ],\n"
                     "    \"empty\": {}\n"
                     "  }\n"
                     "}\n";
  auto p = parse(text);
  ASSERT_TRUE(p->root) << dump(p->diags);
  const JsonMember &outer = p->root->members()[0];
  EXPECT_EQ(outer.key, "outer");
  EXPECT_EQ(p->lc(outer.keyOffset), LC(2, 3));
  EXPECT_EQ(p->lc(outer.value.offset()), LC(2, 12));
  const JsonMember &list = outer.value.members()[0];
  EXPECT_EQ(p->lc(list.keyOffset), LC(3, 5));
  EXPECT_EQ(p->lc(list.value.offset()), LC(3, 13));
  const JsonValue &inner = list.value.items()[0];
  EXPECT_EQ(p->lc(inner.offset()), LC(3, 15));
  EXPECT_EQ(p->lc(inner.items()[0].offset()), LC(3, 16));
  const JsonValue &object = inner.items()[1];
  EXPECT_EQ(p->lc(object.offset()), LC(3, 19));
  EXPECT_EQ(p->lc(object.members()[0].keyOffset), LC(3, 20));
  EXPECT_EQ(p->lc(object.members()[0].value.offset()), LC(3, 25));
  EXPECT_EQ(p->lc(list.value.items()[1].offset()), LC(3, 32));
  const JsonMember &empty = outer.value.members()[1];
  EXPECT_EQ(p->lc(empty.keyOffset), LC(4, 5));
  EXPECT_EQ(p->lc(empty.value.offset()), LC(4, 14));
  EXPECT_TRUE(empty.value.members().empty());
}

TEST(JsonParser, OffsetsAfterEscapedQuotesInStrings) {
  // "a\"b" is a 6-byte token; the key after it must not be confused by the
  // escaped quote, nor by an escaped backslash right before a quote.
  std::string text = R"({"x\"y": "a\"b", "z": "c\\", "w": "\\\"", "q": 1})";
  auto p = parse(text);
  ASSERT_TRUE(p->root) << dump(p->diags);
  const auto &members = p->root->members();
  ASSERT_EQ(members.size(), 4u);
  EXPECT_EQ(members[0].key, "x\"y");
  EXPECT_EQ(members[0].keyOffset, 1u);
  EXPECT_EQ(members[0].value.offset(), 9u);
  EXPECT_EQ(members[0].value.getString(), "a\"b");
  EXPECT_EQ(members[1].keyOffset, text.find("\"z\""));
  EXPECT_EQ(members[1].value.offset(), text.find("\"c\\\\\""));
  EXPECT_EQ(members[1].value.getString(), "c\\");
  EXPECT_EQ(members[2].keyOffset, text.find("\"w\""));
  EXPECT_EQ(members[2].value.offset(), text.find("\"\\\\\\\"\""));
  EXPECT_EQ(members[2].value.getString(), "\\\"");
  EXPECT_EQ(members[3].keyOffset, text.find("\"q\""));
  EXPECT_EQ(members[3].value.offset(), text.size() - 2);
}

TEST(JsonParser, StringAsTheWholeDocument) {
  auto p = parse("\"only\"");
  ASSERT_TRUE(p->root);
  EXPECT_EQ(p->root->offset(), 0u);
  EXPECT_EQ(p->root->getString(), "only");
}

TEST(JsonParser, MultiByteUtf8CountsBytes) {
  // Columns are in bytes: "é" is two bytes.
  std::string text = "{\"k\": \"\xC3\xA9\", \"n\": 5}";
  auto p = parse(text);
  ASSERT_TRUE(p->root) << dump(p->diags);
  EXPECT_EQ(p->root->find("k")->getString(), "\xC3\xA9");
  EXPECT_EQ(p->root->members()[1].keyOffset, 12u);
  EXPECT_EQ(p->root->find("n")->offset(), 17u);
}

TEST(JsonParser, Utf8ByteOrderMark) {
  std::string text = "\xEF\xBB\xBF{\"a\": 1,\n \"b\": [true]}";
  auto p = parse(text);
  ASSERT_TRUE(p->root) << dump(p->diags);
  // Offsets are bytes of the file, BOM included.
  EXPECT_EQ(p->root->offset(), 3u);
  EXPECT_EQ(p->root->members()[0].keyOffset, 4u);
  EXPECT_EQ(p->root->find("a")->offset(), 9u);
  // Columns are counted after the BOM, as editors show them.
  EXPECT_EQ(p->lc(p->root->offset()), LC(1, 1));
  EXPECT_EQ(p->lc(p->root->members()[0].keyOffset), LC(1, 2));
  EXPECT_EQ(p->lc(p->root->find("a")->offset()), LC(1, 7));
  EXPECT_EQ(p->lc(p->root->members()[1].keyOffset), LC(2, 2));
  EXPECT_EQ(p->lc(p->root->find("b")->items()[0].offset()), LC(2, 8));
  EXPECT_EQ(p->file->lineText(1), "{\"a\": 1,");
}

TEST(JsonParser, CrlfLineEnds) {
  std::string text = "{\r\n  \"a\": 1,\r\n  \"b\": \"x\"\r\n}\r\n";
  auto p = parse(text);
  ASSERT_TRUE(p->root) << dump(p->diags);
  EXPECT_EQ(p->lc(p->root->members()[0].keyOffset), LC(2, 3));
  EXPECT_EQ(p->lc(p->root->find("a")->offset()), LC(2, 8));
  EXPECT_EQ(p->lc(p->root->members()[1].keyOffset), LC(3, 3));
  EXPECT_EQ(p->lc(p->root->find("b")->offset()), LC(3, 8));
  EXPECT_EQ(p->file->lineText(2), "  \"a\": 1,");
  EXPECT_EQ(p->file->lineText(4), "}");
}

TEST(JsonParser, NumberClassification) {
  auto p = parse("[0, -0, 9223372036854775807, -9223372036854775808, "
                 "9223372036854775808, 18446744073709551615, "
                 "18446744073709551616, -9223372036854775809, 1.0, 1e2, "
                 "1E-2]");
  ASSERT_TRUE(p->root) << dump(p->diags);
  const auto &n = p->root->items();
  using K = JsonValue::Kind;
  EXPECT_EQ(n[0].kind(), K::Integer);
  EXPECT_EQ(n[0].getInteger(), 0);
  EXPECT_EQ(n[1].kind(), K::Integer);
  EXPECT_EQ(n[2].kind(), K::Integer);
  EXPECT_EQ(n[2].getInteger(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(n[3].kind(), K::Integer);
  EXPECT_EQ(n[3].getInteger(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(n[4].kind(), K::Unsigned);
  EXPECT_EQ(n[4].getUnsigned(), uint64_t(1) << 63);
  EXPECT_EQ(n[5].kind(), K::Unsigned);
  EXPECT_EQ(n[5].getUnsigned(), std::numeric_limits<uint64_t>::max());
  // Beyond uint64 (or below int64) only a double can hold it.
  EXPECT_EQ(n[6].kind(), K::Float);
  EXPECT_EQ(n[6].numberText(), "18446744073709551616");
  EXPECT_EQ(n[6].getNumber(), 18446744073709551616.0);
  EXPECT_EQ(n[7].kind(), K::Float);
  EXPECT_EQ(n[8].kind(), K::Float);
  EXPECT_EQ(n[8].numberText(), "1.0");
  EXPECT_EQ(n[9].kind(), K::Float);
  EXPECT_EQ(n[9].getNumber(), 100.0);
  EXPECT_EQ(n[10].kind(), K::Float);
  EXPECT_EQ(n[10].numberText(), "1E-2");
  for (const JsonValue &value : n) {
    EXPECT_TRUE(value.isNumber());
    EXPECT_EQ(value.kindName(), "a number");
  }
}

TEST(JsonParser, KindNames) {
  auto p = parse("[null, true, \"s\", [], {}]");
  ASSERT_TRUE(p->root);
  const auto &v = p->root->items();
  EXPECT_EQ(v[0].kindName(), "null");
  EXPECT_EQ(v[1].kindName(), "a boolean");
  EXPECT_EQ(v[2].kindName(), "a string");
  EXPECT_EQ(v[3].kindName(), "an array");
  EXPECT_EQ(v[4].kindName(), "an object");
  EXPECT_EQ(p->root->find("x"), nullptr); // not an object
}

TEST(JsonParser, DuplicateKeyReportsTheFirstPosition) {
  std::string text = "{\n"
                     "  \"a\": 1,\n"
                     "  \"b\": {\"c\": 1, \"c\": 2},\n"
                     "  \"a\": 3\n"
                     "}";
  auto p = parse(text);
  // The document is still returned so that later stages find more errors.
  ASSERT_TRUE(p->root) << dump(p->diags);
  ASSERT_EQ(p->diags.errorCount(), 2u) << dump(p->diags);
  const Diagnostic &inner = p->diags.diagnostics()[0];
  EXPECT_EQ(inner.id, "syntax-duplicate-key");
  EXPECT_EQ(inner.category, DiagCategory::Syntax);
  EXPECT_EQ(inner.message,
            "duplicate key 'c' (first defined at line 3, column 9)");
  EXPECT_EQ(inner.loc.line, 3u);
  EXPECT_EQ(inner.loc.column, 17u);
  EXPECT_EQ(inner.loc.pointer, "/b/c");
  const Diagnostic &outer = p->diags.diagnostics()[1];
  EXPECT_EQ(outer.message,
            "duplicate key 'a' (first defined at line 2, column 3)");
  EXPECT_EQ(outer.loc.line, 4u);
  EXPECT_EQ(outer.loc.column, 3u);
  EXPECT_EQ(outer.loc.pointer, "/a");
  EXPECT_EQ(outer.file, "t.json");
  // find() sees the first definition.
  EXPECT_EQ(p->root->find("a")->getInteger(), 1);
}

TEST(JsonParser, DuplicateKeysInSeparateObjectsAreFine) {
  auto p = parse("[{\"a\": 1}, {\"a\": 2}]");
  ASSERT_TRUE(p->root);
  EXPECT_FALSE(p->diags.hasErrors()) << dump(p->diags);
}

TEST(JsonParser, DepthLimit) {
  {
    auto p = parse("[[[1]]]", 3);
    EXPECT_TRUE(p->root) << dump(p->diags);
    EXPECT_FALSE(p->diags.hasErrors());
  }
  {
    auto p = parse("[[[[1]]]]", 3);
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u) << dump(p->diags);
    const Diagnostic &diag = p->diags.diagnostics()[0];
    EXPECT_EQ(diag.id, "syntax-depth");
    EXPECT_EQ(diag.category, DiagCategory::Syntax);
    EXPECT_EQ(diag.message,
              "JSON nesting is deeper than the limit of 3 levels");
    EXPECT_EQ(diag.loc.line, 1u);
    EXPECT_EQ(diag.loc.column, 4u);
  }
  {
    // Objects count as levels too.
    auto p = parse("{\"a\": {\"b\": {\"c\": {}}}}", 3);
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.column, 19u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.pointer, "/a/b/c");
  }
  {
    // Deep documents are refused without recursion trouble.
    std::string deep(100000, '[');
    auto p = parse(deep + std::string(100000, ']'), 64);
    EXPECT_FALSE(p->root);
    EXPECT_EQ(p->diags.errorCount(), 1u);
  }
}

TEST(JsonParser, NumberOutOfDoubleRange) {
  std::string text = "{\n  \"x\": [1, 1e400]\n}";
  auto p = parse(text);
  ASSERT_EQ(p->diags.errorCount(), 1u) << dump(p->diags);
  const Diagnostic &diag = p->diags.diagnostics()[0];
  EXPECT_EQ(diag.id, "syntax-number-range");
  EXPECT_EQ(diag.category, DiagCategory::Syntax);
  EXPECT_EQ(diag.message, "number 1e400 is out of the range of a 64-bit float");
  EXPECT_EQ(diag.loc.line, 2u);
  EXPECT_EQ(diag.loc.column, 12u);
  EXPECT_EQ(diag.loc.pointer, "/x/1");

  auto negative = parse("-1e400");
  ASSERT_EQ(negative->diags.errorCount(), 1u) << dump(negative->diags);
  EXPECT_EQ(negative->diags.diagnostics()[0].id, "syntax-number-range");
  EXPECT_EQ(negative->diags.diagnostics()[0].loc.column, 1u);
  // Tiny numbers round to zero; that is not an error.
  auto tiny = parse("[1e-400]");
  ASSERT_TRUE(tiny->root);
  EXPECT_FALSE(tiny->diags.hasErrors());
  EXPECT_EQ(tiny->root->items()[0].getNumber(), 0.0);
}

TEST(JsonParser, PointerOfAValueInANestedArray) {
  auto p = parse("{\"a\": [[0, 1e999]]}");
  ASSERT_EQ(p->diags.errorCount(), 1u) << dump(p->diags);
  EXPECT_EQ(p->diags.diagnostics()[0].loc.pointer, "/a/0/1");
  auto q = parse("[5, [6, {\"k\": [7, 8e999]}]]");
  ASSERT_EQ(q->diags.errorCount(), 1u) << dump(q->diags);
  EXPECT_EQ(q->diags.diagnostics()[0].loc.pointer, "/1/1/k/1");
}

TEST(JsonParser, SyntaxErrorLocation) {
  {
    // A trailing comma: the error is at the '}'.
    auto p = parse("{\n  \"a\": 1,\n}");
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u) << dump(p->diags);
    const Diagnostic &diag = p->diags.diagnostics()[0];
    EXPECT_EQ(diag.id, "syntax-json");
    EXPECT_EQ(diag.category, DiagCategory::Syntax);
    EXPECT_EQ(diag.loc.line, 3u);
    EXPECT_EQ(diag.loc.column, 1u);
    EXPECT_EQ(diag.message.rfind("invalid JSON: ", 0), 0u) << diag.message;
    // nlohmann's "[json.exception...] parse error at line 1, column 5:"
    // prefix is not repeated.
    EXPECT_EQ(diag.message.find("json.exception"), std::string::npos)
        << diag.message;
  }
  {
    // A missing comma between members.
    auto p = parse("{\"a\": 1\n \"b\": 2}");
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.line, 2u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.column, 2u);
  }
  {
    // A bad literal.
    auto p = parse("[tru]");
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.line, 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.pointer, "/0");
  }
  {
    // A bad escape is reported at the character after the backslash.
    auto p = parse("{\"a\": \"\\q\"}");
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.column, 9u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.pointer, "/a");
  }
  {
    // Text after the document.
    auto p = parse("{} x");
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].loc.column, 4u);
  }
  {
    // An unterminated document.
    auto p = parse("{\"a\": [1, 2");
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u);
    EXPECT_EQ(p->diags.diagnostics()[0].id, "syntax-json");
  }
}

TEST(JsonParser, EmptyInput) {
  for (const char *text : {"", "   \n\t\r\n"}) {
    auto p = parse(text);
    EXPECT_FALSE(p->root);
    ASSERT_EQ(p->diags.errorCount(), 1u) << "text: '" << text << "'";
    const Diagnostic &diag = p->diags.diagnostics()[0];
    EXPECT_EQ(diag.id, "syntax-empty");
    EXPECT_EQ(diag.category, DiagCategory::Syntax);
    EXPECT_EQ(diag.message,
              *text ? "the file contains only whitespace; expected a JSON "
                      "object"
                    : "the file is empty; expected a JSON object");
    EXPECT_EQ(diag.loc.line, 1u);
    EXPECT_EQ(diag.loc.column, 1u);
  }
}

TEST(JsonParser, AppendPointerEscapes) {
  EXPECT_EQ(appendPointer("", "a"), "/a");
  EXPECT_EQ(appendPointer("/x", "a/b~c"), "/x/a~1b~0c");
  EXPECT_EQ(appendPointer("/x", size_t(3)), "/x/3");
  EXPECT_EQ(appendPointer("", ""), "/");
}

} // namespace
