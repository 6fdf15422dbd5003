//===- Specialization.cpp - Variants of a contract with bound symbols -----===//
#include "txc/Analysis/Specialization.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace txc;

std::string ContractVariant::name(const Contract &contract) const {
  std::string out;
  for (const SymbolBinding &binding : bindings) {
    if (!out.empty())
      out += '_';
    out += contract.symbols[binding.symbol].name + std::to_string(binding.value);
  }
  return out;
}

std::string ContractVariant::text(const Contract &contract) const {
  std::string out;
  for (const SymbolBinding &binding : bindings) {
    if (!out.empty())
      out += ',';
    out += contract.symbols[binding.symbol].name + "=" +
           std::to_string(binding.value);
  }
  return out;
}

namespace {
/// One `--specialize` argument as it is read: per bound symbol, the values
/// it takes (one, or a set).
struct SpecializationTerms {
  std::vector<std::pair<uint32_t, std::vector<int64_t>>> terms;
};

class SpecializationParser {
public:
  SpecializationParser(const Contract &contract, DiagnosticEngine &diags)
      : contract(contract), diags(diags) {}

  std::optional<SpecializationTerms> parse(llvm::StringRef text);

private:
  bool parseTerm(llvm::StringRef term, SpecializationTerms &out);
  std::optional<int64_t> parseValue(llvm::StringRef text,
                                    const ContractSymbol &symbol);
  void error(const llvm::Twine &message) {
    diags.error(DiagCategory::Usage, "specialize", "", Loc(),
                "--specialize '" + current + "': " + message);
  }

  const Contract &contract;
  DiagnosticEngine &diags;
  std::string current;
};
} // namespace

std::optional<int64_t>
SpecializationParser::parseValue(llvm::StringRef text,
                                 const ContractSymbol &symbol) {
  int64_t value;
  if (text.trim().getAsInteger(10, value)) {
    error("'" + text.trim() + "' is not an integer");
    return std::nullopt;
  }
  if (value < symbol.min || value > symbol.max) {
    error("symbol " + symbol.name + " must be in [" +
          llvm::Twine(symbol.min) + ", " + llvm::Twine(symbol.max) +
          "], got " + llvm::Twine(value));
    return std::nullopt;
  }
  if (value % symbol.multipleOf != 0) {
    error("symbol " + symbol.name + " must be a multiple of " +
          llvm::Twine(symbol.multipleOf) + ", got " + llvm::Twine(value));
    return std::nullopt;
  }
  // A variant for a value the contract rejects would never run.
  if (!symbol.values.empty() && !llvm::is_contained(symbol.values, value)) {
    error("symbol " + symbol.name + " must be one of its declared values " +
          valuesText(symbol.values) + ", got " + llvm::Twine(value));
    return std::nullopt;
  }
  return value;
}

bool SpecializationParser::parseTerm(llvm::StringRef term,
                                     SpecializationTerms &out) {
  term = term.trim();
  llvm::StringRef name, rest;
  bool isSet = false;
  size_t eq = term.find('=');
  size_t in = term.find(" in ");
  if (in != llvm::StringRef::npos && (eq == llvm::StringRef::npos || in < eq)) {
    name = term.take_front(in).trim();
    rest = term.drop_front(in + 4).trim();
    isSet = true;
  } else if (eq != llvm::StringRef::npos) {
    name = term.take_front(eq).trim();
    rest = term.drop_front(eq + 1).trim();
  } else {
    error("expected SYMBOL=VALUE or 'SYMBOL in {V1,V2,...}', got '" + term +
          "'");
    return false;
  }
  auto symbol = llvm::find_if(contract.symbols, [&](const ContractSymbol &s) {
    return s.name == name;
  });
  if (symbol == contract.symbols.end()) {
    error("the program has no symbol '" + name + "' (its symbols: " +
          llvm::join(contract.symbolNames(), ", ") + ")");
    return false;
  }
  uint32_t id = uint32_t(symbol - contract.symbols.begin());
  // The dispatcher compares the values the guards computed; a symbol no
  // input shape determines has none.
  if (llvm::none_of(contract.guards, [&](const Guard &g) {
        return g.kind == GuardKind::SymbolRange && g.symbol == int32_t(id);
      })) {
    error("symbol " + name + " is not used by any input shape");
    return false;
  }
  if (llvm::any_of(out.terms, [&](const auto &t) { return t.first == id; })) {
    error("symbol " + name + " is bound twice");
    return false;
  }
  if (isSet) {
    if (!rest.consume_front("{") || !rest.consume_back("}")) {
      error("a set of values is written {V1,V2,...}, got '" + rest + "'");
      return false;
    }
  }
  llvm::SmallVector<llvm::StringRef> texts;
  rest.split(texts, isSet ? '|' : '\0');
  std::vector<int64_t> values;
  for (llvm::StringRef text : texts) {
    std::optional<int64_t> value = parseValue(text, *symbol);
    if (!value)
      return false;
    if (llvm::is_contained(values, *value)) {
      error("the value " + llvm::Twine(*value) + " of " + name +
            " is given twice");
      return false;
    }
    values.push_back(*value);
  }
  out.terms.emplace_back(id, std::move(values));
  return true;
}

std::optional<SpecializationTerms>
SpecializationParser::parse(llvm::StringRef text) {
  current = text.str();
  // Commas separate the terms and the values of a set: the values of a set
  // are re-separated with '|' before splitting the terms.
  std::string masked = text.str();
  int depth = 0;
  for (char &c : masked) {
    if (c == '{')
      ++depth;
    else if (c == '}')
      --depth;
    else if (c == ',' && depth > 0)
      c = '|';
  }
  SpecializationTerms out;
  llvm::SmallVector<llvm::StringRef> terms;
  llvm::StringRef(masked).split(terms, ',');
  for (llvm::StringRef term : terms)
    if (!parseTerm(term, out))
      return std::nullopt;
  return out;
}

/// Appends one variant per combination of the terms' values.
static void expand(const SpecializationTerms &spec, size_t term,
                   std::vector<SymbolBinding> &bound,
                   std::vector<std::vector<SymbolBinding>> &out) {
  if (term == spec.terms.size()) {
    std::vector<SymbolBinding> sorted = bound;
    llvm::sort(sorted, [](const SymbolBinding &a, const SymbolBinding &b) {
      return a.symbol < b.symbol;
    });
    out.push_back(std::move(sorted));
    return;
  }
  for (int64_t value : spec.terms[term].second) {
    bound.push_back({spec.terms[term].first, value});
    expand(spec, term + 1, bound, out);
    bound.pop_back();
  }
}

std::optional<std::vector<ContractVariant>>
txc::parseSpecializations(llvm::ArrayRef<std::string> texts,
                          const Contract &contract, DiagnosticEngine &diags) {
  SpecializationParser parser(contract, diags);
  std::vector<ContractVariant> variants;
  for (const std::string &text : texts) {
    std::optional<SpecializationTerms> spec = parser.parse(text);
    if (!spec)
      return std::nullopt;
    std::vector<std::vector<SymbolBinding>> expanded;
    std::vector<SymbolBinding> bound;
    expand(*spec, 0, bound, expanded);
    for (std::vector<SymbolBinding> &bindings : expanded) {
      ContractVariant variant;
      variant.id = int32_t(variants.size() + 1);
      variant.bindings = std::move(bindings);
      auto same = llvm::find_if(variants, [&](const ContractVariant &v) {
        return v.bindings == variant.bindings;
      });
      if (same != variants.end()) {
        diags.error(DiagCategory::Usage, "specialize", "", Loc(),
                    "--specialize '" + text + "': the variant " +
                        variant.text(contract) + " is given twice");
        return std::nullopt;
      }
      variants.push_back(std::move(variant));
    }
  }
  return variants;
}

std::vector<const ContractVariant *>
txc::dispatchOrder(llvm::ArrayRef<ContractVariant> variants) {
  std::vector<const ContractVariant *> order;
  for (const ContractVariant &variant : variants)
    order.push_back(&variant);
  std::stable_sort(order.begin(), order.end(),
                   [](const ContractVariant *a, const ContractVariant *b) {
                     return a->bindings.size() > b->bindings.size();
                   });
  return order;
}

int32_t txc::chooseVariant(llvm::ArrayRef<ContractVariant> variants,
                           llvm::ArrayRef<int64_t> symbolValues) {
  for (const ContractVariant *variant : dispatchOrder(variants))
    if (llvm::all_of(variant->bindings, [&](const SymbolBinding &binding) {
          return binding.symbol < symbolValues.size() &&
                 symbolValues[binding.symbol] == binding.value;
        }))
      return variant->id;
  return 0;
}

std::string txc::variantPrefix(const Contract &generic,
                               const ContractVariant &variant) {
  return generic.entryPrefix + "_v" + std::to_string(variant.id);
}

namespace {
/// Replaces the bound symbols in tensor types.
struct TypeBinder {
  /// The symbols' multiple_of, by id.
  std::vector<int64_t> multiples;
  llvm::ArrayRef<SymbolBinding> bindings;

  std::optional<ShapeExpr> valueOf(uint32_t id) const {
    for (const SymbolBinding &binding : bindings)
      if (binding.symbol == id)
        return ShapeExpr::constant(binding.value);
    return ShapeExpr::symbol({id, multiples[id]});
  }

  void bind(TensorType &type) const {
    for (ShapeExpr &dim : type.shape) {
      std::optional<ShapeExpr> bound = dim.substitute(
          [&](uint32_t id) { return valueOf(id); });
      // Substitution fails only on overflow, which the verifier's limits
      // exclude; the symbolic dim would still be right, only less static.
      if (bound)
        dim = std::move(*bound);
    }
  }

  void bind(Graph &graph) const {
    for (ValueDecl &input : graph.inputs)
      bind(input.type);
    for (Node &node : graph.nodes) {
      for (TensorType &type : node.resultTypes)
        bind(type);
      for (auto &region : node.regions)
        bind(*region.second);
    }
    for (OutputDecl &output : graph.outputs)
      bind(output.type);
  }
};
} // namespace

void txc::bindProgramSymbols(Program &program,
                             llvm::ArrayRef<SymbolBinding> bindings) {
  TypeBinder binder{{}, bindings};
  for (const Symbol &symbol : program.symbols)
    binder.multiples.push_back(symbol.multipleOf);
  for (ValueDecl &input : program.inputs)
    binder.bind(input.type);
  binder.bind(program.body);
  for (const SymbolBinding &binding : bindings) {
    program.symbols[binding.symbol].min = binding.value;
    program.symbols[binding.symbol].max = binding.value;
  }
}

Contract txc::bindVariant(const Contract &generic,
                          const ContractVariant &variant,
                          llvm::StringRef entryPrefix) {
  Contract bound = generic;
  bound.entryPrefix = entryPrefix.str();
  bound.variants.clear();
  // The kernel's signature comes from the contract's tensors: static too.
  TypeBinder binder{{}, variant.bindings};
  for (const ContractSymbol &symbol : generic.symbols)
    binder.multiples.push_back(symbol.multipleOf);
  for (ContractTensor &tensor : bound.inputs)
    binder.bind(tensor.type);
  for (ContractTensor &tensor : bound.outputs)
    binder.bind(tensor.type);
  for (const SymbolBinding &binding : variant.bindings) {
    bound.symbols[binding.symbol].min = binding.value;
    bound.symbols[binding.symbol].max = binding.value;
  }
  return bound;
}
