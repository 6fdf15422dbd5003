//===- JsonReader.cpp - Typed, located access to a JSON document ----------===//
#include "JsonReader.h"

#include "txc/Program/Program.h"
#include "txc/Support/InputFiles.h"

#include "llvm/ADT/StringExtras.h"

using namespace txc;

Loc JsonReader::locOf(const JsonValue &value, llvm::StringRef pointer) const {
  auto [line, column] = file.lineAndColumn(value.offset());
  Loc loc;
  loc.pointer = pointer.str();
  loc.line = line;
  loc.column = column;
  return loc;
}

void JsonReader::error(const JsonValue &value, llvm::StringRef pointer,
                       const llvm::Twine &message) {
  ++errors;
  diags.error(DiagCategory::Invalid, errorId, file.name(),
              locOf(value, pointer), message);
}

const JsonValue *JsonReader::required(const JsonValue &object,
                                      llvm::StringRef pointer,
                                      llvm::StringRef key) {
  if (const JsonValue *value = object.find(key))
    return value;
  error(object, pointer,
        "the " + what + " has no '" + key + "' here (" +
            (pointer.empty() ? llvm::StringRef("/") : pointer) + ")");
  return nullptr;
}

bool JsonReader::isObject(const JsonValue &value, llvm::StringRef pointer) {
  if (value.isObject())
    return true;
  error(value, pointer, "expected an object, got " + value.kindName());
  return false;
}

bool JsonReader::isArray(const JsonValue &value, llvm::StringRef pointer) {
  if (value.isArray())
    return true;
  error(value, pointer, "expected an array, got " + value.kindName());
  return false;
}

std::optional<std::string> JsonReader::string(const JsonValue &value,
                                              llvm::StringRef pointer) {
  if (value.isString())
    return value.getString();
  error(value, pointer, "expected a string, got " + value.kindName());
  return std::nullopt;
}

std::optional<int64_t> JsonReader::integer(const JsonValue &value,
                                           llvm::StringRef pointer) {
  if (value.isInteger())
    return value.getInteger();
  error(value, pointer,
        value.isNumber() ? llvm::Twine("expected an integer in the int64 range")
                         : "expected an integer, got " + value.kindName());
  return std::nullopt;
}

std::optional<bool> JsonReader::boolean(const JsonValue &value,
                                        llvm::StringRef pointer) {
  if (value.isBool())
    return value.getBool();
  error(value, pointer, "expected true or false, got " + value.kindName());
  return std::nullopt;
}

std::optional<std::string> JsonReader::stringAt(const JsonValue &object,
                                                llvm::StringRef pointer,
                                                llvm::StringRef key) {
  const JsonValue *value = required(object, pointer, key);
  return value ? string(*value, appendPointer(pointer, key)) : std::nullopt;
}

std::optional<int64_t> JsonReader::integerAt(const JsonValue &object,
                                             llvm::StringRef pointer,
                                             llvm::StringRef key) {
  const JsonValue *value = required(object, pointer, key);
  return value ? integer(*value, appendPointer(pointer, key)) : std::nullopt;
}

std::optional<bool> JsonReader::booleanAt(const JsonValue &object,
                                          llvm::StringRef pointer,
                                          llvm::StringRef key) {
  const JsonValue *value = required(object, pointer, key);
  return value ? boolean(*value, appendPointer(pointer, key)) : std::nullopt;
}

const JsonValue *txc::resolvePointer(const JsonValue &root,
                                     llvm::StringRef pointer) {
  const JsonValue *value = &root;
  while (!pointer.empty()) {
    if (!pointer.consume_front("/"))
      return nullptr;
    size_t slash = pointer.find('/');
    llvm::StringRef token = pointer.substr(0, slash);
    pointer = slash == llvm::StringRef::npos ? llvm::StringRef()
                                             : pointer.substr(slash);
    std::string key;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size()) {
        key += token[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        key += token[i];
      }
    }
    if (value->isObject()) {
      value = value->find(key);
    } else if (value->isArray()) {
      unsigned index;
      if (llvm::StringRef(key).getAsInteger(10, index) ||
          index >= value->items().size())
        return nullptr;
      value = &value->items()[index];
    } else {
      return nullptr;
    }
    if (!value)
      return nullptr;
  }
  return value;
}

nlohmann::ordered_json txc::toNlohmann(const JsonValue &value) {
  using json = nlohmann::ordered_json;
  switch (value.kind()) {
  case JsonValue::Kind::Null:
    return nullptr;
  case JsonValue::Kind::Bool:
    return value.getBool();
  case JsonValue::Kind::Integer:
    return value.getInteger();
  case JsonValue::Kind::Unsigned:
    return value.getUnsigned();
  case JsonValue::Kind::Float:
    return value.getNumber();
  case JsonValue::Kind::String:
    return value.getString();
  case JsonValue::Kind::Array: {
    json array = json::array();
    for (const JsonValue &item : value.items())
      array.push_back(toNlohmann(item));
    return array;
  }
  case JsonValue::Kind::Object: {
    json object = json::object();
    for (const JsonMember &member : value.members())
      object[member.key] = toNlohmann(member.value);
    return object;
  }
  }
  return nullptr;
}

std::optional<JsonDocument> txc::readJsonDocument(llvm::StringRef path,
                                                  llvm::StringRef what,
                                                  DiagnosticEngine &diags) {
  auto file = SourceFile::read(path, ProgramLimits::kMaxFileBytes);
  if (!file) {
    std::string name = inputDisplayName(path).str();
    diags.error(DiagCategory::IO, "io-read", name, Loc(),
                "cannot read " + what + " '" + name +
                    "': " + takeInputError(file.takeError()).reason);
    return std::nullopt;
  }
  diags.addSourceFile(*file);
  unsigned errorsBefore = diags.errorCount();
  auto root = parseJson(**file, diags, ProgramLimits::kMaxJsonDepth);
  if (!root || diags.errorCount() != errorsBefore)
    return std::nullopt;
  return JsonDocument{std::move(*file), std::move(root)};
}
