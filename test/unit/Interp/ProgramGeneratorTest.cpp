//===- ProgramGeneratorTest.cpp - The random program generator ------------===//
#include "txc/Program/OpRegistry.h"
#include "txc/Testing/Minimizer.h"
#include "txc/Testing/ProgramGenerator.h"
#include "txc/Testing/Tolerance.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace txc;

namespace {

TEST(ProgramGenerator, SameSeedSameProgram) {
  for (uint64_t seed : {0u, 1u, 17u, 123456u}) {
    GeneratedProgram a = generateProgram(seed), b = generateProgram(seed);
    EXPECT_EQ(a.toJson(), b.toJson()) << "seed " << seed;
  }
  EXPECT_NE(generateProgram(1).toJson(), generateProgram(2).toJson());
}

// Pinned, so that a change to the generator that moves every seed is
// noticed (CI seed ranges and saved repros are described by seed).
TEST(ProgramGenerator, SeedIsStable) {
  GeneratedProgram p = generateProgram(0);
  EXPECT_EQ(p.name, "fuzz0");
  EXPECT_FALSE(p.nodes.empty());
}

TEST(ProgramGenerator, EveryProgramVerifies) {
  for (uint64_t seed = 0; seed < 400; ++seed) {
    GeneratedProgram p = generateProgram(seed);
    ASSERT_EQ(p.generatorError, "") << "seed " << seed;
    DiagnosticEngine diags;
    EXPECT_NE(verifyProgramText(p.toJson(), "p.json", diags), nullptr)
        << "seed " << seed << "\n"
        << p.toJson();
    EXPECT_GE(p.nodes.size(), 2u) << "seed " << seed;
    EXPECT_LE(p.nodes.size(), 36u) << "seed " << seed;
    EXPECT_GE(p.symbols.size(), 1u);
    EXPECT_LE(p.symbols.size(), 3u);
    EXPECT_GE(p.inputs.size(), 1u);
    EXPECT_LE(p.inputs.size(), 3u);
    for (const GenSymbol &s : p.symbols)
      EXPECT_LE(s.max, 16);
  }
}

TEST(ProgramGenerator, CoversTheOps) {
  std::map<std::string, unsigned> counts;
  std::set<DType> dtypes;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    GeneratedProgram p = generateProgram(seed);
    for (const std::string &op : p.ops())
      ++counts[op];
    for (const GenInput &in : p.inputs)
      dtypes.insert(in.dtype);
  }
  for (const std::string &op : generatableOps())
    EXPECT_GT(counts[op], 0u) << "op '" << op << "' never generated";
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32,
                  DType::I8, DType::Bool})
    EXPECT_TRUE(dtypes.count(d)) << dtypeName(d).str();
}

TEST(ProgramGenerator, ExclusionsHold) {
  GeneratorOptions options;
  options.excludedOps = {"exp", "add", "select", "matmul"};
  options.excludedDTypes = {DType::Bool, DType::BF16};
  for (uint64_t seed = 0; seed < 200; ++seed) {
    GeneratedProgram p = generateProgram(seed, options);
    ASSERT_EQ(p.generatorError, "") << "seed " << seed;
    for (const std::string &op : p.ops())
      EXPECT_FALSE(options.excludedOps.count(op)) << "seed " << seed;
    DiagnosticEngine diags;
    std::unique_ptr<Program> program =
        verifyProgramText(p.toJson(), "p.json", diags);
    ASSERT_NE(program, nullptr);
    for (const Node &n : program->body.nodes)
      for (const TensorType &t : n.resultTypes)
        EXPECT_FALSE(options.excludedDTypes.count(t.dtype))
            << "seed " << seed << " node " << n.name;
    for (const ValueDecl &in : program->inputs)
      EXPECT_FALSE(options.excludedDTypes.count(in.type.dtype));
  }
}

TEST(ProgramGenerator, OpCountBounds) {
  GeneratorOptions options;
  options.minOps = 2;
  options.maxOps = 4;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    GeneratedProgram p = generateProgram(seed, options);
    ASSERT_EQ(p.generatorError, "");
    EXPECT_LE(p.nodes.size(), 10u); // a step may add helper nodes
  }
}

// What the tolerances cannot absorb: a Discontinuous op (floor, tan near a
// pole, asin near 1) of a rounded operand, where a last-bit difference
// becomes a large one, or of a dtype it does not take (tan of an integer: a
// verifier error), and a rounded float widened by a cast (f32's rounding
// compared with f64's tolerance). A float result of a Rounded op is never
// exact, so neither may feed those directly.
TEST(ProgramGenerator, RoundedValuesAreNotAmplified) {
  unsigned tans = 0, widenings = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    GeneratedProgram p = generateProgram(seed);
    DiagnosticEngine diags;
    std::unique_ptr<Program> program =
        verifyProgramText(p.toJson(), "p.json", diags);
    ASSERT_NE(program, nullptr) << "seed " << seed;
    std::map<std::string, const Node *> producers;
    std::map<std::string, DType> dtypes;
    for (const ValueDecl &in : program->inputs)
      dtypes[in.name] = in.type.dtype;
    for (const ConstantDecl &c : program->constants)
      dtypes[c.name] = c.type.dtype;
    for (const Node &n : program->body.nodes) {
      const Node *x = nullptr;
      DType from = DType::F32;
      if (!n.operands.empty()) {
        std::string ref = n.operands[0];
        std::string value = ref.substr(0, ref.find(':'));
        x = producers.count(value) ? producers[value] : nullptr;
        if (dtypes.count(ref))
          from = dtypes[ref];
      }
      bool rounded = x && isFloat(from) &&
                     getOpInfo(x->kind).numerics == Numerics::Rounded;
      const OpInfo &info = getOpInfo(n.kind);
      if (info.domain == ElementwiseDomain::Discontinuous) {
        tans += n.opName == "tan";
        EXPECT_TRUE(acceptsDType(info.dtypes, from))
            << "seed " << seed << " node " << n.name;
        EXPECT_FALSE(rounded) << "seed " << seed << " node " << n.name;
      }
      DType to = n.resultTypes[0].dtype;
      if (n.opName == "cast" && isFloat(from) && isFloat(to) &&
          toleranceFor(to).rtol < toleranceFor(from).rtol) {
        ++widenings;
        EXPECT_FALSE(rounded) << "seed " << seed << " node " << n.name;
      }
      producers[n.name] = &n;
      for (size_t r = 0; r < n.resultTypes.size(); ++r)
        dtypes[r ? n.name + ":" + std::to_string(r) : n.name] =
            n.resultTypes[r].dtype;
    }
  }
  EXPECT_GT(tans, 0u);
  EXPECT_GT(widenings, 0u);
}

// The minimizer keeps the failure and shrinks everything else: here the
// "failure" is the presence of an `exp` node.
TEST(Minimizer, KeepsTheFailureAndShrinks) {
  unsigned found = 0;
  for (uint64_t seed = 0; seed < 60 && found < 5; ++seed) {
    GeneratedProgram p = generateProgram(seed);
    auto hasExp = [](const GeneratedProgram &q) {
      for (const std::string &op : q.ops())
        if (op == "exp")
          return true;
      return false;
    };
    if (!hasExp(p) || p.nodes.size() < 5)
      continue;
    ++found;
    unsigned tests = 0;
    GeneratedProgram small = minimizeProgram(p, hasExp, 500, tests);
    EXPECT_TRUE(hasExp(small));
    EXPECT_LT(small.nodes.size(), p.nodes.size()) << "seed " << seed;
    EXPECT_EQ(small.outputs.size(), 1u);
    DiagnosticEngine diags;
    EXPECT_NE(verifyProgramText(small.toJson(), "m.json", diags), nullptr);
  }
  EXPECT_GT(found, 0u);
}

} // namespace
