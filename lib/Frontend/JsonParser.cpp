//===- JsonParser.cpp - nlohmann SAX events into a positioned DOM ---------===//
//
// nlohmann's SAX events carry no positions. The parser reads the text through
// an iterator that counts the bytes consumed; at each event the lexer has just
// read the token (plus one byte of look-ahead after a number), so the token's
// start is found by scanning back over it.
//
//===----------------------------------------------------------------------===//
#include "txc/Frontend/Json.h"
#include "txc/Support/SourceFile.h"

#include "llvm/ADT/StringExtras.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <unordered_map>

using namespace txc;

//===----------------------------------------------------------------------===//
// JsonValue
//===----------------------------------------------------------------------===//

double JsonValue::getNumber() const {
  switch (valueKind) {
  case Kind::Integer:
    return double(scalar.integer);
  case Kind::Unsigned:
    return double(scalar.uinteger);
  case Kind::Float:
    return scalar.number;
  default:
    return 0;
  }
}

llvm::StringRef JsonValue::numberText() const {
  return payload ? llvm::StringRef(payload->text) : llvm::StringRef();
}

const JsonValue *JsonValue::find(llvm::StringRef key) const {
  if (!isObject())
    return nullptr;
  for (const JsonMember &member : payload->members)
    if (member.key == key)
      return &member.value;
  return nullptr;
}

llvm::StringRef JsonValue::kindName() const {
  switch (valueKind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Integer:
  case Kind::Unsigned:
  case Kind::Float:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

std::string txc::appendPointer(llvm::StringRef pointer, llvm::StringRef token) {
  std::string result = pointer.str();
  result += '/';
  for (char c : token) {
    if (c == '~')
      result += "~0";
    else if (c == '/')
      result += "~1";
    else
      result += c;
  }
  return result;
}

std::string txc::appendPointer(llvm::StringRef pointer, size_t index) {
  return pointer.str() + "/" + std::to_string(index);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {
/// A byte iterator that records how far the lexer has read.
class CountingIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;

  CountingIterator(const char *pos, const char *base, size_t *consumed)
      : pos(pos), base(base), consumed(consumed) {}
  reference operator*() const { return *pos; }
  CountingIterator &operator++() {
    ++pos;
    *consumed = size_t(pos - base);
    return *this;
  }
  bool operator==(const CountingIterator &o) const { return pos == o.pos; }
  bool operator!=(const CountingIterator &o) const { return pos != o.pos; }

private:
  const char *pos;
  const char *base;
  size_t *consumed;
};
} // namespace

namespace txc {
/// Builds the DOM from SAX events; reports problems to the engine.
class JsonBuilder {
public:
  using json = nlohmann::json;

  JsonBuilder(const SourceFile &file, DiagnosticEngine &diags,
              unsigned maxDepth)
      : file(file), text(file.contents()), diags(diags), maxDepth(maxDepth) {}

  size_t consumed = 0;
  std::unique_ptr<JsonValue> root;
  /// Set when parsing stopped (a syntax error or the depth limit); problems
  /// such as duplicate keys are reported but the document is still built so
  /// that later errors can be found too.
  bool failed = false;

  // --- nlohmann SAX interface ---
  bool null() { return addScalar(JsonValue::Kind::Null, literalStart(4)); }
  bool boolean(bool value) {
    JsonValue *v = addScalar(JsonValue::Kind::Bool, literalStart(value ? 4 : 5));
    v->scalar.boolean = value;
    return true;
  }
  bool number_integer(json::number_integer_t value) {
    JsonValue *v = addScalar(JsonValue::Kind::Integer, numberStart());
    v->scalar.integer = value;
    return true;
  }
  bool number_unsigned(json::number_unsigned_t value) {
    uint32_t start = numberStart();
    JsonValue *v;
    if (value <= uint64_t(INT64_MAX)) {
      v = addScalar(JsonValue::Kind::Integer, start);
      v->scalar.integer = int64_t(value);
    } else {
      v = addScalar(JsonValue::Kind::Unsigned, start);
      v->scalar.uinteger = value;
      // Kept for messages: such a number is always out of some range.
      v->payload = std::make_unique<JsonValue::Payload>();
      v->payload->text = numberTextAt(start).str();
    }
    return true;
  }
  bool number_float(json::number_float_t value, const json::string_t &raw) {
    uint32_t start = numberStart();
    if (!std::isfinite(value))
      error(start, "syntax-number-range",
            "number " + raw + " is out of the range of a 64-bit float");
    JsonValue *v = addScalar(JsonValue::Kind::Float, start);
    v->scalar.number = value;
    v->payload = std::make_unique<JsonValue::Payload>();
    v->payload->text = raw;
    return true;
  }
  bool string(json::string_t &value) {
    JsonValue *v = addScalar(JsonValue::Kind::String, stringStart());
    v->payload = std::make_unique<JsonValue::Payload>();
    v->payload->text = std::move(value);
    return true;
  }
  bool binary(json::binary_t &) { return true; } // not produced for JSON text
  bool start_object(std::size_t) { return startContainer(JsonValue::Kind::Object); }
  bool start_array(std::size_t) { return startContainer(JsonValue::Kind::Array); }
  bool end_object() { return endContainer(); }
  bool end_array() { return endContainer(); }
  bool key(json::string_t &key) {
    uint32_t start = stringStart();
    Frame &frame = stack.back();
    auto [it, inserted] = frame.keys.emplace(key, start);
    uint32_t firstOffset = it->second;
    JsonMember member;
    member.key = key;
    member.keyOffset = start;
    frame.value->payload->members.push_back(std::move(member));
    // Reported after the member is added, so that the pointer names the
    // duplicate key rather than the member before it.
    if (!inserted) {
      auto [line, column] = file.lineAndColumn(firstOffset);
      error(start, "syntax-duplicate-key",
            "duplicate key '" + key + "' (first defined at line " +
                std::to_string(line) + ", column " + std::to_string(column) +
                ")");
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: msg"
    failed = true;
    // nlohmann rejects numbers that overflow a double here (out_of_range.406)
    // instead of passing them to number_float; the number was just read.
    if (ex.id == 406) {
      uint32_t start = numberStart();
      error(start, "syntax-number-range",
            "number " + numberTextAt(start).str() +
                " is out of the range of a 64-bit float");
      return false;
    }
    llvm::StringRef message = ex.what();
    size_t colon = message.find(": ");
    if (message.starts_with("[json.exception") && colon != llvm::StringRef::npos)
      message = message.substr(colon + 2);
    // `position` is just past the token that could not be used; point at the
    // token's start, not at its last character.
    uint32_t offset = uint32_t(position ? position - 1 : 0);
    std::string detail = message.str();
    if (message.contains("unexpected string literal")) {
      offset = stringStart();
    } else if (message.contains("unexpected number literal")) {
      offset = numberStart();
    } else if (message.contains("invalid literal")) {
      // nlohmann's "last read" text runs from the last string or number, not
      // from the literal: '"version": tru,' for `tru,`. Quote and point at
      // the literal itself.
      uint32_t start = offset;
      while (start > 0 && llvm::isAlpha(this->text[start - 1]))
        --start;
      detail = replaceLastRead(message, this->text.slice(start, offset + 1));
      offset = start;
    }
    std::string text = "invalid JSON: " + detail;
    // After a complete top-level value nlohmann's message quotes text from
    // before the value ("last read: '...'"); say what is wrong instead.
    if (root && stack.empty())
      text = "invalid JSON: unexpected text after the end of the top-level "
             "value; a program file holds one JSON object";
    error(offset, "syntax-json", text);
    return false;
  }

private:
  struct Frame {
    JsonValue *value;
    std::unordered_map<std::string, uint32_t> keys;
  };

  void error(uint32_t offset, llvm::StringRef id, const std::string &message) {
    auto [line, column] = file.lineAndColumn(offset);
    Loc loc;
    loc.pointer = currentPointer();
    loc.line = line;
    loc.column = column;
    diags.error(DiagCategory::Syntax, id, file.name(), loc, message);
  }

  /// The JSON pointer of the value being read, for diagnostics.
  std::string currentPointer() const {
    std::string pointer;
    for (size_t i = 0; i < stack.size(); ++i) {
      const JsonValue *v = stack[i].value;
      if (v->isObject() && !v->payload->members.empty()) {
        pointer = appendPointer(pointer, v->payload->members.back().key);
      } else if (v->isArray()) {
        // In the innermost array the value being read is not placed yet, so
        // its index is the item count; an enclosing array's last item is the
        // container being read.
        size_t index = v->payload->items.size();
        if (i + 1 != stack.size() && index != 0)
          --index;
        pointer = appendPointer(pointer, index);
      }
    }
    return pointer;
  }

  uint32_t literalStart(size_t length) const {
    return uint32_t(consumed >= length ? consumed - length : 0);
  }
  uint32_t numberStart() const {
    size_t end = consumed;
    if (end > 0 && !llvm::isDigit(text[end - 1]))
      --end; // the lexer read one byte of look-ahead
    size_t start = end;
    while (start > 0 && (llvm::isDigit(text[start - 1]) ||
                         llvm::StringRef(".eE+-").contains(text[start - 1])))
      --start;
    return uint32_t(start);
  }
  /// `message` with its "last read: '...'" part quoting `token` instead,
  /// control characters written as nlohmann does (<U+000A>).
  static std::string replaceLastRead(llvm::StringRef message,
                                     llvm::StringRef token) {
    llvm::StringRef marker = "; last read: '";
    size_t begin = message.find(marker);
    if (begin == llvm::StringRef::npos)
      return message.str();
    // The quoted text may itself contain quotes; it ends before
    // "; expected ..." or at the end of the message.
    size_t end = message.rfind("'; expected ");
    if (end == llvm::StringRef::npos || end < begin + marker.size())
      end = message.size() - 1;
    std::string quoted;
    for (char c : token) {
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[16];
        std::snprintf(buffer, sizeof(buffer), "<U+%04X>", unsigned(c));
        quoted += buffer;
      } else {
        quoted += c;
      }
    }
    return (message.take_front(begin + marker.size()) + quoted +
            message.drop_front(end))
        .str();
  }

  /// The text of the number that starts at `start`.
  llvm::StringRef numberTextAt(uint32_t start) const {
    size_t end = start;
    while (end < text.size() && (llvm::isDigit(text[end]) ||
                                 llvm::StringRef(".eE+-").contains(text[end])))
      ++end;
    return text.slice(start, end);
  }
  uint32_t stringStart() const {
    // `consumed` is just past the closing quote; find the opening quote: the
    // first quote before it that is not escaped.
    if (consumed < 2)
      return 0;
    size_t pos = consumed - 2;
    while (pos > 0) {
      if (text[pos] == '"') {
        size_t backslashes = 0;
        while (pos > backslashes && text[pos - 1 - backslashes] == '\\')
          ++backslashes;
        if (backslashes % 2 == 0)
          break;
      }
      --pos;
    }
    return uint32_t(pos);
  }

  /// Places a new value in its parent (or as the root) and returns it.
  JsonValue *place(JsonValue::Kind kind, uint32_t start) {
    JsonValue value;
    value.valueKind = kind;
    value.start = start;
    if (stack.empty()) {
      root = std::make_unique<JsonValue>(std::move(value));
      return root.get();
    }
    JsonValue *parent = stack.back().value;
    if (parent->isArray()) {
      parent->payload->items.push_back(std::move(value));
      return &parent->payload->items.back();
    }
    parent->payload->members.back().value = std::move(value);
    return &parent->payload->members.back().value;
  }
  JsonValue *addScalar(JsonValue::Kind kind, uint32_t start) {
    return place(kind, start);
  }
  bool startContainer(JsonValue::Kind kind) {
    uint32_t start = uint32_t(consumed ? consumed - 1 : 0);
    if (stack.size() >= maxDepth) {
      error(start, "syntax-depth",
            "JSON nesting is deeper than the limit of " +
                std::to_string(maxDepth) + " levels");
      failed = true;
      return false;
    }
    JsonValue *value = place(kind, start);
    value->payload = std::make_unique<JsonValue::Payload>();
    stack.push_back({value, {}});
    return true;
  }
  bool endContainer() {
    stack.pop_back();
    return true;
  }

  const SourceFile &file;
  llvm::StringRef text;
  DiagnosticEngine &diags;
  unsigned maxDepth;
  std::vector<Frame> stack;
};
} // namespace txc

std::unique_ptr<JsonValue> txc::parseJson(const SourceFile &file,
                                          DiagnosticEngine &diags,
                                          unsigned maxDepth) {
  llvm::StringRef text = file.contents();
  if (text.trim().empty()) {
    Loc loc;
    loc.line = 1;
    loc.column = 1;
    diags.error(DiagCategory::Syntax, "syntax-empty", file.name(), loc,
                text.empty()
                    ? "the file is empty; expected a JSON object"
                    : "the file contains only whitespace; expected a JSON "
                      "object");
    return nullptr;
  }
  JsonBuilder builder(file, diags, maxDepth);
  CountingIterator first(text.begin(), text.begin(), &builder.consumed);
  CountingIterator last(text.end(), text.begin(), &builder.consumed);
  bool ok;
  try {
    ok = nlohmann::json::sax_parse(first, last, &builder,
                                   nlohmann::json::input_format_t::json,
                                   /*strict=*/true);
  } catch (const std::exception &ex) {
    // The SAX parser reports through parse_error; anything thrown is a
    // resource failure (e.g. bad_alloc) and stops at this boundary.
    Loc loc;
    diags.error(DiagCategory::Syntax, "syntax-json", file.name(), loc,
                std::string("cannot parse JSON: ") + ex.what());
    return nullptr;
  }
  if (!ok || builder.failed || !builder.root)
    return nullptr;
  return std::move(builder.root);
}
