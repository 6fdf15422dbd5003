//===- WorkloadTest.cpp ---------------------------------------------------===//
//
// The workloads of txc budget: the LRU of per-shape artifacts against the
// lesson's cache lab, and --steady/--churn (deterministic, in range, on
// multiples).
//
//===----------------------------------------------------------------------===//
#include "txc/Tools/Workload.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace txc;
using namespace txc::test;

namespace {

/// The cache lab's stream: 16 requests of address (i * stride) mod 16.
Workload labStream(int64_t stride) {
  Workload workload;
  for (int64_t i = 0; i < 16; ++i)
    workload.add({(i * stride) % 16}, 1);
  return workload;
}

TEST(WorkloadTest, LruMatchesTheCacheLab) {
  // C=4, s=4: four addresses repeat and fit, twelve hits of sixteen.
  LruResult fits = simulateLru(labStream(4), 4);
  EXPECT_EQ(fits.hits, 12u);
  EXPECT_EQ(fits.misses, 4u);
  EXPECT_EQ(fits.secondMissCall, std::optional<uint64_t>(1));
  // C=3, s=4: each address is evicted just before it comes back.
  LruResult thrashes = simulateLru(labStream(4), 3);
  EXPECT_EQ(thrashes.hits, 0u);
  EXPECT_EQ(thrashes.misses, 16u);
  EXPECT_EQ(thrashes.missesPerShape, std::vector<uint64_t>(4, 4));
}

TEST(WorkloadTest, RunsOfOneShapeMissOnce) {
  Workload workload;
  workload.add({8}, 50);
  workload.add({8}, 50);
  workload.add({16}, 1);
  ASSERT_EQ(workload.runs.size(), 2u); // the two runs of 8 are merged
  EXPECT_EQ(workload.calls(), 101u);
  LruResult lru = simulateLru(workload, 1);
  EXPECT_EQ(lru.misses, 2u);
  EXPECT_EQ(lru.hits, 99u);
  EXPECT_EQ(lru.secondMissCall, std::optional<uint64_t>(100));
}

TEST(WorkloadTest, SteadyAndChurn) {
  auto loaded = contract(program(
      R"({"name": "B", "min": 1, "max": 64}, {"name": "S", "min": 8, "max": 64, "multiple_of": 8})",
      R"({"name": "X", "dtype": "f32", "shape": ["B", "S"]})",
      R"({"name": "r", "op": "relu", "operands": ["X"]})", R"("r")"));
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  DiagnosticEngine diags;
  auto steady = steadyWorkload("B=8,S=16:1000", *loaded->contract, diags);
  ASSERT_TRUE(steady) << dump(diags);
  EXPECT_EQ(steady->shapes, (std::vector<std::vector<int64_t>>{{8, 16}}));
  EXPECT_EQ(steady->calls(), 1000u);

  auto churn = churnWorkload("B=1..64,S=8..64:500", *loaded->contract, 7,
                             diags);
  ASSERT_TRUE(churn) << dump(diags);
  EXPECT_EQ(churn->calls(), 500u);
  for (const std::vector<int64_t> &shape : churn->shapes) {
    EXPECT_GE(shape[0], 1);
    EXPECT_LE(shape[0], 64);
    EXPECT_EQ(shape[1] % 8, 0);
    EXPECT_GE(shape[1], 8);
    EXPECT_LE(shape[1], 64);
  }
  EXPECT_GT(churn->shapes.size(), 100u);
  auto again = churnWorkload("B=1..64,S=8..64:500", *loaded->contract, 7,
                             diags);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->shapes, churn->shapes);
  EXPECT_EQ(again->runs, churn->runs);
  auto other = churnWorkload("B=1..64,S=8..64:500", *loaded->contract, 8,
                             diags);
  ASSERT_TRUE(other);
  EXPECT_NE(other->runs, churn->runs);

  // S=12 is not a multiple of 8; a symbol left out has no value.
  EXPECT_FALSE(churnWorkload("B=1..4,S=12..16:5", *loaded->contract, 1,
                             diags));
  EXPECT_FALSE(steadyWorkload("B=4:5", *loaded->contract, diags));
  EXPECT_EQ(diags.errorCount(), 2u) << dump(diags);
}

} // namespace
