//===- InputGenerator.cpp -------------------------------------------------===//
#include "txc/Testing/InputGenerator.h"

#include "llvm/ADT/StringExtras.h"

#include <random>
#include <set>

using namespace txc;

std::string txc::formatSymbolValues(const Contract &contract,
                                    llvm::ArrayRef<int64_t> values) {
  std::string text;
  for (size_t s = 0; s < contract.symbols.size(); ++s)
    text += (s ? "," : "") + contract.symbols[s].name + "=" +
            std::to_string(values[s]);
  return text;
}

static int64_t typeBytes(const TensorType &type,
                         llvm::ArrayRef<int64_t> values) {
  int64_t bytes = dtypeSize(type.dtype);
  for (const ShapeExpr &dim : type.shape) {
    int64_t size = dim.evaluate(values).value_or(INT64_MAX);
    if (__builtin_mul_overflow(bytes, size, &bytes))
      return INT64_MAX;
  }
  return bytes;
}

int64_t txc::programBytes(const Program &program,
                          llvm::ArrayRef<int64_t> values) {
  int64_t total = 0;
  auto add = [&](const TensorType &type) {
    if (__builtin_add_overflow(total, typeBytes(type, values), &total))
      total = INT64_MAX;
  };
  for (const ValueDecl &input : program.inputs)
    add(input.type);
  for (const Node &node : program.body.nodes)
    for (const TensorType &type : node.resultTypes)
      add(type);
  for (const OutputDecl &output : program.body.outputs)
    add(output.type);
  return total;
}

/// The multiples of `multipleOf` in [min, max] are first + k * multipleOf.
static int64_t firstValue(const ContractSymbol &s) {
  int64_t m = s.multipleOf;
  return (s.min + m - 1) / m * m;
}
static int64_t lastValue(const ContractSymbol &s, int64_t max) {
  return max / s.multipleOf * s.multipleOf;
}

std::vector<SymbolValues> txc::chooseSymbolValues(const Program &program,
                                                  const Contract &contract,
                                                  uint64_t seed,
                                                  int64_t maxBytes) {
  const auto &symbols = contract.symbols;
  SymbolValues low{"min", {}, false}, high{"max", {}, false};
  for (const ContractSymbol &s : symbols) {
    low.values.push_back(firstValue(s));
    high.values.push_back(lastValue(s, s.max));
  }
  // Halve the symbol furthest above its minimum until the program fits.
  while (programBytes(program, high.values) > maxBytes) {
    size_t widest = 0;
    int64_t widestSpan = 0;
    for (size_t s = 0; s < symbols.size(); ++s)
      if (high.values[s] - low.values[s] > widestSpan) {
        widest = s;
        widestSpan = high.values[s] - low.values[s];
      }
    if (widestSpan == 0)
      break; // even the minimum is over the budget
    high.values[widest] =
        std::max(low.values[widest],
                 lastValue(symbols[widest], high.values[widest] / 2));
    high.capped = true;
  }
  SymbolValues random{"random", {}, false};
  std::mt19937_64 rng(seed);
  for (size_t s = 0; s < symbols.size(); ++s) {
    int64_t steps = std::max<int64_t>(0, (high.values[s] - low.values[s]) /
                                             symbols[s].multipleOf);
    std::uniform_int_distribution<int64_t> pick(0, steps);
    random.values.push_back(low.values[s] + pick(rng) * symbols[s].multipleOf);
  }
  std::vector<SymbolValues> sets;
  std::set<std::vector<int64_t>> seen;
  for (const SymbolValues &set : {low, high, random})
    if (seen.insert(set.values).second)
      sets.push_back(set);
  return sets;
}

llvm::Expected<SymbolValues> txc::parseSymbolValues(const Contract &contract,
                                                    llvm::StringRef text) {
  SymbolValues result{"given", {}, false};
  std::vector<std::optional<int64_t>> values(contract.symbols.size());
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [name, number] = item.split('=');
    name = name.trim();
    int64_t value = 0;
    if (number.trim().getAsInteger(10, value))
      return llvm::createStringError("--symbols '%s': '%s' is not NAME=VALUE",
                                     text.str().c_str(), item.str().c_str());
    size_t s = 0;
    while (s < contract.symbols.size() && contract.symbols[s].name != name)
      ++s;
    if (s == contract.symbols.size())
      return llvm::createStringError("--symbols '%s': the program has no "
                                     "symbol '%s'",
                                     text.str().c_str(), name.str().c_str());
    const ContractSymbol &symbol = contract.symbols[s];
    if (value < symbol.min || value > symbol.max ||
        value % symbol.multipleOf != 0)
      return llvm::createStringError(
          "--symbols '%s': %s=%lld is not in [%lld, %lld] or not a multiple "
          "of %lld",
          text.str().c_str(), name.str().c_str(), (long long)value,
          (long long)symbol.min, (long long)symbol.max,
          (long long)symbol.multipleOf);
    values[s] = value;
  }
  for (size_t s = 0; s < values.size(); ++s) {
    if (!values[s])
      return llvm::createStringError("--symbols '%s' does not give symbol '%s'",
                                     text.str().c_str(),
                                     contract.symbols[s].name.c_str());
    result.values.push_back(*values[s]);
  }
  return result;
}

namespace {
/// Boundary values of an integer dtype.
std::vector<int64_t> boundaryValues(DType dtype) {
  switch (dtype) {
  case DType::I8:
    return {INT8_MIN, INT8_MAX, -1, 0, 1};
  case DType::I16:
    return {INT16_MIN, INT16_MAX, -1, 0, 1};
  case DType::I32:
    return {INT32_MIN, INT32_MAX, -1, 0, 1};
  case DType::I64:
    return {INT64_MIN, INT64_MAX, -1, 0, 1};
  case DType::U8:
    return {0, 255, 1};
  case DType::U16:
  case DType::U32:
  case DType::U64: {
    // The maximum (all ones: -1 wraps to it), and both sides of the top
    // bit, where a signed op would see a negative number.
    unsigned bits = 8 * dtypeSize(dtype);
    int64_t top = int64_t(uint64_t(1) << (bits - 1));
    return {0, -1, 1, top, top - 1};
  }
  default:
    return {0, 1};
  }
}

void fillRandom(Tensor &tensor, std::mt19937_64 &rng) {
  DType dtype = tensor.dtype();
  std::uniform_real_distribution<double> real(-4.0, 4.0);
  std::uniform_int_distribution<int64_t> small(isSigned(dtype) ? -8 : 0,
                                               isSigned(dtype) ? 8 : 16);
  std::uniform_int_distribution<int> coin(0, 7);
  std::vector<int64_t> boundary = boundaryValues(dtype);
  std::uniform_int_distribution<size_t> pickBoundary(0, boundary.size() - 1);
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    if (isFloat(dtype))
      tensor.setDouble(i, real(rng));
    else if (dtype == DType::Bool)
      tensor.setInt64(i, coin(rng) & 1);
    else if (coin(rng) == 0)
      tensor.setInt64(i, boundary[pickBoundary(rng)]);
    else
      tensor.setInt64(i, small(rng));
  }
}
} // namespace

std::vector<Tensor> txc::generateInputs(const Contract &contract,
                                        llvm::ArrayRef<int64_t> values,
                                        uint64_t seed) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < contract.inputs.size(); ++i) {
    const TensorType &type = contract.inputs[i].type;
    std::vector<int64_t> shape;
    for (const ShapeExpr &dim : type.shape)
      shape.push_back(dim.evaluate(values).value_or(0));
    Tensor tensor(type.dtype, shape);
    // One stream per input, so adding an input leaves the others' values.
    std::seed_seq sequence{uint32_t(seed), uint32_t(seed >> 32), uint32_t(i)};
    std::mt19937_64 rng(sequence);
    fillRandom(tensor, rng);
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}
