//===- ManifestReader.cpp - A manifest back to its contract ---------------===//
#include "txc/Tools/ManifestReader.h"

#include "JsonReader.h"

#include "txc/Program/Program.h"
#include "txc/Support/InputFiles.h"
#include "txc/Target/AbiEmitter.h"

#include "llvm/ADT/StringExtras.h"

using namespace txc;

static constexpr GuardKind kAllGuardKinds[] = {
    GuardKind::InputCount,   GuardKind::OutputCount,    GuardKind::InputsArray,
    GuardKind::OutputsArray, GuardKind::DataPointer,    GuardKind::DType,
    GuardKind::Rank,         GuardKind::StaticDim,      GuardKind::SymbolForm,
    GuardKind::SymbolRange,  GuardKind::SymbolMultiple, GuardKind::DimEquals,
    GuardKind::BufferSize,   GuardKind::NoAlias,        GuardKind::IndexInRange,
    GuardKind::SymbolValues};

std::optional<GuardKind> txc::parseGuardKind(llvm::StringRef name) {
  for (GuardKind kind : kAllGuardKinds)
    if (guardKindName(kind) == name)
      return kind;
  return std::nullopt;
}

StatusCode txc::statusCodeOfGuardKind(GuardKind kind) {
  switch (kind) {
  case GuardKind::InputCount:
  case GuardKind::OutputCount:
    return StatusCode::ArgCount;
  case GuardKind::InputsArray:
  case GuardKind::OutputsArray:
  case GuardKind::DataPointer:
    return StatusCode::NullPointer;
  case GuardKind::DType:
    return StatusCode::DType;
  case GuardKind::Rank:
    return StatusCode::Rank;
  case GuardKind::StaticDim:
  case GuardKind::SymbolForm:
    return StatusCode::Dim;
  case GuardKind::SymbolRange:
  case GuardKind::SymbolValues:
    return StatusCode::SymbolRange;
  case GuardKind::SymbolMultiple:
    return StatusCode::SymbolDivisibility;
  case GuardKind::DimEquals:
    return StatusCode::SymbolMismatch;
  case GuardKind::BufferSize:
    return StatusCode::BufferTooSmall;
  case GuardKind::NoAlias:
    return StatusCode::Alias;
  case GuardKind::IndexInRange:
    return StatusCode::IndexOutOfRange;
  }
  return StatusCode::OK;
}

Loc Manifest::locate(llvm::StringRef pointer) const {
  const JsonValue *value = root ? resolvePointer(*root, pointer) : nullptr;
  Loc loc;
  loc.pointer = pointer.str();
  if (value && source) {
    auto [line, column] = source->lineAndColumn(value->offset());
    loc.line = line;
    loc.column = column;
  }
  return loc;
}

namespace {

class ManifestParser {
public:
  ManifestParser(Manifest &manifest, DiagnosticEngine &diags)
      : m(manifest),
        r(*manifest.source, diags, "invalid-manifest", "manifest") {}

  bool parse();

private:
  bool parseHeader(const JsonValue &root);
  void parseProgramFacts(const JsonValue &root);
  void parseSymbols(const JsonValue &list, const std::string &pointer);
  void parseTensors(const JsonValue &list, const std::string &pointer,
                    bool outputs);
  /// A symbol's `values` (sorted, distinct; with `symbol`, in its range and
  /// multiples of its multiple_of): empty after reporting an error.
  std::vector<int64_t> parseValues(const JsonValue &list,
                                   const std::string &pointer,
                                   std::optional<ContractSymbol> symbol);
  std::optional<ShapeExpr> parseExpr(const JsonValue &value,
                                     const std::string &pointer);
  void parseGuards(const JsonValue &list, const std::string &pointer);
  void parseVariants(const JsonValue &list, const std::string &pointer);
  std::optional<SymbolBinding> parseBinding(const JsonMember &member,
                                            const std::string &pointer);
  bool parseGuard(const JsonValue &value, const std::string &pointer,
                  size_t index);
  bool parseOperands(const JsonValue &operands, const std::string &pointer,
                     Guard &g);
  Loc parseLocation(const JsonValue &object, const std::string &pointer);

  Manifest &m;
  JsonReader r;
  /// Per input: the rank its rank guard checked, once it was checked.
  std::vector<std::optional<size_t>> rankChecked;
};

} // namespace

Loc ManifestParser::parseLocation(const JsonValue &object,
                                  const std::string &pointer) {
  Loc loc;
  const JsonValue *value = r.required(object, pointer, "location");
  if (!value)
    return loc;
  std::string at = appendPointer(pointer, "location");
  if (!r.isObject(*value, at))
    return loc;
  if (auto text = r.stringAt(*value, at, "pointer"))
    loc.pointer = *text;
  const JsonValue *line = value->find("line");
  const JsonValue *column = value->find("column");
  if (line && column) {
    auto l = r.integer(*line, appendPointer(at, "line"));
    auto c = r.integer(*column, appendPointer(at, "column"));
    if (l && c && *l > 0 && *c > 0 && *l <= UINT32_MAX && *c <= UINT32_MAX) {
      loc.line = uint32_t(*l);
      loc.column = uint32_t(*c);
    }
  }
  return loc;
}

bool ManifestParser::parseHeader(const JsonValue &root) {
  if (!r.isObject(root, ""))
    return false;
  auto format = r.stringAt(root, "", "format");
  if (format && *format != "txc.manifest") {
    r.error(*root.find("format"), "/format",
            "not a txc manifest: format is '" + *format +
                "', expected 'txc.manifest'");
    return false;
  }
  auto version = r.integerAt(root, "", "version");
  if (version && *version != 1) {
    r.error(*root.find("version"), "/version",
            "manifest version " + llvm::Twine(*version) +
                " is not supported; this txc reads version 1");
    return false;
  }
  return format && version;
}

void ManifestParser::parseProgramFacts(const JsonValue &root) {
  if (const JsonValue *program = r.required(root, "", "program");
      program && r.isObject(*program, "/program")) {
    if (auto name = r.stringAt(*program, "/program", "name")) {
      if (!isValidIdentifier(*name))
        r.error(*program->find("name"), "/program/name",
                "'" + *name + "' is not a program name");
      m.contract.programName = *name;
    }
    if (auto file = r.stringAt(*program, "/program", "file"))
      m.programFile = *file;
    if (auto sha = r.stringAt(*program, "/program", "sha256"))
      m.programSha256 = *sha;
  }
  if (const JsonValue *compiler = r.required(root, "", "compiler");
      compiler && r.isObject(*compiler, "/compiler")) {
    if (auto v = r.stringAt(*compiler, "/compiler", "txc"))
      m.txcVersion = *v;
    if (auto v = r.stringAt(*compiler, "/compiler", "llvm"))
      m.llvmVersion = *v;
  }
  if (const JsonValue *target = r.required(root, "", "target");
      target && r.isObject(*target, "/target")) {
    if (auto v = r.stringAt(*target, "/target", "triple"))
      m.target.triple = *v;
    if (auto v = r.stringAt(*target, "/target", "cpu"))
      m.target.cpu = *v;
    if (auto v = r.booleanAt(*target, "/target", "cpu_from_host"))
      m.target.cpuFromHost = *v;
    if (const JsonValue *cpus = target->find("cpus");
        cpus && r.isArray(*cpus, "/target/cpus"))
      for (size_t i = 0; i < cpus->items().size(); ++i)
        if (auto cpu = r.string(cpus->items()[i],
                                appendPointer("/target/cpus", i)))
          m.target.cpus.push_back(*cpu);
    if (auto v = r.stringAt(*target, "/target", "features"))
      m.target.features = *v;
    if (auto v = r.integerAt(*target, "/target", "opt_level"))
      m.target.optLevel = *v;
  }
  if (const JsonValue *entry = r.required(root, "", "entry_points");
      entry && r.isObject(*entry, "/entry_points")) {
    auto run = r.stringAt(*entry, "/entry_points", "run");
    if (run) {
      llvm::StringRef prefix = *run;
      if (!prefix.consume_back("_run") || !isValidIdentifier(prefix))
        r.error(*entry->find("run"), "/entry_points/run",
                "'" + *run + "' is not of the form <prefix>_run");
      m.contract.entryPrefix = prefix.str();
      const std::pair<const char *, std::string> others[] = {
          {"output_shapes", m.contract.shapesSymbol()},
          {"error_message", m.contract.messageSymbol()}};
      for (const auto &[key, expected] : others)
        if (auto name = r.stringAt(*entry, "/entry_points", key);
            name && *name != expected)
          r.error(*entry->find(key), appendPointer("/entry_points", key),
                  "'" + *name + "' does not match the run entry point '" +
                      *run + "' (expected '" + expected + "')");
    }
  }
  if (const JsonValue *abi = r.required(root, "", "abi");
      abi && r.isObject(*abi, "/abi")) {
    // Version 1 differs only in txc_status (48 bytes, no `variant`): its
    // contract reads the same, and `txc diff` reports the ABI change.
    if (auto version = r.integerAt(*abi, "/abi", "version");
        version && (*version < 1 || *version > AbiLayout::kVersion))
      r.error(*abi->find("version"), "/abi/version",
              "ABI version " + llvm::Twine(*version) +
                  " is not supported; this txc knows versions 1 to " +
                  llvm::Twine(AbiLayout::kVersion));
  }
}

void ManifestParser::parseSymbols(const JsonValue &list,
                                  const std::string &pointer) {
  if (!r.isArray(list, pointer))
    return;
  if (list.items().size() > ProgramLimits::kMaxSymbols) {
    r.error(list, pointer,
            "more than " + llvm::Twine(ProgramLimits::kMaxSymbols) +
                " symbols");
    return;
  }
  for (size_t s = 0; s < list.items().size(); ++s) {
    const JsonValue &item = list.items()[s];
    std::string at = appendPointer(pointer, s);
    ContractSymbol symbol;
    std::string determinedBy;
    if (r.isObject(item, at)) {
      if (auto name = r.stringAt(item, at, "name")) {
        if (!isValidIdentifier(*name))
          r.error(*item.find("name"), appendPointer(at, "name"),
                  "'" + *name + "' is not a symbol name");
        for (const ContractSymbol &other : m.contract.symbols)
          if (other.name == *name)
            r.error(*item.find("name"), appendPointer(at, "name"),
                    "symbol '" + *name + "' is listed twice");
        symbol.name = *name;
      }
      auto min = r.integerAt(item, at, "min");
      auto max = r.integerAt(item, at, "max");
      auto multiple = r.integerAt(item, at, "multiple_of");
      if (min && max && multiple) {
        if (*min < 0 || *min > *max || *multiple < 1)
          r.error(item, at,
                  "symbol '" + symbol.name + "' has an invalid range [" +
                      llvm::Twine(*min) + ", " + llvm::Twine(*max) +
                      "] with multiple_of " + llvm::Twine(*multiple));
        symbol.min = *min;
        symbol.max = *max;
        symbol.multipleOf = *multiple;
      }
      if (const JsonValue *values = item.find("values"))
        symbol.values = parseValues(*values, appendPointer(at, "values"),
                                    symbol);
      if (const JsonValue *by = item.find("determined_by"))
        if (auto text = r.string(*by, appendPointer(at, "determined_by")))
          determinedBy = *text;
      symbol.loc = parseLocation(item, at);
    }
    m.contract.symbols.push_back(std::move(symbol));
    m.determinedBy.push_back(std::move(determinedBy));
  }
}

std::vector<int64_t>
ManifestParser::parseValues(const JsonValue &list, const std::string &pointer,
                            std::optional<ContractSymbol> symbol) {
  if (!r.isArray(list, pointer))
    return {};
  std::vector<int64_t> values;
  for (size_t i = 0; i < list.items().size(); ++i) {
    std::string at = appendPointer(pointer, i);
    auto value = r.integer(list.items()[i], at);
    if (!value)
      return {};
    if (symbol && (*value < symbol->min || *value > symbol->max ||
                   *value % symbol->multipleOf != 0)) {
      r.error(list.items()[i], at,
              "value " + llvm::Twine(*value) + " of symbol '" + symbol->name +
                  "' is outside its range or not a multiple of its "
                  "multiple_of");
      return {};
    }
    values.push_back(*value);
  }
  if (values.empty() || !llvm::is_sorted(values) ||
      std::adjacent_find(values.begin(), values.end()) != values.end()) {
    r.error(list, pointer, "the values must be distinct, sorted and at "
                           "least one");
    return {};
  }
  return values;
}

std::optional<ShapeExpr> ManifestParser::parseExpr(const JsonValue &value,
                                                   const std::string &pointer) {
  if (value.isInteger())
    return ShapeExpr::constant(value.getInteger());
  auto text = r.string(value, pointer);
  if (!text)
    return std::nullopt;
  std::string error;
  size_t offset = 0;
  auto expr = ShapeExpr::parse(
      *text,
      [&](llvm::StringRef name) -> std::optional<SymbolRef> {
        for (size_t s = 0; s < m.contract.symbols.size(); ++s)
          if (m.contract.symbols[s].name == name)
            return SymbolRef{uint32_t(s), m.contract.symbols[s].multipleOf};
        return std::nullopt;
      },
      error, offset);
  if (!expr)
    r.error(value, pointer,
            "'" + *text +
                "' is not a dimension expression over the "
                "manifest's symbols: " +
                error);
  return expr;
}

void ManifestParser::parseTensors(const JsonValue &list,
                                  const std::string &pointer, bool outputs) {
  if (!r.isArray(list, pointer))
    return;
  auto &tensors = outputs ? m.contract.outputs : m.contract.inputs;
  for (size_t i = 0; i < list.items().size(); ++i) {
    const JsonValue &item = list.items()[i];
    std::string at = appendPointer(pointer, i);
    ContractTensor tensor;
    int64_t maxBytes = 0;
    if (r.isObject(item, at)) {
      if (auto name = r.stringAt(item, at, "name")) {
        if (!isValidIdentifier(*name))
          r.error(*item.find("name"), appendPointer(at, "name"),
                  "'" + *name + "' is not a tensor name");
        tensor.name = *name;
      }
      if (auto index = r.integerAt(item, at, "index");
          index && *index != int64_t(i))
        r.error(*item.find("index"), appendPointer(at, "index"),
                "index " + llvm::Twine(*index) + " of the tensor at position " +
                    llvm::Twine(i));
      if (auto dtype = r.stringAt(item, at, "dtype")) {
        if (auto parsed = parseDType(*dtype))
          tensor.type.dtype = *parsed;
        else
          r.error(*item.find("dtype"), appendPointer(at, "dtype"),
                  "unknown dtype '" + *dtype + "'");
      }
      if (auto code = r.integerAt(item, at, "dtype_code");
          code && *code != int64_t(tensor.type.dtype))
        r.error(*item.find("dtype_code"), appendPointer(at, "dtype_code"),
                "dtype_code " + llvm::Twine(*code) + " is not the code of " +
                    dtypeName(tensor.type.dtype));
      if (const JsonValue *shape = r.required(item, at, "shape")) {
        std::string shapeAt = appendPointer(at, "shape");
        if (r.isArray(*shape, shapeAt)) {
          if (shape->items().size() > ProgramLimits::kMaxRank)
            r.error(*shape, shapeAt,
                    "rank " + llvm::Twine(shape->items().size()) +
                        " is over the limit of " +
                        llvm::Twine(ProgramLimits::kMaxRank));
          for (size_t d = 0; d < shape->items().size(); ++d) {
            const JsonValue &dim = shape->items()[d];
            std::string dimAt = appendPointer(shapeAt, d);
            if (dim.isInteger() && dim.getInteger() < 0)
              r.error(dim, dimAt, "a dimension cannot be negative");
            if (auto expr = parseExpr(dim, dimAt))
              tensor.type.shape.push_back(std::move(*expr));
          }
        }
      }
      if (outputs) {
        if (auto value = r.stringAt(item, at, "value"))
          tensor.value = *value;
        if (auto bytes = r.integerAt(item, at, "max_bytes"))
          maxBytes = *bytes;
      }
      tensor.loc = parseLocation(item, at);
    }
    tensors.push_back(std::move(tensor));
    if (outputs)
      m.outputMaxBytes.push_back(maxBytes);
  }
}

bool ManifestParser::parseOperands(const JsonValue &operands,
                                   const std::string &pointer, Guard &g) {
  if (!r.isObject(operands, pointer))
    return false;
  auto integer = [&](llvm::StringRef key) {
    return r.integerAt(operands, pointer, key);
  };
  auto expr = [&](llvm::StringRef key) -> std::optional<ShapeExpr> {
    const JsonValue *value = r.required(operands, pointer, key);
    return value ? parseExpr(*value, appendPointer(pointer, key))
                 : std::nullopt;
  };
  std::optional<int64_t> value;
  switch (g.kind) {
  case GuardKind::InputCount:
  case GuardKind::OutputCount:
    value = integer("count");
    break;
  case GuardKind::DType:
    value = integer("dtype_code");
    break;
  case GuardKind::Rank:
    value = integer("rank");
    break;
  case GuardKind::StaticDim:
    value = integer("value");
    break;
  case GuardKind::SymbolForm:
  case GuardKind::SymbolRange: {
    value = integer("coefficient");
    auto rest = expr("rest");
    if (!rest)
      return false;
    g.expr = std::move(*rest);
    if (value && *value == 0) {
      r.error(operands, pointer, "a coefficient of 0 determines no symbol");
      return false;
    }
    break;
  }
  case GuardKind::SymbolValues:
    if (const JsonValue *values = r.required(operands, pointer, "values"))
      g.values = parseValues(*values, appendPointer(pointer, "values"),
                             std::nullopt);
    return !g.values.empty();
  case GuardKind::SymbolMultiple:
    value = integer("multiple_of");
    if (value && *value < 1) {
      r.error(operands, pointer, "multiple_of must be at least 1");
      return false;
    }
    break;
  case GuardKind::DimEquals:
  case GuardKind::BufferSize:
  case GuardKind::IndexInRange: {
    auto e = expr(g.kind == GuardKind::DimEquals    ? "expected"
                  : g.kind == GuardKind::BufferSize ? "bytes"
                                                    : "bound");
    if (!e)
      return false;
    g.expr = std::move(*e);
    if (const JsonValue *wrap = operands.find("wraps_negative");
        wrap && g.kind == GuardKind::IndexInRange) {
      std::optional<bool> wraps =
          r.boolean(*wrap, appendPointer(pointer, "wraps_negative"));
      if (!wraps)
        return false;
      g.wrapsNegative = *wraps;
    }
    if (const JsonValue *entry = operands.find("column");
        entry && g.kind == GuardKind::IndexInRange) {
      std::string at = appendPointer(pointer, "column");
      std::optional<int64_t> column = r.integer(*entry, at);
      if (!column)
        return false;
      // An entry of index tuples, which are at most as long as a rank.
      if (*column < 0 || *column >= int64_t(ProgramLimits::kMaxRank)) {
        r.error(*entry, at,
                "column must be in [0, " +
                    std::to_string(ProgramLimits::kMaxRank - 1) + "]");
        return false;
      }
      g.column = int32_t(*column);
    }
    return true;
  }
  case GuardKind::InputsArray:
  case GuardKind::OutputsArray:
  case GuardKind::DataPointer:
  case GuardKind::NoAlias:
    return true;
  }
  if (!value)
    return false;
  g.value = *value;
  return true;
}

bool ManifestParser::parseGuard(const JsonValue &item, const std::string &at,
                                size_t index) {
  Guard g;
  g.id = uint32_t(index);
  if (!r.isObject(item, at))
    return false;
  auto fail = [&](const llvm::Twine &message) {
    r.error(item, at, "guard " + llvm::Twine(index) + ": " + message);
    return false;
  };
  auto id = r.integerAt(item, at, "id");
  auto kindName = r.stringAt(item, at, "kind");
  auto code = r.integerAt(item, at, "code");
  auto expression = r.stringAt(item, at, "expression");
  auto message = r.stringAt(item, at, "message");
  if (!id || !kindName || !code || !expression || !message)
    return false;
  if (*id != int64_t(index))
    return fail("its id is " + llvm::Twine(*id) +
                "; guard ids are their positions in the list");
  auto kind = parseGuardKind(*kindName);
  if (!kind)
    return fail("unknown kind '" + *kindName + "'");
  g.kind = *kind;
  g.code = statusCodeOfGuardKind(*kind);
  if (*code != int64_t(g.code))
    return fail("a " + *kindName + " guard returns code " +
                llvm::Twine(int(g.code)) + ", not " + llvm::Twine(*code));
  g.expression = *expression;
  g.message = *message;

  // A data-dependent guard is about a node's values: it names the input
  // tensor only when the values are an input's.
  bool needsTensor =
      g.kind != GuardKind::InputCount && g.kind != GuardKind::OutputCount &&
      g.kind != GuardKind::InputsArray && g.kind != GuardKind::OutputsArray &&
      !isDataDependent(g.kind);
  bool mayNameTensor = needsTensor || isDataDependent(g.kind);
  bool inputOnly =
      g.kind == GuardKind::DType || g.kind == GuardKind::Rank ||
      g.kind == GuardKind::StaticDim || g.kind == GuardKind::SymbolForm ||
      g.kind == GuardKind::SymbolRange || g.kind == GuardKind::SymbolMultiple ||
      g.kind == GuardKind::SymbolValues || g.kind == GuardKind::DimEquals ||
      isDataDependent(g.kind);
  bool needsDim =
      g.kind == GuardKind::StaticDim || g.kind == GuardKind::SymbolForm ||
      g.kind == GuardKind::SymbolRange || g.kind == GuardKind::SymbolMultiple ||
      g.kind == GuardKind::SymbolValues || g.kind == GuardKind::DimEquals;
  bool needsSymbol = g.kind == GuardKind::SymbolForm ||
                     g.kind == GuardKind::SymbolRange ||
                     g.kind == GuardKind::SymbolMultiple ||
                     g.kind == GuardKind::SymbolValues;

  const JsonValue *tensor = item.find("tensor");
  if (needsTensor && !tensor)
    return fail("it names no tensor");
  if (!mayNameTensor && tensor)
    return fail("a " + *kindName + " guard names no tensor");
  if (tensor) {
    std::string tat = appendPointer(at, "tensor");
    if (!r.isObject(*tensor, tat))
      return false;
    auto side = r.stringAt(*tensor, tat, "side");
    auto tindex = r.integerAt(*tensor, tat, "index");
    auto name = r.stringAt(*tensor, tat, "name");
    if (!side || !tindex || !name)
      return false;
    if (*side != "input" && *side != "output")
      return fail("tensor side '" + *side + "' is neither input nor output");
    g.side = *side == "input" ? TensorSide::Input : TensorSide::Output;
    const auto &tensors =
        g.side == TensorSide::Input ? m.contract.inputs : m.contract.outputs;
    if (*tindex < 0 || size_t(*tindex) >= tensors.size())
      return fail("there is no " + *side + " " + llvm::Twine(*tindex));
    g.tensor = int32_t(*tindex);
    if (tensors[g.tensor].name != *name)
      return fail(*side + " " + llvm::Twine(*tindex) + " is '" +
                  tensors[g.tensor].name + "', not '" + *name + "'");
    if (inputOnly && g.side != TensorSide::Input)
      return fail("a " + *kindName + " guard is about an input");
    if (g.kind == GuardKind::NoAlias && g.side != TensorSide::Output)
      return fail("a no_alias guard is about an output");
  }
  if (isDataDependent(g.kind)) {
    auto node = r.stringAt(item, at, "node");
    if (!node)
      return false;
    g.node = *node;
  }
  const JsonValue *dim = item.find("dim");
  if (needsDim != (dim != nullptr))
    return fail(needsDim ? "it names no dimension"
                         : "a " + *kindName + " guard names no dimension");
  if (dim) {
    auto d = r.integer(*dim, appendPointer(at, "dim"));
    if (!d)
      return false;
    const TensorType &type = m.contract.inputs[g.tensor].type;
    if (*d < 0 || size_t(*d) >= type.rank())
      return fail("input '" + m.contract.inputs[g.tensor].name +
                  "' has no dimension " + llvm::Twine(*d));
    if (!rankChecked[g.tensor])
      return fail("dimension " + llvm::Twine(*d) + " of '" +
                  m.contract.inputs[g.tensor].name +
                  "' is checked before its rank");
    g.dim = int32_t(*d);
  }
  const JsonValue *symbol = item.find("symbol");
  if (needsSymbol != (symbol != nullptr))
    return fail(needsSymbol ? "it names no symbol"
                            : "a " + *kindName + " guard names no symbol");
  if (symbol) {
    auto name = r.string(*symbol, appendPointer(at, "symbol"));
    if (!name)
      return false;
    for (size_t s = 0; s < m.contract.symbols.size(); ++s)
      if (m.contract.symbols[s].name == *name)
        g.symbol = int32_t(s);
    if (g.symbol < 0)
      return fail("unknown symbol '" + *name + "'");
  }
  const JsonValue *operands = r.required(item, at, "operands");
  if (!operands || !parseOperands(*operands, appendPointer(at, "operands"), g))
    return false;

  // The operands must say what the tensors and symbols say.
  auto operandsDisagree = [&](const llvm::Twine &what) {
    return fail("its operands disagree with " + what);
  };
  switch (g.kind) {
  case GuardKind::InputCount:
    if (g.value != int64_t(m.contract.inputs.size()))
      return operandsDisagree("the number of inputs");
    break;
  case GuardKind::OutputCount:
    if (g.value != int64_t(m.contract.outputs.size()))
      return operandsDisagree("the number of outputs");
    break;
  case GuardKind::DType:
    if (g.value != int64_t(m.contract.inputs[g.tensor].type.dtype))
      return operandsDisagree("the input's dtype");
    break;
  case GuardKind::Rank:
    if (g.value != int64_t(m.contract.inputs[g.tensor].type.rank()))
      return operandsDisagree("the input's shape");
    rankChecked[g.tensor] = size_t(g.value);
    break;
  case GuardKind::StaticDim:
    if (m.contract.inputs[g.tensor].type.shape[g.dim].getConstant() != g.value)
      return operandsDisagree("the input's shape");
    break;
  case GuardKind::SymbolForm:
  case GuardKind::SymbolRange: {
    auto form = m.contract.inputs[g.tensor].type.shape[g.dim].linearIn(
        uint32_t(g.symbol));
    if (!form || form->coeff != g.value || form->rest != g.expr)
      return operandsDisagree("the input's shape");
    break;
  }
  case GuardKind::SymbolMultiple:
    if (g.value != m.contract.symbols[g.symbol].multipleOf)
      return operandsDisagree("the symbol's multiple_of");
    break;
  case GuardKind::SymbolValues:
    if (g.values != m.contract.symbols[g.symbol].values)
      return operandsDisagree("the symbol's values");
    break;
  case GuardKind::DimEquals:
    if (m.contract.inputs[g.tensor].type.shape[g.dim] != g.expr)
      return operandsDisagree("the input's shape");
    break;
  default:
    break;
  }
  g.origin = parseLocation(item, at);
  m.contract.guards.push_back(std::move(g));
  return true;
}

void ManifestParser::parseGuards(const JsonValue &list,
                                 const std::string &pointer) {
  if (!r.isArray(list, pointer))
    return;
  rankChecked.assign(m.contract.inputs.size(), std::nullopt);
  for (size_t i = 0; i < list.items().size(); ++i) {
    std::string at = appendPointer(pointer, i);
    // Each path that rejects a guard reports why; were one to forget, the
    // manifest would be read without the guard, so say it here.
    unsigned errorsBefore = r.errorCount();
    if (!parseGuard(list.items()[i], at, i) && r.errorCount() == errorsBefore)
      r.error(list.items()[i], at, "this guard could not be read");
  }
}

std::optional<SymbolBinding>
ManifestParser::parseBinding(const JsonMember &member,
                             const std::string &pointer) {
  std::string at = appendPointer(pointer, member.key);
  std::optional<int64_t> value = r.integer(member.value, at);
  auto symbol =
      llvm::find_if(m.contract.symbols, [&](const ContractSymbol &s) {
        return s.name == member.key;
      });
  if (symbol == m.contract.symbols.end()) {
    r.error(member.value, at,
            "the variant binds '" + member.key +
                "', which is not among the manifest's symbols");
    return std::nullopt;
  }
  if (!value)
    return std::nullopt;
  if (*value < symbol->min || *value > symbol->max ||
      *value % symbol->multipleOf != 0) {
    r.error(member.value, at,
            "the variant binds " + member.key + " to " + llvm::Twine(*value) +
                ", outside its range or not a multiple of its multiple_of");
    return std::nullopt;
  }
  return SymbolBinding{uint32_t(symbol - m.contract.symbols.begin()), *value};
}

void ManifestParser::parseVariants(const JsonValue &list,
                                   const std::string &pointer) {
  if (!r.isArray(list, pointer))
    return;
  for (size_t i = 0; i < list.items().size(); ++i) {
    const JsonValue &item = list.items()[i];
    std::string at = appendPointer(pointer, i);
    if (!r.isObject(item, at))
      continue;
    ContractVariant variant;
    variant.id = int32_t(i + 1);
    if (auto id = r.integerAt(item, at, "id"); id && *id != variant.id)
      r.error(*item.find("id"), appendPointer(at, "id"),
              "variant " + llvm::Twine(i) + " must have the id " +
                  llvm::Twine(variant.id));
    const JsonValue *bindings = r.required(item, at, "bindings");
    std::string bindingsAt = appendPointer(at, "bindings");
    if (!bindings || !r.isObject(*bindings, bindingsAt))
      continue;
    for (const JsonMember &member : bindings->members())
      if (auto binding = parseBinding(member, bindingsAt))
        variant.bindings.push_back(*binding);
    llvm::sort(variant.bindings,
               [](const SymbolBinding &a, const SymbolBinding &b) {
                 return a.symbol < b.symbol;
               });
    m.contract.variants.push_back(std::move(variant));
  }
}

bool ManifestParser::parse() {
  const JsonValue &root = *m.root;
  if (!parseHeader(root))
    return false;
  parseProgramFacts(root);
  if (const JsonValue *symbols = r.required(root, "", "symbols"))
    parseSymbols(*symbols, "/symbols");
  // Shapes and guards name symbols: stop if they could not be read.
  if (r.failed())
    return false;
  if (const JsonValue *inputs = r.required(root, "", "inputs"))
    parseTensors(*inputs, "/inputs", false);
  if (const JsonValue *outputs = r.required(root, "", "outputs"))
    parseTensors(*outputs, "/outputs", true);
  if (r.failed())
    return false;
  if (const JsonValue *guards = r.required(root, "", "guards"))
    parseGuards(*guards, "/guards");
  if (const JsonValue *variants = root.find("variants"))
    parseVariants(*variants, "/variants");
  return !r.failed();
}

std::unique_ptr<Manifest>
txc::readManifest(std::shared_ptr<const SourceFile> file,
                  DiagnosticEngine &diags) {
  auto manifest = std::make_unique<Manifest>();
  manifest->source = file;
  unsigned errorsBefore = diags.errorCount();
  manifest->root = parseJson(*file, diags, ProgramLimits::kMaxJsonDepth);
  if (!manifest->root || diags.errorCount() != errorsBefore)
    return nullptr;
  ManifestParser parser(*manifest, diags);
  if (!parser.parse())
    return nullptr;
  return manifest;
}

std::unique_ptr<Manifest> txc::readManifestFile(llvm::StringRef path,
                                                DiagnosticEngine &diags) {
  auto file = SourceFile::read(path, ProgramLimits::kMaxFileBytes);
  if (!file) {
    std::string name = inputDisplayName(path).str();
    diags.error(DiagCategory::IO, "io-read", name, Loc(),
                "cannot read manifest file '" + name +
                    "': " + takeInputError(file.takeError()).reason);
    return nullptr;
  }
  diags.addSourceFile(*file);
  return readManifest(*file, diags);
}
