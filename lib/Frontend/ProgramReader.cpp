//===- ProgramReader.cpp - JSON program files to Program ------------------===//
//
// Walks the positioned JSON DOM and builds the Program model. The reader
// checks structure (keys, JSON types, identifiers, shape expressions, inline
// data); names, ops and shapes are the verifier's job. It never stops at the
// first problem: every error is reported with its location and pointer.
//
//===----------------------------------------------------------------------===//
#include "txc/Frontend/ProgramReader.h"
#include "txc/Frontend/Json.h"
#include "txc/Frontend/WeightsFile.h"
#include "txc/Program/NpyHeader.h"
#include "txc/Support/InputFiles.h"
#include "txc/Support/SourceFile.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <cstring>
#include <map>

using namespace txc;

namespace {

class ProgramReader {
public:
  ProgramReader(const SourceFile &file, DiagnosticEngine &diags,
                const ReaderOptions &options)
      : file(file), diags(diags), options(options) {}

  std::unique_ptr<Program> read(const JsonValue &root);

private:
  // --- diagnostics ---
  Loc locAt(uint32_t offset, llvm::StringRef pointer) const {
    auto [line, column] = file.lineAndColumn(offset);
    Loc loc;
    loc.pointer = pointer.str();
    loc.line = line;
    loc.column = column;
    return loc;
  }
  Loc locOf(const JsonValue &value, llvm::StringRef pointer) const {
    return locAt(value.offset(), pointer);
  }
  void error(const JsonValue &value, llvm::StringRef pointer,
             llvm::StringRef id, const llvm::Twine &message) {
    diags.error(DiagCategory::Invalid, id, file.name(), locOf(value, pointer),
                message);
  }
  void errorAt(const Loc &loc, llvm::StringRef id,
               const llvm::Twine &message) {
    diags.error(DiagCategory::Invalid, id, file.name(), loc, message);
  }

  // --- typed accessors; each reports its own error and returns nullopt ---
  bool checkObject(const JsonValue &value, llvm::StringRef pointer,
                   llvm::StringRef what,
                   std::initializer_list<llvm::StringRef> allowedKeys);
  const JsonValue *required(const JsonValue &object, llvm::StringRef pointer,
                            llvm::StringRef key, llvm::StringRef what);
  bool checkArray(const JsonValue &value, llvm::StringRef pointer,
                  llvm::StringRef what);
  std::optional<std::string> readString(const JsonValue &value,
                                        llvm::StringRef pointer,
                                        llvm::StringRef what);
  std::optional<std::string> readIdentifier(const JsonValue &value,
                                            llvm::StringRef pointer,
                                            llvm::StringRef what);
  std::optional<int64_t> readInteger(const JsonValue &value,
                                     llvm::StringRef pointer,
                                     llvm::StringRef what);

  // --- program parts ---
  /// False if the format or version makes the rest unreadable.
  bool readHeader(const JsonValue &root);
  void readSymbols(const JsonValue &list, llvm::StringRef pointer);
  /// A symbol's `values`, once its range and multiple_of are known.
  bool readSymbolValues(const JsonValue &list, llvm::StringRef pointer,
                        Symbol &symbol);
  std::optional<ValueDecl> readValueDecl(const JsonValue &value,
                                         llvm::StringRef pointer,
                                         llvm::StringRef what);
  std::optional<Shape> readShape(const JsonValue &value,
                                 llvm::StringRef pointer,
                                 std::vector<Loc> *dimLocs);
  std::optional<ShapeExpr> readDim(const JsonValue &value,
                                   llvm::StringRef pointer);
  void readConstants(const JsonValue &list, llvm::StringRef pointer);
  /// Reads 'file' and 'tensor' of a constant from a weights file.
  bool readFileReference(const JsonValue &item, llvm::StringRef pointer,
                         const JsonValue &fileValue,
                         const JsonValue *tensorValue, ConstantDecl &constant);
  /// Opens (once per file) and checks the constant's weights file, checks
  /// the tensor against the declared dtype and shape, and points the
  /// constant's data at the tensor's bytes.
  bool loadWeights(ConstantDecl &constant, const Loc &dtypeLoc,
                   const Loc &shapeLoc);
  std::optional<Blob> readInlineData(const JsonValue &data,
                                     llvm::StringRef pointer,
                                     const TensorType &type,
                                     const std::string &name);
  bool readGraph(const JsonValue &object, llvm::StringRef pointer,
                 Graph &graph, bool isRegion, unsigned depth);
  bool readNode(const JsonValue &value, llvm::StringRef pointer, Node &node,
                unsigned depth);
  AttrValue readAttrValue(const JsonValue &value, llvm::StringRef pointer,
                          unsigned depth);
  void readOutputs(const JsonValue &list, llvm::StringRef pointer,
                   std::vector<OutputDecl> &outputs);

  std::optional<SymbolRef> lookupSymbol(llvm::StringRef name) const {
    return program->findSymbolRef(name);
  }

  const SourceFile &file;
  DiagnosticEngine &diags;
  const ReaderOptions &options;
  std::unique_ptr<Program> program;
  /// Weights files by resolved path; null for one that failed its checks.
  std::map<std::string, std::shared_ptr<WeightsFile>> weightsFiles;
  uint64_t inlineElements = 0;
  size_t nodeCount = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// Typed accessors
//===----------------------------------------------------------------------===//

static std::string joinKeys(std::initializer_list<llvm::StringRef> keys) {
  std::string out;
  for (llvm::StringRef key : keys) {
    if (!out.empty())
      out += ", ";
    out += "'" + key.str() + "'";
  }
  return out;
}

bool ProgramReader::checkObject(
    const JsonValue &value, llvm::StringRef pointer, llvm::StringRef what,
    std::initializer_list<llvm::StringRef> allowedKeys) {
  if (!value.isObject()) {
    error(value, pointer, "wrong-type",
          what + " must be an object, not " + value.kindName());
    return false;
  }
  for (const JsonMember &member : value.members()) {
    if (llvm::is_contained(allowedKeys, llvm::StringRef(member.key)))
      continue;
    // Suggest the closest allowed key for typos such as "operand".
    llvm::StringRef best;
    unsigned bestDistance = 3;
    for (llvm::StringRef key : allowedKeys) {
      unsigned distance = llvm::StringRef(member.key).edit_distance(key);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = key;
      }
    }
    std::string message = "unknown key '" + member.key + "' in " + what.str();
    if (!best.empty())
      message += " (did you mean '" + best.str() + "'?)";
    else
      message += "; expected " + joinKeys(allowedKeys);
    errorAt(locAt(member.keyOffset, appendPointer(pointer, member.key)),
            "unknown-key", message);
  }
  return true;
}

const JsonValue *ProgramReader::required(const JsonValue &object,
                                         llvm::StringRef pointer,
                                         llvm::StringRef key,
                                         llvm::StringRef what) {
  const JsonValue *value = object.find(key);
  if (!value)
    error(object, pointer, "missing-key",
          what + " has no '" + key + "' key");
  return value;
}

bool ProgramReader::checkArray(const JsonValue &value, llvm::StringRef pointer,
                               llvm::StringRef what) {
  if (value.isArray())
    return true;
  error(value, pointer, "wrong-type",
        what + " must be an array, not " + value.kindName());
  return false;
}

std::optional<std::string> ProgramReader::readString(const JsonValue &value,
                                                     llvm::StringRef pointer,
                                                     llvm::StringRef what) {
  if (value.isString())
    return value.getString();
  error(value, pointer, "wrong-type",
        what + " must be a string, not " + value.kindName());
  return std::nullopt;
}

std::optional<std::string>
ProgramReader::readIdentifier(const JsonValue &value, llvm::StringRef pointer,
                              llvm::StringRef what) {
  auto text = readString(value, pointer, what);
  if (!text)
    return std::nullopt;
  if (!isValidIdentifier(*text)) {
    error(value, pointer, "bad-name",
          what + " '" + *text +
              "' is not a valid name: use letters, digits and '_', not "
              "starting with a digit, at most " +
              llvm::Twine(ProgramLimits::kMaxNameLength) + " characters");
    return std::nullopt;
  }
  return text;
}

std::optional<int64_t> ProgramReader::readInteger(const JsonValue &value,
                                                  llvm::StringRef pointer,
                                                  llvm::StringRef what) {
  if (value.isInteger())
    return value.getInteger();
  if (value.isNumber()) {
    error(value, pointer, "wrong-type",
          what + " must be an integer that fits in 64 bits, not " +
              value.numberText());
    return std::nullopt;
  }
  error(value, pointer, "wrong-type",
        what + " must be an integer, not " + value.kindName());
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Program parts
//===----------------------------------------------------------------------===//

std::unique_ptr<Program> ProgramReader::read(const JsonValue &root) {
  unsigned errorsAtStart = diags.errorCount();
  program = std::make_unique<Program>();
  program->file = file.name().str();
  if (!checkObject(root, "", "the program",
                   {"format", "version", "name", "description", "symbols",
                    "inputs", "constants", "nodes", "outputs"}))
    return nullptr;
  // A format or version this txc does not read makes the rest meaningless;
  // any other problem (an unknown key, a bad name) does not stop the reader.
  if (!readHeader(root))
    return nullptr;

  if (const JsonValue *symbols = root.find("symbols"))
    readSymbols(*symbols, "/symbols");

  if (const JsonValue *inputs = required(root, "", "inputs", "the program")) {
    if (checkArray(*inputs, "/inputs", "'inputs'")) {
      if (inputs->items().size() > ProgramLimits::kMaxInputs)
        error(*inputs, "/inputs", "limit",
              "the program has " + llvm::Twine(inputs->items().size()) +
                  " inputs, over the limit of " +
                  llvm::Twine(ProgramLimits::kMaxInputs));
      for (size_t i = 0; i < inputs->items().size(); ++i) {
        std::string ptr = appendPointer("/inputs", i);
        if (auto decl = readValueDecl(inputs->items()[i], ptr, "an input"))
          program->inputs.push_back(std::move(*decl));
      }
    }
  }

  if (const JsonValue *constants = root.find("constants"))
    readConstants(*constants, "/constants");

  readGraph(root, "", program->body, /*isRegion=*/false, /*depth=*/0);

  // Only this file's errors count (the engine may hold earlier ones).
  if (diags.errorCount() != errorsAtStart)
    return nullptr;
  return std::move(program);
}

bool ProgramReader::readHeader(const JsonValue &root) {
  bool readable = true;
  if (const JsonValue *format = required(root, "", "format", "the program")) {
    auto text = readString(*format, "/format", "'format'");
    if (text && *text != kProgramFormat)
      error(*format, "/format", "bad-format",
            "'format' is '" + *text + "'; a txc program has format '" +
                kProgramFormat + "'");
    readable &= text && *text == kProgramFormat;
  } else {
    readable = false;
  }
  if (const JsonValue *version = required(root, "", "version", "the program")) {
    auto number = readInteger(*version, "/version", "'version'");
    if (number && (*number < kMinProgramVersion || *number > kMaxProgramVersion))
      error(*version, "/version", "bad-version",
            "program format version " + llvm::Twine(*number) +
                " is not supported; this txc reads version " +
                llvm::Twine(kMaxProgramVersion));
    else if (number)
      program->version = int(*number);
    readable &= number && *number >= kMinProgramVersion &&
                *number <= kMaxProgramVersion;
  } else {
    readable = false;
  }
  if (const JsonValue *name = required(root, "", "name", "the program")) {
    if (auto text = readIdentifier(*name, "/name", "the program name"))
      program->name = *text;
    program->nameLoc = locOf(*name, "/name");
  }
  if (const JsonValue *description = root.find("description"))
    readString(*description, "/description", "'description'");
  return readable;
}

void ProgramReader::readSymbols(const JsonValue &list, llvm::StringRef pointer) {
  if (!checkArray(list, pointer, "'symbols'"))
    return;
  if (list.items().size() > ProgramLimits::kMaxSymbols) {
    error(list, pointer, "limit",
          "the program declares " + llvm::Twine(list.items().size()) +
              " symbols, over the limit of " +
              llvm::Twine(ProgramLimits::kMaxSymbols));
    return;
  }
  for (size_t i = 0; i < list.items().size(); ++i) {
    const JsonValue &item = list.items()[i];
    std::string ptr = appendPointer(pointer, i);
    if (!checkObject(item, ptr, "a symbol",
                     {"name", "min", "max", "multiple_of", "values",
                      "description"}))
      continue;
    Symbol symbol;
    symbol.loc = locOf(item, ptr);
    bool ok = true;
    if (const JsonValue *name = required(item, ptr, "name", "a symbol")) {
      auto text = readIdentifier(*name, appendPointer(ptr, "name"),
                                 "the symbol name");
      ok &= bool(text);
      if (text) {
        symbol.name = *text;
        if (program->findSymbol(*text)) {
          error(*name, appendPointer(ptr, "name"), "duplicate-name",
                "symbol '" + *text + "' is declared twice");
          ok = false;
        }
      }
    } else {
      ok = false;
    }
    auto readBound = [&](llvm::StringRef key, int64_t &out) {
      const JsonValue *value = required(item, ptr, key, "a symbol");
      if (!value)
        return false;
      std::string keyPtr = appendPointer(ptr, key);
      auto number = readInteger(*value, keyPtr, "'" + key.str() + "'");
      if (!number)
        return false;
      if (*number < 0 || *number > ProgramLimits::kMaxTensorBytes) {
        error(*value, keyPtr, "symbol-range",
              "'" + key + "' of a symbol must be between 0 and " +
                  llvm::Twine(ProgramLimits::kMaxTensorBytes) + ", not " +
                  llvm::Twine(*number));
        return false;
      }
      out = *number;
      return true;
    };
    ok &= readBound("min", symbol.min);
    ok &= readBound("max", symbol.max);
    if (const JsonValue *multiple = item.find("multiple_of")) {
      std::string keyPtr = appendPointer(ptr, "multiple_of");
      auto number = readInteger(*multiple, keyPtr, "'multiple_of'");
      if (number && (*number < 1 || *number > (int64_t(1) << 32))) {
        error(*multiple, keyPtr, "symbol-range",
              "'multiple_of' must be between 1 and 2^32, not " +
                  llvm::Twine(*number));
        number.reset();
      }
      ok &= bool(number);
      if (number)
        symbol.multipleOf = *number;
    }
    if (ok && symbol.min > symbol.max) {
      error(item, ptr, "symbol-range",
            "symbol '" + symbol.name + "' has min " + llvm::Twine(symbol.min) +
                " greater than max " + llvm::Twine(symbol.max));
      ok = false;
    }
    if (ok && symbol.multipleOf > 1) {
      // The range must contain at least one multiple.
      int64_t first = (symbol.min + symbol.multipleOf - 1) / symbol.multipleOf *
                      symbol.multipleOf;
      if (first > symbol.max) {
        error(item, ptr, "symbol-range",
              "symbol '" + symbol.name + "' has no value: no multiple of " +
                  llvm::Twine(symbol.multipleOf) + " lies in [" +
                  llvm::Twine(symbol.min) + ", " + llvm::Twine(symbol.max) +
                  "]");
        ok = false;
      }
    }
    if (const JsonValue *values = item.find("values"))
      if (ok)
        ok &= readSymbolValues(*values, appendPointer(ptr, "values"), symbol);
    // Keep the symbol even when a bound is bad, so that shapes using it do
    // not report a second, misleading "unknown symbol" error.
    if (!symbol.name.empty() && !program->findSymbol(symbol.name))
      program->symbols.push_back(std::move(symbol));
  }
}

bool ProgramReader::readSymbolValues(const JsonValue &list,
                                     llvm::StringRef pointer,
                                     Symbol &symbol) {
  if (!checkArray(list, pointer, "'values' of a symbol"))
    return false;
  const std::string &name = symbol.name;
  if (list.items().empty() ||
      list.items().size() > ProgramLimits::kMaxSymbolValues) {
    error(list, pointer, "symbol-values",
          "'values' of symbol '" + name + "' must list 1 to " +
              llvm::Twine(ProgramLimits::kMaxSymbolValues) +
              " values, not " + llvm::Twine(list.items().size()));
    return false;
  }
  bool ok = true;
  std::vector<int64_t> values;
  for (size_t i = 0; i < list.items().size(); ++i) {
    const JsonValue &item = list.items()[i];
    std::string ptr = appendPointer(pointer, i);
    auto value = readInteger(item, ptr, "a value of symbol '" + name + "'");
    if (!value) {
      ok = false;
      continue;
    }
    if (*value < symbol.min || *value > symbol.max ||
        *value % symbol.multipleOf != 0) {
      std::string range = "[" + std::to_string(symbol.min) + ", " +
                          std::to_string(symbol.max) + "]";
      if (symbol.multipleOf > 1)
        range += " and a multiple of " + std::to_string(symbol.multipleOf);
      error(item, ptr, "symbol-values",
            "value " + llvm::Twine(*value) + " of symbol '" + name +
                "' must be in its range " + range);
      ok = false;
    } else if (llvm::is_contained(values, *value)) {
      error(item, ptr, "symbol-values",
            "value " + llvm::Twine(*value) + " of symbol '" + name +
                "' is listed twice");
      ok = false;
    }
    values.push_back(*value);
  }
  if (!ok)
    return false;
  llvm::sort(values);
  symbol.values = std::move(values);
  return true;
}

std::optional<ShapeExpr> ProgramReader::readDim(const JsonValue &value,
                                                llvm::StringRef pointer) {
  if (value.isInteger()) {
    int64_t dim = value.getInteger();
    if (dim < 0) {
      error(value, pointer, "bad-dim",
            "dimension " + llvm::Twine(dim) + " is negative");
      return std::nullopt;
    }
    if (dim > ProgramLimits::kMaxTensorBytes) {
      error(value, pointer, "bad-dim",
            "dimension " + llvm::Twine(dim) + " is over the limit of " +
                llvm::Twine(ProgramLimits::kMaxTensorBytes));
      return std::nullopt;
    }
    return ShapeExpr::constant(dim);
  }
  if (value.kind() == JsonValue::Kind::Unsigned) {
    error(value, pointer, "bad-dim",
          "dimension " + value.numberText() + " is over the limit of " +
              llvm::Twine(ProgramLimits::kMaxTensorBytes));
    return std::nullopt;
  }
  if (value.kind() == JsonValue::Kind::Float) {
    error(value, pointer, "wrong-type",
          "a dimension must be an integer, not " + value.numberText());
    return std::nullopt;
  }
  if (value.isString()) {
    std::string message;
    size_t errorOffset = 0;
    llvm::StringRef text = value.getString();
    if (text.size() > 256) {
      error(value, pointer, "bad-dim",
            "dimension expression is longer than 256 characters");
      return std::nullopt;
    }
    auto expr = ShapeExpr::parse(
        text, [&](llvm::StringRef name) { return lookupSymbol(name); },
        message, errorOffset);
    if (!expr) {
      // Point into the string: one column for the quote, then the offset
      // (exact for expressions without escapes, which is all valid ones).
      Loc loc = locOf(value, pointer);
      loc.column += 1 + uint32_t(errorOffset);
      errorAt(loc, message.find("unknown symbol") == 0 ? "unknown-symbol"
                                                       : "bad-dim",
              "in dimension '" + text + "': " + message +
                  (message.find("unknown symbol") == 0
                       ? " (declare it under 'symbols')"
                       : ""));
      return std::nullopt;
    }
    // A constant expression ("0-3") is held to the limits of an integer.
    if (auto constant = expr->getConstant()) {
      if (*constant < 0) {
        error(value, pointer, "bad-dim",
              "dimension '" + text + "' is negative (" +
                  llvm::Twine(*constant) + ")");
        return std::nullopt;
      }
      if (*constant > ProgramLimits::kMaxTensorBytes) {
        error(value, pointer, "bad-dim",
              "dimension '" + text + "' is over the limit of " +
                  llvm::Twine(ProgramLimits::kMaxTensorBytes));
        return std::nullopt;
      }
    }
    return expr;
  }
  error(value, pointer, "wrong-type",
        "a dimension must be an integer or a symbol expression string, not " +
            value.kindName());
  return std::nullopt;
}

std::optional<Shape> ProgramReader::readShape(const JsonValue &value,
                                              llvm::StringRef pointer,
                                              std::vector<Loc> *dimLocs) {
  if (!checkArray(value, pointer, "a shape"))
    return std::nullopt;
  if (value.items().size() > ProgramLimits::kMaxRank) {
    error(value, pointer, "limit",
          "rank " + llvm::Twine(value.items().size()) +
              " is over the limit of " + llvm::Twine(ProgramLimits::kMaxRank));
    return std::nullopt;
  }
  Shape shape;
  bool ok = true;
  for (size_t i = 0; i < value.items().size(); ++i) {
    std::string ptr = appendPointer(pointer, i);
    auto dim = readDim(value.items()[i], ptr);
    ok &= bool(dim);
    if (dim)
      shape.push_back(std::move(*dim));
    if (dimLocs)
      dimLocs->push_back(locOf(value.items()[i], ptr));
  }
  if (!ok)
    return std::nullopt;
  return shape;
}

std::optional<ValueDecl> ProgramReader::readValueDecl(const JsonValue &value,
                                                      llvm::StringRef pointer,
                                                      llvm::StringRef what) {
  if (!checkObject(value, pointer, what,
                   {"name", "dtype", "shape", "description"}))
    return std::nullopt;
  ValueDecl decl;
  decl.loc = locOf(value, pointer);
  bool ok = true;
  if (const JsonValue *name = required(value, pointer, "name", what)) {
    auto text = readIdentifier(*name, appendPointer(pointer, "name"),
                               "the name of " + what.str());
    ok &= bool(text);
    if (text)
      decl.name = *text;
  } else {
    ok = false;
  }
  if (const JsonValue *dtype = required(value, pointer, "dtype", what)) {
    std::string ptr = appendPointer(pointer, "dtype");
    decl.dtypeLoc = locOf(*dtype, ptr);
    if (auto text = readString(*dtype, ptr, "'dtype'")) {
      if (auto parsed = parseDType(*text)) {
        decl.type.dtype = *parsed;
      } else {
        error(*dtype, ptr, "bad-dtype",
              "unknown dtype '" + *text + "'; expected one of " +
                  dtypeNameList());
        ok = false;
      }
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }
  if (const JsonValue *shape = required(value, pointer, "shape", what)) {
    std::string ptr = appendPointer(pointer, "shape");
    decl.shapeLoc = locOf(*shape, ptr);
    auto parsed = readShape(*shape, ptr, &decl.dimLocs);
    ok &= bool(parsed);
    if (parsed)
      decl.type.shape = std::move(*parsed);
  } else {
    ok = false;
  }
  if (!ok)
    return std::nullopt;
  return decl;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Encodes one JSON number as an element of `dtype`; false if it does not
/// fit. `source` is the program's text: JSON reads `-0` as the integer 0,
/// but a float dtype keeps the sign the text has.
static bool encodeElement(const JsonValue &value, DType dtype, uint8_t *out,
                          std::string &problem, llvm::StringRef source) {
  auto storeFloat = [&](const llvm::fltSemantics &semantics) {
    llvm::APFloat number(semantics);
    if (value.isString()) {
      // JSON has no NaN or infinity; txc spells them as strings.
      llvm::StringRef text = value.getString();
      if (text == "nan" || text == "NaN")
        number = llvm::APFloat::getQNaN(semantics);
      else if (text == "-nan" || text == "-NaN")
        number = llvm::APFloat::getQNaN(semantics, /*Negative=*/true);
      else if (text == "inf" || text == "+inf" || text == "Infinity")
        number = llvm::APFloat::getInf(semantics);
      else if (text == "-inf" || text == "-Infinity")
        number = llvm::APFloat::getInf(semantics, /*Negative=*/true);
      else {
        problem = "'" + text.str() +
                  "' is not a number; NaN and infinities are written \"nan\", "
                  "\"inf\" and \"-inf\"";
        return false;
      }
    } else if (value.kind() == JsonValue::Kind::Float) {
      // Round the decimal text once, straight to the element type.
      auto status = number.convertFromString(
          value.numberText(), llvm::APFloat::rmNearestTiesToEven);
      if (!status) {
        llvm::consumeError(status.takeError());
        problem = "cannot read number " + value.numberText().str();
        return false;
      }
      if (number.isInfinity()) {
        problem = "number " + value.numberText().str() +
                  " is out of the range of " + dtypeName(dtype).str();
        return false;
      }
    } else if (value.isNumber()) {
      // The exact 64-bit integer, rounded once (a double in between would
      // round twice, and cannot hold every uint64).
      bool isSigned = value.kind() == JsonValue::Kind::Integer;
      uint64_t raw = isSigned ? uint64_t(value.getInteger())
                              : value.getUnsigned();
      number.convertFromAPInt(llvm::APInt(64, raw, isSigned), isSigned,
                              llvm::APFloat::rmNearestTiesToEven);
      if (isSigned && raw == 0 && value.offset() < source.size() &&
          source[value.offset()] == '-')
        number = llvm::APFloat::getZero(semantics, /*Negative=*/true);
      if (number.isInfinity()) {
        problem = "number " +
                  (isSigned ? std::to_string(value.getInteger())
                            : std::to_string(value.getUnsigned())) +
                  " is out of the range of " + dtypeName(dtype).str();
        return false;
      }
    } else {
      problem = "expected a number, not " + value.kindName().str();
      return false;
    }
    llvm::APInt bits = number.bitcastToAPInt();
    uint64_t raw = bits.getZExtValue();
    std::memcpy(out, &raw, bits.getBitWidth() / 8); // little-endian host
    return true;
  };

  switch (dtype) {
  case DType::F32:
    return storeFloat(llvm::APFloat::IEEEsingle());
  case DType::F64:
    return storeFloat(llvm::APFloat::IEEEdouble());
  case DType::F16:
    return storeFloat(llvm::APFloat::IEEEhalf());
  case DType::BF16:
    return storeFloat(llvm::APFloat::BFloat());
  case DType::Bool:
    if (value.isBool()) {
      *out = value.getBool() ? 1 : 0;
      return true;
    }
    if (value.isInteger() && (value.getInteger() == 0 || value.getInteger() == 1)) {
      *out = uint8_t(value.getInteger());
      return true;
    }
    problem = "expected true, false, 0 or 1";
    return false;
  default: {
    if (value.kind() == JsonValue::Kind::Unsigned) {
      // Above INT64_MAX: only u64 holds it.
      if (dtype == DType::U64) {
        uint64_t number = value.getUnsigned();
        std::memcpy(out, &number, sizeof(number)); // little-endian host
        return true;
      }
      problem = std::to_string(value.getUnsigned()) + " does not fit in " +
                dtypeName(dtype).str();
      return false;
    }
    if (!value.isInteger()) {
      problem = "expected an integer, not " +
                (value.kind() == JsonValue::Kind::Float
                     ? value.numberText().str()
                     : value.kindName().str());
      return false;
    }
    int64_t number = value.getInteger();
    int64_t lo = 0, hi = 0;
    switch (dtype) {
    case DType::I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case DType::I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case DType::I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case DType::I64: lo = INT64_MIN; hi = INT64_MAX; break;
    case DType::U8: lo = 0; hi = UINT8_MAX; break;
    case DType::U16: lo = 0; hi = UINT16_MAX; break;
    case DType::U32: lo = 0; hi = UINT32_MAX; break;
    case DType::U64: lo = 0; hi = INT64_MAX; break; // and Unsigned above
    default: break;
    }
    if (number < lo || number > hi) {
      problem = std::to_string(number) + " does not fit in " +
                dtypeName(dtype).str();
      return false;
    }
    std::memcpy(out, &number, dtypeSize(dtype)); // little-endian host
    return true;
  }
  }
}

std::optional<Blob> ProgramReader::readInlineData(const JsonValue &data,
                                                  llvm::StringRef pointer,
                                                  const TensorType &type,
                                                  const std::string &name) {
  uint64_t count = 1;
  for (const ShapeExpr &dim : type.shape)
    count *= uint64_t(*dim.getConstant()); // bounded by the limit check below
  unsigned size = dtypeSize(type.dtype);
  std::vector<uint8_t> bytes(count * size);

  if (!data.isArray()) {
    // A single value fills the tensor ("splat").
    std::string problem;
    std::vector<uint8_t> element(size);
    if (!encodeElement(data, type.dtype, element.data(), problem,
                       file.contents())) {
      error(data, pointer, "bad-data",
            "data of constant '" + name + "': " + problem);
      return std::nullopt;
    }
    for (uint64_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * size, element.data(), size);
    return Blob::fromVector(std::move(bytes));
  }
  if (data.items().size() != count) {
    error(data, pointer, "bad-data",
          "constant '" + name + "' has shape " +
              shapeToString(type.shape, {}) + " (" + llvm::Twine(count) +
              " elements) but its data has " +
              llvm::Twine(data.items().size()) +
              " values; write the elements as one flat list in row-major "
              "order");
    return std::nullopt;
  }
  unsigned errors = 0;
  for (uint64_t i = 0; i < count; ++i) {
    std::string problem;
    if (!encodeElement(data.items()[i], type.dtype, bytes.data() + i * size,
                       problem, file.contents())) {
      if (++errors <= 10)
        error(data.items()[i], appendPointer(pointer, i), "bad-data",
              "element " + llvm::Twine(i) + " of constant '" + name +
                  "': " + problem);
    }
  }
  if (errors > 10)
    error(data, pointer, "bad-data",
          llvm::Twine(errors - 10) + " more bad elements in constant '" +
              name + "'");
  if (errors)
    return std::nullopt;
  return Blob::fromVector(std::move(bytes));
}

void ProgramReader::readConstants(const JsonValue &list,
                                  llvm::StringRef pointer) {
  if (!checkArray(list, pointer, "'constants'"))
    return;
  for (size_t i = 0; i < list.items().size(); ++i) {
    const JsonValue &item = list.items()[i];
    std::string ptr = appendPointer(pointer, i);
    if (!checkObject(item, ptr, "a constant",
                     {"name", "dtype", "shape", "data", "file", "tensor",
                      "description"}))
      continue;
    ConstantDecl constant;
    constant.loc = locOf(item, ptr);
    const JsonValue *data = item.find("data");
    const JsonValue *fileValue = item.find("file");
    const JsonValue *tensorValue = item.find("tensor");
    bool fromFile = fileValue != nullptr;
    bool ok = true;
    if (const JsonValue *name = required(item, ptr, "name", "a constant")) {
      auto text = readIdentifier(*name, appendPointer(ptr, "name"),
                                 "the name of a constant");
      ok &= bool(text);
      if (text)
        constant.name = *text;
    } else {
      ok = false;
    }
    Loc dtypeLoc;
    if (const JsonValue *dtype = required(item, ptr, "dtype", "a constant")) {
      std::string dptr = appendPointer(ptr, "dtype");
      dtypeLoc = locOf(*dtype, dptr);
      auto text = readString(*dtype, dptr, "'dtype'");
      auto parsed = text ? parseDType(*text) : std::nullopt;
      if (text && !parsed)
        error(*dtype, dptr, "bad-dtype",
              "unknown dtype '" + *text + "'; expected one of " +
                  dtypeNameList());
      ok &= bool(parsed);
      if (parsed)
        constant.type.dtype = *parsed;
    } else {
      ok = false;
    }
    const JsonValue *shape = required(item, ptr, "shape", "a constant");
    std::optional<Shape> parsedShape;
    Loc shapeLoc;
    if (shape) {
      std::string sptr = appendPointer(ptr, "shape");
      shapeLoc = locOf(*shape, sptr);
      parsedShape = readShape(*shape, sptr, nullptr);
      if (parsedShape) {
        // Constants have static shapes whose size is within the limits.
        uint64_t count = 1;
        bool countOk = true;
        for (const ShapeExpr &dim : *parsedShape) {
          if (!dim.isConstant()) {
            error(*shape, sptr, "bad-dim",
                  "constant '" + constant.name +
                      "' must have a static shape; its shape uses symbols");
            countOk = false;
            break;
          }
          if (__builtin_mul_overflow(count, uint64_t(*dim.getConstant()),
                                     &count))
            countOk = false;
        }
        // Weights files have no element limit: their size is what the
        // file holds (and every tensor of the program at most 2^48 bytes).
        uint64_t limit = fromFile ? uint64_t(ProgramLimits::kMaxTensorBytes)
                                  : ProgramLimits::kMaxInlineElements;
        if (countOk && count > limit)
          countOk = false;
        if (!countOk) {
          if (llvm::all_of(*parsedShape,
                           [](const ShapeExpr &d) { return d.isConstant(); }))
            error(*shape, sptr, "limit",
                  "constant '" + constant.name + "' has more than " +
                      (fromFile
                           ? std::string("2^48 elements")
                           : std::to_string(ProgramLimits::kMaxInlineElements) +
                                 " elements, the limit for inline "
                                 "data"));
          parsedShape.reset();
        } else if (!fromFile) {
          inlineElements += count;
        }
      }
    }
    ok &= bool(parsedShape);
    if (parsedShape)
      constant.type.shape = std::move(*parsedShape);

    if (data && fromFile) {
      error(*fileValue, appendPointer(ptr, "file"), "bad-constant",
            "constant '" + constant.name +
                "' has both 'data' and 'file'; give its elements inline or "
                "in a weights file, not both");
      ok = false;
    } else if (tensorValue && !fromFile) {
      error(*tensorValue, appendPointer(ptr, "tensor"), "bad-constant",
            "constant '" + constant.name +
                "' has 'tensor' but no 'file'; 'tensor' names a tensor of a "
                ".safetensors weights file");
      ok = false;
    } else if (fromFile) {
      ok &= readFileReference(item, ptr, *fileValue, tensorValue, constant);
      if (ok)
        ok &= loadWeights(constant, dtypeLoc, shapeLoc);
    } else if (!data) {
      error(item, ptr, "missing-key", "a constant has no 'data' key");
      ok = false;
    } else if (ok) {
      if (inlineElements > ProgramLimits::kMaxInlineElements) {
        error(*data, appendPointer(ptr, "data"), "limit",
              "the program's inline constants have more than " +
                  llvm::Twine(ProgramLimits::kMaxInlineElements) +
                  " elements in all");
        ok = false;
      } else {
        std::string dptr = appendPointer(ptr, "data");
        constant.dataLoc = locOf(*data, dptr);
        auto blob = readInlineData(*data, dptr, constant.type, constant.name);
        ok &= bool(blob);
        if (blob)
          constant.data = std::move(*blob);
      }
    }
    if (ok)
      program->constants.push_back(std::move(constant));
  }
}

bool ProgramReader::readFileReference(const JsonValue &item,
                                      llvm::StringRef pointer,
                                      const JsonValue &fileValue,
                                      const JsonValue *tensorValue,
                                      ConstantDecl &constant) {
  std::string fptr = appendPointer(pointer, "file");
  auto path = readString(fileValue, fptr, "'file'");
  if (!path)
    return false;
  constant.file = *path;
  constant.fileLoc = locOf(fileValue, fptr);
  auto format = WeightsFile::formatOf(*path);
  if (!format) {
    error(fileValue, fptr, "weights-path",
          "weights file '" + *path +
              "' has an unknown type; txc reads .npy and .safetensors files");
    return false;
  }
  std::string tptr = appendPointer(pointer, "tensor");
  if (*format == WeightsFile::Format::Npy) {
    if (tensorValue) {
      error(*tensorValue, tptr, "bad-constant",
            "constant '" + constant.name + "' reads the .npy file '" + *path +
                "', which holds one tensor; remove 'tensor'");
      return false;
    }
    return true;
  }
  if (!tensorValue) {
    error(item, pointer, "missing-key",
          "constant '" + constant.name + "' reads the .safetensors file '" +
              *path + "' but has no 'tensor' key naming the tensor it uses");
    return false;
  }
  auto tensor = readString(*tensorValue, tptr, "'tensor'");
  if (!tensor)
    return false;
  if (tensor->empty()) {
    error(*tensorValue, tptr, "bad-constant", "'tensor' is empty");
    return false;
  }
  constant.tensor = *tensor;
  constant.tensorLoc = locOf(*tensorValue, tptr);
  return true;
}

bool ProgramReader::loadWeights(ConstantDecl &constant, const Loc &dtypeLoc,
                                const Loc &shapeLoc) {
  auto report = [&](const Loc &at, llvm::Error err) {
    llvm::handleAllErrors(std::move(err), [&](const WeightsFileError &e) {
      diags.error(e.category, e.id, file.name(), at,
                  "constant '" + constant.name + "': " + e.message);
    });
  };
  auto resolved =
      resolveWeightsPath(file.name(), constant.file, options.allowedWeightDirs);
  if (!resolved) {
    report(constant.fileLoc, resolved.takeError());
    return false;
  }
  // Each file is opened and checked once, however many constants use it;
  // a broken file is reported at the first constant that uses it.
  auto cached = weightsFiles.find(*resolved);
  if (cached == weightsFiles.end()) {
    program->weightsFiles.push_back(*resolved);
    auto opened = WeightsFile::open(*resolved, constant.file,
                                    *WeightsFile::formatOf(constant.file));
    std::shared_ptr<WeightsFile> loaded;
    if (opened)
      loaded = std::move(*opened);
    else
      report(constant.fileLoc, opened.takeError());
    cached = weightsFiles.try_emplace(*resolved, std::move(loaded)).first;
    if (!cached->second)
      return false;
  }
  if (!cached->second)
    return false;
  const WeightsFile &weights = *cached->second;

  std::string what;
  const WeightsFile::Entry *entry = weights.find(constant.tensor);
  if (weights.format() == WeightsFile::Format::Safetensors) {
    what = "tensor '" + constant.tensor + "' of '" + constant.file + "'";
    if (!entry) {
      std::string message = "constant '" + constant.name + "': weights file '" +
                            constant.file + "' has no tensor '" +
                            constant.tensor + "'";
      llvm::StringRef best;
      unsigned bestDistance = 4;
      for (const WeightsFile::Entry &candidate : weights.entries()) {
        unsigned distance =
            llvm::StringRef(constant.tensor)
                .edit_distance(candidate.name, true, bestDistance);
        if (distance < bestDistance) {
          bestDistance = distance;
          best = candidate.name;
        }
      }
      if (!best.empty())
        message += " (did you mean '" + best.str() + "'?)";
      else if (weights.entries().empty())
        message += "; it holds no tensors";
      else if (weights.entries().size() <= 8) {
        message += "; it holds ";
        for (size_t i = 0; i < weights.entries().size(); ++i)
          message += (i ? ", '" : "'") + weights.entries()[i].name + "'";
      }
      diags.error(DiagCategory::Invalid, "weights-tensor", file.name(),
                  constant.tensorLoc, message);
      return false;
    }
  } else {
    what = "the tensor of '" + constant.file + "'";
  }

  bool ok = true;
  if (!entry->dtype) {
    diags.error(
        DiagCategory::Invalid, "weights-mismatch", file.name(), dtypeLoc,
        "constant '" + constant.name + "' is declared " +
            dtypeName(constant.type.dtype) + ", but " + what + " has dtype " +
            entry->dtypeText + ", which txc does not support");
    ok = false;
  } else if (*entry->dtype != constant.type.dtype &&
             !(weights.format() == WeightsFile::Format::Npy &&
               npyHolds(*entry->dtype, constant.type.dtype))) {
    diags.error(
        DiagCategory::Invalid, "weights-mismatch", file.name(), dtypeLoc,
        "constant '" + constant.name + "' is declared " +
            dtypeName(constant.type.dtype) + ", but " + what + " has dtype " +
            entry->dtypeText + " (" + dtypeName(*entry->dtype) + ")");
    ok = false;
  }
  bool sameShape = entry->shape.size() == constant.type.shape.size();
  for (size_t d = 0; sameShape && d < entry->shape.size(); ++d)
    sameShape = constant.type.shape[d].getConstant() == entry->shape[d];
  if (!sameShape) {
    std::string fileShape = "[";
    for (size_t d = 0; d < entry->shape.size(); ++d)
      fileShape += (d ? "," : "") + std::to_string(entry->shape[d]);
    fileShape += "]";
    diags.error(DiagCategory::Invalid, "weights-mismatch", file.name(),
                shapeLoc,
                "constant '" + constant.name + "' is declared with shape " +
                    shapeToString(constant.type.shape, {}) + ", but " + what +
                    " has shape " + fileShape);
    ok = false;
  }
  if (!ok)
    return false;
  constant.data = weights.bytes(*entry);
  if (constant.type.dtype == DType::Bool) {
    for (size_t i = 0; i < constant.data.size; ++i)
      if (constant.data.data[i] > 1) {
        diags.error(DiagCategory::IO, "weights-format", file.name(),
                    constant.fileLoc,
                    "constant '" + constant.name + "': element " +
                        llvm::Twine(i) + " of " + what + " is the byte " +
                        llvm::Twine(int(constant.data.data[i])) +
                        ", not 0 or 1 as bool elements must be");
        return false;
      }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Graphs and nodes
//===----------------------------------------------------------------------===//

AttrValue ProgramReader::readAttrValue(const JsonValue &value,
                                       llvm::StringRef pointer,
                                       unsigned depth) {
  AttrValue attr;
  attr.loc = locOf(value, pointer);
  switch (value.kind()) {
  case JsonValue::Kind::Null:
    attr.kind = AttrValue::Kind::Null;
    break;
  case JsonValue::Kind::Bool:
    attr.kind = AttrValue::Kind::Bool;
    attr.boolean = value.getBool();
    break;
  case JsonValue::Kind::Integer:
    attr.kind = AttrValue::Kind::Int;
    attr.integer = value.getInteger();
    break;
  case JsonValue::Kind::Unsigned:
  case JsonValue::Kind::Float:
    attr.kind = AttrValue::Kind::Float;
    attr.number = value.getNumber();
    break;
  case JsonValue::Kind::String:
    attr.kind = AttrValue::Kind::String;
    attr.string = value.getString();
    break;
  case JsonValue::Kind::Array:
    attr.kind = AttrValue::Kind::List;
    for (size_t i = 0; i < value.items().size(); ++i)
      attr.list.push_back(
          readAttrValue(value.items()[i], appendPointer(pointer, i), depth + 1));
    break;
  case JsonValue::Kind::Object:
    error(value, pointer, "wrong-type",
          "an attribute value must be a number, string, boolean or list, not "
          "an object");
    break;
  }
  return attr;
}

bool ProgramReader::readNode(const JsonValue &value, llvm::StringRef pointer,
                             Node &node, unsigned depth) {
  if (!checkObject(value, pointer, "a node",
                   {"name", "op", "operands", "attributes", "regions",
                    "description"}))
    return false;
  node.loc = locOf(value, pointer);
  bool ok = true;
  if (const JsonValue *name = required(value, pointer, "name", "a node")) {
    auto text = readIdentifier(*name, appendPointer(pointer, "name"),
                               "the node name");
    ok &= bool(text);
    if (text)
      node.name = *text;
  } else {
    ok = false;
  }
  if (const JsonValue *op = required(value, pointer, "op", "a node")) {
    std::string ptr = appendPointer(pointer, "op");
    node.opLoc = locOf(*op, ptr);
    auto text = readString(*op, ptr, "'op'");
    ok &= bool(text);
    if (text)
      node.opName = *text;
  } else {
    ok = false;
  }
  if (const JsonValue *operands = value.find("operands")) {
    std::string ptr = appendPointer(pointer, "operands");
    if (checkArray(*operands, ptr, "'operands'")) {
      for (size_t i = 0; i < operands->items().size(); ++i) {
        std::string optr = appendPointer(ptr, i);
        auto text = readString(operands->items()[i], optr, "an operand");
        ok &= bool(text);
        node.operands.push_back(text ? *text : std::string());
        node.operandLocs.push_back(locOf(operands->items()[i], optr));
      }
    } else {
      ok = false;
    }
  }
  if (const JsonValue *attributes = value.find("attributes")) {
    std::string ptr = appendPointer(pointer, "attributes");
    if (attributes->isObject()) {
      for (const JsonMember &member : attributes->members()) {
        NodeAttr attr;
        attr.name = member.key;
        std::string aptr = appendPointer(ptr, member.key);
        attr.loc = locAt(member.keyOffset, aptr);
        attr.value = readAttrValue(member.value, aptr, depth);
        node.attributes.push_back(std::move(attr));
      }
    } else {
      error(*attributes, ptr, "wrong-type",
            "'attributes' must be an object, not " + attributes->kindName());
      ok = false;
    }
  }
  if (const JsonValue *regions = value.find("regions")) {
    std::string ptr = appendPointer(pointer, "regions");
    if (regions->isObject()) {
      for (const JsonMember &member : regions->members()) {
        auto graph = std::make_unique<Graph>();
        ok &= readGraph(member.value, appendPointer(ptr, member.key), *graph,
                        /*isRegion=*/true, depth + 1);
        node.regions.emplace_back(member.key, std::move(graph));
      }
    } else {
      error(*regions, ptr, "wrong-type",
            "'regions' must be an object of graphs, not " +
                regions->kindName());
      ok = false;
    }
  }
  return ok;
}

void ProgramReader::readOutputs(const JsonValue &list, llvm::StringRef pointer,
                                std::vector<OutputDecl> &outputs) {
  if (!checkArray(list, pointer, "'outputs'"))
    return;
  if (list.items().size() > ProgramLimits::kMaxOutputs) {
    error(list, pointer, "limit",
          "there are " + llvm::Twine(list.items().size()) +
              " outputs, over the limit of " +
              llvm::Twine(ProgramLimits::kMaxOutputs));
    return;
  }
  for (size_t i = 0; i < list.items().size(); ++i) {
    const JsonValue &item = list.items()[i];
    std::string ptr = appendPointer(pointer, i);
    OutputDecl output;
    output.loc = locOf(item, ptr);
    if (item.isString()) {
      // "y": output y returns value y.
      if (auto text = readIdentifier(item, ptr, "an output")) {
        output.name = output.value = *text;
        output.valueLoc = output.loc;
        outputs.push_back(std::move(output));
      }
      continue;
    }
    if (!item.isObject()) {
      error(item, ptr, "wrong-type",
            "an output must be a value name or an object with 'name' and "
            "'value', not " +
                item.kindName());
      continue;
    }
    if (!checkObject(item, ptr, "an output", {"name", "value", "description"}))
      continue;
    const JsonValue *name = required(item, ptr, "name", "an output");
    const JsonValue *value = required(item, ptr, "value", "an output");
    auto nameText = name ? readIdentifier(*name, appendPointer(ptr, "name"),
                                          "the output name")
                         : std::nullopt;
    auto valueText = value ? readString(*value, appendPointer(ptr, "value"),
                                        "the output value")
                           : std::nullopt;
    if (!nameText || !valueText)
      continue;
    output.name = *nameText;
    output.value = *valueText;
    output.valueLoc = locOf(*value, appendPointer(ptr, "value"));
    outputs.push_back(std::move(output));
  }
}

bool ProgramReader::readGraph(const JsonValue &object, llvm::StringRef pointer,
                              Graph &graph, bool isRegion, unsigned depth) {
  unsigned errorsBefore = diags.errorCount();
  if (isRegion) {
    if (!checkObject(object, pointer, "a graph",
                     {"inputs", "nodes", "outputs", "description"}))
      return false;
    if (const JsonValue *inputs = object.find("inputs")) {
      std::string ptr = appendPointer(pointer, "inputs");
      if (checkArray(*inputs, ptr, "'inputs'"))
        for (size_t i = 0; i < inputs->items().size(); ++i)
          if (auto decl = readValueDecl(inputs->items()[i],
                                        appendPointer(ptr, i),
                                        "a graph input"))
            graph.inputs.push_back(std::move(*decl));
    }
  }
  const JsonValue *nodes = object.find("nodes");
  if (!nodes && !isRegion)
    nodes = required(object, pointer, "nodes", "the program");
  if (nodes) {
    std::string ptr = appendPointer(pointer, "nodes");
    if (checkArray(*nodes, ptr, "'nodes'")) {
      nodeCount += nodes->items().size();
      if (nodeCount > ProgramLimits::kMaxNodes) {
        error(*nodes, ptr, "limit",
              "the program has more than " +
                  llvm::Twine(ProgramLimits::kMaxNodes) + " nodes");
        return false;
      }
      graph.nodes.reserve(nodes->items().size());
      for (size_t i = 0; i < nodes->items().size(); ++i) {
        Node node;
        if (readNode(nodes->items()[i], appendPointer(ptr, i), node, depth))
          graph.nodes.push_back(std::move(node));
      }
    }
  }
  if (const JsonValue *outputs =
          required(object, pointer, "outputs",
                   isRegion ? "a graph" : "the program")) {
    std::string ptr = appendPointer(pointer, "outputs");
    readOutputs(*outputs, ptr, graph.outputs);
    if (outputs->isArray() && outputs->items().empty())
      error(*outputs, ptr, "no-outputs",
            isRegion ? "a graph must have at least one output"
                     : "the program has no outputs; an exported region must "
                       "return at least one tensor");
  }
  return diags.errorCount() == errorsBefore;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::unique_ptr<Program> txc::readProgram(const SourceFile &file,
                                          DiagnosticEngine &diags,
                                          const ReaderOptions &options) {
  unsigned errorsBefore = diags.errorCount();
  std::unique_ptr<JsonValue> root =
      parseJson(file, diags, ProgramLimits::kMaxJsonDepth);
  if (!root)
    return nullptr;
  ProgramReader reader(file, diags, options);
  std::unique_ptr<Program> program = reader.read(*root);
  if (!program || diags.errorCount() != errorsBefore)
    return nullptr;
  llvm::StringRef text = file.contents();
  auto digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  program->sha256 = llvm::toHex(digest, /*LowerCase=*/true);
  return program;
}

std::unique_ptr<Program> txc::readProgramFile(llvm::StringRef path,
                                              DiagnosticEngine &diags,
                                              const ReaderOptions &options) {
  auto file = SourceFile::read(path, ProgramLimits::kMaxFileBytes);
  if (!file) {
    InputError error = takeInputError(file.takeError());
    std::string name = inputDisplayName(path).str();
    if (error.code == std::errc::file_too_large) {
      diags.error(DiagCategory::Syntax, "limit", name, Loc(),
                  "program file '" + name + "' is larger than the limit of " +
                      std::to_string(ProgramLimits::kMaxFileBytes >> 20) +
                      " MiB; put large constants in weights files");
      return nullptr;
    }
    diags.error(DiagCategory::IO, "io-read", name, Loc(),
                "cannot read program file '" + name + "': " + error.reason);
    return nullptr;
  }
  diags.addSourceFile(*file);
  return readProgram(**file, diags, options);
}
