//===- ToleranceTest.cpp - Comparing outputs, choosing inputs -------------===//
#include "txc/Testing/Tolerance.h"
#include "txc/Testing/InputGenerator.h"

#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Support/SourceFile.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace txc;

namespace {

Tensor floats(DType dtype, std::vector<double> values) {
  Tensor t(dtype, {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.setDouble(int64_t(i), values[i]);
  return t;
}

TEST(Tolerance, IntegersAndBoolAreExact) {
  for (DType dtype : kAllDTypes) {
    Tolerance t = toleranceFor(dtype);
    EXPECT_EQ(t.atol == 0 && t.rtol == 0, !isFloat(dtype)) << int(dtype);
  }
  Tensor a(DType::I64, {2}), b(DType::I64, {2});
  a.setInt64(1, INT64_MAX);
  b.setInt64(1, INT64_MAX - 1); // equal as doubles, different as integers
  TensorComparison c = compareTensors(a, b, toleranceFor(DType::I64));
  EXPECT_FALSE(c.match);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.firstMismatch, "first at [1]: interpreter 9223372036854775807, "
                             "compiled 9223372036854775806");
}

TEST(Tolerance, FloatsWithinTolerancePass) {
  Tolerance t = toleranceFor(DType::F32);
  TensorComparison same = compareTensors(floats(DType::F32, {1, -2, 0}),
                                         floats(DType::F32, {1, -2, 0}), t);
  EXPECT_TRUE(same.match);
  EXPECT_EQ(same.maxAbsError, 0);
  TensorComparison close =
      compareTensors(floats(DType::F32, {100, 0}),
                     floats(DType::F32, {100.0009, 0.000009}), t);
  EXPECT_TRUE(close.match);
  EXPECT_GT(close.maxAbsError, 0);
  TensorComparison far = compareTensors(floats(DType::F32, {100, 0, 1}),
                                        floats(DType::F32, {100.002, 0, 1}), t);
  EXPECT_FALSE(far.match);
  EXPECT_EQ(far.mismatches, 1);
  EXPECT_EQ(far.firstMismatch.rfind("first at [0]: interpreter 100, compiled "
                                    "100.00199890136719",
                                    0),
            0u)
      << far.firstMismatch;
}

TEST(Tolerance, OneUlpOfHalfPassesTwoDoNot) {
  Tolerance t = toleranceFor(DType::F16);
  Tensor a(DType::F16, {1}), b(DType::F16, {1}), c(DType::F16, {1});
  a.store<uint16_t>(0, 0x3BFF); // just below 1: ulp 2^-11
  b.store<uint16_t>(0, 0x3C00);
  c.store<uint16_t>(0, 0x3C01);
  EXPECT_TRUE(compareTensors(a, b, t).match);
  EXPECT_FALSE(compareTensors(a, c, t).match);
  a.store<uint16_t>(0, 0x3C00); // 1: ulp 2^-10
  b.store<uint16_t>(0, 0x3C01);
  c.store<uint16_t>(0, 0x3C02);
  EXPECT_TRUE(compareTensors(a, b, t).match);
  EXPECT_FALSE(compareTensors(a, c, t).match);
}

TEST(Tolerance, NaNEqualsNaNAtTheSamePosition) {
  Tolerance t = toleranceFor(DType::F64);
  EXPECT_TRUE(compareTensors(floats(DType::F64, {NAN, 1}),
                             floats(DType::F64, {-NAN, 1}), t)
                  .match);
  EXPECT_FALSE(compareTensors(floats(DType::F64, {NAN, 1}),
                              floats(DType::F64, {1, NAN}), t)
                   .match);
  EXPECT_FALSE(
      compareTensors(floats(DType::F64, {NAN}), floats(DType::F64, {0}), t)
          .match);
  EXPECT_TRUE(compareTensors(floats(DType::F64, {INFINITY, -INFINITY}),
                             floats(DType::F64, {INFINITY, -INFINITY}), t)
                  .match);
  EXPECT_FALSE(compareTensors(floats(DType::F64, {INFINITY}),
                              floats(DType::F64, {-INFINITY}), t)
                   .match);
  EXPECT_FALSE(compareTensors(floats(DType::F64, {INFINITY}),
                              floats(DType::F64, {1e308}), t)
                   .match);
}

TEST(Tolerance, DifferentTypesNeverMatch) {
  Tolerance t = toleranceFor(DType::F32);
  TensorComparison shape =
      compareTensors(Tensor(DType::F32, {2, 1}), Tensor(DType::F32, {2}), t);
  EXPECT_FALSE(shape.match);
  EXPECT_EQ(shape.firstMismatch,
            "the interpreter gives f32[2,1], the compiled code f32[2]");
  EXPECT_FALSE(
      compareTensors(Tensor(DType::F32, {2}), Tensor(DType::I32, {2}), t)
          .match);
}

struct Checked {
  std::unique_ptr<Program> program;
  Contract contract;
};

Checked check(const std::string &json) {
  DiagnosticEngine diags;
  SourceFile file("t.json", json);
  Checked result;
  result.program = readProgram(file, diags);
  EXPECT_TRUE(result.program && verifyProgram(*result.program, diags));
  auto contract = buildContract(*result.program, "", diags);
  EXPECT_TRUE(contract.has_value());
  if (contract)
    result.contract = std::move(*contract);
  return result;
}

const char *kSquare = R"({"format": "txc.program", "version": 1, "name": "sq",
  "symbols": [{"name": "S", "min": 3, "max": 1000000, "multiple_of": 4},
              {"name": "T", "min": 0, "max": 5}],
  "inputs": [{"name": "A", "dtype": "f32", "shape": ["S", "S"]},
             {"name": "B", "dtype": "i8", "shape": ["T"]}],
  "nodes": [{"name": "r", "op": "relu", "operands": ["A"]}],
  "outputs": [{"name": "Y", "value": "r"}]})";

TEST(InputGenerator, SymbolValuesRespectRangesMultiplesAndBudget) {
  Checked p = check(kSquare);
  const int64_t budget = 1 << 20;
  std::vector<SymbolValues> sets =
      chooseSymbolValues(*p.program, p.contract, 5, budget);
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].label, "min");
  EXPECT_EQ(sets[0].values, (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(sets[1].label, "max");
  EXPECT_TRUE(sets[1].capped);
  EXPECT_EQ(sets[2].label, "random");
  for (const SymbolValues &set : sets) {
    EXPECT_EQ(set.values[0] % 4, 0);
    EXPECT_GE(set.values[0], 4);
    EXPECT_LE(set.values[1], 5);
    EXPECT_LE(programBytes(*p.program, set.values), budget);
  }
  // The cap halves S (the widest symbol) from 1000000 until A and Y fit:
  // 8 * S^2 <= 2^20 needs S <= 362.
  EXPECT_LE(sets[1].values[0], 362);
  EXPECT_GT(sets[1].values[0], 181);
  EXPECT_EQ(formatSymbolValues(p.contract, sets[0].values), "S=4,T=0");
}

TEST(InputGenerator, ParsesGivenSymbolValues) {
  Checked p = check(kSquare);
  auto ok = parseSymbolValues(p.contract, "T=2, S=8");
  ASSERT_TRUE(bool(ok)) << llvm::toString(ok.takeError());
  EXPECT_EQ(ok->values, (std::vector<int64_t>{8, 2}));
  for (const char *bad :
       {"S=6,T=1", "S=8", "S=8,T=9", "S=8,T=1,U=2", "S=x,T=1", "S=0,T=0"}) {
    auto result = parseSymbolValues(p.contract, bad);
    EXPECT_FALSE(bool(result)) << bad;
    llvm::consumeError(result.takeError());
  }
}

TEST(InputGenerator, InputsAreSeededAndInRange) {
  Checked p = check(kSquare);
  std::vector<Tensor> a = generateInputs(p.contract, {8, 5}, 1);
  std::vector<Tensor> b = generateInputs(p.contract, {8, 5}, 1);
  std::vector<Tensor> c = generateInputs(p.contract, {8, 5}, 2);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].typeString(), "f32[8,8]");
  EXPECT_EQ(a[1].typeString(), "i8[5]");
  EXPECT_TRUE(a[0].identical(b[0]) && a[1].identical(b[1]));
  EXPECT_FALSE(a[0].identical(c[0]));
  for (int64_t i = 0; i < a[0].numElements(); ++i) {
    EXPECT_GE(a[0].getDouble(i), -4.0);
    EXPECT_LE(a[0].getDouble(i), 4.0);
  }
  // Integers: small, or one of the boundary values.
  std::vector<Tensor> many = generateInputs(p.contract, {4, 5}, 9);
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Tensor ints = generateInputs(p.contract, {4, 5}, seed)[1];
    for (int64_t i = 0; i < ints.numElements(); ++i) {
      int64_t v = ints.getInt64(i);
      EXPECT_TRUE((v >= -8 && v <= 8) || v == -128 || v == 127) << v;
    }
  }
}

} // namespace
