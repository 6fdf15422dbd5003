//===- Json.h - A JSON document that remembers where each value is -*- C++ -*-===//
//
// nlohmann's DOM keeps no source positions, so txc parses with nlohmann's SAX
// interface into this small DOM in which every value (and every object key)
// records its byte offset. The parser also enforces the nesting limit, rejects
// duplicate keys and numbers outside the range of a double, and reports every
// such problem through the DiagnosticEngine. nlohmann's exceptions never
// leave this component.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_FRONTEND_JSON_H
#define TXC_FRONTEND_JSON_H

#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace txc {

class SourceFile;
struct JsonMember;

class JsonValue {
public:
  enum class Kind : uint8_t {
    Null,
    Bool,
    Integer,  ///< fits in int64
    Unsigned, ///< larger than INT64_MAX, fits in uint64
    Float,    ///< has a fraction or exponent, or is larger than uint64
    String,
    Array,
    Object,
  };

  JsonValue() = default;
  JsonValue(JsonValue &&) = default;
  JsonValue &operator=(JsonValue &&) = default;

  Kind kind() const { return valueKind; }
  uint32_t offset() const { return start; }

  bool isNull() const { return valueKind == Kind::Null; }
  bool isBool() const { return valueKind == Kind::Bool; }
  bool isInteger() const { return valueKind == Kind::Integer; }
  bool isNumber() const {
    return valueKind == Kind::Integer || valueKind == Kind::Unsigned ||
           valueKind == Kind::Float;
  }
  bool isString() const { return valueKind == Kind::String; }
  bool isArray() const { return valueKind == Kind::Array; }
  bool isObject() const { return valueKind == Kind::Object; }

  bool getBool() const { return scalar.boolean; }
  int64_t getInteger() const { return scalar.integer; }
  /// The value of a number of kind Unsigned.
  uint64_t getUnsigned() const { return scalar.uinteger; }
  /// Any number as a double (integers are converted).
  double getNumber() const;
  /// The number as written in the file ("1e-3"), for exact round trips;
  /// set for Float and Unsigned numbers.
  llvm::StringRef numberText() const;
  const std::string &getString() const { return payload->text; }
  const std::vector<JsonValue> &items() const { return payload->items; }
  const std::vector<JsonMember> &members() const { return payload->members; }
  const JsonValue *find(llvm::StringRef key) const;

  /// "object", "array", "string", "number", "boolean" or "null".
  llvm::StringRef kindName() const;

private:
  friend class JsonBuilder;
  struct Payload {
    std::string text; ///< string value, or the raw text of a number
    std::vector<JsonValue> items;
    std::vector<JsonMember> members;
  };

  Kind valueKind = Kind::Null;
  uint32_t start = 0;
  union {
    bool boolean;
    int64_t integer;
    uint64_t uinteger;
    double number;
  } scalar{};
  std::unique_ptr<Payload> payload;
};

struct JsonMember {
  std::string key;
  uint32_t keyOffset = 0;
  JsonValue value;
};

/// Parses `file`'s text. Returns null if it is not JSON (syntax error, depth
/// limit, a number out of the range of a double, which stops nlohmann's
/// parser); duplicate keys are reported to `diags` and the document is still
/// returned.
std::unique_ptr<JsonValue> parseJson(const SourceFile &file,
                                     DiagnosticEngine &diags,
                                     unsigned maxDepth);

/// Appends an RFC 6901 reference token (escaping '~' and '/').
std::string appendPointer(llvm::StringRef pointer, llvm::StringRef token);
std::string appendPointer(llvm::StringRef pointer, size_t index);

} // namespace txc

#endif
