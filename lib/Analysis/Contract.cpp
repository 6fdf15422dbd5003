//===- Contract.cpp - Guards from a verified program, and their meaning ---===//
#include "txc/Analysis/Contract.h"
#include "txc/Analysis/ShapeOpAttrs.h"
#include "txc/Analysis/Specialization.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"

using namespace txc;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

llvm::StringRef txc::guardKindName(GuardKind kind) {
  switch (kind) {
  case GuardKind::InputCount: return "input_count";
  case GuardKind::OutputCount: return "output_count";
  case GuardKind::InputsArray: return "inputs_array";
  case GuardKind::OutputsArray: return "outputs_array";
  case GuardKind::DataPointer: return "data_pointer";
  case GuardKind::DType: return "dtype";
  case GuardKind::Rank: return "rank";
  case GuardKind::StaticDim: return "static_dim";
  case GuardKind::SymbolForm: return "symbol_form";
  case GuardKind::SymbolRange: return "symbol_range";
  case GuardKind::SymbolMultiple: return "symbol_multiple";
  case GuardKind::SymbolValues: return "symbol_values";
  case GuardKind::DimEquals: return "dim_equals";
  case GuardKind::BufferSize: return "buffer_size";
  case GuardKind::NoAlias: return "no_alias";
  case GuardKind::IndexInRange: return "index_in_range";
  }
  llvm_unreachable("unknown guard kind");
}

std::string txc::valuesText(llvm::ArrayRef<int64_t> values) {
  std::string text = "{";
  for (auto [i, value] : llvm::enumerate(values))
    text += (i ? ", " : "") + std::to_string(value);
  return text + "}";
}

std::vector<std::string> Contract::symbolNames() const {
  std::vector<std::string> names;
  for (const ContractSymbol &symbol : symbols)
    names.push_back(symbol.name);
  return names;
}

static int64_t maxBytesOf(const TensorType &type,
                          const std::vector<ContractSymbol> &symbols) {
  std::vector<Interval> ranges;
  for (const ContractSymbol &symbol : symbols)
    ranges.push_back({symbol.min, symbol.max});
  int64_t bytes = dtypeSize(type.dtype);
  for (const ShapeExpr &dim : type.shape)
    bytes *= dim.bounds(ranges).max; // bounded by the verifier's size limit
  return bytes;
}

int64_t Contract::maxOutputBytes(size_t output) const {
  return maxBytesOf(outputs[output].type, symbols);
}

//===----------------------------------------------------------------------===//
// Building the guard list
//===----------------------------------------------------------------------===//

namespace {
class ContractBuilder {
public:
  ContractBuilder(const Program &program, Contract &contract,
                  DiagnosticEngine &diags)
      : program(program), contract(contract), diags(diags),
        names(program.symbolNames()), bound(program.symbols.size(), false) {}

  bool build();

private:
  Guard &add(GuardKind kind, StatusCode code, const Loc &origin) {
    Guard guard;
    guard.id = uint32_t(contract.guards.size());
    guard.kind = kind;
    guard.code = code;
    guard.origin = origin;
    contract.guards.push_back(std::move(guard));
    return contract.guards.back();
  }
  Guard &addTensorGuard(GuardKind kind, StatusCode code, TensorSide side,
                        size_t tensor, const Loc &origin) {
    Guard &guard = add(kind, code, origin);
    guard.side = side;
    guard.tensor = int32_t(tensor);
    return guard;
  }
  std::string str(const ShapeExpr &expr) const { return expr.toString(names); }

  /// Adds the guards of one input dimension if its symbols allow it now.
  bool tryDim(size_t input, size_t dim);
  /// Reports tensors whose C header macros would clash with another's.
  bool checkHeaderNames(TensorSide side);
  void addBufferSize(TensorSide side, size_t index, const ContractTensor &t);
  /// The IndexInRange guards of the indexing nodes of `graph` and of its
  /// nested graphs, in program order. `types` maps value names in scope to
  /// their types.
  void addIndexGuards(const Graph &graph, llvm::StringMap<TensorType> &types);
  /// One IndexInRange guard per data dim the node indexes along, in
  /// resolveIndexedDims' order.
  void addIndexGuards(const Node &node, const TensorType &data,
                      const TensorType &indices);
  void addIndexGuard(const Node &node, const ShapeExpr &dim,
                     std::optional<unsigned> column);

  const Program &program;
  Contract &contract;
  DiagnosticEngine &diags;
  std::vector<std::string> names;
  std::vector<bool> bound;
};
} // namespace

/// "input 'X' dimension 1" / "output 'Y'".
static std::string describeDim(TensorSide side, const std::string &name,
                               int dim) {
  std::string text = (side == TensorSide::Input ? "input '" : "output '") +
                     name + "'";
  if (dim >= 0)
    text += " dimension " + std::to_string(dim);
  return text;
}

bool ContractBuilder::tryDim(size_t input, size_t dim) {
  const ContractTensor &tensor = contract.inputs[input];
  const ShapeExpr &expr = tensor.type.shape[dim];
  const ValueDecl &decl = program.inputs[input];
  Loc origin = dim < decl.dimLocs.size() ? decl.dimLocs[dim] : decl.loc;
  std::string ref = tensor.name + ".shape[" + std::to_string(dim) + "]";
  std::string where = describeDim(TensorSide::Input, tensor.name, int(dim));

  if (auto value = expr.getConstant()) {
    Guard &g = addTensorGuard(GuardKind::StaticDim, StatusCode::Dim,
                              TensorSide::Input, input, origin);
    g.dim = int32_t(dim);
    g.value = *value;
    g.expression = ref + " == " + std::to_string(*value);
    g.message = where + " must be {expected_min}, got {actual}";
    return true;
  }

  llvm::SmallVector<uint32_t, 4> unbound;
  for (uint32_t id : expr.symbols())
    if (!bound[id])
      unbound.push_back(id);

  if (unbound.empty()) {
    Guard &g = addTensorGuard(GuardKind::DimEquals, StatusCode::SymbolMismatch,
                              TensorSide::Input, input, origin);
    g.dim = int32_t(dim);
    g.expr = expr;
    g.expression = ref + " == " + str(expr);
    g.message = where + " must equal " + str(expr) +
                " = {expected_min} (from the symbols' values), got {actual}";
    return true;
  }
  if (unbound.size() > 1)
    return false;
  uint32_t symbolId = unbound[0];
  auto linear = expr.linearIn(symbolId);
  if (!linear)
    return false;

  const ContractSymbol &symbol = contract.symbols[symbolId];
  bool plain = linear->coeff == 1 && linear->rest.isConstant() &&
               linear->rest.getConstant() == 0;
  std::string solved =
      plain ? ref
            : "(" + ref + (linear->rest.terms().empty()
                               ? std::string()
                               : " - (" + str(linear->rest) + ")") +
                  ")" +
                  (linear->coeff == 1
                       ? std::string()
                       : " / " + std::to_string(linear->coeff));
  if (std::abs(linear->coeff) > 1) {
    Guard &g = addTensorGuard(GuardKind::SymbolForm, StatusCode::Dim,
                              TensorSide::Input, input, origin);
    g.dim = int32_t(dim);
    g.symbol = int32_t(symbolId);
    g.value = linear->coeff;
    g.expr = linear->rest;
    g.expression = ref + " == " + str(expr) + " for an integer " + symbol.name;
    g.message = where + " must be " + str(expr) + " for an integer " +
                symbol.name + ", got {actual}";
  }
  {
    Guard &g = addTensorGuard(GuardKind::SymbolRange, StatusCode::SymbolRange,
                              TensorSide::Input, input, origin);
    g.dim = int32_t(dim);
    g.symbol = int32_t(symbolId);
    g.value = linear->coeff;
    g.expr = linear->rest;
    g.expression = std::to_string(symbol.min) + " <= " + symbol.name +
                   " <= " + std::to_string(symbol.max) + " where " +
                   symbol.name + " = " + solved;
    g.message = "symbol " + symbol.name + " (from " + where +
                ") must be in [{expected_min}, {expected_max}], got {actual}";
  }
  if (symbol.multipleOf > 1) {
    Guard &g =
        addTensorGuard(GuardKind::SymbolMultiple,
                       StatusCode::SymbolDivisibility, TensorSide::Input,
                       input, origin);
    g.dim = int32_t(dim);
    g.symbol = int32_t(symbolId);
    g.value = symbol.multipleOf;
    g.expression = symbol.name + " % " + std::to_string(symbol.multipleOf) +
                   " == 0";
    g.message = "symbol " + symbol.name + " (from " + where +
                ") must be a multiple of {expected_min}, got {actual}";
  }
  if (!symbol.values.empty()) {
    // After the range and the multiple: a value those reject is reported
    // by them, as without a set.
    Guard &g = addTensorGuard(GuardKind::SymbolValues, StatusCode::SymbolRange,
                              TensorSide::Input, input, origin);
    g.dim = int32_t(dim);
    g.symbol = int32_t(symbolId);
    g.values = symbol.values;
    // Without braces: messages and expressions are templates whose
    // placeholders are in braces.
    std::string list = valuesText(symbol.values);
    list = list.substr(1, list.size() - 2);
    g.expression = symbol.name + " in (" + list + ")";
    g.message = "symbol " + symbol.name + " (from " + where +
                ") must be one of " + list + ", got {actual}";
  }
  bound[symbolId] = true;
  return true;
}

bool ContractBuilder::checkHeaderNames(TensorSide side) {
  // The header defines <P>_INPUT_<name> (the index) and adds _DTYPE, _RANK
  // and, for outputs, _MAX_BYTES; a tensor named like one of those would
  // redefine a macro with another value.
  struct Suffix {
    llvm::StringLiteral text;
    llvm::StringLiteral what;
  };
  static constexpr Suffix kSuffixes[] = {{"_DTYPE", "dtype"},
                                         {"_RANK", "rank"},
                                         {"_MAX_BYTES", "maximum size"}};
  bool isInput = side == TensorSide::Input;
  const std::vector<ContractTensor> &tensors =
      isInput ? contract.inputs : contract.outputs;
  llvm::StringRef sideName = isInput ? "input" : "output";
  std::string base = llvm::StringRef(contract.entryPrefix).upper() +
                     (isInput ? "_INPUT_" : "_OUTPUT_");
  llvm::StringSet<> names;
  for (const ContractTensor &tensor : tensors)
    names.insert(tensor.name);
  bool ok = true;
  for (const ContractTensor &tensor : tensors)
    for (const Suffix &suffix : kSuffixes) {
      llvm::StringRef name = tensor.name;
      if ((isInput && suffix.text == "_MAX_BYTES") ||
          !name.ends_with(suffix.text) ||
          !names.contains(name.drop_back(suffix.text.size())))
        continue;
      diags.error(DiagCategory::Invalid, "header-name-clash", program.file,
                  tensor.loc,
                  "the C header would define " + base + name + " both for " +
                      sideName + " '" + name + "' and for the " +
                      suffix.what + " of " + sideName + " '" +
                      name.drop_back(suffix.text.size()) +
                      "'; rename one of them");
      ok = false;
    }
  return ok;
}

void ContractBuilder::addBufferSize(TensorSide side, size_t index,
                                    const ContractTensor &tensor) {
  ShapeExpr bytes = ShapeExpr::constant(dtypeSize(tensor.type.dtype));
  for (const ShapeExpr &dim : tensor.type.shape)
    bytes = *ShapeExpr::mul(bytes, dim); // bounded by the verifier's limits
  Guard &g = addTensorGuard(GuardKind::BufferSize, StatusCode::BufferTooSmall,
                            side, index, tensor.loc);
  g.expr = bytes;
  g.expression = tensor.name + ".size_bytes >= " + str(bytes);
  g.message = describeDim(side, tensor.name, -1) +
              " needs {expected_min} bytes, but its size_bytes is {actual}";
}

void ContractBuilder::addIndexGuards(const Graph &graph,
                                     llvm::StringMap<TensorType> &types) {
  for (const ValueDecl &input : graph.inputs)
    types[input.name] = input.type;
  for (const Node &node : graph.nodes) {
    for (const auto &region : node.regions)
      addIndexGuards(*region.second, types);
    if (hasIndexOperand(node.kind) && node.operands.size() >= 2)
      addIndexGuards(node, types.lookup(node.operands[0]),
                     types.lookup(node.operands[1]));
    for (size_t i = 0; i < node.resultTypes.size(); ++i)
      types[i == 0 ? node.name : node.name + ":" + std::to_string(i)] =
          node.resultTypes[i];
  }
}

void ContractBuilder::addIndexGuards(const Node &node, const TensorType &data,
                                     const TensorType &indices) {
  InferenceContext ctx(program, node, {data, indices});
  for (const IndexedDataDim &indexed :
       resolveIndexedDims(ctx).value_or(std::vector<IndexedDataDim>()))
    addIndexGuard(node, data.shape[indexed.dataDim], indexed.column);
}

void ContractBuilder::addIndexGuard(const Node &node, const ShapeExpr &dim,
                                    std::optional<unsigned> column) {
  const std::string &operand = node.operands[1];
  // Name the tensor in the status when the indices are a program input.
  auto input = llvm::find_if(contract.inputs, [&](const ContractTensor &t) {
    return t.name == operand;
  });
  Guard &g = add(GuardKind::IndexInRange, StatusCode::IndexOutOfRange,
                 node.loc);
  if (input != contract.inputs.end()) {
    g.side = TensorSide::Input;
    g.tensor = int32_t(input - contract.inputs.begin());
  }
  g.expr = dim;
  g.node = node.name;
  g.wrapsNegative = indicesWrapNegative(node);
  // A tuple entry's indices: "idx[..., 1]".
  std::string indices = operand + "[*]";
  if (column) {
    g.column = int32_t(*column);
    indices = operand + "[..., " + std::to_string(*column) + "]";
  }
  g.expression =
      str(lowestValidIndex(g)) + " <= " + indices + " < " + str(g.expr);
  g.message = "index {actual} in '" + operand + "'" +
              (column ? "[..., " + std::to_string(*column) + "]" : "") +
              " (operand 1 of '" + getOpInfo(node.kind).name.str() +
              "' node '" + node.name +
              "') is out of range [{expected_min}, {expected_max}]";
}

bool ContractBuilder::build() {
  for (const Symbol &symbol : program.symbols)
    contract.symbols.push_back(
        {symbol.name, symbol.min, symbol.max, symbol.multipleOf, symbol.loc,
         symbol.values});
  for (const ValueDecl &input : program.inputs)
    contract.inputs.push_back({input.name, input.type, input.loc, ""});
  for (const OutputDecl &output : program.body.outputs)
    contract.outputs.push_back(
        {output.name, output.type, output.loc, output.value});

  size_t numInputs = contract.inputs.size();
  size_t numOutputs = contract.outputs.size();
  Loc programLoc = program.nameLoc;
  bool namesOk = checkHeaderNames(TensorSide::Input);
  namesOk &= checkHeaderNames(TensorSide::Output);
  {
    Guard &g = add(GuardKind::InputCount, StatusCode::ArgCount, programLoc);
    g.value = int64_t(numInputs);
    g.expression = "num_inputs == " + std::to_string(numInputs);
    g.message = "expected {expected_min} inputs, got {actual}";
  }
  {
    Guard &g = add(GuardKind::OutputCount, StatusCode::ArgCount, programLoc);
    g.value = int64_t(numOutputs);
    g.expression = "num_outputs == " + std::to_string(numOutputs);
    g.message = "expected {expected_min} outputs, got {actual}";
  }
  if (numInputs) {
    Guard &g = add(GuardKind::InputsArray, StatusCode::NullPointer, programLoc);
    g.expression = "inputs != NULL";
    g.message = "the inputs array is NULL";
  }
  {
    Guard &g = add(GuardKind::OutputsArray, StatusCode::NullPointer, programLoc);
    g.expression = "outputs != NULL";
    g.message = "the outputs array is NULL";
  }

  // Dims are checked in order; a dim whose expression needs a symbol that a
  // later dim defines waits for a second pass.
  std::vector<std::vector<bool>> done(numInputs);
  bool progress = true, first = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < numInputs; ++i) {
      const ContractTensor &tensor = contract.inputs[i];
      if (first) {
        const ValueDecl &decl = program.inputs[i];
        Guard &data = addTensorGuard(GuardKind::DataPointer,
                                     StatusCode::NullPointer,
                                     TensorSide::Input, i, decl.loc);
        data.expression = tensor.name + ".data != NULL";
        data.message = "input '" + tensor.name + "' has a NULL data pointer";
        Guard &dtype = addTensorGuard(GuardKind::DType, StatusCode::DType,
                                      TensorSide::Input, i, decl.dtypeLoc);
        dtype.value = int64_t(tensor.type.dtype);
        dtype.expression =
            tensor.name + ".dtype == " + dtypeName(tensor.type.dtype).str();
        dtype.message = "input '" + tensor.name + "' must have dtype " +
                        dtypeName(tensor.type.dtype).str() +
                        ", got {actual_dtype}";
        Guard &rank = addTensorGuard(GuardKind::Rank, StatusCode::Rank,
                                     TensorSide::Input, i, decl.shapeLoc);
        rank.value = int64_t(tensor.type.rank());
        rank.expression =
            tensor.name + ".rank == " + std::to_string(tensor.type.rank());
        rank.message = "input '" + tensor.name +
                       "' must have rank {expected_min}, got {actual}";
        done[i].assign(tensor.type.rank(), false);
      }
      for (size_t d = 0; d < tensor.type.rank(); ++d) {
        if (done[i][d])
          continue;
        if (tryDim(i, d)) {
          done[i][d] = true;
          progress = true;
        }
      }
    }
    first = false;
  }

  bool ok = true;
  // Symbols already reported as undetermined, so that the nodes using them
  // do not repeat the error.
  std::vector<bool> reported(program.symbols.size(), false);
  for (size_t i = 0; i < numInputs; ++i)
    for (size_t d = 0; d < done[i].size(); ++d)
      if (!done[i][d]) {
        const ValueDecl &decl = program.inputs[i];
        llvm::SmallVector<uint32_t, 4> unbound;
        for (uint32_t id : decl.type.shape[d].symbols())
          if (!bound[id])
            unbound.push_back(id);
        std::string list;
        for (size_t k = 0; k < unbound.size(); ++k) {
          if (k)
            list += k + 1 == unbound.size() ? " and " : ", ";
          list += names[unbound[k]];
          reported[unbound[k]] = true;
        }
        diags.error(DiagCategory::Invalid, "undetermined-symbol", program.file,
                    d < decl.dimLocs.size() ? decl.dimLocs[d] : decl.loc,
                    "dimension " + std::to_string(d) + " of input '" +
                        decl.name + "' is " + str(decl.type.shape[d]) +
                        ", but no input dimension determines " +
                        (unbound.size() == 1 ? "symbol " : "symbols ") + list +
                        "; give one input a dimension that is a single "
                        "symbol (or a*S+b)" +
                        (decl.type.shape[d].hasDivision()
                             ? std::string("; a dimension with '/', '//' or "
                                           "'%' does not determine symbols")
                             : std::string()));
        ok = false;
      }
  // Every symbol an output or a node uses must be known at run time.
  auto checkBound = [&](const TensorType &type, const Loc &loc,
                        const std::string &what) {
    for (const ShapeExpr &dim : type.shape)
      for (uint32_t id : dim.symbols())
        if (!bound[id] && !reported[id]) {
          diags.error(DiagCategory::Invalid, "undetermined-symbol",
                      program.file, loc,
                      what + " uses symbol '" + names[id] +
                          "', which no input shape determines");
          return false;
        }
    return true;
  };
  for (const Node &node : program.body.nodes)
    for (const TensorType &type : node.resultTypes)
      ok &= checkBound(type, node.loc, "node '" + node.name + "'");
  if (!ok || !namesOk)
    return false;

  for (size_t i = 0; i < numInputs; ++i)
    addBufferSize(TensorSide::Input, i, contract.inputs[i]);
  for (size_t o = 0; o < numOutputs; ++o) {
    const ContractTensor &tensor = contract.outputs[o];
    Guard &data = addTensorGuard(GuardKind::DataPointer,
                                 StatusCode::NullPointer, TensorSide::Output,
                                 o, tensor.loc);
    data.expression = tensor.name + ".data != NULL";
    data.message = "output '" + tensor.name + "' has a NULL data pointer";
    addBufferSize(TensorSide::Output, o, tensor);
  }
  for (size_t o = 0; o < numOutputs; ++o) {
    const ContractTensor &tensor = contract.outputs[o];
    Guard &g = addTensorGuard(GuardKind::NoAlias, StatusCode::Alias,
                              TensorSide::Output, o, tensor.loc);
    g.expression = tensor.name + " overlaps no input" +
                   (o ? std::string(" and no earlier output") : "");
    g.message = "output '" + tensor.name +
                "' overlaps {other}; outputs must not share memory with "
                "inputs or other outputs";
  }
  // Checked by the kernel while it computes, so they come last: a call
  // reports them only when every descriptor guard passed.
  llvm::StringMap<TensorType> types;
  for (const ValueDecl &input : program.inputs)
    types[input.name] = input.type;
  for (const ConstantDecl &constant : program.constants)
    types[constant.name] = constant.type;
  addIndexGuards(program.body, types);
  return true;
}

std::optional<Contract> txc::buildContract(const Program &program,
                                           llvm::StringRef entryPrefix,
                                           DiagnosticEngine &diags) {
  Contract contract;
  contract.programName = program.name;
  contract.entryPrefix = entryPrefix.empty() ? program.name : entryPrefix.str();
  ContractBuilder builder(program, contract, diags);
  if (!builder.build())
    return std::nullopt;
  return contract;
}

//===----------------------------------------------------------------------===//
// Evaluating the guards
//===----------------------------------------------------------------------===//

namespace {
int64_t clampToInt64(__int128 value) {
  if (value > INT64_MAX)
    return INT64_MAX;
  if (value < INT64_MIN)
    return INT64_MIN;
  return int64_t(value);
}

/// ShapeExpr::fold operations that compute the way the generated code does
/// (AbiEmitter.cpp): sums and products in two's complement arithmetic of the
/// width of `Unsigned` (wrapping, never trapping), divisions on int64
/// values (the verifier proved that their operands fit), so that the host
/// and the object agree bit for bit. Symbols never bound are 0.
template <typename Unsigned> struct WrappingOps {
  const std::vector<int64_t> &symbolValues;

  static Unsigned widen(int64_t value) { return Unsigned(__int128(value)); }
  static int64_t narrow(Unsigned value) { return int64_t(uint64_t(value)); }
  Unsigned constant(int64_t value) { return widen(value); }
  Unsigned symbol(uint32_t id) { return widen(symbolValues[id]); }
  Unsigned add(Unsigned a, Unsigned b) { return a + b; }
  Unsigned mul(Unsigned a, Unsigned b) { return a * b; }
  Unsigned exactDiv(Unsigned a, int64_t d) { return widen(narrow(a) / d); }
  Unsigned floorDiv(Unsigned a, int64_t d) {
    return widen(floorDivide(narrow(a), d));
  }
  Unsigned mod(Unsigned a, int64_t d) {
    return widen(floorModulo(narrow(a), d));
  }
};

template <typename Unsigned>
Unsigned evaluateWrapping(const ShapeExpr &expr,
                          const std::vector<int64_t> &symbolValues) {
  WrappingOps<Unsigned> ops{symbolValues};
  return expr.fold(ops);
}

int64_t evaluate64(const ShapeExpr &expr,
                   const std::vector<int64_t> &symbolValues) {
  return int64_t(evaluateWrapping<uint64_t>(expr, symbolValues));
}

__int128 evaluate128(const ShapeExpr &expr,
                     const std::vector<int64_t> &symbolValues) {
  return __int128(evaluateWrapping<unsigned __int128>(expr, symbolValues));
}

int64_t bytesOf(const ShapeExpr &bytesExpr,
                const std::vector<int64_t> &symbolValues) {
  return evaluate64(bytesExpr, symbolValues);
}
} // namespace

CallResult txc::evaluateGuards(const Contract &contract,
                               const std::vector<CallTensor> *inputs,
                               const std::vector<CallTensor> *outputs,
                               bool checkOutputs) {
  CallResult result;
  result.symbolValues.assign(contract.symbols.size(), 0);
  std::vector<int64_t> &symbols = result.symbolValues;
  // Byte sizes of the tensors, for the alias checks.
  std::vector<int64_t> inputBytes(contract.inputs.size(), 0);
  std::vector<int64_t> outputBytes(contract.outputs.size(), 0);

  auto fail = [&](const Guard &g, int64_t min, int64_t max, int64_t actual) {
    CallStatus &s = result.status;
    s.code = g.code;
    s.guard = int32_t(g.id);
    s.side = g.side;
    s.tensor = g.tensor;
    s.dim = g.dim;
    s.symbol = g.symbol;
    s.expectedMin = min;
    s.expectedMax = max;
    s.actual = actual;
    return result;
  };
  auto tensorOf = [&](const Guard &g) -> const CallTensor & {
    return g.side == TensorSide::Input ? (*inputs)[g.tensor]
                                       : (*outputs)[g.tensor];
  };
  auto solve = [&](const Guard &g) -> std::pair<__int128, bool> {
    __int128 numerator =
        __int128((unsigned __int128)(__int128(tensorOf(g).dims[g.dim])) -
                 (unsigned __int128)(evaluate128(g.expr, symbols)));
    bool exact = numerator % g.value == 0;
    return {numerator / g.value, exact};
  };

  size_t numInputs = inputs ? inputs->size() : 0;
  size_t numOutputs = outputs ? outputs->size() : 0;
  for (const Guard &g : contract.guards) {
    if ((!checkOutputs && g.side == TensorSide::Output) ||
        isDataDependent(g.kind))
      continue;
    switch (g.kind) {
    case GuardKind::InputCount:
      if (int64_t(numInputs) != g.value)
        return fail(g, g.value, g.value, int64_t(numInputs));
      break;
    case GuardKind::OutputCount:
      if (int64_t(numOutputs) != g.value)
        return fail(g, g.value, g.value, int64_t(numOutputs));
      break;
    case GuardKind::InputsArray:
      if (!inputs)
        return fail(g, 0, 0, 0);
      break;
    case GuardKind::OutputsArray:
      if (!outputs)
        return fail(g, 0, 0, 0);
      break;
    case GuardKind::DataPointer:
      if (tensorOf(g).data == 0)
        return fail(g, 0, 0, 0);
      break;
    case GuardKind::DType:
      if (tensorOf(g).dtype != g.value)
        return fail(g, g.value, g.value, tensorOf(g).dtype);
      break;
    case GuardKind::Rank:
      if (int64_t(tensorOf(g).dims.size()) != g.value)
        return fail(g, g.value, g.value, int64_t(tensorOf(g).dims.size()));
      break;
    case GuardKind::StaticDim:
      if (tensorOf(g).dims[g.dim] != g.value)
        return fail(g, g.value, g.value, tensorOf(g).dims[g.dim]);
      break;
    case GuardKind::SymbolForm:
      if (!solve(g).second)
        return fail(g, 0, 0, tensorOf(g).dims[g.dim]);
      break;
    case GuardKind::SymbolRange: {
      const ContractSymbol &symbol = contract.symbols[g.symbol];
      __int128 value = solve(g).first;
      if (value < symbol.min || value > symbol.max)
        return fail(g, symbol.min, symbol.max, clampToInt64(value));
      symbols[g.symbol] = int64_t(value);
      break;
    }
    case GuardKind::SymbolMultiple:
      if (symbols[g.symbol] % g.value != 0)
        return fail(g, g.value, g.value, symbols[g.symbol]);
      break;
    case GuardKind::SymbolValues:
      if (!llvm::is_contained(g.values, symbols[g.symbol]))
        return fail(g, g.values.front(), g.values.back(), symbols[g.symbol]);
      break;
    case GuardKind::DimEquals: {
      int64_t expected = evaluate64(g.expr, symbols);
      if (tensorOf(g).dims[g.dim] != expected)
        return fail(g, expected, expected, tensorOf(g).dims[g.dim]);
      break;
    }
    case GuardKind::BufferSize: {
      int64_t needed = bytesOf(g.expr, symbols);
      (g.side == TensorSide::Input ? inputBytes : outputBytes)[g.tensor] =
          needed;
      if (tensorOf(g).sizeBytes < needed)
        return fail(g, needed, INT64_MAX, tensorOf(g).sizeBytes);
      break;
    }
    case GuardKind::NoAlias: {
      uint64_t start = (*outputs)[g.tensor].data;
      uint64_t end = start + uint64_t(outputBytes[g.tensor]);
      auto overlaps = [&](uint64_t otherStart, int64_t otherBytes) {
        return outputBytes[g.tensor] > 0 && otherBytes > 0 &&
               start < otherStart + uint64_t(otherBytes) && otherStart < end;
      };
      for (size_t i = 0; i < numInputs; ++i)
        if (overlaps((*inputs)[i].data, inputBytes[i]))
          return fail(g, int64_t(TensorSide::Input), int64_t(i), 0);
      for (size_t o = 0; o < size_t(g.tensor); ++o)
        if (overlaps((*outputs)[o].data, outputBytes[o]))
          return fail(g, int64_t(TensorSide::Output), int64_t(o), 0);
      break;
    }
    case GuardKind::IndexInRange:
      break; // skipped above: needs the indices' values
    }
  }
  // All guards passed: compute the output shapes.
  for (const ContractTensor &output : contract.outputs) {
    std::vector<int64_t> shape;
    for (const ShapeExpr &dim : output.type.shape)
      shape.push_back(evaluate64(dim, symbols));
    result.outputShapes.push_back(std::move(shape));
  }
  // The code the object runs for these symbols (the dispatcher's choice).
  result.status.variant = chooseVariant(contract.variants, symbols);
  return result;
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

// An indexed dim is at most INT64_MAX, so neither can overflow.
ShapeExpr txc::lowestValidIndex(const Guard &guard) {
  if (!guard.wrapsNegative)
    return ShapeExpr::constant(0);
  return *ShapeExpr::sub(ShapeExpr::constant(0), guard.expr);
}

ShapeExpr txc::highestValidIndex(const Guard &guard) {
  return *ShapeExpr::sub(guard.expr, ShapeExpr::constant(1));
}

std::string txc::aliasPartnerName(const Contract &contract,
                                  const CallStatus &status) {
  size_t index = size_t(status.expectedMax);
  if (status.expectedMin == int64_t(TensorSide::Input) &&
      index < contract.inputs.size())
    return "input '" + contract.inputs[index].name + "'";
  if (status.expectedMin == int64_t(TensorSide::Output) &&
      index < contract.outputs.size())
    return "output '" + contract.outputs[index].name + "'";
  return "another tensor";
}

std::string txc::dtypeCodeText(int64_t code) {
  for (DType type : kAllDTypes)
    if (int64_t(type) == code)
      return dtypeName(type).str();
  return "dtype code " + std::to_string(code);
}

std::string txc::genericStatusMessage(const CallStatus &status) {
  if (status.code == StatusCode::OK)
    return "success";
  return "error " + std::to_string(int(status.code)) + ": " +
         statusCodeDescription(status.code).str();
}

std::string txc::formatStatusMessage(const Contract &contract,
                                     const CallStatus &status) {
  if (status.code == StatusCode::OK || status.guard < 0 ||
      size_t(status.guard) >= contract.guards.size())
    return genericStatusMessage(status);
  const Guard &guard = contract.guards[status.guard];
  std::string text;
  llvm::StringRef tmpl = guard.message;
  while (!tmpl.empty()) {
    size_t open = tmpl.find('{');
    text += tmpl.substr(0, open).str();
    if (open == llvm::StringRef::npos)
      break;
    size_t close = tmpl.find('}', open);
    if (close == llvm::StringRef::npos) {
      // A read manifest's message may have a '{' never closed: it is text.
      text += tmpl.substr(open).str();
      break;
    }
    llvm::StringRef field = tmpl.slice(open + 1, close);
    if (field == "expected_min")
      text += std::to_string(status.expectedMin);
    else if (field == "expected_max")
      text += std::to_string(status.expectedMax);
    else if (field == "actual")
      text += std::to_string(status.actual);
    else if (field == "actual_dtype")
      text += dtypeCodeText(status.actual);
    else if (field == "other")
      text += aliasPartnerName(contract, status);
    tmpl = tmpl.substr(close + 1);
  }
  return text + " [guard " + std::to_string(guard.id) + ": " +
         guard.expression + "]";
}
