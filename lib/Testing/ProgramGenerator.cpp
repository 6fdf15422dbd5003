//===- ProgramGenerator.cpp - Random well-typed programs ------------------===//
#include "txc/Testing/ProgramGenerator.h"

#include "txc/Analysis/Contract.h"
#include "txc/Analysis/Verifier.h"
#include "txc/Program/OpRegistry.h"
#include "txc/Program/Window.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Support/SourceFile.h"
#include "txc/Testing/Tolerance.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>

using namespace txc;

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static std::string number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    return std::to_string(int64_t(value));
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// `{"name": ..., "dtype": ..., "shape": [...]` (without the closing brace).
static std::string tensorDecl(const std::string &name, DType dtype,
                              const std::vector<std::string> &dims) {
  std::string s = "{\"name\": \"" + name + "\", \"dtype\": \"" +
                  dtypeName(dtype).str() + "\", \"shape\": [";
  for (size_t d = 0; d < dims.size(); ++d)
    s += (d ? ", " : "") + dims[d];
  return s + "]";
}

void GeneratedProgram::keepConstants(const std::set<std::string> &names) {
  std::vector<GenConstant> kept;
  for (GenConstant &c : constants)
    if (names.count(c.name))
      kept.push_back(std::move(c));
  constants = std::move(kept);
}

std::string GeneratedProgram::toJson() const {
  std::string s;
  s += "{\"format\": \"txc.program\", \"version\": 1, \"name\": \"" + name +
       "\",\n \"description\": \"txc-fuzz seed " + std::to_string(seed) +
       "\",\n \"symbols\": [";
  for (size_t i = 0; i < symbols.size(); ++i) {
    const GenSymbol &y = symbols[i];
    s += std::string(i ? ",\n  " : "\n  ") + "{\"name\": \"" + y.name +
         "\", \"min\": " + std::to_string(y.min) +
         ", \"max\": " + std::to_string(y.max);
    if (y.multipleOf != 1)
      s += ", \"multiple_of\": " + std::to_string(y.multipleOf);
    s += "}";
  }
  s += "],\n \"inputs\": [";
  for (size_t i = 0; i < inputs.size(); ++i)
    s += std::string(i ? ",\n  " : "\n  ") +
         tensorDecl(inputs[i].name, inputs[i].dtype, inputs[i].dims) + "}";
  s += "],\n \"constants\": [";
  for (size_t i = 0; i < constants.size(); ++i) {
    const GenConstant &c = constants[i];
    std::vector<std::string> dims;
    for (int64_t d : c.shape)
      dims.push_back(std::to_string(d));
    s += std::string(i ? ",\n  " : "\n  ") + tensorDecl(c.name, c.dtype, dims) +
         ", \"data\": [";
    for (size_t d = 0; d < c.data.size(); ++d)
      s += (d ? ", " : "") + number(c.data[d]);
    s += "]}";
  }
  s += "],\n \"nodes\": [";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GenNode &n = nodes[i];
    s += std::string(i ? ",\n  " : "\n  ") + "{\"name\": \"" + n.name +
         "\", \"op\": \"" + n.op + "\", \"operands\": [";
    for (size_t o = 0; o < n.operands.size(); ++o)
      s += (o ? ", \"" : "\"") + n.operands[o] + "\"";
    s += "]";
    if (!n.attributes.empty()) {
      s += ", \"attributes\": {";
      for (size_t a = 0; a < n.attributes.size(); ++a)
        s += (a ? ", \"" : "\"") + n.attributes[a].first +
             "\": " + n.attributes[a].second;
      s += "}";
    }
    s += "}";
  }
  s += "],\n \"outputs\": [";
  for (size_t i = 0; i < outputs.size(); ++i)
    s += std::string(i ? ", " : "") + "{\"name\": \"out" + std::to_string(i) +
         "\", \"value\": \"" + outputs[i] + "\"}";
  s += "]}\n";
  return s;
}

std::vector<std::string> GeneratedProgram::ops() const {
  std::vector<std::string> result;
  for (const GenNode &n : nodes)
    result.push_back(n.op);
  return result;
}

std::unique_ptr<Program> txc::verifyProgramText(const std::string &json,
                                                const std::string &displayName,
                                                DiagnosticEngine &diags) {
  auto file = std::make_shared<SourceFile>(displayName, json);
  diags.addSourceFile(file);
  std::unique_ptr<Program> program = readProgram(*file, diags);
  if (!program || diags.hasErrors())
    return nullptr;
  if (!verifyProgram(*program, diags))
    return nullptr;
  if (!buildContract(*program, "", diags))
    return nullptr;
  // A symbol no input uses passes with a warning but does not compile
  // (program-format.md, known issues): the generator must not make one.
  for (const Diagnostic &d : diags.diagnostics())
    if (d.severity == Severity::Warning)
      return nullptr;
  return program;
}

static std::string diagnosticText(const DiagnosticEngine &diags) {
  std::string text;
  llvm::raw_string_ostream os(text);
  diags.printText(os);
  os.flush();
  return text;
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

namespace {

/// A value the next nodes may use.
struct Value {
  std::string ref;
  TensorType type;
  bool exact = true; ///< see the header: no transcendental/sum upstream
};

/// Ops whose compiled results equal the interpreter's bits (Ops.def).
bool isExactOp(llvm::StringRef op) {
  const OpInfo *info = lookupOp(op);
  return info && info->numerics == Numerics::Exact;
}

/// The names of the elementwise ops of Ops.def that `keep` selects, in
/// declaration order (the fixed seeds' programs depend on it).
std::vector<std::string>
elementwiseOps(llvm::function_ref<bool(const OpInfo &)> keep) {
  std::vector<std::string> names;
  for (const OpInfo &info : allOps())
    if (info.domain != ElementwiseDomain::None && keep(info))
      names.push_back(info.name.str());
  return names;
}

bool acceptsFloat(const OpInfo &info) {
  return acceptsDType(info.dtypes, DType::F32);
}

class Generator {
public:
  Generator(uint64_t seed, const GeneratorOptions &options)
      : rng(seed), options(options) {
    prog.seed = seed;
    prog.name = "fuzz" + std::to_string(seed);
  }

  GeneratedProgram run();

private:
  // Portable random numbers.
  uint64_t below(uint64_t n) { return n ? rng() % n : 0; }
  int64_t range(int64_t lo, int64_t hi) { // inclusive
    return lo + int64_t(below(uint64_t(hi - lo + 1)));
  }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[below(v.size())];
  }

  bool allowedOp(const std::string &op) const {
    return !options.excludedOps.count(op);
  }
  bool allowedDType(DType d) const { return !options.excludedDTypes.count(d); }

  DType randomDType();
  std::vector<std::string> symbolNames() const;
  std::string dimText(const ShapeExpr &dim) const;
  std::string shapeText(const Shape &shape) const;
  Interval dimBounds(const ShapeExpr &dim) const {
    return dim.bounds(symbolRanges);
  }
  bool mayBeZero(const ShapeExpr &dim) const { return dimBounds(dim).min < 1; }
  /// The product of dims [from, to) is a dim the verifier accepts: its
  /// interval bounds (term by term) are non-negative.
  bool productOk(const Shape &shape, size_t from, size_t to) const {
    ShapeExpr product = ShapeExpr::constant(1);
    for (size_t d = from; d < to; ++d) {
      auto p = ShapeExpr::mul(product, shape[d]);
      if (!p)
        return false;
      product = *p;
    }
    return dimBounds(product).min >= 0;
  }

  // Building blocks; each returns the new value (its type from the verifier)
  // or nullptr after setting `failed`.
  const Value *addNode(const std::string &op,
                       std::vector<std::string> operands,
                       std::vector<std::pair<std::string, std::string>> attrs,
                       bool exact, unsigned results = 1);
  const Value *addConstant(DType dtype, std::vector<int64_t> shape,
                           bool positive = false);
  const Value *scalar(DType dtype, double value);
  /// A value broadcast-compatible with `a` of the same dtype (exact if
  /// asked): one from the pool or a new constant.
  const Value *partnerFor(const Value &a, bool needExact,
                          const Shape *also = nullptr);
  /// add(abs(x), c): positive, away from zero.
  const Value *positive(const Value &x, double c);

  std::vector<const Value *> candidates(
      const std::function<bool(const Value &)> &accept) const;
  const Value *choose(const std::function<bool(const Value &)> &accept);

  // Op generators: true when they added something.
  bool genUnary();
  bool genDomainUnary();
  bool genBinary();
  bool genSelect();
  bool genCast();
  bool genReduction();
  bool genSoftmax();
  bool genCumSum();
  bool genTopK();
  bool genNorm();
  bool genMatmul();
  bool genLinear();
  bool genTranspose();
  bool genReshape();
  bool genFlatten();
  bool genSqueezeUnsqueeze();
  bool genConcat();
  bool genSlice();
  bool genPad();
  bool genBroadcast();
  bool genSplit();
  bool genTile();
  bool genConvPool();
  bool genConvPool3D();
  bool genWindowOp(const std::string &op);
  const Value *asVolume(const Value &x, unsigned channels, bool staticChannels);
  void poolWindowAttrs(bool isMax, int64_t k, int64_t spatialMin,
                       const Shape &shape, const LayoutDims &dims,
                       std::vector<std::pair<std::string, std::string>> &attrs);
  bool genGather();
  bool genGatherElements();
  bool genRange();
  bool genGatherND();
  bool genScatterElements();
  bool genScatterND();
  /// A constant of indices of `shape` whose element i indexes the dim
  /// `dims[i % dims.size()]` (one dim, or the entries of index tuples along
  /// the last dim), in range for every symbol value (negative ones half the
  /// time); the dims' smallest values are at least 1.
  std::string indexConstant(std::vector<int64_t> shape, const Shape &dims);
  /// A value of exactly `type` (a scatter's updates): one from the pool, or
  /// a constant, broadcast to the symbolic dims.
  const Value *valueOfType(const TensorType &type);
  /// A scatter's `reduction` attribute for data of `dtype` (none when
  /// absent).
  void addReduction(DType dtype,
                    std::vector<std::pair<std::string, std::string>> &attrs);

  bool compatible(const Shape &a, const Shape &b) const;
  /// The axes of `shape` that are at least `min` for every symbol value.
  std::vector<int64_t> axesAtLeast(const Shape &shape, int64_t min) const {
    std::vector<int64_t> axes;
    for (size_t d = 0; d < shape.size(); ++d)
      if (dimBounds(shape[d]).min >= min)
        axes.push_back(d);
    return axes;
  }
  std::string freshName(const char *prefix) {
    return prefix + std::to_string(counter++);
  }

  std::mt19937_64 rng;
  const GeneratorOptions &options;
  GeneratedProgram prog;
  std::vector<Value> pool; ///< stable: reserved up front
  std::vector<Interval> symbolRanges;
  unsigned counter = 0;
  bool failed = false;
};

DType Generator::randomDType() {
  // Mostly f32; the others where the op allows. The wide unsigned dtypes
  // reach values at and above 2^(width-1), where a signed op differs.
  static const std::vector<std::pair<DType, unsigned>> weights = {
      {DType::F32, 50}, {DType::F64, 10}, {DType::F16, 10}, {DType::BF16, 8},
      {DType::I32, 10}, {DType::I8, 6},   {DType::Bool, 6}, {DType::U16, 3},
      {DType::U32, 4},  {DType::U64, 3}};
  unsigned total = 0;
  for (auto [d, w] : weights)
    if (allowedDType(d))
      total += w;
  if (!total)
    return DType::F32;
  uint64_t r = below(total);
  for (auto [d, w] : weights) {
    if (!allowedDType(d))
      continue;
    if (r < w)
      return d;
    r -= w;
  }
  return DType::F32;
}

std::vector<std::string> Generator::symbolNames() const {
  std::vector<std::string> names;
  for (const GenSymbol &s : prog.symbols)
    names.push_back(s.name);
  return names;
}

std::string Generator::dimText(const ShapeExpr &dim) const {
  if (auto c = dim.getConstant())
    return std::to_string(*c);
  return "\"" + dim.toString(symbolNames()) + "\"";
}

std::string Generator::shapeText(const Shape &shape) const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + dimText(shape[i]);
  return s + "]";
}

static bool isStaticOne(const ShapeExpr &d) {
  auto c = d.getConstant();
  return c && *c == 1;
}

bool Generator::compatible(const Shape &a, const Shape &b) const {
  size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= a.size() || i >= b.size())
      continue;
    const ShapeExpr &x = a[a.size() - 1 - i], &y = b[b.size() - 1 - i];
    if (x != y && !isStaticOne(x) && !isStaticOne(y))
      return false;
  }
  return true;
}

std::vector<const Value *> Generator::candidates(
    const std::function<bool(const Value &)> &accept) const {
  std::vector<const Value *> result;
  for (const Value &v : pool)
    if (accept(v))
      result.push_back(&v);
  return result;
}

const Value *
Generator::choose(const std::function<bool(const Value &)> &accept) {
  std::vector<const Value *> all = candidates(accept);
  if (all.empty())
    return nullptr;
  // Prefer recent values so that chains get deep.
  if (all.size() > 4 && chance(60))
    return all[all.size() - 1 - below(4)];
  return pick(all);
}

const Value *
Generator::addNode(const std::string &op, std::vector<std::string> operands,
                   std::vector<std::pair<std::string, std::string>> attrs,
                   bool exact, unsigned results) {
  if (failed)
    return nullptr;
  GenNode node{freshName("n"), op, std::move(operands), std::move(attrs)};
  prog.nodes.push_back(node);
  GeneratedProgram probe = prog;
  probe.outputs = {node.name};
  DiagnosticEngine diags;
  std::unique_ptr<Program> checked =
      verifyProgramText(probe.toJson(), prog.name + ".json", diags);
  if (!checked) {
    prog.generatorError = diagnosticText(diags) + "(while adding node '" +
                          node.name + "' (" + op + "); program:\n" +
                          probe.toJson() + ")\n";
    failed = true;
    return nullptr;
  }
  const Node *added = nullptr;
  for (const Node &n : checked->body.nodes)
    if (n.name == node.name)
      added = &n;
  const Value *first = nullptr;
  for (unsigned r = 0; r < results && added && r < added->resultTypes.size();
       ++r) {
    Value v;
    v.ref = r ? node.name + ":" + std::to_string(r) : node.name;
    v.type = added->resultTypes[r];
    v.exact = exact || !isFloat(v.type.dtype);
    pool.push_back(v);
    if (!first)
      first = &pool.back();
  }
  return first;
}

static double randomQuarter(int64_t q) { return double(q) / 4.0; }

const Value *Generator::addConstant(DType dtype, std::vector<int64_t> shape,
                                    bool positive) {
  GenConstant c{freshName("c"), dtype, shape, {}};
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  for (int64_t i = 0; i < count; ++i) {
    if (dtype == DType::Bool)
      c.data.push_back(double(below(2)));
    else if (isFloat(dtype))
      c.data.push_back(positive ? randomQuarter(range(2, 16))
                                : randomQuarter(range(-16, 16)));
    else if (isUnsigned(dtype)) // the values it holds
      c.data.push_back(double(positive ? range(1, 8) : range(0, 16)));
    else
      c.data.push_back(double(positive ? range(1, 8) : range(-8, 8)));
  }
  prog.constants.push_back(c);
  Value v;
  v.ref = c.name;
  v.type.dtype = dtype;
  for (int64_t d : shape)
    v.type.shape.push_back(ShapeExpr::constant(d));
  pool.push_back(v);
  return &pool.back();
}

const Value *Generator::scalar(DType dtype, double value) {
  GenConstant c{freshName("c"), dtype, {}, {value}};
  prog.constants.push_back(c);
  Value v;
  v.ref = c.name;
  v.type.dtype = dtype;
  pool.push_back(v);
  return &pool.back();
}

const Value *Generator::partnerFor(const Value &a, bool needExact,
                                   const Shape *also) {
  if (chance(60)) {
    const Value *b = choose([&](const Value &v) {
      return v.type.dtype == a.type.dtype && (v.exact || !needExact) &&
             compatible(a.type.shape, v.type.shape) &&
             (!also || compatible(*also, v.type.shape));
    });
    if (b)
      return b;
  }
  // A constant: a suffix of a's shape, symbolic dims (and some static ones)
  // replaced by 1.
  size_t rank = a.type.shape.size();
  size_t keep = rank ? below(rank + 1) : 0;
  std::vector<int64_t> shape;
  for (size_t i = rank - keep; i < rank; ++i) {
    auto c = a.type.shape[i].getConstant();
    shape.push_back(c && !also && chance(75) ? *c : 1);
  }
  return addConstant(a.type.dtype, shape);
}

const Value *Generator::positive(const Value &x, double c) {
  if (!allowedOp("abs") || !allowedOp("add"))
    return nullptr;
  std::string xref = x.ref;
  bool exact = x.exact;
  DType dtype = x.type.dtype;
  const Value *a = addNode("abs", {xref}, {}, exact);
  if (!a)
    return nullptr;
  std::string aref = a->ref;
  const Value *k = scalar(dtype, c);
  std::string kref = k->ref;
  return addNode("add", {aref, kref}, {}, exact);
}

static bool isFloatValue(const Value &v) { return isFloat(v.type.dtype); }

bool Generator::genUnary() {
  using D = ElementwiseDomain;
  static const std::vector<std::string> floatOps =
      elementwiseOps([](const OpInfo &info) {
        return info.domain == D::Total && acceptsFloat(info);
      });
  static const std::vector<std::string> numericOps =
      elementwiseOps([](const OpInfo &info) {
        return info.domain == D::Total && info.dtypes == DTypeClass::Numeric;
      });
  static const std::vector<std::string> discontinuous =
      elementwiseOps([](const OpInfo &info) {
        return info.domain == D::Discontinuous;
      });
  unsigned kind = below(3);
  std::string op;
  const Value *x = nullptr;
  if (kind == 0) {
    op = pick(floatOps);
    x = choose(isFloatValue);
  } else if (kind == 1) {
    op = pick(numericOps);
    x = choose([](const Value &v) { return v.type.dtype != DType::Bool; });
  } else {
    // An exact operand of a dtype the op accepts (tan: floats only).
    op = pick(discontinuous);
    DTypeClass dtypes = lookupOp(op)->dtypes;
    x = choose([dtypes](const Value &v) {
      return acceptsDType(dtypes, v.type.dtype) && v.exact;
    });
  }
  if (!x || !allowedOp(op))
    return false;
  std::vector<std::pair<std::string, std::string>> attrs;
  if (op == "gelu" && chance(50))
    attrs.push_back({"approximate", chance(50) ? "\"tanh\"" : "\"none\""});
  if (op == "leaky_relu" && chance(50))
    attrs.push_back({"alpha", number(randomQuarter(range(1, 3)) / 2)});
  if (op == "hard_sigmoid" && chance(50)) {
    attrs.push_back({"alpha", number(randomQuarter(range(1, 3)) / 4)});
    attrs.push_back({"beta", number(randomQuarter(range(1, 3)) / 2)});
  }
  if (op == "clamp") {
    bool isInt = !isFloat(x->type.dtype);
    double lo = isInt ? double(range(-6, 0)) : randomQuarter(range(-12, 0));
    double hi = isInt ? double(range(0, 6)) : randomQuarter(range(0, 12));
    unsigned which = below(3);
    if (which != 1)
      attrs.push_back({"min", number(lo)});
    if (which != 0)
      attrs.push_back({"max", number(hi)});
  }
  return addNode(op, {x->ref}, attrs, x->exact && isExactOp(op)) != nullptr;
}

bool Generator::genDomainUnary() {
  static const std::vector<std::string> ops =
      elementwiseOps([](const OpInfo &info) {
        return info.domain == ElementwiseDomain::PositiveDomain;
      });
  std::string op = pick(ops);
  const Value *x = choose(isFloatValue);
  if (!x || !allowedOp(op))
    return false;
  const Value *p = positive(*x, chance(50) ? 0.5 : 1.0);
  if (!p)
    return false;
  return addNode(op, {p->ref}, {}, p->exact && isExactOp(op)) != nullptr;
}

bool Generator::genBinary() {
  auto ofDomain = [](ElementwiseDomain domain) {
    return elementwiseOps(
        [&](const OpInfo &info) { return info.domain == domain; });
  };
  static const std::vector<std::string> arith =
      ofDomain(ElementwiseDomain::Arithmetic);
  static const std::vector<std::string> compare =
      ofDomain(ElementwiseDomain::Comparison);
  static const std::vector<std::string> logic =
      ofDomain(ElementwiseDomain::Logical);
  unsigned kind = below(10);
  std::string op = kind < 6   ? pick(arith)
                   : kind < 9 ? pick(compare)
                              : pick(logic);
  if (!allowedOp(op))
    return false;
  bool isCompare = kind >= 6 && kind < 9;
  bool isLogic = kind == 9;
  if (isCompare && !allowedDType(DType::Bool))
    return false;
  // A remainder amplifies a last-bit difference of its operands.
  bool isRemainder = op == "mod" || op == "fmod";
  bool needExact = isCompare || isRemainder;
  const Value *a = choose([&](const Value &v) {
    if (needExact && !v.exact)
      return false;
    if (isLogic) // and/or/xor: integers or bool; shifts: unsigned
      return acceptsDType(lookupOp(op)->dtypes, v.type.dtype);
    if (isCompare)
      return true;
    if (op == "maximum" || op == "minimum")
      return true;
    return v.type.dtype != DType::Bool;
  });
  if (!a)
    return false;
  Value aCopy = *a;
  const Value *b = partnerFor(aCopy, needExact);
  if (!b)
    return false;
  Value bCopy = *b;
  bool floatType = isFloat(aCopy.type.dtype);
  std::string aref = aCopy.ref, bref = bCopy.ref;
  if ((op == "div" || isRemainder) && floatType) {
    const Value *p = positive(bCopy, 0.5);
    if (!p)
      return false;
    bref = p->ref;
  } else if (op == "pow") {
    if (!allowedOp("clamp"))
      return false;
    if (floatType) {
      const Value *p = positive(aCopy, 0.5);
      if (!p)
        return false;
      aref = p->ref;
    }
    const Value *e = addNode(
        "clamp", {bref},
        {{"min", floatType ? "-3" : "0"}, {"max", floatType ? "3" : "5"}},
        bCopy.exact);
    if (!e)
      return false;
    bref = e->ref;
  }
  bool exact = aCopy.exact && bCopy.exact && isExactOp(op);
  return addNode(op, {aref, bref}, {}, exact) != nullptr;
}

bool Generator::genSelect() {
  if (!allowedOp("select") || !allowedOp("gt") || !allowedDType(DType::Bool))
    return false;
  const Value *a = choose([](const Value &) { return true; });
  if (!a)
    return false;
  Value aCopy = *a;
  // The condition: a bool from the pool, or gt(e, 0) of an exact value.
  const Value *cond = choose([&](const Value &v) {
    return v.type.dtype == DType::Bool && compatible(v.type.shape, aCopy.type.shape);
  });
  std::string condRef;
  if (cond && chance(50)) {
    condRef = cond->ref;
  } else {
    const Value *e = choose([&](const Value &v) {
      return v.exact && compatible(v.type.shape, aCopy.type.shape);
    });
    if (!e)
      return false;
    std::string eref = e->ref;
    const Value *zero = scalar(e->type.dtype, 0);
    std::string zref = zero->ref;
    const Value *c = addNode("gt", {eref, zref}, {}, true);
    if (!c)
      return false;
    condRef = c->ref;
  }
  Shape condShape;
  for (const Value &v : pool)
    if (v.ref == condRef)
      condShape = v.type.shape;
  const Value *b = partnerFor(aCopy, false, &condShape);
  if (!b)
    return false;
  bool exact = aCopy.exact && b->exact;
  return addNode("select", {condRef, aCopy.ref, b->ref}, {}, exact) != nullptr;
}

bool Generator::genCast() {
  if (!allowedOp("cast"))
    return false;
  const Value *x = choose([](const Value &) { return true; });
  if (!x)
    return false;
  DType to = randomDType();
  if (isFloat(x->type.dtype) && !isFloat(to) && !x->exact)
    return false; // truncation would amplify a last-bit difference
  // A rounded value keeps its last-bit difference when widened (layer_norm
  // in f32 cast to f64), and the wider dtype's tolerance does not allow it.
  if (isFloat(x->type.dtype) && isFloat(to) && !x->exact &&
      toleranceFor(to).rtol < toleranceFor(x->type.dtype).rtol)
    return false;
  return addNode("cast", {x->ref},
                 {{"dtype", "\"" + dtypeName(to).str() + "\""}},
                 x->exact) != nullptr;
}

bool Generator::genReduction() {
  static const std::vector<std::string> ops = {
      "sum", "mean", "max", "min", "prod", "argmax", "argmin"};
  std::string op = pick(ops);
  if (!allowedOp(op))
    return false;
  bool isArg = op == "argmax" || op == "argmin";
  bool needsNonEmpty = isArg || op == "max" || op == "min";
  if (isArg && !allowedDType(DType::I64))
    return false;
  const Value *x = choose([&](const Value &v) {
    if (v.type.dtype == DType::Bool || v.type.shape.empty())
      return false;
    if (op == "mean" && !isFloat(v.type.dtype))
      return false;
    if (isArg && !v.exact)
      return false;
    return true;
  });
  if (!x)
    return false;
  const Shape &shape = x->type.shape;
  int64_t rank = shape.size();
  std::vector<std::pair<std::string, std::string>> attrs;
  if (isArg) {
    bool flat = chance(25);
    int64_t axis = range(0, rank - 1);
    if (needsNonEmpty) {
      if (flat) {
        for (const ShapeExpr &d : shape)
          if (mayBeZero(d))
            return false;
      } else if (mayBeZero(shape[axis])) {
        return false;
      }
    }
    if (!flat)
      attrs.push_back({"axis", std::to_string(chance(30) ? axis - rank : axis)});
  } else {
    std::vector<int64_t> axes;
    bool all = chance(20);
    for (int64_t d = 0; d < rank; ++d)
      if (all || chance(50))
        axes.push_back(d);
    if (axes.empty())
      axes.push_back(range(0, rank - 1));
    if (needsNonEmpty)
      for (int64_t d : axes)
        if (mayBeZero(shape[d]))
          return false;
    if (!all) {
      std::string list = "[";
      for (size_t i = 0; i < axes.size(); ++i)
        list += (i ? ", " : "") +
                std::to_string(chance(20) ? axes[i] - rank : axes[i]);
      attrs.push_back({"axes", list + "]"});
    }
  }
  if (chance(40))
    attrs.push_back({"keepdims", chance(70) ? "true" : "false"});
  return addNode(op, {x->ref}, attrs, x->exact && isExactOp(op)) != nullptr;
}

bool Generator::genSoftmax() {
  std::string op = chance(50) ? "softmax" : "log_softmax";
  if (!allowedOp(op))
    return false;
  const Value *x = choose(
      [](const Value &v) { return isFloatValue(v) && !v.type.shape.empty(); });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  std::vector<std::pair<std::string, std::string>> attrs;
  if (chance(60))
    attrs.push_back({"axis", std::to_string(range(-rank, rank - 1))});
  return addNode(op, {x->ref}, attrs, false) != nullptr;
}

bool Generator::genCumSum() {
  if (!allowedOp("cumsum"))
    return false;
  // Exact operands only: a running sum can cancel to a value far smaller
  // than the last-bit differences of its rounded terms.
  const Value *x = choose([](const Value &v) {
    return v.type.dtype != DType::Bool && !v.type.shape.empty() && v.exact;
  });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  std::vector<std::pair<std::string, std::string>> attrs = {
      {"axis", std::to_string(range(-rank, rank - 1))}};
  if (chance(40))
    attrs.push_back({"exclusive", chance(75) ? "true" : "false"});
  if (chance(40))
    attrs.push_back({"reverse", chance(75) ? "true" : "false"});
  return addNode("cumsum", {x->ref}, attrs, true) != nullptr;
}

bool Generator::genTopK() {
  if (!allowedOp("topk") || !allowedDType(DType::I64))
    return false;
  // Exact operands only, as for argmax: a last-bit difference can reorder
  // two nearly equal values and so change the indices.
  const Value *x = choose([](const Value &v) {
    return v.type.dtype != DType::Bool && !v.type.shape.empty() && v.exact;
  });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  int64_t axis = range(0, rank - 1);
  // k fits the smallest value the dim can take; k = 0 too.
  int64_t most = std::min<int64_t>(dimBounds(x->type.shape[axis]).min, 5);
  std::vector<std::pair<std::string, std::string>> attrs = {
      {"k", std::to_string(range(0, std::max<int64_t>(most, 0)))}};
  if (axis != rank - 1 || chance(30))
    attrs.push_back({"axis", std::to_string(chance(30) ? axis - rank : axis)});
  if (chance(40))
    attrs.push_back({"largest", chance(50) ? "true" : "false"});
  if (chance(20))
    attrs.push_back({"sorted", chance(50) ? "true" : "false"});
  return addNode("topk", {x->ref}, attrs, true, 2) != nullptr;
}

bool Generator::genNorm() {
  std::string op = chance(60) ? "layer_norm" : "rms_norm";
  if (!allowedOp(op))
    return false;
  // Exact operands only: dividing by the standard deviation of nearly
  // equal values amplifies their last-bit differences up to 1/sqrt(eps)
  // times (seed 65: erf into a layer_norm of two elements).
  const Value *x = choose([](const Value &v) {
    return isFloatValue(v) && !v.type.shape.empty() && v.exact;
  });
  if (!x)
    return false;
  std::string xref = x->ref;
  DType dtype = x->type.dtype;
  Shape shape = x->type.shape;
  int64_t rank = shape.size();
  int64_t ndim = std::min<int64_t>(rank, range(1, 2));
  std::vector<std::string> operands = {xref};
  std::vector<std::pair<std::string, std::string>> attrs;
  if (ndim != 1 || chance(30))
    attrs.push_back({"normalized_ndim", std::to_string(ndim)});
  if (chance(30))
    attrs.push_back({"eps", chance(50) ? "0.001" : "1e-05"});
  // weight (and bias) when the normalized dims are static.
  std::vector<int64_t> normShape;
  bool isStatic = true;
  for (int64_t d = rank - ndim; d < rank; ++d) {
    auto c = shape[d].getConstant();
    isStatic = isStatic && c.has_value();
    normShape.push_back(c.value_or(0));
  }
  if (isStatic && chance(60)) {
    operands.push_back(addConstant(dtype, normShape)->ref);
    if (op == "layer_norm" && chance(50))
      operands.push_back(addConstant(dtype, normShape)->ref);
  }
  return addNode(op, operands, attrs, false) != nullptr;
}

bool Generator::genMatmul() {
  if (!allowedOp("matmul"))
    return false;
  const Value *a = choose([](const Value &v) {
    return v.type.dtype != DType::Bool && !v.type.shape.empty() &&
           v.type.shape.size() <= 3;
  });
  if (!a)
    return false;
  Value aCopy = *a;
  const ShapeExpr K = aCopy.type.shape.back();
  size_t rank = aCopy.type.shape.size();
  // b: a pool value [K, N], a constant [K, N], or aᵀ.
  const Value *b = chance(60) ? choose([&](const Value &v) {
    return v.type.dtype == aCopy.type.dtype && v.type.shape.size() == 2 &&
           v.type.shape[0] == K;
  })
                              : nullptr;
  std::string bref;
  bool bExact = true;
  if (b) {
    bref = b->ref;
    bExact = b->exact;
  } else if (auto k = K.getConstant()) {
    if (chance(30))
      bref = addConstant(aCopy.type.dtype, {*k})->ref; // [K]: matrix-vector
    else
      bref = addConstant(aCopy.type.dtype, {*k, range(1, 5)})->ref;
  } else if (rank == 2 && allowedOp("transpose")) {
    const Value *t = addNode("transpose", {aCopy.ref}, {}, aCopy.exact);
    if (!t)
      return false;
    bref = t->ref;
    bExact = aCopy.exact;
  } else if (rank == 1) {
    bref = aCopy.ref; // dot product
  } else {
    return false;
  }
  bool exact = !isFloat(aCopy.type.dtype) && aCopy.exact && bExact;
  return addNode("matmul", {aCopy.ref, bref}, {}, exact) != nullptr;
}

bool Generator::genLinear() {
  if (!allowedOp("linear"))
    return false;
  const Value *x = choose([](const Value &v) {
    return isFloatValue(v) && !v.type.shape.empty() &&
           v.type.shape.back().isConstant();
  });
  if (!x)
    return false;
  std::string xref = x->ref;
  DType dtype = x->type.dtype;
  int64_t K = *x->type.shape.back().getConstant();
  int64_t N = range(1, 6);
  std::vector<std::string> operands = {xref,
                                       addConstant(dtype, {N, K})->ref};
  if (chance(60))
    operands.push_back(addConstant(dtype, {N})->ref);
  return addNode("linear", operands, {}, false) != nullptr;
}

bool Generator::genTranspose() {
  std::string op = chance(50) ? "transpose" : "permute";
  if (!allowedOp(op))
    return false;
  const Value *x = choose([](const Value &v) { return v.type.shape.size() >= 2; });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  std::vector<int64_t> perm(rank);
  for (int64_t i = 0; i < rank; ++i)
    perm[i] = i;
  for (int64_t i = rank - 1; i > 0; --i)
    std::swap(perm[i], perm[below(i + 1)]);
  std::vector<std::pair<std::string, std::string>> attrs;
  if (op == "permute" || chance(60)) {
    std::string list = "[";
    for (int64_t i = 0; i < rank; ++i)
      list += (i ? ", " : "") + std::to_string(perm[i]);
    attrs.push_back({"perm", list + "]"});
  }
  return addNode(op, {x->ref}, attrs, x->exact) != nullptr;
}

/// A dim reshape's inferred -1 can divide out: a single term.
static bool singleTerm(const ShapeExpr &d) { return d.terms().size() <= 1; }

bool Generator::genReshape() {
  if (!allowedOp("reshape"))
    return false;
  const Value *x = choose([](const Value &v) { return !v.type.shape.empty(); });
  if (!x)
    return false;
  const Shape &shape = x->type.shape;
  size_t rank = shape.size();
  std::vector<std::string> dims;
  unsigned how = below(3);
  if (how == 0) {
    if (!productOk(shape, 0, rank))
      return false;
    dims.push_back("-1"); // flatten everything
  } else if (how == 1 && rank >= 2) {
    // Merge dims i and i+1 (the others explicit; -1 for the merged one).
    size_t i = below(rank - 1);
    if (!productOk(shape, i, i + 2))
      return false;
    for (size_t d = 0; d < rank; ++d) {
      if (d == i + 1)
        continue;
      if (d != i && (!singleTerm(shape[d]) ||
                     (shape[d].isConstant() && *shape[d].getConstant() == 0)))
        return false;
      dims.push_back(d == i ? "-1" : dimText(shape[d]));
    }
  } else {
    // Split a static dim into two factors (or add a leading 1).
    std::vector<size_t> splittable;
    for (size_t d = 0; d < rank; ++d)
      if (auto c = shape[d].getConstant(); c && *c >= 4 && *c % 2 == 0)
        splittable.push_back(d);
    if (splittable.empty()) {
      dims.push_back("1");
      for (const ShapeExpr &d : shape)
        dims.push_back(dimText(d));
    } else {
      size_t s = pick(splittable);
      for (size_t d = 0; d < rank; ++d) {
        if (d == s) {
          dims.push_back("2");
          dims.push_back(std::to_string(*shape[d].getConstant() / 2));
        } else {
          dims.push_back(dimText(shape[d]));
        }
      }
    }
  }
  if (dims.size() > 8)
    return false;
  std::string list = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    list += (i ? ", " : "") + dims[i];
  return addNode("reshape", {x->ref}, {{"shape", list + "]"}}, x->exact) !=
         nullptr;
}

bool Generator::genFlatten() {
  if (!allowedOp("flatten"))
    return false;
  const Value *x = choose([](const Value &v) { return v.type.shape.size() >= 2; });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  int64_t start = range(0, rank - 2), end = range(start + 1, rank - 1);
  if (!productOk(x->type.shape, start, end + 1))
    return false;
  std::vector<std::pair<std::string, std::string>> attrs;
  if (start || chance(30))
    attrs.push_back({"start_dim", std::to_string(start)});
  if (end != rank - 1 || chance(30))
    attrs.push_back({"end_dim", std::to_string(chance(50) ? end : end - rank)});
  return addNode("flatten", {x->ref}, attrs, x->exact) != nullptr;
}

bool Generator::genSqueezeUnsqueeze() {
  bool squeeze = chance(40);
  if (!allowedOp(squeeze ? "squeeze" : "unsqueeze"))
    return false;
  if (squeeze) {
    const Value *x = choose([](const Value &v) {
      return std::any_of(v.type.shape.begin(), v.type.shape.end(), isStaticOne);
    });
    if (!x)
      return false;
    std::vector<std::pair<std::string, std::string>> attrs;
    if (chance(50)) {
      for (size_t d = 0; d < x->type.shape.size(); ++d)
        if (isStaticOne(x->type.shape[d])) {
          attrs.push_back({"axes", "[" + std::to_string(d) + "]"});
          break;
        }
    }
    return addNode("squeeze", {x->ref}, attrs, x->exact) != nullptr;
  }
  const Value *x = choose([](const Value &v) { return v.type.shape.size() < 6; });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  int64_t axis = range(0, rank);
  return addNode("unsqueeze", {x->ref},
                 {{"axes", "[" + std::to_string(axis) + "]"}},
                 x->exact) != nullptr;
}

bool Generator::genConcat() {
  if (!allowedOp("concat"))
    return false;
  const Value *a = choose([](const Value &v) { return !v.type.shape.empty(); });
  if (!a)
    return false;
  Value aCopy = *a;
  int64_t rank = aCopy.type.shape.size();
  int64_t axis = range(0, rank - 1);
  auto fits = [&](const Value &v) {
    if (v.type.dtype != aCopy.type.dtype || (int64_t)v.type.shape.size() != rank)
      return false;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && v.type.shape[d] != aCopy.type.shape[d])
        return false;
    return true;
  };
  std::vector<std::string> operands = {aCopy.ref};
  bool exact = aCopy.exact;
  unsigned more = range(1, 2);
  for (unsigned i = 0; i < more; ++i) {
    const Value *b = choose(fits);
    operands.push_back(b->ref); // a itself always fits
    exact = exact && b->exact;
  }
  return addNode("concat", operands, {{"axis", std::to_string(axis)}},
                 exact) != nullptr;
}

bool Generator::genSlice() {
  if (!allowedOp("slice"))
    return false;
  const Value *x = choose([](const Value &v) { return !v.type.shape.empty(); });
  if (!x)
    return false;
  int64_t rank = x->type.shape.size();
  int64_t axis = range(0, rank - 1);
  const ShapeExpr &dim = x->type.shape[axis];
  int64_t start, end, step = 1;
  bool reverse = chance(25);
  if (auto c = dim.getConstant()) {
    if (*c < 1)
      return false;
    if (reverse) {
      // From start down to end (exclusive; -1 is "before the first"),
      // written as Python would: INT64_MIN to the beginning, INT64_MAX or a
      // bound past the end for the last element, a step up to past the dim.
      start = range(0, *c - 1);
      int64_t stop = range(-1, start - 1);
      step = -range(1, chance(15) ? *c + 1 : 2);
      end = stop < 0 ? (chance(50) ? INT64_MIN : -*c - range(1, 3)) : stop;
      if (start == *c - 1 && chance(30))
        start = chance(50) ? INT64_MAX : *c + range(0, 3);
      else if (chance(20))
        start -= *c; // negative: counts from the end
    } else {
      start = range(0, *c - 1);
      end = range(start + 1, *c);
      step = range(1, 2);
      if (chance(20))
        start -= *c; // negative: counts from the end
    }
  } else if (reverse) {
    // Step -1 from S-k down to a constant e (or to the beginning): S-k-e
    // elements, never negative (at the minimum it may be 0).
    int64_t lo = dimBounds(dim).min;
    int64_t k = range(1, std::max<int64_t>(1, std::min<int64_t>(lo, 3)));
    start = -k;
    step = -1;
    end = INT64_MIN;
    if (lo - k >= 0 && chance(40))
      end = range(0, lo - k);
  } else {
    int64_t lo = dimBounds(dim).min;
    start = range(0, std::min<int64_t>(lo, 3));
    end = INT64_MAX;
    if (lo - start >= 1 && chance(40))
      end = -range(1, lo - start); // S - k, never before start
  }
  std::vector<std::pair<std::string, std::string>> attrs = {
      {"starts", "[" + std::to_string(start) + "]"},
      {"ends", "[" + std::to_string(end) + "]"},
      {"axes", "[" + std::to_string(axis) + "]"}};
  if (step != 1)
    attrs.push_back({"steps", "[" + std::to_string(step) + "]"});
  return addNode("slice", {x->ref}, attrs, x->exact) != nullptr;
}

bool Generator::genPad() {
  if (!allowedOp("pad"))
    return false;
  const Value *x = choose([](const Value &v) { return !v.type.shape.empty(); });
  if (!x)
    return false;
  const Shape &shape = x->type.shape;
  int64_t rank = shape.size();
  unsigned mode = below(3); // constant, edge, reflect
  std::vector<int64_t> pads(2 * rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    if (!chance(50))
      continue;
    int64_t lo = dimBounds(shape[d]).min;
    int64_t limit = mode == 0 ? 2 : mode == 1 ? (lo >= 1 ? 2 : 0) : std::min<int64_t>(lo - 1, 2);
    if (limit <= 0)
      continue;
    pads[d] = range(0, limit);
    pads[rank + d] = range(0, limit);
  }
  std::string list = "[";
  for (size_t i = 0; i < pads.size(); ++i)
    list += (i ? ", " : "") + std::to_string(pads[i]);
  std::vector<std::pair<std::string, std::string>> attrs = {{"pads", list + "]"}};
  if (mode == 1)
    attrs.push_back({"mode", "\"edge\""});
  else if (mode == 2)
    attrs.push_back({"mode", "\"reflect\""});
  else if (chance(50))
    attrs.push_back({"value", x->type.dtype == DType::Bool ? "1" : "2"});
  return addNode("pad", {x->ref}, attrs, x->exact) != nullptr;
}

bool Generator::genBroadcast() {
  std::string op = chance(50) ? "broadcast" : "broadcast_to";
  if (!allowedOp(op))
    return false;
  const Value *x = choose([](const Value &v) { return v.type.shape.size() < 4; });
  if (!x)
    return false;
  auto newDim = [&]() {
    if (!prog.symbols.empty() && chance(40)) {
      uint32_t id = below(prog.symbols.size());
      return ShapeExpr::symbol({id, prog.symbols[id].multipleOf});
    }
    return ShapeExpr::constant(range(1, 4));
  };
  Shape target;
  unsigned extra = below(2);
  for (unsigned i = 0; i < extra; ++i)
    target.push_back(newDim());
  for (const ShapeExpr &d : x->type.shape)
    target.push_back(isStaticOne(d) && chance(70) ? newDim() : d);
  return addNode(op, {x->ref}, {{"shape", shapeText(target)}}, x->exact) !=
         nullptr;
}

bool Generator::genSplit() {
  if (!allowedOp("split"))
    return false;
  const Value *x = choose([&](const Value &v) {
    return !axesAtLeast(v.type.shape, 2).empty();
  });
  if (!x)
    return false;
  int64_t axis = pick(axesAtLeast(x->type.shape, 2));
  const ShapeExpr &dim = x->type.shape[axis];
  std::vector<std::pair<std::string, std::string>> attrs;
  if (axis || chance(50))
    attrs.push_back({"axis", std::to_string(axis)});
  unsigned results = 2;
  auto c = dim.getConstant();
  if (c && *c % 2 == 0 && chance(50)) {
    attrs.push_back({"num", "2"});
  } else if (chance(50)) {
    attrs.push_back({"sizes", "[1, -1]"});
  } else {
    attrs.push_back({"sizes", "[-1, 1, 1]"});
    results = 3;
  }
  return addNode("split", {x->ref}, attrs, x->exact, results) != nullptr;
}

bool Generator::genTile() {
  if (!allowedOp("tile"))
    return false;
  const Value *x = choose([](const Value &v) { return v.type.shape.size() < 4; });
  if (!x)
    return false;
  // At most 8 copies in all, so that the symbols' maximum stays large.
  std::string list = "[";
  int64_t copies = 1;
  for (size_t d = 0; d < x->type.shape.size(); ++d) {
    int64_t repeat = copies < 4 && chance(50) ? range(2, 3) : 1;
    copies *= repeat;
    list += (d ? ", " : "") + std::to_string(repeat);
  }
  return addNode("tile", {x->ref}, {{"repeats", list + "]"}}, x->exact) !=
         nullptr;
}

/// "[a, b, ...]".
static std::string intList(llvm::ArrayRef<int64_t> values) {
  std::string list = "[";
  for (size_t i = 0; i < values.size(); ++i)
    list += (i ? ", " : "") + std::to_string(values[i]);
  return list + "]";
}

/// "[v, v, ...]" with `n` values.
static std::string repeatedList(unsigned n, int64_t value) {
  return intList(std::vector<int64_t>(n, value));
}

/// A rank-5 operand of a 3-D op from a rank-3 or rank-4 value: `x` with
/// dims of 1 inserted at random axes, one of them at `channels` when the
/// channel count must be static and would not be.
const Value *Generator::asVolume(const Value &x, unsigned channels,
                                 bool staticChannels) {
  if (!allowedOp("unsqueeze"))
    return nullptr;
  std::vector<int64_t> axes; // positions in the rank-5 result
  while (axes.size() + x.type.shape.size() < 5) {
    int64_t axis = range(0, 4);
    if (!llvm::is_contained(axes, axis))
      axes.push_back(axis);
  }
  std::sort(axes.begin(), axes.end());
  // x's dim at `channels` (the inserted ones are static).
  unsigned inserted = llvm::count_if(
      axes, [&](int64_t axis) { return axis < int64_t(channels); });
  if (staticChannels && !llvm::is_contained(axes, int64_t(channels)) &&
      !x.type.shape[channels - inserted].isConstant()) {
    axes.back() = channels;
    std::sort(axes.begin(), axes.end());
  }
  return addNode("unsqueeze", {x.ref}, {{"axes", intList(axes)}}, x.exact);
}

bool Generator::genConvPool() {
  static const std::vector<std::string> ops = {"conv2d", "max_pool2d",
                                               "avg_pool2d", "global_avg_pool"};
  return genWindowOp(pick(ops));
}

/// The 3-D ops have their own weight, so that they do not take the 2-D
/// ops' share (conv2d, which needs static channels, is already rare).
bool Generator::genConvPool3D() {
  static const std::vector<std::string> ops = {"conv3d", "max_pool3d",
                                               "avg_pool3d"};
  return genWindowOp(pick(ops));
}

/// A convolution or pool `op` of a float value (or i8/u8 for a max pool) of
/// the op's rank, with a random layout and window.
bool Generator::genWindowOp(const std::string &op) {
  if (!allowedOp(op))
    return false;
  OpKind kind = lookupOp(op)->kind;
  unsigned spatial = spatialRank(kind);
  Layout layout = chance(30) ? Layout::ChannelsLast : Layout::ChannelsFirst;
  LayoutDims dims = layoutDims(layout, spatial);
  bool isConv = kind == OpKind::Conv2D || kind == OpKind::Conv3D;
  bool isMax = kind == OpKind::MaxPool2D || kind == OpKind::MaxPool3D;
  auto accepts = [&](const Value &v, size_t rank) {
    DType d = v.type.dtype;
    bool integerMaxPool = isMax && (d == DType::I8 || d == DType::U8);
    return (isFloatValue(v) || integerMaxPool) && v.type.shape.size() == rank;
  };
  const Value *x = choose([&](const Value &v) {
    return accepts(v, spatial + 2) &&
           (!isConv || v.type.shape[dims.channels].isConstant());
  });
  // Rank-5 values are rare: the 3-D ops make one of rank 3 or 4 (a copy,
  // as adding a node may move the pool).
  if (!x && spatial == 3)
    if (const Value *lower = choose([&](const Value &v) {
          return accepts(v, 3) || accepts(v, 4);
        }))
      x = asVolume(Value(*lower), dims.channels, isConv);
  if (!x)
    return false;
  std::string xref = x->ref;
  DType dtype = x->type.dtype;
  Shape shape = x->type.shape;
  bool exact = x->exact;
  std::vector<std::pair<std::string, std::string>> attrs;
  if (layout == Layout::ChannelsLast)
    attrs.push_back(
        {"layout", "\"" + layoutName(layout, spatial).str() + "\""});
  if (op == "global_avg_pool")
    return addNode(op, {xref}, attrs, false) != nullptr;
  // kernel k with padding k/2 fits any spatial dim >= 1.
  int64_t spatialMin = std::numeric_limits<int64_t>::max();
  for (unsigned dim : dims.spatial)
    spatialMin = std::min(spatialMin, dimBounds(shape[dim]).min);
  if (spatialMin < 1)
    return false;
  int64_t k = range(1, 3);
  if (isConv) {
    int64_t C = *shape[dims.channels].getConstant();
    int64_t O = range(1, 4);
    std::vector<int64_t> w(spatial, k);
    if (layout == Layout::ChannelsFirst)
      w.insert(w.begin(), {O, C});
    else
      w.insert(w.end(), {C, O});
    std::vector<std::string> operands = {xref, addConstant(dtype, w)->ref};
    if (chance(50))
      operands.push_back(addConstant(dtype, {O})->ref);
    attrs.push_back({"padding", repeatedList(spatial, k / 2)});
    return addNode(op, operands, attrs, false) != nullptr;
  }
  attrs.push_back({"kernel", repeatedList(spatial, k)});
  poolWindowAttrs(isMax, k, spatialMin, shape, dims, attrs);
  if (!isMax && chance(50))
    attrs.push_back({"count_include_pad", chance(50) ? "true" : "false"});
  return addNode(op, {xref}, attrs, isMax && exact) != nullptr;
}

/// A pool's stride, padding, dilation and ceil_mode for a kernel of k in
/// each spatial dim of `dims`, each at least `spatialMin`: every window
/// starts inside the padded input, and each pad is less than the kernel
/// (docs/ops.md).
void Generator::poolWindowAttrs(
    bool isMax, int64_t k, int64_t spatialMin, const Shape &shape,
    const LayoutDims &dims,
    std::vector<std::pair<std::string, std::string>> &attrs) {
  unsigned spatial = dims.spatial.size();
  int64_t dilation = isMax && k > 1 && chance(30) ? 2 : 1;
  int64_t span = dilation * (k - 1) + 1;
  // Before and after padding in [0, k-1], enough for one window; else no
  // dilation and k/2 on both sides, which always fits.
  int64_t before = range(0, k - 1);
  int64_t after = std::max(range(0, k - 1), span - spatialMin - before);
  if (after > k - 1) {
    dilation = 1;
    before = after = k / 2;
  }
  std::string befores = repeatedList(spatial, before);
  std::string afters = repeatedList(spatial, after);
  attrs.push_back({"padding", befores.substr(0, befores.size() - 1) + ", " +
                                  afters.substr(1)});
  if (dilation != 1)
    attrs.push_back({"dilation", repeatedList(spatial, 2)});
  // ceil_mode changes the size only for strides above 1, which need the
  // sizes to be static (a ceil of a symbolic size is not a polynomial).
  bool staticSpatial = llvm::all_of(
      dims.spatial, [&](unsigned dim) { return shape[dim].isConstant(); });
  attrs.push_back(
      {"stride", repeatedList(spatial, staticSpatial && chance(50) ? 2 : 1)});
  if (chance(30))
    attrs.push_back({"ceil_mode", chance(50) ? "true" : "false"});
}

bool Generator::genGather() {
  if (!allowedOp("gather"))
    return false;
  DType indexType = chance(50) ? DType::I32 : DType::I64;
  if (!allowedDType(indexType))
    return false;
  const Value *x = choose([&](const Value &v) {
    return !axesAtLeast(v.type.shape, 1).empty();
  });
  if (!x)
    return false;
  std::string xref = x->ref;
  bool exact = x->exact;
  int64_t rank = x->type.shape.size();
  int64_t axis = pick(axesAtLeast(x->type.shape, 1));
  int64_t lo = dimBounds(x->type.shape[axis]).min;
  if (rank - 1 + 1 > 8)
    return false;
  // Constant indices in range for every value of the symbols: [0, lo-1],
  // or [-lo, lo-1] when negative indices wrap.
  bool wrap = chance(40);
  GenConstant c{freshName("c"), indexType, {range(1, 4)}, {}};
  for (int64_t i = 0; i < c.shape[0]; ++i)
    c.data.push_back(double(range(wrap ? -lo : 0, lo - 1)));
  prog.constants.push_back(c);
  std::vector<std::pair<std::string, std::string>> attrs;
  if (axis || chance(50))
    attrs.push_back({"axis", std::to_string(axis)});
  if (wrap || chance(20))
    attrs.push_back({"wrap_negative", wrap ? "true" : "false"});
  return addNode("gather", {xref, c.name}, attrs, exact) != nullptr;
}

/// gather_elements with constant indices: off the axis, the indices' dims
/// are constants no larger than data's (which must be static there); along
/// it, 1 to 3 indices per position, in range for every symbol value, and
/// negative ones (they always wrap) half the time.
bool Generator::genGatherElements() {
  if (!allowedOp("gather_elements"))
    return false;
  DType indexType = chance(50) ? DType::I32 : DType::I64;
  if (!allowedDType(indexType))
    return false;
  auto staticOffAxis = [](const Shape &shape, size_t axis) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (d != axis && !shape[d].getConstant())
        return false;
    return true;
  };
  const Value *x = choose([&](const Value &v) {
    for (int64_t axis : axesAtLeast(v.type.shape, 1))
      if (staticOffAxis(v.type.shape, axis))
        return true;
    return false;
  });
  if (!x)
    return false;
  std::vector<int64_t> axes;
  for (int64_t axis : axesAtLeast(x->type.shape, 1))
    if (staticOffAxis(x->type.shape, axis))
      axes.push_back(axis);
  int64_t axis = pick(axes);
  int64_t lo = dimBounds(x->type.shape[axis]).min;
  bool negative = chance(50);
  GenConstant c{freshName("c"), indexType, {}, {}};
  int64_t count = 1;
  for (size_t d = 0; d < x->type.shape.size(); ++d) {
    int64_t extent = int64_t(d) == axis
                         ? range(1, 3)
                         : range(0, std::min<int64_t>(
                                        *x->type.shape[d].getConstant(), 4));
    c.shape.push_back(extent);
    count *= extent;
  }
  for (int64_t i = 0; i < count; ++i)
    c.data.push_back(double(range(negative ? -lo : 0, lo - 1)));
  prog.constants.push_back(c);
  std::vector<std::pair<std::string, std::string>> attrs;
  if (axis || chance(50))
    attrs.push_back({"axis", std::to_string(axis)});
  return addNode("gather_elements", {x->ref, c.name}, attrs, x->exact) !=
         nullptr;
}

/// range: a 1-D tensor of a length that a pool value has as one of its
/// dims (so that elementwise ops can combine them), or of a symbol
/// expression or a constant; start and delta are multiples of 0.25 in
/// [-4, 4] (floats) or integers in [-8, 8] (wrapping past i8's limits).
/// Computed exactly as the interpreter does: an exact value.
bool Generator::genRange() {
  DType dtype = randomDType();
  if (!allowedOp("range") || dtype == DType::Bool)
    return false;
  ShapeExpr length = ShapeExpr::constant(range(0, 6));
  const Value *x = choose([](const Value &v) { return !v.type.shape.empty(); });
  if (x && chance(60)) {
    length = pick(x->type.shape);
  } else if (!prog.symbols.empty() && chance(60)) {
    uint32_t id = below(prog.symbols.size());
    length = *ShapeExpr::add(
        ShapeExpr::symbol({id, prog.symbols[id].multipleOf}),
        ShapeExpr::constant(range(0, 2)));
  }
  bool integer = !isFloat(dtype);
  int64_t start = isUnsigned(dtype) ? range(0, 8)
                  : integer         ? range(-8, 8)
                                    : range(-16, 16);
  int64_t delta = integer ? range(-8, 8) : range(-16, 16);
  std::vector<std::pair<std::string, std::string>> attrs = {
      {"shape", shapeText({length})},
      {"dtype", "\"" + dtypeName(dtype).str() + "\""}};
  if (start || chance(50))
    attrs.push_back(
        {"start", number(integer ? double(start) : randomQuarter(start))});
  if (delta != 1 || chance(50))
    attrs.push_back(
        {"delta", number(integer ? double(delta) : randomQuarter(delta))});
  return addNode("range", {}, attrs, true) != nullptr;
}

std::string Generator::indexConstant(std::vector<int64_t> shape,
                                     const Shape &dims) {
  DType indexType = chance(50) ? DType::I32 : DType::I64;
  bool negative = chance(50);
  GenConstant c{freshName("c"), indexType, std::move(shape), {}};
  int64_t count = 1;
  for (int64_t d : c.shape)
    count *= d;
  for (int64_t i = 0; i < count; ++i) {
    int64_t lo = dimBounds(dims[i % int64_t(dims.size())]).min;
    c.data.push_back(double(range(negative ? -lo : 0, lo - 1)));
  }
  prog.constants.push_back(c);
  return c.name;
}

const Value *Generator::valueOfType(const TensorType &type) {
  if (chance(50)) {
    const Value *v = choose([&](const Value &v) { return v.type == type; });
    if (v)
      return v;
  }
  std::vector<int64_t> shape;
  bool symbolic = false;
  for (const ShapeExpr &d : type.shape) {
    auto c = d.getConstant();
    shape.push_back(c ? *c : 1);
    symbolic |= !c;
  }
  const Value *c = addConstant(type.dtype, shape);
  if (!symbolic || !c)
    return c;
  return addNode("broadcast", {c->ref}, {{"shape", shapeText(type.shape)}},
                 true);
}

void Generator::addReduction(
    DType dtype, std::vector<std::pair<std::string, std::string>> &attrs) {
  uint64_t r = below(4);
  if (r == 0 && chance(50))
    attrs.push_back({"reduction", "\"none\""});
  else if (r >= 2 && dtype != DType::Bool)
    attrs.push_back({"reduction", r == 2 ? "\"add\"" : "\"mul\""});
}

/// gather_nd with constant index tuples into dims whose smallest value is
/// at least 1; batch_dims 1 when the first dim is static (the indices'
/// batch dim is a constant); 0 to 2 more leading dims of 0 to 3.
bool Generator::genGatherND() {
  if (!allowedOp("gather_nd") || !allowedDType(DType::I32) ||
      !allowedDType(DType::I64))
    return false;
  const Value *x = choose(
      [&](const Value &v) { return !axesAtLeast(v.type.shape, 1).empty(); });
  if (!x)
    return false;
  Value data = *x;
  const Shape &shape = data.type.shape;
  size_t batch = shape.size() > 1 && shape[0].getConstant() &&
                         dimBounds(shape[1]).min >= 1 && chance(30)
                     ? 1
                     : 0;
  size_t depth = 0;
  while (batch + depth < shape.size() && depth < 3 &&
         dimBounds(shape[batch + depth]).min >= 1 && (!depth || chance(50)))
    ++depth;
  if (!depth)
    return false;
  std::vector<int64_t> leading;
  if (batch)
    leading.push_back(*shape[0].getConstant());
  for (uint64_t extra = below(3); extra > 0; --extra)
    leading.push_back(range(0, 3));
  if (leading.size() + shape.size() - batch - depth > 8)
    return false;
  leading.push_back(int64_t(depth));
  std::string indices = indexConstant(
      leading, Shape(shape.begin() + batch, shape.begin() + batch + depth));
  std::vector<std::pair<std::string, std::string>> attrs;
  if (batch || chance(30))
    attrs.push_back({"batch_dims", std::to_string(batch)});
  return addNode("gather_nd", {data.ref, indices}, attrs, data.exact) !=
         nullptr;
}

/// scatter_elements with constant indices shaped as gather_elements' (off
/// the axis at most data's static dims, 1 to 3 along it; duplicates are
/// likely, and apply in order), updates of their shape.
bool Generator::genScatterElements() {
  if (!allowedOp("scatter_elements") || !allowedDType(DType::I32) ||
      !allowedDType(DType::I64))
    return false;
  auto axes = [&](const Shape &shape) {
    std::vector<int64_t> result;
    for (int64_t axis : axesAtLeast(shape, 1)) {
      bool staticOff = true;
      for (size_t d = 0; d < shape.size(); ++d)
        staticOff &= int64_t(d) == axis || shape[d].isConstant();
      if (staticOff)
        result.push_back(axis);
    }
    return result;
  };
  const Value *x =
      choose([&](const Value &v) { return !axes(v.type.shape).empty(); });
  if (!x)
    return false;
  Value data = *x;
  int64_t axis = pick(axes(data.type.shape));
  std::vector<int64_t> shape;
  for (size_t d = 0; d < data.type.shape.size(); ++d)
    shape.push_back(int64_t(d) == axis
                        ? range(1, 3)
                        : range(0, std::min<int64_t>(
                                       *data.type.shape[d].getConstant(), 4)));
  std::string indices = indexConstant(shape, {data.type.shape[axis]});
  TensorType updatesType{data.type.dtype, {}};
  for (int64_t d : shape)
    updatesType.shape.push_back(ShapeExpr::constant(d));
  const Value *updates = valueOfType(updatesType);
  if (!updates)
    return false;
  std::vector<std::pair<std::string, std::string>> attrs;
  if (axis || chance(50))
    attrs.push_back({"axis", std::to_string(axis)});
  addReduction(data.type.dtype, attrs);
  return addNode("scatter_elements", {data.ref, indices, updates->ref}, attrs,
                 data.exact && updates->exact) != nullptr;
}

/// scatter_nd with constant index tuples (depth 0 to 3, into dims whose
/// smallest value is at least 1; 0 to 2 leading dims of 0 to 3) and
/// updates of indices.shape[:-1] + data.shape[depth:], symbolic dims
/// included.
bool Generator::genScatterND() {
  if (!allowedOp("scatter_nd") || !allowedDType(DType::I32) ||
      !allowedDType(DType::I64))
    return false;
  const Value *x =
      choose([&](const Value &v) { return !v.type.shape.empty(); });
  if (!x)
    return false;
  Value data = *x;
  const Shape &shape = data.type.shape;
  size_t depth = 0;
  while (depth < shape.size() && depth < 3 &&
         dimBounds(shape[depth]).min >= 1 && chance(70))
    ++depth;
  std::vector<int64_t> leading;
  for (uint64_t extra = below(3); extra > 0; --extra)
    leading.push_back(range(0, 3));
  if (leading.size() + shape.size() - depth > 8)
    return false;
  TensorType updatesType{data.type.dtype, {}};
  for (int64_t d : leading)
    updatesType.shape.push_back(ShapeExpr::constant(d));
  leading.push_back(int64_t(depth));
  std::string indices =
      indexConstant(leading, Shape(shape.begin(), shape.begin() + depth));
  updatesType.shape.insert(updatesType.shape.end(), shape.begin() + depth,
                           shape.end());
  const Value *updates = valueOfType(updatesType);
  if (!updates)
    return false;
  std::vector<std::pair<std::string, std::string>> attrs;
  addReduction(data.type.dtype, attrs);
  return addNode("scatter_nd", {data.ref, indices, updates->ref}, attrs,
                 data.exact && updates->exact) != nullptr;
}

GeneratedProgram Generator::run() {
  pool.reserve(1024); // pointers into the pool stay valid
  // Symbols: 1-3, small ranges, some with multiple_of.
  unsigned numSymbols = range(1, 3);
  for (unsigned i = 0; i < numSymbols; ++i) {
    GenSymbol s;
    s.name = "S" + std::to_string(i);
    s.min = chance(10) ? 0 : range(1, 2);
    s.max = range(std::max<int64_t>(s.min, 1), 16);
    if (chance(25)) {
      s.multipleOf = chance(50) ? 2 : 4;
      int64_t first = (s.min + s.multipleOf - 1) / s.multipleOf * s.multipleOf;
      if (first > s.max)
        s.max = first;
    }
    prog.symbols.push_back(s);
  }
  // Inputs: 1-3; later inputs often share the first's shape (or a suffix).
  unsigned numInputs = range(1, 3);
  std::vector<std::string> firstDims;
  std::vector<bool> used(numSymbols, false);
  for (unsigned i = 0; i < numInputs; ++i) {
    GenInput in;
    in.name = "x" + std::to_string(i);
    in.dtype = randomDType();
    if (i && chance(50)) {
      size_t keep = range(std::min<size_t>(1, firstDims.size()), firstDims.size());
      in.dims.assign(firstDims.end() - keep, firstDims.end());
    } else {
      static const unsigned rankWeights[] = {5, 25, 35, 20, 15}; // rank 0-4
      uint64_t r = below(100);
      unsigned rank = 0;
      while (r >= rankWeights[rank]) {
        r -= rankWeights[rank];
        ++rank;
      }
      for (unsigned d = 0; d < rank; ++d) {
        if (chance(50)) {
          unsigned s = below(numSymbols);
          in.dims.push_back("\"" + prog.symbols[s].name + "\"");
        } else {
          static const std::vector<int64_t> sizes = {1, 1, 2, 3, 4, 5, 6, 8};
          in.dims.push_back(std::to_string(pick(sizes)));
        }
      }
    }
    if (i == 0)
      firstDims = in.dims;
    prog.inputs.push_back(in);
  }
  // Every symbol must be bound by an input dim: give unused ones a dim.
  for (unsigned s = 0; s < numSymbols; ++s) {
    std::string text = "\"" + prog.symbols[s].name + "\"";
    bool found = false;
    for (const GenInput &in : prog.inputs)
      for (const std::string &d : in.dims)
        found = found || d == text;
    if (!found) {
      GenInput &in = prog.inputs[below(prog.inputs.size())];
      if (in.dims.size() < 4)
        in.dims.insert(in.dims.begin() + below(in.dims.size() + 1), text);
      else
        in.dims[below(in.dims.size())] = text;
    }
  }
  // A symbol replaced above may now be unused: drop those.
  for (size_t s = prog.symbols.size(); s-- > 0;) {
    std::string text = "\"" + prog.symbols[s].name + "\"";
    bool found = false;
    for (const GenInput &in : prog.inputs)
      for (const std::string &d : in.dims)
        found = found || d == text;
    if (!found)
      prog.symbols.erase(prog.symbols.begin() + s);
  }
  // The inputs' types, from the verifier.
  {
    GeneratedProgram probe = prog;
    probe.outputs = {prog.inputs[0].name};
    DiagnosticEngine diags;
    std::unique_ptr<Program> checked =
        verifyProgramText(probe.toJson(), prog.name + ".json", diags);
    if (!checked) {
      prog.generatorError =
          diagnosticText(diags) + "(the inputs)\n" + probe.toJson();
      return prog;
    }
    symbolRanges = checked->symbolRanges();
    for (const ValueDecl &in : checked->inputs)
      pool.push_back(Value{in.name, in.type, true});
  }

  using GenFn = bool (Generator::*)();
  static const std::vector<std::pair<GenFn, unsigned>> generators = {
      {&Generator::genUnary, 14},     {&Generator::genDomainUnary, 5},
      {&Generator::genBinary, 18},    {&Generator::genSelect, 4},
      {&Generator::genCast, 5},       {&Generator::genReduction, 8},
      {&Generator::genSoftmax, 3},    {&Generator::genNorm, 3},
      {&Generator::genMatmul, 5},     {&Generator::genLinear, 3},
      {&Generator::genTranspose, 4},  {&Generator::genReshape, 4},
      {&Generator::genFlatten, 2},    {&Generator::genSqueezeUnsqueeze, 3},
      {&Generator::genConcat, 3},     {&Generator::genSlice, 4},
      {&Generator::genPad, 2},        {&Generator::genBroadcast, 3},
      {&Generator::genSplit, 2},      {&Generator::genConvPool, 2},
      {&Generator::genGather, 2},     {&Generator::genCumSum, 2},
      {&Generator::genTile, 2},       {&Generator::genTopK, 2},
      {&Generator::genGatherElements, 2}, {&Generator::genRange, 2},
      {&Generator::genGatherND, 2},
      {&Generator::genScatterElements, 2},
      {&Generator::genScatterND, 2},
      {&Generator::genConvPool3D, 2}};
  unsigned total = 0;
  for (auto &g : generators)
    total += g.second;
  unsigned target = range(options.minOps, std::max(options.minOps, options.maxOps));
  for (unsigned attempt = 0;
       prog.nodes.size() < target && attempt < 20 * target && !failed;
       ++attempt) {
    uint64_t r = below(total);
    size_t g = 0;
    while (r >= generators[g].second)
      r -= generators[g++].second;
    (this->*generators[g].first)();
  }
  if (failed)
    return prog;
  // Constants no node uses (a generator gave up after making one) go.
  std::set<std::string> usedNames;
  for (const GenNode &n : prog.nodes)
    for (const std::string &o : n.operands)
      usedNames.insert(o);
  prog.keepConstants(usedNames);
  // Outputs: the last node and every other unused result.
  std::vector<std::string> sinks;
  for (const Value &v : pool) {
    llvm::StringRef base = llvm::StringRef(v.ref).split(':').first;
    bool isNode = std::any_of(prog.nodes.begin(), prog.nodes.end(),
                              [&](const GenNode &n) { return n.name == base; });
    if (isNode && !usedNames.count(v.ref) &&
        !(v.ref == base.str() && usedNames.count(base.str() + ":0")))
      sinks.push_back(v.ref);
  }
  if (!prog.nodes.empty())
    prog.outputs.push_back(prog.nodes.back().name);
  else
    prog.outputs.push_back(prog.inputs[0].name);
  // Every other unused result too, so that no node is dead.
  for (const std::string &s : sinks)
    if (s != prog.outputs[0])
      prog.outputs.push_back(s);
  // The final program must verify as well.
  DiagnosticEngine diags;
  if (!verifyProgramText(prog.toJson(), prog.name + ".json", diags))
    prog.generatorError = diagnosticText(diags) + "(the final program)\n";
  return prog;
}

} // namespace

GeneratedProgram txc::generateProgram(uint64_t seed,
                                      const GeneratorOptions &options) {
  return Generator(seed, options).run();
}

std::vector<std::string> txc::generatableOps() {
  std::vector<std::string> ops =
      elementwiseOps([](const OpInfo &) { return true; });
  for (const char *op :
       {"select",     "cast",         "matmul",          "linear",
        "sum",        "mean",         "max",             "min",
        "prod",       "argmax",       "argmin",          "softmax",
        "log_softmax", "layer_norm",  "rms_norm",        "broadcast",
        "broadcast_to", "reshape",    "transpose",       "permute",
        "squeeze",    "unsqueeze",    "flatten",         "concat",
        "slice",      "pad",          "split",           "conv2d",
        "max_pool2d", "avg_pool2d",   "global_avg_pool", "gather",
        "topk",       "gather_nd",    "scatter_elements", "scatter_nd",
        "conv3d",     "max_pool3d",   "avg_pool3d"})
    ops.push_back(op);
  return ops;
}
