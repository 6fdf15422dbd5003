//===- TestGen.cpp - txc testgen: the boundary calls of a contract --------===//
//
// The calls are derived from the contract alone (symbols, input shapes and
// guards), so they can be generated from a released manifest. Each call is
// labelled with the outcome evaluateGuards gives it, which is what the
// object returns; the e2e tests run the same calls against the object.
//
//===----------------------------------------------------------------------===//
#include "txc/Tools/Tools.h"

#include "txc/Program/DType.h"
#include "txc/Support/OutputFiles.h"
#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"

#include <set>

using namespace txc;

namespace {

/// The binding guard (symbol_range) of each symbol, or null when no input
/// determines it.
std::vector<const Guard *> bindingGuards(const Contract &contract) {
  std::vector<const Guard *> binding(contract.symbols.size(), nullptr);
  for (const Guard &g : contract.guards)
    if (g.kind == GuardKind::SymbolRange && !binding[g.symbol])
      binding[g.symbol] = &g;
  return binding;
}

/// The smallest and largest values the symbol may take (of its declared
/// values, if it has any).
int64_t smallestValid(const ContractSymbol &s) {
  if (!s.values.empty())
    return s.values.front();
  int64_t rem = s.min % s.multipleOf;
  return rem == 0 ? s.min : s.min + (s.multipleOf - rem);
}
int64_t largestValid(const ContractSymbol &s) {
  if (!s.values.empty())
    return s.values.back();
  return s.max - s.max % s.multipleOf;
}

class CallBuilder {
public:
  explicit CallBuilder(const Contract &contract) : contract(contract) {
    base.resize(contract.symbols.size());
    for (size_t s = 0; s < contract.symbols.size(); ++s)
      base[s] = smallestValid(contract.symbols[s]);
  }

  /// Every input at its declared dtype with its dims evaluated at
  /// `values`; nullopt if a dim overflows int64.
  std::optional<CallSpec> at(llvm::ArrayRef<int64_t> values,
                             std::string name) const {
    CallSpec call;
    call.name = std::move(name);
    for (const ContractTensor &input : contract.inputs) {
      CallInput in;
      in.dtype = int32_t(input.type.dtype);
      for (const ShapeExpr &dim : input.type.shape) {
        // A dim that divides a symbol that is not a multiple (B/8 at B=12)
        // is checked only after the symbol's multiple_of guard, which fails
        // first: any value does; take the one at the multiple below.
        auto value = dim.evaluate(values);
        if (!value)
          value = dim.evaluate(roundedToMultiples(values));
        if (!value)
          return std::nullopt;
        in.dims.push_back(*value);
      }
      call.inputs.push_back(std::move(in));
    }
    return call;
  }

  std::vector<int64_t>
  roundedToMultiples(llvm::ArrayRef<int64_t> values) const {
    std::vector<int64_t> rounded(values.begin(), values.end());
    for (size_t s = 0; s < rounded.size(); ++s)
      rounded[s] -= floorModulo(rounded[s], contract.symbols[s].multipleOf);
    return rounded;
  }

  /// The base values with symbol `s` set to `value`.
  std::vector<int64_t> with(size_t s, int64_t value) const {
    std::vector<int64_t> values = base;
    values[s] = value;
    return values;
  }

  const Contract &contract;
  std::vector<int64_t> base;
};

std::string dimRef(const Contract &contract, size_t input, size_t dim) {
  return contract.inputs[input].name + ".shape[" + std::to_string(dim) + "]";
}

} // namespace

/// The calls at each variant's edges (docs/specialization.md): its bound
/// values, and each bound symbol one step (its multiple_of) below and above,
/// which another variant or the generic code takes.
template <typename Add>
static void addVariantEdges(const Contract &contract,
                            const CallBuilder &builder, Add &add) {
  for (const ContractVariant &variant : contract.variants) {
    std::vector<int64_t> values = builder.base;
    for (const SymbolBinding &binding : variant.bindings)
      values[binding.symbol] = binding.value;
    std::string label = "variant " + variant.name(contract) + " (" +
                        variant.text(contract) + ")";
    add(builder.at(values, label));
    for (const SymbolBinding &binding : variant.bindings) {
      const ContractSymbol &symbol = contract.symbols[binding.symbol];
      for (int64_t step : {-symbol.multipleOf, symbol.multipleOf}) {
        int64_t value = binding.value + step;
        if (value < symbol.min || value > symbol.max)
          continue;
        std::vector<int64_t> next = values;
        next[binding.symbol] = value;
        add(builder.at(next, symbol.name + "=" + std::to_string(value) +
                                 ", next to " + label));
      }
    }
  }
}

/// The calls at a symbol's declared values, and one step (its multiple_of)
/// below and above each that is in the range but not declared: these fail
/// the symbol_values guard.
template <typename Value>
static void addDeclaredValues(const ContractSymbol &symbol, Value &value) {
  for (int64_t declared : symbol.values) {
    value("declared", declared);
    for (int64_t step : {-symbol.multipleOf, symbol.multipleOf}) {
      int64_t next = declared + step;
      if (next >= symbol.min && next <= symbol.max &&
          !llvm::is_contained(symbol.values, next))
        value("not declared", next);
    }
  }
}

std::vector<CallSpec> txc::boundaryCalls(const Contract &contract) {
  CallBuilder builder(contract);
  std::vector<const Guard *> binding = bindingGuards(contract);
  std::vector<std::string> names = contract.symbolNames();
  std::vector<CallSpec> calls;
  // No call is listed twice (B=min is often the base call).
  std::set<std::vector<std::pair<int32_t, std::vector<int64_t>>>> seen;
  auto add = [&](std::optional<CallSpec> call) {
    if (!call)
      return;
    std::vector<std::pair<int32_t, std::vector<int64_t>>> key;
    for (const CallInput &input : call->inputs)
      key.emplace_back(input.dtype, input.dims);
    if (seen.insert(std::move(key)).second)
      calls.push_back(std::move(*call));
  };

  for (size_t s = 0; s < contract.symbols.size(); ++s) {
    if (!binding[s])
      continue;
    const ContractSymbol &symbol = contract.symbols[s];
    const std::string &name = symbol.name;
    auto value = [&](const std::string &label, int64_t v) {
      add(builder.at(builder.with(s, v),
                     name + "=" + label + " (" + std::to_string(v) + ")"));
    };
    value("min", symbol.min);
    value("max", symbol.max);
    if (symbol.values.empty() && largestValid(symbol) != symbol.max)
      value("largest multiple of " + std::to_string(symbol.multipleOf),
            largestValid(symbol));
    if (symbol.min > INT64_MIN)
      value("min-1", symbol.min - 1);
    value("max+1", symbol.max + 1);
    addDeclaredValues(symbol, value);
    if (symbol.multipleOf > 1) {
      int64_t v = builder.base[s] + 1 <= symbol.max ? builder.base[s] + 1
                                                    : builder.base[s] - 1;
      if (v >= symbol.min && v <= symbol.max)
        value("not a multiple of " + std::to_string(symbol.multipleOf), v);
    }

    // Another valid value, for the uses of the symbol that must agree with
    // the binding dim.
    std::optional<int64_t> other;
    if (builder.base[s] + symbol.multipleOf <= symbol.max)
      other = builder.base[s] + symbol.multipleOf;
    else if (builder.base[s] - symbol.multipleOf >= symbol.min)
      other = builder.base[s] - symbol.multipleOf;

    const Guard &bind = *binding[s];
    for (size_t i = 0; i < contract.inputs.size(); ++i)
      for (size_t d = 0; d < contract.inputs[i].type.rank(); ++d) {
        const ShapeExpr &dim = contract.inputs[i].type.shape[d];
        if (!dim.uses(uint32_t(s)))
          continue;
        bool isBinding = size_t(bind.tensor) == i && size_t(bind.dim) == d;
        if (isBinding) {
          // A value of the binding dim that no integer S gives.
          if (bind.value != 1 && bind.value != -1) {
            auto call = builder.at(builder.base, "");
            auto good = dim.evaluate(builder.base);
            if (call && good && *good < INT64_MAX) {
              call->inputs[i].dims[d] = *good + 1;
              call->name = dimRef(contract, i, d) + "=" +
                           std::to_string(*good + 1) + ", not of the form " +
                           dim.toString(names);
              add(std::move(call));
            }
          }
          continue;
        }
        if (!other)
          continue;
        auto call = builder.at(builder.base, "");
        auto wrong = dim.evaluate(builder.with(s, *other));
        if (!call || !wrong)
          continue;
        call->inputs[i].dims[d] = *wrong;
        call->name = dimRef(contract, i, d) + " with " + name + "=" +
                     std::to_string(*other) + ", the other dims with " + name +
                     "=" + std::to_string(builder.base[s]) + " (inconsistent)";
        add(std::move(call));
      }
  }

  // The base call, unless a symbol's min already is it.
  add(builder.at(builder.base, contract.symbols.empty()
                                   ? "the declared shapes"
                                   : "every symbol at its smallest valid "
                                     "value"));

  for (size_t i = 0; i < contract.inputs.size(); ++i) {
    const ContractTensor &input = contract.inputs[i];
    auto call = builder.at(builder.base, "");
    if (!call)
      break;
    DType wrong = input.type.dtype == DType::F32 ? DType::F64 : DType::F32;
    CallSpec dtype = *call;
    dtype.inputs[i].dtype = int32_t(wrong);
    dtype.name = input.name + " dtype " + dtypeName(wrong).str();
    add(std::move(dtype));
    CallSpec higher = *call;
    higher.inputs[i].dims.push_back(1);
    higher.name = input.name + " rank " + std::to_string(input.type.rank() + 1);
    add(std::move(higher));
    if (input.type.rank() > 0) {
      CallSpec lower = *call;
      lower.inputs[i].dims.pop_back();
      lower.name =
          input.name + " rank " + std::to_string(input.type.rank() - 1);
      add(std::move(lower));
    }
    for (size_t d = 0; d < input.type.rank(); ++d)
      if (auto value = input.type.shape[d].getConstant()) {
        CallSpec dim = *call;
        dim.inputs[i].dims[d] = *value + 1;
        dim.name = dimRef(contract, i, d) + "=" + std::to_string(*value + 1) +
                   " (declared " + std::to_string(*value) + ")";
        add(std::move(dim));
      }
  }
  addVariantEdges(contract, builder, add);
  for (CallSpec &call : calls)
    call.expect = expectationOf(evaluateCall(contract, call));
  return calls;
}

namespace {
/// SplitMix64: small, fast and the same on every platform (unlike the
/// standard distributions), so a seed reproduces the same calls anywhere.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi] (hi - lo < 2^63).
  int64_t range(int64_t lo, int64_t hi) {
    uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;
    return span == 0 ? int64_t(next()) : int64_t(uint64_t(lo) + next() % span);
  }
  bool chance(unsigned percent) { return next() % 100 < percent; }

private:
  uint64_t state;
};
} // namespace

std::vector<CallSpec> txc::randomCalls(const Contract &contract, unsigned count,
                                       uint64_t seed) {
  CallBuilder builder(contract);
  Random rng(seed);
  std::vector<CallSpec> calls;
  for (unsigned n = 0; n < count; ++n) {
    std::vector<int64_t> values(contract.symbols.size());
    for (size_t s = 0; s < contract.symbols.size(); ++s) {
      const ContractSymbol &symbol = contract.symbols[s];
      int64_t lo = smallestValid(symbol), hi = largestValid(symbol);
      uint64_t pick = rng.next() % 10;
      if (pick < 6 && !symbol.values.empty()) // a declared value
        values[s] = symbol.values[rng.range(0, symbol.values.size() - 1)];
      else if (pick < 6) // a valid value
        values[s] = lo + rng.range(0, (hi - lo) / symbol.multipleOf) *
                             symbol.multipleOf;
      else if (pick < 8) // a boundary
        values[s] = rng.chance(50)
                        ? (rng.chance(50) ? symbol.min : symbol.max)
                        : (rng.chance(50) ? symbol.min - 1 : symbol.max + 1);
      else // anything near the range
        values[s] = rng.range(symbol.min - 2, symbol.max + 2);
    }
    auto call = builder.at(values, "random " + std::to_string(n));
    if (!call)
      call = builder.at(builder.base, "random " + std::to_string(n));
    if (!call)
      break;
    if (!call->inputs.empty()) {
      CallInput &input = call->inputs[rng.next() % call->inputs.size()];
      if (rng.chance(15) && !input.dims.empty()) {
        int64_t &dim = input.dims[rng.next() % input.dims.size()];
        dim = rng.chance(50)
                  ? dim + rng.range(-2, 2)
                  : rng.range(-2, dim < 0 || dim > (INT64_MAX - 2) / 2
                                      ? 2
                                      : 2 * dim + 2);
      }
      if (rng.chance(5))
        input.dtype = int32_t(rng.range(0, 11));
      if (rng.chance(5)) {
        if (rng.chance(50) || input.dims.empty())
          input.dims.push_back(rng.range(0, 3));
        else
          input.dims.pop_back();
      }
    }
    call->expect = expectationOf(evaluateCall(contract, *call));
    calls.push_back(std::move(*call));
  }
  return calls;
}

int txc::runTestGen(const TestGenOptions &options, DiagnosticEngine &diags) {
  std::unique_ptr<Manifest> manifest =
      readManifestFile(options.manifestPath, diags);
  if (!manifest)
    return diags.exitCode();
  std::vector<CallSpec> calls = boundaryCalls(manifest->contract);
  if (options.random) {
    std::vector<CallSpec> random =
        randomCalls(manifest->contract, options.random, options.seed);
    calls.insert(calls.end(), std::make_move_iterator(random.begin()),
                 std::make_move_iterator(random.end()));
  }
  OutputFileSet outputs;
  outputs.add(options.outputPath, writeCallsFile(*manifest, calls));
  if (llvm::Error err = outputs.commit())
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                llvm::toString(std::move(err)));
  return diags.exitCode();
}
